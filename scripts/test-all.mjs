#!/usr/bin/env node
// `npm test`: every check in order. Streams each step's output and ends with one summary line
// counting the tests of all suites.
import { execFileSync, spawn } from 'node:child_process';

// Each step starts as soon as the steps it names in `after` have ended (whatever their result),
// so the run is a graph, not a row of phases: the wall time is its longest chain.
// - build first, alone; lint and the type check (CPU) and the unit suite next, side by side.
// - Then the gateway, core (API v2; API v1 with the built-in scheduler pass; search) and
//   reliability suites, side by side: each uses a fifth to a quarter of the two cores (they wait
//   for Slurm, for Retry-After and for their own fault timers), each against gateways of its own.
// - The host runs each start their own gateway and VS Code, and mostly wait on the workbench:
//   two of them side by side left the cores half idle (vmstat, 27 Nov 2026). The person's
//   sign-in is a 5-minute session at a person's pace (a save and a listing a second): it starts
//   right after the build and ends during the other host runs. After the suites, the in-host
//   suite (in two VS Codes) and the API v1 host run start together, and the UI screenshots
//   follow the first of them to end (549 s of wall time for 2,000 s of steps, 27 Nov 2026).
const checks = ['lint', 'types', 'unit'];
// The oldest Node line `engines.node` allows (22): the unit and client suites run on it too (the
// rest of the run is on the Node the `node` devDependency brings, 24, as VS Code's extension host).
const skipNames = (process.env.SKIP_STEPS ?? '').split(',');
const oldestNode = ['unit-node22', 'core-node22'].every((n) => skipNames.includes(n))
  ? process.execPath
  : execFileSync('bash', ['scripts/ensure-node.sh', '22'], { stdio: ['ignore', 'pipe', 'inherit'] }).toString().trim();
const hostJobs = 'jobs,output,sbatch,accounting,systems,dependencies,provenance,v1-features,sync';
const suites = ['gateway', 'core', 'core-v1', 'core-search', 'reliability', 'reliability-2'];
const steps = [
  { name: 'build', cmd: 'npm', args: ['run', '-s', 'build'], after: [] },
  { name: 'lint', cmd: 'npm', args: ['run', '-s', 'lint'], after: ['build'] },
  { name: 'types', cmd: 'npm', args: ['run', '-s', 'typecheck'], after: ['build'] },
  { name: 'unit', cmd: 'npm', args: ['run', '-s', 'test:unit'], after: ['build'] },
  { name: 'unit-node22', cmd: 'sh', args: ['-c', `"${oldestNode}" --import tsx --test --test-reporter=spec test/unit/*.test.ts`], after: ['unit'] },
  { name: 'gateway', cmd: 'npm', args: ['run', '-s', 'test:gateway'], after: checks },
  // `npm run test:core` in three parts side by side: API v2; API v1 with the built-in scheduler
  // pass; and the search suites (a Slurm job per search, a minute of waiting on API v2).
  { name: 'core', cmd: 'node', args: ['scripts/run-suites.mjs', 'test/core', '--api', 'v2', '--skip', '^(v1-)?(arrays|search)\\.'], after: checks },
  // Both parts run whatever the first gave, so a failing run still counts every test.
  { name: 'core-v1', cmd: 'sh', args: ['-c', 'node scripts/run-suites.mjs test/core --api v1 --skip "^(v1-)?(arrays|search)\\."; r=$?; node scripts/run-suites.mjs test/core --schedulers local --match "^(v1-)?(search|arrays)\\." || r=1; exit $r'], after: checks },
  { name: 'core-search', cmd: 'node', args: ['scripts/run-suites.mjs', 'test/core', '--match', '^(v1-)?search\\.'], after: checks },
  // The client suites on the oldest Node line (API v2, the gateway on it too), after the others.
  { name: 'core-node22', cmd: oldestNode, args: ['scripts/run-suites.mjs', 'test/core', '--api', 'v2', '--schedulers', 'local', '--skip', '^(v1-)?(arrays|search)\\.'], after: ['core'] },
  // The reliability suites in two parts: the fault workload and crash safety (mostly waiting on
  // injected latency and restarts), and the rest with the gateway's security suites.
  { name: 'reliability', cmd: 'node', args: ['scripts/test-reliability.mjs', '--part', 'long'], after: checks },
  { name: 'reliability-2', cmd: 'node', args: ['scripts/test-reliability.mjs', '--part', 'rest'], after: checks },
  { name: 'host-signin', cmd: 'node', args: ['scripts/run-host-tests.mjs', '--no-build', '--files', 'signin'], after: ['build'] },
  // The smoke suite on the oldest VS Code that engines.vscode allows (1.103.2, on Node 22).
  { name: 'host-oldest', cmd: 'node', args: ['scripts/run-host-tests.mjs', '--no-build', '--oldest', '--files', 'smoke'], after: ['host-signin'] },
  // `npm start` stopped by npm's pid, as a process manager does: everything it started stops.
  { name: 'start', cmd: 'node', args: ['--import', 'tsx', '--test', '--test-reporter=spec', 'test/scripts/start.test.ts'], after: ['host-oldest'] },
  // The in-host suite in two VS Codes side by side: jobs, scripts and accounting; files and transfers.
  { name: 'host', cmd: 'node', args: ['scripts/run-host-tests.mjs', '--no-build', '--files', hostJobs], after: suites },
  { name: 'host-files', cmd: 'node', args: ['scripts/run-host-tests.mjs', '--no-build', '--skip-files', `signin,${hostJobs}`], after: suites },
  // The feature suites again on an API v1 connection (the build step above already built).
  { name: 'host-v1', cmd: 'node', args: ['scripts/run-host-tests.mjs', '--no-build', '--api', 'v1', '--files', 'fs.,fs-large,fs-commands,systems,jobs,accounting,sbatch'], after: suites },
  // A code-server and a browser of their own: it starts when one of the three host runs has
  // ended, so that at most three VS Codes run at once.
  { name: 'ui', cmd: 'node', args: ['scripts/run-ui-tests.mjs', '--no-build'], after: suites, afterAny: ['host', 'host-files', 'host-v1'] },
];
const skipSteps = skipNames;
for (const s of steps) {
  s.after = s.after.filter((a) => !skipSteps.includes(a));
  // `afterAny`: one of these must have ended too (none, when all of them are skipped).
  s.afterAny = (s.afterAny ?? []).filter((a) => !skipSteps.includes(a));
}
const planned = steps.filter((s) => !skipSteps.includes(s.name));

let passed = 0, failed = 0, skipped = 0;
/** Per step: seconds and the tests it counted, printed as a table at the end so growth is visible. */
const timings = [];
const failedSteps = [];
// What failed, repeated at the end: a CI log is often read from its tail only.
const digest = [];
let capture = 0;
const scan = (line, step) => {
  let m;
  if (capture > 0 && /^(#####|=== )/.test(line)) capture = 0;
  if (capture > 0) {
    capture--;
    if (line.trim()) digest.push(`  [${step}] ${line.slice(0, 300)}`);
  }
  if (/^\s*\d+ failing/.test(line) || /^\s*✖ failing tests:/.test(line)) capture = 30;
  if ((m = /^\s*ℹ pass (\d+)/.exec(line))) passed += +m[1];
  else if ((m = /^\s*ℹ fail (\d+)/.exec(line))) failed += +m[1];
  else if ((m = /^\s*ℹ skipped (\d+)/.exec(line))) skipped += +m[1];
  else if ((m = /^\s*(\d+) passing/.exec(line))) passed += +m[1];
  else if ((m = /^\s*(\d+) failing/.exec(line))) failed += +m[1];
  else if ((m = /^\s*(\d+) pending/.exec(line))) skipped += +m[1];
};

/** The steps running now: a SIGINT or SIGTERM of `npm test` is passed on to them (each step's
 * runner stops its own gateways and VS Codes), and `npm test` ends when they have. */
const children = new Set();
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.once(sig, () => {
    for (const c of children) c.kill(sig);
    const exit = () => (children.size ? setTimeout(exit, 100) : process.exit(sig === 'SIGINT' ? 130 : 143));
    exit();
  });
}

/** Runs one step; `live`: its output streams as it comes, else it is printed whole at the end. */
function runStep(name, cmd, args, live) {
  const started = Date.now();
  const out = [];
  const print = (s) => (live ? process.stdout.write(s) : out.push(s));
  print(`\n##### ${name} #####\n`);
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let buf = '';
    const lines = [];
    child.stdout.on('data', (d) => {
      print(d.toString());
      buf += d.toString();
      const ls = buf.split('\n'); buf = ls.pop();
      lines.push(...ls);
    });
    child.stderr.on('data', (d) => (live ? process.stderr.write(d) : out.push(d.toString())));
    child.on('close', (c) => {
      children.delete(child);
      if (buf) lines.push(buf);
      const code = c ?? 1;
      const seconds = (Date.now() - started) / 1000;
      print(`##### ${name}: ${code === 0 ? 'ok' : 'FAILED'} (${seconds.toFixed(1)} s)\n`);
      if (!live) process.stdout.write(out.join(''));
      // Counted when the step ends, whole: the digest stays per step.
      for (const l of lines) scan(l, name);
      capture = 0;
      resolve({ name, seconds, ok: code === 0 });
    });
  });
}

const wallStarted = Date.now();
{
  const done = new Set();
  const running = new Map();
  const waiting = [...planned];
  while (waiting.length || running.size) {
    for (const s of [...waiting]) {
      if (!s.after.every((a) => done.has(a))) continue;
      if (s.afterAny.length && !s.afterAny.some((a) => done.has(a))) continue;
      waiting.splice(waiting.indexOf(s), 1);
      // Streamed as it goes when it runs alone (the build, or a single step left by SKIP_STEPS).
      const alone = s.name === 'build' || planned.length === 1;
      running.set(s.name, runStep(s.name, s.cmd, s.args, alone).then((r) => ({ ...r, offset: (Date.now() - wallStarted) / 1000 - r.seconds })));
    }
    if (running.size === 0) break; // unreachable: every `after` names an earlier step
    const r = await Promise.race(running.values());
    running.delete(r.name);
    done.add(r.name);
    timings.push(r);
    if (!r.ok) failedSteps.push(r.name);
  }
}
const total = timings.reduce((s, x) => s + x.seconds, 0);
console.log('\nstep           seconds  share  start  result');
for (const x of [...timings].sort((p, q) => p.offset - q.offset)) console.log(`${x.name.padEnd(14)} ${x.seconds.toFixed(1).padStart(7)}  ${((100 * x.seconds) / (total || 1)).toFixed(0).padStart(4)}%  ${x.offset.toFixed(0).padStart(5)}  ${x.ok ? 'ok' : 'FAILED'}`);
console.log(`${'total'.padEnd(14)} ${total.toFixed(1).padStart(7)}  (steps added up)`);
console.log(`${'wall'.padEnd(14)} ${((Date.now() - wallStarted) / 1000).toFixed(1).padStart(7)}  (each step starts when the steps it waits for end: see "start", seconds into the run)`);
if (digest.length) console.log(`\nfailures (first lines of each report):\n${digest.join('\n')}`);
if (failedSteps.length) console.log(`\nfailed steps: ${failedSteps.join(', ')}`);
if (failedSteps.length && failed === 0) failed = failedSteps.length;
console.log(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failedSteps.length ? 1 : 0);

#!/usr/bin/env node
// `npm test`: every check in order. Streams each step's output and ends with one summary line
// counting the tests of all suites.
import { spawn } from 'node:child_process';

// Steps with the same `together` tag run side by side (their output is printed when each ends,
// whole): lint and the type check are CPU, the unit suite mostly waits for its schedulers; the
// gateway, core (API v2, and API v1 with the built-in scheduler pass) and reliability suites each use a
// fifth to a quarter of the two cores (they wait
// for Slurm, for Retry-After and for their own fault timers), each against gateways of its own.
// The host runs each start their own gateway and VS Code too.
const steps = [
  ['build', 'npm', ['run', '-s', 'build']],
  ['lint', 'npm', ['run', '-s', 'lint'], 'checks'],
  ['types', 'npm', ['run', '-s', 'typecheck'], 'checks'],
  ['unit', 'npm', ['run', '-s', 'test:unit'], 'checks'],
  ['gateway', 'npm', ['run', '-s', 'test:gateway'], 'suites'],
  // `npm run test:core` in two halves side by side: API v2, and API v1 with the built-in scheduler pass.
  ['core', 'node', ['scripts/run-suites.mjs', 'test/core', '--api', 'v2', '--skip', '^(v1-)?arrays\\.'], 'suites'],
  // Both parts run whatever the first gave, so a failing run still counts every test.
  ['core-v1', 'sh', ['-c', 'node scripts/run-suites.mjs test/core --api v1 --skip "^(v1-)?arrays\\."; r=$?; node scripts/run-suites.mjs test/core --schedulers local --match "^(v1-)?(search|arrays)\\." || r=1; exit $r'], 'suites'],
  // The reliability suites in two parts: the fault workload and crash safety (about 200 s, mostly
  // waiting on injected latency and restarts), and the rest with the gateway's security suites.
  ['reliability', 'node', ['scripts/test-reliability.mjs', '--part', 'long'], 'suites'],
  ['reliability-2', 'node', ['scripts/test-reliability.mjs', '--part', 'rest'], 'suites'],
  // The person's sign-in is a 5-minute session at a person's pace (a save and a listing a second):
  // it runs in a VS Code of its own beside the longest host run instead of after everything else.
  ['host', 'node', ['scripts/run-host-tests.mjs', '--no-build', '--skip-files', 'signin'], 'hosts'],
  ['host-signin', 'node', ['scripts/run-host-tests.mjs', '--no-build', '--files', 'signin'], 'hosts'],
  // The feature suites again on an API v1 connection (the build step above already built).
  // Beside the UI screenshots (a code-server and a browser of their own): both wait on the
  // workbench more than they compute.
  ['host-v1', 'node', ['scripts/run-host-tests.mjs', '--no-build', '--api', 'v1', '--files', 'fs.,fs-large,fs-commands,systems,jobs,accounting,sbatch'], 'last'],
  ['ui', 'node', ['scripts/run-ui-tests.mjs', '--no-build'], 'last'],
].filter(([name]) => !(process.env.SKIP_STEPS ?? '').split(',').includes(name));

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

/** Runs one step; `live`: its output streams as it comes, else it is printed whole at the end. */
function runStep(name, cmd, args, live) {
  const started = Date.now();
  const out = [];
  const print = (s) => (live ? process.stdout.write(s) : out.push(s));
  print(`\n##### ${name} #####\n`);
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
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
      if (buf) lines.push(buf);
      const code = c ?? 1;
      const seconds = (Date.now() - started) / 1000;
      print(`##### ${name}: ${code === 0 ? 'ok' : 'FAILED'} (${seconds.toFixed(1)} s)\n`);
      if (!live) process.stdout.write(out.join(''));
      // Counted after the step, in step order within a group: the digest stays per step.
      for (const l of lines) scan(l, name);
      capture = 0;
      resolve({ name, seconds, ok: code === 0 });
    });
  });
}

const wallStarted = Date.now();
for (let i = 0; i < steps.length;) {
  const tag = steps[i][3];
  const group = tag ? steps.filter((s, j) => j >= i && s[3] === tag) : [steps[i]];
  i += group.length;
  const results = await Promise.all(group.map(([name, cmd, args]) => runStep(name, cmd, args, group.length === 1)));
  for (const r of results) {
    timings.push(r);
    if (!r.ok) failedSteps.push(r.name);
  }
}
const total = timings.reduce((s, x) => s + x.seconds, 0);
console.log('\nstep           seconds  share  result');
for (const x of timings) console.log(`${x.name.padEnd(14)} ${x.seconds.toFixed(1).padStart(7)}  ${((100 * x.seconds) / (total || 1)).toFixed(0).padStart(4)}%  ${x.ok ? 'ok' : 'FAILED'}`);
console.log(`${'total'.padEnd(14)} ${total.toFixed(1).padStart(7)}  (steps added up)`);
console.log(`${'wall'.padEnd(14)} ${((Date.now() - wallStarted) / 1000).toFixed(1).padStart(7)}  (lint, types and unit side by side; gateway, core (v2, v1) and reliability too; host and host-signin too; host-v1 and ui too)`);
if (digest.length) console.log(`\nfailures (first lines of each report):\n${digest.join('\n')}`);
if (failedSteps.length) console.log(`\nfailed steps: ${failedSteps.join(', ')}`);
if (failedSteps.length && failed === 0) failed = failedSteps.length;
console.log(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failedSteps.length ? 1 : 0);

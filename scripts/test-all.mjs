#!/usr/bin/env node
// `npm test`: every check in order. Streams each step's output and ends with one summary line
// counting the tests of all suites.
import { spawn } from 'node:child_process';

const steps = [
  ['lint', 'npm', ['run', '-s', 'lint']],
  ['types', 'npm', ['run', '-s', 'typecheck']],
  ['build', 'npm', ['run', '-s', 'build']],
  ['unit', 'npm', ['run', '-s', 'test:unit']],
  ['gateway', 'npm', ['run', '-s', 'test:gateway']],
  ['core', 'npm', ['run', '-s', 'test:core']],
  ['reliability', 'npm', ['run', '-s', 'test:reliability']],
  ['host', 'npm', ['run', '-s', 'test:host']],
  // The feature suites again on an API v1 connection (the build step above already built).
  ['host-v1', 'node', ['scripts/run-host-tests.mjs', '--no-build', '--api', 'v1', '--files', 'fs.,fs-large,fs-commands,systems,jobs,accounting,sbatch']],
  ['ui', 'npm', ['run', '-s', 'test:ui']],
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

for (const [name, cmd, args] of steps) {
  console.log(`\n##### ${name} #####`);
  const started = Date.now();
  const code = await new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let buf = '';
    child.stdout.on('data', (d) => {
      process.stdout.write(d);
      buf += d.toString();
      const lines = buf.split('\n'); buf = lines.pop();
      lines.forEach((l) => scan(l, name));
    });
    child.on('close', (c) => { if (buf) scan(buf, name); resolve(c ?? 1); });
  });
  capture = 0;
  timings.push({ name, seconds: (Date.now() - started) / 1000, ok: code === 0 });
  console.log(`##### ${name}: ${code === 0 ? 'ok' : 'FAILED'} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  if (code !== 0) failedSteps.push(name);
}
const total = timings.reduce((s, x) => s + x.seconds, 0);
console.log('\nstep         seconds  share  result');
for (const x of timings) console.log(`${x.name.padEnd(12)} ${x.seconds.toFixed(1).padStart(7)}  ${((100 * x.seconds) / (total || 1)).toFixed(0).padStart(4)}%  ${x.ok ? 'ok' : 'FAILED'}`);
console.log(`${'total'.padEnd(12)} ${total.toFixed(1).padStart(7)}`);
if (digest.length) console.log(`\nfailures (first lines of each report):\n${digest.join('\n')}`);
if (failedSteps.length) console.log(`\nfailed steps: ${failedSteps.join(', ')}`);
if (failedSteps.length && failed === 0) failed = failedSteps.length;
console.log(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failedSteps.length ? 1 : 0);

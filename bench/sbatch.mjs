#!/usr/bin/env node
// `npm run bench:sbatch`: what typing in a batch script costs in requests. Runs the host test that
// types 100 characters into an `#SBATCH` script in a real VS Code (code-server) against the local
// gateway, starting from an empty live-data cache, and prints the requests the gateway counted for
// the live data (partitions + reservations + userinfo) and the cache's own refresh counter.
// Expected: at most one refresh (3 requests) per cache period (60 s), however fast one types.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { atMost, emitJson } from './report.cjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const child = spawn(process.execPath, [join(root, 'scripts/run-host-tests.mjs'), '--grep', 'typing 100 characters', ...process.argv.slice(2).filter((a) => a !== '--json')], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
let out = '';
child.stdout.on('data', (b) => { out += b; });
const code = await new Promise((resolve) => child.on('close', resolve));
const m = /\[sbatch bench\] typed (\d+) chars in (\d+) ms: (\d+) cache refresh\(es\), (\S+) live-data request/.exec(out);
if (!m) {
  process.stdout.write(out);
  console.error('bench:sbatch: the host test did not report its numbers');
  process.exit(code || 1);
}
const [, chars, ms, refreshes, requests] = m;
console.log('| scenario | characters typed | time (ms) | cache refreshes | live-data requests |');
console.log('|---|---:|---:|---:|---:|');
console.log(`| type into an #SBATCH script, empty cache | ${chars} | ${ms} | ${refreshes} | ${requests} |`);
console.log(code === 0 ? 'within budget: at most one refresh per cache period' : 'OVER BUDGET (see the host test output)');
emitJson('sbatch', {
  'cache refreshes while typing': atMost(Number(refreshes), 1),
  'live-data requests while typing': atMost(Number(requests), 3),
  'characters typed': { value: Number(chars) },
  'time (ms)': { value: Number(ms), unit: 'ms' },
});
process.exit(code);

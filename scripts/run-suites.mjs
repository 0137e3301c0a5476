#!/usr/bin/env node
// Runs the node:test suites of one folder against the local gateway (or the deployment named by
// FIRECREST_URL): `v1-*.test.ts` files against API v1, the others against API v2.
// Usage: node scripts/run-suites.mjs <folder> [--schedulers local,slurm] [--match <regex of file names>] [--skip <regex>] [--api v2|v1]
//   --schedulers: run everything once per scheduler backend of the local gateway; Slurm is
//   skipped when `sinfo` does not answer (CI sets REQUIRE_SLURM=1 so that this fails instead).
//   --once <regex of file names>: those files run with the first scheduler only (they test the
//   gateway's HTTP, tokens or files, not its scheduler).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const [dir, ...rest] = process.argv.slice(2);
if (!dir) { console.error('usage: run-suites.mjs <folder> [--schedulers local,slurm]'); process.exit(2); }
const i = rest.indexOf('--schedulers');
let schedulers = i >= 0 ? rest[i + 1].split(',') : ['auto'];

const m = rest.indexOf('--match');
const match = m >= 0 ? new RegExp(rest[m + 1]) : /./;
const a = rest.indexOf('--api');
const apis = a >= 0 ? [rest[a + 1]] : ['v2', 'v1'];
const k = rest.indexOf('--skip');
const skip = k >= 0 ? new RegExp(rest[k + 1]) : undefined;
const o = rest.indexOf('--once');
const once = o >= 0 ? new RegExp(rest[o + 1]) : undefined;
const files = readdirSync(dir).filter((f) => f.endsWith('.test.ts') && match.test(f) && !skip?.test(f)).sort().map((f) => `${dir}/${f}`);
const byApi = { v2: files.filter((f) => !/\/v1-[^/]*$/.test(f)), v1: files.filter((f) => /\/v1-[^/]*$/.test(f)) };
const external = !!process.env.FIRECREST_URL;

if (schedulers.includes('slurm') && !external) {
  const slurmUp = spawnSync('sinfo', ['-h', '-o', '%t'], { encoding: 'utf8' }).status === 0;
  if (!slurmUp) {
    if (process.env.REQUIRE_SLURM === '1') { console.error('REQUIRE_SLURM=1 but Slurm does not answer (run scripts/slurm.sh up)'); process.exit(1); }
    console.error(`[run-suites] Slurm is not running here: ${dir} runs on the built-in scheduler only (scripts/slurm.sh up starts one)`);
    schedulers = schedulers.filter((s) => s !== 'slurm');
  }
}
if (external) schedulers = ['external'];

let failed = 0;
for (const [n, s] of schedulers.entries()) {
  for (const api of apis) {
    const suite = byApi[api].filter((f) => n === 0 || !once?.test(f.slice(f.lastIndexOf('/') + 1)));
    if (suite.length === 0) continue;
    // Against a site's deployment, only the API version it speaks is run.
    if (external && (process.env.FIRECREST_API_VERSION ?? 'v2').replace(/^1.*/, 'v1') !== api) continue;
    console.log(`\n=== ${dir}: API ${api}${external ? ' (FIRECREST_URL)' : `, scheduler ${s}`} ===`);
    const gw = external ? [] : ['--scheduler', s, '--api', api];
    const r = spawnSync(process.execPath, ['scripts/with-gateway.mjs', ...gw, '--', process.execPath, '--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', ...suite], { stdio: 'inherit' });
    if (r.status !== 0) failed++;
  }
}
process.exit(failed ? 1 : 0);

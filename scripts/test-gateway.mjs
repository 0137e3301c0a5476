#!/usr/bin/env node
// Runs the gateway suites against each scheduler backend: the built-in one always, and Slurm when
// `sinfo` answers (CI sets REQUIRE_SLURM=1 so that a missing Slurm fails instead of skipping).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const files = readdirSync('test/gateway').filter((f) => f.endsWith('.test.ts')).map((f) => `test/gateway/${f}`);
const slurmUp = spawnSync('sinfo', ['-h', '-o', '%t'], { encoding: 'utf8' }).status === 0;
const schedulers = ['local'];
if (slurmUp) schedulers.push('slurm');
else if (process.env.REQUIRE_SLURM === '1') { console.error('REQUIRE_SLURM=1 but Slurm does not answer (run scripts/slurm.sh up)'); process.exit(1); }
else console.error('[test-gateway] Slurm is not running here: only the built-in scheduler is tested (scripts/slurm.sh up starts one)');

let failed = 0;
for (const s of schedulers) {
  console.log(`\n=== gateway suites, scheduler: ${s} ===`);
  const r = spawnSync(process.execPath, ['scripts/with-gateway.mjs', '--scheduler', s, '--', process.execPath, '--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', ...files], { stdio: 'inherit', env: { ...process.env, FIRECREST_URL: '' } });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);

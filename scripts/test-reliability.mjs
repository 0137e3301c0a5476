#!/usr/bin/env node
// `npm run test:reliability`: the reliability and security suites against the local gateway (a
// short fault workload with a fixed seed; token expiry, gateway restart, rate-limit storm,
// vanishing entries, bad input, secrets). `npm run test:soak` (--soak): only the fault workload,
// 1,000 operations, longer latency; SEED=... and OPS=... override both.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

const soak = process.argv.includes('--soak');
// `--part long`: the two long suites (the fault workload, crash safety); `--part rest`: the others
// and the gateway's security suites. `npm test` runs the two parts side by side; no flag runs both.
const partAt = process.argv.indexOf('--part');
const part = partAt > 0 ? process.argv[partAt + 1] : undefined;
const long = /^test\/reliability\/(fault-workload|crash-safety)\./;
const inPart = (f) => part === undefined || (part === 'long') === long.test(f);
const env = { ...process.env };
if (soak) { env.SOAK = '1'; env.OPS ??= '1000'; }
// The gateway's own security suites (test/security/*gateway*) run once per scheduler, like the
// gateway suites; the rest once, against a gateway on whichever scheduler is there.
const gatewaySecurity = /gateway/;
const files = soak
  ? ['test/reliability/fault-workload.test.ts']
  : ['test/reliability', 'test/security'].filter((d) => existsSync(d))
      .flatMap((d) => readdirSync(d).filter((f) => f.endsWith('.test.ts') && !(d === 'test/security' && gatewaySecurity.test(f))).sort().map((f) => `${d}/${f}`))
      .filter(inPart);
const run = (args) => new Promise((resolve) => {
  const child = spawn(process.execPath, args, { stdio: 'inherit', env, shell: false });
  child.on('close', (code) => resolve(code ?? 1));
});
const codes = [await run(['scripts/with-gateway.mjs', '--', 'node', '--expose-gc', '--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', ...files])];
if (!soak && part !== 'long') codes.push(await run(['scripts/run-suites.mjs', 'test/security', '--schedulers', 'local,slurm', '--match', gatewaySecurity.source]));
process.exit(codes.some((c) => c !== 0) ? 1 : 0);

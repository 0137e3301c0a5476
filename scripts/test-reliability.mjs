#!/usr/bin/env node
// `npm run test:reliability`: the reliability and security suites against the local gateway (a
// short fault workload with a fixed seed; token expiry, gateway restart, rate-limit storm,
// vanishing entries, bad input, secrets). `npm run test:soak` (--soak): only the fault workload,
// 1,000 operations, longer latency; SEED=... and OPS=... override both.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

const soak = process.argv.includes('--soak');
const env = { ...process.env };
if (soak) { env.SOAK = '1'; env.OPS ??= '1000'; }
const files = soak
  ? ['test/reliability/fault-workload.test.ts']
  : ['test/reliability', 'test/security'].filter((d) => existsSync(d))
      .flatMap((d) => readdirSync(d).filter((f) => f.endsWith('.test.ts')).sort().map((f) => `${d}/${f}`));
const args = ['scripts/with-gateway.mjs', '--', 'node', '--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', ...files];
const child = spawn(process.execPath, args, { stdio: 'inherit', env, shell: false });
child.on('close', (code) => process.exit(code ?? 1));

#!/usr/bin/env node
// Runs bench/jobs.ts from plain Node: bundles it with `vscode` aliased to bench/jobs-vscode-shim.ts
// (the Jobs model/provider import a few vscode classes), then executes the bundle.
// `npm run bench:jobs` wraps this in scripts/with-gateway.mjs for the parts that need a gateway.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';

const dir = mkdtempSync(join(tmpdir(), 'bench-jobs-'));
const out = join(dir, 'jobs.cjs');
try {
  await esbuild.build({
    entryPoints: ['bench/jobs.ts'],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    sourcemap: 'inline',
    logLevel: 'warning',
    alias: { vscode: './bench/jobs-vscode-shim.ts' },
  });
  const r = spawnSync(process.execPath, ['--enable-source-maps', '--expose-gc', out, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exitCode = r.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}

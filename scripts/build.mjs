// Bundles everything into dist/ with esbuild. Type checking is `npm run typecheck` (esbuild does not check types).
import * as esbuild from 'esbuild';
import { existsSync, mkdirSync } from 'node:fs';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');
mkdirSync('dist', { recursive: true });

const common = { bundle: true, sourcemap: !production, minify: production, logLevel: 'info', legalComments: 'none' };

/** @type {import('esbuild').BuildOptions[]} */
const builds = [
  // The extension: Node, CommonJS, vscode provided by the host.
  { ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'] },
  // The client core as a plain Node library (scripts, benchmarks, other tools).
  { ...common, entryPoints: ['src/core/index.ts'], outfile: 'dist/core.js', platform: 'node', format: 'cjs', target: 'node20' },
  // The local FirecREST-compatible gateway.
  { ...common, entryPoints: ['gateway/src/main.ts'], outfile: 'dist/gateway.js', platform: 'node', format: 'cjs', target: 'node20', sourcemap: true },
];
// Webview bundles (browser), one per panel, when present.
for (const panel of ['accounting', 'transfers']) {
  const entry = `webview-ui/${panel}/main.ts`;
  if (existsSync(entry)) builds.push({ ...common, entryPoints: [entry], outfile: `dist/webview-${panel}.js`, platform: 'browser', format: 'iife', target: 'es2022' });
}
const present = builds.filter((b) => existsSync(/** @type {string[]} */ (b.entryPoints)[0]));

if (watch) {
  for (const b of present) await (await esbuild.context(b)).watch();
} else {
  await Promise.all(present.map((b) => esbuild.build(b)));
}

// Bundles the host test suite: every test/host/**/*.test.ts (found now, so new files are picked up
// without editing anything) plus test/host/index.ts into out/test/host/index.js. `vscode` is given
// by the extension host; mocha stays external and is loaded from node_modules at run time.
import * as esbuild from 'esbuild';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot } from './code-server.mjs';

function findTests(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...findTests(p));
    else if (e.name.endsWith('.test.ts')) out.push(p);
  }
  return out.sort();
}

export async function buildHostSuite() {
  const files = findTests(join(repoRoot, 'test/host'));
  const rel = (p) => './' + relative(repoRoot, p).split('\\').join('/');
  // require() inside the loader keeps each test module lazy: it runs after mocha has set up
  // describe/it, and a file that fails to load is reported by name.
  const contents = [
    `import { runSuite } from ${JSON.stringify(rel(join(repoRoot, 'test/host/index.ts')))};`,
    `const files = ${JSON.stringify(files.map(rel))};`,
    'export function run() {',
    '  return runSuite(files, (f) => {',
    '    switch (f) {',
    ...files.map((f) => `      case ${JSON.stringify(rel(f))}: require(${JSON.stringify(rel(f))}); break;`),
    '    }',
    '  });',
    '}',
  ].join('\n');
  const outfile = join(repoRoot, 'out/test/host/index.js');
  await esbuild.build({
    stdin: { contents, resolveDir: repoRoot, sourcefile: 'host-suite-entry.ts', loader: 'ts' },
    bundle: true, platform: 'node', format: 'cjs', target: 'node22', sourcemap: 'inline',
    external: ['vscode', 'mocha'], outfile, logLevel: 'warning',
  });
  return { outfile, files: files.map(rel) };
}

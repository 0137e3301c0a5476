// Bundles everything into dist/ with esbuild. Type checking is `npm run typecheck` (esbuild does not check types).
//
// The extension is split so that activation loads only what it needs (esbuild has no code splitting
// for CommonJS, so the split is done here):
// - dist/extension.js, the entry: everything activate() runs.
// - LAZY parts, loaded on first use: an `import()` of such a module anywhere becomes a require of
//   its own bundle, dist/extension-<name>.js. A static import of one from another bundle fails the
//   build (it would load it at activation).
// - SHARED modules, imported by several bundles: ONE copy in a shared bundle that the others
//   require (error classes must stay one class for `instanceof`, a base class one base).
// After building, a module that ended up in two extension bundles fails the build.
import * as esbuild from 'esbuild';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { relative, resolve } from 'node:path';

const watch = process.argv.includes('--watch');
const packageVersion = JSON.parse(readFileSync('package.json', 'utf8')).version;
const production = process.argv.includes('--production');
// Where the bundles go: dist/, or elsewhere for a check of a build (`--outdir <dir>`).
const outArg = process.argv.indexOf('--outdir');
const DIST = outArg >= 0 ? process.argv[outArg + 1] : 'dist';
// The extension as one file, as before the split: bench:activation's baseline.
const singleBundle = process.argv.includes('--single-bundle');
mkdirSync(DIST, { recursive: true });

/** Module -> bundle, for modules that load on first use (through `import()`). */
const LAZY = {
  // The client: undici, the response schemas, the v1/v2 adapters. First used by the deferred first connect.
  'src/core/createClient.ts': 'client',
  // The Job Accounting panel host and its message schemas. First used when the panel opens or is restored.
  'src/webviews/accounting/accountingPanel.ts': 'accounting',
  // The Transfer Centre panel host and its message schemas. First used when the panel opens or is restored.
  'src/webviews/transfers/transfersPanel.ts': 'transfers',
  // Search on Cluster's job script, output parser and poll loop. First used by a search.
  'src/core/search/clusterSearch.ts': 'search',
  // OpenID Connect sign-in (openid-client, jose): first used by a browser sign-in or an OIDC profile's token refresh.
  'src/core/auth/oidc.ts': 'oidc',
  // Sync and Fetch of local projects (ignore, tar): first used by a sync.
  'src/core/sync/index.ts': 'sync',
  // The agent tools for VS Code's language models: first used by a tool call.
  'src/agents/lmTools.ts': 'agents',
  // Storage figures and the scratch purge preview (their scripts and parsers): first used when asked for.
  'src/core/facts/storage.ts': 'storage',
  // Start estimates per partition (sbatch --test-only through a side-car): first used when asked for.
  'src/core/facts/startEstimate.ts': 'estimate',
  // The notebook kernel's session and driver: first used when a notebook runs on a FirecREST kernel.
  'src/core/notebook/session.ts': 'notebook',
};
/** Module or package -> bundle, for what several bundles import. */
const SHARED = {
  // Loaded with the entry: small, and needed by activation anyway.
  'src/core/errors.ts': 'shared',
  'src/core/http/redact.ts': 'shared',
  // A cancellable wait: the client's retries and Search on Cluster's polls.
  'src/core/http/sleep.ts': 'shared',
  // Follow Output (entry) and Search on Cluster (search) read by byte offset; attach and search quote.
  'src/core/offsetReader.ts': 'shared',
  'src/core/shellQuote.ts': 'shared',
  // The client writes `--dependency` into scripts; the Jobs view reads the job ids back out.
  'src/core/jobScript.ts': 'shared',
  // The sbatch parser: the batch-script checks (entry) and the v1 client's submit (where output goes).
  'src/core/sbatch/parser.ts': 'shared',
  'src/core/sbatch/options.ts': 'shared',
  'src/core/sbatch/values.ts': 'shared',
  'src/core/sbatch/typedValue.ts': 'shared',
  // Job arrays: the client folds and sums them up, the Jobs view groups them (with the job states).
  'src/core/jobArrays.ts': 'shared',
  'src/core/arraySpecs.ts': 'shared',
  'src/core/jobState.ts': 'shared',
  // A bounded map: the v1 client's job facts and the agents' confirmed scripts.
  'src/core/boundedMap.ts': 'shared',
  // The client's token sources and the OIDC sign-in both read a JWT's expiry.
  'src/core/auth/jwt.ts': 'shared',
  'src/common/lifecycle.ts': 'shared',
  // The user's home on a system: side-cars run there (jobs at activation, the accounting panel's Efficiency).
  'src/common/homeDirectory.ts': 'shared',
  'src/webviews/accounting/descriptor.ts': 'shared',
  'src/core/transfer/transferDeps.ts': 'shared',
  'src/webviews/transfers/descriptor.ts': 'shared',
  'src/common/transferJobs.ts': 'shared',
  // The editor's batch-script checks and Follow Output, and the agent tools (their own bundle) alike.
  'src/core/pendingReasons.ts': 'shared',
  'src/core/outputPaths.ts': 'shared',
  'src/core/sbatch/liveChecks.ts': 'shared',
  // The side-car runner: Search on Cluster (search) and the facts of the agent tools (agents).
  'src/core/sidecar/sidecar.ts': 'shared',
  // Job efficiency: Show Job Efficiency (entry) and the agents' efficiency tool (agents).
  'src/core/sidecar/answer.ts': 'shared',
  'src/core/facts/efficiency.ts': 'shared',
  // Localised words of the modules free of vscode: one copy, configured once with the bundle at activation.
  '@vscode/l10n': 'l10n',
  // The webview panel base, loaded with the first panel host (accounting or transfers).
  'src/webviews/panelHost.ts': 'webviews',
  'src/webviews/html.ts': 'webviews',
  // Loaded with the first lazy part that validates with it (the client or a panel host).
  zod: 'zod',
  // HTTP: the client's pools, and the OIDC sign-in's fetch.
  undici: 'undici',
  // Archives: the client's empty-file upload, and the sync's archives.
  tar: 'tar',
};
/** Bundles loaded at activation; the others load on first use and activation may not require them. */
const EAGER = new Set(['extension', 'shared', 'l10n']);
const bundleFile = (name) => `./extension-${name}.js`;
const isBundleFile = /^\.\/extension-[\w-]+\.js$/;
const packages = Object.keys(SHARED).filter((k) => !k.startsWith('src/'));
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The export of a shared bundle that holds a module's namespace. */
const exportName = (module) => module.replace(/\.ts$/, '').replace(/\W/g, '_');
const sharedBundles = [...new Set(Object.values(SHARED))].map((name) => {
  const modules = Object.keys(SHARED).filter((m) => SHARED[m] === name);
  if (modules.some((m) => packages.includes(m)) && modules.length > 1) throw new Error(`bundle ${name}: a package gets a bundle of its own`);
  const contents = packages.includes(modules[0])
    ? `export * from '${modules[0]}';`
    : modules.map((m) => `export * as ${exportName(m)} from './${m}';`).join('\n');
  return { name, contents };
});

/** An error when bundle `self`, loaded at activation, would load bundle `target` that should wait for first use. */
function eagerLoadOfLazy(self, target, args) {
  if (!EAGER.has(self) || EAGER.has(target) || args.kind === 'dynamic-import') return undefined;
  return { errors: [{ text: `'${args.path}' is in dist/extension-${target}.js, which loads on first use: reach it through a module loaded with import() (see src/webviews/accounting/register.ts)` }] };
}

/** Resolves imports of LAZY and SHARED modules to their bundles, except inside the bundle `self`. */
function split(self) {
  return {
    name: 'split',
    setup(build) {
      // One namespace object for the host's `vscode` module per bundle, instead of esbuild's interop
      // copy of its few hundred exports at each of the ~70 modules that import it.
      build.onResolve({ filter: /^vscode$/ }, (args) => (args.namespace === 'vscode' ? { path: 'vscode', external: true } : { path: 'vscode', namespace: 'vscode' }));
      build.onLoad({ filter: /.*/, namespace: 'vscode' }, () => ({ contents: "export * from 'vscode';", loader: 'js' }));
      if (packages.length) {
        build.onResolve({ filter: new RegExp(`^(${packages.map(escape).join('|')})(/.*)?$`) }, (args) => {
          const name = SHARED[args.path];
          if (!name) return { errors: [{ text: `import '${args.path.split('/')[0]}' itself: its shared bundle exports only the package root` }] };
          if (name === self) return undefined;
          return eagerLoadOfLazy(self, name, args) ?? { path: bundleFile(name), external: true };
        });
      }
      build.onResolve({ filter: /^\./ }, async (args) => {
        if (args.pluginData === 'split') return undefined;
        if (args.namespace === 'shared' && isBundleFile.test(args.path)) return { path: args.path, external: true };
        const found = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'split' });
        if (found.errors.length) return { errors: found.errors };
        const module = relative(process.cwd(), found.path).split('\\').join('/');
        if (SHARED[module] && SHARED[module] !== self) return eagerLoadOfLazy(self, SHARED[module], args) ?? { path: module, namespace: 'shared' };
        if (!LAZY[module] || LAZY[module] === self) return undefined;
        if (args.kind !== 'dynamic-import') {
          return { errors: [{ text: `${module} loads on first use: import it with import() or \`import type\` (a static import loads it at activation)` }] };
        }
        return { path: bundleFile(LAZY[module]), external: true };
      });
      // A shared module, seen from another bundle: its namespace in the shared bundle.
      build.onLoad({ filter: /.*/, namespace: 'shared' }, (args) => ({
        contents: `module.exports = require('${bundleFile(SHARED[args.path])}').${exportName(args.path)};`,
        loader: 'js',
        resolveDir: resolve(DIST),
      }));
    },
  };
}

// Warnings and errors only: esbuild's info level marks every bundle over 1 MB with ⚠️, which says
// nothing wrong here (the gateway and the client core are whole programs for Node, not downloads).
// The sizes are printed below, one line per bundle.
// A production build leaves the test seam out (src/common/testSeam.ts): no `firecrest.test.*` command can exist in it.
const common = { bundle: true, sourcemap: !production, minify: production, logLevel: 'warning', legalComments: 'none', ...(production ? { define: { 'process.env.FIRECREST_TEST_SEAM': '"off"' } } : {}) };
/**
 * Node targets. The extension's bundles run in VS Code's extension host: the oldest VS Code that
 * `engines.vscode` allows (1.103) runs Node 22 (Electron 37); today's runs Node 24. The gateway and
 * the core library run on the Node lines that `engines.node` declares, 22 and later.
 */
const EXTENSION_HOST_NODE = 'node22';
const OLDEST_NODE = 'node22';
// `import()` of another bundle becomes `require()`: one module instance in the host's require cache.
const node = { ...common, platform: 'node', format: 'cjs', target: EXTENSION_HOST_NODE, supported: { 'dynamic-import': false } };

const extension = (name, input) => ({ ...node, ...input, outfile: `${DIST}/extension${name ? `-${name}` : ''}.js`, external: ['vscode'], plugins: [split(name ?? 'extension')], metafile: true });
const extensionBuilds = singleBundle ? [{ ...node, entryPoints: ['src/extension.ts'], outfile: `${DIST}/extension.js`, external: ['vscode'], metafile: true }] : [
  extension(undefined, { entryPoints: ['src/extension.ts'] }),
  ...Object.entries(LAZY).map(([module, name]) => extension(name, { entryPoints: [module] })),
  ...sharedBundles.map(({ name, contents }) => extension(name, { stdin: { contents, resolveDir: process.cwd(), sourcefile: `extension-${name}.bundle.js` } })),
];

// A bundle no longer built (renamed, merged, or the other layout) must not reach the .vsix.
const outfiles = new Set(extensionBuilds.map((b) => b.outfile.slice(DIST.length + 1)));
for (const f of readdirSync(DIST)) {
  if (/^extension(-[\w-]+)?\.js(\.map)?$/.test(f) && !outfiles.has(f.replace(/\.map$/, ''))) rmSync(`${DIST}/${f}`);
}

/** @type {import('esbuild').BuildOptions[]} */
const builds = [
  ...extensionBuilds,
  // The client core as a plain Node library (scripts, benchmarks, other tools): one self-contained file.
  { ...common, entryPoints: ['src/core/index.ts'], outfile: `${DIST}/core.js`, platform: 'node', format: 'cjs', target: OLDEST_NODE },
  // The local FirecREST-compatible gateway.
  { ...common, entryPoints: ['gateway/src/main.ts'], outfile: `${DIST}/gateway.js`, platform: 'node', format: 'cjs', target: OLDEST_NODE, sourcemap: true },
  // The MCP server for agents (`firecrest-mcp`; VS Code starts it too): one self-contained file.
  {
    ...common, entryPoints: ['src/mcp/main.ts'], outfile: `${DIST}/mcp.js`, platform: 'node', format: 'cjs', target: OLDEST_NODE,
    banner: { js: '#!/usr/bin/env node' }, define: { ...common.define, FIRECREST_VERSION: JSON.stringify(packageVersion) },
  },
  // The gateway's streamer (the program its streamer transfer jobs run as the user).
  { ...common, entryPoints: ['gateway/src/streamer/main.ts'], outfile: `${DIST}/gateway-streamer.js`, platform: 'node', format: 'cjs', target: OLDEST_NODE },
];
// Webview bundles (browser), one per panel, when present.
for (const panel of ['accounting', 'transfers']) {
  const entry = `webview-ui/${panel}/main.ts`;
  if (existsSync(entry)) builds.push({ ...common, entryPoints: [entry], outfile: `${DIST}/webview-${panel}.js`, platform: 'browser', format: 'iife', target: 'es2022' });
}
const present = builds.filter((b) => b.stdin || existsSync(/** @type {string[]} */ (b.entryPoints)[0]));

/** Fails when a module is in two extension bundles (two copies: `instanceof` and singletons break). */
function checkOneCopy(results) {
  const owners = new Map();
  for (const r of results) {
    if (!r.metafile) continue;
    for (const [outfile, out] of Object.entries(r.metafile.outputs)) {
      if (!outfile.endsWith('.js')) continue;
      for (const input of Object.keys(out.inputs)) {
        if (input.endsWith('.bundle.js') || input.startsWith('shared:') || input.startsWith('vscode:')) continue;
        owners.set(input, [...(owners.get(input) ?? []), outfile]);
      }
    }
  }
  const twice = [...owners].filter(([, outs]) => outs.length > 1);
  if (twice.length) {
    throw new Error(`modules bundled more than once (add them to SHARED in scripts/build.mjs):\n${twice.map(([m, outs]) => `  ${m}: ${outs.join(', ')}`).join('\n')}`);
  }
}

if (watch) {
  for (const b of present) await (await esbuild.context(b)).watch();
} else {
  const started = performance.now();
  const results = await Promise.all(present.map((b) => esbuild.build(b)));
  checkOneCopy(results.slice(0, extensionBuilds.length));
  const kib = (f) => `${Math.round(statSync(f).size / 1024)} KiB`;
  const outs = present.map((b) => b.outfile).filter((f) => f && existsSync(f));
  console.log(`built ${outs.length} bundles in ${Math.round(performance.now() - started)} ms: ${outs.map((f) => `${f.slice(DIST.length + 1)} ${kib(f)}`).join(', ')}`);
}

#!/usr/bin/env node
// `npm run bench:bundle`: a folder that runs the benchmarks on a machine with no Node and no
// network (a quiet many-core machine lent for a few minutes). It holds each bench bundled by
// esbuild, the gateway (dist/gateway.js and its streamer), scripts/with-gateway.mjs with the site
// tool stubs it installs, this Node binary xz-compressed, and `run.sh`, which unpacks Node once and
// runs each bench against a fresh local gateway (built-in scheduler), writing results/<bench>.log
// and results/<bench>.json (the bench's `--json` line).
// Options: --out <dir> (default bench-bundle/), --benches a,b,... (default: those below).
// The target machine needs what the benches call besides Node: bash, curl, sha256sum, tar, grep,
// xz, python3 (the notebook bench); pyfirecrest and the VS Code benches are not bundled.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const opt = (name, dflt) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : dflt; };

/** Bench name -> Node flags it runs with (as in package.json's bench:<name>). */
const BENCHES = { gateway: [], client: [], jobs: [], fs: ['--expose-gc'], transfer: ['--expose-gc'], search: [], sync: [], facts: [], notebook: [] };
const chosen = (opt('--benches') ?? Object.keys(BENCHES).join(',')).split(',').filter(Boolean);
for (const b of chosen) if (!(b in BENCHES)) throw new Error(`bench:bundle: no bench "${b}" to bundle (one of ${Object.keys(BENCHES).join(', ')})`);
const out = resolve(opt('--out', join(root, 'bench-bundle')));

const started = performance.now();
const build = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit', cwd: root });
if (build.status !== 0) throw new Error('bench:bundle: the build failed');

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'bench'), { recursive: true });
mkdirSync(join(out, 'dist'), { recursive: true });
mkdirSync(join(out, 'scripts'), { recursive: true });

// Each bench as one CommonJS file; the few `vscode` classes the Jobs model uses come from the shim.
for (const name of chosen) {
  await esbuild.build({
    entryPoints: [join(root, 'bench', `${name}.ts`)],
    outfile: join(out, 'bench', `${name}.cjs`),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    logLevel: 'warning',
    alias: { vscode: join(root, 'bench/jobs-vscode-shim.ts') },
  });
}

// The gateway as built, and what with-gateway.mjs reads beside itself.
for (const f of ['gateway.js', 'gateway-streamer.js']) copyFileSync(join(root, 'dist', f), join(out, 'dist', f));
copyFileSync(join(root, 'scripts/with-gateway.mjs'), join(out, 'scripts/with-gateway.mjs'));
const tools = join(root, 'test/support/site-tools');
mkdirSync(join(out, 'test/support/site-tools'), { recursive: true });
for (const f of readdirSync(tools)) copyFileSync(join(tools, f), join(out, 'test/support/site-tools', f));
writeFileSync(join(out, 'package.json'), '{ "type": "commonjs" }\n');

// This Node, compressed (xz: about a third of its size).
const nodeXz = join(out, 'node.xz');
const xz = spawnSync('xz', ['-6', '-T0', '-c', process.execPath], { maxBuffer: 1 << 30 });
if (xz.status !== 0) throw new Error(`bench:bundle: xz failed (${xz.stderr?.toString().trim() || xz.error?.message})`);
writeFileSync(nodeXz, xz.stdout);

writeFileSync(join(out, 'benches.txt'), `${chosen.map((b) => `${b} ${BENCHES[b].join(' ')}`.trim()).join('\n')}\n`);
writeFileSync(join(out, 'run.sh'), `#!/usr/bin/env bash
# Runs the bundled benches, each against a fresh local gateway: ./run.sh [bench ...]
# (default: every bench in benches.txt). GATEWAY_SCHEDULER=local|slurm|auto (default local).
# Results: results/<bench>.log (the whole output) and results/<bench>.json (its --json line).
set -uo pipefail
cd "$(dirname "$0")"
if [ ! -x ./node ]; then xz -dc node.xz > node.tmp && chmod 755 node.tmp && mv node.tmp node || exit 1; fi
mkdir -p results
status=0
benches=("$@")
if [ \${#benches[@]} -eq 0 ]; then mapfile -t benches < <(cut -d' ' -f1 benches.txt); fi
for b in "\${benches[@]}"; do
  flags=$(awk -v b="$b" '$1 == b { $1 = ""; print }' benches.txt)
  echo "=== bench:$b ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
  ./node scripts/with-gateway.mjs --scheduler "\${GATEWAY_SCHEDULER:-local}" -- ./node $flags "bench/$b.cjs" --json 2>&1 | tee "results/$b.log"
  [ "\${PIPESTATUS[0]}" -eq 0 ] || status=1
  tail -n 1 "results/$b.log" > "results/$b.json"
done
exit $status
`);
chmodSync(join(out, 'run.sh'), 0o755);

const size = (dir) => readdirSync(dir, { withFileTypes: true }).reduce((n, e) => n + (e.isDirectory() ? size(join(dir, e.name)) : statSync(join(dir, e.name)).size), 0);
console.log(`bench:bundle: ${relative(process.cwd(), out) || out}: ${chosen.length} bench(es) (${chosen.join(', ')}), ${(size(out) / 2 ** 20).toFixed(1)} MiB, Node ${process.version}, in ${((performance.now() - started) / 1000).toFixed(1)} s. Run it there with ./run.sh [bench ...].`);

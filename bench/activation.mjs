#!/usr/bin/env node
// `npm run bench:activation [N]`: the production bundles' sizes and the activation time in a real
// VS Code (code-server's extension host marks: loading the code, and activate() until its promise
// settled), median of N runs (default 5). Baseline, measured in the same run and alternating with
// it: the same extension built as one file (`build.mjs --single-bundle`, as before the split).
// Targets: dist/extension.js (and everything loaded at activation) under 500 KB, activation under 50 ms.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { atMost, emitJson } from './report.cjs';

const root = fileURLToPath(new URL('..', import.meta.url));
process.chdir(root);
const runs = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 5);
const isBundle = (f) => /^extension(-[\w-]+)?\.js$/.test(f);
const kb = (bytes) => bytes / 1024;

/** Builds a variant for production and keeps its extension bundles aside. */
function build(name, args) {
  const r = spawnSync(process.execPath, ['scripts/build.mjs', '--production', ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`production build (${name}) failed:\n${r.stderr}`);
  const dir = mkdtempSync(join(tmpdir(), `f7t-bench-${name}-`));
  const sizes = {};
  for (const f of readdirSync('dist').filter(isBundle)) {
    copyFileSync(join('dist', f), join(dir, f));
    sizes[f] = statSync(join(dir, f)).size;
  }
  return { name, dir, sizes };
}

/** Puts a variant's bundles in dist/ (and only those). */
function install(variant) {
  for (const f of readdirSync('dist').filter(isBundle)) rmSync(join('dist', f));
  for (const f of Object.keys(variant.sizes)) copyFileSync(join(variant.dir, f), join('dist', f));
}

function hostRun() {
  return new Promise((resolve) => {
    let text = '';
    const child = spawn(process.execPath, ['scripts/run-host-tests.mjs', '--no-build', '--files', 'shell,bundles', '--grep', 'activates (quickly|with the entry)'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => { text += d; });
    child.stderr.resume();
    child.on('close', () => resolve(text));
  });
}

const split = build('split', []);
const single = build('single', ['--single-bundle']);
const load = loadavg();
const samples = { split: [], single: [] };
let atActivation;
for (let i = 0; i < runs; i++) {
  for (const variant of i % 2 ? [single, split] : [split, single]) {
    install(variant);
    const out = await hostRun();
    const m = /ACTIVATION activate\(\)=([\d.]+)ms host-activate=([\d.?]+)ms code-load=([\d.?]+)ms/.exec(out);
    if (!m) { console.error(out.split('\n').slice(-20).join('\n')); throw new Error('no ACTIVATION line in the host run'); }
    samples[variant.name].push({ activate: Number(m[1]), host: Number(m[2]), load: Number(m[3]) });
    const b = /BUNDLES at activation: (\S+)/.exec(out);
    if (variant === split && b) atActivation = b[1].split(',');
  }
}
// The host tests rebuild in development mode next time; leave dist/ as a normal build.
for (const f of readdirSync('dist').filter(isBundle)) rmSync(join('dist', f));
spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'ignore' });
for (const v of [split, single]) rmSync(v.dir, { recursive: true, force: true });
if (!atActivation) throw new Error('no BUNDLES line in the host runs');

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const med = (name, key) => median(samples[name].map((s) => (key === 'total' ? s.load + s.host : s[key])));
const activationKb = kb(atActivation.reduce((sum, f) => sum + (split.sizes[f] ?? NaN), 0));
/** What the table shows, for the JSON line (`--json`). */
const figures = {};
const row = (name, value, unit, target = '') => {
  figures[name] = target ? { ...atMost(Number(value.toFixed(3)), Number(target), unit) } : { value: Number(value.toFixed(3)), unit };
  return tableRow(name, value, unit, target);
};
const tableRow = (name, value, unit, target = '') =>
  `| ${name.padEnd(58)} | ${value.toFixed(unit === 'KB' ? 0 : unit === 'x' ? 2 : 1).padStart(7)} ${unit.padEnd(2)} | ${target.padStart(6)} | ${target ? (value <= Number(target) ? 'ok  ' : 'OVER') : '    '} |`;
console.log(`load average at start: ${load.map((l) => l.toFixed(1)).join(' ')} (1/5/15 min), runs: ${runs} per variant`);
console.log('| measure (production build)                                 |   value    | target | ok?  |');
console.log('|------------------------------------------------------------|------------|--------|------|');
console.log(row('dist/extension.js, the entry', kb(split.sizes['extension.js']), 'KB', '500'));
console.log(row(`loaded at activation: ${atActivation.join(' + ')}`, activationKb, 'KB', '500'));
for (const [f, size] of Object.entries(split.sizes).filter(([f]) => !atActivation.includes(f)).sort((a, b) => b[1] - a[1])) {
  console.log(row(`on first use: ${f}`, kb(size), 'KB'));
}
console.log(row(`code load (require of the entry), median`, med('split', 'load'), 'ms'));
console.log(row(`activate() body, median`, med('split', 'activate'), 'ms'));
console.log(row(`host activate (incl. the promise), median`, med('split', 'host'), 'ms'));
console.log(row(`activation in the host: load + activate, median`, med('split', 'total'), 'ms', '50'));
console.log(row(`baseline, one bundle: dist/extension.js`, kb(single.sizes['extension.js']), 'KB'));
console.log(row(`baseline, one bundle: code load, median`, med('single', 'load'), 'ms'));
console.log(row(`baseline, one bundle: load + activate, median`, med('single', 'total'), 'ms'));
console.log(row(`ratio split / one bundle: code load`, med('split', 'load') / med('single', 'load'), 'x'));
console.log(row(`ratio split / one bundle: load + activate`, med('split', 'total') / med('single', 'total'), 'x'));
emitJson('activation', figures);

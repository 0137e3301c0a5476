#!/usr/bin/env node
// `npm run bench:activation`: size of the production bundle and activation time in a real VS Code
// (code-server's extension host marks: code loading and activate()). Prints a table.
// Targets: dist/extension.js under 500 KB, activation under 50 ms.
import { spawn, spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
process.chdir(root);
const runs = Number(process.argv[2] ?? 3);

if (spawnSync(process.execPath, ['scripts/build.mjs', '--production'], { stdio: 'ignore' }).status !== 0) throw new Error('production build failed');
const size = statSync('dist/extension.js').size;

const samples = [];
for (let i = 0; i < runs; i++) {
  const out = await new Promise((resolve) => {
    let text = '';
    const child = spawn(process.execPath, ['scripts/run-host-tests.mjs', '--no-build', '--grep', 'activates quickly'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => { text += d; });
    child.stderr.resume();
    child.on('close', () => resolve(text));
  });
  const m = /ACTIVATION activate\(\)=([\d.]+)ms host-activate=([\d.?]+)ms code-load=([\d.?]+)ms/.exec(out);
  if (!m) { console.error(out.split('\n').slice(-20).join('\n')); throw new Error('no ACTIVATION line in the host run'); }
  samples.push({ activate: Number(m[1]), host: Number(m[2]), load: Number(m[3]) });
}
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const row = (name, value, target, unit) => `| ${name.padEnd(38)} | ${String(value).padStart(9)} ${unit} | ${target.padStart(8)} | ${value <= Number(target.replace(/[^\d.]/g, '')) ? 'ok  ' : 'OVER'} |`;
console.log('| measure                                |     value    |   target | ok?  |');
console.log('|----------------------------------------|--------------|----------|------|');
console.log(row('dist/extension.js (production)', (size / 1024).toFixed(0), '500', 'KB'));
console.log(row(`activate() body, median of ${runs}`, median(samples.map((s) => s.activate)).toFixed(1), '50', 'ms'));
console.log(row(`host activate (incl. promise), median`, median(samples.map((s) => s.host)).toFixed(1), '50', 'ms'));
console.log(row(`code load (require bundle), median`, median(samples.map((s) => s.load)).toFixed(1), '50', 'ms'));
console.log(row('load + host activate, median', median(samples.map((s) => s.load + s.host)).toFixed(1), '50', 'ms'));
// The host tests rebuild in development mode next time; leave dist/ as a normal build.
spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'ignore' });

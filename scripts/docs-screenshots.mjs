#!/usr/bin/env node
// Copies the README's screenshots from the last UI run (test-results/, written by `npm run
// test:ui`) into docs/screenshots/, so the README shows what the UI tests saw. A screenshot the
// last run did not take is named and left as it was.
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';

/** The screenshots the README shows (test-results/<name>.png). */
const SHOWN = ['notebook-on-the-cluster', 'accounting-efficiency', 'systems-storage', 'where-would-it-start', 'submit-partition-estimates', 'accounting-dark', 'sbatch-quick-fix'];

mkdirSync('docs/screenshots', { recursive: true });
let missing = 0;
for (const name of SHOWN) {
  const from = `test-results/${name}.png`;
  if (!existsSync(from)) {
    console.error(`[docs-screenshots] ${from} is missing: run npm run test:ui first (kept the old docs/screenshots/${name}.png)`);
    missing++;
    continue;
  }
  copyFileSync(from, `docs/screenshots/${name}.png`);
}
console.error(`[docs-screenshots] ${SHOWN.length - missing} of ${SHOWN.length} copied into docs/screenshots/`);

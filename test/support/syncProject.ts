/** A generated project for the sync suites and bench:sync. */
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** 1,000 files: 10 × 10 folders of 10, some names with spaces and accents, one script, one 20 MiB file. */
export function makeProject(root: string, bigMiB: number): void {
  for (let a = 0; a < 10; a++) {
    for (let b = 0; b < 10; b++) {
      const dir = join(root, a === 3 ? `data set ${a}` : `mod${a}`, b === 7 ? `sous-dossier é${b}` : `sub${b}`);
      mkdirSync(dir, { recursive: true });
      for (let c = 0; c < 10; c++) {
        const name = c === 5 ? `résumé ñ ${c}.txt` : `file${c}.py`;
        writeFileSync(join(dir, name), `# ${a}/${b}/${c}\n${'x'.repeat((a * 100 + b * 10 + c) % 700)}\n`);
      }
    }
  }
  // 999 generated, the script and the data file: 1,001 files (and two .gitignore files).
  rmSync(join(root, 'mod0', 'sub0', 'file0.py'));
  writeFileSync(join(root, 'run.sh'), '#!/bin/bash\necho "hello from the synced project"\n');
  chmodSync(join(root, 'run.sh'), 0o755);
  if (bigMiB <= 0) return;
  const big = Buffer.alloc(bigMiB * 1024 * 1024);
  for (let i = 0; i < big.length; i += 4096) big.writeUInt32LE(i * 2654435761 >>> 0, i);
  writeFileSync(join(root, 'data.bin'), big);
}


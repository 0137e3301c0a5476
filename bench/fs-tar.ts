/**
 * A gzip'd tar archive of a list of entries, so that a folder of thousands of entries can be made
 * on the cluster with two requests (upload + extract) instead of one upload per file. Used by the
 * fs bench and the fs host tests. The entries are written to a temporary folder and archived by
 * the `tar` package (the same one the extension uses), then the folder is removed.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as tar from 'tar';

export interface TarEntry {
  /** Relative path; a trailing `/` makes a directory. */
  name: string;
  data?: Uint8Array;
}

export function tarGz(entries: TarEntry[]): Uint8Array {
  const work = mkdtempSync(join(tmpdir(), 'f7t-tar-'));
  try {
    const root = join(work, 'root');
    mkdirSync(root);
    for (const e of entries) {
      const path = join(root, e.name);
      if (e.name.endsWith('/')) mkdirSync(path, { recursive: true });
      else {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, e.data ?? new Uint8Array());
      }
    }
    const file = join(work, 'archive.tar.gz');
    // The entries as listed, in order: a folder entry does not pull in its files a second time.
    tar.c({ gzip: true, cwd: root, file, sync: true, portable: true, noDirRecurse: true }, entries.map((e) => e.name.replace(/\/+$/, '')));
    return new Uint8Array(readFileSync(file));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Where the last sync of each mapping is remembered: one JSON file per mapping in the workspace's
 * storage (never in the project), written through a temporary file so a crash keeps the old one.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Manifest, ManifestStore } from '../core/sync/index';

export function manifestStore(storageDir: string, key: string): ManifestStore {
  const file = join(storageDir, 'sync', `${createHash('sha256').update(key).digest('hex').slice(0, 24)}.json`);
  return {
    load: async () => {
      try {
        return JSON.parse(await readFile(file, 'utf8')) as Manifest;
      } catch {
        return undefined;
      }
    },
    save: async (m) => {
      await mkdir(join(storageDir, 'sync'), { recursive: true });
      const temp = `${file}.${process.pid}.tmp`;
      await writeFile(temp, JSON.stringify(m));
      await rename(temp, file);
    },
  };
}

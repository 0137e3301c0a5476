/**
 * Local paths built from names a server sent. Listings are screened in core already; every local
 * write checks once more, where the path is made, that it stays below the folder the user chose.
 */
import * as l10n from '@vscode/l10n';
import { isAbsolute, relative, resolve } from 'node:path';

export class OutsideFolderError extends Error {
  constructor(readonly root: string, readonly rel: string) {
    super(l10n.t('Refused to write {0}: it would land outside {1}', JSON.stringify(rel), root));
    this.name = 'OutsideFolderError';
  }
}

/** `root/rel`, resolved; throws OutsideFolderError when it is not below `root`. */
export function pathInside(root: string, rel: string): string {
  const base = resolve(root);
  const full = resolve(base, rel);
  const back = relative(base, full);
  if (back === '' || back === '..' || back.startsWith('../') || isAbsolute(back) || rel.includes('\0')) throw new OutsideFolderError(base, rel);
  return full;
}

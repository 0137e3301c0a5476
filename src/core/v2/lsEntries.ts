/**
 * The `ls` answer (§3.4) checked and translated in one pass. A folder of 10,000 entries is read
 * whenever the Explorer opens it, so the per-entry check is a handful of `typeof` tests on exactly
 * the fields the schema `LsW` requires; anything they do not accept goes through `LsW` itself,
 * which then either accepts it (a shape only zod's rules allow) or names what is wrong.
 */
import type { FileEntry } from '../model';
import type { TransportResponse } from '../http/transport';
import { parseJson, translateRows, validate } from './parse';
import { toFileEntry } from './translate';
import { LsW, type FileWire } from './wire';

/** The entries of an `ls` answer; MalformedResponseError when it is not one. */
export function parseLsEntries(res: TransportResponse, route: string): FileEntry[] {
  const json = parseJson(res, route);
  return fastEntries(json) ?? validate(LsW, json, route, res.status).output.map(toFileEntry);
}

function isFile(f: unknown): f is FileWire {
  if (typeof f !== 'object' || f === null) return false;
  const w = f as Record<string, unknown>;
  const link = w.linkTarget;
  const size = w.size;
  return (
    typeof w.name === 'string' &&
    typeof w.type === 'string' &&
    (link === null || link === undefined || typeof link === 'string') &&
    typeof w.user === 'string' &&
    typeof w.group === 'string' &&
    typeof w.permissions === 'string' &&
    typeof w.lastModified === 'string' &&
    (typeof size === 'string' || typeof size === 'number')
  );
}

/** The translated entries when every one passes the checks of `LsW`, else undefined. */
export function fastEntries(json: unknown): FileEntry[] | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const output = (json as { output?: unknown }).output;
  return Array.isArray(output) ? translateRows(output, isFile, toFileEntry) : undefined;
}

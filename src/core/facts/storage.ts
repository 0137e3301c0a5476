/**
 * "How full is my home and my scratch? What will the purge delete?": one side-car run per question.
 *
 * Quotas: for each file system the system lists, the first of `lfs quota` (Lustre), `quota`
 * (linuxquota) and `df` (the file system's own size, when no quota tool answers) that gives
 * figures. Which tool answered is said with the figures, and a later run asks that tool only
 * (`tools`). The purge: the files under a folder not read for more than a number of days (`find
 * -atime`), largest first. Everything the tools wrote is untrusted text, parsed field by field; a
 * line that does not fit is left out.
 */
import type { FirecrestApi } from '../api';
import { InvalidInputError, UnavailableError } from '../errors';
import { shellQuote } from '../shellQuote';
import { answerSections, sidecarAnswer } from '../sidecar/answer';
import type { SidecarOptions, SidecarStats } from '../sidecar/sidecar';

export type QuotaTool = 'lfs' | 'quota' | 'df';
export const QUOTA_TOOLS: readonly QuotaTool[] = ['lfs', 'quota', 'df'];

export interface StorageUsage {
  /** The file system's path as the system lists it. */
  path: string;
  /** Which tool the figures come from. */
  tool: QuotaTool;
  usedBytes: number;
  /** The quota (soft limit): past it, the grace period runs. For `df`, the file system's size. */
  softLimitBytes?: number;
  /** The hard limit: no more writes. For `df`, the file system's size. */
  hardLimitBytes?: number;
  files?: number;
  softLimitFiles?: number;
  hardLimitFiles?: number;
  /** A grace period running (quota past its soft limit), in the tool's words (`6d23h`, seconds for `quota -p`). */
  grace?: string;
  /** True for `df`: the figures are the whole file system's, every user's together. */
  shared: boolean;
}

export interface StorageReport {
  usages: StorageUsage[];
  /** File systems no tool answered for, with the last tool's words. */
  missing: { path: string; why: string }[];
  stats?: SidecarStats;
}

const KIB = 1024;
/** The tool's block of output for file system `i`: `@fs <i>`, then `@<tool> <status>` and what it printed. */
const FS = '@fs ';

function toolLines(tool: QuotaTool, v: string): string[] {
  switch (tool) {
    case 'lfs':
      return [`if command -v lfs >/dev/null 2>&1; then echo "@lfs"; lfs quota -q -u "$u" ${v} 2>&1; echo "@status $?"; fi`];
    case 'quota':
      return [`if command -v quota >/dev/null 2>&1; then echo "@quota"; quota -w -p -f ${v} 2>&1; echo "@status $?"; fi`];
    case 'df':
      return [`echo "@df"; df -P -k ${v} 2>&1; echo "@status $?"`, `echo "@dfi"; df -P -i ${v} 2>&1; echo "@status $?"`];
  }
}

/** The side-car's script body: each file system's tools (all three, or the one that answered before). */
export function quotaBody(paths: string[], tools: ReadonlyMap<string, QuotaTool> = new Map()): string[] {
  const body = ['u=$(id -un)'];
  paths.forEach((p, i) => {
    const v = shellQuote(p);
    body.push(`echo "${FS}${i}"`);
    const known = tools.get(p);
    for (const t of known ? [known] : QUOTA_TOOLS) body.push(...toolLines(t, v));
  });
  body.push('return 0');
  return body;
}

/** A whole number, with the `*` that marks a quota exceeded taken off; `-`/`none` as undefined. */
function count(t: string | undefined): number | undefined {
  const m = /^(\d+)\*?$/.exec(t ?? '');
  return m ? Number(m[1]) : undefined;
}

/** A limit: 0 means none. */
function limit(t: string | undefined, unit = 1): number | undefined {
  const n = count(t);
  return n ? n * unit : undefined;
}

/**
 * `lfs quota -q -u <user> <path>`: `<fs> <kbytes> <quota> <limit> <grace> <files> <quota> <limit>
 * <grace>`, the file system's name on a line of its own when it is long.
 */
export function parseLfs(text: string, path: string): StorageUsage | undefined {
  const tokens = text.split(/\s+/).filter(Boolean);
  for (let i = 0; i + 8 < tokens.length; i++) {
    if (!tokens[i].startsWith('/')) continue;
    const [, kb, soft, hard, grace, files, fsoft, fhard, fgrace] = tokens.slice(i, i + 9);
    const used = count(kb);
    if (used === undefined || count(files) === undefined) continue;
    const running = [grace, fgrace].find((g) => g !== '-' && g !== 'none' && g !== '0' && /^[\w.]+$/.test(g));
    return {
      path, tool: 'lfs', usedBytes: used * KIB, softLimitBytes: limit(soft, KIB), hardLimitBytes: limit(hard, KIB),
      files: count(files), softLimitFiles: limit(fsoft), hardLimitFiles: limit(fhard), ...(running ? { grace: running } : {}), shared: false,
    };
  }
  return undefined;
}

/**
 * `quota -w -p -f <path>` (linuxquota): a header, then `<device> <blocks> <quota> <limit> <grace>
 * <files> <quota> <limit> <grace>` in 1 KiB blocks, grace in seconds (0: none). "none" when the
 * user has no quota there: no figures.
 */
export function parseQuota(text: string, path: string): StorageUsage | undefined {
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length !== 9 || /^filesystem$/i.test(f[0])) continue;
    const [, blocks, soft, hard, grace, files, fsoft, fhard, fgrace] = f;
    const used = count(blocks);
    if (used === undefined || count(files) === undefined) continue;
    const running = [grace, fgrace].find((g) => /^\d+$/.test(g) && g !== '0');
    return {
      path, tool: 'quota', usedBytes: used * KIB, softLimitBytes: limit(soft, KIB), hardLimitBytes: limit(hard, KIB),
      files: count(files), softLimitFiles: limit(fsoft), hardLimitFiles: limit(fhard), ...(running ? { grace: `${running}s` } : {}), shared: false,
    };
  }
  return undefined;
}

/** `df -P -k` and `df -P -i`: the second line, `<fs> <total> <used> <free> <pct> <mount…>`. */
export function parseDf(blocks: string, inodes: string, path: string): StorageUsage | undefined {
  const row = (text: string) => {
    const line = text.split('\n').filter((l) => l.trim())[1];
    const f = line?.trim().split(/\s+/) ?? [];
    return f.length >= 6 ? { total: count(f[1]), used: count(f[2]) } : undefined;
  };
  const b = row(blocks);
  if (b?.total === undefined || b.used === undefined) return undefined;
  const i = row(inodes);
  return {
    path, tool: 'df', usedBytes: b.used * KIB, softLimitBytes: b.total * KIB, hardLimitBytes: b.total * KIB,
    ...(i?.used !== undefined && i.total ? { files: i.used, softLimitFiles: i.total, hardLimitFiles: i.total } : {}), shared: true,
  };
}

/** Splits the answer into each file system's tool outputs (`@<tool>` … `@status N`). */
export function parseQuotaAnswer(text: string, paths: string[]): StorageReport {
  // Parts keyed `<file system index>/<tool>`, under each `@fs <index>` header.
  let fs: number | undefined;
  const parts = answerSections(text, (line) => {
    const head = /^@fs (\d+)$/.exec(line);
    if (head) {
      fs = Number(head[1]) < paths.length ? Number(head[1]) : undefined;
      return null;
    }
    const tool = /^@(lfs|quota|df|dfi)$/.exec(line);
    return tool && fs !== undefined ? `${fs}/${tool[1]}` : undefined;
  });
  const usages: StorageUsage[] = [];
  const missing: StorageReport['missing'] = [];
  paths.forEach((path, i) => {
    // quota exits 1 for a user over quota; a tool that failed prints no figures.
    const ok = (k: string) => {
      const part = parts.get(`${i}/${k}`);
      return part && `${part.lines.join('\n')}\n`;
    };
    const lfs = ok('lfs');
    const quota = ok('quota');
    const df = ok('df');
    const found = (lfs !== undefined ? parseLfs(lfs, path) : undefined)
      ?? (quota !== undefined ? parseQuota(quota, path) : undefined)
      ?? (df !== undefined ? parseDf(df, ok('dfi') ?? '', path) : undefined);
    if (found) usages.push(found);
    else {
      const words = ['lfs', 'quota', 'df', 'dfi'].map((k) => ok(k)?.trim()).filter(Boolean).pop();
      missing.push({ path, why: words?.split('\n')[0]?.slice(0, 200) || 'no quota tool answered' });
    }
  });
  return { usages, missing };
}

/**
 * The user's usage and limits on each of `paths` (absolute), from one side-car job. `tools`: the
 * tool that answered for a path before (asked alone this time).
 */
export async function storageUsage(api: FirecrestApi, system: string, paths: string[], o: SidecarOptions & { tools?: ReadonlyMap<string, QuotaTool> }): Promise<StorageReport> {
  const list = [...new Set(paths)];
  const bad = list.find((p) => !p.startsWith('/') || /\0/.test(p));
  if (bad !== undefined) throw new InvalidInputError(`${JSON.stringify(bad)} is not an absolute path`);
  if (!list.length) return { usages: [], missing: [] };
  const a = await sidecarAnswer(api, system, 'storage report', 'f7t-storage', quotaBody(list, o.tools), o);
  if (a.status !== 0) throw new UnavailableError(`storage figures are not available on ${system}: ${a.errors.split('\n')[0] || `the report ended with status ${a.status}`}`);
  const { text, status: _s, errors: _e, ...stats } = a;
  return { ...parseQuotaAnswer(text, list), stats };
}

// ---------------------------------------------------------------------------------------------
// Scratch purge

export interface PurgeCandidate {
  /** Path under the folder asked about (relative). */
  rel: string;
  bytes: number;
  /** Last read (epoch seconds). */
  accessedAt: number;
}

export interface PurgePreview {
  folder: string;
  days: number;
  /** Every file the purge would take, and their bytes (`files` lists the largest `limit` only). */
  total: number;
  totalBytes: number;
  files: PurgeCandidate[];
  stats?: SidecarStats;
}

/** Files listed at most (largest first); the total counts them all. */
export const MAX_PURGE_FILES = 1000;

/**
 * The side-car's body: find's records (`size<TAB>atime<TAB>path`) largest first, names escaped
 * (`\\` and `\n`) so each is one line, after a total line.
 */
export function purgeBody(folder: string, days: number, limit = MAX_PURGE_FILES): string[] {
  const list = '"$tmp"';
  return [
    `d=${shellQuote(folder)}`,
    '[ -d "$d" ] || { echo "$d is not a folder" >&2; return 2; }',
    'tmp=$(mktemp) || return 1',
    `find "$d" -xdev -type f -amin +${Math.floor(days) * 1440} -printf '%s\\t%A@\\t%P\\0' 2>/dev/null | sort -z -t "$(printf '\\t')" -k1,1nr > ${list}`,
    `n=$(tr -cd '\\0' < ${list} | wc -c)`,
    `b=$(cut -z -f1 < ${list} | tr '\\0' '\\n' | awk '{ s += $1 } END { printf "%.0f", s }')`,
    'echo "@total $n ${b:-0}"',
    `head -z -n ${limit} < ${list} | sed -z 's/\\\\/\\\\\\\\/g; s/\\n/\\\\n/g' | tr '\\0' '\\n'`,
    `rm -f -- ${list}`,
    'return 0',
  ];
}

/** Undoes the escaping of purgeBody (`\\n` and `\\\\`). */
function unescapeName(s: string): string {
  return s.replace(/\\(\\|n)/g, (_m, c: string) => (c === 'n' ? '\n' : '\\'));
}

export function parsePurge(text: string, folder: string, days: number): PurgePreview {
  let total = 0;
  let totalBytes = 0;
  const files: PurgeCandidate[] = [];
  for (const line of text.split('\n')) {
    const t = /^@total (\d+) (\d+)$/.exec(line);
    if (t) {
      total = Number(t[1]);
      totalBytes = Number(t[2]);
      continue;
    }
    const m = /^(\d+)\t(\d+(?:\.\d+)?)\t(.+)$/.exec(line);
    if (!m) continue;
    const rel = unescapeName(m[3]);
    // A name that climbs out of the folder is not one find printed.
    if (rel.split('/').some((part) => part === '..' || part === '')) continue;
    files.push({ rel, bytes: Number(m[1]), accessedAt: Math.floor(Number(m[2])) });
  }
  return { folder, days, total: Math.max(total, files.length), totalBytes, files };
}

/** What a purge of files not read for more than `days` days would delete under `folder`, largest first. */
export async function purgePreview(api: FirecrestApi, system: string, folder: string, days: number, o: SidecarOptions & { limit?: number }): Promise<PurgePreview> {
  if (!folder.startsWith('/') || /\0/.test(folder)) throw new InvalidInputError(`${JSON.stringify(folder)} is not an absolute path`);
  if (!Number.isFinite(days) || days < 1) throw new InvalidInputError('the purge age is a whole number of days, 1 or more');
  const a = await sidecarAnswer(api, system, 'purge preview', 'f7t-purge', purgeBody(folder, days, o.limit), { timeLimitMinutes: 10, ...o });
  if (a.status !== 0) throw new UnavailableError(`the purge preview of ${folder} failed: ${a.errors.split('\n')[0] || `status ${a.status}`}`);
  const { text, status: _s, errors: _e, ...stats } = a;
  return { ...parsePurge(text, folder.replace(/\/+$/, ''), days), stats };
}

/** Marks files as read now (`touch -a`), so an age-based purge passes them by; `-c` creates nothing. */
export async function touchToKeep(api: FirecrestApi, system: string, paths: string[], o: SidecarOptions): Promise<{ touched: number; stats: SidecarStats }> {
  const bad = paths.find((p) => !p.startsWith('/') || /\0/.test(p));
  if (bad !== undefined) throw new InvalidInputError(`${JSON.stringify(bad)} is not an absolute path`);
  if (!paths.length) throw new InvalidInputError('no file to keep');
  const body = ['n=0', ...paths.map((p) => `touch -a -c -- ${shellQuote(p)} && n=$((n+1))`), 'echo "@touched $n"', 'return 0'];
  const a = await sidecarAnswer(api, system, 'touch', 'f7t-keep', body, o);
  if (a.status !== 0) throw new UnavailableError(`the files could not be touched: ${a.errors.split('\n')[0] || `status ${a.status}`}`);
  const { text, status: _s, errors: _e, ...stats } = a;
  return { touched: Number(/^@touched (\d+)$/m.exec(text)?.[1] ?? 0), stats };
}

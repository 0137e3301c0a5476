/**
 * Side-cars that answer once (not a stream): a script whose tool writes its whole answer, then an
 * end record with the tool's exit status. The script's frame (files, cancel trap, end record) is
 * the same for every such side-car; the tool's lines go in the middle. The answer is written
 * beside its file and moved into place whole, so the client's first read that finds it reads all
 * of it: one request, however slowly the tool writes.
 */
import type { FirecrestApi } from '../api';
import { shellQuote } from '../shellQuote';
import { runSidecar, type SidecarOptions, type SidecarPaths, type SidecarRun, type SidecarStats } from './sidecar';

/** The record a side-car script ends its answer with: `\0F7T-END <status>`. */
const END = '\0F7T-END ';

export interface SidecarAnswer extends SidecarStats {
  /** What the tool wrote (the end record taken off). */
  text: string;
  /** The tool's exit status. */
  status: number;
  /** What it said on stderr. */
  errors: string;
}

/** A side-car script: `body` runs with its stdout to the answer file and its stderr to the error file. */
export function answerScript(name: string, body: string[], paths: SidecarPaths, timeLimitMinutes = 2): string {
  return [
    '#!/bin/bash',
    `#SBATCH --job-name=${name}`,
    '#SBATCH --ntasks=1',
    '#SBATCH --cpus-per-task=1',
    `#SBATCH --time=${Math.max(1, Math.ceil(timeLimitMinutes))}`,
    '#SBATCH --output=/dev/null',
    '#SBATCH --error=/dev/null',
    `out=${shellQuote(paths.output)}`,
    `err=${shellQuote(paths.error)}`,
    'part="$out.part"',
    'trap \'rm -f -- "$part" "$out" "$err"; exit 143\' TERM INT',
    'umask 077',
    `mkdir -p -- ${shellQuote(paths.scratch)} 2>/dev/null`,
    'exec >"$part" 2>"$err" || exit 1',
    'answer() {',
    ...body.map((l) => `  ${l}`),
    '}',
    'answer; s=$?',
    `printf '${END.replace('\0', '\\0')}%s\\n' "$s"`,
    'mv -f -- "$part" "$out"',
    '',
  ].join('\n');
}

/** Runs a one-answer side-car and returns the whole answer, its status and the tool's stderr. */
export async function sidecarAnswer(api: FirecrestApi, system: string, what: string, name: string, body: string[], o: SidecarOptions & { timeLimitMinutes?: number }): Promise<SidecarAnswer> {
  let text = '';
  let status: number | undefined;
  let errors = '';
  const stats = await runSidecar(api, system, { what, name, script: (paths) => answerScript(name, body, paths, o.timeLimitMinutes) }, {
    take(piece) {
      text += piece;
      const at = text.lastIndexOf(END);
      if (at < 0 || !text.endsWith('\n')) return 'more';
      status = Number(text.slice(at + END.length).trim());
      text = text.slice(0, at);
      return 'done';
    },
    async settle(run: SidecarRun) {
      if (status !== 0) errors = await run.errorText();
    },
  }, o);
  return { ...stats, text, status: status ?? -1, errors };
}

/** One tool's part of an answer: its lines and the exit status the script recorded after it. */
export interface AnswerSection {
  lines: string[];
  status?: number;
}

/**
 * Splits an answer into the parts its script marked: a line for which `open` returns a key starts
 * a part, `@status N` ends it; `open` returns null for a header line that starts nothing (a
 * context for the parts after it). Lines outside a part are left out.
 */
export function answerSections(text: string, open: (line: string) => string | null | undefined): Map<string, AnswerSection> {
  const parts = new Map<string, AnswerSection>();
  let current: AnswerSection | undefined;
  for (const line of text.split('\n')) {
    const key = open(line);
    if (key === null) {
      current = undefined;
      continue;
    }
    if (key !== undefined) {
      current = { lines: [] };
      parts.set(key, current);
      continue;
    }
    const status = /^@status (\d+)$/.exec(line);
    if (status && current) {
      current.status = Number(status[1]);
      current = undefined;
      continue;
    }
    current?.lines.push(line);
  }
  return parts;
}

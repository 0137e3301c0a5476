/**
 * What the sbatch parser produces. Positions are plain line/character pairs (no `vscode` here:
 * the parser runs in unit tests and in the submit command alike); the editor maps them 1:1.
 */
import type { SbatchOption } from './options';
import type { ArraySpec, DependencySpec } from './values';

/** A span on one line: `start` inclusive, `end` exclusive, both 0-based characters. */
export interface Span {
  line: number;
  start: number;
  end: number;
}

/** One element of a comma-separated value (partitions, reservations), with its own span. */
export interface ValueItem {
  text: string;
  span: Span;
}

/** The value read with its kind's rules; absent when the value is malformed or untyped. */
export type TypedValue =
  | { kind: 'time'; seconds: number }
  | { kind: 'memory'; mebibytes: number }
  | { kind: 'array'; spec: ArraySpec }
  | { kind: 'dependency'; spec: DependencySpec }
  | { kind: 'count'; count: number }
  | { kind: 'list'; items: ValueItem[] };

/** One option of one `#SBATCH` line (a line may carry several: `#SBATCH -N 1 -n 4`). */
export interface SbatchDirective {
  /** The whole directive line, from `#SBATCH` to the last argument (a trailing comment excluded). */
  lineSpan: Span;
  /** The option as written: `--time`, `--part`, `-t`. */
  written: string;
  nameSpan: Span;
  /** Canonical long name (`time`), or the written name without dashes when unknown. */
  name: string;
  option?: SbatchOption;
  /** The value without quotes; absent for flags and for a missing value. */
  value?: string;
  /** Where the value is in the document (quotes included when written). */
  valueSpan?: Span;
  typed?: TypedValue;
}

/** Stable codes: tests, quick fixes and users tell the problems apart by these. */
export type ParseProblemCode =
  | 'unknown-directive'
  | 'ambiguous-directive'
  | 'missing-value'
  | 'malformed-value'
  | 'unexpected-value'
  | 'stray-argument'
  | 'directive-ignored'
  | 'repeated-option';

/** A problem sbatch itself would report (errors) or a line it would silently skip (warnings). */
export interface ParseProblem {
  code: ParseProblemCode;
  severity: 'error' | 'warning';
  span: Span;
  message: string;
}

/** A parsed batch script. */
export interface SbatchScript {
  /** Every option sbatch would read, in order. */
  directives: SbatchDirective[];
  problems: ParseProblem[];
  /** True when at least one `#SBATCH` line is in the header (the part sbatch reads). */
  hasDirectives: boolean;
  /** 0-based line of the first command (where sbatch stops reading directives), if any. */
  firstCommandLine?: number;
  /** The effective directive of an option (sbatch: the last one wins). */
  last(name: string): SbatchDirective | undefined;
}

/**
 * Typed readers of command arguments. A command's argument comes from a menu (a tree node, an
 * Explorer Uri), a notification's action, a walkthrough link, another extension or a test, so it
 * arrives as `unknown`. A command names the fields it takes and their kinds; each field is read
 * only when it has that kind, and everything else is ignored. No command casts its argument.
 */
import * as vscode from 'vscode';

/** Reads one field: the value when it has the kind, else undefined. */
export type Field<T> = (value: unknown) => T | undefined;

export const text: Field<string> = (v) => (typeof v === 'string' ? v : undefined);
export const flag: Field<boolean> = (v) => (typeof v === 'boolean' ? v : undefined);
export const whole: Field<number> = (v) => (typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined);
export const uri: Field<vscode.Uri> = (v) => (v instanceof vscode.Uri ? v : undefined);
/** A Uri, or a local path as a string (scripts and tests name files by path). */
export const uriOrPath: Field<vscode.Uri> = (v) => uri(v) ?? (typeof v === 'string' && v ? vscode.Uri.file(v) : undefined);
/** A string, or a number written as one (job ids come both ways). */
export const textOrNumber: Field<string> = (v) => (typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : undefined);
/** A plain object, left for a more specific reader (a record the caller checks field by field). */
export const record: Field<Record<string, unknown>> = (v) =>
  v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof vscode.Uri) ? (v as Record<string, unknown>) : undefined;

/**
 * A function: only tests hand these in (a browser to play, a code to read). Its signature cannot
 * be checked at run time; the caller names the one it expects.
 */
export function callback<T extends (...args: never[]) => unknown>(): Field<T> {
  return (v) => (typeof v === 'function' ? (v as T) : undefined);
}

/** One of the given words. */
export function oneOf<T extends string>(...words: readonly T[]): Field<T> {
  return (v) => (typeof v === 'string' && (words as readonly string[]).includes(v) ? (v as T) : undefined);
}

/** A list whose every element has the kind (elements without it are dropped). */
export function listOf<T>(field: Field<T>): Field<T[]> {
  return (v) => (Array.isArray(v) ? v.map(field).filter((x): x is T => x !== undefined) : undefined);
}

export type Fields = Record<string, Field<unknown>>;
export type Read<S extends Fields> = { [K in keyof S]?: S[K] extends Field<infer T> ? T : never };

/**
 * The fields of an argument object, each of its kind. A Uri, a primitive or nothing gives `{}`,
 * so `fields(arg, {...}).x` is safe on any argument.
 */
export function fields<S extends Fields>(arg: unknown, shape: S): Read<S> {
  const o = record(arg);
  const out: Record<string, unknown> = {};
  if (!o) return out as Read<S>;
  for (const [key, read] of Object.entries(shape)) {
    const v = read(o[key]);
    if (v !== undefined) out[key] = v;
  }
  return out as Read<S>;
}

/** A record of strings (environment variables). */
export const textRecord: Field<Record<string, string>> = (v) => {
  const o = record(v);
  if (!o) return undefined;
  return Object.fromEntries(Object.entries(o).filter((e): e is [string, string] => typeof e[1] === 'string'));
};

/** The file a command is about: the argument itself (Explorer, editor title) or its `uri` field (a Uri or a local path). */
export function givenUri(arg: unknown): vscode.Uri | undefined {
  return uri(arg) ?? fields(arg, { uri: uriOrPath }).uri;
}

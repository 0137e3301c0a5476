/** The driver's log, one JSON message a line: untrusted, parsed within bounds and field by field. */
/** Longest line of the log taken (a larger message is dropped, with a note). */
export const MAX_LINE = 64 * 1024 * 1024;
export type OutputMessage =
  | { type: 'stream'; cell: string; name: 'stdout' | 'stderr'; text: string }
  | { type: 'display'; cell: string; data: Record<string, string | Uint8Array> }
  | { type: 'error'; cell: string; ename: string; evalue: string; traceback: string[] };

export const isText = (v: unknown): v is string => typeof v === 'string';

/** One line of the log as a message, or undefined when it is not one (untrusted). */
export function parseMessage(line: string): Record<string, unknown> | undefined {
  if (line.length > MAX_LINE) return undefined;
  try {
    const m = JSON.parse(line) as unknown;
    return typeof m === 'object' && m !== null && !Array.isArray(m) && Number.isSafeInteger((m as { seq?: unknown }).seq) ? (m as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A display message's data: text as text, `{ b64 }` as bytes; other shapes left out. */
export function displayData(v: unknown): Record<string, string | Uint8Array> {
  const out: Record<string, string | Uint8Array> = {};
  if (typeof v !== 'object' || v === null) return out;
  for (const [mime, value] of Object.entries(v as Record<string, unknown>)) {
    if (!/^[\w.+-]+\/[\w.+-]+$/.test(mime)) continue;
    if (isText(value)) out[mime] = value;
    else if (typeof value === 'object' && value !== null && isText((value as { b64?: unknown }).b64)) out[mime] = new Uint8Array(Buffer.from((value as { b64: string }).b64, 'base64'));
  }
  return out;
}

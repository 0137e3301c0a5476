/** A JSON object (not null, not an array): what a server's answer must be before its fields are read. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

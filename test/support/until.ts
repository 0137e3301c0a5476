/**
 * Waits for a condition, never for a fixed time: `probe` is asked every `everyMs` until it
 * answers something other than undefined, which `until` resolves to. Past `timeoutMs` it rejects,
 * naming what it waited for.
 */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000, everyMs = 400): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Reads `read` every `intervalMs` (default 15 ms) until `ok` holds; throws with the last value after `timeoutMs` (default 10 s). */
export async function until<T>(read: () => T | Promise<T>, ok: (value: T) => boolean, timeoutMs = 10_000, intervalMs = 15): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last value ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

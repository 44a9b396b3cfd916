/**
 * The two pieces every retrying HTTP caller shares (the portal/photo/webhook client in net/fetch.ts,
 * the remote-mode client in client/): how long to back off, and what a `Retry-After` asks for.
 * Decisions: docs/portals.md and docs/remote.md.
 */

/**
 * Delay before retry number `attempt` (0 = the first retry): `baseMs` doubled each time, capped at
 * `capMs`, with ±25 % jitter so that many clients failing together do not retry together.
 */
export function backoffMs(attempt: number, baseMs: number, capMs: number = Number.POSITIVE_INFINITY): number {
  const exponential = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt));
  return Math.round(exponential * (0.75 + Math.random() * 0.5));
}

/** Whole seconds asked by a `Retry-After` header (RFC 9110 §10.2.3: delta-seconds or an HTTP date), or null. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

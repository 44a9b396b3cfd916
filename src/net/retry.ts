import { sleep } from '../core/time.js';

/**
 * What every retrying HTTP caller shares (the portal/photo/webhook client in net/fetch.ts, the
 * remote-mode client in client/): the retry loop, how long to back off, and what a `Retry-After`
 * asks for. Each caller keeps its own policy. Decisions: docs/portals.md and docs/remote.md.
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

/** What one attempt ended with. */
export type AttemptOutcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

export interface RetryPolicy<T> {
  /**
   * After attempt number `attempt` (0 = the first): how long to wait before trying again, or null
   * to stop here (a value is returned, an error thrown). Callers keep their own rules: which
   * failures are transient, how many tries each kind gets, what a Retry-After may ask.
   */
  delayAfter(outcome: AttemptOutcome<T>, attempt: number): number | null;
  signal?: AbortSignal;
  /** Tests pass a fake clock. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** The one retry loop of immoreel's HTTP callers: try, ask the policy, wait, try again. */
export async function withRetries<T>(attempt: (attempt: number) => Promise<T>, policy: RetryPolicy<T>): Promise<T> {
  for (let n = 0; ; n += 1) {
    let outcome: AttemptOutcome<T>;
    try {
      outcome = { ok: true, value: await attempt(n) };
    } catch (error) {
      outcome = { ok: false, error };
    }
    const delay = policy.delayAfter(outcome, n);
    if (delay === null) {
      if (outcome.ok) return outcome.value;
      throw outcome.error;
    }
    await (policy.sleep ?? sleep)(delay, policy.signal);
  }
}

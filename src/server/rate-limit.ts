/**
 * Per-key rate limits (docs/api.md "Limits"): a sliding-window log. Every admitted request leaves
 * its timestamp; a request is admitted while fewer than `limit` timestamps lie within the last
 * `windowMs`. Exact ("the 61st analyze within any 60 s is refused"), deterministic with an
 * injected clock, and small: at most `limit` numbers per key and policy.
 */

export interface RatePolicy {
  /** Name in the RateLimit headers and in the 429 `reason`, e.g. `analyze`. */
  name: string;
  limit: number;
  windowMs: number;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the oldest counted request leaves the window (a slot frees up). */
  resetS: number;
  /** Seconds to wait before a retry can succeed (0 when allowed). */
  retryAfterS: number;
}

export class SlidingWindowLimiter {
  private readonly hits = new Map<string, number[]>();
  private takesSinceSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Counts one request of `partition` (an API key id) against `policy`, or refuses it. */
  take(policy: RatePolicy, partition: string): RateDecision {
    const now = this.now();
    const key = `${policy.name}\u0000${partition}`;
    const log = this.hits.get(key) ?? [];
    const cutoff = now - policy.windowMs;
    let expired = 0;
    while (expired < log.length && log[expired]! <= cutoff) expired += 1;
    if (expired > 0) log.splice(0, expired);
    this.sweepSometimes(now);

    const secondsUntilSlot = (oldest: number | undefined): number =>
      oldest === undefined ? 0 : Math.max(1, Math.ceil((oldest + policy.windowMs - now) / 1000));

    if (log.length >= policy.limit) {
      const wait = secondsUntilSlot(log[0]);
      this.hits.set(key, log);
      return { allowed: false, limit: policy.limit, remaining: 0, resetS: wait, retryAfterS: wait };
    }
    log.push(now);
    this.hits.set(key, log);
    return {
      allowed: true,
      limit: policy.limit,
      remaining: policy.limit - log.length,
      resetS: secondsUntilSlot(log[0]),
      retryAfterS: 0,
    };
  }

  /** Drops logs whose every entry is older than the longest window seen, so idle keys cost nothing. */
  private sweepSometimes(now: number): void {
    this.takesSinceSweep += 1;
    if (this.takesSinceSweep < 10_000) return;
    this.takesSinceSweep = 0;
    for (const [key, log] of this.hits) {
      // One hour is longer than any window we configure; a stale log past it is certainly empty.
      if (log.length === 0 || log[log.length - 1]! <= now - 3_600_000) this.hits.delete(key);
    }
  }
}

/**
 * `RateLimit-Policy` and `RateLimit` as the current IETF draft writes them (structured-field
 * lists of named policies: `q` quota, `w` window seconds, `r` remaining, `t` seconds until reset;
 * draft-ietf-httpapi-ratelimit-headers, see docs/api.md).
 */
export function rateLimitHeaders(policy: RatePolicy, decision: RateDecision): Record<string, string> {
  const windowS = Math.max(1, Math.round(policy.windowMs / 1000));
  return {
    'RateLimit-Policy': `"${policy.name}";q=${policy.limit};w=${windowS}`,
    RateLimit: `"${policy.name}";r=${decision.remaining};t=${decision.resetS}`,
  };
}

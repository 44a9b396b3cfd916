/**
 * Per-key rate limits (docs/api.md "Rate limits"): a token bucket per key and policy. The bucket
 * holds `limit` tokens and refills at `limit` per `windowMs`; a request takes one token. So a
 * client pacing at the documented rate (or slower) is never refused whatever its network jitter,
 * and a burst of up to `limit` requests at once is accepted. Deterministic with an injected clock.
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
  /** Seconds until the bucket is full again. */
  resetS: number;
  /** Seconds to wait before a retry can succeed (0 when allowed). */
  retryAfterS: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * What a take answers, from the bucket after the request: `tokens` left and whether this request
 * `taken` one (when refused, the bucket is unchanged and below one token). Shared by this
 * in-memory limiter and the PostgreSQL one (src/records/postgres/server-records.ts), so both backends give
 * the same decisions to the token.
 */
export function bucketDecision(policy: RatePolicy, tokens: number, taken: boolean): RateDecision {
  const perMs = policy.limit / policy.windowMs;
  // Seconds until the bucket holds `wanted` tokens again.
  const secondsUntil = (have: number, wanted: number): number =>
    have >= wanted ? 0 : Math.max(1, Math.ceil((wanted - have) / perMs / 1000 - 1e-9));
  if (!taken)
    return {
      allowed: false,
      limit: policy.limit,
      remaining: 0,
      resetS: secondsUntil(tokens, policy.limit),
      retryAfterS: secondsUntil(tokens, 1),
    };
  return { allowed: true, limit: policy.limit, remaining: Math.floor(tokens), resetS: secondsUntil(tokens, policy.limit), retryAfterS: 0 };
}

export class TokenBucketLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private takesSinceSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Counts one request of `partition` (an API key id) against `policy`, or refuses it. */
  take(policy: RatePolicy, partition: string): RateDecision {
    const now = this.now();
    const key = `${policy.name}\u0000${partition}`;
    const perMs = policy.limit / policy.windowMs;
    const previous = this.buckets.get(key);
    const tokens = previous === undefined ? policy.limit : Math.min(policy.limit, previous.tokens + (now - previous.at) * perMs);
    this.sweepSometimes(now);
    const taken = tokens >= 1;
    const left = taken ? tokens - 1 : tokens;
    this.buckets.set(key, { tokens: left, at: now });
    return bucketDecision(policy, left, taken);
  }

  /** Drops buckets idle long enough to be full again, so idle keys cost nothing. */
  private sweepSometimes(now: number): void {
    this.takesSinceSweep += 1;
    if (this.takesSinceSweep < 10_000) return;
    this.takesSinceSweep = 0;
    // One hour is longer than any window we configure: an idle bucket is full by then.
    for (const [key, bucket] of this.buckets) if (bucket.at <= now - 3_600_000) this.buckets.delete(key);
  }
}

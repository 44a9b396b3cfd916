import type { RateDecision, RatePolicy } from '../records/rate-limit.js';

/**
 * `RateLimit-Policy` and `RateLimit` as the current IETF draft writes them (structured-field
 * lists of named policies: `q` quota, `w` window seconds, `r` remaining, `t` seconds until reset;
 * draft-ietf-httpapi-ratelimit-headers), plus the `RateLimit-Limit` / `-Remaining` / `-Reset`
 * trio of the earlier drafts that most client libraries parse (docs/api.md "Rate limits").
 */
export function rateLimitHeaders(policy: RatePolicy, decision: RateDecision): Record<string, string> {
  const windowS = Math.max(1, Math.round(policy.windowMs / 1000));
  return {
    'RateLimit-Policy': `"${policy.name}";q=${policy.limit};w=${windowS}`,
    RateLimit: `"${policy.name}";r=${decision.remaining};t=${decision.resetS}`,
    'RateLimit-Limit': String(policy.limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': String(decision.resetS),
  };
}

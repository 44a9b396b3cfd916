/**
 * Scopes, plans and limits of API v1 (docs/api.md). Every number here is a default that
 * `immoreel serve` options can change; docs/api.md explains each.
 */

import { MAX_ASSET_BYTES } from '../core/images.js';

export const API_VERSION = '1.0.0';
export const API_PREFIX = '/api/v1';

export { DEFAULT_MONTHLY_QUOTA, PLANS, PREVIEW_SCOPES, SCOPES, STANDARD_SCOPES, type Plan, type Scope } from '../records/plans.js';

/** The rate-limit policies, one per family of routes. */
export type LimitPolicyName = 'analyze' | 'render' | 'job_reads' | 'account';

export interface ServerLimits {
  /** Length of every rate-limit window; 60 000 in production, shorter in tests. */
  windowMs: number;
  /**
   * Analyze requests per key and window: 60 a minute by default, the lower of the two figures
   * clients may have been given (docs/api.md "Rate limits").
   */
  analyzePerWindow: number;
  renderPerWindow: number;
  /** GET /jobs/{id}, GET /jobs, GET /jobs/{id}/video: polling faster than this is a 429. */
  jobReadsPerWindow: number;
  /** /me, /usage, /assets, cancel. */
  accountPerWindow: number;
  /** Jobs queued or running at once for a preview tenant (docs/api.md: 30 concurrent renders). */
  previewConcurrentRenders: number;
  /** Jobs waiting in the queue at once for any tenant. */
  maxQueuedJobs: number;
  /** Largest JSON body (analyze, render-video): a saved page may be 5 MB. */
  jsonBodyLimitBytes: number;
  /** Largest asset upload. */
  assetBodyLimitBytes: number;
  /**
   * Longest a client may take to send one whole request, headers and body; then 408 and the
   * connection is closed (docs/security.md). Handling time is not counted.
   */
  requestTimeoutMs: number;
  /**
   * Bytes of request bodies the process holds at once (arriving, parsed or being checked), in all
   * and per caller (an API key, or an address without one); a body that does not fit is a 503
   * with Retry-After (docs/security.md "Bodies").
   */
  bodyBytesInFlight: number;
  bodyBytesInFlightPerCaller: number;
}

export const DEFAULT_LIMITS: ServerLimits = {
  windowMs: 60_000,
  analyzePerWindow: 60,
  renderPerWindow: 30,
  jobReadsPerWindow: 120,
  accountPerWindow: 120,
  previewConcurrentRenders: 30,
  maxQueuedJobs: 100,
  jsonBodyLimitBytes: 6 * 1024 * 1024,
  assetBodyLimitBytes: MAX_ASSET_BYTES,
  // A 15 MB upload at 4 Mbit/s takes 30 s: twice that is room enough, and far below a stalled peer's patience.
  requestTimeoutMs: 60_000,
  // About twenty of the largest bodies at once, two uploads per caller: 50 stalled 5.5 MB bodies
  // held ~275 MB before; now at most this (docs/security.md "Bodies").
  bodyBytesInFlight: 128 * 1024 * 1024,
  bodyBytesInFlightPerCaller: 2 * MAX_ASSET_BYTES + 1024 * 1024,
};

export function policyLimit(limits: ServerLimits, policy: LimitPolicyName): number {
  switch (policy) {
    case 'analyze':
      return limits.analyzePerWindow;
    case 'render':
      return limits.renderPerWindow;
    case 'job_reads':
      return limits.jobReadsPerWindow;
    case 'account':
      return limits.accountPerWindow;
  }
}

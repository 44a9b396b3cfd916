/**
 * Monthly quotas (docs/api.md): each key may make `monthly_quota` billable requests (analyses and
 * render dispatches) per calendar month, UTC. A request reserves its unit before it runs; one
 * that ends in an error gets it back, so a client is billed for answers, not for its mistakes.
 */

export type BillableRoute = 'analyze' | 'render_video';

/** `YYYY-MM` of a timestamp, UTC. */
export function periodOf(timeMs: number): string {
  return new Date(timeMs).toISOString().slice(0, 7);
}

/** First instant of the month after `timeMs`, UTC, as ISO 8601. */
export function periodResetAt(timeMs: number): string {
  const d = new Date(timeMs);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)).toISOString();
}

export interface QuotaState {
  period: string;
  used: number;
  limit: number;
  remaining: number;
  resets_at: string;
}

/** One unit of quota taken by a request (or a render job, until it ends). */
export interface Reservation {
  keyId: string;
  period: string;
  route: BillableRoute;
}

export interface UsageRow {
  key_id: string;
  route: BillableRoute;
  count: number;
}

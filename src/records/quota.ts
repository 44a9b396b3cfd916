import { AppError } from '../core/errors.js';
import type { ValidRenderRequest } from '../render/types.js';
import { unitsForOutputs } from './pack-price.js';

/**
 * Monthly quotas (docs/api.md "Monthly quota"): each key may spend `monthly_quota` units per
 * calendar month, UTC, on billable requests (analyses and render jobs). A request is charged in the
 * transaction that writes what it bought — the job row, or the stored answer of an analysis — so a
 * request that fails is never charged, and nothing is charged without its job (docs/operations.md
 * "Exactly once").
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

/**
 * What a request is to be charged, written in the transaction that records what it bought: `units`
 * of `keyId`'s quota for `period`, refused (`quotaSpentError`) when they would take the key past `limit`.
 */
export interface Charge {
  keyId: string;
  period: string;
  route: BillableRoute;
  units: number;
  limit: number;
}

/**
 * The units a render job costs: one per output, a pack of three formats three (./pack-price.ts,
 * docs/api.md "Monthly quota"). Kept on the job (`units`), so the price of a job is a value here,
 * not a mechanism: the charge, the refund and `immoreel db reconcile` all read the job's own count.
 */
export function renderUnits(request: Pick<ValidRenderRequest, 'formats'>): number {
  return unitsForOutputs(request.formats.length);
}

/** The 403 of a spent quota (docs/api.md "Monthly quota"); the server adds `resets_at`. */
function quotaSpentError(charge: Pick<Charge, 'limit' | 'period'>): AppError {
  return new AppError('QUOTA_EXCEEDED', `Monthly quota of ${charge.limit} requests used up for ${charge.period}.`, {
    reason: 'monthly_quota',
  });
}

/** Refuses a charge whose units do not fit in what its key has left (`used` so far this period). */
export function checkQuota(used: number, charge: Charge): void {
  if (used + charge.units > charge.limit) throw quotaSpentError(charge);
}

/**
 * One line of `immoreel db reconcile`: the render units a key's quota counts for a month, beside the
 * units its jobs of that month hold (charged and not refunded). `difference` = used − charged.
 */
export interface ReconcileRow {
  key_id: string;
  period: string;
  used: number;
  charged: number;
  difference: number;
}

/**
 * Pairs the quota's counts with the jobs' sums, per (key, period), in key then period order; only
 * the pairs that differ when `onlyDifferences`. Pure: both backends read the two sides and call it.
 */
export function reconcileRows(
  used: readonly { key_id: string; period: string; count: number }[],
  charged: readonly { key_id: string; period: string; units: number }[],
): ReconcileRow[] {
  const rows = new Map<string, ReconcileRow>();
  const at = (key_id: string, period: string): ReconcileRow => {
    const id = `${key_id}\u0000${period}`;
    let row = rows.get(id);
    if (row === undefined) {
      row = { key_id, period, used: 0, charged: 0, difference: 0 };
      rows.set(id, row);
    }
    return row;
  };
  for (const u of used) at(u.key_id, u.period).used += Number(u.count);
  for (const c of charged) at(c.key_id, c.period).charged += Number(c.units);
  return [...rows.values()]
    .map((row) => ({ ...row, difference: row.used - row.charged }))
    .sort((a, b) => (a.key_id === b.key_id ? (a.period < b.period ? -1 : 1) : a.key_id < b.key_id ? -1 : 1));
}

export interface UsageRow {
  key_id: string;
  route: BillableRoute;
  count: number;
}

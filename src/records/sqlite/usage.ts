import type { Db } from './driver.js';
import { periodOf, periodResetAt, type BillableRoute, type QuotaState, type Reservation, type UsageRow } from '../quota.js';

/** Monthly quotas in the SQLite file (docs/api.md "Monthly quota"); src/records/quota.ts holds what both backends share. */
export class UsageStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  used(keyId: string, period = periodOf(this.now())): number {
    const row = this.db
      .prepare('SELECT COALESCE(SUM(count), 0) AS used FROM server_usage WHERE key_id = ? AND period = ?')
      .get(keyId, period) as { used: number };
    return row.used;
  }

  state(keyId: string, limit: number): QuotaState {
    const now = this.now();
    const used = this.used(keyId, periodOf(now));
    return { period: periodOf(now), used, limit, remaining: Math.max(0, limit - used), resets_at: periodResetAt(now) };
  }

  /** Takes one unit if the key has one left this month; null when the quota is spent. */
  reserve(keyId: string, limit: number, route: BillableRoute): Reservation | null {
    const period = periodOf(this.now());
    const take = this.db.transaction((): Reservation | null => {
      if (this.used(keyId, period) >= limit) return null;
      this.db
        .prepare(
          'INSERT INTO server_usage (key_id, period, route, count) VALUES (?, ?, ?, 1) ON CONFLICT(key_id, period, route) DO UPDATE SET count = count + 1',
        )
        .run(keyId, period, route);
      return { keyId, period, route };
    });
    return take.immediate();
  }

  refund(reservation: Reservation): void {
    this.db
      .prepare('UPDATE server_usage SET count = MAX(0, count - 1) WHERE key_id = ? AND period = ? AND route = ?')
      .run(reservation.keyId, reservation.period, reservation.route);
  }

  /** Remembers which unit a render job took, so that it can be given back when the job ends. */
  chargeJob(jobId: string, reservation: Reservation): void {
    this.db
      .prepare('INSERT OR REPLACE INTO server_job_charges (job_id, key_id, period, route) VALUES (?, ?, ?, ?)')
      .run(jobId, reservation.keyId, reservation.period, reservation.route);
  }

  /**
   * A render job ended: when it failed on the caller's input (BAD_REQUEST — e.g. no photo could
   * be used) its unit is given back, as for a request refused up front. True when refunded.
   */
  settleJob(jobId: string, failedOnInput: boolean): boolean {
    const settle = this.db.transaction((): boolean => {
      const row = this.db.prepare('SELECT key_id, period, route FROM server_job_charges WHERE job_id = ?').get(jobId) as
        { key_id: string; period: string; route: BillableRoute } | undefined;
      if (row === undefined) return false;
      this.db.prepare('DELETE FROM server_job_charges WHERE job_id = ?').run(jobId);
      if (failedOnInput) this.refund({ keyId: row.key_id, period: row.period, route: row.route });
      return failedOnInput;
    });
    return settle.immediate();
  }

  /** Every key's billable counts in a period, for `GET /usage`. */
  byKey(keyIds: string[], period: string): UsageRow[] {
    if (keyIds.length === 0) return [];
    const marks = keyIds.map(() => '?').join(', ');
    return this.db
      .prepare(`SELECT key_id, route, count FROM server_usage WHERE period = ? AND key_id IN (${marks}) ORDER BY key_id, route`)
      .all(period, ...keyIds) as UsageRow[];
  }
}

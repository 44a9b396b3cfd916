import type { Db } from './driver.js';
import {
  checkQuota,
  periodOf,
  periodResetAt,
  reconcileRows,
  type Charge,
  type QuotaState,
  type ReconcileRow,
  type UsageRow,
} from '../quota.js';
import { JOB_CHARGE_ROUTE } from '../job-rows.js';

/**
 * Takes `charge.units` of a key's quota inside the caller's IMMEDIATE transaction (SQLite's write
 * lock makes the check and the write one step across processes); throws when they do not fit.
 * The job store calls it in the transaction that inserts the job.
 */
export function takeUnits(db: Db, charge: Charge): void {
  const { used } = db
    .prepare('SELECT COALESCE(SUM(count), 0) AS used FROM server_usage WHERE key_id = ? AND period = ?')
    .get(charge.keyId, charge.period) as { used: number };
  checkQuota(used, charge);
  db.prepare(
    'INSERT INTO server_usage (key_id, period, route, count) VALUES (?, ?, ?, ?) ON CONFLICT(key_id, period, route) DO UPDATE SET count = count + excluded.count',
  ).run(charge.keyId, charge.period, charge.route, charge.units);
}

/** Gives a job's units back, in the transaction that ends the job. */
export function returnUnits(db: Db, row: { charge_key_id: string; charge_period: string; units: number }): void {
  db.prepare('UPDATE server_usage SET count = MAX(0, count - ?) WHERE key_id = ? AND period = ? AND route = ?').run(
    row.units,
    row.charge_key_id,
    row.charge_period,
    JOB_CHARGE_ROUTE,
  );
}

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

  /** Charges a request that bought no job (an analysis) in its own transaction; a spent quota throws. */
  charge(charge: Charge): void {
    this.db.transaction(() => takeUnits(this.db, charge)).immediate();
  }

  /** Quota used against units charged on jobs, per key and month (`immoreel db reconcile`); every month when `period` is null. */
  reconcile(period: string | null): ReconcileRow[] {
    const where = period === null ? '' : ' AND period = ?';
    const used = this.db
      .prepare(`SELECT key_id, period, count FROM server_usage WHERE route = ?${where}`)
      .all(JOB_CHARGE_ROUTE, ...(period === null ? [] : [period])) as { key_id: string; period: string; count: number }[];
    const charged = this.db
      .prepare(
        `SELECT charge_key_id AS key_id, charge_period AS period, SUM(units) AS units FROM jobs
         WHERE charge_key_id IS NOT NULL AND refunded_at IS NULL${period === null ? '' : ' AND charge_period = ?'}
         GROUP BY charge_key_id, charge_period`,
      )
      .all(...(period === null ? [] : [period])) as { key_id: string; period: string; units: number }[];
    return reconcileRows(used, charged);
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

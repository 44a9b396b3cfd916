import type { Db } from './driver.js';
import { randomId } from '../../core/random-ids.js';
import type { DeliveryRow, DeliveryState } from '../webhook-outbox.js';

/** Writes a job's outbox row (`waiting`); the job store calls it in the transaction that inserts the job. */
export function registerWebhook(db: Db, jobId: string, tenant: string, url: string, now: number): void {
  db.prepare(
    `INSERT INTO server_webhooks (job_id, tenant, url, message_id, state, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'waiting', ?, ?) ON CONFLICT(job_id) DO NOTHING`,
  ).run(jobId, tenant, url, randomId('msg', 24), now, now);
}

/** The webhook outbox in the SQLite file (docs/api.md "Webhooks"). */
export class WebhookStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  /** Remembers where a job's terminal state must be sent (at submission). */
  register(jobId: string, tenant: string, url: string): void {
    registerWebhook(this.db, jobId, tenant, url, this.now());
  }

  /** Queues the delivery of a job that reached a terminal state; false when none was asked for. */
  enqueue(jobId: string, payload: string): boolean {
    const now = this.now();
    return (
      this.db
        .prepare(
          `UPDATE server_webhooks SET state = 'pending', payload = ?, next_attempt_at = ?, updated_at = ? WHERE job_id = ? AND state = 'waiting'`,
        )
        .run(payload, now, now, jobId).changes > 0
    );
  }

  get(jobId: string): DeliveryRow | null {
    return (this.db.prepare('SELECT * FROM server_webhooks WHERE job_id = ?').get(jobId) as DeliveryRow | undefined) ?? null;
  }

  waitingJobIds(): string[] {
    return (this.db.prepare(`SELECT job_id FROM server_webhooks WHERE state = 'waiting'`).all() as { job_id: string }[]).map(
      (r) => r.job_id,
    );
  }

  backlog(): number {
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM server_webhooks WHERE state = 'pending'`).get() as { n: number }).n;
  }

  /**
   * Deliveries due now, oldest first, at most `perTenant` of each tenant: a tenant with a
   * thousand due deliveries does not hide another tenant's one.
   */
  due(limit = 100, perTenant = limit): DeliveryRow[] {
    return this.db
      .prepare(
        `SELECT * FROM (
           SELECT *, ROW_NUMBER() OVER (PARTITION BY tenant ORDER BY next_attempt_at) AS tenant_rank
           FROM server_webhooks WHERE state = 'pending' AND next_attempt_at <= ?
         ) WHERE tenant_rank <= ? ORDER BY next_attempt_at LIMIT ?`,
      )
      .all(this.now(), perTenant, limit) as DeliveryRow[];
  }

  record(
    jobId: string,
    outcome: { state: DeliveryState; status: number | null; error: string | null; nextAttemptAt: number | null },
  ): void {
    this.db
      .prepare(
        `UPDATE server_webhooks SET state = ?, attempts = attempts + 1, last_status = ?, last_error = ?, next_attempt_at = ?, updated_at = ? WHERE job_id = ?`,
      )
      .run(outcome.state, outcome.status, outcome.error, outcome.nextAttemptAt, this.now(), jobId);
  }
}

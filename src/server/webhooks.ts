import { createHmac } from 'node:crypto';
import { isAppError } from '../core/errors.js';
import type { JobRecord } from '../core/types.js';
import type { Db } from '../jobs/db.js';
import type { FetchPort } from '../net/fetch.js';
import { parseRetryAfter } from '../net/retry.js';
import { randomId } from './ids.js';

/**
 * Job webhooks (docs/api.md) in the Standard Webhooks scheme (docs/api.md):
 * on a terminal state the job record is POSTed to the request's `webhook_url` with
 * `webhook-id` (stable across retries), `webhook-timestamp` (Unix seconds) and
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed by the tenant's
 * `whsec_` secret. Deliveries are stored, so retries survive a restart.
 */

/** Standard Webhooks' example schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h. */
export const DEFAULT_BACKOFF_MS = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000];

export function signWebhook(secret: string, messageId: string, timestampS: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestampS}.${body}`).digest('base64')}`;
}

export type DeliveryState = 'waiting' | 'pending' | 'delivered' | 'failed' | 'disabled';

export interface DeliveryRow {
  job_id: string;
  tenant: string;
  url: string;
  message_id: string;
  state: DeliveryState;
  payload: string | null;
  attempts: number;
  next_attempt_at: number | null;
  last_status: number | null;
  last_error: string | null;
}

export class WebhookStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  /** Remembers where a job's terminal state must be sent (at submission). */
  register(jobId: string, tenant: string, url: string): void {
    const now = this.now();
    this.db
      .prepare(
        `INSERT INTO server_webhooks (job_id, tenant, url, message_id, state, created_at, updated_at)
         VALUES (?, ?, ?, ?, 'waiting', ?, ?) ON CONFLICT(job_id) DO NOTHING`,
      )
      .run(jobId, tenant, url, randomId('msg', 24), now, now);
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

export interface SendResult {
  status: number;
  retryAfterS: number | null;
}

/** POSTs one signed delivery; throws on a network failure or a refused address. */
export type WebhookSender = (url: string, headers: Record<string, string>, body: string) => Promise<SendResult>;

/**
 * Webhook POSTs go through the same guarded client as every server-side fetch (public addresses
 * only, checked at connection time); a redirect is a failed delivery, as Standard Webhooks says.
 */
export function webhookSender(fetch: FetchPort): WebhookSender {
  return async (url, headers, body) => {
    const result = await fetch(url, {
      method: 'POST',
      headers,
      body,
      maxRedirects: 0,
      retries: 0,
      timeoutMs: 15_000,
      totalTimeoutMs: 30_000,
      maxBytes: 64 * 1024,
    });
    return { status: result.status, retryAfterS: parseRetryAfter(result.headers['retry-after']) };
  };
}

export interface WebhookDispatcherOptions {
  store: WebhookStore;
  secretFor: (tenant: string) => string | null;
  send: WebhookSender;
  backoffMs?: number[];
  /** How often due deliveries are looked for (default 1 s). */
  pollMs?: number;
  now?: () => number;
  onError?: (message: string, fields: Record<string, unknown>) => void;
  /** Deliveries in flight at once, all tenants (default 16). */
  concurrency?: number;
  /** Deliveries in flight at once for one tenant (default 4): one tenant's slow receivers never hold every slot. */
  perTenantConcurrency?: number;
}

export function webhookPayload(job: JobRecord, now: number): string {
  return JSON.stringify({ type: `job.${job.state}`, timestamp: new Date(now).toISOString(), data: job });
}

/**
 * Sends due deliveries concurrently (docs/security.md): at most `concurrency` at once, at most
 * `perTenantConcurrency` per tenant, so a slow or hostile receiver (up to its 15 s timeout) only
 * ever delays deliveries to itself, never another tenant's.
 */
export class WebhookDispatcher {
  private timer: NodeJS.Timeout | null = null;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly perTenant = new Map<string, number>();
  private readonly backoffMs: number[];
  private readonly now: () => number;
  private readonly concurrency: number;
  private readonly perTenantConcurrency: number;

  constructor(private readonly options: WebhookDispatcherOptions) {
    this.backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
    this.now = options.now ?? Date.now;
    this.concurrency = options.concurrency ?? 16;
    this.perTenantConcurrency = options.perTenantConcurrency ?? 4;
  }

  /** The JobManager's terminal listener: queue the job's delivery and send it at once. */
  onTerminal(job: JobRecord): void {
    if (this.options.store.enqueue(job.job_id, webhookPayload(job, this.now()))) void this.tick();
  }

  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => void this.tick(), this.options.pollMs ?? 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await Promise.all(this.inFlight.values());
  }

  /**
   * Starts every due delivery there is a slot for; resolves when the deliveries it started (and
   * those already in flight) have finished. A finished delivery frees its slot and looks again.
   */
  tick(): Promise<void> {
    const slots = this.concurrency - this.inFlight.size;
    if (slots > 0) {
      for (const row of this.options.store.due(this.concurrency * 4, this.perTenantConcurrency)) {
        if (this.inFlight.size >= this.concurrency) break;
        if (this.inFlight.has(row.job_id)) continue;
        const tenantCount = this.perTenant.get(row.tenant) ?? 0;
        if (tenantCount >= this.perTenantConcurrency) continue;
        this.perTenant.set(row.tenant, tenantCount + 1);
        const delivery = this.deliver(row)
          .catch((error: unknown) => this.options.onError?.('webhook delivery crashed', { job_id: row.job_id, error: String(error) }))
          .finally(() => {
            this.inFlight.delete(row.job_id);
            const left = (this.perTenant.get(row.tenant) ?? 1) - 1;
            if (left === 0) this.perTenant.delete(row.tenant);
            else this.perTenant.set(row.tenant, left);
            void this.tick();
          });
        this.inFlight.set(row.job_id, delivery);
      }
    }
    return Promise.all(this.inFlight.values()).then(() => undefined);
  }

  private async deliver(row: DeliveryRow): Promise<void> {
    const secret = this.options.secretFor(row.tenant);
    const body = row.payload ?? '{}';
    const timestamp = Math.floor(this.now() / 1000);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'immoreel-webhooks/1.0',
      'webhook-id': row.message_id,
      'webhook-timestamp': String(timestamp),
    };
    if (secret !== null) headers['webhook-signature'] = signWebhook(secret, row.message_id, timestamp, body);
    let status: number | null = null;
    let error: string | null = null;
    let retryAfterS: number | null = null;
    try {
      const result = await this.options.send(row.url, headers, body);
      status = result.status;
      retryAfterS = result.retryAfterS;
    } catch (failure) {
      error = failure instanceof Error ? failure.message : String(failure);
      // The address guard refused the target: no retry can change that, so it fails now, with why.
      if (isAppError(failure) && failure.reason === 'forbidden_address') {
        this.options.store.record(row.job_id, { state: 'failed', status: null, error, nextAttemptAt: null });
        this.options.onError?.('webhook delivery refused', { job_id: row.job_id, reason: error });
        return;
      }
    }
    const attempt = row.attempts + 1;
    if (status !== null && status >= 200 && status < 300) {
      this.options.store.record(row.job_id, { state: 'delivered', status, error: null, nextAttemptAt: null });
      return;
    }
    // Standard Webhooks: a receiver answering 410 Gone asks us to stop.
    if (status === 410) {
      this.options.store.record(row.job_id, { state: 'disabled', status, error: null, nextAttemptAt: null });
      return;
    }
    const delay = this.backoffMs[attempt];
    if (delay === undefined) {
      this.options.store.record(row.job_id, { state: 'failed', status, error, nextAttemptAt: null });
      this.options.onError?.('webhook delivery abandoned', { job_id: row.job_id, attempts: attempt, status });
      return;
    }
    const wait = Math.max(delay, (retryAfterS ?? 0) * 1000);
    this.options.store.record(row.job_id, { state: 'pending', status, error, nextAttemptAt: this.now() + wait });
  }
}

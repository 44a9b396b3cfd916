import { createHmac } from 'node:crypto';
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
        .prepare(`UPDATE server_webhooks SET state = 'pending', payload = ?, next_attempt_at = ?, updated_at = ? WHERE job_id = ? AND state = 'waiting'`)
        .run(payload, now, now, jobId).changes > 0
    );
  }

  get(jobId: string): DeliveryRow | null {
    return (this.db.prepare('SELECT * FROM server_webhooks WHERE job_id = ?').get(jobId) as DeliveryRow | undefined) ?? null;
  }

  waitingJobIds(): string[] {
    return (this.db.prepare(`SELECT job_id FROM server_webhooks WHERE state = 'waiting'`).all() as { job_id: string }[]).map((r) => r.job_id);
  }

  due(limit = 20): DeliveryRow[] {
    return this.db
      .prepare(`SELECT * FROM server_webhooks WHERE state = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?`)
      .all(this.now(), limit) as DeliveryRow[];
  }

  record(jobId: string, outcome: { state: DeliveryState; status: number | null; error: string | null; nextAttemptAt: number | null }): void {
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
}

export function webhookPayload(job: JobRecord, now: number): string {
  return JSON.stringify({ type: `job.${job.state}`, timestamp: new Date(now).toISOString(), data: job });
}

export class WebhookDispatcher {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private readonly backoffMs: number[];
  private readonly now: () => number;

  constructor(private readonly options: WebhookDispatcherOptions) {
    this.backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
    this.now = options.now ?? Date.now;
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
    await this.running;
  }

  /** Sends every due delivery once; concurrent calls share one pass. */
  tick(): Promise<void> {
    if (this.running !== null) return this.running;
    const pass = (async () => {
      for (const row of this.options.store.due()) await this.deliver(row);
    })();
    // Cleared in a later microtask: a pass with nothing due finishes before this assignment.
    this.running = pass.finally(() => {
      this.running = null;
    });
    return this.running;
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

import { redactUrlQueries } from '../core/redact.js';
import { createHmac } from 'node:crypto';
import { isAppError } from '../core/errors.js';
import type { JobRecord } from '../core/types.js';
import type { FetchPort } from '../net/fetch.js';
import { parseRetryAfter } from '../net/retry.js';
import type { WebhookRecords } from '../records/types.js';
import type { DeliveryRow } from '../records/webhook-outbox.js';

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

export type { DeliveryRow, DeliveryState } from '../records/webhook-outbox.js';

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
  /** The outbox: SQLite or PostgreSQL, shared by every node that sends (docs/scaling.md). */
  store: Pick<WebhookRecords, 'enqueue' | 'claimDue' | 'record'>;
  secretFor: (tenant: string) => Promise<string | null>;
  send: WebhookSender;
  backoffMs?: number[];
  /** How often due deliveries are looked for (default 1 s). */
  pollMs?: number;
  /**
   * How long a claimed delivery stays this node's before another node may send it (default 2 min):
   * longer than one send (30 s at most) plus its wait for a free slot.
   */
  leaseMs?: number;
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
  /** Claimed deliveries waiting for a slot of their tenant (they stay leased to this node meanwhile). */
  private backlog: DeliveryRow[] = [];
  private claiming: Promise<void> | null = null;
  private claimAgain = false;
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

  /** A job ended: queue its delivery (if it asked for one) and send it at once. */
  async onTerminal(job: JobRecord): Promise<void> {
    // Not awaited: the job layer must not wait on a delivery. tick never rejects (claim and each
    // delivery report their own failures through onError).
    if (await this.options.store.enqueue(job.job_id, webhookPayload(job, this.now()))) void this.tick();
  }

  start(): void {
    if (this.timer !== null) return;
    // tick never rejects: claim and each delivery report their own failures through onError.
    this.timer = setInterval(() => void this.tick(), this.options.pollMs ?? 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.claiming;
    // Unsent claimed deliveries are due again for any node when their lease ends.
    this.backlog = [];
    await Promise.all(this.inFlight.values());
  }

  /**
   * Claims due deliveries there are slots for and starts them; resolves when the deliveries it
   * started (and those already in flight) have finished. A finished delivery frees its slot and
   * looks again.
   */
  async tick(): Promise<void> {
    await this.claim();
    await Promise.all(this.inFlight.values());
  }

  /** One claim at a time per node; a call meanwhile makes it claim once more when it is done. */
  private claim(): Promise<void> {
    if (this.claiming !== null) {
      this.claimAgain = true;
      return this.claiming;
    }
    this.claiming = (async () => {
      do {
        this.claimAgain = false;
        const slots = this.concurrency - this.inFlight.size - this.backlog.length;
        if (slots <= 0) break;
        try {
          const rows = await this.options.store.claimDue(slots, this.options.leaseMs ?? 120_000, this.perTenantConcurrency);
          const held = new Set([...this.inFlight.keys(), ...this.backlog.map((row) => row.job_id)]);
          this.backlog.push(...rows.filter((row) => !held.has(row.job_id)));
        } catch (error) {
          // The database is away: the next poll tries again; nothing is lost.
          this.options.onError?.('webhook outbox unavailable', { error: String(error) });
          break;
        }
        this.startWaiting();
      } while (this.claimAgain);
    })().finally(() => {
      this.claiming = null;
    });
    return this.claiming;
  }

  /** Starts the claimed deliveries that have a slot, oldest first, within both concurrency limits. */
  private startWaiting(): void {
    const waiting: DeliveryRow[] = [];
    for (const row of this.backlog) {
      const tenantCount = this.perTenant.get(row.tenant) ?? 0;
      if (this.inFlight.size >= this.concurrency || tenantCount >= this.perTenantConcurrency) {
        waiting.push(row);
        continue;
      }
      this.perTenant.set(row.tenant, tenantCount + 1);
      const delivery = this.deliver(row)
        .catch((error: unknown) =>
          this.options.onError?.('webhook delivery crashed', { job_id: row.job_id, error: redactUrlQueries(String(error)) }),
        )
        .finally(() => {
          this.inFlight.delete(row.job_id);
          const left = (this.perTenant.get(row.tenant) ?? 1) - 1;
          if (left === 0) this.perTenant.delete(row.tenant);
          else this.perTenant.set(row.tenant, left);
          this.startWaiting();
          // claim never rejects (a store failure goes to onError); stop() awaits the one in progress.
          void this.claim();
        });
      this.inFlight.set(row.job_id, delivery);
    }
    this.backlog = waiting;
  }

  private async deliver(row: DeliveryRow): Promise<void> {
    const secret = await this.options.secretFor(row.tenant);
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
      // Logged and stored without the URL's query: it may hold the receiver's token.
      error = redactUrlQueries(failure instanceof Error ? failure.message : String(failure));
      // The address guard refused the target: no retry can change that, so it fails now, with why.
      if (isAppError(failure) && failure.reason === 'forbidden_address') {
        await this.options.store.record(row.job_id, { state: 'failed', status: null, error, nextAttemptAt: null });
        this.options.onError?.('webhook delivery refused', { job_id: row.job_id, reason: error });
        return;
      }
    }
    const attempt = row.attempts + 1;
    if (status !== null && status >= 200 && status < 300) {
      await this.options.store.record(row.job_id, { state: 'delivered', status, error: null, nextAttemptAt: null });
      return;
    }
    // Standard Webhooks: a receiver answering 410 Gone asks us to stop.
    if (status === 410) {
      await this.options.store.record(row.job_id, { state: 'disabled', status, error: null, nextAttemptAt: null });
      return;
    }
    const delay = this.backoffMs[attempt];
    if (delay === undefined) {
      await this.options.store.record(row.job_id, { state: 'failed', status, error, nextAttemptAt: null });
      this.options.onError?.('webhook delivery abandoned', { job_id: row.job_id, attempts: attempt, status });
      return;
    }
    const wait = Math.max(delay, (retryAfterS ?? 0) * 1000);
    await this.options.store.record(row.job_id, { state: 'pending', status, error, nextAttemptAt: this.now() + wait });
  }
}

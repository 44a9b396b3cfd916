import type { JobRecord } from '../core/types.js';
import type { FetchPort } from '../net/fetch.js';
import type { RecordStore } from '../records/types.js';
import { RepeatedLogLimiter } from '../core/log-throttle.js';
import { webhookSender, WebhookDispatcher, type WebhookSender } from './webhook-sender.js';

/**
 * What must happen after a job ends, in whichever process ended it (an API node or a worker,
 * docs/scaling.md "Webhooks"): its webhook payload goes into the outbox in the database. (Its
 * quota refund, when it has one, was written by the transaction that ended it: src/records/job-rows.ts
 * `refundsCharge`.) The same object runs the delivery loop over the outbox, so whichever node sees a
 * delivery due sends it — at least once, signed as docs/api.md "Webhooks" says.
 */

export interface JobEndDutiesOptions {
  records: Pick<RecordStore, 'jobs' | 'usage' | 'webhooks' | 'keys'>;
  /** The guarded fetch every server-side request goes through. */
  fetch: FetchPort;
  log?: (message: string, fields: Record<string, unknown>) => void;
  /** Retry schedule of deliveries (default: Standard Webhooks' example schedule). */
  backoffMs?: number[];
  /** How often due deliveries are looked for (default 1 s). */
  pollMs?: number;
  /**
   * How often deliveries still `waiting` are checked against their job (default 30 s): a job that
   * ended while no process ran these duties (a crash) still gets its webhook.
   */
  sweepMs?: number;
  /** Test seam: sends one signed delivery (default: POST through `fetch`). */
  send?: WebhookSender;
  now?: () => number;
  /** At most one line per this interval for a failure that repeats on every poll (default 60 s). */
  repeatIntervalMs?: number;
}

/**
 * Failures of the outbox as a whole, met by every poll while the database is down: logged once,
 * then summarised once per interval (docs/operations.md "Logs"). Failures of one job or one
 * delivery are each logged as they happen.
 */
const REPEATING = new Set(['webhook outbox unavailable', 'webhook sweep failed']);

export interface JobEndDuties {
  onTerminal(job: JobRecord, tenant: string): Promise<void>;
  /** Stops polling and waits for the deliveries in flight. */
  stop(): Promise<void>;
}

const TERMINAL: ReadonlySet<string> = new Set(['succeeded', 'failed', 'canceled']);

export function startJobEndDuties(options: JobEndDutiesOptions): JobEndDuties {
  const { records } = options;
  const write = options.log ?? (() => undefined);
  const repeats = new RepeatedLogLimiter(options.repeatIntervalMs ?? 60_000, options.now);
  const log = (message: string, fields: Record<string, unknown>): void => {
    if (REPEATING.has(message)) repeats.log(message, write, message, fields);
    else write(message, fields);
  };
  const dispatcher = new WebhookDispatcher({
    store: records.webhooks,
    secretFor: (tenant) => records.keys.webhookSecret(tenant),
    send: options.send ?? webhookSender(options.fetch),
    backoffMs: options.backoffMs,
    pollMs: options.pollMs,
    now: options.now,
    onError: log,
  });

  async function onTerminal(job: JobRecord): Promise<void> {
    await dispatcher.onTerminal(job);
  }

  /** Deliveries still `waiting` whose job has ended: their duties were never run (or ran too early). */
  async function sweep(): Promise<void> {
    for (const jobId of await records.webhooks.waitingJobIds()) {
      const row = await records.jobs.row(jobId);
      if (row !== undefined && TERMINAL.has(row.state)) await onTerminal(records.jobs.toRecord(row));
    }
  }

  let sweeping: Promise<void> = Promise.resolve();
  const runSweep = (): void => {
    sweeping = sweeping.then(sweep).catch((error: unknown) => log('webhook sweep failed', { error: String(error) }));
  };
  runSweep();
  const sweepTimer = setInterval(runSweep, options.sweepMs ?? 30_000);
  sweepTimer.unref();
  dispatcher.start();

  return {
    onTerminal: async (job) => {
      try {
        await onTerminal(job);
      } catch (error) {
        // The sweep retries it: the delivery row stays `waiting` until the enqueue succeeds.
        log('job-end duties failed', { job_id: job.job_id, error: String(error) });
      }
    },
    async stop() {
      clearInterval(sweepTimer);
      await sweeping;
      await dispatcher.stop();
    },
  };
}

import { createHash } from 'node:crypto';
import PgBoss from 'pg-boss';
import type { JobState } from '../../core/types.js';

import type { DeliveryRoom, JobQueue, JobRow, NewJob, QueueMessage, QueueSettings } from '../job-rows.js';
import { submitJob } from './insert-job.js';
import { checkOut, redactUrl, withTransaction, type Client, type Pool } from './connection.js';

/**
 * Render dispatch with pg-boss 10 (docs/scaling.md "Dispatch"): the job row and its queue entry
 * are written in one transaction, pg-boss hands each entry to exactly one worker (`SKIP LOCKED`),
 * retries a failed or expired attempt with backoff, and moves an entry that used up its retries
 * to a dead-letter queue.
 *
 * pg-boss 10 has no worker heartbeat: an entry whose worker died (SIGKILL, lost machine) becomes
 * available again when `expireInSeconds` passes, so that value is the longest a render may take,
 * and the delay before a dead worker's job runs elsewhere.
 */

export const RENDER_QUEUE = 'immoreel-render';
export const RENDER_DEAD_LETTER = 'immoreel-render-dead';

/** The advisory lock nodes take while creating the queues ("imrq"; the migrations use "imrl"). */
const QUEUE_SETUP_LOCK_KEY = 0x696d7271;

export interface RenderMessage {
  jobId: string;
  tenant: string;
}

export interface DispatchOptions {
  /** Retries after the first attempt (so `retryLimit + 1` tries in all; default 2 → 3 tries, as in SQLite mode). */
  retryLimit?: number;
  /** Seconds before the first retry; doubles on each next one (default 10). */
  retryDelaySeconds?: number;
  /** The longest one render attempt may run before pg-boss hands it to another worker (default 900). */
  expireInSeconds?: number;
  /** Connections pg-boss itself keeps (its polling and maintenance; default 4). */
  max?: number;
  /** Run pg-boss maintenance (expiry, retention) on this node (default true; safe on several nodes). */
  supervise?: boolean;
  /** How often maintenance looks for expired entries (default 60 s; adds to the recovery delay of a dead worker's job). */
  maintenanceIntervalSeconds?: number;
  /** Queue names, for tests that need isolation. */
  queue?: string;
  deadLetter?: string;
  onError?: (error: Error) => void;
  /** The clock of stored idempotent answers (default `Date.now`). */
  now?: () => number;
}

export interface SubmitOptions {
  /**
   * Admission under a per-tenant lock, before the insert: `count(states)` counts the tenant's jobs
   * in those states exactly, across all nodes (no two submissions of one tenant interleave here).
   * Throw to refuse — the limit of concurrent renders per tenant holds for the whole service.
   */
  admit?: (count: (states: readonly JobState[]) => Promise<number>) => Promise<void>;
  /**
   * More writes that belong to the same submission (the webhook outbox row, the idempotency
   * record): they commit with the job and its queue entry, or none of them does.
   */
  alsoInTransaction?: (client: Client) => Promise<void>;
}

/** The queue entry's id, derived from the job id: one job can never have two entries (pg-boss ignores a second insert of an id). */
export function queueIdOf(jobId: string): string {
  const h = createHash('sha256').update(`immoreel:${jobId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** pg-boss's executor over one of our transaction's connections. */
function executorOf(client: Client): PgBoss.Db {
  return {
    // pg-boss types its values as any[]; they pass straight to node-postgres.
    executeSql: async (text: string, values: unknown[]) => client.query(text, values),
  };
}

/** pg-boss's own schema (its default): the fair fetch reads its job table. */
const BOSS_SCHEMA = 'pgboss';

/**
 * The fair fetch (docs/scaling.md "Fairness"): pg-boss's own fetch (state, start_after,
 * `FOR UPDATE SKIP LOCKED`, the same update to `active`), but ordered first by how many jobs the
 * entry's tenant has running across the whole service, and never of a tenant this worker already
 * holds its share of. A tenant with many slow jobs running is served after one with none.
 */
const FAIR_FETCH = `
  WITH running AS (
    SELECT tenant, COUNT(*) AS n FROM jobs WHERE state = 'running' GROUP BY tenant
  ), next AS (
    SELECT j.id FROM ${BOSS_SCHEMA}.job j
      LEFT JOIN running r ON r.tenant = j.data->>'tenant'
    WHERE j.name = $1 AND j.state < 'active' AND j.start_after < now()
      AND NOT (COALESCE(j.data->>'tenant', '') = ANY($2::text[]))
    ORDER BY COALESCE(r.n, 0), j.priority DESC, j.created_on, j.id
    LIMIT 1
    FOR UPDATE OF j SKIP LOCKED
  )
  UPDATE ${BOSS_SCHEMA}.job j SET
    state = 'active',
    started_on = now(),
    retry_count = CASE WHEN j.started_on IS NOT NULL THEN j.retry_count + 1 ELSE j.retry_count END
  FROM next
  WHERE j.name = $1 AND j.id = next.id
  RETURNING j.id, j.data`;

export class RenderDispatch {
  private fair: { stop: () => void; inFlight: Set<Promise<void>> } | null = null;

  private constructor(
    private readonly boss: PgBoss,
    private readonly pool: Pool,
    readonly queue: string,
    readonly deadLetter: string,
    private readonly options: DispatchOptions,
  ) {}

  /** Starts pg-boss (installing or migrating its own schema under its own lock) and creates the queues. */
  static async start(url: string, pool: Pool, options: DispatchOptions = {}): Promise<RenderDispatch> {
    const boss = new PgBoss({
      connectionString: url,
      max: options.max ?? 4,
      application_name: 'immoreel-dispatch',
      supervise: options.supervise ?? true,
      maintenanceIntervalSeconds: options.maintenanceIntervalSeconds ?? 60,
      schedule: false,
    });
    boss.on('error', options.onError ?? (() => undefined));
    try {
      await boss.start();
    } catch (error) {
      throw new Error(`pg-boss could not start on ${redactUrl(url)}: ${(error as Error).message}`, { cause: error });
    }
    const queue = options.queue ?? RENDER_QUEUE;
    const deadLetter = options.deadLetter ?? RENDER_DEAD_LETTER;
    // pg-boss 10 creates a queue as a partition of its job table: two nodes creating the same
    // queue at once deadlock in PostgreSQL. Nodes starting together take turns under an advisory
    // lock, and a queue that exists is left as the first node made it.
    const { client, release } = await checkOut(pool);
    let unfit: unknown;
    try {
      await client.query('SELECT pg_advisory_lock($1)', [QUEUE_SETUP_LOCK_KEY]);
      if ((await boss.getQueue(deadLetter)) === null) await boss.createQueue(deadLetter, { name: deadLetter, policy: 'standard' });
      if ((await boss.getQueue(queue)) === null) {
        await boss.createQueue(queue, {
          name: queue,
          policy: 'standard',
          retryLimit: options.retryLimit ?? 2,
          retryDelay: options.retryDelaySeconds ?? 10,
          retryBackoff: true,
          expireInSeconds: options.expireInSeconds ?? 900,
          deadLetter,
        });
      }
    } catch (error) {
      // Ignored: the set-up error rethrown next is the one to report; stopping is clean-up.
      await boss.stop({ graceful: false }).catch(() => undefined);
      throw error;
    } finally {
      // A session lock: a connection that could not unlock it is closed, not pooled, which releases it.
      await client.query('SELECT pg_advisory_unlock($1)', [QUEUE_SETUP_LOCK_KEY]).catch((unlockError: unknown) => {
        unfit = unlockError;
      });
      release(unfit);
    }
    return new RenderDispatch(boss, pool, queue, deadLetter, options);
  }

  /**
   * Creates the job row and its queue entry in one transaction, with its charge, webhook row and
   * stored idempotent answer (`submitJob`): if anything fails after the insert (the queue write,
   * `alsoInTransaction`, the commit), none of them exists. A key used already gives back its job.
   */
  submit(job: NewJob, options: SubmitOptions = {}): Promise<JobRow> {
    return withTransaction(this.pool, async (client) => {
      if (options.admit !== undefined) {
        await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`tenant-jobs:${job.tenant}`]);
        await options.admit(async (states) => {
          const { rows } = await client.query<{ n: number }>(
            'SELECT COUNT(*) AS n FROM jobs WHERE tenant = $1 AND state = ANY($2::text[])',
            [job.tenant, [...states]],
          );
          return rows[0]!.n;
        });
      }
      const row = await submitJob(client, job, (this.options.now ?? Date.now)(), async (inserted) => {
        const message: RenderMessage = { jobId: inserted.job_id, tenant: inserted.tenant };
        const id = await this.boss.send(this.queue, message as unknown as object, {
          id: queueIdOf(inserted.job_id),
          db: executorOf(client),
        });
        if (id === null) throw new Error(`the render queue ${this.queue} refused job ${inserted.job_id} (does the queue exist?)`);
      });
      if (options.alsoInTransaction !== undefined) await options.alsoInTransaction(client);
      return row;
    });
  }

  /**
   * Runs `handler` for each dispatched job, `concurrency` at a time on this node. A handler that
   * resolves completes the entry; one that throws fails the attempt, which pg-boss retries.
   */
  async work(concurrency: number, handler: (message: RenderMessage) => Promise<void>, pollingIntervalSeconds = 2): Promise<string[]> {
    const ids: string[] = [];
    // pg-boss 10 runs one fetch loop per `work` call: several loops give several renders at once.
    for (let i = 0; i < concurrency; i += 1) {
      ids.push(
        await this.boss.work<RenderMessage>(this.queue, { batchSize: 1, pollingIntervalSeconds }, async (jobs) => {
          for (const job of jobs) await handler(job.data);
        }),
      );
    }
    return ids;
  }

  /**
   * Takes entries one by one while `room()` has room, with the fair fetch above, and runs `handler`
   * for each (not awaited: the next entry is taken while it runs). A handler that resolves completes
   * the entry; one that throws fails the attempt, which pg-boss retries. Expiry and retries stay
   * pg-boss's: the entry is `active` exactly as pg-boss's own fetch leaves it.
   */
  workFair(room: () => DeliveryRoom, handler: (message: RenderMessage) => Promise<void>, pollingIntervalMs = 1000): void {
    if (this.fair !== null) return;
    const inFlight = new Set<Promise<void>>();
    let stopped = false;
    let wake: (() => void) | null = null;
    const kick = (): void => {
      wake?.();
    };
    const run = (id: string, message: RenderMessage): void => {
      const done = (async () => {
        try {
          await handler(message);
          await this.boss.complete(this.queue, id);
        } catch (error) {
          await this.boss
            .fail(this.queue, id, { message: (error as Error).message })
            .catch((failure: unknown) => this.options.onError?.(failure as Error));
        }
      })().finally(() => {
        inFlight.delete(done);
        kick();
      });
      inFlight.add(done);
    };
    const loop = async (): Promise<void> => {
      while (!stopped) {
        let took = false;
        try {
          const { free, fullTenants } = room();
          if (free > 0) {
            const { rows } = await this.pool.query<{ id: string; data: RenderMessage }>(FAIR_FETCH, [this.queue, [...fullTenants]]);
            const entry = rows[0];
            if (entry !== undefined && !stopped) {
              took = true;
              run(entry.id, entry.data);
            } else if (entry !== undefined) {
              // Stopped while fetching: give the entry back for another worker, without waiting for its expiry.
              await this.boss.fail(this.queue, entry.id, { message: 'this worker is stopping' });
            }
          }
        } catch (error) {
          // A lost database connection: the next poll tries again.
          this.options.onError?.(error as Error);
        }
        if (!took && !stopped) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, pollingIntervalMs);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          wake = null;
        }
      }
    };
    this.fair = {
      stop: () => {
        stopped = true;
        kick();
      },
      inFlight,
    };
    void loop();
  }

  /**
   * Consumes the dead-letter queue: entries whose every attempt failed or expired. `handler`
   * should end the job (`failExhausted`) so the record says why, and its webhook goes out.
   */
  async workDeadLetters(handler: (message: RenderMessage) => Promise<void>, pollingIntervalSeconds = 2): Promise<string> {
    return this.boss.work<RenderMessage>(this.deadLetter, { batchSize: 1, pollingIntervalSeconds }, async (jobs) => {
      for (const job of jobs) await handler(job.data);
    });
  }

  /** Withdraws a queued job's entry (a canceled job must not start). */
  async cancel(jobId: string): Promise<void> {
    await this.boss.cancel(this.queue, queueIdOf(jobId));
  }

  /** The queue entry of a job, with pg-boss's state (`created`, `active`, `retry`, `completed`, `failed`, …). */
  async entryOf(jobId: string): Promise<{ state: string; retryCount: number; data: RenderMessage } | null> {
    const entry = await this.boss.getJobById<RenderMessage>(this.queue, queueIdOf(jobId), { includeArchive: true });
    return entry === null ? null : { state: entry.state, retryCount: entry.retryCount, data: entry.data };
  }

  get settings(): Readonly<DispatchOptions> {
    return this.options;
  }

  /** Fails the current attempt of a job's entry now: pg-boss retries it (after `retryDelaySeconds`) or dead-letters it. */
  async abandon(jobId: string, reason: string): Promise<void> {
    await this.boss.fail(this.queue, queueIdOf(jobId), { message: reason });
  }

  /** Stops this node's fetch loops (handlers already running go on). */
  async stopWork(): Promise<void> {
    this.fair?.stop();
    await this.boss.offWork(this.queue);
    await this.boss.offWork(this.deadLetter);
  }

  /** Stops fetching; waits up to `timeoutMs` for running handlers. */
  async stop(timeoutMs = 30_000): Promise<void> {
    this.fair?.stop();
    const started = Date.now();
    if (this.fair !== null && this.fair.inFlight.size > 0) {
      await Promise.race([Promise.allSettled([...this.fair.inFlight]), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
    }
    await this.boss.stop({ graceful: true, wait: true, timeout: Math.max(1000, timeoutMs - (Date.now() - started)) });
  }
}

/**
 * The job layer's queue port (src/records/job-rows.ts) over pg-boss: what `immoreel worker` and the
 * API nodes use with PostgreSQL. Started lazily by the job records, once per process.
 */
export function renderQueueOf(dispatch: RenderDispatch, settings: QueueSettings): JobQueue {
  const poll = 1;
  return {
    settings,
    submit: (job: NewJob): Promise<JobRow> => dispatch.submit(job),
    work(room, handler) {
      dispatch.workFair(
        room,
        (message: RenderMessage) => handler({ jobId: message.jobId, tenant: message.tenant } satisfies QueueMessage),
        poll * 1000,
      );
      return Promise.resolve();
    },
    async workDeadLetters(handler) {
      await dispatch.workDeadLetters((message) => handler({ jobId: message.jobId }), poll);
    },
    abandon: (jobId, reason) => dispatch.abandon(jobId, reason),
    cancel: (jobId) => dispatch.cancel(jobId),
    stopWork: () => dispatch.stopWork(),
    stop: (timeoutMs) => dispatch.stop(timeoutMs),
  };
}

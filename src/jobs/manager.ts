import { readdir, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FfmpegSettings, JobTimingSettings } from '../config/config-schema.js';
import { AppError, badRequest } from '../core/errors.js';
import type { Metrics } from '../core/metrics.js';
import { guardedFetch, openFetch, type FetchPort } from '../net/fetch.js';
import type { JobList, JobRecord, JobState, ListJobsOptions, VideoFormat } from '../core/types.js';
import type { RenderContext, ValidRenderRequest } from '../render/types.js';
import type { BlobStore } from '../blobs/types.js';
import { claimDelivered, failExhausted } from './delivery.js';
import { rideOut } from './ride-out.js';
import { DEFAULT_FETCH_BUDGET_MS } from './fetch-stage.js';
import { defaultEngine, type RenderEngine } from './engine.js';
import { hashInputs } from '../core/hash.js';
import { assertJobId, newJobId } from '../core/job-ids.js';
import { defaultConcurrency, JobFiles, MAX_CONCURRENCY, recoverAbandoned, warnOnStderr, WorkerPool, type ProblemReporter } from './pool.js';
import type { CountUnit, JobQueue, JobRecords, JobSubmitOptions, QueueSettings } from '../records/job-rows.js';
import { isTerminal } from '../core/job-state.js';
import type { WorkerStatus } from './worker-health.js';
import { MAX_ATTEMPTS, rowFormats, type JobRow, type NewJob } from '../records/job-rows.js';

export type { RenderEngine } from './engine.js';

export interface JobManagerOptions {
  /** Local scratch: each render's work directory is `jobs/<id>/` below it. */
  dataDir: string;
  /** The job records (SQLite or PostgreSQL), or a whole RecordStore (its `jobs`); the caller opens and closes them. */
  records: JobRecords | { jobs: JobRecords };
  /** Where verified videos are kept (docs/scaling.md "Blob store"); the caller opens and closes it. */
  blobs: BlobStore;
  /** Runs after the manager has closed: the caller's way to close the stores it handed over with it. */
  closeWith?: () => Promise<void>;
  /** Where ffmpeg and ffprobe are (docs/configuration.md), for the renders of this process. */
  ffmpeg: FfmpegSettings;
  /** The lease and queue timings of the configuration (`jobTimings`); default 60 s, 900 s, 10 s. */
  timings?: JobTimingSettings;
  /** The dispatching queue's timings (PostgreSQL), over `timings`. */
  queue?: Partial<QueueSettings>;
  /** MAD per EUR for the analyses of this process's renders (default: the analysis's own). */
  eurToMad?: number;
  /** Renders at once in this process: 1–30, default min(30, logical cores). */
  concurrency?: number;
  engine?: RenderEngine;
  /** true (default): this process renders any queued job. false: only jobs asked for with `work`. */
  runWorkers?: boolean;
  /** Resolves `asset:<id>` for a tenant (server mode) to a local file; remote bytes go into `scratchDir`. */
  resolveAsset?: (tenant: string, assetId: string, scratchDir: string) => Promise<string>;
  /** Jobs submitted through this manager may read local files (local mode only). */
  allowLocalFiles?: boolean;
  /**
   * The network of server jobs (those without local files): default guarded, refusing loopback too.
   * The server passes its own port, which tests open to loopback fixture servers.
   */
  guardedFetch?: FetchPort;
  /** The network of local-mode jobs (they may read local files): default `openFetch`, without a proxy. */
  openFetch?: FetchPort;
  /** How renders analyse their listing input (the server: its worker-thread pool); default in-process. */
  analyze?: RenderContext['analyze'];
  /** e.g. '/api/v1' → links.self '/api/v1/jobs/ID'; absent → local file links. */
  linkBase?: string;
  /** Wall-clock limit of one render (default 30 min). */
  watchdogMs?: number;
  /** How long a worker's claim on a job lasts without a heartbeat (default 60 s). */
  leaseMs?: number;
  /** How often the pool looks for work, cancels and dead workers (default 250 ms). */
  pollMs?: number;
  /** The total time a job may spend fetching its inputs (default: `timings.fetchBudgetSeconds`, else 120 s). */
  fetchBudgetMs?: number;
  /**
   * Where failures the job layer survives are reported (docs/jobs.md "Failures the job layer
   * survives"): the server's log, the worker's stderr. Default: a process warning on stderr.
   */
  report?: ProblemReporter;
  /** What this process's renders tell the operator's metrics (docs/operations.md "Metrics"); default none. */
  metrics?: Metrics;
  /** How long an outage is waited out per write before a job fails (default 90 s; docs/operations.md "Outages"). */
  outageBudgetMs?: number;
}

export const DEFAULT_WATCHDOG_MS = 30 * 60_000;
const DEFAULT_POLL_MS = 250;

/** Timings a deployment may tune (docs/jobs.md "Crash safety", docs/scaling.md "Failure modes"). */
export interface JobTimings {
  /** A worker's claim on a running job lasts this long without a renewal (renewed every lease/4). */
  leaseMs: number;
  queue: QueueSettings;
}

/** The timings of a configuration without IMMOREEL_*_SECONDS (docs/configuration.md "Jobs"). */
export const DEFAULT_JOB_TIMINGS: JobTimingSettings = { leaseSeconds: 60, renderExpirySeconds: 900, retryDelaySeconds: 10 };

/**
 * The lease and queue timings of a configuration (checked by `loadConfig`): `IMMOREEL_LEASE_SECONDS`,
 * `IMMOREEL_RENDER_EXPIRY_SECONDS` (pg-boss `expireInSeconds`) and `IMMOREEL_RETRY_DELAY_SECONDS`
 * (first retry delay, doubling).
 */
export function jobTimings(settings: JobTimingSettings = DEFAULT_JOB_TIMINGS): JobTimings {
  return {
    leaseMs: settings.leaseSeconds * 1000,
    queue: {
      expireInSeconds: settings.renderExpirySeconds,
      retryDelaySeconds: settings.retryDelaySeconds,
      attempts: MAX_ATTEMPTS,
    },
  };
}

export interface PurgeSummary {
  jobs: number;
  bytes: number;
}

/** Checks a --concurrency value (1–30). */
export function parseConcurrency(value: unknown): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_CONCURRENCY) {
    throw badRequest(`concurrency must be a whole number from 1 to ${MAX_CONCURRENCY}, not ${JSON.stringify(value)}.`, {
      reason: 'invalid_field',
      details: [{ field: 'concurrency', message: `must be an integer from 1 to ${MAX_CONCURRENCY}` }],
    });
  }
  return n;
}

async function sizeOf(path: string): Promise<number> {
  const info = await stat(path).catch(() => null);
  if (info === null) return 0;
  if (!info.isDirectory()) return info.size;
  let total = 0;
  for (const entry of await readdir(path)) total += await sizeOf(join(path, entry));
  return total;
}

/**
 * Jobs (docs/jobs.md): the job records (SQLite or PostgreSQL), the blob store of their videos,
 * and this process's worker pool. The local service, `immoreel worker` and the HTTP server are
 * all built on it. With a dispatching queue (PostgreSQL + pg-boss) submissions go through the
 * queue and this process renders what the queue delivers; otherwise its pool claims rows itself.
 */
export class JobManager {
  private readonly listeners: ((job: JobRecord, tenant: string) => void)[] = [];
  private closed = false;

  private constructor(
    readonly records: JobRecords,
    readonly files: JobFiles,
    private readonly pool: WorkerPool,
    private readonly queue: JobQueue | null,
    private readonly options: JobManagerOptions,
    private readonly closeOwned: () => Promise<void>,
  ) {}

  static async open(options: JobManagerOptions): Promise<JobManager> {
    const concurrency = options.concurrency === undefined ? defaultConcurrency() : parseConcurrency(options.concurrency);
    const timings = jobTimings(options.timings);
    const leaseMs = options.leaseMs ?? timings.leaseMs;
    const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    const owned: (() => Promise<void> | void)[] = [];
    const closeOwned = async (): Promise<void> => {
      for (const close of owned.splice(0).reverse()) await close();
    };
    try {
      const records = 'jobs' in options.records ? options.records.jobs : options.records;
      const blobs = options.blobs;
      if (options.closeWith !== undefined) owned.push(options.closeWith);
      const files = new JobFiles(join(options.dataDir, 'jobs'), blobs, pathToFileURL(resolve(options.dataDir)).href);
      const queueSettings: QueueSettings = { ...timings.queue, ...options.queue };
      const queue = records.openQueue === undefined ? null : await records.openQueue(queueSettings);
      if (queue !== null) owned.push(() => queue.stopWork());
      let manager: JobManager | null = null;
      const pool = new WorkerPool({
        records,
        files,
        queue,
        engine: options.engine ?? defaultEngine,
        concurrency,
        claimAny: options.runWorkers !== false,
        leaseMs,
        pollMs,
        watchdogMs: options.watchdogMs ?? DEFAULT_WATCHDOG_MS,
        resolveAsset: options.resolveAsset,
        guardedFetch: options.guardedFetch ?? guardedFetch(),
        openFetch: options.openFetch ?? openFetch,
        ffmpeg: options.ffmpeg,
        ...(options.eurToMad === undefined ? {} : { eurToMad: options.eurToMad }),
        analyze: options.analyze,
        onTerminal: (row) => manager?.emitTerminal(row),
        report: options.report,
        metrics: options.metrics,
        ...(options.outageBudgetMs === undefined ? {} : { outageBudgetMs: options.outageBudgetMs }),
        fetchBudgetMs: options.fetchBudgetMs ?? (options.timings?.fetchBudgetSeconds ?? DEFAULT_FETCH_BUDGET_MS / 1000) * 1000,
        ...(options.timings?.scratchMinFreeMb === undefined ? {} : { minFreeScratchBytes: options.timings.scratchMinFreeMb * 1_048_576 }),
      });
      manager = new JobManager(records, files, pool, queue, options, closeOwned);
      // Jobs left `running` by a crashed process go back to the queue before anything else happens.
      for (const row of await recoverAbandoned(records, files, queue, options.report, pool.lapsed)) manager.emitTerminal(row);
      pool.start();
      if (queue !== null && options.runWorkers !== false) await manager.workQueue(queue, leaseMs, pollMs);
      return manager;
    } catch (error) {
      // The error that stopped the opening is the one thrown; a close failing after it is only reported.
      await closeOwned().catch((closing: unknown) =>
        (options.report ?? warnOnStderr)('the job stores could not be closed after a failed start', { error: String(closing) }),
      );
      throw error;
    }
  }

  /**
   * Renders what the queue delivers (docs/scaling.md "Dispatch"): claim the row (waiting while a
   * live worker still holds it), render, upload, record. A handler that throws makes pg-boss retry
   * the entry; entries whose attempts are used up end their job `failed` (`failExhausted`).
   */
  private async workQueue(queue: JobQueue, leaseMs: number, pollMs: number): Promise<void> {
    const { records, pool } = this;
    // A delivery met by a database outage waits it out: thrown, it would fail the entry with a
    // queue write that the outage loses too, and the job would wait for the entry's expiry
    // (docs/operations.md "Outages").
    const stateOf = (jobId: string): Promise<string | undefined> =>
      rideOut(`reading ${jobId}`, async () => (await records.row(jobId))?.state);
    // Entries are taken as this pool has room in its fetch stage, fairly between tenants (docs/scaling.md "Fairness").
    await queue.work(
      () => pool.room(),
      async ({ jobId, tenant }) => {
        const release = pool.holdDelivery(tenant ?? '');
        let row: JobRow | null;
        try {
          row = await rideOut(`claiming ${jobId}`, () =>
            claimDelivered(records, jobId, pool.owner, {
              leaseMs,
              pollMs: Math.max(pollMs, 500),
              stopped: () => this.closed,
              report: this.options.report,
            }),
          );
        } finally {
          release();
        }
        if (row === null) {
          if (this.closed && (await stateOf(jobId)) === 'queued') throw new Error('this worker is stopping; the job is retried elsewhere');
          return;
        }
        const ended = await pool.runDelivered(row);
        // Put back in the queue by this worker's shutdown: the entry must be retried, not completed.
        if (ended === null && (await stateOf(jobId)) === 'queued') throw new Error('this worker stopped before finishing the render');
      },
    );
    await queue.workDeadLetters(async ({ jobId }) => {
      const failed = await rideOut(`ending ${jobId}`, () => failExhausted(records, jobId, queue.settings.attempts, pool.owner));
      if (failed === null) return;
      (this.options.report ?? warnOnStderr)(
        `job failed: each of its ${queue.settings.attempts} attempts failed or lost its worker`,
        { event: 'job_exhausted', job_id: jobId, tenant: failed.tenant, attempt: failed.attempts, max_attempts: queue.settings.attempts },
        'error',
      );
      this.emitTerminal(failed);
    });
  }

  get concurrency(): number {
    return this.pool.concurrency;
  }

  /** Changes how many renders this process runs at once (1–30). */
  setConcurrency(value: number): void {
    this.pool.concurrency = parseConcurrency(value);
  }

  /** ffmpeg threads each render of this pool gets (see threadBudget). */
  get threadsPerRender(): number {
    return this.pool.threads;
  }

  /** Whether this process's worker pool may claim jobs now, or why not (docs/jobs.md "Worker faults"). */
  workerStatus(): WorkerStatus {
    return this.pool.workerStatus();
  }

  get activeRenders(): number {
    return this.pool.activeCount;
  }

  /** True when jobs are dispatched through a queue (PostgreSQL): `work` then only follows, workers render. */
  get dispatching(): boolean {
    return this.queue !== null;
  }

  /** The local scratch directory of a job's render. */
  jobDir(jobId: string): string {
    return this.files.jobDir(jobId);
  }

  /** Where a job's render writes its video locally (in place, the embedded default keeps it there). */
  outputPath(jobId: string): string {
    return this.files.outputPath(jobId);
  }

  get blobs(): BlobStore {
    return this.files.blobs;
  }

  /** `prepared`: the stored JSON and input hash of the whole request, when `request` lacks its page (a large body). */
  async submit(request: ValidRenderRequest, options: JobSubmitOptions): Promise<JobRecord> {
    return (await this.submitOnce(request, options)).job;
  }

  /**
   * A job, with what `options` asks to be written with it (its quota charge, webhook row and stored
   * idempotent answer) in one transaction (docs/operations.md "Exactly once"). `replayed`: the
   * `Idempotency-Key` made its job already, and that job is returned.
   */
  async submitOnce(request: ValidRenderRequest, options: JobSubmitOptions): Promise<{ job: JobRecord; replayed: boolean }> {
    const { metadata: _metadata, webhook_url: _webhook, ...inputs } = request;
    const job: NewJob = {
      jobId: newJobId(),
      tenant: options.tenant,
      request,
      ...(options.prepared === undefined ? {} : { requestJson: options.prepared.requestJson }),
      inputHash: options.prepared?.inputHash ?? hashInputs(inputs),
      allowLocalFiles: this.options.allowLocalFiles === true,
      linkBase: this.options.linkBase ?? null,
      ...(options.charge === undefined ? {} : { charge: options.charge }),
      ...(options.idempotency === undefined ? {} : { idempotency: options.idempotency }),
      ...(options.webhookUrl === undefined ? {} : { webhookUrl: options.webhookUrl }),
    };
    // With a queue, the row and its entry are written in one transaction.
    const row = this.queue === null ? await this.records.insert(job) : await this.queue.submit(job);
    this.pool.kick();
    return { job: this.records.toRecord(row), replayed: row.job_id !== job.jobId };
  }

  async get(jobId: string): Promise<{ job: JobRecord; tenant: string } | null> {
    const row = await this.records.row(assertJobId(jobId));
    return row === undefined ? null : { job: this.records.toRecord(row), tenant: row.tenant };
  }

  /** The stored input hash of a job (sha256 of its validated request minus metadata and webhook). */
  async inputHash(jobId: string): Promise<string | null> {
    return (await this.records.row(assertJobId(jobId)))?.input_hash ?? null;
  }

  list(tenant: string, options?: ListJobsOptions): Promise<JobList> {
    return this.records.list(tenant, options);
  }

  /**
   * queued or running → canceled; a finished job is returned unchanged. A render here stops at
   * once; one on another process or machine stops at its pool's next poll (`stillOwned`).
   */
  async cancel(jobId: string): Promise<JobRecord> {
    const id = assertJobId(jobId);
    const current = await this.records.row(id);
    if (current === undefined) throw new AppError('NOT_FOUND', `No job ${id}.`);
    if (isTerminal(current.state)) return this.records.toRecord(current);
    const canceled = await this.records.transition(
      id,
      'canceled',
      { stage: null, finished_at: new Date().toISOString(), lease_expires_at: null },
      (row) => !isTerminal(row.state),
    );
    if (canceled === null) return this.records.toRecord((await this.records.row(id)) as JobRow);
    // A queued job's entry is withdrawn; a delivered one finds the job canceled and completes. An entry
    // the queue refuses to withdraw is that second case, later: the row already says canceled, so the
    // failure is reported, not undone.
    await this.queue?.cancel(id).catch((error: unknown) =>
      (this.options.report ?? warnOnStderr)('the queue kept the entry of a canceled job; it completes unrendered when delivered', {
        job_id: id,
        error: String(error),
      }),
    );
    this.pool.abort(id);
    this.emitTerminal(canceled);
    return this.records.toRecord(canceled);
  }

  /**
   * The blob key of the verified video of a succeeded, unpurged job — of its output in `format`
   * (default: the primary, docs/jobs.md "Outputs"); null otherwise (or when it is missing). A format
   * the job does not render is refused by the caller first (`formats` of its record).
   */
  async videoKey(jobId: string, format?: VideoFormat): Promise<string | null> {
    const row = await this.records.row(assertJobId(jobId));
    if (row === undefined || row.state !== 'succeeded' || row.expired_at !== null) return null;
    const formats = rowFormats(row);
    const index = format === undefined ? 0 : formats.indexOf(format);
    if (index < 0) return null;
    const key = this.files.outputKey(row.job_id, row.attempts, formats[index]!, index === 0);
    return (await this.files.blobs.head(key)) === null ? null : key;
  }

  countJobs(tenant: string, states: JobState[], unit?: CountUnit): Promise<number> {
    return this.records.count(tenant, states, unit);
  }

  /** Called once per job reaching a terminal state through this process (webhooks). */
  onTerminal(listener: (job: JobRecord, tenant: string) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Renders `jobId` in this process as soon as it is queued (for pools with runWorkers: false).
   * With a dispatching queue the workers render every job: this process only follows it.
   */
  work(jobId: string): void {
    if (this.queue === null) this.pool.want(assertJobId(jobId));
  }

  /** Stops wanting `jobId` (the caller no longer waits for it). */
  release(jobId: string): void {
    this.pool.unwant(jobId);
  }

  /** Resolves when this process renders nothing and nothing it may take is queued. */
  whenIdle(): Promise<void> {
    return this.pool.whenIdle();
  }

  /**
   * Retention: deletes the files of jobs finished before now − olderThanMs — the video in the blob
   * store and the local scratch directory; `dryRun` only counts them. Records stay; a purged
   * succeeded job keeps its verified properties with `result.expired_at`.
   */
  async purge(olderThanMs: number, options: { dryRun?: boolean } = {}): Promise<PurgeSummary> {
    const cutoff = new Date(Date.now() - olderThanMs).toISOString();
    const summary: PurgeSummary = { jobs: 0, bytes: 0 };
    const { files } = this;
    for (const row of await this.records.purgeable(cutoff)) {
      const dir = files.jobDir(row.job_id);
      const keys: string[] = [];
      summary.bytes += await sizeOf(dir);
      if (!files.inPlace) {
        for await (const blob of files.blobs.list(`jobs/${row.job_id}/`)) {
          keys.push(blob.key);
          summary.bytes += blob.size;
        }
      }
      summary.jobs += 1;
      if (options.dryRun) continue;
      for (const key of keys) await files.blobs.delete(key);
      await rm(dir, { recursive: true, force: true });
      await this.records.markExpired(row.job_id);
    }
    return summary;
  }

  async close(options: { drainMs?: number } = {}): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Closing goes on regardless: the pool and the stores below must still be released.
    await this.queue
      ?.stopWork()
      .catch((error: unknown) => this.report('the render queue did not stop cleanly; closing goes on', { error: String(error) }));
    await this.pool.close(options.drainMs ?? 0);
    await this.closeOwned();
  }

  private get report(): ProblemReporter {
    return this.options.report ?? warnOnStderr;
  }

  private emitTerminal(row: JobRow): void {
    const job = this.records.toRecord(row);
    for (const listener of this.listeners) {
      try {
        listener(job, row.tenant);
      } catch (error) {
        // A listener (webhook delivery) must never break the job layer; its failure is reported.
        this.report('a listener of ended jobs failed', { job_id: row.job_id, error: String(error) });
      }
    }
  }
}

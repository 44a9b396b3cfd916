import { existsSync, statSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError, badRequest } from '../core/errors.js';
import { guardedFetch, type FetchPort } from '../net/fetch.js';
import type { JobList, JobRecord, JobState, ListJobsOptions } from '../core/types.js';
import type { RenderContext, ValidRenderRequest } from '../render/types.js';
import { defaultEngine, type RenderEngine } from './engine.js';
import { hashInputs } from './hash.js';
import { assertJobId, newJobId } from './ids.js';
import { defaultConcurrency, MAX_CONCURRENCY, recoverAbandoned, WorkerPool } from './pool.js';
import { isTerminal } from './state.js';
import { JobStore, type JobRow } from './store.js';

export type { RenderEngine } from './engine.js';

export interface JobManagerOptions {
  dataDir: string;
  /** Renders at once in this process: 1–30, default min(30, logical cores). */
  concurrency?: number;
  engine?: RenderEngine;
  /** true (default): this process renders any queued job. false: only jobs asked for with `work`. */
  runWorkers?: boolean;
  /** Resolves `asset:<id>` for a tenant (server mode). */
  resolveAsset?: (tenant: string, assetId: string) => Promise<string>;
  /** Jobs submitted through this manager may read local files (local mode only). */
  allowLocalFiles?: boolean;
  /**
   * The network of server jobs (those without local files): default guarded, refusing loopback too.
   * The server passes its own port, which tests open to loopback fixture servers.
   */
  guardedFetch?: FetchPort;
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
}

export const DEFAULT_WATCHDOG_MS = 30 * 60_000;
const DEFAULT_LEASE_MS = 60_000;
const DEFAULT_POLL_MS = 250;

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
 * Jobs of one data directory (docs/jobs.md): the SQLite store plus this process's worker pool.
 * The local service, `immoreel worker` and the HTTP server are all built on it.
 */
export class JobManager {
  private readonly listeners: ((job: JobRecord, tenant: string) => void)[] = [];
  private closed = false;

  private constructor(
    readonly store: JobStore,
    private readonly pool: WorkerPool,
    private readonly options: JobManagerOptions,
  ) {}

  static open(options: JobManagerOptions): JobManager {
    const concurrency = options.concurrency === undefined ? defaultConcurrency() : parseConcurrency(options.concurrency);
    const store = JobStore.open(options.dataDir);
    let manager: JobManager | null = null;
    const pool = new WorkerPool({
      store,
      engine: options.engine ?? defaultEngine,
      concurrency,
      claimAny: options.runWorkers !== false,
      leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
      pollMs: options.pollMs ?? DEFAULT_POLL_MS,
      watchdogMs: options.watchdogMs ?? DEFAULT_WATCHDOG_MS,
      resolveAsset: options.resolveAsset,
      guardedFetch: options.guardedFetch ?? guardedFetch(),
      analyze: options.analyze,
      onTerminal: (row) => manager?.emitTerminal(row),
    });
    manager = new JobManager(store, pool, options);
    // Jobs left `running` by a crashed process go back to the queue before anything else happens.
    for (const row of recoverAbandoned(store)) manager.emitTerminal(row);
    pool.start();
    return manager;
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

  get activeRenders(): number {
    return this.pool.activeCount;
  }

  submit(request: ValidRenderRequest, options: { tenant: string }): JobRecord {
    const { metadata: _metadata, webhook_url: _webhook, ...inputs } = request;
    const row = this.store.insert({
      jobId: newJobId(),
      tenant: options.tenant,
      request,
      inputHash: hashInputs(inputs),
      allowLocalFiles: this.options.allowLocalFiles === true,
      linkBase: this.options.linkBase ?? null,
    });
    this.pool.kick();
    return this.store.toRecord(row);
  }

  get(jobId: string): { job: JobRecord; tenant: string } | null {
    const row = this.store.row(assertJobId(jobId));
    return row === undefined ? null : { job: this.store.toRecord(row), tenant: row.tenant };
  }

  /** The stored input hash of a job (sha256 of its validated request minus metadata and webhook). */
  inputHash(jobId: string): string | null {
    return this.store.row(assertJobId(jobId))?.input_hash ?? null;
  }

  list(tenant: string, options?: ListJobsOptions): JobList {
    return this.store.list(tenant, options);
  }

  /** queued or running → canceled (a running render is stopped); a finished job is returned unchanged. */
  cancel(jobId: string): JobRecord {
    const id = assertJobId(jobId);
    const current = this.store.row(id);
    if (current === undefined) throw new AppError('NOT_FOUND', `No job ${id}.`);
    if (isTerminal(current.state)) return this.store.toRecord(current);
    const canceled = this.store.transition(
      id,
      'canceled',
      { stage: null, finished_at: new Date().toISOString(), lease_expires_at: null },
      (row) => !isTerminal(row.state),
    );
    if (canceled === null) return this.store.toRecord(this.store.row(id) as JobRow);
    this.pool.abort(id);
    this.emitTerminal(canceled);
    return this.store.toRecord(canceled);
  }

  /** The verified MP4 of a succeeded job, or null (not succeeded, purged, or missing). */
  videoPath(jobId: string): string | null {
    const row = this.store.row(assertJobId(jobId));
    if (row === undefined || row.state !== 'succeeded' || row.expired_at !== null) return null;
    const path = this.store.outputPath(row.job_id);
    return existsSync(path) && statSync(path).isFile() ? path : null;
  }

  countJobs(tenant: string, states: JobState[]): number {
    return this.store.count(tenant, states);
  }

  /** Called once per job reaching a terminal state through this process (webhooks). */
  onTerminal(listener: (job: JobRecord, tenant: string) => void): void {
    this.listeners.push(listener);
  }

  /** Renders `jobId` in this process as soon as it is queued (for pools with runWorkers: false). */
  work(jobId: string): void {
    this.pool.want(assertJobId(jobId));
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
   * Retention: removes the files (video, work files) of jobs finished before `olderThanMs` ago.
   * Records stay; a purged succeeded job keeps its verified properties with `result.expired_at`.
   */
  /** Deletes the files of jobs finished before now − olderThanMs; `dryRun` only counts them. */
  async purge(olderThanMs: number, options: { dryRun?: boolean } = {}): Promise<PurgeSummary> {
    const cutoff = new Date(Date.now() - olderThanMs).toISOString();
    const summary: PurgeSummary = { jobs: 0, bytes: 0 };
    for (const row of this.store.purgeable(cutoff)) {
      const dir = this.store.jobDir(row.job_id);
      summary.bytes += await sizeOf(dir);
      if (options.dryRun) {
        summary.jobs += 1;
        continue;
      }
      await rm(dir, { recursive: true, force: true });
      this.store.markExpired(row.job_id);
      summary.jobs += 1;
    }
    return summary;
  }

  async close(options: { drainMs?: number } = {}): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.close(options.drainMs ?? 0);
    this.store.close();
  }

  private emitTerminal(row: JobRow): void {
    const job = this.store.toRecord(row);
    for (const listener of this.listeners) {
      try {
        listener(job, row.tenant);
      } catch {
        // A listener (webhook delivery) must never break the job layer.
      }
    }
  }
}

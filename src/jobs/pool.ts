import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, mkdir, rm, stat } from 'node:fs/promises';
import { availableParallelism, hostname } from 'node:os';
import { join } from 'node:path';
import { isAppError } from '../core/errors.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../core/paths.js';
import type { JobStage, VideoFormat } from '../core/types.js';
import { NO_METRICS, secondsSince, type Metrics } from '../core/metrics.js';
import { timedFetch, type FetchPort } from '../net/fetch.js';
import type { OutputTarget, RenderContext, RenderOutcome, ValidRenderRequest } from '../render/types.js';
import type { Property } from '../core/types.js';
import { outputKey, posterKey, videoKey } from '../blobs/object-keys.js';
import { formatPathOf, posterPathOf } from '../core/paths.js';
import type { BlobStore } from '../blobs/types.js';
import type { RenderEngine } from './engine.js';
import { assertJobId } from '../core/job-ids.js';
import type { JobQueue, JobRecords } from '../records/job-rows.js';
import { rideOut, type RideOutOptions } from './ride-out.js';
import { clientFacingOutage } from '../records/outage.js';
import { FairSlots } from './fair-slots.js';
import { DEFAULT_FETCH_BUDGET_MS, fetchSlots, FetchStage, prefetchInputs } from './fetch-stage.js';
import { describeWorkerFault, workerFaultOf, type WorkerFaultKind } from '../core/worker-faults.js';
import { WorkerHealth, type WorkerStatus } from './worker-health.js';
import {
  finalFailurePatch,
  listingSummary,
  MAX_ATTEMPTS,
  rowFormats,
  type JobPatch,
  type JobRow,
  type Owner,
  type StoredOutput,
} from '../records/job-rows.js';

/** The most renders one pool runs at once (docs/jobs.md). */
export { defaultConcurrency, MAX_CONCURRENCY } from '../core/job-limits.js';

/**
 * ffmpeg threads per render. Each render gets a share of the machine's logical cores, rounded
 * down, with 1.5× oversubscription because a render is not CPU-bound all the time (photo
 * preparation, PNG cards, muxing, disk waits): enough to keep every core busy when a few renders
 * run, and 1 thread each when many run, so 30 renders on a 2-core machine do not fight over
 * 30 × (cores + 2) encoder threads (x264's default) and the memory of their frame buffers.
 */
export function threadBudget(concurrency: number, cores: number = availableParallelism()): number {
  return Math.max(1, Math.floor((cores * 1.5) / Math.max(1, concurrency)));
}

/**
 * Where the job layer reports a failure it survives but someone must see: the server's log, the
 * worker's stderr (docs/jobs.md "Failures the job layer survives").
 */
export type ProblemReporter = (message: string, fields: Record<string, string | number>, level?: ReportLevel) => void;

/** How much a reported event matters: `warn` (the default) when nobody says. */
export type ReportLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * The default reporter: a process warning on stderr, so a failure is never silent even with no log
 * wired. Events that are only news (`info`: an outage over; `debug`) are left out there.
 */
export const warnOnStderr: ProblemReporter = (message, fields, level = 'warn') => {
  if (level === 'warn' || level === 'error') process.emitWarning(`${message} ${JSON.stringify(fields)}`, { code: 'IMMOREEL_JOBS' });
};

/** Owners alive in this process: a running job owned by this pid but by none of these is abandoned. */
const liveOwners = new Set<string>();
const HOST = hostname();

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the worker holding a running job is gone: `dead` when that is certain (its process on
 * this host no longer exists), `lapsed` when only its lease ran out, `alive` otherwise.
 */
function holderOf(row: JobRow, now: number): 'dead' | 'lapsed' | 'alive' {
  if (row.owner_host === HOST && row.owner_pid !== null && row.owner !== null) {
    if (row.owner_pid === process.pid ? !liveOwners.has(row.owner) : !pidAlive(row.owner_pid)) return 'dead';
  }
  return row.lease_expires_at === null || row.lease_expires_at < now ? 'lapsed' : 'alive';
}

/**
 * Leases seen run out, by job: a lapsed lease is acted on only when a later look, at least
 * `confirmMs` after the first, finds the very same lease. A database outage longer than the lease
 * lets every lease of live workers run out at once; each renews its own within a poll of the
 * database coming back, so a job whose lease changed in between was never abandoned
 * (docs/jobs.md "Crash safety").
 */
export class LapsedLeases {
  private readonly seen = new Map<string, { lease: number | null; at: number }>();

  constructor(readonly confirmMs: number) {}

  /** True once the same lapsed lease of `row` has been seen for `confirmMs`. */
  confirmed(row: JobRow, now: number): boolean {
    const before = this.seen.get(row.job_id);
    if (before !== undefined && before.lease === row.lease_expires_at) return now - before.at >= this.confirmMs;
    this.seen.set(row.job_id, { lease: row.lease_expires_at, at: now });
    return this.confirmMs <= 0;
  }

  /** Forgets the jobs that are no longer running (`running`: the ids seen running now). */
  keepOnly(running: ReadonlySet<string>): void {
    for (const jobId of this.seen.keys()) if (!running.has(jobId)) this.seen.delete(jobId);
  }
}

/**
 * Where a job's files are: the local scratch directory its render works in (`<data dir>/jobs/<id>/`)
 * and the blob store its verified video goes to (docs/jobs.md "Isolation and atomic outputs").
 */
export class JobFiles {
  /** True when the blob store is the data directory itself: the rendered file already sits at its key. */
  readonly inPlace: boolean;

  constructor(
    readonly jobsDir: string,
    readonly blobs: BlobStore,
    dataDirUrl: string,
  ) {
    this.inPlace = blobs.location.replace(/\/$/, '') === dataDirUrl.replace(/\/$/, '');
  }

  jobDir(jobId: string): string {
    return join(this.jobsDir, assertJobId(jobId));
  }

  outputPath(jobId: string): string {
    return join(this.jobDir(jobId), 'output.mp4');
  }

  /**
   * The blob key of attempt `attempt`'s video. In place (the embedded default) it is the rendered
   * file itself, `jobs/<id>/output.mp4`, as always; elsewhere each attempt uploads to its own key and
   * the guarded transition to `succeeded` (which records `attempts`) names the one that won.
   */
  videoKey(jobId: string, attempt: number): string {
    return this.inPlace ? videoKey(jobId) : videoKey(jobId, attempt);
  }

  /**
   * Where the output in `format` of a job is rendered: the primary (`formats[0]`) at `outputPath`,
   * as before packs, every other one beside it, `output-<format>.mp4` (docs/jobs.md "Outputs").
   */
  outputTarget(jobId: string, format: VideoFormat, primary: boolean): Required<OutputTarget> {
    const outputPath = primary ? this.outputPath(jobId) : (formatPathOf(this.outputPath(jobId), format) as string);
    return { format, outputPath, posterPath: posterPathOf(outputPath) as string };
  }

  /** The blob key of the output in `format` of attempt `attempt` (docs/jobs.md "Outputs"). */
  outputKey(jobId: string, attempt: number, format: VideoFormat, primary: boolean): string {
    return outputKey(this.videoKey(jobId, attempt), format, primary);
  }

  /**
   * Removes whatever videos (and posters) attempt `attempt` left (a job that did not end `succeeded`
   * has none), every format's: any of them may have been written before the attempt stopped.
   */
  async discardOutput(jobId: string, attempt: number, formats: readonly VideoFormat[] = []): Promise<void> {
    const targets = [
      this.outputTarget(jobId, formats[0] ?? 'landscape', true),
      ...formats.slice(1).map((f) => this.outputTarget(jobId, f, false)),
    ];
    for (const target of targets) {
      await rm(target.outputPath, { force: true });
      await rm(target.posterPath, { force: true });
    }
    // A leftover attempt key is never read (the succeeded row names its own attempt) and purge removes
    // it: every key is tried, then the first failure is thrown for the caller to report.
    if (!this.inPlace && attempt > 0) {
      const keys = [this.videoKey(jobId, attempt), ...formats.slice(1).map((f) => this.outputKey(jobId, attempt, f, false))];
      const failures: unknown[] = [];
      for (const key of keys) {
        for (const object of [key, posterKey(key)]) await this.blobs.delete(object).catch((error: unknown) => failures.push(error));
      }
      if (failures.length > 0) throw new AggregateError(failures, `${failures.length} object(s) of ${jobId} could not be deleted`);
    }
  }

  /**
   * Uploads a poster drawn next to its video to its key, beside the video's (docs/api.md "The
   * poster"). In place it is already there; a render that drew none (a warning) uploads nothing.
   * True when the output has a poster.
   */
  async publishPoster(posterPath: string, key: string): Promise<boolean> {
    if ((await stat(posterPath).catch(() => null)) === null) return false;
    if (!this.inPlace) await this.blobs.put(posterKey(key), createReadStream(posterPath), { contentType: 'image/jpeg' });
    return true;
  }
}

/**
 * Crash recovery (docs/jobs.md "Crash safety"): a job found `running` whose worker is dead (same
 * machine, process gone) goes back to `queued` at once, or to `failed` once it has been tried
 * MAX_ATTEMPTS times; one whose lease ran out does so once `lapsed` has seen that same lease run
 * out for its `confirmMs` (without `lapsed`, at once). With a dispatching queue (PostgreSQL), the
 * one process whose transition won also fails the job's queue entry, so the queue hands it to a
 * worker now instead of after its expiry. Returns the jobs that became `failed`. A queue that
 * refuses the abandon is reported: the row is already right, and its entry is handed out again
 * when it expires (claimDelivered then finds the job queued, or finished, and acts on the row).
 */
export async function recoverAbandoned(
  records: JobRecords,
  files: JobFiles,
  queue: JobQueue | null = null,
  report: ProblemReporter = warnOnStderr,
  lapsed: LapsedLeases = new LapsedLeases(0),
): Promise<JobRow[]> {
  const failed: JobRow[] = [];
  const now = Date.now();
  const rows = await records.runningJobs();
  lapsed.keepOnly(new Set(rows.map((row) => row.job_id)));
  for (const row of rows) {
    const holder = holderOf(row, now);
    if (holder === 'alive' || (holder === 'lapsed' && !lapsed.confirmed(row, now))) continue;
    // Moved only if nobody took the row meanwhile and its holder did not renew the lease it was judged by.
    const sameHolder = (current: JobRow): boolean =>
      current.state === 'running' &&
      current.owner === row.owner &&
      current.lease_expires_at === row.lease_expires_at &&
      holderOf(current, Date.now()) !== 'alive';
    let moved: JobRow | null;
    if (row.attempts >= MAX_ATTEMPTS) {
      moved = await records.transition(
        row.job_id,
        'failed',
        finalFailurePatch(
          `The render was interrupted ${row.attempts} times because its worker process stopped before finishing ` +
            '(crash, kill, out of memory or power loss); it will not be retried. Check free memory and disk space, then submit it again.',
        ),
        sameHolder,
      );
      if (moved !== null) failed.push(moved);
    } else {
      moved = await records.transition(
        row.job_id,
        'queued',
        { stage: null, progress: 0, owner: null, owner_host: null, owner_pid: null, lease_expires_at: null },
        sameHolder,
      );
    }
    if (moved === null) continue;
    // Only the process whose transition won gets here: each recovery is logged once (docs/operations.md "Logs").
    const why = row.lease_expires_at === null || row.lease_expires_at < now ? 'lease_expired' : 'worker_gone';
    const fields = {
      job_id: row.job_id,
      tenant: row.tenant,
      attempt: row.attempts,
      max_attempts: MAX_ATTEMPTS,
      reason: why,
      owner: row.owner ?? '',
    };
    if (moved.state === 'queued')
      report(`job re-queued for attempt ${row.attempts + 1} of ${MAX_ATTEMPTS}: its worker stopped renewing its lease`, {
        event: 'job_requeued',
        ...fields,
      });
    else
      report(`job failed: its worker stopped during each of its ${row.attempts} attempts`, { event: 'job_abandoned', ...fields }, 'error');
    // A video put in place just before the kill was never recorded: it must not linger (what resists is purge's).
    const leftover = (what: string) => (error: unknown) =>
      report(`${what} of an abandoned job could not be removed; jobs purge removes it`, { job_id: row.job_id, error: String(error) });
    await files.discardOutput(row.job_id, row.attempts, rowFormats(row)).catch(leftover('the video'));
    // Nothing of this job runs here any more once it failed; a re-queued job's next attempt empties it anyway.
    if (moved.state === 'failed') await rm(files.jobDir(row.job_id), { recursive: true, force: true }).catch(leftover('the scratch'));
    await queue?.abandon(row.job_id, `the worker ${row.owner ?? ''} stopped renewing its lease`).catch((error: unknown) =>
      report('the queue kept the entry of an abandoned job; it is retried when the entry expires', {
        job_id: row.job_id,
        state: moved.state,
        error: String(error),
      }),
    );
  }
  return failed;
}

export interface PoolOptions {
  records: JobRecords;
  files: JobFiles;
  /** The dispatching queue (PostgreSQL): jobs come from it through `runDelivered`, not from claims of this pool. */
  queue: JobQueue | null;
  engine: RenderEngine;
  concurrency: number;
  /** true: take any queued job (worker, server); false: only jobs asked for with `want`. */
  claimAny: boolean;
  leaseMs: number;
  pollMs: number;
  watchdogMs: number;
  /** Resolves `asset:<id>` of `tenant` to a local file, fetching remote bytes into the job's `scratchDir`. */
  resolveAsset?: (tenant: string, assetId: string, scratchDir: string) => Promise<string>;
  /** The network of jobs submitted by the server (no local files): refuses private addresses. */
  guardedFetch: FetchPort;
  /** The network of local-mode jobs (the configured proxy, no address policy). */
  openFetch: FetchPort;
  ffmpeg: RenderContext['ffmpeg'];
  eurToMad?: number;
  analyze?: RenderContext['analyze'];
  onTerminal: (row: JobRow) => void;
  /** Failures the pool survives (a queue refusing an abandon, a render that threw past its own handling). */
  report?: ProblemReporter;
  /** How long a database or storage outage is waited out per write before the job fails (default 90 s). */
  outageBudgetMs?: number;
  /** Renders, fetches, uploads and retries of this pool (docs/operations.md "Metrics"); default none. */
  metrics?: Metrics;
  /** The total time a job may spend fetching its inputs before it fails (default 120 s; docs/scaling.md "Fairness"). */
  fetchBudgetMs?: number;
  /**
   * Free bytes the scratch directory must have before a `claimAny` pool claims a job (default
   * 256 MB; 0: no check). Docs/jobs.md "Worker faults".
   */
  minFreeScratchBytes?: number;
}

/** The free scratch space a worker wants before it claims a job, by default (docs/jobs.md "Worker faults"). */
export const DEFAULT_MIN_FREE_SCRATCH_BYTES = 256 * 1_048_576;

interface ActiveRender {
  controller: AbortController;
  done: Promise<void>;
}

class WatchdogTimeout extends Error {
  constructor(ms: number) {
    super(`watchdog: the render exceeded ${ms} ms`);
    this.name = 'WatchdogTimeout';
  }
}

function jobError(error: unknown, watchdogMs: number, timedOut: boolean): { code: string; message: string } {
  if (timedOut) {
    const minutes = Math.round(watchdogMs / 6000) / 10;
    return {
      code: 'RENDER_FAILED',
      message: `The render took longer than ${minutes} min and was stopped by the watchdog. Try a shorter duration, or fewer renders at once (--concurrency).`,
    };
  }
  // Job errors reach API clients: an outage or a fault of the server's storage or database
  // configuration is told in words that name no endpoint or variable (the log keeps the detail).
  const outage = clientFacingOutage(error);
  if (outage !== null) return { code: outage.code, message: outage.message };
  if (isAppError(error)) return { code: error.code, message: error.message };
  const first = (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).split('\n')[0]!.slice(0, 300);
  return { code: 'RENDER_FAILED', message: `The render failed unexpectedly (${first}).` };
}

/** An error and its causes in one line, for the operator's log (never for clients). */
function errorDetail(error: unknown): string {
  const parts: string[] = [];
  for (let current: unknown = error, depth = 0; current !== undefined && current !== null && depth < 4; depth += 1) {
    parts.push(current instanceof Error ? current.message : String(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(' ← ').slice(0, 2000);
}

/** What the engine says of each output it rendered. */
type RenderedOutputs = NonNullable<RenderOutcome['outputs']>;

/** What one attempt came to, before anything is recorded (`WorkerPool.settle` applies it). */
type AttemptOutcome =
  { kind: 'published'; outcome: RenderOutcome; outputs: StoredOutput[] } | { kind: 'failed'; error: unknown; timedOut: boolean };

/** The error of a job that met a fault of each worker that tried it: nothing of any machine is named. */
const WORKER_FAULTS_MESSAGE =
  'The render could not be completed: each worker that tried it had a fault of its own (no scratch space, ' +
  'a missing or crashing video tool). Nothing was charged — render again.';

/**
 * Checks that every output the engine reported exists with the size it reported, and makes each
 * its owner's only (whatever engine wrote it, under whatever umask). Returns the outputs, the
 * primary first (`result`, as the engine reported it), the others as `outputs` list them.
 */
async function checkRendered(
  outcome: RenderOutcome,
  formats: readonly VideoFormat[],
  targets: readonly Required<OutputTarget>[],
): Promise<RenderedOutputs> {
  const rendered: RenderedOutputs = [
    { format: formats[0]!, result: outcome.result },
    // An engine that leaves `outputs` out rendered one output, `result` (src/render/types.ts).
    ...(outcome.outputs ?? []).filter((output) => output.format !== formats[0]),
  ];
  for (const target of targets) {
    const reported = rendered.find((output) => output.format === target.format)?.result.size_bytes;
    const file = await stat(target.outputPath).catch(() => null);
    if (reported === undefined || file === null || file.size !== reported) {
      throw new Error(
        `the engine reported a ${target.format} video of ${reported ?? 'no'} bytes but ${file === null ? 'none exists' : `${file.size} bytes exist`}`,
      );
    }
    await chmod(target.outputPath, PRIVATE_FILE_MODE);
  }
  return rendered;
}

/** Progress writes per job are throttled: a render reports many times a second. */
const PROGRESS_WRITE_MS = 300;

/**
 * The worker pool of one process: claims queued jobs atomically from the store, runs at most
 * `concurrency` renders through p-limit, renews their leases, notices cancels made by any process,
 * enforces a wall-clock watchdog per render, and records the outcome.
 */
export class WorkerPool {
  readonly owner: Owner;
  /** Render slots, shared round-robin between waiting tenants (docs/scaling.md "Fairness"). */
  private readonly slots: FairSlots;
  /** Jobs claimed and fetching their inputs, before they ask for a slot. */
  // A fetch set aside as slow frees a place of the stage: another job may be claimed at once.
  private readonly fetchStage = Object.assign(new FetchStage(), { onSlow: () => this.kick() });
  private readonly active = new Map<string, ActiveRender>();
  private readonly wanted = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private accepting = true;
  private lastRenewal = 0;
  private lastRecovery = 0;
  private ticking = false;
  private tickAgain = false;
  private idleWaiters: (() => void)[] = [];
  /**
   * Lapsed leases this pool saw, confirmed after half a lease (at most 15 s): long enough for a
   * live worker to renew once the database is back, short next to the lease itself.
   */
  readonly lapsed: LapsedLeases;
  /** Whether this worker may claim now: faults of its own and its scratch space (docs/jobs.md "Worker faults"). */
  private readonly health: WorkerHealth;

  constructor(private readonly options: PoolOptions) {
    this.owner = { id: `${HOST}/${process.pid}/${randomBytes(4).toString('hex')}`, host: HOST, pid: process.pid };
    this.slots = new FairSlots(options.concurrency);
    this.lapsed = new LapsedLeases(Math.min(options.leaseMs / 2, 15_000));
    this.health = new WorkerHealth({
      scratchDir: options.files.jobsDir,
      minFreeBytes: options.minFreeScratchBytes ?? DEFAULT_MIN_FREE_SCRATCH_BYTES,
      report: (message, fields, level) => this.report(message, fields, level),
    });
  }

  /** Ready to claim, or why not (a worker's `/ready`, docs/operations.md "Health and readiness"). */
  workerStatus(): WorkerStatus {
    return this.health.status();
  }

  /**
   * Outages met by this job's record and upload writes are reported once as they begin, and once
   * as they end or outlast the budget (docs/operations.md "Logs"); each try in between is a debug
   * line at most, and is counted (docs/operations.md "Metrics").
   */
  private rideOutOptions(row: JobRow, operation: 'read' | 'upload' | 'finish'): RideOutOptions {
    const job = { job_id: row.job_id, tenant: row.tenant, attempt: row.attempts };
    return {
      budgetMs: this.options.outageBudgetMs,
      metrics: this.metrics,
      operation,
      onOutage: ({ outage, phase, what, tries, waitedMs }) => {
        const fields = { ...job, service: outage, while: what, tries, waited_ms: waitedMs };
        if (phase === 'begins') this.report(`${outage} outage begins: waiting it out`, { event: 'outage_begins', ...fields });
        else if (phase === 'ends') this.report(`${outage} outage over`, { event: 'outage_ends', ...fields }, 'info');
        else this.report(`${outage} outage outlasted the budget: giving up`, { event: 'outage_gave_up', ...fields }, 'error');
      },
      onRetry: ({ outage, what, tries, delayMs, waitedMs, budgetMs }) =>
        this.report(
          `retrying ${what}: try ${tries} met the ${outage} outage, next in ${delayMs} ms (waited ${Math.round(waitedMs / 1000)} of ${Math.round(budgetMs / 1000)} s)`,
          { event: 'outage_retry', ...job, service: outage, tries, delay_ms: delayMs, waited_ms: waitedMs },
          'debug',
        ),
    };
  }

  private get report(): ProblemReporter {
    return this.options.report ?? warnOnStderr;
  }

  private get metrics(): Metrics {
    return this.options.metrics ?? NO_METRICS;
  }

  get concurrency(): number {
    return this.slots.capacity;
  }

  set concurrency(value: number) {
    this.slots.capacity = value;
    this.kick();
  }

  /**
   * What this pool can take now (docs/scaling.md "Fairness"): jobs it may still claim into its
   * fetch stage (none while as many fetched jobs wait for a slot as there are slots), and the
   * tenants already holding their share of that stage here.
   */
  room(): { free: number; fullTenants: string[] } {
    // A worker with a fault of its own takes nothing until it is ready again (docs/jobs.md "Worker faults").
    if (this.options.claimAny && this.health.blocked()) return { free: 0, fullTenants: [] };
    const free = this.slots.pendingCount >= this.slots.capacity ? 0 : fetchSlots(this.slots.capacity) - this.fetchStage.size;
    return { free: Math.max(0, free), fullTenants: this.fetchStage.fullTenants() };
  }

  /** Counts a delivered job against its tenant's share of the fetch stage until it is claimed or dropped. */
  holdDelivery(tenant: string): () => void {
    return this.fetchStage.hold(tenant);
  }

  /**
   * The budget for a render starting now: shared among the renders running at that moment (not
   * the pool's maximum), so a lone foreground render gets every core.
   */
  get threads(): number {
    return threadBudget(Math.max(1, Math.min(this.slots.capacity, this.slots.activeCount)));
  }

  get activeCount(): number {
    return this.active.size;
  }

  start(): void {
    if (this.timer !== null) return;
    liveOwners.add(this.owner.id);
    this.timer = setInterval(() => this.tick(), this.options.pollMs);
    this.kick();
  }

  /** Asks this pool to render `jobId` when it is queued (scoped pools only take jobs asked for). */
  want(jobId: string): void {
    this.wanted.add(jobId);
    this.kick();
  }

  unwant(jobId: string): void {
    this.wanted.delete(jobId);
  }

  /** Runs a tick soon (after a submit or a finished render) instead of waiting for the timer. */
  kick(): void {
    if (this.timer !== null) setImmediate(() => this.tick());
  }

  /** Aborts a render of this process at once (a cancel made here; others see it on their next tick). */
  abort(jobId: string): void {
    this.active.get(jobId)?.controller.abort(new Error('canceled'));
  }

  /** Resolves when this pool runs nothing and nothing it may take is queued. */
  whenIdle(): Promise<void> {
    return new Promise((resolve) => {
      this.idleWaiters.push(resolve);
      this.kick();
    });
  }

  /** One tick at a time: a slow store (a remote database) never gets overlapping claims or renewals. */
  private tick(): void {
    if (this.timer === null) return;
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    this.ticking = true;
    // Settled below: a failed tick is retried by the next one, and `finally` lets it run.
    void this.tickOnce()
      .catch((error: unknown) => {
        // SQLITE_BUSY past the busy timeout, a lost database connection, or the store closed under
        // us: tried again on the next tick. Told at debug level: an outage is told by the writes that wait it out.
        this.report('a poll of the job store failed; the next one tries again', { error: String(error) }, 'debug');
      })
      .finally(() => {
        this.ticking = false;
        if (this.tickAgain) {
          this.tickAgain = false;
          this.kick();
        }
      });
  }

  private async tickOnce(): Promise<void> {
    const { records, leaseMs } = this.options;
    const now = Date.now();
    if (this.active.size > 0) {
      if (now - this.lastRenewal >= leaseMs / 4) {
        await records.renewLeases(this.owner, leaseMs);
        this.lastRenewal = now;
      }
      // A job canceled (or taken back) by any process, on any machine, is no longer running under our name.
      // Only the renders asked about: one launched while the query ran is not in its answer.
      const asked = [...this.active.keys()];
      const mine = await records.stillOwned(this.owner, asked);
      for (const jobId of asked) if (!mine.has(jobId)) this.active.get(jobId)?.controller.abort(new Error('canceled'));
    }
    if (now - this.lastRecovery >= Math.min(5000, leaseMs)) {
      this.lastRecovery = now;
      for (const row of await recoverAbandoned(records, this.options.files, this.options.queue, this.report, this.lapsed))
        this.options.onTerminal(row);
    }
    // Before claiming: is this worker fit to (its faults' back-off, its scratch space)?
    if (this.options.claimAny && this.accepting) await this.health.check();
    // With a dispatching queue, jobs arrive through `runDelivered`; this pool claims nothing itself.
    // Claimed into the fetch stage, fairly: never a tenant that already holds its share of it here.
    while (this.options.queue === null && this.accepting && this.room().free > 0) {
      const scope = this.options.claimAny ? undefined : [...this.wanted];
      const row = await records.claimNext(this.owner, leaseMs, scope, this.room().fullTenants);
      if (row === null) break;
      this.wanted.delete(row.job_id);
      // Claimed by the pool, not by a caller: nobody else would see the render's promise reject.
      this.launch(row).catch((error: unknown) =>
        this.report('a render ended with an unexpected error', { job_id: row.job_id, error: String(error) }),
      );
    }
    if (this.idleWaiters.length > 0 && this.active.size === 0) {
      let queued = 0;
      if (this.options.claimAny) queued = await records.count(null, ['queued']);
      else for (const id of this.wanted) if ((await records.row(id))?.state === 'queued') queued += 1;
      // A worker that is not ready takes nothing more: `worker --until-idle` ends instead of waiting for its disk.
      if (queued === 0 || !this.accepting || (this.options.claimAny && this.health.blocked())) {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        for (const resolve of waiters) resolve();
      }
    }
  }

  /** A job's listing analysed as the engine would (the server: in its worker-thread pool). */
  private async analyzeInput(input: ValidRenderRequest['input'], signal: AbortSignal, fetch: FetchPort): Promise<Property> {
    if (this.options.analyze !== undefined) return this.options.analyze(input, signal);
    const { analyzeListing } = await import('../analysis/analyze.js');
    return analyzeListing(input, { signal, fetch, ...(this.options.eurToMad === undefined ? {} : { eurToMad: this.options.eurToMad }) });
  }

  /**
   * Renders a job the dispatching queue delivered and this pool has claimed (`claimDelivered`);
   * resolves with the row as it ended (null when another process moved it first).
   */
  runDelivered(row: JobRow): Promise<JobRow | null> {
    return this.launch(row);
  }

  private launch(row: JobRow): Promise<JobRow | null> {
    const controller = new AbortController();
    let outcome: JobRow | null = null;
    const render: ActiveRender = { controller, done: Promise.resolve() };
    this.active.set(row.job_id, render);
    const held = this.fetchStage.hold(row.tenant);
    render.done = (async () => {
      outcome = await this.run(row, controller, held);
    })().finally(() => {
      held();
      this.active.delete(row.job_id);
      this.kick();
    });
    return render.done.then(() => outcome);
  }

  /**
   * Puts the verified videos where results live: in place (nothing to copy: the embedded default),
   * or uploaded to the blob store under this attempt's keys with the SHA-256 the engine recorded,
   * checked while the bytes stream; each poster beside its video (docs/jobs.md "Outputs"). Returns
   * what the row keeps of each output, in `formats` order.
   */
  private async publish(row: JobRow, targets: readonly Required<OutputTarget>[], rendered: RenderedOutputs): Promise<StoredOutput[]> {
    const { files } = this.options;
    const stored: StoredOutput[] = [];
    for (const [index, target] of targets.entries()) {
      const result = rendered.find((output) => output.format === target.format)?.result;
      if (result === undefined) throw new Error(`the engine rendered no ${target.format} video for ${row.job_id}`);
      const key = files.outputKey(row.job_id, row.attempts, target.format, index === 0);
      if (!files.inPlace) {
        const expected = result.sha256.replace(/^sha256:/, '');
        const hash = createHash('sha256');
        for await (const chunk of createReadStream(target.outputPath)) hash.update(chunk as Buffer);
        if (hash.digest('hex') !== expected) {
          throw new Error(`the ${target.format} video written for ${row.job_id} does not match the SHA-256 the engine recorded`);
        }
        const started = process.hrtime.bigint();
        await files.blobs.put(key, createReadStream(target.outputPath), { sha256: expected, contentType: 'video/mp4' });
        this.metrics.uploaded(secondsSince(started));
      }
      const { expired_at: _expired, ...verified } = result as typeof result & { expired_at?: string };
      stored.push({ ...verified, format: target.format, poster: await files.publishPoster(target.posterPath, key) });
    }
    return stored;
  }

  /**
   * One attempt at a job, then its settlement: `attempt` renders, verifies and publishes and
   * returns what happened as data (it never writes the job row); `settle` is the one place that
   * applies it (docs/jobs.md "Settling an attempt").
   */
  private async run(row: JobRow, controller: AbortController, fetched: () => void): Promise<JobRow | null> {
    const attempt = await this.attempt(row, controller, fetched);
    return this.settle(row, controller, attempt);
  }

  /** A render's progress, throttled into the store: a busy store never fails the render. */
  private progressWriter(row: JobRow): (stage: JobStage, reported: number) => void {
    let lastWrite = 0;
    let lastStage: JobStage | null = null;
    let highest = 0;
    let failures = 0;
    return (stage, reported) => {
      // The fetch stage and the render both report fetching_assets: progress never goes back.
      const progress = Math.max(highest, reported);
      highest = progress;
      const now = Date.now();
      if (stage === lastStage && now - lastWrite < PROGRESS_WRITE_MS) return;
      lastStage = stage;
      lastWrite = now;
      // The next report will get through; the first failure of a job is told at debug level.
      this.options.records.setProgress(row.job_id, this.owner, stage, progress).catch((error: unknown) => {
        failures += 1;
        if (failures === 1)
          this.report('a progress write failed; the next one is tried', { job_id: row.job_id, error: String(error) }, 'debug');
      });
    };
  }

  /**
   * Renders, verifies and publishes one attempt: the stages in order (scratch, request, fetch,
   * slot, render, check, publish), each returning what the next needs. Writes no job row (progress
   * aside); every failure is returned, not thrown.
   */
  private async attempt(row: JobRow, controller: AbortController, fetched: () => void): Promise<AttemptOutcome> {
    const { records, files, engine, watchdogMs } = this.options;
    const jobId = row.job_id;
    const workDir = files.jobDir(jobId);
    const formats = rowFormats(row);
    // One target per format, the primary first (docs/jobs.md "Outputs").
    const targets = formats.map((format, index) => files.outputTarget(jobId, format, index === 0));
    const onProgress = this.progressWriter(row);
    const resolveAsset = this.options.resolveAsset;
    let timedOut = false;
    let watchdog: NodeJS.Timeout | undefined;
    let releaseSlot: (() => void) | null = null;
    let renderSeconds: number | null = null;
    try {
      // Every attempt starts from an empty directory: nothing of a killed attempt is reused.
      await rm(workDir, { recursive: true, force: true });
      await mkdir(workDir, { recursive: true, mode: PRIVATE_DIR_MODE });
      // A job is trusted or not by where it came from (local mode or the server), not by who renders it.
      const network = timedFetch(row.allow_local_files === 1 ? this.options.openFetch : this.options.guardedFetch, this.metrics);
      const request = await rideOut(`reading the request of ${jobId}`, () => records.requestOf(jobId), {
        ...this.rideOutOptions(row, 'read'),
        signal: controller.signal,
      });
      // The fetch stage (docs/scaling.md "Fairness"): the inputs are local before a render slot is taken.
      const inputs = await this.fetchStage.run(
        row.tenant,
        () =>
          prefetchInputs(request, {
            workDir,
            signal: controller.signal,
            fetch: network,
            budgetMs: this.options.fetchBudgetMs ?? DEFAULT_FETCH_BUDGET_MS,
            analyze: (input, signal) => this.analyzeInput(input, signal, network),
            onProgress,
            // An uploaded photo is read from the database and the storage: an outage of either is waited
            // out, not turned into a photo left out (docs/operations.md "Outages").
            ...(resolveAsset === undefined
              ? {}
              : {
                  resolveAsset: (assetId: string) =>
                    rideOut(`reading the photo ${assetId} of ${jobId}`, () => resolveAsset(row.tenant, assetId, workDir), {
                      ...this.rideOutOptions(row, 'read'),
                      signal: controller.signal,
                    }),
                }),
          }),
        controller.signal,
      );
      fetched();
      releaseSlot = await this.slots.acquire(row.tenant, controller.signal);
      this.metrics.renderStarted();
      watchdog = setTimeout(() => {
        timedOut = true;
        controller.abort(new WatchdogTimeout(watchdogMs));
      }, watchdogMs);
      const ctx: RenderContext = {
        workDir,
        outputPath: targets[0]!.outputPath,
        posterPath: targets[0]!.posterPath,
        outputs: targets,
        signal: controller.signal,
        ffmpeg: this.options.ffmpeg,
        threads: this.threads,
        onProgress,
        watchdogMs,
        allowLocalFiles: row.allow_local_files === 1,
        fetch: inputs.fetch,
        ...(this.options.eurToMad === undefined ? {} : { eurToMad: this.options.eurToMad }),
        ...(this.options.analyze === undefined ? {} : { analyze: this.options.analyze }),
        ...(inputs.resolveAsset === undefined ? {} : { resolveAsset: inputs.resolveAsset }),
      };
      // Canceled while the directory was being prepared: an abort event would never reach the engine.
      if (controller.signal.aborted) throw controller.signal.reason;
      const renderStarted = process.hrtime.bigint();
      const outcome = await engine({ ...request, listing: inputs.listing ?? request.listing }, ctx);
      const engineSeconds = secondsSince(renderStarted);
      const rendered = await checkRendered(outcome, formats, targets);
      renderSeconds = engineSeconds;
      if (controller.signal.aborted) throw controller.signal.reason;
      // A storage or database outage during the upload is waited out (docs/operations.md "Outages").
      const outputs = await rideOut(
        `uploading the videos of ${jobId}`,
        () => this.publish(row, targets, rendered),
        this.rideOutOptions(row, 'upload'),
      );
      return { kind: 'published', outcome, outputs };
    } catch (error) {
      return { kind: 'failed', error, timedOut };
    } finally {
      clearTimeout(watchdog);
      if (releaseSlot !== null) this.metrics.renderEnded(renderSeconds);
      fetched();
      releaseSlot?.();
    }
  }

  /**
   * The one place an attempt's outcome is applied (docs/jobs.md "Settling an attempt"): a
   * published video is recorded succeeded (waiting for the database as long as the job is still
   * this worker's); a fault of this worker hands the job to another; any other failure is recorded
   * failed. Then what the attempt left is cleaned up. Every failure met here is reported.
   * Returns the job as it ended here, or null when it did not end here (handed on, taken back,
   * canceled elsewhere, or its end could not be recorded).
   */
  private async settle(row: JobRow, controller: AbortController, attempt: AttemptOutcome): Promise<JobRow | null> {
    const { files } = this.options;
    const jobId = row.job_id;
    const formats = rowFormats(row);
    const workDir = files.jobDir(jobId);
    let finished: JobRow | null = null;
    let unrecorded = false;
    let handedOn = false;
    if (attempt.kind === 'published') {
      try {
        finished = await this.recordSucceeded(row, controller, attempt);
      } catch (error) {
        unrecorded = true;
        this.report('a rendered and uploaded video could not be recorded; the job runs again when its lease runs out', {
          event: 'job_unrecorded',
          job_id: jobId,
          tenant: row.tenant,
          attempt: row.attempts,
          error: errorDetail(error),
        });
      }
    } else {
      const fault = this.options.claimAny && !controller.signal.aborted ? workerFaultOf(attempt.error) : null;
      // Gone before the job is recorded, so no reader ever sees a failed job with a video.
      await this.discard(row, formats);
      try {
        if (fault !== null) {
          finished = await this.handOn(row, fault, attempt.error);
          handedOn = finished?.state === 'queued';
          if (handedOn) finished = null;
        } else finished = await this.recordFailed(row, attempt);
      } catch (error) {
        // Still ours (its lease runs out later): nothing else works in its directory.
        unrecorded = true;
        this.report("a job's failure could not be recorded; it runs again when its lease runs out", {
          event: 'job_unrecorded',
          job_id: jobId,
          tenant: row.tenant,
          attempt: row.attempts,
          error: errorDetail(error),
          failure: errorDetail(attempt.error),
        });
      }
    }
    if (finished?.state === 'succeeded') this.health.noteHealthy();
    if (finished === null && !unrecorded && !handedOn) await this.tellGivenUp(row);
    if (finished === null || finished.state !== 'succeeded') {
      // Canceled, re-queued, failed or lost to another attempt: no video may stay where a result is expected.
      await this.discard(row, formats);
      // Failed, canceled or stopped: the attempt's scratch (photos, render-*.tmp.mp4 and its parts, soundtrack.m4a)
      // goes too, on every machine (docs/operations.md "Scratch space"). A render that lost its row to
      // another attempt leaves the directory alone: with a shared data directory that attempt may be working in it.
      if (finished !== null || unrecorded || handedOn || controller.signal.aborted) await this.removeScratch(jobId, workDir);
    } else if (!files.inPlace) {
      // The video is in the blob store: the scratch directory has served its purpose.
      await this.removeScratch(jobId, workDir);
    }
    if (finished !== null) this.options.onTerminal(finished);
    return finished;
  }

  /**
   * Records a published attempt succeeded. The video is verified and stored: it is never thrown
   * away because the database is away. The record is retried with back-off for as long as the job
   * is still this worker's (the pool renews its lease once the database answers, and aborts the
   * attempt when the job was canceled or handed on meanwhile). A write whose answer was lost but
   * which went through is recognised on the next try.
   */
  private async recordSucceeded(
    row: JobRow,
    controller: AbortController,
    attempt: Extract<AttemptOutcome, { kind: 'published' }>,
  ): Promise<JobRow | null> {
    const { records } = this.options;
    const { outcome, outputs } = attempt;
    if (controller.signal.aborted) return null;
    const patch = {
      stage: null,
      progress: 1,
      finished_at: new Date().toISOString(),
      lease_expires_at: null,
      result_json: JSON.stringify(outcome.result),
      outputs_json: JSON.stringify(outputs),
      listing_json: JSON.stringify(listingSummary(outcome.listing)),
      warnings_json: JSON.stringify(outcome.warnings),
    };
    const wonBy = (current: JobRow | undefined): boolean =>
      current !== undefined && current.state === 'succeeded' && current.owner === this.owner.id && current.attempts === row.attempts;
    return rideOut(
      `recording ${row.job_id} succeeded`,
      async () => {
        // Guarded on still owning the row: of two attempts that both uploaded, only one is recorded.
        const moved = await records.transition(row.job_id, 'succeeded', patch, (current) => this.isMine(current));
        if (moved !== null) return moved;
        const current = await records.row(row.job_id);
        return wonBy(current) ? current! : null;
      },
      { ...this.rideOutOptions(row, 'finish'), budgetMs: Number.POSITIVE_INFINITY, signal: controller.signal },
    );
  }

  /** Records an attempt that failed on the job's own account (or was stopped) as `failed`, if the job is still ours. */
  private recordFailed(row: JobRow, attempt: Extract<AttemptOutcome, { kind: 'failed' }>): Promise<JobRow | null> {
    const { error, timedOut } = attempt;
    const failure = jobError(error, this.options.watchdogMs, timedOut);
    if (failure.code === 'SERVICE_UNAVAILABLE')
      this.report(`render attempt failed: ${failure.message}`, {
        event: 'job_attempt_failed',
        job_id: row.job_id,
        tenant: row.tenant,
        attempt: row.attempts,
        error: errorDetail(error),
      });
    return rideOut(
      `recording ${row.job_id} failed`,
      () =>
        this.options.records.transition(
          row.job_id,
          'failed',
          {
            stage: null,
            finished_at: new Date().toISOString(),
            lease_expires_at: null,
            error_code: failure.code,
            error_message: failure.message,
            // What the render noticed before failing (each photo left out, and why) stays with the job.
            ...(isAppError(error) && error.warnings.length > 0 ? { warnings_json: JSON.stringify(error.warnings) } : {}),
          },
          (current) => this.isMine(current),
        ),
      this.rideOutOptions(row, 'finish'),
    );
  }

  /**
   * A fault of this worker (docs/jobs.md "Worker faults"): the worker stops claiming for a while,
   * and the job goes back to the queue for another worker, charged once as it is. Its attempt
   * counts, so a job that meets faults on every worker still ends: past its last attempt it fails
   * `SERVICE_UNAVAILABLE` (refunded), in words that name no path of this machine.
   */
  private handOn(row: JobRow, fault: WorkerFaultKind, error: unknown): Promise<JobRow | null> {
    this.health.noteFault(fault, { job_id: row.job_id, error: errorDetail(error) });
    const { records } = this.options;
    const last = row.attempts >= MAX_ATTEMPTS;
    this.report(
      last
        ? `job failed: a fault of each worker that tried it (${describeWorkerFault(fault)} here)`
        : `job handed to another worker: ${describeWorkerFault(fault)} here`,
      {
        event: last ? 'job_worker_faults' : 'job_handed_on',
        job_id: row.job_id,
        tenant: row.tenant,
        attempt: row.attempts,
        max_attempts: MAX_ATTEMPTS,
        reason: fault,
      },
      last ? 'error' : 'warn',
    );
    const patch: JobPatch = last
      ? {
          ...finalFailurePatch(WORKER_FAULTS_MESSAGE),
          error_code: 'SERVICE_UNAVAILABLE',
        }
      : { stage: null, progress: 0, owner: null, owner_host: null, owner_pid: null, lease_expires_at: null };
    return rideOut(
      `handing ${row.job_id} on`,
      () => records.transition(row.job_id, last ? 'failed' : 'queued', patch, (current) => this.isMine(current)),
      this.rideOutOptions(row, 'finish'),
    );
  }

  /**
   * One line per job this worker gave up because it is no longer its own: its lease ran out while
   * the worker was frozen or cut off, and another took it (docs/operations.md "Logs"). A cancel
   * and a shutdown are not news here.
   */
  private async tellGivenUp(row: JobRow): Promise<void> {
    if (!this.accepting) return;
    let current: JobRow | undefined;
    try {
      current = await this.options.records.row(row.job_id);
    } catch (error) {
      this.report('gave up a job that is no longer this worker’s (its state could not be read)', {
        event: 'job_given_up',
        job_id: row.job_id,
        tenant: row.tenant,
        attempt: row.attempts,
        error: String(error),
      });
      return;
    }
    if (current === undefined || current.state === 'canceled') return;
    this.report(`gave up ${row.job_id}: it is no longer this worker's (its lease ran out and it was handed on)`, {
      event: 'job_given_up',
      job_id: row.job_id,
      tenant: row.tenant,
      attempt: row.attempts,
      state: current.state,
      owner: current.owner ?? '',
    });
  }

  private isMine(current: JobRow): boolean {
    return current.state === 'running' && current.owner === this.owner.id;
  }

  /** Removes the attempt's videos; what resists is `jobs purge`'s, and is logged. */
  private async discard(row: JobRow, formats: readonly VideoFormat[]): Promise<void> {
    await this.options.files.discardOutput(row.job_id, row.attempts, formats).catch((error: unknown) =>
      this.report('a video of an attempt that did not succeed could not be removed; jobs purge removes it', {
        job_id: row.job_id,
        error: String(error),
      }),
    );
  }

  /** Removes an attempt's scratch directory; what resists is `jobs purge`'s, and is logged. */
  private async removeScratch(jobId: string, workDir: string): Promise<void> {
    await rm(workDir, { recursive: true, force: true }).catch((error: unknown) =>
      this.report('a scratch directory could not be removed; jobs purge removes it', { job_id: jobId, error: String(error) }),
    );
  }

  /**
   * Stops taking jobs; lets running renders finish for up to `drainMs`, then puts the rest back
   * in the queue (without counting the attempt: this was a clean shutdown, not a crash).
   */
  async close(drainMs: number): Promise<void> {
    this.accepting = false;
    this.wanted.clear();
    for (const resolve of this.idleWaiters.splice(0)) resolve();
    const deadline = Date.now() + Math.max(0, drainMs);
    while (this.active.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, Math.min(100, this.options.pollMs)));
    const leftovers = [...this.active.entries()];
    for (const [jobId, render] of leftovers) {
      try {
        const current = await this.options.records.row(jobId);
        await this.options.records.transition(
          jobId,
          'queued',
          {
            stage: null,
            progress: 0,
            owner: null,
            owner_host: null,
            owner_pid: null,
            lease_expires_at: null,
            attempts: Math.max(0, (current?.attempts ?? 1) - 1),
          },
          (current) => current.state === 'running' && current.owner === this.owner.id,
        );
      } catch (error) {
        // The store may be busy or closing; the lease expiry will re-queue the job instead.
        this.report('a running job could not be put back in the queue at shutdown; its lease hands it on', {
          job_id: jobId,
          error: String(error),
        });
      }
      render.controller.abort(new Error('shutting down'));
    }
    // Give aborted renders a moment to stop their ffmpeg processes and clean up.
    await Promise.race([Promise.allSettled(leftovers.map(([, r]) => r.done)), new Promise((r) => setTimeout(r, 5000).unref())]);
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    liveOwners.delete(this.owner.id);
  }
}

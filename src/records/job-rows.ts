import { jobErrorReason } from '../core/job-errors.js';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { badRequest } from '../core/errors.js';
import {
  JOB_STATES,
  type JobRecord,
  type JobStage,
  type JobState,
  type JobOutput,
  type ListJobsOptions,
  type VideoFormat,
  type VideoResult,
  type Warning,
} from '../core/types.js';
import { formatPathOf, posterPathOf } from '../core/paths.js';
import type { ValidRenderRequest } from '../render/types.js';
import type { HeldBackFact, JobList, Property } from '../core/types.js';
import { isJobId } from '../core/job-ids.js';
import { isTerminal } from '../core/job-state.js';
import { MAX_LIST_LIMIT } from '../core/job-limits.js';
import type { BillableRoute, Charge } from './quota.js';
import type { IdempotentRequest } from './idempotency.js';

/**
 * Job logic that does not depend on the database: the row, list-option checks and the record a row
 * becomes. The SQLite JobStore (store.ts) and the PostgreSQL records (src/records/postgres/jobs.ts)
 * both use these, so both backends answer with the same records and the same errors.
 */

export const DEFAULT_LIST_LIMIT = 20;

/**
 * One row of the `jobs` table, without the stored request: that can hold a saved page of several
 * MB, so it is only read when a job runs (`requestOf`), never when jobs are listed.
 */
/** The columns of a `JobRow`, in table order: what every store selects (the stored request is read apart). */
export const JOB_ROW_COLUMNS = [
  'job_id',
  'tenant',
  'state',
  'stage',
  'progress',
  'attempts',
  'created_at',
  'updated_at',
  'started_at',
  'finished_at',
  'template',
  'format',
  'language',
  'input_hash',
  'allow_local_files',
  'link_base',
  'listing_json',
  'result_json',
  'error_code',
  'error_message',
  'warnings_json',
  'metadata_json',
  'owner',
  'owner_host',
  'owner_pid',
  'lease_expires_at',
  'expired_at',
  'formats_json',
  'outputs_json',
  'units',
  'charge_key_id',
  'charge_period',
  'refunded_at',
].join(', ');

/** What `count` counts: jobs, or the outputs (videos) they make. */
export type CountUnit = 'jobs' | 'outputs';

export interface JobRow {
  job_id: string;
  tenant: string;
  state: JobState;
  stage: JobStage | null;
  progress: number;
  attempts: number;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
  template: string;
  format: string;
  language: string;
  input_hash: string;
  allow_local_files: number;
  link_base: string | null;
  listing_json: string | null;
  result_json: string | null;
  error_code: string | null;
  error_message: string | null;
  warnings_json: string;
  metadata_json: string | null;
  owner: string | null;
  owner_host: string | null;
  owner_pid: number | null;
  lease_expires_at: number | null;
  expired_at: string | null;
  /** The job's formats in request order (JSON); null on rows written before packs: `[format]`. */
  formats_json: string | null;
  /** Each output's verified properties (`StoredOutput[]`, JSON) once succeeded; null before, and on rows written before packs. */
  outputs_json: string | null;
  /** Quota units this job took (docs/api.md "Monthly quota"); 0 for a job made without an API key. */
  units: number;
  /** The API key and month (`YYYY-MM`) whose quota the units were taken from; null when none were. */
  charge_key_id: string | null;
  charge_period: string | null;
  /** When the units were given back (the job failed on the caller's input or on our outage); null otherwise. */
  refunded_at: string | null;
}

/** What a row keeps of one output: what ffprobe verified, and whether its poster was drawn. */
export type StoredOutput = Omit<VideoResult, 'video_url' | 'expired_at'> & { format: VideoFormat; poster: boolean };

/** The formats of a row: `formats_json`, or the one `format` of a row written before packs. */
export function rowFormats(row: Pick<JobRow, 'format' | 'formats_json'>): VideoFormat[] {
  return row.formats_json === null ? [row.format as VideoFormat] : (JSON.parse(row.formats_json) as VideoFormat[]);
}

/**
 * A stored request as the job layer reads it: one stored before packs has no `formats` and is
 * read as `[format]` (docs/jobs.md "Outputs").
 */
export function storedRequest(json: string): ValidRenderRequest {
  const request = JSON.parse(json) as Omit<ValidRenderRequest, 'formats'> & { formats?: VideoFormat[] };
  return { ...request, formats: request.formats ?? [request.format] };
}

/** The listing a row keeps: the record's `listing`, and the facts held back (the record's `held_back`). */
export type ListingSummary = NonNullable<JobRecord['listing']> & { held_back?: HeldBackFact[] };

export interface CheckedListOptions {
  limit: number;
  state: JobState | undefined;
  cursor: string | undefined;
}

export function checkListOptions(options: ListJobsOptions = {}): CheckedListOptions {
  const limit = options.limit ?? DEFAULT_LIST_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
    throw badRequest(`limit must be a whole number from 1 to ${MAX_LIST_LIMIT}, not ${String(options.limit)}.`, {
      reason: 'invalid_field',
      details: [{ field: 'limit', message: `must be an integer from 1 to ${MAX_LIST_LIMIT}` }],
    });
  }
  if (options.state !== undefined && !(JOB_STATES as readonly string[]).includes(options.state)) {
    throw badRequest(`Unknown state ${JSON.stringify(options.state)}: use one of ${JOB_STATES.join(', ')}.`, {
      reason: 'invalid_field',
      details: [{ field: 'state', message: `must be one of ${JOB_STATES.join(', ')}` }],
    });
  }
  if (options.cursor !== undefined && !isJobId(options.cursor)) {
    throw badRequest('Invalid cursor: pass the next_cursor value of the previous page unchanged.', {
      reason: 'invalid_field',
      details: [{ field: 'cursor', message: 'not a cursor returned by this API' }],
    });
  }
  return { limit, state: options.state, cursor: options.cursor };
}

/** A failed job's error, with its `reason` when one is known (../core/job-errors.ts). */
function jobError(code: string, message: string): { code: string; message: string; reason?: string } {
  const reason = jobErrorReason(code, message);
  return reason === undefined ? { code, message } : { code, message, reason };
}

/** The job record (docs/jobs.md) as the API and the CLI print it; `jobsDir` makes local-mode file links. */
export function toJobRecord(row: JobRow, jobsDir: string): JobRecord {
  const dir = join(jobsDir, row.job_id);
  const expired = row.expired_at !== null;
  const stored = row.result_json === null ? null : (JSON.parse(row.result_json) as Omit<VideoResult, 'video_url'>);
  let links: JobRecord['links'];
  if (row.link_base === null) {
    links = {
      self: pathToFileURL(`${dir}/`).href,
      video: stored === null ? null : pathToFileURL(join(dir, 'output.mp4')).href,
      cancel: null,
    };
  } else {
    const self = `${row.link_base}/jobs/${row.job_id}`;
    links = { self, video: stored === null ? null : `${self}/video`, cancel: isTerminal(row.state) ? null : `${self}/cancel` };
  }
  const result: VideoResult | null =
    stored === null ? null : { video_url: links.video as string, ...stored, ...(expired ? { expired_at: row.expired_at as string } : {}) };
  const formats = rowFormats(row);
  const outputs = row.state === 'succeeded' && stored !== null ? jobOutputs(row, formats, stored, dir) : null;
  if (expired) links = { ...links, video: null };
  return {
    job_id: row.job_id,
    state: row.state,
    stage: row.state === 'running' ? row.stage : null,
    progress: row.progress,
    attempts: row.attempts,
    created_at: row.created_at,
    updated_at: row.updated_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
    template: row.template,
    format: row.format as JobRecord['format'],
    formats,
    language: row.language as JobRecord['language'],
    ...listingOfRow(row.listing_json),
    result: row.state === 'succeeded' ? result : null,
    outputs,
    error: row.state === 'failed' && row.error_code !== null ? jobError(row.error_code, row.error_message ?? '') : null,
    warnings: JSON.parse(row.warnings_json) as Warning[],
    metadata: row.metadata_json === null ? null : (JSON.parse(row.metadata_json) as Record<string, unknown>),
    links,
    // What the job was charged, for a job made with an API key: one unit per output (docs/api.md "Monthly quota").
    ...(row.charge_key_id === null ? {} : { units: row.units }),
  };
}

/**
 * The outputs of a succeeded row (docs/jobs.md "Outputs"), each with its own links: through the API
 * `…/video?format=<format>` and `…/poster?format=<format>`, in local mode the files of the job's
 * directory. A row written before packs has one output, its `result`, whose poster is assumed drawn
 * (the poster route says `no_poster` when it was not). Purged files have no poster link.
 */
function jobOutputs(row: JobRow, formats: VideoFormat[], primary: Omit<VideoResult, 'video_url'>, dir: string): JobOutput[] {
  const stored: StoredOutput[] =
    row.outputs_json === null ? [{ ...primary, format: formats[0]!, poster: true }] : (JSON.parse(row.outputs_json) as StoredOutput[]);
  const expired = row.expired_at !== null;
  return stored.map(({ poster, ...output }, index) => {
    let video: string;
    let posterUrl: string;
    if (row.link_base === null) {
      const file = index === 0 ? join(dir, 'output.mp4') : (formatPathOf(join(dir, 'output.mp4'), output.format) as string);
      video = pathToFileURL(file).href;
      posterUrl = pathToFileURL(posterPathOf(file) as string).href;
    } else {
      const self = `${row.link_base}/jobs/${row.job_id}`;
      video = `${self}/video?format=${output.format}`;
      posterUrl = `${self}/poster?format=${output.format}`;
    }
    return {
      video_url: video,
      ...output,
      ...(expired ? { expired_at: row.expired_at as string } : {}),
      poster_url: poster && !expired ? posterUrl : null,
    };
  });
}

/** Columns a state transition may set besides `state` and `updated_at`. */
export type JobPatch = Partial<
  Pick<
    JobRow,
    | 'stage'
    | 'progress'
    | 'attempts'
    | 'started_at'
    | 'finished_at'
    | 'listing_json'
    | 'result_json'
    | 'outputs_json'
    | 'error_code'
    | 'error_message'
    | 'warnings_json'
    | 'owner'
    | 'owner_host'
    | 'owner_pid'
    | 'lease_expires_at'
  >
>;

/** Who holds a running job: one worker pool in one process. */
export interface Owner {
  id: string;
  host: string;
  pid: number;
}

/**
 * A request's stored JSON and input hash, made where a large body was parsed (off the server's
 * event loop, docs/security.md "Measured"): serialising a 5 MB page again here would stall it.
 */
export interface PreparedRequest {
  requestJson: string;
  inputHash: string;
}

export interface NewJob {
  jobId: string;
  tenant: string;
  request: ValidRenderRequest;
  /** The whole request as JSON when `request` is a copy without its page (a large body); else made from `request`. */
  requestJson?: string;
  inputHash: string;
  allowLocalFiles: boolean;
  linkBase: string | null;
  /** The quota charge, written with the row (an API submission); none in local mode. */
  charge?: Charge;
  /**
   * The submission's `Idempotency-Key`: the stored answer is written with the row, and a key used
   * already gives back its job's row instead of a new one (a different `job_id` than asked for).
   */
  idempotency?: IdempotentRequest;
  /** The webhook outbox row of the job, written with it. */
  webhookUrl?: string | null;
}

/** What a submission brings besides its request: whose it is, and what is written with its row. */
export interface JobSubmitOptions extends Pick<NewJob, 'charge' | 'idempotency' | 'webhookUrl'> {
  tenant: string;
  /** The stored JSON and input hash of the whole request, when `request` lacks its page (a large body). */
  prepared?: PreparedRequest;
}

/** The quota route render jobs are charged to. */
export const JOB_CHARGE_ROUTE: BillableRoute = 'render_video';

/**
 * Whether a job moving to `to` with `errorCode` gives its units back (docs/api.md "Monthly quota"):
 * it failed on the caller's input (`BAD_REQUEST`) or because a service of ours stayed down
 * (`SERVICE_UNAVAILABLE`, docs/operations.md "Outages"). The refund is written in the transaction
 * that ends the job, once (`refunded_at`).
 */
export function refundsCharge(
  row: Pick<JobRow, 'units' | 'refunded_at' | 'charge_key_id'>,
  to: JobState,
  errorCode: string | null,
): boolean {
  if (row.units <= 0 || row.refunded_at !== null || row.charge_key_id === null || to !== 'failed') return false;
  return errorCode === 'BAD_REQUEST' || errorCode === 'SERVICE_UNAVAILABLE';
}

/**
 * The columns of a new row that say what it was charged, in the order of both stores' INSERT
 * (units, charge_key_id, charge_period).
 */
export function chargeValues(job: Pick<NewJob, 'charge'>): (string | number | null)[] {
  return job.charge === undefined ? [0, null, null] : [job.charge.units, job.charge.keyId, job.charge.period];
}

/**
 * Job records and their state machine (src/core/job-state.ts): every state change goes through
 * `transition`. Two implementations: SQLite (src/records/sqlite/jobs.ts through src/records/sqlite) and
 * PostgreSQL (src/records/postgres/jobs.ts); the job layer never knows which one runs.
 */
export interface JobRecords {
  insert(job: NewJob): Promise<JobRow>;
  row(jobId: string): Promise<JobRow | undefined>;
  /** The validated request a job was submitted with (read only when it runs). */
  requestOf(jobId: string): Promise<ValidRenderRequest>;
  /** The record the API and the CLI print. */
  toRecord(row: JobRow): JobRecord;
  /** Newest first, cursor-paginated; bad options are a 400 that says which field. */
  list(tenant: string, options?: ListJobsOptions): Promise<JobList>;
  /** Jobs in `states`, or (`outputs`) the videos they make: a pack of three is three. */
  count(tenant: string | null, states: readonly JobState[], unit?: CountUnit): Promise<number>;
  /** Read, check the edge, write — atomically; null when the job is gone or `guard` refuses. */
  transition(jobId: string, to: JobState, patch?: JobPatch, guard?: (row: JobRow) => boolean): Promise<JobRow | null>;
  /**
   * Takes a queued job (optionally among `onlyIds`, never of `skipTenants`) for `owner`: of the
   * tenant with the fewest jobs running, the oldest (docs/scaling.md "Fairness"); never the same job
   * twice, and never a job of a tenant that already has MAX_RUNNING_PER_TENANT running (src/core/job-limits.ts).
   */
  claimNext(owner: Owner, leaseMs: number, onlyIds?: readonly string[], skipTenants?: readonly string[]): Promise<JobRow | null>;
  renewLeases(owner: Owner, leaseMs: number): Promise<void>;
  stillOwned(owner: Owner, jobIds: readonly string[]): Promise<Set<string>>;
  setProgress(jobId: string, owner: Owner, stage: JobStage, progress: number): Promise<void>;
  runningJobs(): Promise<JobRow[]>;
  purgeable(cutoffIso: string): Promise<JobRow[]>;
  markExpired(jobId: string): Promise<void>;
  /**
   * The render queue of a backend that dispatches jobs through one (PostgreSQL: pg-boss, see
   * docs/scaling.md "Dispatch"); absent for SQLite, whose worker pools claim rows themselves.
   */
  openQueue?(settings: QueueSettings): Promise<JobQueue>;
}

/** Timings of a dispatching queue (docs/scaling.md "Failure modes"). */
export interface QueueSettings {
  /** The longest one attempt may hold its queue entry before the queue hands it to another worker. */
  expireInSeconds: number;
  /** Seconds before the first retry of a failed or abandoned attempt (doubling after). */
  retryDelaySeconds: number;
  /** Tries in all (first one included) before a job ends `failed`. */
  attempts: number;
}

export interface QueueMessage {
  jobId: string;
  /** The job's tenant, as the entry names it (absent from entries written before it was). */
  tenant?: string;
}

/** What a worker can take now (docs/scaling.md "Fairness"): how many more entries, and of which tenants none. */
export interface DeliveryRoom {
  free: number;
  fullTenants: readonly string[];
}

/**
 * A queue that dispatches jobs to workers: the job row and its entry are written together, each
 * entry is handed to one worker at a time, retried when its attempt fails, and dead-lettered when
 * its attempts are used up.
 */
export interface JobQueue {
  readonly settings: Readonly<QueueSettings>;
  /** Inserts the row and its entry in one transaction (neither exists without the other). */
  submit(job: NewJob): Promise<JobRow>;
  /**
   * Runs `handler` for delivered entries while `room()` says the worker can take more, fairly between
   * tenants (docs/scaling.md "Fairness"): resolve = done, throw = retry.
   */
  work(room: () => DeliveryRoom, handler: (message: QueueMessage) => Promise<void>): Promise<void>;
  /** Runs `handler` for entries whose attempts are used up. */
  workDeadLetters(handler: (message: QueueMessage) => Promise<void>): Promise<void>;
  /** Fails the current attempt of a job's entry now (its worker is gone), so it is retried or dead-lettered at once. */
  abandon(jobId: string, reason: string): Promise<void>;
  /** Withdraws a job's entry (canceled). */
  cancel(jobId: string): Promise<void>;
  /** Stops taking entries (running handlers go on). */
  stopWork(): Promise<void>;
  /** Stops everything; waits up to `timeoutMs` for running handlers. */
  stop(timeoutMs?: number): Promise<void>;
}

/** A render is tried at most this many times when its worker keeps dying (docs/jobs.md). */
export const MAX_ATTEMPTS = 3;

/** The listing summary a job row keeps (title, place, price) for lists. */
export function listingSummary(property: Pick<Property, 'title' | 'city' | 'district' | 'price_mad' | 'held_back'>): ListingSummary {
  const summary: ListingSummary = {
    title: property.title,
    city: property.city,
    district: property.district,
    price_mad: property.price_mad,
  };
  if (property.held_back !== undefined && property.held_back.length > 0)
    summary.held_back = property.held_back.map((fact) => ({ ...fact }));
  return summary;
}

/** The record's `listing` and `held_back` from the row's listing column (held back facts are kept with the listing). */
function listingOfRow(json: string | null): Pick<JobRecord, 'listing' | 'held_back'> {
  if (json === null) return { listing: null, held_back: [] };
  const { held_back: heldBack, ...listing } = JSON.parse(json) as ListingSummary;
  return { listing, held_back: heldBack ?? [] };
}

/**
 * The columns a new job row takes from its submission, in the order of both stores' INSERT
 * (template, format, language, request_json, input_hash, allow_local_files, link_base,
 * listing_json, metadata_json, formats_json): SQLite here, PostgreSQL in src/records/postgres/jobs.ts.
 */
export function newJobValues(job: NewJob): (string | number | null)[] {
  return [
    job.request.template,
    job.request.format,
    job.request.language,
    job.requestJson ?? JSON.stringify(job.request),
    job.inputHash,
    job.allowLocalFiles ? 1 : 0,
    job.linkBase,
    job.request.listing === null ? null : JSON.stringify(listingSummary(job.request.listing)),
    job.request.metadata === null ? null : JSON.stringify(job.request.metadata),
    JSON.stringify(job.request.formats),
  ];
}

const nowIso = (): string => new Date().toISOString();

/** The patch that fails a job for good with `message` (a render tried too many times). */
export function finalFailurePatch(message: string): JobPatch {
  return { stage: null, finished_at: nowIso(), lease_expires_at: null, error_code: 'RENDER_FAILED', error_message: message };
}

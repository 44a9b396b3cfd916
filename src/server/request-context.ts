import type { BodyBudget } from './body-budget.js';
import type { BodyFingerprint } from '../core/hash.js';
import type { RawJsonBody } from '../core/json-body.js';
import type { Metrics } from '../core/metrics.js';
import type { JobList, JobRecord, JobState, ListJobsOptions, Property, VideoFormat } from '../core/types.js';
import type { Logger, LogProcess } from '../core/logger.js';
import type { ValidAnalyzeRequest } from '../core/analyze-rules.js';
import type { ValidRenderRequest } from '../render/types.js';
import type { CountUnit, JobSubmitOptions } from '../records/job-rows.js';
import type { CheckedRenderBody } from './render-body-pool.js';
import type { ServerLimits } from './api-limits.js';
import type { RouteRegistry } from './route-spec.js';
import type { BlobStore } from '../blobs/types.js';
import type { RecordStore } from '../records/types.js';
import type { StudioLogin } from './studio/session.js';
import type { SessionLifetime } from '../records/studio-sessions.js';
import type { OutageWatch } from './outage-watch.js';

/**
 * What routes are given: the app's parts and settings. Routes import this file, never app.ts
 * (which imports the routes), so the server has no import cycle.
 */

/** What the HTTP layer needs from the job layer (JobManager satisfies it), on either backend. */
export interface JobsPort {
  /**
   * A job, with its charge, webhook row and stored idempotent answer in one transaction; `replayed`
   * when the `Idempotency-Key` made its job already (that job is returned). `prepared`: the
   * request's stored JSON and input hash, made off the event loop for a large body.
   */
  submitOnce(request: ValidRenderRequest, options: JobSubmitOptions): Promise<{ job: JobRecord; replayed: boolean }>;
  get(jobId: string): Promise<{ job: JobRecord; tenant: string } | null>;
  list(tenant: string, options?: ListJobsOptions): Promise<JobList>;
  cancel(jobId: string): Promise<JobRecord>;
  /** The blob key of the verified video (of its output in `format`; default the primary) of a succeeded, unpurged job; null otherwise. */
  videoKey(jobId: string, format?: VideoFormat): Promise<string | null>;
  /** Jobs, or (`outputs`) the videos they make (a pack of three is three). */
  countJobs(tenant: string, states: JobState[], unit?: CountUnit): Promise<number>;
}

export interface LogOptions {
  stream: NodeJS.WritableStream;
  level?: string;
  /** Which process writes (the `process` field; default `serve`). */
  process?: LogProcess;
  /** A logger already made by `createLogger` (core/logger.ts): the app logs through it instead of making one. */
  logger?: Logger;
}

/** What the analysis worker pool does with a large JSON body it is given unparsed (AnalysisPool satisfies it). */
export interface JsonBodyAnalysis {
  analyze(body: RawJsonBody, signal: AbortSignal): Promise<Property>;
  /** Checks the body (its 400 first) and fingerprints it for `Idempotency-Key`; gives the body back. */
  fingerprint(body: RawJsonBody, route: string, signal: AbortSignal): Promise<{ fingerprint: BodyFingerprint; body: RawJsonBody }>;
}

/** Everything the app is built from: real parts in production, the same parts on a temp dir in tests. */
export interface ServerDeps {
  /** Keys, quotas, idempotency, rate limits, assets, webhooks: SQLite or PostgreSQL (docs/scaling.md). */
  records: RecordStore;
  /** Uploaded assets and finished videos: the data directory or a bucket. */
  blobs: BlobStore;
  jobs: JobsPort;
  /** An analysis of a request the route has checked (`validateAnalyzeRequest`): checked once, at the front door. */
  analyze(checked: ValidAnalyzeRequest, signal: AbortSignal): Promise<Property>;
  /**
   * Large analysis bodies parsed, checked and analysed off the event loop (docs/security.md
   * "Measured"); without it, every body is parsed and checked here.
   */
  analyzeJson?: JsonBodyAnalysis;
  /** Large render bodies parsed and checked off the event loop (docs/security.md "Measured"); without it, here. */
  renderJson?: { check(body: RawJsonBody, route: string, signal: AbortSignal): Promise<CheckedRenderBody> };
  /** The body as received: the schema and the rules are checked here (docs/api.md "One schema per input"). */
  validateRender(request: unknown): ValidRenderRequest | Promise<ValidRenderRequest>;
  limits?: Partial<ServerLimits>;
  now?: () => number;
  /** JSON lines; false = silent. */
  log?: LogOptions | false;
  /** Fetches to loopback addresses are allowed (tests only): webhook URLs on 127.0.0.1 are accepted. */
  allowLoopbackFetch?: boolean;
  /** Browser origins allowed by CORS (`--cors-origin`); none (the default) = no CORS headers. */
  corsOrigins?: readonly string[];
  /** Refusals counted for the operator (docs/operations.md "Metrics"); default none. */
  metrics?: Metrics;
  /** Where template stills are cached once drawn (`<data dir>/cache/stills`; docs/studio.md "Templates and formats"). */
  stillsDir?: string;
  /**
   * The Studio page at `/` (docs/studio.md); `login` is the one-time link of `immoreel studio`;
   * `bindHost` and `publicHosts` the names it answers at; `sessionLifetime` how long a sign-in lasts.
   */
  studio?: { login?: StudioLogin; root?: string; bindHost?: string; publicHosts?: readonly string[]; sessionLifetime?: SessionLifetime };
  /** `--trust-proxy`: the server is reached through a reverse proxy whose X-Forwarded-* headers are believed. */
  trustProxy?: boolean;
}

export interface ServerContext {
  deps: ServerDeps;
  limits: ServerLimits;
  registry: RouteRegistry;
  now: () => number;
  startedAt: number;
  /** This node's outages of its database and storage, logged and counted once each (docs/operations.md "Logs"). */
  outages: OutageWatch;
  /** Bytes of request bodies held at once, per caller and in all (./body-budget.ts). */
  bodyBudget: BodyBudget;
}

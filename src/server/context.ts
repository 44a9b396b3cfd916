import type { JobList, JobRecord, JobState, ListJobsOptions, Property } from '../core/types.js';
import type { AnalyzeRequest, RenderRequest } from '../core/requests.js';
import type { ValidRenderRequest } from '../render/types.js';
import type { ServerLimits } from './config.js';
import type { RouteRegistry } from './route-spec.js';
import type { BlobStore } from '../storage/types.js';
import type { ServerStore } from './store.js';
import type { StudioLogin } from './studio/session.js';

/**
 * What routes are given: the app's parts and settings. Routes import this file, never app.ts
 * (which imports the routes), so the server has no import cycle.
 */

/** What the HTTP layer needs from the job layer (JobManager satisfies it). */
export interface JobsPort {
  submit(request: ValidRenderRequest, options: { tenant: string }): Promise<JobRecord>;
  get(jobId: string): Promise<{ job: JobRecord; tenant: string } | null>;
  list(tenant: string, options?: ListJobsOptions): Promise<JobList>;
  cancel(jobId: string): Promise<JobRecord>;
  /** The blob key of the verified video of a succeeded, unpurged job; null otherwise. */
  videoKey(jobId: string): Promise<string | null>;
  countJobs(tenant: string, states: JobState[]): Promise<number>;
}

export interface LogOptions {
  stream: NodeJS.WritableStream;
  level?: string;
}

/** Everything the app is built from: real parts in production, the same parts on a temp dir in tests. */
export interface ServerDeps {
  store: ServerStore;
  jobs: JobsPort;
  /** Where job videos are kept (docs/scaling.md "Blob store"). */
  blobs: BlobStore;
  analyze(request: AnalyzeRequest, signal: AbortSignal): Promise<Property>;
  validateRender(request: RenderRequest): ValidRenderRequest | Promise<ValidRenderRequest>;
  limits?: Partial<ServerLimits>;
  now?: () => number;
  /** JSON lines; false = silent. */
  log?: LogOptions | false;
  /** Fetches to loopback addresses are allowed (tests only): webhook URLs on 127.0.0.1 are accepted. */
  allowLoopbackFetch?: boolean;
  /** Browser origins allowed by CORS (`--cors-origin`); none (the default) = no CORS headers. */
  corsOrigins?: readonly string[];
  /** The Studio page at `/` (docs/studio.md); `login` is the one-time link of `immoreel studio`. */
  studio?: { login?: StudioLogin; root?: string };
}

export interface ServerContext {
  deps: ServerDeps;
  limits: ServerLimits;
  registry: RouteRegistry;
  now: () => number;
  startedAt: number;
}

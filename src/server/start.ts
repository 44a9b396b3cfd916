import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { fetchListingPage, type FetchPageOptions } from '../analysis/portals/index.js';
import { AnalysisPool, type AnalysisPoolOptions } from '../analysis/worker-pool.js';
import type { FfmpegSettings, JobTimingSettings } from '../config/config-schema.js';
import { badRequest } from '../core/errors.js';
import { JobManager, type RenderEngine } from '../jobs/manager.js';
import { warnOnStderr, type ProblemReporter } from '../jobs/pool.js';
import { NO_METRICS, type Metrics } from '../core/metrics.js';
import { createLogger, reporterOf } from '../core/logger.js';
import { guardedFetch, timedFetch } from '../net/fetch.js';
import { validateRenderRequest } from '../render/index.js';
import { RenderBodyPool } from './render-body-pool.js';
import type { BlobStore } from '../blobs/index.js';
import { openBackends } from '../records/open-backends.js';
import type { RecordStore } from '../records/types.js';
import { buildApp, type LogOptions } from './app.js';
import { purgeExpiredAssets, resolveAsset } from '../records/assets.js';
import { API_PREFIX, type ServerLimits } from './api-limits.js';
import { startJobEndDuties, type JobEndDuties } from './job-end.js';
import type { StudioLogin } from './studio/session.js';
import type { SessionLifetime } from '../records/studio-sessions.js';

/**
 * `immoreel serve` without the CLI: opens the records, the blobs and the job layer, builds the
 * app, listens, and knows how to stop in order (docs/api.md, graceful shutdown). The same server
 * runs on the embedded default (SQLite + the data directory) and on PostgreSQL + S3, where any
 * node answers any request (docs/scaling.md).
 */

/**
 * What the server runs with. `serve` and `studio` fill it from the run's configuration
 * (docs/configuration.md): the server reads no environment itself.
 */
export interface StartOptions {
  dataDir: string;
  /** Where ffmpeg and ffprobe are (`Config.ffmpeg`). */
  ffmpeg: FfmpegSettings;
  /** Lease and queue timings (`Config.jobs`); default 60 s, 900 s, 10 s. */
  timings?: JobTimingSettings;
  /** The AWS_* variables for an s3:// storage URL (`Config.aws`). */
  aws?: Readonly<Record<string, string>>;
  /** IMMOREEL_EUR_TO_MAD (`Config.eurToMad`), for every analysis of this server. */
  eurToMad?: number;
  /** The record store to serve from; the caller keeps it (and closes it). Default: opened from `databaseUrl`. */
  records?: RecordStore;
  /** The blob store to serve from; the caller keeps it. Default: opened from `storageUrl`. */
  blobs?: BlobStore;
  /** `--database-url`: unset = the SQLite file of the data directory. */
  databaseUrl?: string;
  /** `--storage-url`: unset = files in the data directory. */
  storageUrl?: string;
  host: string;
  /** 0 = any free port (the bound address is in `url`). */
  port: number;
  concurrency?: number;
  limits?: Partial<ServerLimits>;
  /** Lets server-side fetches reach 127.0.0.1/::1 (tests with loopback fixture servers only). */
  allowLoopbackFetch?: boolean;
  log?: LogOptions | false;
  /** Browser origins allowed by CORS; none = CORS off. */
  corsOrigins?: readonly string[];
  webhookBackoffMs?: number[];
  webhookPollMs?: number;
  /** Test seam: a fake render engine. */
  engine?: RenderEngine;
  watchdogMs?: number;
  /** Analysis worker threads and the time budget of one analysis (docs/security.md). */
  analysis?: AnalysisPoolOptions;
  /** The one-time sign-in link of `immoreel studio`. */
  studioLogin?: StudioLogin;
  /** What `serve --metrics-port` exports (docs/operations.md "Metrics"); default none. */
  metrics?: Metrics;
  /** `--trust-proxy` (`Config.trustProxy`): X-Forwarded-Proto/-For/-Host are believed. */
  trustProxy?: boolean;
  /** `--public-host` (`Config.publicHosts`): names the Studio answers to besides the bound address's. */
  publicHosts?: readonly string[];
  /** How long a Studio sign-in lasts (`Config.sessions`); default 2 h idle, 12 h in all. */
  sessionLifetime?: SessionLifetime;
}

export interface RunningServer {
  url: string;
  app: FastifyInstance;
  records: RecordStore;
  blobs: BlobStore;
  jobs: JobManager;
  /** Settles quota charges and sends webhooks of ended jobs (src/server/job-end.ts). */
  duties: JobEndDuties;
  /** Stops accepting, finishes in-flight requests, lets renders finish for `drainMs` (then re-queues them), closes the store. */
  close(options?: { drainMs?: number }): Promise<void>;
}

const HOUSEKEEPING_MS = 10 * 60_000;

/** A port in use or a host that is not ours is the user's to fix, not a bug. */
function listenError(error: unknown, options: StartOptions): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `${options.host}:${options.port}`;
  if (code === 'EADDRINUSE')
    return badRequest(`Port ${options.port} is already in use on ${options.host}: stop the other server or pick another --port.`, {
      details: [{ field: 'port', message: 'in use' }],
    });
  if (code === 'EACCES')
    return badRequest(`Not allowed to listen on ${where} (ports below 1024 need privileges): pick another --port.`, {
      details: [{ field: 'port', message: 'not permitted' }],
    });
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
    return badRequest(
      `Cannot listen on ${options.host}: no such local address. Use 127.0.0.1, 0.0.0.0 or one of this machine's addresses.`,
      { details: [{ field: 'host', message: 'not a local address' }] },
    );
  return error;
}

/**
 * The backends to serve from: those the caller opened (it keeps and closes them), or those the
 * configuration names, opened, checked and migrated by `openBackends` (closed with the server).
 */
async function backendsFor(options: StartOptions): Promise<{ records: RecordStore; blobs: BlobStore; close(): Promise<void> }> {
  if (options.records !== undefined && options.blobs !== undefined)
    return { records: options.records, blobs: options.blobs, close: async () => undefined };
  const opened = await openBackends({
    dataDir: options.dataDir,
    databaseUrl: options.databaseUrl,
    storageUrl: options.storageUrl,
    env: options.aws,
  });
  if (options.records === undefined && options.blobs === undefined) return opened;
  // One given, one opened: only the opened one is ours to close.
  await (options.records === undefined ? opened.blobs : opened.records).close();
  const records = options.records ?? opened.records;
  const blobs = options.blobs ?? opened.blobs;
  return {
    records,
    blobs,
    async close() {
      await (options.records === undefined ? records : blobs).close();
    },
  };
}

export async function startServer(options: StartOptions): Promise<RunningServer> {
  const allowLoopback = options.allowLoopbackFetch === true;
  // One port for every server-side fetch: listing pages, photos, logos, webhooks.
  const fetch = guardedFetch({ allowLoopback });
  const backends = await backendsFor(options);
  const { records, blobs } = backends;
  const metrics = options.metrics ?? NO_METRICS;
  // Listing pages fetched for POST /analyze and for the analyses of renders are timed (docs/operations.md "Metrics").
  const fetchPage = (url: string, fetchOptions: FetchPageOptions): Promise<string> =>
    fetchListingPage(url, { ...fetchOptions, fetch: timedFetch(fetch, metrics) });
  // Analysis never runs on this event loop, for requests or renders: one crafted page must not
  // stall every other request (docs/security.md).
  const analysis = new AnalysisPool({
    ...options.analysis,
    ...(options.eurToMad === undefined ? {} : { eurToMad: options.eurToMad }),
  });
  let jobs: JobManager;
  // One logger for the app and the job layer, made before either (docs/operations.md "Logs").
  const logger =
    options.log === undefined || options.log === false ? null : (options.log.logger ?? createLogger({ process: 'serve', ...options.log }));
  const report: ProblemReporter = logger === null ? warnOnStderr : reporterOf(logger);
  try {
    jobs = await JobManager.open({
      dataDir: options.dataDir,
      records,
      blobs,
      ffmpeg: options.ffmpeg,
      ...(options.timings === undefined ? {} : { timings: options.timings }),
      concurrency: options.concurrency,
      // With PostgreSQL, `immoreel worker` processes render; an API node renders too only when
      // given --concurrency (docs/scaling.md "Topology").
      runWorkers: records.kind !== 'postgres' || options.concurrency !== undefined,
      engine: options.engine,
      resolveAsset: (tenant, assetId, scratchDir) => resolveAsset({ records, blobs }, tenant, assetId, scratchDir),
      allowLocalFiles: false,
      guardedFetch: fetch,
      linkBase: API_PREFIX,
      watchdogMs: options.watchdogMs,
      analyze: (input, signal) => analysis.analyze(input, { fetchPage, signal }),
      report,
      metrics,
    });
  } catch (error) {
    await analysis.close();
    await backends.close();
    throw error;
  }

  // Large render bodies are parsed in their own threads, like large analysis bodies (docs/security.md "Measured").
  const renderBodies = new RenderBodyPool();
  const app = buildApp({
    records,
    blobs,
    jobs,
    analyze: (checked, signal) => analysis.analyzeChecked(checked, { fetchPage, signal }),
    analyzeJson: {
      analyze: (body, signal) => analysis.analyzeJson(body, { fetchPage, signal }),
      fingerprint: (body, route, signal) => analysis.fingerprintJson(body, route, signal),
    },
    validateRender: (request) => validateRenderRequest(request, 'server'),
    renderJson: renderBodies,
    limits: options.limits,
    log: logger === null ? options.log : { ...(options.log as LogOptions), logger },
    allowLoopbackFetch: allowLoopback,
    corsOrigins: options.corsOrigins,
    metrics,
    trustProxy: options.trustProxy,
    stillsDir: join(options.dataDir, 'cache', 'stills'),
    studio: {
      login: options.studioLogin,
      bindHost: options.host,
      publicHosts: options.publicHosts,
      ...(options.sessionLifetime === undefined ? {} : { sessionLifetime: options.sessionLifetime }),
    },
  });

  // Also sends deliveries owed by jobs that ended elsewhere (a worker) or while no server ran.
  const duties = startJobEndDuties({
    records,
    fetch,
    backoffMs: options.webhookBackoffMs,
    pollMs: options.webhookPollMs,
    ...(logger === null ? {} : { log: reporterOf(logger) }),
  });
  // onTerminal catches and logs its own failures (the sweep retries them): the job layer does not wait on it.
  jobs.onTerminal((job, tenant) => void duties.onTerminal(job, tenant));

  try {
    await app.listen({ host: options.host, port: options.port });
  } catch (error) {
    await duties.stop();
    await jobs.close();
    await renderBodies.close();
    await analysis.close();
    await backends.close();
    throw listenError(error, options);
  }
  const housekeeping = setInterval(() => {
    records.idempotency.purgeExpired().catch((error: unknown) => app.log.warn({ err: error }, 'idempotency purge failed'));
    purgeExpiredAssets({ records, blobs }).catch((error: unknown) => app.log.warn({ err: error }, 'asset purge failed'));
    records.sessions.purgeExpired().catch((error: unknown) => app.log.warn({ err: error }, 'studio session purge failed'));
    records.shares.purgeExpired().catch((error: unknown) => app.log.warn({ err: error }, 'share link purge failed'));
  }, HOUSEKEEPING_MS);
  housekeeping.unref();

  const address = app.server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${host}:${address.port}`,
    app,
    records,
    blobs,
    jobs,
    duties,
    close(closeOptions = {}) {
      closing ??= (async () => {
        clearInterval(housekeeping);
        // Answer 503 + Retry-After while the renders drain; close the listener after.
        app.drain();
        await jobs.close({ drainMs: closeOptions.drainMs ?? 0 });
        await app.close();
        await duties.stop();
        await renderBodies.close();
        await analysis.close();
        await backends.close();
      })();
      return closing;
    },
  };
}

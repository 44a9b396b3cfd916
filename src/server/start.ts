import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { fetchListingPage, type FetchPageOptions } from '../analysis/portals/index.js';
import { AnalysisPool, type AnalysisPoolOptions } from '../analysis/worker-pool.js';
import { badRequest } from '../core/errors.js';
import { JobManager, type RenderEngine } from '../jobs/manager.js';
import { guardedFetch } from '../net/fetch.js';
import { validateRenderRequest } from '../render/index.js';
import { buildApp, type LogOptions } from './app.js';
import { API_PREFIX, type ServerLimits } from './config.js';
import type { StudioLogin } from './studio/session.js';
import { openServerStore, type ServerStore } from './store.js';
import { webhookSender, WebhookDispatcher } from './webhooks.js';

/**
 * `immoreel serve` without the CLI: opens the store and the job layer of a data directory,
 * builds the app, listens, and knows how to stop in order (docs/api.md, graceful shutdown).
 */

export interface StartOptions {
  dataDir: string;
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
}

export interface RunningServer {
  url: string;
  app: FastifyInstance;
  store: ServerStore;
  jobs: JobManager;
  webhooks: WebhookDispatcher;
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

export async function startServer(options: StartOptions): Promise<RunningServer> {
  const allowLoopback = options.allowLoopbackFetch === true;
  // One port for every server-side fetch: listing pages, photos, logos, webhooks.
  const fetch = guardedFetch({ allowLoopback });
  const store = openServerStore(options.dataDir);
  const fetchPage = (url: string, fetchOptions: FetchPageOptions): Promise<string> => fetchListingPage(url, { ...fetchOptions, fetch });
  // Analysis never runs on this event loop, for requests or renders: one crafted page must not
  // stall every other request (docs/security.md).
  const analysis = new AnalysisPool(options.analysis);
  let jobs: JobManager;
  try {
    jobs = JobManager.open({
      dataDir: options.dataDir,
      concurrency: options.concurrency,
      engine: options.engine,
      resolveAsset: async (tenant, assetId) => store.assets.resolve(tenant, assetId),
      allowLocalFiles: false,
      guardedFetch: fetch,
      linkBase: API_PREFIX,
      watchdogMs: options.watchdogMs,
      analyze: (input, signal) => analysis.analyze(input, { fetchPage, signal }),
    });
  } catch (error) {
    await analysis.close();
    store.close();
    throw error;
  }

  const app = buildApp({
    store,
    jobs,
    analyze: (request, signal) => analysis.analyze(request, { fetchPage, signal }),
    analyzeJson: {
      analyze: (body, signal) => analysis.analyzeJson(body, { fetchPage, signal }),
      fingerprint: (body, route, signal) => analysis.fingerprintJson(body, route, signal),
    },
    validateRender: (request) => validateRenderRequest(request, 'server'),
    limits: options.limits,
    log: options.log,
    allowLoopbackFetch: allowLoopback,
    corsOrigins: options.corsOrigins,
    studio: { login: options.studioLogin },
  });

  const webhooks = new WebhookDispatcher({
    store: store.webhooks,
    secretFor: (tenant) => store.keys.webhookSecret(tenant),
    send: webhookSender(fetch),
    backoffMs: options.webhookBackoffMs,
    pollMs: options.webhookPollMs,
    onError: (message, fields) => app.log.warn(fields, message),
  });
  jobs.onTerminal((job) => {
    // A job that failed on the caller's input gives its quota unit back (docs/security.md).
    store.usage.settleJob(job.job_id, job.state === 'failed' && job.error?.code === 'BAD_REQUEST');
    webhooks.onTerminal(job);
  });
  // Jobs that ended while no server ran (a `worker` process, a crash): their webhooks are still owed.
  for (const jobId of store.webhooks.waitingJobIds()) {
    const found = jobs.get(jobId);
    if (found !== null && ['succeeded', 'failed', 'canceled'].includes(found.job.state)) webhooks.onTerminal(found.job);
  }

  try {
    await app.listen({ host: options.host, port: options.port });
  } catch (error) {
    await jobs.close();
    await analysis.close();
    store.close();
    throw listenError(error, options);
  }
  webhooks.start();
  const housekeeping = setInterval(() => {
    store.idempotency.purgeExpired();
    store.assets.purgeExpired().catch((error: unknown) => app.log.warn({ err: error }, 'asset purge failed'));
  }, HOUSEKEEPING_MS);
  housekeeping.unref();

  const address = app.server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${host}:${address.port}`,
    app,
    store,
    jobs,
    webhooks,
    close(closeOptions = {}) {
      closing ??= (async () => {
        clearInterval(housekeeping);
        await app.close();
        await jobs.close({ drainMs: closeOptions.drainMs ?? 0 });
        await webhooks.stop();
        await analysis.close();
        store.close();
      })();
      return closing;
    },
  };
}

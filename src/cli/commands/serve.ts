import type { Command } from 'commander';
import { badRequest } from '../../core/errors.js';
import type { Config } from '../../config/config-schema.js';
import type { ServerLimits } from '../../server/api-limits.js';
import type { StartOptions } from '../../server/start.js';
import { surviveQueueWritesLostToOutages } from '../lost-queue-writes.js';
import { metricsPortOf } from '../metrics-port.js';
import { contextFor } from '../command-context.js';

export interface ServeFlags {
  host: string;
  port: string;
  concurrency?: string;
  analyzeRate: string;
  renderRate: string;
  jobReadRate: string;
  previewConcurrency: string;
  maxQueued: string;
  rateWindowMs: string;
  drainMs: string;
  allowLoopbackFetch?: boolean;
  corsOrigin?: string[];
  trustProxy?: boolean;
  publicHost?: string[];
  logLevel: string;
}

export function wholeNumber(value: string, flag: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < min || n > max) {
    throw badRequest(
      `${flag} must be a whole number from ${min}${max === Number.MAX_SAFE_INTEGER ? '' : ` to ${max}`}, not ${JSON.stringify(value)}.`,
      {
        details: [{ field: flag.replace(/^--/, ''), message: `must be a whole number ≥ ${min}` }],
      },
    );
  }
  return n;
}

/** `--cors-origin` values: `*` or origins as browsers send them (scheme://host[:port], no path). */
function corsOrigins(values: string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  return values
    .flatMap((v) => v.split(','))
    .map((value) => {
      const origin = value.trim();
      if (origin === '*') return origin;
      let url: URL | null = null;
      try {
        url = new URL(origin);
      } catch {
        url = null;
      }
      if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin.replace(/\/$/, '')) {
        throw badRequest(
          `--cors-origin ${JSON.stringify(origin)} is not an origin: give scheme://host[:port], e.g. https://crm.example.com, or *.`,
          {
            details: [{ field: '--cors-origin', message: 'must be an origin like https://crm.example.com' }],
          },
        );
      }
      return url.origin;
    });
}

/** What `serve` and `studio` hand the server from the configuration (docs/configuration.md). */
export function serverSettings(config: Config): Pick<StartOptions, 'ffmpeg' | 'timings' | 'aws' | 'eurToMad' | 'sessionLifetime'> {
  return {
    ffmpeg: config.ffmpeg,
    timings: config.jobs,
    aws: config.aws,
    sessionLifetime: { idleMs: config.sessions.idleSeconds * 1000, maxMs: config.sessions.maxSeconds * 1000 },
    ...(config.eurToMad === undefined ? {} : { eurToMad: config.eurToMad }),
  };
}

/** `serve`: the HTTP API on this data directory, until SIGTERM/SIGINT. */
export async function serve(flags: ServeFlags, command: Command): Promise<void> {
  const ctx = contextFor(command);
  const limits: Partial<ServerLimits> = {
    windowMs: wholeNumber(flags.rateWindowMs, '--rate-window-ms', 100),
    analyzePerWindow: wholeNumber(flags.analyzeRate, '--analyze-rate', 1),
    renderPerWindow: wholeNumber(flags.renderRate, '--render-rate', 1),
    jobReadsPerWindow: wholeNumber(flags.jobReadRate, '--job-read-rate', 1),
    previewConcurrentRenders: wholeNumber(flags.previewConcurrency, '--preview-concurrency', 1),
    maxQueuedJobs: wholeNumber(flags.maxQueued, '--max-queued', 1),
  };
  const port = wholeNumber(flags.port, '--port', 0, 65535);
  const drainMs = wholeNumber(flags.drainMs, '--drain-ms', 0);
  // Loaded here: fastify and the job layer are only needed by this command.
  const { startServer } = await import('../../server/start.js');
  const { config } = ctx;
  const { databaseUrl, storageUrl } = ctx.backendOptions();
  // The server's logger does not exist yet: a start-up wait is written as one of its JSON lines.
  const backends = await ctx.openBackends({
    note: (msg) =>
      process.stderr.write(
        `${JSON.stringify({ level: 'warn', time: new Date().toISOString(), service: 'immoreel', event: 'startup_wait', msg })}\n`,
      ),
  });
  const metricsPort = await metricsPortOf(config);
  const server = await startServer({
    ...(metricsPort === null ? {} : { metrics: metricsPort.metrics }),
    ...{ databaseUrl, storageUrl, records: backends.records, blobs: backends.blobs },
    ...serverSettings(config),
    dataDir: config.dataDir,
    host: flags.host,
    port,
    concurrency: flags.concurrency === undefined ? undefined : wholeNumber(flags.concurrency, '--concurrency', 1, 30),
    limits,
    allowLoopbackFetch: config.allowLoopbackFetch,
    corsOrigins: corsOrigins(flags.corsOrigin),
    trustProxy: config.trustProxy,
    publicHosts: config.publicHosts,
    log: { stream: process.stderr, level: flags.logLevel },
  }).catch(async (error: unknown) => {
    await backends.close();
    throw error;
  });
  // Listened for before "listening" is written: a script that stops the server as soon as it reads
  // that line must get a clean shutdown, not the default signal death.
  const signalled = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  // Lifecycle lines are written whatever --log-level says: scripts wait for "listening".
  const lifecycle = server.app.log.child({}, { level: 'info' });
  if (ctx.namesSharedBackends()) lifecycle.info({ event: 'backends' }, backends.describe());
  lifecycle.info({ event: 'listening', url: server.url, api: `${server.url}/api/v1` }, 'immoreel API v1 listening');
  // The metrics port (docs/operations.md "Metrics"): a port that cannot be had stops the server as it started.
  const metricsUrl = await metricsPort?.listen({ records: server.records, blobs: server.blobs }).catch(async (error: unknown) => {
    await server.close();
    await backends.close();
    throw error;
  });
  if (metricsUrl !== undefined) lifecycle.info({ event: 'metrics', url: `${metricsUrl}/metrics` }, 'metrics listening');
  // A long-running node outlives queue writes lost to a database restart (../lost-queue-writes.ts).
  surviveQueueWritesLostToOutages((message) => server.app.log.warn({ event: 'queue_write_lost' }, message));
  if (config.allowLoopbackFetch)
    server.app.log.warn({ event: 'config' }, 'server-side fetches may reach loopback addresses (--allow-loopback-fetch): for tests only');
  const signal = await signalled;
  lifecycle.info({ event: 'shutdown', signal }, 'shutting down: no new requests, draining renders');
  await server.close({ drainMs });
  await metricsPort?.close();
  await backends.close();
  lifecycle.info({ event: 'stopped' }, 'stopped');
}

import { Command, Option } from 'commander';
import { badRequest } from '../../core/errors.js';
import { resolveDataDir } from '../../core/paths.js';
import { DEFAULT_LIMITS, type ServerLimits } from '../../server/config.js';
import { contextFor } from '../context.js';

const EXAMPLES = `
Examples:
  $ immoreel keys create --tenant acme            # on the same data directory, before or while serving
  $ immoreel serve                                # http://127.0.0.1:8080/api/v1
  $ immoreel serve --host 0.0.0.0 --port 8080 --concurrency 4
  $ immoreel serve --port 0                       # any free port: the address is logged on stderr

Logs are JSON lines on stderr (request id, route, status, latency; never keys or bodies).
The first line with "event":"listening" carries the bound "url". SIGTERM/SIGINT stop the
server gracefully: no new requests, running renders get --drain-ms to finish, then re-queue.`;

interface ServeFlags {
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
  logLevel: string;
}

export function wholeNumber(value: string, flag: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < min || n > max) {
    throw badRequest(`${flag} must be a whole number from ${min}${max === Number.MAX_SAFE_INTEGER ? '' : ` to ${max}`}, not ${JSON.stringify(value)}.`, {
      details: [{ field: flag.replace(/^--/, ''), message: `must be a whole number ≥ ${min}` }],
    });
  }
  return n;
}

/** `--cors-origin` values: `*` or origins as browsers send them (scheme://host[:port], no path). */
function corsOrigins(values: string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  return values.flatMap((v) => v.split(',')).map((value) => {
    const origin = value.trim();
    if (origin === '*') return origin;
    let url: URL | null = null;
    try {
      url = new URL(origin);
    } catch {
      url = null;
    }
    if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin.replace(/\/$/, '')) {
      throw badRequest(`--cors-origin ${JSON.stringify(origin)} is not an origin: give scheme://host[:port], e.g. https://crm.example.com, or *.`, {
        details: [{ field: '--cors-origin', message: 'must be an origin like https://crm.example.com' }],
      });
    }
    return url.origin;
  });
}

export function serveCommand(): Command {
  return new Command('serve')
    .description('Run the HTTP API v1 (analysis, render jobs, keys, quotas, rate limits) on this data directory.')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 = any free port)', '8080')
    .option('--concurrency <n>', 'renders at once (1–30; default: min(30, CPU cores))')
    .option('--analyze-rate <n>', 'analyze requests per key per minute (the contract states 100 and 60; 60 satisfies both)', String(DEFAULT_LIMITS.analyzePerWindow))
    .option('--render-rate <n>', 'render-video requests per key per minute', String(DEFAULT_LIMITS.renderPerWindow))
    .option('--job-read-rate <n>', 'job reads (status, list, video) per key per minute', String(DEFAULT_LIMITS.jobReadsPerWindow))
    .option('--preview-concurrency <n>', 'jobs queued or running at once per preview tenant', String(DEFAULT_LIMITS.previewConcurrentRenders))
    .option('--max-queued <n>', 'jobs waiting in the queue per tenant', String(DEFAULT_LIMITS.maxQueuedJobs))
    .option('--cors-origin <origin...>', 'let browser pages of these origins call the API (e.g. https://crm.example.com; * = any). Default: no CORS')
    .option('--drain-ms <ms>', 'on shutdown, how long running renders may finish before being re-queued', '25000')
    .addOption(new Option('--log-level <level>', 'log level').choices(['fatal', 'error', 'warn', 'info', 'debug']).default('info'))
    // Test and benchmark knobs: documented in docs/api.md, kept out of the everyday help.
    .addOption(new Option('--rate-window-ms <ms>', 'length of every rate-limit window (tests shorten it)').default(String(DEFAULT_LIMITS.windowMs)).hideHelp())
    .addOption(
      new Option('--allow-loopback-fetch', 'let server-side fetches reach 127.0.0.1/::1 (tests with local fixture servers only)')
        .env('IMMOREEL_ALLOW_LOOPBACK_FETCH')
        .hideHelp(),
    )
    .addHelpText('after', EXAMPLES)
    .action(async (flags: ServeFlags, command: Command) => {
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
      const server = await startServer({
        dataDir: resolveDataDir(ctx.globals.dataDir),
        host: flags.host,
        port,
        concurrency: flags.concurrency === undefined ? undefined : wholeNumber(flags.concurrency, '--concurrency', 1, 30),
        limits,
        allowLoopbackFetch: flags.allowLoopbackFetch === true,
        corsOrigins: corsOrigins(flags.corsOrigin),
        log: { stream: process.stderr, level: flags.logLevel },
      });
      // Lifecycle lines are written whatever --log-level says: scripts wait for "listening".
      const lifecycle = server.app.log.child({}, { level: 'info' });
      lifecycle.info({ event: 'listening', url: server.url, api: `${server.url}/api/v1` }, 'immoreel API v1 listening');
      if (flags.allowLoopbackFetch) server.app.log.warn({ event: 'config' }, 'server-side fetches may reach loopback addresses (--allow-loopback-fetch): for tests only');
      await new Promise<void>((resolve, reject) => {
        const stop = (signal: NodeJS.Signals): void => {
          lifecycle.info({ event: 'shutdown', signal }, 'shutting down: no new requests, draining renders');
          server.close({ drainMs }).then(() => {
            lifecycle.info({ event: 'stopped' }, 'stopped');
            resolve();
          }, reject);
        };
        process.once('SIGTERM', stop);
        process.once('SIGINT', stop);
      });
    });
}

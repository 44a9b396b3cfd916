import { Command, Option } from 'commander';
import { defaultConcurrency } from '../../core/job-limits.js';
import { lazy } from './lazy.js';
import { DEFAULT_LIMITS } from '../../server/api-limits.js';

const EXAMPLES = `
Examples:
  $ immoreel keys create --tenant acme            # on the same data directory, before or while serving
  $ immoreel serve                                # http://127.0.0.1:8080/api/v1
  $ immoreel serve --host 0.0.0.0 --port 8080 --concurrency 4
  $ immoreel serve --port 0                       # any free port: the address is logged on stderr
  $ immoreel serve --metrics-port 9464            # Prometheus at http://127.0.0.1:9464/metrics (docs/operations.md)
  $ IMMOREEL_DATABASE_URL=postgres://… IMMOREEL_STORAGE_URL=s3://videos/prod immoreel serve --host 0.0.0.0
                                                  # one of several API nodes (docs/scaling.md)
  $ immoreel serve --trust-proxy --public-host studio.example.com
                                                  # behind a TLS proxy: the Studio at https://studio.example.com

Logs are JSON lines on stderr (request id, route, status, latency; never keys or bodies).
The first line with "event":"listening" carries the bound "url". SIGTERM/SIGINT stop the
server gracefully: no new requests, running renders get --drain-ms to finish, then re-queue.`;

export function serveCommand(): Command {
  return (
    new Command('serve')
      .description('Run the HTTP API v1 (analysis, render jobs, keys, quotas, rate limits) on this data directory.')
      .option('--host <host>', 'address to listen on', '127.0.0.1')
      .option('--port <port>', 'port to listen on (0 = any free port)', '8080')
      .option('--concurrency <n>', `renders at once (1–30; default here: ${defaultConcurrency()}, two per CPU core as memory allows)`)
      .option('--analyze-rate <n>', 'analyze requests per key per minute', String(DEFAULT_LIMITS.analyzePerWindow))
      .option('--render-rate <n>', 'render-video requests per key per minute', String(DEFAULT_LIMITS.renderPerWindow))
      .option('--job-read-rate <n>', 'job reads (status, list, video) per key per minute', String(DEFAULT_LIMITS.jobReadsPerWindow))
      .option(
        '--preview-concurrency <n>',
        'jobs queued or running at once per preview tenant',
        String(DEFAULT_LIMITS.previewConcurrentRenders),
      )
      .option('--max-queued <n>', 'jobs waiting in the queue per tenant', String(DEFAULT_LIMITS.maxQueuedJobs))
      .option(
        '--cors-origin <origin...>',
        'let browser pages of these origins call the API (e.g. https://crm.example.com; * = any). Default: no CORS',
      )
      .option(
        '--metrics-port <port>',
        'serve GET /metrics (Prometheus) on this separate port (0 = any free port; IMMOREEL_METRICS_PORT); default: off',
      )
      .option('--metrics-host <host>', 'address of the metrics port (default 127.0.0.1; IMMOREEL_METRICS_HOST)')
      .option(
        '--startup-wait <seconds>',
        'wait this long for a database or storage not reachable yet, retrying with backoff (default 120, 0 = fail at once; env: IMMOREEL_STARTUP_WAIT_SECONDS)',
      )
      .option(
        '--trust-proxy',
        'the server is reached only through a reverse proxy: believe its X-Forwarded-Proto/-For/-Host (env IMMOREEL_TRUST_PROXY)',
      )
      .option(
        '--public-host <host...>',
        'host names the Studio answers to besides the listening address, e.g. studio.example.com (env IMMOREEL_PUBLIC_HOST)',
      )
      .option('--drain-ms <ms>', 'on shutdown, how long running renders may finish before being re-queued', '25000')
      .addOption(
        new Option('--log-level <level>', 'log level of the JSON lines on stderr')
          .choices(['fatal', 'error', 'warn', 'info', 'debug'])
          .default('info'),
      )
      // Test and benchmark knobs: documented in docs/api.md, kept out of the everyday help.
      .addOption(
        new Option('--rate-window-ms <ms>', 'length of every rate-limit window (tests shorten it)')
          .default(String(DEFAULT_LIMITS.windowMs))
          .hideHelp(),
      )
      .addOption(
        new Option(
          '--allow-loopback-fetch',
          'let server-side fetches reach 127.0.0.1/::1 (tests with local fixture servers only)',
        ).hideHelp(),
      )
      .addHelpText('after', EXAMPLES)
      .action(lazy(async () => (await import('../commands/serve.js')).serve))
  );
}

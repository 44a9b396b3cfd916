import { Command, Option } from 'commander';
import { defaultConcurrency } from '../../core/job-limits.js';
import { lazy } from './lazy.js';

const EXAMPLES = `
Examples:
  $ immoreel worker                       # foreground, for systemd or a terminal (Ctrl-C drains and stops)
  $ immoreel worker --until-idle --quiet  # cron: render what is queued, then exit
  $ immoreel worker --concurrency 2
  $ immoreel worker --metrics-port 9464   # /metrics, /api/v1/health and /api/v1/ready on 127.0.0.1:9464
  $ IMMOREEL_DATABASE_URL=postgres://… IMMOREEL_STORAGE_URL=s3://videos/prod immoreel worker
                                          # one of several render machines (docs/scaling.md)

A database or storage not reachable yet is waited for (--startup-wait); a systemd unit
with Restart=on-failure is in docs/operations.md.`;

export function workerCommand(): Command {
  return new Command('worker')
    .description(
      'Render queued jobs in the foreground (for a service manager or cron): those of the data directory, or with --database-url and --storage-url those of the shared PostgreSQL queue, videos uploaded to the shared storage (the data directory is then only scratch space).',
    )
    .option('--until-idle', 'exit once nothing is queued and nothing runs here')
    .option('--concurrency <n>', `renders at once (1–30; default here: ${defaultConcurrency()}, two per CPU core as memory allows)`)
    .option(
      '--metrics-port <port>',
      'serve GET /metrics (Prometheus) and GET /api/v1/health, /api/v1/ready on this port (0 = any free port; IMMOREEL_METRICS_PORT); default: off',
    )
    .option('--metrics-host <host>', 'address of the metrics port (default 127.0.0.1; IMMOREEL_METRICS_HOST)')
    .option(
      '--startup-wait <seconds>',
      'wait this long for a database or storage not reachable yet, retrying with backoff (default 120, 0 = fail at once; env: IMMOREEL_STARTUP_WAIT_SECONDS)',
    )
    .addOption(
      new Option('--log-level <level>', 'log level of the JSON lines on stderr (default info; warn with --quiet)').choices([
        'fatal',
        'error',
        'warn',
        'info',
        'debug',
      ]),
    )
    .addOption(
      new Option('--allow-loopback-fetch', 'let API jobs fetch from 127.0.0.1/::1 (tests with local fixture servers only)').hideHelp(),
    )
    .addHelpText('after', EXAMPLES)
    .action(lazy(async () => (await import('../commands/worker.js')).worker));
}

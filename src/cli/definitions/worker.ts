import { Command, Option } from 'commander';
import { defaultConcurrency } from '../../core/job-limits.js';
import { lazy } from './lazy.js';

const EXAMPLES = `
Examples:
  $ immoreel worker                       # foreground, for systemd or a terminal (Ctrl-C drains and stops)
  $ immoreel worker --until-idle --quiet  # cron: render what is queued, then exit
  $ immoreel worker --concurrency 2
  $ IMMOREEL_DATABASE_URL=postgres://… IMMOREEL_STORAGE_URL=s3://videos/prod immoreel worker
                                          # one of several render machines (docs/scaling.md)`;

export function workerCommand(): Command {
  return new Command('worker')
    .description(
      'Render queued jobs in the foreground (for cron or a service manager): those of the data directory, or of the shared database with --database-url.',
    )
    .option('--until-idle', 'exit once nothing is queued and nothing runs here')
    .option('--concurrency <n>', `renders at once (1–30; default here: ${defaultConcurrency()}, two per CPU core as memory allows)`)
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

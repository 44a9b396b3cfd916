import { Command } from 'commander';
import { lazy } from './lazy.js';

const EXAMPLES = `
Examples:
  $ immoreel db status                                     # the data directory's SQLite file
  $ immoreel db status --database-url postgres://immoreel@db.internal/immoreel --json
  $ IMMOREEL_DATABASE_URL=postgres://… immoreel db migrate  # before starting new versions of serve/worker
  $ immoreel db reconcile --period 2026-11 --json          # quota used = units charged on jobs? exit 1 if not

serve and worker migrate at start too (under a PostgreSQL advisory lock, so several nodes starting
at once are safe); run \`db migrate\` alone to migrate as the database owner, or before a rollout.
Exit codes: 2 bad URL or missing database, 4 credentials refused, 6 database unreachable;
reconcile: 1 when the books differ.`;

export function dbCommand(): Command {
  const db = new Command('db')
    .description('Schema migrations of the records (SQLite in the data directory, or PostgreSQL with --database-url).')
    .addHelpText('after', EXAMPLES);

  db.command('status')
    .description("Each component's applied and pending schema versions; changes nothing.")
    .action(lazy(async () => (await import('../commands/db.js')).dbStatus));

  db.command('migrate')
    .description('Apply pending schema migrations (safe to run on several machines at once; a second run does nothing).')
    .action(lazy(async () => (await import('../commands/db.js')).dbMigrate));

  db.command('reconcile')
    .description("Compare each key's render quota used with the units charged on its jobs, per month; exit 1 on a difference.")
    .option('--period <YYYY-MM|all>', 'the month to check (default: this month, UTC), or all')
    .action(lazy(async () => (await import('../commands/db.js')).dbReconcile));

  return db;
}

import { Command } from 'commander';
import { lazy } from './lazy.js';

const EXAMPLES = `
Examples:
  $ immoreel db status                                     # the data directory's SQLite file
  $ immoreel db status --database-url postgres://immoreel@db.internal/immoreel --json
  $ IMMOREEL_DATABASE_URL=postgres://… immoreel db migrate  # before starting new versions of serve/worker

serve and worker migrate at start too (under a PostgreSQL advisory lock, so several nodes starting
at once are safe); run \`db migrate\` alone to migrate as the database owner, or before a rollout.
Exit codes: 2 bad URL or missing database, 4 credentials refused, 6 database unreachable.`;

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

  return db;
}

import type { Command } from 'commander';
import { badRequest } from '../../core/errors.js';
import { JOB_MIGRATION_COUNT } from '../../records/sqlite/jobs.js';
import { SERVER_MIGRATION_COUNT } from '../../records/sqlite/server-records.js';
import { databaseStatus, migrateDatabase, pendingVersions, type DatabaseOptions, type DatabaseStatus } from '../../records/migrations.js';
import { contextFor, type CommandContext } from '../command-context.js';

/** `immoreel db status|migrate` (docs/cli.md "Database and storage"). */

function databaseOptions(ctx: CommandContext): DatabaseOptions {
  if (ctx.mode === 'remote') {
    throw badRequest(
      'immoreel db works on the database of this machine (the data directory, or --database-url); the remote server migrates its own at start. Drop --profile/--base-url.',
      { reason: 'conflicting_flags' },
    );
  }
  const { dataDir, databaseUrl } = ctx.backendOptions();
  return { dataDir, databaseUrl, sqliteMigrations: { jobs: JOB_MIGRATION_COUNT, server: SERVER_MIGRATION_COUNT } };
}

function componentsJson(status: DatabaseStatus): object[] {
  return status.components.map((c) => ({
    component: c.component,
    applied: c.applied,
    available: c.available,
    pending: pendingVersions(c),
  }));
}

function statusLines(status: DatabaseStatus): string[] {
  const width = Math.max(...status.components.map((c) => c.component.length));
  return status.components.map((c) => {
    const pending = pendingVersions(c);
    const state =
      c.applied > c.available
        ? `newer than this immoreel (knows ${c.available})`
        : pending.length === 0
          ? 'up to date'
          : `pending: ${pending.join(', ')}`;
    return `  ${c.component.padEnd(width)}  version ${c.applied} of ${c.available}  ${state}`;
  });
}

function label(status: DatabaseStatus): string {
  return `${status.kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'} ${status.database}`;
}

/** `db status`: applied and pending versions per component; changes nothing. */
export async function dbStatus(_flags: unknown, command: Command): Promise<void> {
  const ctx = contextFor(command);
  const status = await databaseStatus(databaseOptions(ctx));
  const upToDate = status.components.every((c) => c.applied === c.available);
  if (ctx.output.json) {
    ctx.output.data({
      ok: true,
      status: 'success',
      backend: status.kind,
      database: status.database,
      up_to_date: upToDate,
      components: componentsJson(status),
    });
    return;
  }
  ctx.output.text([`${label(status)}`, ...statusLines(status)].join('\n'));
  if (!upToDate && status.components.every((c) => c.applied <= c.available))
    ctx.output.info('Pending migrations are applied by `immoreel db migrate`, or when serve/worker start.');
}

/** `db migrate`: applies what is pending (a second run does nothing); refuses a schema a newer immoreel wrote. */
export async function dbMigrate(_flags: unknown, command: Command): Promise<void> {
  const ctx = contextFor(command);
  const { after, applied } = await migrateDatabase(databaseOptions(ctx));
  if (ctx.output.json) {
    ctx.output.data({
      ok: true,
      status: 'success',
      backend: after.kind,
      database: after.database,
      applied,
      components: componentsJson(after),
    });
    return;
  }
  ctx.output.text(
    [
      applied.length === 0
        ? `${label(after)}: nothing to migrate, the schema is up to date.`
        : `${label(after)}: applied ${applied.map((a) => `${a.component} ${a.from + 1}${a.to > a.from + 1 ? `–${a.to}` : ''}`).join(', ')}.`,
      ...statusLines(after),
    ].join('\n'),
  );
}

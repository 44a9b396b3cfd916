import type { Command } from 'commander';
import { AppError, badRequest } from '../../core/errors.js';
import { periodOf, type ReconcileRow } from '../../records/quota.js';
import { JOB_MIGRATION_COUNT } from '../../records/sqlite/jobs.js';
import { SERVER_MIGRATION_COUNT } from '../../records/sqlite/server-records.js';
import { databaseStatus, migrateDatabase, pendingVersions, type DatabaseOptions, type DatabaseStatus } from '../../records/migrations.js';
import { contextFor, type CommandContext } from '../command-context.js';

/** `immoreel db status|migrate|reconcile` (docs/cli.md "Database and storage", docs/operations.md "Reconcile the books"). */

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

/** `--period YYYY-MM` (default: this month, UTC), or `all`. */
export function parsePeriod(value: string | undefined, now: number): string | null {
  if (value === undefined) return periodOf(now);
  if (value === 'all') return null;
  const match = /^(\d{4})-(\d{2})$/.exec(value.trim());
  if (match === null || Number(match[2]) < 1 || Number(match[2]) > 12) {
    throw badRequest(`--period must be a month as YYYY-MM (e.g. ${periodOf(now)}) or all, not ${JSON.stringify(value)}.`, {
      reason: 'invalid_field',
      details: [{ field: 'period', message: 'must be YYYY-MM or all' }],
    });
  }
  return value.trim();
}

function reconcileLine(row: ReconcileRow): string {
  const sign = row.difference > 0 ? `${row.difference} charged without a job` : `${-row.difference} job unit(s) not counted`;
  return `  ${row.key_id}  ${row.period}  quota used ${row.used}, units on jobs ${row.charged}${row.difference === 0 ? '' : `  ← ${sign}`}`;
}

/**
 * `db reconcile`: the render units each key's quota counts, per month, against the units its jobs
 * hold (charged, not refunded); exit 1 when any differ (docs/operations.md "Reconcile the books").
 */
export async function dbReconcile(flags: { period?: string }, command: Command): Promise<void> {
  const ctx = contextFor(command);
  // Refuses remote mode: the books are those of this machine's database.
  databaseOptions(ctx);
  const period = parsePeriod(flags.period, Date.now());
  const store = await ctx.openRecords();
  let rows: ReconcileRow[];
  try {
    rows = await store.usage.reconcile(period);
  } finally {
    await store.close();
  }
  const differing = rows.filter((row) => row.difference !== 0);
  const scope = period ?? 'every month';
  if (ctx.output.json) {
    // On a difference the error envelope (printed by main) carries them; one JSON document either way.
    if (differing.length === 0) ctx.output.data({ ok: true, status: 'success', period, keys: rows });
  } else {
    ctx.output.text(
      [
        `${ctx.recordsLabel()}: quota used against units charged on jobs, ${scope}`,
        ...(rows.length === 0 ? ['  (no render charged)'] : rows.map(reconcileLine)),
      ].join('\n'),
    );
  }
  if (differing.length > 0) {
    throw new AppError(
      'INTERNAL_SERVER_ERROR',
      `The books differ for ${differing.length} key-month(s) (${scope}): quota used and units charged on jobs are not equal.`,
      {
        reason: 'books_differ',
        details: differing.map((row) => ({
          field: `${row.key_id} ${row.period}`,
          message: `quota used ${row.used}, units on jobs ${row.charged} (difference ${row.difference})`,
        })),
      },
    );
  }
}

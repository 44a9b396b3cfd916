import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import PgBoss from 'pg-boss';
import { openSqlite } from './sqlite/driver.js';
import { connectError, migrationProblem, planDatabase } from './backends.js';
import { openSqliteRecordStore } from './sqlite/index.js';
import { migrate, migrationStatus, type MigrationStatus } from './postgres/migrate.js';
import { checkConnection, createPool, redactUrl, type Pool } from './postgres/connection.js';

/**
 * `immoreel db status` and `immoreel db migrate` on either backend (docs/cli.md "Database and storage"):
 * each component's schema version — applied, and what this version of immoreel knows.
 */

export type { MigrationStatus } from './postgres/migrate.js';

export interface DatabaseStatus {
  kind: 'sqlite' | 'postgres';
  /** The database, without its password. */
  database: string;
  components: MigrationStatus[];
}

export interface DatabaseOptions {
  dataDir: string;
  databaseUrl?: string;
  /**
   * Migrations the SQLite stores know, per component (`jobs`, `server`). Given by the caller: the
   * lists live with the stores that apply them at open.
   */
  sqliteMigrations: Record<string, number>;
}

/** pg-boss keeps its own schema (`pgboss`) and version; shown as one more component. */
const PGBOSS_SCHEMA_VERSION = (createRequire(import.meta.url)('pg-boss/version.json') as { schema: number }).schema;

/** The versions pending in a status: `jobs 2 of 3` → [3]. */
export function pendingVersions(status: MigrationStatus): number[] {
  const pending: number[] = [];
  for (let version = status.applied + 1; version <= status.available; version += 1) pending.push(version);
  return pending;
}

function sqliteStatus(dataDir: string, known: Record<string, number>): MigrationStatus[] {
  const file = join(dataDir, 'immoreel.db');
  const applied = new Map<string, number>();
  if (existsSync(file)) {
    // Read-only: `db status` never creates or changes the file.
    const db = openSqlite(file, { readonly: true, fileMustExist: true });
    try {
      const table = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
      if (table !== undefined) {
        for (const row of db.prepare('SELECT component, version FROM schema_migrations').all() as { component: string; version: number }[])
          applied.set(row.component, row.version);
      }
    } finally {
      db.close();
    }
  }
  return Object.entries(known).map(([component, available]) => ({ component, applied: applied.get(component) ?? 0, available }));
}

async function pgbossStatus(pool: Pool): Promise<MigrationStatus> {
  const { rows } = await pool.query<{ t: string | null }>("SELECT to_regclass('pgboss.version')::text AS t");
  let applied = 0;
  if (rows[0]?.t !== null && rows[0]?.t !== undefined) {
    const version = await pool.query<{ version: number }>('SELECT version FROM pgboss.version');
    applied = version.rows[0]?.version ?? 0;
  }
  return { component: 'pgboss', applied, available: PGBOSS_SCHEMA_VERSION };
}

async function withPool<T>(url: string, work: (pool: Pool) => Promise<T>): Promise<T> {
  const pool = createPool(url, { max: 2 });
  try {
    await checkConnection(pool, url);
    return await work(pool);
  } catch (error) {
    throw connectError(error, url);
  } finally {
    // Ignored: clean-up after the answer (or the connection error thrown above) is decided.
    await pool.end().catch(() => undefined);
  }
}

/** Applied and known versions per component; changes nothing (an SQLite file that does not exist is all pending). */
export async function databaseStatus(options: DatabaseOptions): Promise<DatabaseStatus> {
  const location = planDatabase(options);
  if (location.kind === 'sqlite') {
    return {
      kind: 'sqlite',
      database: join(options.dataDir, 'immoreel.db'),
      components: sqliteStatus(options.dataDir, options.sqliteMigrations),
    };
  }
  const components = await withPool(location.url, async (pool) => [...(await migrationStatus(pool)), await pgbossStatus(pool)]);
  return { kind: 'postgres', database: redactUrl(location.url), components };
}

/**
 * Applies what is pending and returns the status before and after. PostgreSQL: our components
 * under the advisory lock (several at once are safe: the others wait, then find nothing to do),
 * then pg-boss's schema under its own lock — its queues are created by the processes that use them.
 */
export interface AppliedMigrations {
  component: string;
  /** The version before this run and after it. */
  from: number;
  to: number;
}

export async function migrateDatabase(
  options: DatabaseOptions,
): Promise<{ before: DatabaseStatus; after: DatabaseStatus; applied: AppliedMigrations[] }> {
  const before = await databaseStatus(options);
  // A schema written by a newer immoreel is never touched by an older one.
  const newer = migrationProblem(before.components, true);
  if (newer !== null) throw newer;
  const location = planDatabase(options);
  if (location.kind === 'sqlite') {
    // The stores migrate when they open, inside an IMMEDIATE transaction (src/records/sqlite/driver.ts).
    const records = openSqliteRecordStore(options.dataDir);
    await records.close();
    const after = await databaseStatus(options);
    const applied = after.components
      .map((c) => ({
        component: c.component,
        from: before.components.find((b) => b.component === c.component)?.applied ?? 0,
        to: c.applied,
      }))
      .filter((change) => change.to > change.from);
    return { before, after, applied };
  }
  // What this run applied is counted under the lock: two `db migrate` at once on a fresh database
  // must not both say they applied everything (the second waits, then finds nothing to do).
  const applied = new Map<string, AppliedMigrations>();
  const note = (component: string, from: number, to: number): void => {
    const earlier = applied.get(component);
    applied.set(component, { component, from: earlier?.from ?? from, to });
  };
  await withPool(location.url, async (pool) => {
    await migrate(pool, undefined, {
      onApplied: (component, version) => note(component, version - 1, version),
      // pg-boss's schema under the same lock, so its report is exact too.
      whileLocked: async () => {
        const bossBefore = (await pgbossStatus(pool)).applied;
        const boss = new PgBoss({
          connectionString: location.url,
          max: 1,
          supervise: false,
          schedule: false,
          application_name: 'immoreel-migrate',
        });
        // pg-boss reports connection trouble here too; start() rejects with it, which is what we report.
        boss.on('error', () => undefined);
        await boss.start();
        await boss.stop({ graceful: false, wait: true, close: true });
        const bossAfter = (await pgbossStatus(pool)).applied;
        if (bossAfter > bossBefore) note('pgboss', bossBefore, bossAfter);
      },
    });
  });
  return { before, after: await databaseStatus(options), applied: [...applied.values()] };
}

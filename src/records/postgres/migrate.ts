import { checkOut, type Client, type Pool } from './connection.js';
import { SCHEMA, type PgMigration } from './schema.js';

/**
 * The advisory lock all immoreel nodes take before migrating (an arbitrary constant, "imrl" in
 * ASCII): several nodes starting at once apply each migration exactly once, the others wait and
 * then find nothing left to do.
 */
export const MIGRATION_LOCK_KEY = 0x696d726c;

export interface MigrationStatus {
  component: string;
  applied: number;
  available: number;
}

/**
 * Applies what the database lacks, component by component (`jobs`, `server`, as in SQLite), under
 * a session-level advisory lock held on one connection for the whole run.
 */
export interface MigrateHooks {
  /** Called for each version this call applied (not those another node applied meanwhile). */
  onApplied?: (component: string, version: number) => void;
  /** Runs while the lock is still held, after our components: more schema work that must not race. */
  whileLocked?: () => Promise<void>;
}

export async function migrate(
  pool: Pool,
  schema: Record<string, PgMigration[]> = SCHEMA,
  hooks: MigrateHooks = {},
): Promise<MigrationStatus[]> {
  const { client, release } = await checkOut(pool);
  let unfit: unknown;
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (component TEXT PRIMARY KEY, version INTEGER NOT NULL)');
      for (const [component, migrations] of Object.entries(schema)) {
        const current = await appliedVersion(client, component);
        for (let version = current; version < migrations.length; version += 1) {
          await client.query('BEGIN');
          try {
            await migrations[version]!(client);
            await client.query(
              `INSERT INTO schema_migrations (component, version) VALUES ($1, $2)
               ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version`,
              [component, version + 1],
            );
            await client.query('COMMIT');
            hooks.onApplied?.(component, version + 1);
          } catch (error) {
            // The migration's error is rethrown; a connection whose ROLLBACK fails is closed, not
            // pooled (PostgreSQL aborts the transaction of a closed connection).
            await client.query('ROLLBACK').catch((rollbackError: unknown) => {
              unfit = rollbackError;
            });
            throw error;
          }
        }
      }
      await hooks.whileLocked?.();
      return await readStatus(client, schema);
    } finally {
      // A session lock: a connection that could not unlock it is closed, not pooled, which releases it.
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch((unlockError: unknown) => {
        unfit = unlockError;
      });
    }
  } finally {
    release(unfit);
  }
}

/** What `immoreel db status` prints: applied and available versions per component. */
export async function migrationStatus(pool: Pool, schema: Record<string, PgMigration[]> = SCHEMA): Promise<MigrationStatus[]> {
  const { client, release } = await checkOut(pool);
  try {
    const exists = await client.query<{ t: string | null }>("SELECT to_regclass('schema_migrations')::text AS t");
    if (exists.rows[0]?.t === null) return Object.entries(schema).map(([component, m]) => ({ component, applied: 0, available: m.length }));
    return await readStatus(client, schema);
  } finally {
    release();
  }
}

async function appliedVersion(client: Client, component: string): Promise<number> {
  const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations WHERE component = $1', [component]);
  return rows[0]?.version ?? 0;
}

async function readStatus(client: Client, schema: Record<string, PgMigration[]>): Promise<MigrationStatus[]> {
  const status: MigrationStatus[] = [];
  for (const [component, migrations] of Object.entries(schema)) {
    status.push({ component, applied: await appliedVersion(client, component), available: migrations.length });
  }
  return status;
}

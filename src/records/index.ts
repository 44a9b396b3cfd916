import { badRequest } from '../core/errors.js';
import { openPostgresRecordStore } from './postgres/index.js';
import { redactUrl } from './postgres/connection.js';
import { openSqliteRecordStore } from './sqlite/index.js';
import type { RecordStore } from './types.js';

export type * from './types.js';
export { openSqliteRecordStore } from './sqlite/index.js';
export { openPostgresRecordStore, type PostgresRecordStore } from './postgres/index.js';

export type DatabaseLocation = { kind: 'sqlite' } | { kind: 'postgres'; url: string };

/**
 * `--database-url` / `IMMOREEL_DATABASE_URL`: unset means the SQLite file of the data directory
 * (the embedded default); `postgres://` or `postgresql://` means PostgreSQL. Anything else is an
 * error that says what is accepted (exit 2).
 */
export function parseDatabaseUrl(url: string | undefined): DatabaseLocation {
  const text = url?.trim() ?? '';
  if (text === '') return { kind: 'sqlite' };
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1]?.toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') {
    try {
      const parsed = new URL(text);
      if (parsed.hostname === '' && !parsed.searchParams.has('host')) throw new Error('no host');
    } catch {
      throw badRequest(`Invalid database URL ${redactUrl(text)}: write postgres://USER:PASSWORD@HOST:PORT/DATABASE.`, {
        reason: 'database_url_invalid',
      });
    }
    return { kind: 'postgres', url: text };
  }
  throw badRequest(
    `Unsupported database URL ${JSON.stringify(scheme === undefined ? text.slice(0, 40) : `${scheme}://…`)}: use postgres://USER:PASSWORD@HOST:PORT/DATABASE, or leave --database-url unset for the SQLite file in the data directory.`,
    { reason: 'database_url_invalid' },
  );
}

export interface OpenRecordStoreOptions {
  databaseUrl?: string;
  dataDir: string;
  now?: () => number;
  /** PostgreSQL: apply pending migrations at open (default true; `immoreel db migrate` runs them alone). */
  migrate?: boolean;
}

/** The record store a configuration names; PostgreSQL is connected, checked and migrated before it is returned. */
export async function openRecordStore(options: OpenRecordStoreOptions): Promise<RecordStore> {
  const location = parseDatabaseUrl(options.databaseUrl);
  if (location.kind === 'sqlite') return openSqliteRecordStore(options.dataDir, { now: options.now });
  return openPostgresRecordStore(location.url, { dataDir: options.dataDir, now: options.now, migrate: options.migrate });
}

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AppError, badRequest } from '../core/errors.js';
import {
  openBlobStore,
  parseStorageUrl,
  s3ClientConfig,
  storageError,
  type AwsEnvironment,
  type BlobStore,
  type StorageLocation,
} from '../blobs/index.js';
import { openRecordStore, parseDatabaseUrl, type DatabaseLocation } from './index.js';
import { migrationStatus, type MigrationStatus } from './postgres/migrate.js';
import { databaseError, redactUrl } from './postgres/connection.js';
import type { RecordStore } from './types.js';

/**
 * Opens what a configuration names — the record store (`--database-url`) and the blob store
 * (`--storage-url`) — and refuses, before anything starts, every configuration that cannot work,
 * with an error that says what to change and the exit code of docs/scaling.md "Configuration".
 * The rules are written there; this file is their only implementation.
 */

export interface BackendOptions {
  /** The data directory: the SQLite file and local blobs of the embedded default; scratch space in every mode. */
  dataDir: string;
  /** `--database-url` / `IMMOREEL_DATABASE_URL`: unset = SQLite in the data directory; `postgres://…` = PostgreSQL. */
  databaseUrl?: string;
  /** `--storage-url` / `IMMOREEL_STORAGE_URL`: unset = files in the data directory; `s3://bucket/prefix` or `file:///dir`. */
  storageUrl?: string;
  /**
   * Apply pending PostgreSQL migrations at open (default true). With false, a schema behind this
   * version is refused (run `immoreel db migrate`). SQLite always migrates at open, as it always did.
   */
  migrate?: boolean;
  /** The AWS_* variables of the configuration (default none: the SDK's own chain). */
  env?: AwsEnvironment;
  /** Where warnings about a working but risky configuration go (default: `process.emitWarning`). */
  warn?: (message: string) => void;
  now?: () => number;
}

export interface Backends {
  records: RecordStore;
  blobs: BlobStore;
  /** One line naming both stores, without passwords or keys (for start-up logs). */
  describe(): string;
  close(): Promise<void>;
}

/** Where the records and the blobs go, decided from the options alone (no I/O but one `existsSync`). */
export interface BackendPlan {
  database: DatabaseLocation;
  storage: StorageLocation;
  /** Working configurations an operator should hear about (see `warn`). */
  warnings: string[];
  /** For messages and `describe()`: no secrets. */
  databaseLabel: string;
  storageLabel: string;
}

/**
 * Query parameters of SQLite URLs and pragmas (`mode=rwc`, `journal_mode=WAL`…): they mean
 * nothing to PostgreSQL, and node-postgres would ignore them without a word.
 */
const SQLITE_ONLY_PARAMETERS = [
  'mode',
  'cache',
  'journal_mode',
  'busy_timeout',
  'synchronous',
  'foreign_keys',
  'vfs',
  'immutable',
  'nolock',
];

const DATABASE_FLAG = '--database-url / IMMOREEL_DATABASE_URL';
const STORAGE_FLAG = '--storage-url / IMMOREEL_STORAGE_URL';

/** The database half of the rules: the URL, and SQLite settings given with a PostgreSQL URL. */
export function planDatabase(options: Pick<BackendOptions, 'databaseUrl'>): DatabaseLocation {
  const text = options.databaseUrl?.trim() ?? '';
  // An SQLite file named as the database: the embedded default already is one, in the data directory.
  if (/^(sqlite3?|file):/i.test(text) || (!/^postgres(ql)?:/i.test(text) && /\.(db|sqlite3?)$/i.test(text))) {
    throw badRequest(
      `${DATABASE_FLAG} names an SQLite file (${JSON.stringify(text.replace(/\/\/[^@/]*@/, '//***@'))}): the SQLite database is always immoreel.db in the data directory. Leave --database-url unset and choose the directory with --data-dir, or give a postgres:// URL.`,
      { reason: 'database_url_invalid' },
    );
  }
  const location = parseDatabaseUrl(text);
  if (location.kind === 'postgres') {
    const parameters = [...new URL(location.url).searchParams.keys()];
    const sqliteOnly = parameters.filter((name) => SQLITE_ONLY_PARAMETERS.includes(name.toLowerCase()));
    if (sqliteOnly.length > 0) {
      throw badRequest(
        `The database URL ${redactUrl(location.url)} carries SQLite setting${sqliteOnly.length === 1 ? '' : 's'} (${sqliteOnly.join(', ')}) that PostgreSQL does not have: remove ${sqliteOnly.length === 1 ? 'it' : 'them'}. PostgreSQL parameters are libpq's (sslmode, application_name, connect_timeout…).`,
        { reason: 'sqlite_setting_with_postgres' },
      );
    }
  }
  return location;
}

/** Both halves of the rules of docs/scaling.md "Configuration", without touching the network. */
export function planBackends(options: BackendOptions): BackendPlan {
  const env = options.env ?? {};
  const database = planDatabase(options);
  const warnings: string[] = [];
  const storageText = options.storageUrl?.trim() ?? '';
  let storage: StorageLocation;
  if (storageText === '') {
    if (database.kind === 'postgres') {
      // A PostgreSQL database is shared by several machines; a data directory is not. Videos
      // rendered on one worker would be missing on the API node asked for them, so the silent
      // default is refused; a shared directory stays possible, named on purpose.
      throw badRequest(
        `With a PostgreSQL database, photos and videos must be where every API node and worker can read them: set ${STORAGE_FLAG} to s3://BUCKET/PREFIX, or to file:///DIR for a directory every machine mounts (or one machine only).`,
        { reason: 'storage_url_required' },
      );
    }
    storage = { kind: 'local', dir: options.dataDir };
  } else {
    storage = parseStorageUrl(storageText);
  }
  if (storage.kind === 'local' && database.kind === 'postgres') {
    warnings.push(
      `Photos and videos are kept in the directory ${storage.dir}: every immoreel serve and worker using this database must see this same directory (a shared mount), or a video rendered on one machine cannot be downloaded from another. Use ${STORAGE_FLAG} s3://BUCKET/PREFIX for separate machines.`,
    );
  }
  if (storage.kind === 's3') checkS3Environment(env);
  if (database.kind === 'postgres' && existsSync(join(options.dataDir, 'immoreel.db'))) {
    warnings.push(
      `${join(options.dataDir, 'immoreel.db')} (the SQLite records of this data directory) is not used while ${DATABASE_FLAG} names PostgreSQL; nothing in it is copied there.`,
    );
  }
  const endpoint = storage.kind === 's3' ? s3ClientConfig(env).endpoint : undefined;
  return {
    database,
    storage,
    warnings,
    databaseLabel: database.kind === 'sqlite' ? `SQLite ${join(options.dataDir, 'immoreel.db')}` : `PostgreSQL ${redactUrl(database.url)}`,
    storageLabel:
      storage.kind === 'local'
        ? `files in ${storage.dir}`
        : `s3://${storage.bucket}${storage.prefix === '' ? '' : `/${storage.prefix}`}${endpoint === undefined ? '' : ` at ${redactUrl(endpoint)}`}`,
  };
}

/**
 * S3 settings that cannot work, found before any request: an endpoint that is not a URL, half a key
 * pair. No keys at all is allowed (the SDK's chain: profiles, instance and container roles); no
 * region for AWS itself is reported by `check()`.
 */
function checkS3Environment(env: AwsEnvironment): void {
  for (const name of ['AWS_ENDPOINT_URL_S3', 'AWS_ENDPOINT_URL']) {
    const value = env[name]?.trim();
    if (value === undefined || value === '') continue;
    const protocol = URL.canParse(value) ? new URL(value).protocol : '';
    if (protocol !== 'http:' && protocol !== 'https:') {
      throw storageError(
        'storage_url_invalid',
        `${name} must be an http:// or https:// URL such as https://s3.example.com or http://127.0.0.1:9000, not ${JSON.stringify(redactUrl(value).slice(0, 80))}.`,
      );
    }
    break;
  }
  const keyId = (env.AWS_ACCESS_KEY_ID ?? '').trim() !== '';
  const secret = (env.AWS_SECRET_ACCESS_KEY ?? '').trim() !== '';
  if (keyId !== secret) {
    throw storageError(
      'storage_credentials',
      `${keyId ? 'AWS_ACCESS_KEY_ID' : 'AWS_SECRET_ACCESS_KEY'} is set but ${keyId ? 'AWS_SECRET_ACCESS_KEY' : 'AWS_ACCESS_KEY_ID'} is not: set both, or neither to use a profile or an instance role.`,
    );
  }
}

/**
 * Failures while connecting that node-postgres reports without a SQLSTATE we map elsewhere: more
 * network errors, and a role that may not create the tables. The password stays hidden.
 */
export function connectError(error: unknown, url: string): unknown {
  const mapped = databaseError(error, url);
  if (mapped !== error) return mapped;
  const e = error as { code?: string; message?: string };
  const where = redactUrl(url);
  if (['EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'EPIPE'].includes(e.code ?? '') || /Connection terminated/i.test(e.message ?? '')) {
    return new AppError(
      'SERVICE_UNAVAILABLE',
      `PostgreSQL is unreachable at ${where} (${e.code ?? 'connection closed'}): check the host, the port and that the server runs.`,
      { reason: 'database_unreachable', cause: error },
    );
  }
  if (/\bSSL\b|certificate/i.test(e.message ?? '')) {
    return badRequest(
      `PostgreSQL at ${where} could not agree on TLS (${e.message ?? 'SSL error'}): check ?sslmode= in the URL (require, verify-full, disable) and the server's certificate.`,
      { reason: 'database_tls', cause: error },
    );
  }
  if (e.code === '42501') {
    return new AppError(
      'UNAUTHORIZED',
      `The PostgreSQL role of ${where} may not create or change immoreel's tables (${e.message ?? 'permission denied'}): run \`immoreel db migrate\` as the database owner, or as a superuser give this role the schema: \`GRANT CREATE ON SCHEMA public TO <role>\` (PostgreSQL 15 and later no longer grant it to every role) or \`ALTER SCHEMA public OWNER TO <role>\`.`,
      { reason: 'database_credentials', cause: error },
    );
  }
  return error;
}

/** Opens the record store alone (`keys`, `db`): the database rules, connection, checks, migrations. */
export async function openCheckedRecords(options: Omit<BackendOptions, 'storageUrl'>): Promise<RecordStore> {
  const database = planDatabase(options);
  if (database.kind === 'sqlite') return openRecordStore({ dataDir: options.dataDir, now: options.now });
  let records: RecordStore;
  try {
    records = await openRecordStore({ dataDir: options.dataDir, databaseUrl: database.url, now: options.now, migrate: options.migrate });
  } catch (error) {
    throw connectError(error, database.url);
  }
  if (options.migrate === false) {
    try {
      await assertMigrationsCurrent(records, database.url);
    } catch (error) {
      // Ignored: the migration error rethrown next is the one to report; closing is clean-up.
      await records.close().catch(() => undefined);
      throw error;
    }
  }
  return records;
}

/** Refuses a schema this version cannot run on: behind (run `db migrate`) or ahead (a newer immoreel migrated it). */
async function assertMigrationsCurrent(records: RecordStore, url: string): Promise<void> {
  const pool = (records as RecordStore & { pool?: Parameters<typeof migrationStatus>[0] }).pool;
  if (pool === undefined) return;
  const status = await migrationStatus(pool).catch((error: unknown) => {
    throw connectError(error, url);
  });
  const problem = migrationProblem(status);
  if (problem !== null) throw problem;
}

/** What is wrong with a schema's versions for this version of immoreel, if anything. */
export function migrationProblem(status: readonly MigrationStatus[], allowPending = false): AppError | null {
  const ahead = status.filter((s) => s.applied > s.available);
  if (ahead.length > 0) {
    return badRequest(
      `The database was migrated by a newer immoreel (${ahead.map((s) => `${s.component} ${s.applied}, this version knows ${s.available}`).join('; ')}): upgrade immoreel on this machine.`,
      { reason: 'database_schema_newer' },
    );
  }
  const behind = status.filter((s) => s.applied < s.available);
  if (!allowPending && behind.length > 0) {
    return badRequest(
      `The database schema is behind this immoreel (${behind.map((s) => `${s.component} ${s.applied} of ${s.available}`).join('; ')}): run \`immoreel db migrate\`.`,
      { reason: 'database_migrations_pending' },
    );
  }
  return null;
}

/** `check()` of a blob store, with the SDK's "no credentials anywhere" turned into exit 4. */
export async function checkBlobs(blobs: BlobStore, label: string): Promise<void> {
  try {
    await blobs.check();
  } catch (error) {
    const name = (error as { name?: string }).name ?? '';
    if (name === 'CredentialsProviderError' || /Could not load credentials/i.test((error as Error).message ?? '')) {
      throw storageError(
        'storage_credentials',
        `No S3 credentials found for ${label}: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE, or run with an instance role).`,
        error,
      );
    }
    throw error;
  }
}

/**
 * Both stores a configuration names, connected, checked and migrated; the first thing `serve`,
 * `worker`, `studio`, `render` and `jobs` do (through `openBackends`, ./open-backends.ts), so a bad
 * configuration stops them before they start.
 */
export async function openCheckedBackends(options: BackendOptions): Promise<Backends> {
  const plan = planBackends(options);
  const warn = options.warn ?? ((message: string) => process.emitWarning(message, { type: 'Notice', code: 'IMMOREEL_BACKENDS' }));
  const records = await openCheckedRecords(options);
  let blobs: BlobStore | undefined;
  try {
    blobs = openBlobStore({
      url: options.storageUrl,
      dataDir: options.dataDir,
      env: options.env,
    });
    await checkBlobs(blobs, plan.storageLabel);
  } catch (error) {
    // Ignored: the check's error rethrown next is the one to report; closing is clean-up.
    await blobs?.close().catch(() => undefined);
    // Ignored: as above.
    await records.close().catch(() => undefined);
    throw error;
  }
  for (const message of plan.warnings) warn(message);
  const opened = blobs;
  return {
    records,
    blobs: opened,
    describe: () => `records: ${plan.databaseLabel}; blobs: ${plan.storageLabel}`,
    async close() {
      await Promise.allSettled([records.close(), opened.close()]);
    },
  };
}

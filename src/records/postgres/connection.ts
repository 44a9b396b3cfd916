import pg from 'pg';
import { AppError } from '../../core/errors.js';

export type Pool = pg.Pool;
export type Client = pg.PoolClient;
/** Anything that runs a query: the pool, or a client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

/** int8 (COUNT(*), BIGINT millisecond timestamps) as numbers: every value we store fits in 2^53. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export interface PoolOptions {
  /** Connections per process (default 10): see docs/scaling.md "Capacity model" for the arithmetic. */
  max?: number;
  /**
   * Told when an idle connection breaks (the server restarted, a network cut). The pool replaces
   * it on next use; without a listener node-postgres would crash the process.
   */
  onIdleError?: (error: Error) => void;
}

/** Hides the password of a `postgres://` URL (also `?password=` and `?sslpassword=`), for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    for (const name of ['password', 'sslpassword']) if (parsed.searchParams.has(name)) parsed.searchParams.set(name, '***');
    return parsed.href;
  } catch {
    return 'the database URL';
  }
}

export function createPool(url: string, options: PoolOptions = {}): Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: 10_000,
    types,
    application_name: 'immoreel',
  });
  pool.on('error', options.onIdleError ?? (() => undefined));
  return pool;
}

/**
 * The first connection, with the failure a user can act on (docs/scaling.md "Failure modes"):
 * unreachable server exit 6, wrong credentials exit 4, missing database exit 2.
 */
export async function checkConnection(pool: Pool, url: string): Promise<void> {
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    throw databaseError(error, url);
  }
}

export function databaseError(error: unknown, url: string): unknown {
  const e = error as { code?: string; message?: string };
  const where = redactUrl(url);
  if (e.code === '28P01' || e.code === '28000') {
    return new AppError('UNAUTHORIZED', `PostgreSQL refused the credentials in ${where}: check the user name and password.`, {
      reason: 'database_credentials',
      cause: error,
    });
  }
  if (e.code === '3D000') {
    return new AppError(
      'BAD_REQUEST',
      `The database in ${where} does not exist: create it (createdb) or fix --database-url / IMMOREEL_DATABASE_URL.`,
      { reason: 'database_missing', cause: error },
    );
  }
  if (
    e.code === 'ECONNREFUSED' ||
    e.code === 'ENOTFOUND' ||
    e.code === 'EAI_AGAIN' ||
    e.code === 'ETIMEDOUT' ||
    /timeout/i.test(e.message ?? '')
  ) {
    return new AppError(
      'SERVICE_UNAVAILABLE',
      `PostgreSQL is unreachable at ${where} (${e.code ?? 'timeout'}): check the host, the port and that the server runs.`,
      { reason: 'database_unreachable', cause: error },
    );
  }
  return error;
}

/**
 * A connection taken from the pool for a while (a transaction, a session lock). node-postgres
 * removes the pool's error listener from a client while it is checked out, and a client whose
 * connection dies (the server stopped with `pg_ctl stop -m fast`, a network cut) emits 'error':
 * with no listener that ends the process. Here the error is kept instead; the query in flight
 * fails with it (a 503 for the request, docs/operations.md "Outages"), and `release` destroys the
 * broken client rather than handing it to the next caller.
 */
export async function checkOut(pool: Pool): Promise<{ client: Client; release: (discard?: unknown) => void }> {
  const client = await pool.connect();
  let broken: Error | null = null;
  const onError = (error: Error): void => {
    broken = error;
  };
  client.on('error', onError);
  return {
    client,
    // `discard`: an error that leaves this connection unfit for reuse (a failed ROLLBACK or unlock):
    // the connection is closed rather than pooled, which also ends its session locks.
    release: (discard?: unknown) => {
      client.removeListener('error', onError);
      client.release(broken ?? (discard === undefined ? undefined : toError(discard)));
    },
  };
}

function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

/** Runs `work` in one transaction on one connection: COMMIT when it resolves, ROLLBACK when it throws. */
export async function withTransaction<T>(pool: Pool, work: (client: Client) => Promise<T>): Promise<T> {
  const { client, release } = await checkOut(pool);
  let unfit: unknown;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    // The transaction's own error is rethrown; a connection whose ROLLBACK fails is closed, not
    // pooled (PostgreSQL aborts the transaction of a closed connection).
    await client.query('ROLLBACK').catch((rollbackError: unknown) => {
      unfit = rollbackError;
    });
    throw error;
  } finally {
    release(unfit);
  }
}

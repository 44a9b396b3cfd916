import { AppError, isAppError } from '../core/errors.js';

/**
 * Which shared service an error says is down for now (docs/operations.md "Outages"): the database
 * (PostgreSQL restarting, refusing or dropping connections) or the object storage (unreachable, or
 * answering 5xx after the SDK's own retries). Null for everything else, including faults that
 * waiting will not cure (bad credentials, a missing bucket or database). No driver is loaded here:
 * the server classifies errors on the embedded default too.
 */
export type Outage = 'database' | 'storage';

/** Node's socket errors: the peer is gone, refuses, or cannot be reached for now. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ECONNABORTED',
]);
/**
 * PostgreSQL SQLSTATEs of a server going away or not taking connections yet: class 08 (connection
 * exception), 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up),
 * 53300 too_many_connections.
 */
const POSTGRES_STATES = /^(08...|57P0[123]|53300)$/;
/**
 * node-postgres's own words for a connection that died or never came (pg-pool's "timeout exceeded
 * when trying to connect" is what a server that drops packets, rather than refusing, gives).
 */
const POSTGRES_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|terminating connection/i;

export function outageOf(error: unknown): Outage | null {
  for (let current: unknown = error, depth = 0; current !== undefined && current !== null && depth < 5; depth += 1) {
    if (isAppError(current)) {
      if (current.reason === 'storage_unreachable' || current.reason === 'storage_unavailable') return 'storage';
      if (current.reason === 'database_unreachable' || current.reason === 'database_unavailable') return 'database';
      // Any other AppError already says what went wrong (a portal that refused is not our database),
      // except an unexpected error, which may wrap one.
      if (current.code !== 'INTERNAL_SERVER_ERROR') return null;
      current = current.cause;
      continue;
    }
    const e = current as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
    const code = typeof e.code === 'string' ? e.code : '';
    const message = typeof e.message === 'string' ? e.message : '';
    if (POSTGRES_STATES.test(code) || POSTGRES_MESSAGES.test(message)) return 'database';
    if (SOCKET_CODES.has(code)) return 'database';
    // AggregateError (several addresses refused at once, as Node's happy-eyeballs connect reports).
    if (Array.isArray(e.errors) && e.errors.some((inner) => outageOf(inner) === 'database')) return 'database';
    current = e.cause;
  }
  return null;
}

/** Seconds a client is asked to wait before retrying during an outage. */
export const OUTAGE_RETRY_AFTER_S = 5;

/**
 * What a client is told during an outage: which service, that it is passing, when to retry. No
 * endpoint, host, bucket or variable name (those are in the operator's log).
 */
export function outageError(outage: Outage, cause?: unknown): AppError {
  const what = outage === 'database' ? 'database' : 'file storage';
  return clientSafe(
    new AppError('SERVICE_UNAVAILABLE', `The service's ${what} is unavailable for a moment; retry in ${OUTAGE_RETRY_AFTER_S} s.`, {
      reason: `${outage}_unavailable`,
      retryAfterS: OUTAGE_RETRY_AFTER_S,
      cause,
    }),
  );
}

/** Outage errors whose text was written for clients (no endpoint, no variable): passed on as they are. */
const CLIENT_SAFE = new WeakSet<AppError>();

export function clientSafe(error: AppError): AppError {
  CLIENT_SAFE.add(error);
  return error;
}

/**
 * Faults of the server's own configuration (a missing bucket or database, refused credentials, a
 * bad storage URL): the client can do nothing about them and must not read their text, which names
 * the endpoint, the bucket or the variables to fix. Which service they concern, or null.
 */
const SERVER_SIDE_REASONS: Readonly<Record<string, Outage>> = {
  bucket_missing: 'storage',
  storage_credentials: 'storage',
  storage_url_invalid: 'storage',
  database_credentials: 'database',
  database_missing: 'database',
};

function serverFaultOf(error: unknown): Outage | null {
  for (let current: unknown = error, depth = 0; isAppError(current) && depth < 5; depth += 1) {
    const fault = current.reason === undefined ? undefined : SERVER_SIDE_REASONS[current.reason];
    if (fault !== undefined) return fault;
    if (current.code !== 'INTERNAL_SERVER_ERROR') return null;
    current = current.cause;
  }
  return null;
}

/**
 * What a client may be told of an error of the database or the storage (docs/operations.md
 * "Outages"): the generic 503 of `outageError` for an outage or a fault of the server's
 * configuration, null for anything else (the error says what to do and names nothing internal).
 */
export function clientFacingOutage(error: unknown): AppError | null {
  if (isAppError(error) && CLIENT_SAFE.has(error)) return error;
  const outage = outageOf(error) ?? serverFaultOf(error);
  return outage === null ? null : outageError(outage, error);
}

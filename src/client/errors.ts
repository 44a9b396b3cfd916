import { AppError, ERROR_CODES, type AppErrorOptions, type ErrorCode, type ErrorDetail } from '../core/errors.js';

/**
 * Failures reported by an immoreel server, turned back into the AppError the CLI prints and exits
 * with (docs/api.md envelope → docs/cli.md exit codes). The server's message is kept word for word and
 * its request id is shown, so a user can quote it to whoever runs the server.
 */

export interface ErrorEnvelopeBody {
  code: string;
  message: string;
  reason?: string;
  details?: ErrorDetail[];
  request_id?: string;
}

/** What the server said went wrong, plus where (for messages). */
export class RemoteError extends AppError {
  readonly requestId: string | null;
  readonly httpStatusSeen: number | null;
  override readonly exitCode: number;

  constructor(
    code: ErrorCode,
    message: string,
    options: AppErrorOptions & { requestId?: string | null; status?: number | null; exitCode?: number } = {},
  ) {
    super(code, message, options);
    this.requestId = options.requestId ?? null;
    this.httpStatusSeen = options.status ?? null;
    this.exitCode = options.exitCode ?? ERROR_CODES[code].exitCode;
  }

  override toJSON(): ReturnType<AppError['toJSON']> & { request_id?: string } {
    return { ...super.toJSON(), ...(this.requestId === null ? {} : { request_id: this.requestId }) };
  }
}

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'INSUFFICIENT_SCOPE',
  404: 'NOT_FOUND',
  410: 'GONE',
  413: 'PAYLOAD_TOO_LARGE',
  416: 'BAD_REQUEST',
  429: 'RATE_LIMIT_EXCEEDED',
  500: 'INTERNAL_SERVER_ERROR',
  502: 'SERVICE_UNAVAILABLE',
  503: 'SERVICE_UNAVAILABLE',
  504: 'SERVICE_UNAVAILABLE',
};

function isKnownCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CODES, code);
}

/** The `error` member of a docs/api.md envelope, or null when the body is something else. */
export function parseEnvelope(text: string): ErrorEnvelopeBody | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const error = (parsed as { ok?: unknown; error?: unknown }).error;
  if ((parsed as { ok?: unknown }).ok !== false || typeof error !== 'object' || error === null) return null;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code !== 'string' || typeof message !== 'string') return null;
  const e = error as ErrorEnvelopeBody;
  const details = Array.isArray(e.details)
    ? e.details.filter(
        (d): d is ErrorDetail => typeof d === 'object' && d !== null && typeof d.field === 'string' && typeof d.message === 'string',
      )
    : [];
  return {
    code,
    message,
    reason: typeof e.reason === 'string' ? e.reason : undefined,
    details,
    request_id: typeof e.request_id === 'string' ? e.request_id : undefined,
  };
}

/**
 * Exit codes of docs/cli.md for a server error. QUOTA_EXCEEDED covers two things in the contract
 * (docs/remote.md): a quota used up (exit 5, "rate limit or quota") and a key that lacks the route's
 * permission (`reason: route_not_permitted`, exit 4, "authentication or permission").
 */
export function exitCodeFor(code: ErrorCode, reason: string | undefined): number {
  if (code === 'QUOTA_EXCEEDED' && reason === 'route_not_permitted') return ERROR_CODES.UNAUTHORIZED.exitCode;
  return ERROR_CODES[code].exitCode;
}

export interface ErrorContext {
  status: number;
  body: string;
  /** The request id from the X-Request-Id header, when the body carries none. */
  requestId: string | null;
  baseUrl: string;
  /** `METHOD /path` of the request, for answers that are not ours. */
  what: string;
  retryAfterS?: number;
}

/** Hints that tell the user what to do about an error class. */
function hintFor(code: ErrorCode, reason: string | undefined, baseUrl: string): string {
  if (code === 'UNAUTHORIZED')
    return ` Check the key with \`immoreel auth status\`, or log in again: \`immoreel auth login --base-url ${baseUrl} --api-key-stdin\`.`;
  if (code === 'QUOTA_EXCEEDED' && reason === 'route_not_permitted') return ' Ask the server operator for a key with that scope.';
  return '';
}

/** A non-2xx answer → the AppError to throw. */
export function errorFromResponse(context: ErrorContext): RemoteError {
  const envelope = parseEnvelope(context.body);
  const requestId = envelope?.request_id ?? context.requestId;
  const suffix = requestId === null ? '' : ` (request_id ${requestId})`;
  if (envelope !== null) {
    const code: ErrorCode = isKnownCode(envelope.code)
      ? envelope.code
      : (CODE_BY_STATUS[context.status] ?? (context.status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST'));
    const message = `${envelope.message}${suffix}${hintFor(code, envelope.reason, context.baseUrl)}`;
    return new RemoteError(code, message, {
      reason: envelope.reason,
      details: envelope.details,
      requestId,
      status: context.status,
      exitCode: exitCodeFor(code, envelope.reason),
      retryAfterS: context.retryAfterS,
      // main() prints the cause of an INTERNAL_SERVER_ERROR: here it is the server's, not ours.
      cause:
        code === 'INTERNAL_SERVER_ERROR'
          ? `The failure happened on the server at ${context.baseUrl}; its log has the details under request_id ${requestId ?? '(none)'}.`
          : undefined,
    });
  }
  // Not an immoreel envelope: a proxy, a load balancer, or a URL that is not an immoreel server.
  const code = CODE_BY_STATUS[context.status] ?? (context.status >= 500 ? 'SERVICE_UNAVAILABLE' : 'BAD_REQUEST');
  const notOurs =
    context.status === 404
      ? ` Is ${context.baseUrl} an immoreel server? Check --base-url or the profile (\`immoreel auth status\`).`
      : context.status >= 500
        ? ' The server or a proxy in front of it is failing or restarting; retry later.'
        : '';
  return new RemoteError(code, `${context.what} at ${context.baseUrl} answered HTTP ${context.status}.${notOurs}${suffix}`, {
    reason: 'unexpected_answer',
    requestId,
    status: context.status,
    exitCode: exitCodeFor(code, undefined),
    retryAfterS: context.retryAfterS,
    cause: code === 'INTERNAL_SERVER_ERROR' ? `HTTP ${context.status} from ${context.baseUrl}` : undefined,
  });
}

/** A network failure classified: a short text for messages, and whether retrying may help. */
export interface NetworkFailure {
  code: string;
  text: string;
  transient: boolean;
}

const NETWORK_CODES: Record<string, { text: string; transient: boolean }> = {
  ECONNREFUSED: { text: 'connection refused', transient: true },
  ECONNRESET: { text: 'the connection was reset', transient: true },
  EPIPE: { text: 'the connection was closed', transient: true },
  UND_ERR_SOCKET: { text: 'the connection was closed', transient: true },
  UND_ERR_CLOSED: { text: 'the connection was closed', transient: true },
  ECONNABORTED: { text: 'the connection was aborted', transient: true },
  UND_ERR_CONNECT_TIMEOUT: { text: 'the connection timed out', transient: true },
  ETIMEDOUT: { text: 'the connection timed out', transient: true },
  UND_ERR_HEADERS_TIMEOUT: { text: 'no answer in time', transient: true },
  UND_ERR_BODY_TIMEOUT: { text: 'the answer stalled', transient: true },
  EHOSTUNREACH: { text: 'host unreachable', transient: true },
  ENETUNREACH: { text: 'network unreachable', transient: true },
  EAI_AGAIN: { text: 'name lookup failed (temporary)', transient: true },
  ENOTFOUND: { text: 'host not found', transient: false },
};

function codesOf(error: unknown, depth = 0): string[] {
  if (typeof error !== 'object' || error === null || depth > 3) return [];
  const codes: string[] = [];
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') codes.push(code);
  if (error instanceof AggregateError) for (const inner of error.errors) codes.push(...codesOf(inner, depth + 1));
  codes.push(...codesOf((error as { cause?: unknown }).cause, depth + 1));
  return codes;
}

/** Classifies an error thrown by undici; null when it is not a network failure (a bug, an abort). */
export function networkFailure(error: unknown): NetworkFailure | null {
  if (error instanceof AppError) return null;
  if (error instanceof Error && error.name === 'AbortError') return null;
  const codes = codesOf(error);
  for (const code of codes) {
    const known = NETWORK_CODES[code];
    if (known !== undefined) return { code, ...known };
  }
  const code = codes[0];
  if (code === undefined) return null;
  // TLS and other socket-level failures: not worth retrying, but still "unreachable".
  const message = error instanceof Error ? error.message : String(error);
  return { code, text: /CERT|TLS|SSL/i.test(code) ? `TLS error: ${message}` : message, transient: false };
}

/** The server could not be reached (exit 6); `suffix` may say how long it was waited for. */
export function unreachable(baseUrl: string, failure: NetworkFailure, timeoutMs?: number, suffix = ''): RemoteError {
  const detail =
    failure.code === 'UND_ERR_HEADERS_TIMEOUT' && timeoutMs !== undefined
      ? `no answer within ${Number((timeoutMs / 1000).toFixed(1))} s`
      : failure.text;
  return new RemoteError(
    'SERVICE_UNAVAILABLE',
    `Cannot reach the immoreel server at ${baseUrl} (${detail}). Check that it is running and that --base-url or the profile's URL is right.${suffix}`,
    {
      reason: 'unreachable',
    },
  );
}

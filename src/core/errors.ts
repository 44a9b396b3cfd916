import type { Warning } from './types.js';

/**
 * The one error type of immoreel. Every failure a user can see is an AppError: the CLI maps
 * `exitCode` to the process exit status, the HTTP server maps `httpStatus` and `code` to the
 * error envelope of docs/api.md. Anything else that escapes is a bug (INTERNAL_SERVER_ERROR).
 */

export const ERROR_CODES = {
  BAD_REQUEST: { httpStatus: 400, exitCode: 2 },
  UNAUTHORIZED: { httpStatus: 401, exitCode: 4 },
  INSUFFICIENT_SCOPE: { httpStatus: 403, exitCode: 4 },
  QUOTA_EXCEEDED: { httpStatus: 403, exitCode: 5 },
  NOT_FOUND: { httpStatus: 404, exitCode: 2 },
  METHOD_NOT_ALLOWED: { httpStatus: 405, exitCode: 2 },
  GONE: { httpStatus: 410, exitCode: 2 },
  PAYLOAD_TOO_LARGE: { httpStatus: 413, exitCode: 2 },
  RATE_LIMIT_EXCEEDED: { httpStatus: 429, exitCode: 5 },
  INTERNAL_SERVER_ERROR: { httpStatus: 500, exitCode: 1 },
  /** A local prerequisite (ffmpeg, ffprobe, a font) is missing: exit 1 with how to install it. */
  DEPENDENCY_MISSING: { httpStatus: 500, exitCode: 1 },
  /** A render job ended `failed` (the job's own error carries the cause). */
  RENDER_FAILED: { httpStatus: 500, exitCode: 7 },
  UPSTREAM_ERROR: { httpStatus: 502, exitCode: 6 },
  /** A batch ran to the end but some rows failed (they are in FILE.failed.csv). */
  BATCH_ROWS_FAILED: { httpStatus: 400, exitCode: 3 },
  /** The immoreel server itself could not be reached (remote mode). */
  SERVICE_UNAVAILABLE: { httpStatus: 503, exitCode: 6 },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** One problem with one input field, e.g. `{ field: "language", message: "must be one of fr, en, ar" }`. */
export interface ErrorDetail {
  field: string;
  message: string;
}

export interface AppErrorOptions {
  /** Machine-readable sub-cause, e.g. `unsupported_url`, `monthly_quota`, `analyze_rate`. */
  reason?: string;
  details?: ErrorDetail[];
  /** Seconds a client should wait before retrying (429, some 503s). */
  retryAfterS?: number;
  cause?: unknown;
  /** What was noticed on the way to the failure (e.g. each photo left out and why): a failed job keeps them. */
  warnings?: Warning[];
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly httpStatus: number;
  readonly exitCode: number;
  readonly reason?: string;
  readonly details: ErrorDetail[];
  readonly retryAfterS?: number;
  readonly warnings: Warning[];

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.httpStatus = ERROR_CODES[code].httpStatus;
    this.exitCode = ERROR_CODES[code].exitCode;
    this.reason = options.reason;
    this.details = options.details ?? [];
    this.retryAfterS = options.retryAfterS;
    this.warnings = options.warnings ?? [];
  }

  /** The `error` member of the docs/api.md envelope (request_id is added by the server). */
  toJSON(): { code: ErrorCode; message: string; reason?: string; details: ErrorDetail[] } {
    return {
      code: this.code,
      message: this.message,
      ...(this.reason === undefined ? {} : { reason: this.reason }),
      details: this.details,
    };
  }
}

export function badRequest(message: string, options: AppErrorOptions = {}): AppError {
  return new AppError('BAD_REQUEST', message, options);
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** Wraps anything thrown into an AppError, hiding internals of unexpected failures. */
export function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  return new AppError('INTERNAL_SERVER_ERROR', 'An unexpected error occurred.', { cause: error });
}

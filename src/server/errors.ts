import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, isAppError, type ErrorCode, type ErrorDetail } from '../core/errors.js';
import { emptyJsonBody, invalidJsonBody } from '../core/json-body.js';
import { NO_METRICS, type Metrics, type RefusalReason } from '../core/metrics.js';
import type { OutageWatch } from './outage-watch.js';
import { invalidInput, validationDetails } from '../core/requests.js';
import { clientFacingOutage } from '../records/outage.js';

/**
 * The one error envelope of API v1 (docs/api.md) and the one place that produces it. Every failure
 * (our AppErrors, fastify's own parsing/validation errors, unknown routes, bugs) ends here.
 * Messages of 500s are generic; what went wrong is in the log, under the same request id.
 */

export interface ErrorEnvelope {
  ok: false;
  status: 'error';
  error: {
    code: ErrorCode;
    message: string;
    reason?: string;
    details: ErrorDetail[];
    request_id: string;
    [extra: string]: unknown;
  };
}

const GENERIC_500 = 'An unexpected error occurred on the server. It has been logged; retry later, and quote the request_id if it persists.';

/** Response headers an error must carry (WWW-Authenticate, Link, Sunset…), keyed by the error object. */
const errorHeaders = new WeakMap<AppError, Record<string, string>>();
/** Extra members of the envelope's `error` object (e.g. `successor` of a retired route). */
const errorExtras = new WeakMap<AppError, Record<string, unknown>>();

export function withHeaders(error: AppError, headers: Record<string, string>): AppError {
  errorHeaders.set(error, { ...(errorHeaders.get(error) ?? {}), ...headers });
  return error;
}

export function withExtras(error: AppError, extras: Record<string, unknown>): AppError {
  errorExtras.set(error, { ...(errorExtras.get(error) ?? {}), ...extras });
  return error;
}

export function envelope(error: AppError, requestId: string): ErrorEnvelope {
  const safe =
    error.httpStatus >= 500 &&
    (error.code === 'INTERNAL_SERVER_ERROR' || error.code === 'DEPENDENCY_MISSING' || error.code === 'RENDER_FAILED');
  return {
    ok: false,
    status: 'error',
    error: {
      ...(safe ? { code: 'INTERNAL_SERVER_ERROR' as ErrorCode, message: GENERIC_500, details: [] } : error.toJSON()),
      ...(safe ? {} : (errorExtras.get(error) ?? {})),
      request_id: requestId,
    },
  };
}

/** Turns whatever was thrown into an AppError; fastify's own errors get their contract code. */
export function toHttpError(error: unknown): AppError {
  // A database or storage outage (or a fault of their configuration) is a 503 with Retry-After,
  // never a 500, and never names an endpoint or a variable: the log keeps the cause.
  const outage = clientFacingOutage(error);
  if (outage !== null) return outage;
  if (isAppError(error)) return error;
  const fastifyError = error as Partial<FastifyError> & {
    validation?: Parameters<typeof validationDetails>[0];
    validationContext?: string;
  };
  if (Array.isArray(fastifyError.validation))
    return invalidInput('request', validationDetails(fastifyError.validation, fastifyError.validationContext));
  const status = typeof fastifyError.statusCode === 'number' ? fastifyError.statusCode : 500;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(
        'BAD_REQUEST',
        'Unsupported Content-Type: send the body as application/json (images to POST /api/v1/assets as image/*).',
        {
          reason: 'unsupported_media_type',
          details: [{ field: 'Content-Type', message: 'must be application/json' }],
        },
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      // The rest of the body is not read (src/server/body-chunks.ts): the connection ends with the answer.
      return withHeaders(
        new AppError('PAYLOAD_TOO_LARGE', 'The request body is larger than this route accepts.', {
          reason: 'body_too_large',
          details: [{ field: 'body', message: 'is too large' }],
        }),
        { Connection: 'close' },
      );
    // The same answers as an analysis worker gives for a large body it parses (core/json-body.ts).
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return emptyJsonBody();
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return invalidJsonBody();
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('BAD_REQUEST', 'Content-Length does not match the body sent.', {
        reason: 'invalid_content_length',
        details: [{ field: 'Content-Length', message: 'does not match the body' }],
      });
    default:
      break;
  }
  if (error instanceof SyntaxError && status === 400) {
    return new AppError('BAD_REQUEST', `The body is not valid JSON: ${error.message}.`, {
      reason: 'invalid_json',
      details: [{ field: 'body', message: 'is not valid JSON' }],
    });
  }
  if (status === 413)
    return new AppError('PAYLOAD_TOO_LARGE', 'The request body is too large.', { details: [{ field: 'body', message: 'is too large' }] });
  if (status === 404) return new AppError('NOT_FOUND', 'Not found.');
  if (status >= 400 && status < 500) {
    return new AppError('BAD_REQUEST', fastifyError.message ?? 'Bad request.', { reason: 'bad_request' });
  }
  return new AppError('INTERNAL_SERVER_ERROR', GENERIC_500, { cause: error });
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  for (const [name, value] of Object.entries(errorHeaders.get(error) ?? {})) reply.header(name, value);
  if (error.retryAfterS !== undefined) reply.header('Retry-After', String(Math.max(1, Math.ceil(error.retryAfterS))));
  if (error.code === 'UNAUTHORIZED' && !reply.hasHeader('WWW-Authenticate')) reply.header('WWW-Authenticate', 'Bearer realm="immoreel"');
  const status =
    error.code === 'INTERNAL_SERVER_ERROR' || error.code === 'DEPENDENCY_MISSING' || error.code === 'RENDER_FAILED'
      ? 500
      : error.httpStatus;
  return reply.code(status).type('application/json; charset=utf-8').send(envelope(error, request.id));
}

/**
 * Which refusal of `immoreel_refusals_total` an answer is (docs/operations.md "Metrics"): every 429
 * (per-key rates, running and queued job limits) is `rate_limit`, the monthly quota is `quota`,
 * and a full image-decode queue is `decode_queue_full` whatever its code.
 */
export function refusalOf(error: AppError): RefusalReason | null {
  if (error.reason === 'decode_queue_full') return 'decode_queue_full';
  if (error.code === 'RATE_LIMIT_EXCEEDED') return 'rate_limit';
  if (error.code === 'QUOTA_EXCEEDED' && error.reason === 'monthly_quota') return 'quota';
  return null;
}

/** 503s that are answers, not failures: nothing to log for them beyond the request line. */
const ANSWERS = new Set(['shutting_down', 'not_ready']);

/**
 * fastify's setErrorHandler: count refusals, log what matters, answer the envelope. Requests
 * failing on an outage of the database or the storage are told to `outages`, which logs the
 * outage once as it begins and once as it ends (docs/operations.md "Logs"): every request meets
 * the same outage, and none of them writes a line of its own.
 */
export function errorHandler(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  options: { metrics?: Metrics; outages?: OutageWatch } = {},
): FastifyReply {
  const { metrics = NO_METRICS, outages } = options;
  const appError = toHttpError(error);
  const refusal = refusalOf(appError);
  if (refusal !== null) metrics.refused(refusal);
  if (appError.httpStatus >= 500 && !(appError.reason !== undefined && ANSWERS.has(appError.reason))) {
    // The cause chain goes to the log only; the client gets the generic message and the request id.
    const cause = appError.code === 'INTERNAL_SERVER_ERROR' && !isAppError(error) ? error : (appError.cause ?? appError);
    const service = appError.reason === 'storage_unavailable' ? 'storage' : appError.reason === 'database_unavailable' ? 'database' : null;
    if (service !== null && outages !== undefined) outages.report(service, cause, request.id);
    else request.log.error({ err: cause, code: appError.code }, 'request failed');
  }
  return sendError(request, reply, appError);
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(
    request,
    reply,
    new AppError(
      'NOT_FOUND',
      `No route ${request.method} ${request.url.split('?')[0]!.slice(0, 200)}: see GET /api/v1/openapi.json for the routes of API v1.`,
      {
        reason: 'unknown_route',
      },
    ),
  );
}

import type { Socket } from 'node:net';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { AppError } from '../core/errors.js';
import type { AnalyzeRequest, JobList, JobRecord, JobState, ListJobsOptions, Property, RenderRequest } from '../core/types.js';
import type { ValidRenderRequest } from '../render/types.js';
import { createAuthorizer, refundHook } from './auth.js';
import { API_VERSION, DEFAULT_LIMITS, type ServerLimits } from './config.js';
import { envelope, errorHandler, notFoundHandler, sendError } from './errors.js';
import { randomId } from './ids.js';
import { SlidingWindowLimiter } from './rate-limit.js';
import { registerStudio } from './studio/index.js';
import type { StudioLogin } from './studio/session.js';
import { RouteRegistry } from './route-spec.js';
import { accountRoutes } from './routes/account.js';
import { analyzeRoutes } from './routes/analyze.js';
import { assetRoutes } from './routes/assets.js';
import { healthRoutes } from './routes/health.js';
import { jobRoutes } from './routes/jobs.js';
import { openapiRoutes } from './routes/openapi.js';
import { renderRoutes } from './routes/render.js';
import { retiredRoutes } from './routes/retired.js';
import type { ServerStore } from './store.js';

/** What the HTTP layer needs from the job layer (JobManager satisfies it). */
export interface JobsPort {
  submit(request: ValidRenderRequest, options: { tenant: string }): JobRecord;
  get(jobId: string): { job: JobRecord; tenant: string } | null;
  list(tenant: string, options?: ListJobsOptions): JobList;
  cancel(jobId: string): JobRecord;
  videoPath(jobId: string): string | null;
  countJobs(tenant: string, states: JobState[]): number;
}

export interface LogOptions {
  stream: NodeJS.WritableStream;
  level?: string;
}

/** Everything the app is built from: real parts in production, the same parts on a temp dir in tests. */
export interface ServerDeps {
  store: ServerStore;
  jobs: JobsPort;
  analyze(request: AnalyzeRequest, signal: AbortSignal): Promise<Property>;
  validateRender(request: RenderRequest): ValidRenderRequest | Promise<ValidRenderRequest>;
  limits?: Partial<ServerLimits>;
  now?: () => number;
  /** JSON lines; false = silent. */
  log?: LogOptions | false;
  /** Fetches to loopback addresses are allowed (tests only): webhook URLs on 127.0.0.1 are accepted. */
  allowLoopbackFetch?: boolean;
  /** The Studio page at `/` (docs/studio.md); `login` is the one-time link of `immoreel studio`. */
  studio?: { login?: StudioLogin; root?: string };
}

export interface ServerContext {
  deps: ServerDeps;
  limits: ServerLimits;
  registry: RouteRegistry;
  now: () => number;
  startedAt: number;
}

/** A request id we accept from the caller (for tracing across systems), or a new one. */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{8,128}$/;

function requestIdFor(header: string | string[] | undefined): string {
  return typeof header === 'string' && REQUEST_ID_PATTERN.test(header) ? header : randomId('req', 20);
}

/**
 * Two validators: bodies are checked strictly (no coercion, unknown fields refused, every error
 * reported); query strings and path parameters arrive as text, so numbers there are coerced.
 */
function validatorCompiler() {
  const strict = addFormats.default(new Ajv.default({ allErrors: true, coerceTypes: false, useDefaults: false, removeAdditional: false, strict: false }));
  const lenient = addFormats.default(new Ajv.default({ allErrors: true, coerceTypes: true, useDefaults: false, removeAdditional: false, strict: false }));
  return ({ schema, httpPart }: { schema: object; httpPart?: string }): ValidateFunction =>
    (httpPart === 'body' ? strict : lenient).compile(schema);
}

function stampHeaders(requestId: string, reply: FastifyReply): void {
  reply.header('X-Request-Id', requestId);
  reply.header('X-API-Version', API_VERSION);
}

/** A request so malformed that the HTTP parser gave up: answer the envelope on the raw socket. */
function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) return;
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const requestId = randomId('req', 20);
  const problem = new AppError('BAD_REQUEST', tooLarge ? 'Request headers are too large.' : 'Malformed HTTP request.', {
    reason: tooLarge ? 'headers_too_large' : 'malformed_http',
  });
  const body = JSON.stringify(envelope(problem, requestId));
  socket.end(
    `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\nX-API-Version: ${API_VERSION}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export function buildApp(deps: ServerDeps): FastifyInstance {
  const now = deps.now ?? Date.now;
  const limits: ServerLimits = { ...DEFAULT_LIMITS, ...deps.limits };
  const log = deps.log ?? false;
  const app = Fastify({
    logger:
      log === false
        ? false
        : {
            level: log.level ?? 'info',
            stream: log.stream,
            base: { service: 'immoreel' },
            timestamp: () => `,"time":"${new Date().toISOString()}"`,
            formatters: { level: (label: string) => ({ level: label }) },
          },
    // Our own access line (onResponse below) replaces fastify's request logs: one line per request.
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    genReqId: (req) => requestIdFor(req.headers['x-request-id']),
    bodyLimit: 1024 * 1024,
    // Our own onRequest check answers 503 with the envelope while closing (fastify's is a bare body).
    return503OnClosing: false,
    clientErrorHandler,
    frameworkErrors: (error, request, reply) => {
      stampHeaders(request.id, reply);
      return sendError(request, reply, new AppError('BAD_REQUEST', `Malformed request URL: ${error.message}`, { reason: 'bad_url' }));
    },
  });
  app.setValidatorCompiler(validatorCompiler());
  // Bodies are JSON (or raw images on /assets); a text/plain body is refused, not half-parsed.
  app.removeContentTypeParser('text/plain');

  const registry = new RouteRegistry();
  const ctx: ServerContext = { deps, limits, registry, now, startedAt: now() };
  const limiter = new SlidingWindowLimiter(now);

  app.decorateRequest('auth', null);
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    stampHeaders(request.id, reply);
    if (closing) {
      reply.header('Connection', 'close');
      throw new AppError('SERVICE_UNAVAILABLE', 'The server is shutting down: retry in a few seconds.', { reason: 'shutting_down', retryAfterS: 5 });
    }
  });
  registerStudio(app, { keys: deps.store.keys, ...deps.studio });
  app.addHook('onRequest', createAuthorizer({ keys: deps.store.keys, usage: deps.store.usage, limiter, limits, now }));
  app.addHook('onResponse', refundHook(deps.store.usage));
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url ?? null,
        status: reply.statusCode,
        latency_ms: Math.round(reply.elapsedTime * 100) / 100,
        key_id: request.auth?.key.key_id,
      },
      'request',
    );
  });
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);

  analyzeRoutes(app, ctx);
  renderRoutes(app, ctx);
  jobRoutes(app, ctx);
  assetRoutes(app, ctx);
  accountRoutes(app, ctx);
  healthRoutes(app, ctx);
  retiredRoutes(app, ctx);
  openapiRoutes(app, ctx);
  return app;
}

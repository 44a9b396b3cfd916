import { AUTH_FAILURES_PER_WINDOW, AuthAttempts } from './auth-throttle.js';
import type { Socket } from 'node:net';
import compress from '@fastify/compress';
import cors from '@fastify/cors';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { AppError } from '../core/errors.js';
import { NO_METRICS } from '../core/metrics.js';
import { createLogger } from '../core/logger.js';
import { OutageWatch } from './outage-watch.js';
import { OFF_THREAD_JSON_MIN_BYTES, RawJsonBody } from '../core/json-body.js';
import { compileInputSchema, inputProblems, invalidInput } from '../core/requests.js';
import { createAuthorizer } from './auth.js';
import { receiveBody } from './body-chunks.js';
import { BodyBudget, bodyCaller } from './body-budget.js';
import { API_VERSION, DEFAULT_LIMITS, type ServerLimits } from './api-limits.js';
import { envelope, errorHandler, notFoundHandler, sendError, withHeaders } from './errors.js';
import { randomId } from '../core/random-ids.js';
import { registerStudio } from './studio/index.js';
import { RouteRegistry } from './route-spec.js';
import { accountRoutes } from './routes/account.js';
import { analyzeRoutes } from './routes/analyze.js';
import { assetRoutes } from './routes/assets.js';
import { shareRoutes } from './routes/shares.js';
import { healthRoutes } from './routes/health.js';
import { jobRoutes } from './routes/jobs.js';
import { templateStillRoutes } from './routes/template-stills.js';
import { openapiRoutes } from './routes/openapi.js';
import { renderRoutes } from './routes/render.js';
import { retiredRoutes } from './routes/retired.js';
import type { ServerContext, ServerDeps } from './request-context.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Starts the drain of a stopping node: every request is answered 503 with Retry-After until it closes. */
    drain(): void;
  }
}

export type { JobsPort, LogOptions, ServerContext, ServerDeps } from './request-context.js';

/** A request id we accept from the caller (for tracing across systems), or a new one. */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{8,128}$/;

function requestIdFor(header: string | string[] | undefined): string {
  return typeof header === 'string' && REQUEST_ID_PATTERN.test(header) ? header : randomId('req', 20);
}

/**
 * Two validators: bodies are checked strictly (no coercion, unknown fields refused, every error
 * reported); query strings and path parameters arrive as text, so numbers there are coerced.
 */
function validatorCompiler({ schema, httpPart }: { schema: { title?: unknown }; httpPart?: string }) {
  if (httpPart !== 'body') return compileInputSchema(schema, 'text');
  // Bodies go through the one input check the CLI and CSV rows use: same fields, same messages,
  // the same bounds on the work and the answer (docs/security.md "Bounded validation").
  const subject = typeof schema.title === 'string' ? schema.title : 'request';
  return (data: unknown) => {
    // A large body left unparsed is checked by the analysis worker that parses it, against this same schema.
    if (data instanceof RawJsonBody) return { value: data };
    const problems = inputProblems(schema, data);
    return problems.length === 0 ? { value: data } : { error: invalidInput(subject, problems) };
  };
}

function stampHeaders(requestId: string, reply: FastifyReply): void {
  reply.header('X-Request-Id', requestId);
  reply.header('X-API-Version', API_VERSION);
}

/** An answer in the docs/api.md envelope written on the raw socket, which is then closed. */
function endWithEnvelope(socket: Socket, status: string, problem: AppError, headers = ''): void {
  const requestId = randomId('req', 20);
  const body = JSON.stringify(envelope(problem, requestId));
  socket.end(
    `HTTP/1.1 ${status}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headers}` +
      `X-Request-Id: ${requestId}\r\nX-API-Version: ${API_VERSION}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** A request so malformed that the HTTP parser gave up: answer the envelope on the raw socket. */
function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  // The request (headers and body) did not arrive in time: a stalled peer holds nothing open.
  const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const problem = new AppError(
    'BAD_REQUEST',
    tooLarge
      ? 'Request headers are too large.'
      : timedOut
        ? 'The request was not received in time: send the whole body at once, then retry.'
        : 'Malformed HTTP request.',
    { reason: tooLarge ? 'headers_too_large' : timedOut ? 'request_timeout' : 'malformed_http' },
  );
  endWithEnvelope(socket, tooLarge ? '431 Request Header Fields Too Large' : timedOut ? '408 Request Timeout' : '400 Bad Request', problem);
}

/**
 * CONNECT never reaches fastify's routes: Node hands it to the server's `connect` listeners and,
 * without one, drops the connection unanswered. This is an API, not a proxy: 405 in the envelope.
 */
function refuseConnect(socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const problem = new AppError(
    'METHOD_NOT_ALLOWED',
    'CONNECT is not allowed: this server is an API, not a proxy. Send GET or POST to /api/v1/….',
    {
      reason: 'method_not_allowed',
    },
  );
  endWithEnvelope(socket, '405 Method Not Allowed', problem, 'Allow: GET, HEAD, POST\r\n');
}

/** Every group of routes of API v1; a new group is one more entry. */
const ROUTE_GROUPS = [
  analyzeRoutes,
  renderRoutes,
  jobRoutes,
  templateStillRoutes,
  assetRoutes,
  shareRoutes,
  accountRoutes,
  healthRoutes,
  retiredRoutes,
  openapiRoutes,
];

/** Headers a browser script may read on a cross-origin answer (CORS exposes only a few by default). */
const EXPOSED_HEADERS = [
  'ETag',
  'Location',
  'Retry-After',
  'RateLimit',
  'RateLimit-Policy',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'X-Request-Id',
  'X-API-Version',
  'Idempotent-Replayed',
  'Content-Range',
  'Content-Disposition',
  'Accept-Ranges',
  'Link',
  'Sunset',
];

/**
 * CORS for the origins a deployment names (docs/api.md "CORS"): off by default. Keys travel in
 * `Authorization`, never in cookies, so credentials are not allowed and `*` stays safe.
 */
function registerCors(app: FastifyInstance, origins: readonly string[] | undefined): void {
  if (origins === undefined || origins.length === 0) return;
  // register's promise is fastify's own loading chain: a plugin that fails rejects ready()/listen().
  void app.register(cors, {
    origin: origins.includes('*') ? '*' : [...origins],
    credentials: false,
    methods: ['GET', 'HEAD', 'POST'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-None-Match', 'If-Range', 'Range', 'X-Request-Id'],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
    strictPreflight: false,
  });
}

/**
 * A JSON body, or none at all on routes that take no body (clients often send the header anyway).
 * On a route that parses its body in a worker thread, a large one stays the chunks it arrived in:
 * the thread joins and parses them, so the event loop neither parses a 5 MB page (10–15 ms) nor
 * copies it into one buffer (docs/security.md "Large bodies off the event loop").
 */
function registerJsonParser(app: FastifyInstance, budget: BodyBudget): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (request, payload, done) => {
    request.bodyHold ??= budget.holdFor(bodyCaller(request));
    receiveBody(
      request.headers,
      payload,
      request.routeOptions.bodyLimit,
      (error, received) => {
        if (error !== null || received === undefined) {
          done(error, undefined);
          return;
        }
        if (request.routeOptions.config.largeBodyOffThread === true && received.length >= OFF_THREAD_JSON_MIN_BYTES) {
          done(null, RawJsonBody.of(received.chunks));
          return;
        }
        const text = Buffer.concat(received.chunks, received.length).toString('utf8');
        const takesBody = request.routeOptions.schema?.body !== undefined || request.routeOptions.config.bodyCheckedByHandler === true;
        if (text.trim() === '' && !takesBody) {
          done(null, undefined);
          return;
        }
        // The default parser answers through `done`, synchronously; the promise in its type belongs to
        // the other parser form (one without `done`).
        void parseJson(request, text, done);
      },
      request.raw,
      request.bodyHold,
    );
  });
}

/** Methods a path answers, from the route table: for 405 + `Allow` instead of a bare 404. */
function allowedMethods(registry: RouteRegistry, path: string): string[] {
  const methods = new Set<string>();
  for (const spec of registry.specs) {
    const pattern = new RegExp(`^${spec.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+')}/?$`);
    if (!pattern.test(path)) continue;
    methods.add(spec.method);
    if (spec.method === 'GET') methods.add('HEAD');
  }
  return [...methods];
}

export function buildApp(deps: ServerDeps): FastifyInstance {
  const now = deps.now ?? Date.now;
  const limits: ServerLimits = { ...DEFAULT_LIMITS, ...deps.limits };
  const log = deps.log ?? false;
  const loggerInstance: FastifyBaseLogger | undefined =
    log === false ? undefined : (log.logger ?? createLogger({ stream: log.stream, level: log.level, process: log.process ?? 'serve' }));
  const app = Fastify({
    // The same JSON lines as `immoreel worker` writes (docs/operations.md "Logs").
    ...(loggerInstance === undefined ? { logger: false } : { loggerInstance }),
    // Our own access line (onResponse below) replaces fastify's request logs: one line per request.
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    genReqId: (req) => requestIdFor(req.headers['x-request-id']),
    bodyLimit: 1024 * 1024,
    // `--trust-proxy` (docs/studio.md "Behind a proxy"): only then are X-Forwarded-Proto/-For/-Host believed.
    trustProxy: deps.trustProxy === true,
    requestTimeout: limits.requestTimeoutMs,
    // Node checks for overdue requests every 30 s by default: check often enough for the limit to hold.
    http: {
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: Math.min(limits.requestTimeoutMs, 60_000),
      connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(limits.requestTimeoutMs / 4))),
      // Node would answer a request without Host with a bare 400: the onRequest hook below answers it in the envelope.
      requireHostHeader: false,
    },
    // Our own onRequest check answers 503 with the envelope while closing (fastify's is a bare body).
    return503OnClosing: false,
    clientErrorHandler,
    frameworkErrors: (error, request, reply) => {
      stampHeaders(request.id, reply);
      // A reply is thenable (it settles once sent); this hook's caller expects nothing back.
      void sendError(request, reply, new AppError('BAD_REQUEST', `Malformed request URL: ${error.message}`, { reason: 'bad_url' }));
    },
  });
  app.setValidatorCompiler(validatorCompiler);
  registerCors(app, deps.corsOrigins);
  // Compressed answers when asked (Accept-Encoding); videos and images are already compressed.
  // (A plugin that fails to load rejects ready()/listen(), which start awaits.)
  void app.register(compress, { global: true, encodings: ['br', 'gzip', 'deflate'], threshold: 1024 });
  const bodyBudget = new BodyBudget(limits.bodyBytesInFlight, limits.bodyBytesInFlightPerCaller);
  registerJsonParser(app, bodyBudget);
  // Bodies are JSON (or raw images on /assets); a text/plain body is refused, not half-parsed.
  app.removeContentTypeParser('text/plain');

  const registry = new RouteRegistry();
  const metrics = deps.metrics ?? NO_METRICS;
  const outages = new OutageWatch({
    probes: { database: () => deps.records.ping(), storage: () => deps.blobs.check() },
    log: {
      warn: (fields, message) => app.log.warn(fields, message),
      info: (fields, message) => app.log.info(fields, message),
    },
    metrics,
    now,
  });
  const ctx: ServerContext = { deps, limits, registry, now, startedAt: now(), outages, bodyBudget };

  app.decorateRequest('auth', null);
  app.decorateRequest('bodyHold', null);
  // A body is held until its answer is sent, or the caller goes away (./body-budget.ts).
  app.addHook('onResponse', async (request) => request.bodyHold?.release());
  app.addHook('onRequestAbort', async (request) => request.bodyHold?.release());
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // SIGTERM: the listener stays open while running renders drain, and every request is answered
  // 503 with Retry-After meanwhile, not refused (docs/operations.md "Stopping a node").
  app.decorate('drain', () => {
    closing = true;
  });
  app.server.on('connect', (_request, socket: Socket) => refuseConnect(socket));
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    stampHeaders(request.id, reply);
    // HTTP/1.1 requires Host (RFC 9112 §3.2); HTTP/1.0 may omit it.
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      reply.header('Connection', 'close');
      throw new AppError('BAD_REQUEST', 'The request has no Host header: HTTP/1.1 requires one (e.g. Host: api.example.com).', {
        reason: 'malformed_http',
        details: [{ field: 'Host', message: 'missing' }],
      });
    }
    if (closing) {
      reply.header('Connection', 'close');
      throw new AppError('SERVICE_UNAVAILABLE', 'The server is shutting down: retry in a few seconds.', {
        reason: 'shutting_down',
        retryAfterS: 5,
      });
    }
  });
  // Failed sign-ins and unknown keys, per address, for the Studio and the API alike (./auth-throttle.ts).
  const attempts = new AuthAttempts(AUTH_FAILURES_PER_WINDOW, 60_000, now);
  registerStudio(app, { records: deps.records, trustProxy: deps.trustProxy, attempts, ...deps.studio });
  app.addHook('onRequest', createAuthorizer({ records: deps.records, limits, now, attempts }));
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
  // One line as an outage begins and one as it ends, however many requests meet it (docs/operations.md "Logs").
  app.addHook('onClose', async () => outages.stop());
  app.setErrorHandler((error, request, reply) => errorHandler(error, request, reply, { metrics, outages }));
  const unknownRoute = (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const allow = allowedMethods(registry, request.url.split('?')[0]!);
    if (allow.length === 0 || request.method === 'OPTIONS') return notFoundHandler(request, reply);
    const problem = new AppError(
      'METHOD_NOT_ALLOWED',
      `${request.method} is not allowed on ${request.url.split('?')[0]!.slice(0, 200)}: use ${allow.join(', ')}.`,
      {
        reason: 'method_not_allowed',
      },
    );
    return sendError(request, reply, withHeaders(problem, { Allow: allow.join(', ') }));
  };
  // An unknown route is answered from its headers: its body is never read, nor inflated (docs/security.md "Bodies").
  app.addHook('onRequest', async (request, reply) => {
    if (request.is404) return unknownRoute(request, reply);
    return undefined;
  });
  app.setNotFoundHandler(unknownRoute);

  // Routes are added once the plugins above (CORS, compression) have loaded, so their hooks apply.
  // A failure while adding them rejects ready()/listen().
  void app.register(async (routes) => {
    // TypeBox schemas give the routes their request types (RouteRegistry.add infers them).
    const typed = routes.withTypeProvider<TypeBoxTypeProvider>();
    for (const addRoutes of ROUTE_GROUPS) addRoutes(typed, ctx);
  });
  return app;
}

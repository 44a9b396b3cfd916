import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppError, badRequest } from '../core/errors.js';
import { randomId } from '../core/random-ids.js';
import { OUTAGE_RETRY_AFTER_S } from '../records/outage.js';
import { API_PREFIX } from './api-limits.js';
import { envelope } from './errors.js';
import { PrometheusMetrics, type MetricSources } from './prometheus.js';
import { checkReadiness, healthBody, notReadyError, readyBody } from './readiness.js';
import { networkInterfaces } from 'node:os';
import { servedHosts } from './studio/request-guard.js';

/**
 * The metrics port of `serve` and `worker` (`--metrics-port`, docs/operations.md "Metrics"): its
 * own listener, apart from the API's, so the API port never shows the metrics. It answers
 * `GET /metrics` (Prometheus text), and the liveness and readiness of docs/operations.md "Health
 * and readiness" with the API's own bodies — the only probes a worker, which has no API port, has.
 */

export interface MetricsPortSettings {
  /** `--metrics-host`: loopback unless the scraper runs on another machine. */
  host: string;
  /** `--metrics-port`; 0 = any free port (the bound address is in `url`). */
  port: number;
  /** `--public-host` names: a scraper may address the port by them too. */
  publicHosts?: readonly string[];
}

/** `Host` without its port, lower case (IPv6 in brackets). */
function hostOf(request: IncomingMessage): string {
  const host = (request.headers.host ?? '').trim().toLowerCase();
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]!;
}

function send(response: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body), ...headers });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}

function sendError(response: ServerResponse, error: AppError, headers: Record<string, string> = {}): void {
  const requestId = randomId('req', 20);
  const retryAfter: Record<string, string> =
    error.retryAfterS === undefined ? {} : { 'Retry-After': String(Math.max(1, Math.ceil(error.retryAfterS))) };
  send(response, error.httpStatus, 'application/json; charset=utf-8', JSON.stringify(envelope(error, requestId)), {
    'X-Request-Id': requestId,
    ...retryAfter,
    ...headers,
  });
}

const json = (response: ServerResponse, body: unknown): void =>
  send(response, 200, 'application/json; charset=utf-8', JSON.stringify(body));

async function answer(
  request: IncomingMessage,
  response: ServerResponse,
  metrics: PrometheusMetrics,
  sources: MetricSources,
  startedAt: number,
  workerFault: () => string | null,
  hosts: ReadonlySet<string>,
): Promise<void> {
  // Against DNS rebinding (docs/security.md "Metrics port"): a web page whose name now points at
  // this port cannot read it, as its requests name the page's host.
  if (!hosts.has(hostOf(request))) {
    sendError(
      response,
      new AppError(
        'INSUFFICIENT_SCOPE',
        `The metrics port does not answer to the name ${JSON.stringify(hostOf(request).slice(0, 100))}: scrape it at the address it listens on, or name it with --public-host.`,
        { reason: 'unknown_host' },
      ),
    );
    return;
  }
  const path = (request.url ?? '/').split('?')[0]!;
  const known = path === '/metrics' || path === `${API_PREFIX}/health` || path === `${API_PREFIX}/ready`;
  if (!known) {
    sendError(
      response,
      new AppError(
        'NOT_FOUND',
        `No route ${path.slice(0, 200)} on the metrics port: it serves /metrics, ${API_PREFIX}/health and ${API_PREFIX}/ready.`,
        { reason: 'unknown_route' },
      ),
    );
    return;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    sendError(
      response,
      new AppError('METHOD_NOT_ALLOWED', `${request.method ?? ''} is not allowed on ${path}: use GET.`, { reason: 'method_not_allowed' }),
      {
        Allow: 'GET, HEAD',
      },
    );
    return;
  }
  if (path === '/metrics') {
    const { contentType, text } = await metrics.scrape();
    send(response, 200, contentType, text);
  } else if (path === `${API_PREFIX}/health`) {
    json(response, healthBody(Date.now() - startedAt));
  } else {
    // A worker with a fault of its own (full scratch disk, ffmpeg missing) claims nothing: not ready (docs/jobs.md "Worker faults").
    const fault = workerFault();
    if (fault !== null) {
      sendError(response, new AppError('SERVICE_UNAVAILABLE', fault, { reason: 'worker_not_ready', retryAfterS: OUTAGE_RETRY_AFTER_S }));
      return;
    }
    const readiness = await checkReadiness(sources);
    if (readiness.ready) json(response, readyBody(readiness));
    else sendError(response, notReadyError(readiness));
  }
}

/** A port in use or not ours to take is the operator's to fix, and says which flag. */
function listenError(error: unknown, settings: MetricsPortSettings): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    return badRequest(`--metrics-port ${settings.port} is already in use on ${settings.host}: pick another port for the metrics.`, {
      details: [{ field: 'metrics-port', message: 'in use' }],
    });
  if (code === 'EACCES')
    return badRequest(
      `Not allowed to listen on ${settings.host}:${settings.port} (ports below 1024 need privileges): pick another --metrics-port.`,
      {
        details: [{ field: 'metrics-port', message: 'not permitted' }],
      },
    );
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
    return badRequest(
      `Cannot listen on ${settings.host}: no such local address. Set --metrics-host to 127.0.0.1, 0.0.0.0 or one of this machine's addresses.`,
      {
        details: [{ field: 'metrics-host', message: 'not a local address' }],
      },
    );
  return error;
}

/**
 * Made before the job layer (which is handed `metrics`), listening once the records and blobs are
 * open (`listen`): the gauges and probes read them.
 */
export class MetricsEndpoint {
  readonly metrics = new PrometheusMetrics();
  private readonly startedAt = Date.now();
  private server: Server | null = null;

  constructor(private readonly settings: MetricsPortSettings) {}

  /**
   * Starts answering; resolves with the bound URL (`http://host:port`). `workerFault`: why this
   * worker is not ready of its own accord, or null (then `/ready` checks the dependencies).
   */
  async listen(sources: MetricSources, workerFault: () => string | null = () => null): Promise<string> {
    this.metrics.readFrom(sources);
    const hosts = servedHosts(this.settings.host, this.settings.publicHosts ?? [], networkInterfaces());
    const server = createServer((request, response) => {
      answer(request, response, this.metrics, sources, this.startedAt, workerFault, hosts).catch(() => {
        // Only a bug gets here (collection and probes catch their own failures): a generic 500.
        if (!response.headersSent) sendError(response, new AppError('INTERNAL_SERVER_ERROR', 'The metrics could not be read.'));
        else response.destroy();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error) => reject(listenError(error, this.settings)));
      server.listen(this.settings.port, this.settings.host, () => resolve());
    });
    this.server = server;
    const address = server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${host}:${address.port}`;
  }

  /** Stops answering; a scraper's kept-alive connection does not hold it open. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server === null) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}

import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { Agent, ProxyAgent, request, type Dispatcher } from 'undici';
import type { ProxySettings } from '../config/config-schema.js';
import { AppError, badRequest } from '../core/errors.js';
import { secondsSince, type Metrics } from '../core/metrics.js';
import { sleep } from '../core/time.js';
import { backoffMs, parseRetryAfter, withRetries } from './retry.js';
import { assertPublicHost, findForbiddenAddress, guardedLookup, type ForbiddenAddressError } from './address-guard.js';

/**
 * Every outgoing HTTP request of immoreel (listing pages, photos, logos, webhooks) goes through
 * here: timeouts, bounded redirects, a size limit, retries with backoff, Retry-After, a polite
 * per-host pace and (server side) a refusal of private addresses. Decisions: docs/portals.md.
 */
export interface FetchOptions {
  method?: 'GET' | 'POST' | 'HEAD';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Largest body accepted, in bytes, after decompression (default 10 MB). */
  maxBytes?: number;
  /** Time to get response headers, and then between body chunks (default 15 s). */
  timeoutMs?: number;
  /** Time to open the TCP/TLS connection (default 10 s). */
  connectTimeoutMs?: number;
  /** Whole attempt, body included: stops a server that drips bytes forever (default 60 s). */
  totalTimeoutMs?: number;
  /** Redirects followed before giving up (default 5); 0 returns the 3xx response unfollowed. */
  maxRedirects?: number;
  /** Extra attempts after a network error, a 5xx or a 429 (default 2 for GET/HEAD, 0 otherwise). */
  retries?: number;
  /** First backoff delay; doubles each attempt, with jitter (default 500 ms). */
  retryBaseMs?: number;
  /** A 429/503 asking to wait longer than this is returned to the caller instead (default 30 s). */
  maxRetryAfterS?: number;
  /** Smallest gap between two requests to the same host, shared by the whole process (default 0). */
  paceMs?: number;
  /** Send the headers of a desktop browser (portal pages serve bots differently). */
  browserHeaders?: boolean;
  /** Refuse loopback, private, link-local and metadata addresses, also after redirects and DNS. */
  guardAddresses?: boolean;
  /** With guardAddresses: still allow 127.0.0.1/::1/localhost (tests only). */
  allowLoopback?: boolean;
  /** Use this undici dispatcher (tests pass a MockAgent); default: the proxy, or the global one. */
  dispatcher?: Dispatcher;
  /** HTTP(S)_PROXY and NO_PROXY as the configuration read them (docs/configuration.md); never used when guarded. */
  proxy?: ProxySettings;
  signal?: AbortSignal;
}

export interface FetchResult {
  status: number;
  /** The final URL, after redirects. */
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

const DEFAULTS = {
  maxBytes: 10 * 1024 * 1024,
  timeoutMs: 15_000,
  connectTimeoutMs: 10_000,
  totalTimeoutMs: 60_000,
  maxRedirects: 5,
  retries: 2,
  retryBaseMs: 500,
  maxRetryAfterS: 30,
};

/** A current desktop Chrome on Linux; portals answer it with the same page a user sees. */
export const BROWSER_HEADERS: Readonly<Record<string, string>> = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8',
  'accept-language': 'fr-MA,fr;q=0.9,en;q=0.8,ar;q=0.7',
  'accept-encoding': 'gzip, deflate, br',
  'upgrade-insecure-requests': '1',
  'sec-fetch-dest': 'document',
  'sec-fetch-mode': 'navigate',
  'sec-fetch-site': 'none',
  'sec-fetch-user': '?1',
};

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers that must not follow a redirect to another origin. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

// ---------------------------------------------------------------------------------------------
// Dispatchers

const guardedAgents = new Map<string, Agent>();
function guardedAgent(allowLoopback: boolean, connectTimeoutMs: number): Agent {
  const key = `${allowLoopback}:${connectTimeoutMs}`;
  let agent = guardedAgents.get(key);
  if (agent === undefined) {
    agent = new Agent({ connect: { timeout: connectTimeoutMs, lookup: guardedLookup({ allowLoopback }) } });
    guardedAgents.set(key, agent);
  }
  return agent;
}

/** True when NO_PROXY lists the host (exact, dotted suffix, or `*`), as curl reads it. */
function bypassesProxy(url: URL, noProxy: string | undefined): boolean {
  if (noProxy === undefined) return false;
  const host = url.hostname.toLowerCase();
  return noProxy.split(',').some((entry) => {
    const rule = entry.trim().toLowerCase().replace(/:\d+$/, '');
    if (rule === '') return false;
    if (rule === '*') return true;
    const suffix = rule.replace(/^\*?\.?/, '');
    return host === suffix || host.endsWith(`.${suffix}`);
  });
}

const proxyAgents = new Map<string, ProxyAgent>();
/** Users behind a corporate proxy set HTTPS_PROXY/HTTP_PROXY (and NO_PROXY): honour them. */
function proxyDispatcher(url: URL, settings: ProxySettings, connectTimeoutMs: number): Dispatcher | undefined {
  const proxy = url.protocol === 'https:' ? (settings.httpsProxy ?? settings.httpProxy) : settings.httpProxy;
  if (proxy === undefined || bypassesProxy(url, settings.noProxy)) return undefined;
  let agent = proxyAgents.get(proxy);
  if (agent === undefined) {
    agent = new ProxyAgent({ uri: proxy, connect: { timeout: connectTimeoutMs } });
    proxyAgents.set(proxy, agent);
  }
  return agent;
}

function dispatcherFor(url: URL, options: FetchOptions, connectTimeoutMs: number): Dispatcher | undefined {
  if (options.dispatcher !== undefined) return options.dispatcher;
  // A guarded fetch connects directly: through a proxy, the address checked would be the proxy's.
  if (options.guardAddresses) return guardedAgent(options.allowLoopback === true, connectTimeoutMs);
  // undefined = undici's global dispatcher (its own connect timeout is 10 s; tests swap in a MockAgent).
  return proxyDispatcher(url, options.proxy ?? {}, connectTimeoutMs);
}

// ---------------------------------------------------------------------------------------------
// Pace

const nextSlotByHost = new Map<string, number>();

/** Reserves the next request slot for a host and waits for it: concurrent callers queue up. */
async function waitForHostSlot(host: string, paceMs: number, signal?: AbortSignal): Promise<void> {
  if (paceMs <= 0) return;
  const now = Date.now();
  const slot = Math.max(now, nextSlotByHost.get(host) ?? 0);
  nextSlotByHost.set(host, slot + paceMs);
  if (slot > now) await sleep(slot - now, signal);
}

// ---------------------------------------------------------------------------------------------
// Errors

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current instanceof Error; depth += 1) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === 'string') return code;
    if (current.name === 'TimeoutError') return 'TOTAL_TIMEOUT';
    current = (current as Error & { cause?: unknown }).cause;
  }
  return undefined;
}

const RETRYABLE_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'TOTAL_TIMEOUT',
]);

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

function describeNetworkError(error: unknown, timing: { timeoutMs: number; connectTimeoutMs: number; totalTimeoutMs: number }): string {
  const code = errorCode(error);
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `the connection timed out after ${seconds(timing.connectTimeoutMs)}`;
    case 'UND_ERR_HEADERS_TIMEOUT':
      return `it did not answer within ${seconds(timing.timeoutMs)}`;
    case 'UND_ERR_BODY_TIMEOUT':
      return `the response stalled for more than ${seconds(timing.timeoutMs)}`;
    case 'TOTAL_TIMEOUT':
      return `the response took longer than ${seconds(timing.totalTimeoutMs)}`;
    case 'ENOTFOUND':
      return 'the host name does not resolve (check the address and the internet connection)';
    case 'EAI_AGAIN':
      return 'the host name could not be resolved (DNS unavailable)';
    case 'ECONNREFUSED':
      return 'the connection was refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
    case 'EPIPE':
      return 'the connection was closed unexpectedly';
    case 'ENETUNREACH':
    case 'EHOSTUNREACH':
      return 'the network is unreachable';
    default:
      if (code !== undefined && /CERT|SSL|TLS/i.test(code)) return `its TLS certificate was refused (${code})`;
      return error instanceof Error ? error.message.replace(/\.$/, '') : String(error);
  }
}

function forbiddenError(url: string, refused: ForbiddenAddressError): AppError {
  return badRequest(
    `Refusing to fetch ${url}: ${refused.host} is a ${refused.kind} address${refused.address !== refused.host ? ` (${refused.address})` : ''}. ` +
      'Only public http(s) addresses can be fetched.',
    { reason: 'forbidden_address', details: [{ field: 'url', message: `${refused.kind} addresses are not allowed` }] },
  );
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}

function tooLarge(url: string, maxBytes: number): AppError {
  return new AppError('UPSTREAM_ERROR', `${url} is larger than the ${formatBytes(maxBytes)} allowed.`, { reason: 'too_large' });
}

// ---------------------------------------------------------------------------------------------
// One request, one response (redirects followed)

function parseHttpUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badRequest(`${JSON.stringify(url)} is not a valid URL.`, { details: [{ field: 'url', message: 'not a valid URL' }] });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw badRequest(`Only http(s) URLs can be fetched, not ${parsed.protocol}.`, {
      details: [{ field: 'url', message: 'must start with http:// or https://' }],
    });
  }
  return parsed;
}

function flatHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (value !== undefined) headers[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function decompress(body: Buffer, encoding: string | undefined, url: string, maxBytes: number): Buffer {
  const codings = (encoding ?? '')
    .toLowerCase()
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '' && c !== 'identity');
  let data = body;
  try {
    for (const coding of codings.reverse()) {
      if (coding === 'gzip' || coding === 'x-gzip') data = gunzipSync(data, { maxOutputLength: maxBytes });
      else if (coding === 'deflate') data = inflateSync(data, { maxOutputLength: maxBytes });
      else if (coding === 'br') data = brotliDecompressSync(data, { maxOutputLength: maxBytes });
      else return data; // an encoding we did not ask for: hand the bytes over as they are
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(url, maxBytes);
    throw new AppError('UPSTREAM_ERROR', `${new URL(url).host} sent a corrupt compressed response.`, { cause: error });
  }
  return data;
}

/** Drops a response body we will not read (undici reports a destroyed body as an 'error' event). */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

interface Settings {
  maxBytes: number;
  timeoutMs: number;
  connectTimeoutMs: number;
  totalTimeoutMs: number;
  maxRedirects: number;
  paceMs: number;
}

async function fetchOnce(startUrl: string, options: FetchOptions, settings: Settings): Promise<FetchResult> {
  const headers: Record<string, string> = options.browserHeaders ? { ...BROWSER_HEADERS } : {};
  for (const [key, value] of Object.entries(options.headers ?? {})) headers[key.toLowerCase()] = value;
  let method = options.method ?? 'GET';
  let body = options.body;
  let current = parseHttpUrl(startUrl);
  const deadline = AbortSignal.timeout(settings.totalTimeoutMs);
  const signal = options.signal === undefined ? deadline : AbortSignal.any([options.signal, deadline]);

  for (let redirects = 0; ; redirects += 1) {
    if (options.guardAddresses) assertPublicHost(current, { allowLoopback: options.allowLoopback });
    await waitForHostSlot(current.host, settings.paceMs, options.signal);
    const response = await request(current, {
      method,
      headers,
      body,
      headersTimeout: settings.timeoutMs,
      bodyTimeout: settings.timeoutMs,
      signal,
      dispatcher: dispatcherFor(current, options, settings.connectTimeoutMs),
    });
    const responseHeaders = flatHeaders(response.headers);

    // maxRedirects 0 means "do not follow": the 3xx itself is the answer (webhooks count it as a failure).
    if (REDIRECT_STATUSES.has(response.statusCode) && responseHeaders.location && settings.maxRedirects > 0) {
      await response.body.dump();
      if (redirects >= settings.maxRedirects) {
        throw new AppError('UPSTREAM_ERROR', `${startUrl} redirects more than ${settings.maxRedirects} times.`, {
          reason: 'too_many_redirects',
        });
      }
      const next = parseHttpUrl(new URL(responseHeaders.location, current).toString());
      if (next.origin !== current.origin) for (const name of CREDENTIAL_HEADERS) delete headers[name];
      if (response.statusCode === 303 || ((response.statusCode === 301 || response.statusCode === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        delete headers['content-type'];
        delete headers['content-length'];
      }
      current = next;
      continue;
    }

    const declared = Number(responseHeaders['content-length']);
    if (Number.isFinite(declared) && declared > settings.maxBytes) {
      discard(response.body);
      throw tooLarge(current.toString(), settings.maxBytes);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > settings.maxBytes) {
        discard(response.body);
        throw tooLarge(current.toString(), settings.maxBytes);
      }
      chunks.push(chunk as Buffer);
    }
    const raw = Buffer.concat(chunks);
    const decoded = decompress(raw, responseHeaders['content-encoding'], current.toString(), settings.maxBytes);
    if (decoded !== raw) {
      delete responseHeaders['content-encoding'];
      responseHeaders['content-length'] = String(decoded.length);
    }
    return { status: response.statusCode, url: current.toString(), headers: responseHeaders, body: decoded };
  }
}

// ---------------------------------------------------------------------------------------------
// The public entry point

/**
 * Fetches a URL and returns the final response whatever its status (callers decide what a 404
 * means). Network failures become UPSTREAM_ERROR; refused addresses BAD_REQUEST (`forbidden_address`).
 */
export async function fetchBuffer(url: string, options: FetchOptions = {}): Promise<FetchResult> {
  const settings: Settings = {
    maxBytes: options.maxBytes ?? DEFAULTS.maxBytes,
    timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs,
    totalTimeoutMs: options.totalTimeoutMs ?? DEFAULTS.totalTimeoutMs,
    maxRedirects: options.maxRedirects ?? DEFAULTS.maxRedirects,
    paceMs: options.paceMs ?? 0,
  };
  const idempotent = (options.method ?? 'GET') !== 'POST';
  const retries = options.retries ?? (idempotent ? DEFAULTS.retries : 0);
  const retryBaseMs = options.retryBaseMs ?? DEFAULTS.retryBaseMs;
  const maxRetryAfterS = options.maxRetryAfterS ?? DEFAULTS.maxRetryAfterS;
  const host = parseHttpUrl(url).host;

  const retryableStatus = (status: number): boolean => status === 429 || (status >= 500 && status !== 501 && status !== 505);
  let attempts = 0;
  try {
    const attempt = (n: number): Promise<FetchResult> => {
      attempts = n + 1;
      return fetchOnce(url, options, settings);
    };
    return await withRetries(attempt, {
      signal: options.signal,
      delayAfter(outcome, attempt) {
        if (attempt >= retries) return null;
        if (!outcome.ok) {
          const code = errorCode(outcome.error);
          const transient =
            !options.signal?.aborted && !(outcome.error instanceof AppError) && findForbiddenAddress(outcome.error) === null;
          return transient && code !== undefined && RETRYABLE_CODES.has(code) ? backoffMs(attempt, retryBaseMs) : null;
        }
        if (!retryableStatus(outcome.value.status)) return null;
        const askedS = parseRetryAfter(outcome.value.headers['retry-after']);
        if (askedS !== null && askedS > maxRetryAfterS) return null;
        return askedS !== null ? askedS * 1000 : backoffMs(attempt, retryBaseMs);
      },
    });
  } catch (error) {
    if (options.signal?.aborted || error instanceof AppError) throw error;
    const refused = findForbiddenAddress(error);
    if (refused !== null) throw forbiddenError(url, refused);
    const code = errorCode(error);
    const tries = attempts > 1 ? ` (${attempts} attempts)` : '';
    throw new AppError('UPSTREAM_ERROR', `Could not reach ${host}: ${describeNetworkError(error, settings)}${tries}.`, {
      reason: code === undefined || !/TIMEOUT/.test(code) ? 'network_error' : 'timeout',
      cause: error,
    });
  }
}

// ---------------------------------------------------------------------------------------------
// The fetch port

/** Options a caller of the port may set; the address policy belongs to whoever built the port. */
export type PortFetchOptions = Omit<FetchOptions, 'guardAddresses' | 'allowLoopback'>;

/**
 * The one way the analysis and the renderer reach the network. Built once per process by whoever
 * decides the address policy (the server: guarded; local mode: open) and handed down, so no layer
 * below needs to know which policy applies. See docs/architecture.md.
 */
export type FetchPort = (url: string, options?: PortFetchOptions) => Promise<FetchResult>;

/** No address policy and no proxy: local mode, where the user may fetch any host their machine reaches. */
export const openFetch: FetchPort = (url, options = {}) => fetchBuffer(url, options);

/** `openFetch` through the configured proxy (HTTPS_PROXY, HTTP_PROXY, NO_PROXY): what local mode uses. */
export function openFetchVia(proxy: ProxySettings): FetchPort {
  if (proxy.httpProxy === undefined && proxy.httpsProxy === undefined) return openFetch;
  return (url, options = {}) => fetchBuffer(url, { ...options, proxy });
}

/**
 * Refuses loopback, private, link-local and metadata addresses (server side). `allowLoopback`
 * lets tests reach fixture servers on 127.0.0.1 (`serve --allow-loopback-fetch`).
 */
export function guardedFetch(policy: { allowLoopback?: boolean } = {}): FetchPort {
  const allowLoopback = policy.allowLoopback === true;
  return (url, options = {}) => fetchBuffer(url, { ...options, guardAddresses: true, allowLoopback });
}

/** `port`, with each fetch's time (whatever its outcome) told to the metrics (docs/operations.md "Metrics"). */
export function timedFetch(port: FetchPort, metrics: Pick<Metrics, 'fetched'>): FetchPort {
  return async (url, options) => {
    const started = process.hrtime.bigint();
    try {
      return await port(url, options);
    } finally {
      metrics.fetched(secondsSince(started));
    }
  };
}

import { Agent, request as undiciRequest, type Dispatcher } from 'undici';
import { AppError } from '../core/errors.js';
import { errorFromResponse, networkFailure, RemoteError, unreachable } from './errors.js';
import { packageVersion } from '../core/files.js';
import { sleep } from '../core/time.js';
import { backoffMs, parseRetryAfter, withRetries } from '../net/retry.js';
import { RatePacer } from './pacing.js';

/**
 * The HTTP layer of remote mode (docs/architecture.md "Layers"), over undici.
 *
 * - Timeouts: connect 10 s; an answer must start within 60 s (120 s for analyze and render,
 *   where the server may fetch a portal page first); a body may not stall for more than 60 s.
 * - Retries: a request that is safe to repeat (GET, or POST with an Idempotency-Key, or one whose
 *   repetition is harmless) is retried after a network error or a transient 5xx, 3 times, with
 *   exponential backoff and jitter (0.5 s, 1 s, 2 s…), or after the server's Retry-After.
 * - Outages (docs/remote.md "Outages"): a server that answers 502/503/504 or cannot be connected
 *   to is waited for instead, for up to `outageWaitMs` in all (IMMOREEL_REMOTE_WAIT_SECONDS),
 *   with the same backoff, never sooner than its Retry-After; each wait is one warning line.
 *   A refused connection is retried for any request: nothing reached the server.
 * - 429: always retried after Retry-After (never sooner), for any method — the server did not
 *   process a refused request. Up to 10 times, and not when the server asks for more than 120 s
 *   (then the 429 is reported: exit 5).
 * - Pacing: every request goes through the RatePacer, which keeps each route under the limits
 *   the server advertises in RateLimit-Policy / RateLimit.
 * - `Deprecation` / `Sunset` answers print a one-line warning on stderr, once per route.
 */

export interface HttpClientOptions {
  baseUrl: string;
  apiKey: string | null;
  /** One-line warnings for the user (stderr). */
  warn?: (message: string) => void;
  pacer?: RatePacer;
  connectTimeoutMs?: number;
  requestTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /** Retries after a network error or a transient 5xx (default 3). */
  retries?: number;
  /** First backoff delay (default 500 ms), doubled each retry, capped at 8 s. */
  backoffMs?: number;
  /** Longest Retry-After the client waits out on a 429 (default 120 s). */
  maxRateWaitS?: number;
  /** How many 429s in a row a request survives (default 10). */
  maxRateRetries?: number;
  /** How long one request waits out a server that is down or answers 502/503/504 (default 120 s; 0 = no wait). */
  outageWaitMs?: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export type HeaderMap = Record<string, string | undefined>;

export interface CallSpec {
  method: 'GET' | 'POST';
  /** Path under the base URL, e.g. `/api/v1/analyze`. */
  path: string;
  /** The route template, e.g. `GET /api/v1/jobs/{job_id}`: the pacing key and the name in warnings. */
  route: string;
  query?: Record<string, string | number | undefined>;
  json?: unknown;
  raw?: { body: Buffer; contentType: string };
  headers?: Record<string, string>;
  /** Safe to send again after a network error or a 5xx. */
  retryable: boolean;
  /** Longest wait for the answer to start. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Retries after network errors / 5xx for this call (default: the client's). */
  retries?: number;
  /** Statuses returned to the caller instead of thrown (e.g. 416 for downloads). */
  accept?: number[];
}

export interface HttpAnswer {
  status: number;
  headers: HeaderMap;
  requestId: string | null;
  /** 1 for an answer to the first try; more when network errors or 5xx were retried. */
  attempt: number;
}

export interface JsonAnswer<T> extends HttpAnswer {
  body: T;
}

export interface StreamAnswer extends HttpAnswer {
  body: Dispatcher.ResponseData['body'];
}

const SUPPORTED_API_MAJOR = '1';

const USER_AGENT = `immoreel-cli/${packageVersion()} node/${process.versions.node}`;

/** undici's header object → lower-case names, one string per header. */
function headerMap(raw: Record<string, string | string[] | undefined>): HeaderMap {
  const map: HeaderMap = {};
  for (const [name, value] of Object.entries(raw)) map[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return map;
}

/** `Link: <url>; rel="deprecation"` → url for the wanted relations. */
function linkFor(header: string | undefined, relations: string[]): string | null {
  if (header === undefined) return null;
  for (const part of header.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (match === null) continue;
    const rel = /;\s*rel="?([^";]+)"?/i.exec(match[2]!)?.[1]?.toLowerCase().split(/\s+/) ?? [];
    if (relations.some((r) => rel.includes(r))) return match[1]!;
  }
  return null;
}

/** RFC 9745 `Deprecation: @<unix seconds>` or RFC 8594 `Sunset: <HTTP-date>` → YYYY-MM-DD. */
function dayOf(value: string | undefined): string | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  const epoch = /^@(-?\d+)$/.exec(trimmed);
  const ms = epoch !== null ? Number(epoch[1]) * 1000 : Date.parse(trimmed);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString().slice(0, 10);
}

/** A non-2xx answer inside the retry loop: the policy reads it, the caller gets `mapped`. */
class Refusal extends Error {
  readonly transient: boolean;
  constructor(
    readonly status: number,
    readonly mapped: RemoteError,
    readonly retryAfterS: number | undefined,
  ) {
    super(mapped.message);
    this.transient = status === 500 || status === 503 || status === 504 || (status === 502 && mapped.reason === 'unexpected_answer');
  }
}

/** Network failures that mean the server is not there for now (down, restarting, between deploys). */
const DOWN_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'ECONNABORTED',
  'UND_ERR_CONNECT_TIMEOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** What the server says is unavailable, by the reason of its 503 (docs/operations.md "Outages"). */
const OUTAGE_WORDS: Record<string, string> = {
  database_unavailable: 'its database is unavailable',
  storage_unavailable: 'its file storage is unavailable',
  shutting_down: 'it is restarting',
  not_ready: 'it is not ready',
};

/**
 * An outage worth waiting out, in a few words for the wait line; null for any other failure. Only
 * a refused connection is waited for on a request that is not safe to repeat: it never reached
 * the server, whereas a 503 or a reset might follow work the server did.
 */
function outageOf(error: unknown, repeatable: boolean): string | null {
  if (error instanceof Refusal) {
    if (!repeatable || ![502, 503, 504].includes(error.status)) return null;
    if (error.status === 502 && error.mapped.reason !== 'unexpected_answer') return null;
    return OUTAGE_WORDS[error.mapped.reason ?? ''] ?? `HTTP ${error.status}`;
  }
  const failure = networkFailure(error);
  if (failure === null || !DOWN_CODES.has(failure.code)) return null;
  if (!repeatable && failure.code !== 'ECONNREFUSED') return null;
  return failure.text;
}

/** Seconds for a wait line: a delay to the nearest second (tenths under one), time waited rounded down. */
function wholeSeconds(ms: number, round: 'nearest' | 'down' = 'nearest'): string {
  if (round === 'down') return String(Math.floor(ms / 1000));
  return ms < 950 ? Math.max(0.1, ms / 1000).toFixed(1) : String(Math.round(ms / 1000));
}

/** The end of a give-up message: how long was waited, and the setting that bounds it. */
function outageEnd(waitedMs: number, budgetMs: number): string {
  return ` Gave up after waiting ${wholeSeconds(waitedMs, 'down')} s (IMMOREEL_REMOTE_WAIT_SECONDS=${Math.round(budgetMs / 1000)}).`;
}

/** The one-line warning for a deprecated route, or null when the answer carries no such header. */
export function deprecationWarning(route: string, headers: HeaderMap, now: number = Date.now()): string | null {
  const deprecation = headers.deprecation;
  const sunset = headers.sunset;
  if (deprecation === undefined && sunset === undefined) return null;
  const sunsetDay = dayOf(sunset);
  const deprecatedDay = dayOf(deprecation);
  const parts = [`the server marks ${route} as deprecated`];
  if (deprecatedDay !== null && Date.parse(deprecatedDay) > now) parts[0] = `the server will deprecate ${route} on ${deprecatedDay}`;
  if (sunsetDay !== null) parts.push(`it stops working after ${sunsetDay}`);
  const link = linkFor(headers.link, ['deprecation', 'sunset', 'successor-version']);
  if (link !== null) parts.push(`see ${link}`);
  return `${parts.join('; ')} — update immoreel or ask the server operator.`;
}

export class HttpClient {
  readonly baseUrl: string;
  private readonly apiKey: string | null;
  private readonly agent: Agent;
  private readonly pacer: RatePacer;
  private readonly warn: (message: string) => void;
  private readonly warned = new Set<string>();
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly options: Required<
    Pick<
      HttpClientOptions,
      'requestTimeoutMs' | 'bodyTimeoutMs' | 'retries' | 'backoffMs' | 'maxRateWaitS' | 'maxRateRetries' | 'outageWaitMs'
    >
  >;

  constructor(options: HttpClientOptions) {
    this.baseUrl = options.baseUrl.replace(/(?<!\/)\/+$/, '');
    this.apiKey = options.apiKey;
    this.pacer = options.pacer ?? new RatePacer();
    this.warn = options.warn ?? (() => undefined);
    this.sleep = options.sleep ?? sleep;
    this.options = {
      requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
      bodyTimeoutMs: options.bodyTimeoutMs ?? 60_000,
      retries: options.retries ?? 3,
      backoffMs: options.backoffMs ?? 500,
      maxRateWaitS: options.maxRateWaitS ?? 120,
      maxRateRetries: options.maxRateRetries ?? 10,
      outageWaitMs: options.outageWaitMs ?? 120_000,
    };
    this.agent = new Agent({
      connect: { timeout: options.connectTimeoutMs ?? 10_000 },
      keepAliveTimeout: 4_000,
      bodyTimeout: this.options.bodyTimeoutMs,
      headersTimeout: this.options.requestTimeoutMs,
    });
  }

  /** The rate pacer shared by every call of this client. */
  get rates(): RatePacer {
    return this.pacer;
  }

  private url(spec: CallSpec): string {
    const url = new URL(this.baseUrl + spec.path);
    for (const [name, value] of Object.entries(spec.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    return url.toString();
  }

  private backoff(failures: number): number {
    return backoffMs(failures - 1, this.options.backoffMs, 8_000);
  }

  private inspect(spec: CallSpec, headers: HeaderMap): void {
    const warning = deprecationWarning(spec.route, headers);
    if (warning !== null && !this.warned.has(spec.route)) {
      this.warned.add(spec.route);
      this.warn(warning);
    }
    const version = headers['x-api-version'];
    if (version !== undefined && version.split('.')[0] !== SUPPORTED_API_MAJOR && !this.warned.has('api-version')) {
      this.warned.add('api-version');
      this.warn(
        `the server at ${this.baseUrl} speaks API ${version}; this immoreel speaks API ${SUPPORTED_API_MAJOR}.x — update one of them.`,
      );
    }
  }

  /**
   * Sends one logical request (with its retries) and returns the answer with its body unread.
   * Errors (non-2xx not in `accept`) are thrown as AppErrors with the server's message.
   */
  async send(spec: CallSpec): Promise<StreamAnswer> {
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: 'application/json', ...(spec.headers ?? {}) };
    if (this.apiKey !== null) headers.authorization = `Bearer ${this.apiKey}`;
    let body: string | Buffer | undefined;
    if (spec.json !== undefined) {
      body = JSON.stringify(spec.json);
      headers['content-type'] = 'application/json';
    } else if (spec.raw !== undefined) {
      body = spec.raw.body;
      headers['content-type'] = spec.raw.contentType;
    }
    const retries = spec.retries ?? this.options.retries;
    const timeoutMs = spec.timeoutMs ?? this.options.requestTimeoutMs;
    let failures = 0;
    let refusals = 0;
    /** Retries spent on failures that are not outages (bounded by `retries`). */
    let otherFailures = 0;
    /** When this request first met the outage it is waiting out; whether it gave up on it. */
    let outageSince: number | null = null;
    let outageGaveUp = false;
    const attempt = async (): Promise<StreamAnswer> => {
      const ticket = await this.pacer.acquire(spec.route, spec.signal);
      let response;
      try {
        response = await undiciRequest(this.url(spec), {
          method: spec.method,
          headers,
          body,
          dispatcher: this.agent,
          headersTimeout: timeoutMs,
          bodyTimeout: this.options.bodyTimeoutMs,
          signal: spec.signal,
        });
      } catch (error) {
        this.pacer.settle(ticket, null, null);
        throw error;
      }
      const answerHeaders = headerMap(response.headers);
      this.pacer.settle(ticket, response.statusCode, answerHeaders);
      this.inspect(spec, answerHeaders);
      const status = response.statusCode;
      const requestId = answerHeaders['x-request-id'] ?? null;
      if ((status >= 200 && status < 300) || spec.accept?.includes(status)) {
        return { status, headers: answerHeaders, requestId, attempt: failures + 1, body: response.body };
      }
      if (status >= 300 && status < 400) {
        // Draining frees the connection; a body that breaks while drained changes nothing for the answer.
        await response.body.dump().catch(() => undefined);
        const location = answerHeaders.location ?? '(no Location)';
        throw new AppError(
          'BAD_REQUEST',
          `The server at ${this.baseUrl} redirects ${spec.method} ${spec.path} to ${location}: use that address as --base-url (immoreel does not follow redirects with your API key).`,
          {
            reason: 'redirected',
          },
        );
      }
      const text = await response.body.text().catch(() => '');
      const retryAfterS = parseRetryAfter(answerHeaders['retry-after']) ?? undefined;
      const mapped = errorFromResponse({
        status,
        body: text,
        requestId,
        baseUrl: this.baseUrl,
        what: `${spec.method} ${spec.path}`,
        retryAfterS,
      });
      throw new Refusal(status, mapped, retryAfterS);
    };
    try {
      return await withRetries(attempt, {
        signal: spec.signal,
        sleep: this.sleep,
        delayAfter: (outcome) => {
          if (outcome.ok) return null;
          const error = outcome.error;
          if (error instanceof Refusal && error.status === 429) {
            // The pacer blocks the policy for as long; this also covers a 429 on an unlimited-looking route.
            const waitS = error.retryAfterS ?? 1;
            if (refusals >= this.options.maxRateRetries || waitS > this.options.maxRateWaitS) return null;
            refusals += 1;
            return Math.max(0, waitS * 1000);
          }
          const outage = outageOf(error, spec.retryable);
          if (outage !== null) {
            const now = Date.now();
            outageSince ??= now;
            const waited = now - outageSince;
            const budget = this.options.outageWaitMs;
            const asked = error instanceof Refusal && error.retryAfterS !== undefined ? error.retryAfterS * 1000 : 0;
            // A little jitter over the server's Retry-After too: clients turned away together do not return together.
            const delay = Math.max(asked * (1 + Math.random() * 0.2), this.backoff(failures + 1));
            if (waited + delay > budget) {
              outageGaveUp = budget > 0;
              return null;
            }
            failures += 1;
            this.warn(
              `the immoreel server at ${this.baseUrl} is unavailable (${outage}); retrying in ${wholeSeconds(delay)} s (waited ${wholeSeconds(waited, 'down')} s of ${wholeSeconds(budget)} s)`,
            );
            return delay;
          }
          if (!spec.retryable || otherFailures >= retries) return null;
          if (error instanceof Refusal) {
            if (!error.transient) return null;
            failures += 1;
            otherFailures += 1;
            const serverWait = error.retryAfterS !== undefined && error.retryAfterS <= 60 ? error.retryAfterS * 1000 : 0;
            return Math.max(serverWait, this.backoff(failures));
          }
          if (networkFailure(error)?.transient !== true) return null;
          failures += 1;
          otherFailures += 1;
          return this.backoff(failures);
        },
      });
    } catch (error) {
      const gaveUp = outageGaveUp && outageSince !== null ? outageEnd(Date.now() - outageSince, this.options.outageWaitMs) : '';
      if (error instanceof Refusal) {
        if (error.status !== 429 && gaveUp !== '') {
          const refused = error.mapped;
          throw new RemoteError('SERVICE_UNAVAILABLE', `${refused.message}${gaveUp}`, {
            reason: refused.reason,
            details: refused.details,
            requestId: refused.requestId,
            status: error.status,
            retryAfterS: error.retryAfterS,
          });
        }
        if (error.status !== 429) throw error.mapped;
        const waitS = error.retryAfterS ?? 1;
        const refused = error.mapped;
        const why =
          waitS > this.options.maxRateWaitS ? `the server asks to wait ${Math.ceil(waitS)} s` : `refused ${refusals + 1} times in a row`;
        throw new RemoteError(refused.code, `${refused.message} Gave up: ${why}.`, {
          reason: refused.reason,
          details: refused.details,
          requestId: refused.requestId,
          status: error.status,
          exitCode: refused.exitCode,
          retryAfterS: error.retryAfterS,
        });
      }
      const failure = networkFailure(error);
      if (failure === null) throw error;
      throw unreachable(this.baseUrl, failure, timeoutMs, gaveUp);
    }
  }

  /** `send`, then the JSON body of the answer. */
  async json<T>(spec: CallSpec): Promise<JsonAnswer<T>> {
    const answer = await this.send(spec);
    const text = await answer.body.text();
    try {
      return { ...answer, body: JSON.parse(text) as T };
    } catch {
      throw new RemoteError(
        'SERVICE_UNAVAILABLE',
        `${spec.method} ${spec.path} at ${this.baseUrl} did not answer JSON (HTTP ${answer.status}, ${answer.headers['content-type'] ?? 'no content type'}): is it an immoreel server? Check --base-url.`,
        {
          reason: 'not_immoreel',
          requestId: answer.requestId,
          status: answer.status,
        },
      );
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

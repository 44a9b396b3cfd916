import { AppError, isAppError } from '../core/errors.js';
import { sleep as realSleep } from '../core/time.js';
import { backoffMs } from '../net/retry.js';
import { outageOf } from './outage.js';

/**
 * The start-up wait of `serve` and `worker` (docs/operations.md "Start-up"): machines and services
 * rarely come up in order, so a database or storage that is not reachable *yet* is waited for, with
 * backoff and jitter, for at most the budget (`--startup-wait` / `IMMOREEL_STARTUP_WAIT_SECONDS`);
 * each wait is announced with its reason. A fault that waiting cannot cure (bad credentials, a
 * missing database or bucket, a malformed URL) stops the start at once, as before.
 */

export interface StartupWaitOptions {
  /** The budget in milliseconds; 0 = try once and fail at once. */
  budgetMs: number;
  /** One line per wait, for the operator's log. */
  note: (message: string) => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** First delay between tries, doubled each time up to the cap, ±25 % jitter (src/net/retry.ts). */
const FIRST_DELAY_MS = 1_000;
const MAX_DELAY_MS = 10_000;

/** Words for a socket or server code, as an operator reads them. */
const WHY: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed',
  ETIMEDOUT: 'timed out',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNABORTED: 'connection aborted',
  '57P03': 'the server is starting up',
  '57P01': 'the server is shutting down',
  '53300': 'too many connections',
};

function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  for (let current: unknown = error, depth = 0; typeof current === 'object' && current !== null && depth < 5; depth += 1) {
    const e = current as { code?: unknown; errors?: unknown; cause?: unknown; name?: unknown };
    if (typeof e.code === 'string') codes.push(e.code);
    if (typeof e.name === 'string') codes.push(e.name);
    if (Array.isArray(e.errors)) for (const inner of e.errors) codes.push(...codesOf(inner));
    current = e.cause;
  }
  return codes;
}

/** Which service is not there yet, and why in a few words; null when waiting would not help. */
export function notReachableYet(error: unknown): { service: 'database' | 'storage'; why: string } | null {
  let service: 'database' | 'storage' | null = null;
  if (isAppError(error)) {
    if (error.reason === 'database_unreachable' || error.reason === 'database_unavailable') service = 'database';
    else if (error.reason === 'storage_unreachable' || error.reason === 'storage_unavailable') service = 'storage';
    // Any other reason (credentials, missing database or bucket, bad URL) is the operator's to fix.
    else if (error.code !== 'INTERNAL_SERVER_ERROR') return null;
  }
  service ??= outageOf(error);
  if (service === null) return null;
  const code = codesOf(error).find((c) => WHY[c] !== undefined);
  const why =
    code !== undefined
      ? WHY[code]!
      : service === 'storage' && isAppError(error) && error.reason === 'storage_unavailable'
        ? 'it answers with errors'
        : 'no answer';
  return { service, why };
}

/** Time waited, in whole seconds rounded down. */
const seconds = (ms: number): string => `${Math.floor(ms / 1000)} s`;
/** A delay to come: to the nearest second, tenths under one. */
const delayText = (ms: number): string => (ms < 950 ? `${Math.max(0.1, ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`);

/**
 * Runs `open` until it succeeds, waiting between tries while `notReachableYet` says the failure
 * may pass, for at most `budgetMs` in all. The last failure is rethrown, saying how long was waited.
 */
export async function waitForBackends<T>(open: () => Promise<T>, options: StartupWaitOptions): Promise<T> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? realSleep;
  const started = now();
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await open();
    } catch (error) {
      const pending = notReachableYet(error);
      if (pending === null) throw error;
      const waited = now() - started;
      const delay = Math.min(backoffMs(attempt, FIRST_DELAY_MS, MAX_DELAY_MS), Math.max(0, options.budgetMs - waited));
      if (options.budgetMs === 0) throw asServiceUnavailable(error, pending.service);
      if (waited >= options.budgetMs || delay < 100) throw gaveUp(error, pending.service, waited, options.budgetMs);
      options.note(
        `${pending.service} not reachable yet (${pending.why}); retrying in ${delayText(delay)} (waited ${seconds(waited)} of ${seconds(options.budgetMs)})`,
      );
      await sleep(delay);
    }
  }
}

/** The failure as the exit-6 error of docs/scaling.md "Configuration" (a raw driver error included). */
function asServiceUnavailable(error: unknown, service: 'database' | 'storage'): AppError {
  if (isAppError(error) && error.code !== 'INTERNAL_SERVER_ERROR') return error;
  const text = error instanceof Error ? error.message : String(error);
  return new AppError(
    'SERVICE_UNAVAILABLE',
    `The ${service === 'database' ? 'database' : 'storage'} does not accept connections yet (${text}).`,
    {
      reason: `${service}_unreachable`,
      cause: error,
    },
  );
}

function gaveUp(error: unknown, service: 'database' | 'storage', waitedMs: number, budgetMs: number): AppError {
  const base = asServiceUnavailable(error, service);
  return new AppError(
    base.code,
    `${base.message.replace(/\.?$/, '.')} Gave up after waiting ${seconds(Math.max(waitedMs, budgetMs))} for it (--startup-wait / IMMOREEL_STARTUP_WAIT_SECONDS, now ${seconds(budgetMs)}).`,
    { reason: base.reason, details: base.details, cause: error },
  );
}

import type { BlobStore } from '../blobs/types.js';
import { AppError } from '../core/errors.js';
import { OUTAGE_RETRY_AFTER_S } from '../records/outage.js';
import type { RecordStore } from '../records/types.js';
import { API_VERSION } from './api-limits.js';
import { withExtras } from './errors.js';

/**
 * Readiness (docs/operations.md "Health and readiness"): whether this process can do its work
 * now — its database, its storage and its render queue all answer. Liveness (`/health`) only says
 * the process answers; a load balancer stops sending requests to a node that is not ready, a
 * supervisor restarts one that is not live.
 */
export type Dependency = 'database' | 'storage' | 'queue';
export type CheckState = 'ok' | 'failing';

export interface Readiness {
  ready: boolean;
  checks: Record<Dependency, CheckState>;
}

/** Past this a check counts as failing: a hung dependency must not hang the probe. */
export const READY_CHECK_TIMEOUT_MS = 2_000;

async function within(work: Promise<unknown>, timeoutMs: number): Promise<CheckState> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<CheckState>((resolve) => {
    timer = setTimeout(() => resolve('failing'), timeoutMs);
  });
  try {
    return await Promise.race([work.then(() => 'ok' as const), timeout]);
  } catch {
    // Why it failed is the operator's log's business (the request that hit it logs it); the probe says which.
    return 'failing';
  } finally {
    clearTimeout(timer);
  }
}

export async function checkReadiness(
  deps: { records: Pick<RecordStore, 'ping' | 'pingQueue'>; blobs: Pick<BlobStore, 'check'> },
  timeoutMs = READY_CHECK_TIMEOUT_MS,
): Promise<Readiness> {
  const [database, storage, queue] = await Promise.all([
    within(deps.records.ping(), timeoutMs),
    within(deps.blobs.check(), timeoutMs),
    within(deps.records.pingQueue(), timeoutMs),
  ]);
  const checks = { database, storage, queue };
  return { ready: Object.values(checks).every((state) => state === 'ok'), checks };
}

/**
 * The 503 of a process that is not ready, the same wherever it is asked (the API's `/ready`, a
 * worker's metrics port): the dependencies that do not answer, by name only — never an endpoint.
 */
export function notReadyError(readiness: Readiness): AppError {
  const failing = Object.entries(readiness.checks)
    .filter(([, state]) => state !== 'ok')
    .map(([name]) => name);
  return withExtras(
    new AppError('SERVICE_UNAVAILABLE', `Not ready: the ${failing.join(', the ')} ${failing.length === 1 ? 'does' : 'do'} not answer.`, {
      reason: 'not_ready',
      retryAfterS: OUTAGE_RETRY_AFTER_S,
      details: failing.map((field) => ({ field, message: 'does not answer' })),
    }),
    { checks: readiness.checks },
  );
}

/** The body of `GET /api/v1/health` (liveness), on the API port and on a worker's metrics port. */
export function healthBody(uptimeMs: number): { ok: true; status: 'success'; service: 'immoreel'; api_version: string; uptime_s: number } {
  return { ok: true, status: 'success', service: 'immoreel', api_version: API_VERSION, uptime_s: Math.floor(uptimeMs / 1000) };
}

/** The body of a `GET /api/v1/ready` that passed. */
export function readyBody(readiness: Readiness): { ok: true; status: 'success'; checks: Readiness['checks'] } {
  return { ok: true, status: 'success', checks: readiness.checks };
}

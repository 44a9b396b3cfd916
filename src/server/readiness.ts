import type { BlobStore } from '../blobs/types.js';
import type { RecordStore } from '../records/types.js';

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

/**
 * What the layers tell the operator's metrics (docs/operations.md "Metrics"), as one small
 * interface: the job, network and server code call it, and the entry points (`serve`, `worker`)
 * hand down the one that feeds their Prometheus registry. Everything else — the CLI's own renders,
 * tests, `studio` — gets `NO_METRICS`, so no layer below knows prom-client exists.
 */

/** The shared services whose outages are counted (the same two as records/outage.ts). */
export type OutageService = 'database' | 'storage';

/** Why a request was refused before it did any work (docs/operations.md "Metrics"). */
export type RefusalReason = 'rate_limit' | 'quota' | 'decode_queue_full';

export interface Metrics {
  /** A render began on this process (it holds one of its render slots until `renderEnded`). */
  renderStarted(): void;
  /** It ended: `seconds` from its start to a verified video, or null when it produced none (failed, canceled). */
  renderEnded(seconds: number | null): void;
  /** One outgoing fetch of a listing page, photo or logo ended (whatever its outcome). */
  fetched(seconds: number): void;
  /** A verified video was copied to the blob store. */
  uploaded(seconds: number): void;
  /** An operation is tried again because the database or the storage is down. */
  retried(operation: string): void;
  /** An outage began, as one operation saw it. */
  outageBegan(service: OutageService): void;
  refused(reason: RefusalReason): void;
}

const nothing = (): void => undefined;

export const NO_METRICS: Metrics = {
  renderStarted: nothing,
  renderEnded: nothing,
  fetched: nothing,
  uploaded: nothing,
  retried: nothing,
  outageBegan: nothing,
  refused: nothing,
};

/** Seconds since `startedNs` (a `process.hrtime.bigint()` reading). */
export function secondsSince(startedNs: bigint): number {
  return Number(process.hrtime.bigint() - startedNs) / 1e9;
}

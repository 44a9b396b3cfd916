import type { Metrics } from '../core/metrics.js';
import type { Outage } from '../records/outage.js';

/**
 * One API node's view of its dependencies' outages (docs/operations.md "Logs"): the first request
 * (or readiness probe) that meets a database or storage outage begins it — one `outage_begins`
 * line, `immoreel_outages_total` counted once — and every 503 after it is only counted. While an
 * outage lasts, the dependency is probed about once a second; the first answer ends it with one
 * `outage_ends` line saying how long it lasted and how many requests were answered 503 meanwhile.
 */

export interface OutageLog {
  warn(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
}

export interface OutageWatchOptions {
  /** Resolves when the dependency answers again (the readiness checks: `records.ping`, `blobs.check`). */
  probes: Record<Outage, () => Promise<unknown>>;
  log: OutageLog;
  metrics: Pick<Metrics, 'outageBegan'>;
  /** How often a dependency that is down is probed (default 1 s). */
  probeMs?: number;
  now?: () => number;
}

interface Down {
  since: number;
  /** Requests answered 503 because of it, the first included. */
  requests: number;
  timer: NodeJS.Timeout | null;
}

const WORDS: Record<Outage, string> = { database: 'database', storage: 'storage' };

export class OutageWatch {
  private readonly down = new Map<Outage, Down>();
  private stopped = false;

  constructor(private readonly options: OutageWatchOptions) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** A request (`requestId`) or a probe met an outage of `service`; `cause` names the endpoint, for the operator only. */
  report(service: Outage, cause: unknown, requestId?: string): void {
    const current = this.down.get(service);
    if (current !== undefined) {
      current.requests += 1;
      return;
    }
    const state: Down = { since: this.now(), requests: 1, timer: null };
    this.down.set(service, state);
    this.options.metrics.outageBegan(service);
    this.options.log.warn(
      {
        event: 'outage_begins',
        service,
        ...(requestId === undefined ? {} : { request_id: requestId }),
        // The message only: one line per outage, no stack (the cause is the same for every request).
        error: cause instanceof Error ? cause.message : String(cause),
      },
      `${WORDS[service]} outage begins: requests that need it are answered 503`,
    );
    this.schedule(service, state);
  }

  /** Whether `service` is down as far as this node knows. */
  isDown(service: Outage): boolean {
    return this.down.has(service);
  }

  private schedule(service: Outage, state: Down): void {
    if (this.stopped) return;
    state.timer = setTimeout(() => void this.probe(service, state), this.options.probeMs ?? 1_000);
    state.timer.unref();
  }

  private async probe(service: Outage, state: Down): Promise<void> {
    try {
      await this.options.probes[service]();
    } catch {
      // Still down: the next probe tries again (the begin line said why).
      this.schedule(service, state);
      return;
    }
    if (this.down.get(service) !== state) return;
    this.down.delete(service);
    const downMs = this.now() - state.since;
    this.options.log.info(
      { event: 'outage_ends', service, down_ms: downMs, requests: state.requests },
      `${WORDS[service]} outage over after ${(downMs / 1000).toFixed(1)} s: ${state.requests} request(s) answered 503 meanwhile`,
    );
  }

  /** Stops probing (the node is closing). */
  stop(): void {
    this.stopped = true;
    for (const state of this.down.values()) if (state.timer !== null) clearTimeout(state.timer);
  }
}

import { AppError } from '../core/errors.js';
import type { Metrics } from '../core/metrics.js';
import { clientSafe, outageOf, type Outage } from '../records/outage.js';

/**
 * Riding out a passing outage of the database or the object storage (docs/operations.md
 * "Outages"): an operation that fails because one of them is down is tried again with
 * exponential backoff and jitter, for at most `budgetMs`; any other failure is thrown at once.
 * Past the budget the operation fails with a retryable SERVICE_UNAVAILABLE error that says which
 * service stayed down (the job that owns it is then refunded).
 */
export interface RideOutOptions {
  /** The longest an outage is waited out, per operation (default 90 s). */
  budgetMs?: number;
  /** First delay between tries, doubled each time up to `maxDelayMs` (defaults 250 ms, 5 s). */
  firstDelayMs?: number;
  maxDelayMs?: number;
  /**
   * Told once when an outage begins for this operation, and once when it is over: `ends` when the
   * operation went through, `gives_up` when the outage outlasted the budget.
   */
  onOutage?: (event: { outage: Outage; phase: 'begins' | 'ends' | 'gives_up'; what: string; tries: number; waitedMs: number }) => void;
  /** Told before each pause: try `tries` failed on `outage`, the next comes after `delayMs`. */
  onRetry?: (event: { outage: Outage; what: string; tries: number; delayMs: number; waitedMs: number; budgetMs: number }) => void;
  signal?: AbortSignal;
  /** Counts each retry under `operation` and each outage begun (docs/operations.md "Metrics"). */
  metrics?: Pick<Metrics, 'retried' | 'outageBegan'>;
  /** What is retried, as a metric label: `upload`, `finish` (short, fixed words, never an id). */
  operation?: string;
}

export const DEFAULT_OUTAGE_BUDGET_MS = 90_000;

/** Waits `ms`, or less when `signal` aborts (resolving either way: the caller looks at the signal). */
function pauseUnlessAborted(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

export async function rideOut<T>(what: string, operation: () => Promise<T>, options: RideOutOptions = {}): Promise<T> {
  const budgetMs = options.budgetMs ?? DEFAULT_OUTAGE_BUDGET_MS;
  const maxDelayMs = options.maxDelayMs ?? 5_000;
  let delayMs = options.firstDelayMs ?? 250;
  const started = Date.now();
  let tries = 0;
  let current: Outage | null = null;
  for (;;) {
    tries += 1;
    try {
      const value = await operation();
      if (current !== null) options.onOutage?.({ outage: current, phase: 'ends', what, tries, waitedMs: Date.now() - started });
      return value;
    } catch (error) {
      const outage = outageOf(error);
      if (outage === null || options.signal?.aborted === true) throw error;
      if (current === null) options.metrics?.outageBegan(outage);
      if (current === null) options.onOutage?.({ outage, phase: 'begins', what, tries, waitedMs: 0 });
      current = outage;
      const waited = Date.now() - started;
      if (waited >= budgetMs) {
        options.onOutage?.({ outage, phase: 'gives_up', what, tries, waitedMs: waited });
        const service = outage === 'database' ? 'database' : 'file storage';
        throw clientSafe(
          new AppError(
            'SERVICE_UNAVAILABLE',
            `The service's ${service} stayed unavailable for ${Math.round(waited / 1000)} s while ${what}; nothing was charged — render again.`,
            { reason: `${outage}_unavailable`, cause: error },
          ),
        );
      }
      // Full jitter around the current step, so workers that lost the service together do not return in step.
      const pause = Math.min(delayMs, budgetMs - waited) * (0.5 + Math.random() / 2);
      options.onRetry?.({ outage, what, tries, delayMs: Math.round(pause), waitedMs: waited, budgetMs });
      // An abort ends the pause early; the next try sees the signal and gives up with the outage error.
      await pauseUnlessAborted(pause, options.signal);
      options.metrics?.retried(options.operation ?? 'other');
      delayMs = Math.min(maxDelayMs, delayMs * 2);
    }
  }
}

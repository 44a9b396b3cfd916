import { AppError } from '../core/errors.js';

/*
 * Bounded image decodes (docs/security.md, "Bounded image decodes"). A decode holds the whole
 * image, or large strips of it, in memory and keeps a core busy: in one process at most
 * DECODE_CONCURRENCY run at once, and no more than DECODE_MEMORY_BUDGET_BYTES of what they will
 * hold (./decode-budget.ts), uploads (POST /api/v1/assets) and render photos alike. An
 * upload that finds DECODE_QUEUE_LENGTH others already waiting is refused at once with 429 and
 * Retry-After (the caller retries); a render's photo always waits its turn (renders are already
 * bounded by their slots, and failing a job for a busy moment would lose work).
 */

/** Decodes running at once in one process: one per core of the 2-core machine we size for (docs/scaling.md). */
export const DECODE_CONCURRENCY = 2;
/** Uploads that may wait for a decode before the next is refused. */
export const DECODE_QUEUE_LENGTH = 4;
/** What a refused upload is told to wait: about one decode of an image at the pixel cap. */
export const DECODE_RETRY_AFTER_S = 2;

/**
 * Bytes all running decodes may hold together (./decode-budget.ts estimates each): two 49 MP
 * progressive JPEGs at 4:2:0 (~155 MB each) fit, a third waits. A decode that needs more than
 * the whole budget runs alone.
 */
export const DECODE_MEMORY_BUDGET_BYTES = 320 * 1024 * 1024;

export interface DecodeSlots {
  /**
   * Runs `work` when a slot is free and `costBytes` (what the decode will hold, from
   * ./decode-budget.ts; default 0) fit in the memory budget. `refuseWhenFull`: throw a 429
   * `decode_queue_full` at once instead of waiting when the queue is full (uploads).
   */
  run<T>(work: () => Promise<T>, options?: { refuseWhenFull?: boolean; costBytes?: number }): Promise<T>;
  /** Decodes running now, and callers waiting. */
  readonly active: number;
  readonly waiting: number;
  /** Bytes the running decodes hold, by their estimates. */
  readonly heldBytes: number;
}

/** Called each time an upload is refused for a full queue (the refusals counter, docs/operations.md). */
type RefusalListener = (reason: 'decode_queue_full') => void;
const refusalListeners = new Set<RefusalListener>();

/** Registers `listener` for refused decodes; returns the function that removes it. */
export function onDecodeRefused(listener: RefusalListener): () => void {
  refusalListeners.add(listener);
  return () => refusalListeners.delete(listener);
}

export function createDecodeSlots(
  concurrency = DECODE_CONCURRENCY,
  queueLength = DECODE_QUEUE_LENGTH,
  memoryBudget = DECODE_MEMORY_BUDGET_BYTES,
): DecodeSlots {
  let active = 0;
  let held = 0;
  // First come, first served: a large decode is not overtaken for ever by small ones.
  const queue: { cost: number; start: () => void }[] = [];
  const fits = (cost: number): boolean => active < concurrency && (active === 0 || held + cost <= memoryBudget);
  const dispatch = (): void => {
    while (queue.length > 0 && fits(queue[0]!.cost)) {
      const next = queue.shift()!;
      active += 1;
      held += next.cost;
      next.start();
    }
  };
  return {
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
    get heldBytes() {
      return held;
    },
    async run<T>(work: () => Promise<T>, options: { refuseWhenFull?: boolean; costBytes?: number } = {}): Promise<T> {
      const cost = Math.max(0, options.costBytes ?? 0);
      if (queue.length > 0 || !fits(cost)) {
        if (options.refuseWhenFull === true && queue.length >= queueLength) {
          for (const listener of refusalListeners) listener('decode_queue_full');
          throw new AppError(
            'RATE_LIMIT_EXCEEDED',
            `The server is decoding as many images as it can (${concurrency} at a time, ${queueLength} waiting): retry in ${DECODE_RETRY_AFTER_S} s.`,
            { reason: 'decode_queue_full', retryAfterS: DECODE_RETRY_AFTER_S },
          );
        }
        // Counted as active and held by dispatch() when it starts this one.
        await new Promise<void>((start) => queue.push({ cost, start }));
      } else {
        active += 1;
        held += cost;
      }
      try {
        return await work();
      } finally {
        active -= 1;
        held -= cost;
        dispatch();
      }
    },
  };
}

/** The process's decode slots, shared by uploads and renders. */
export const decodeSlots: DecodeSlots = createDecodeSlots();

import { AppError } from '../core/errors.js';

/*
 * Bounded image decodes (docs/security.md, "Bounded image decodes"). A decode holds the whole
 * image, or large strips of it, in memory and keeps a core busy: in one process at most
 * DECODE_CONCURRENCY run at once, uploads (POST /api/v1/assets) and render photos alike. An
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

export interface DecodeSlots {
  /**
   * Runs `work` when a slot is free. `refuseWhenFull`: throw a 429 `decode_queue_full` at once
   * instead of waiting when the queue is full (uploads).
   */
  run<T>(work: () => Promise<T>, options?: { refuseWhenFull?: boolean }): Promise<T>;
  /** Decodes running now, and callers waiting. */
  readonly active: number;
  readonly waiting: number;
}

/** Called each time an upload is refused for a full queue (the refusals counter, docs/operations.md). */
type RefusalListener = (reason: 'decode_queue_full') => void;
const refusalListeners = new Set<RefusalListener>();

/** Registers `listener` for refused decodes; returns the function that removes it. */
export function onDecodeRefused(listener: RefusalListener): () => void {
  refusalListeners.add(listener);
  return () => refusalListeners.delete(listener);
}

export function createDecodeSlots(concurrency = DECODE_CONCURRENCY, queueLength = DECODE_QUEUE_LENGTH): DecodeSlots {
  let active = 0;
  const queue: (() => void)[] = [];
  const release = (): void => {
    const next = queue.shift();
    if (next === undefined) active -= 1;
    else next();
  };
  return {
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
    async run<T>(work: () => Promise<T>, options: { refuseWhenFull?: boolean } = {}): Promise<T> {
      if (active >= concurrency) {
        if (options.refuseWhenFull === true && queue.length >= queueLength) {
          for (const listener of refusalListeners) listener('decode_queue_full');
          throw new AppError(
            'RATE_LIMIT_EXCEEDED',
            `The server is decoding as many images as it can (${concurrency} at a time, ${queueLength} waiting): retry in ${DECODE_RETRY_AFTER_S} s.`,
            { reason: 'decode_queue_full', retryAfterS: DECODE_RETRY_AFTER_S },
          );
        }
        // The slot is handed over by release(): `active` stays counted for the next one.
        await new Promise<void>((resolve) => queue.push(resolve));
      } else active += 1;
      try {
        return await work();
      } finally {
        release();
      }
    },
  };
}

/** The process's decode slots, shared by uploads and renders. */
export const decodeSlots: DecodeSlots = createDecodeSlots();

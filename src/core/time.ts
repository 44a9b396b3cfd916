import { setTimeout as delay } from 'node:timers/promises';

/**
 * Waits `ms` (Node's timers/promises); an abort rejects at once with the signal's own reason,
 * which is what callers report ("canceled by the user"), rather than Node's generic AbortError.
 */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await delay(ms, undefined, { signal });
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw error;
  }
}

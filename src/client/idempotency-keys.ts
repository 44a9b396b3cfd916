import { randomUUID } from 'node:crypto';

/**
 * `Idempotency-Key`s of remote mode (docs/api.md, docs/remote.md).
 *
 * - A single `render` gets a random key: retrying its POST after a network error can never make a
 *   second job.
 * - A batch row gets a key derived from its batch (src/jobs/batch-keys.ts, the batch's owner).
 * - A key whose job ended failed or canceled is followed by `<key>.2`, `<key>.3`…, so a re-run
 *   renders such rows again while still never duplicating one that succeeded or is in progress.
 */

export function randomIdempotencyKey(): string {
  return `imr-${randomUUID()}`;
}

/** The key to use after `key` named a job that failed or was canceled. */
export function nextAttemptKey(key: string, attempt: number): string {
  return `${key}.${attempt}`;
}

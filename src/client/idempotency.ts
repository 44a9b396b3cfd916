import { createHash, randomUUID } from 'node:crypto';
import { resolve } from 'node:path';

/**
 * `Idempotency-Key`s of remote mode (docs/api.md, docs/remote.md).
 *
 * - A single `render` gets a random key: retrying its POST after a network error can never make a
 *   second job.
 * - A batch row gets a key derived from the batch (the CSV file and the output folder), the row id
 *   and the row's inputs. Running the same batch again within the server's 24 h finds the jobs of
 *   the first run instead of starting new ones; a row whose inputs changed gets a new job.
 * - A key whose job ended failed or canceled is followed by `<key>.2`, `<key>.3`…, so a re-run
 *   renders such rows again while still never duplicating one that succeeded or is in progress.
 */

export function randomIdempotencyKey(): string {
  return `imr-${randomUUID()}`;
}

/** Names one batch: the same CSV rendered into the same folder is the same batch. */
export function batchIdOf(csvFile: string, outDir: string): string {
  const source = csvFile === '-' ? `stdin:${process.cwd()}` : resolve(csvFile);
  return createHash('sha256').update(`${source}\n${resolve(outDir)}`).digest('hex').slice(0, 24);
}

export function batchRowIdempotencyKey(batchId: string, rowId: string, inputHash: string): string {
  const digest = createHash('sha256').update(`${batchId}\n${rowId}\n${inputHash}`).digest('hex').slice(0, 40);
  return `imr-batch-${digest}`;
}

/** The key to use after `key` named a job that failed or was canceled. */
export function nextAttemptKey(key: string, attempt: number): string {
  return `${key}.${attempt}`;
}

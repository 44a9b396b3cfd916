import { createHash } from 'node:crypto';
import { resolve } from 'node:path';

/**
 * The `Idempotency-Key` of a batch row (docs/api.md, docs/remote.md): derived from the batch (the
 * CSV file and the output folder), the row id and the row's inputs. Running the same batch again
 * within the server's 24 h finds the jobs of the first run instead of starting new ones; a row
 * whose inputs changed gets a new job. The client adds `.2`, `.3`… after a failed or canceled job.
 */

/** Names one batch: the same CSV rendered into the same folder is the same batch. */
export function batchIdOf(csvFile: string, outDir: string): string {
  const source = csvFile === '-' ? `stdin:${process.cwd()}` : resolve(csvFile);
  return createHash('sha256')
    .update(`${source}\n${resolve(outDir)}`)
    .digest('hex')
    .slice(0, 24);
}

export function batchRowIdempotencyKey(batchId: string, rowId: string, inputHash: string): string {
  const digest = createHash('sha256').update(`${batchId}\n${rowId}\n${inputHash}`).digest('hex').slice(0, 40);
  return `imr-batch-${digest}`;
}

import type { BlobStore } from '../storage/index.js';
import type { RecordStore } from './types.js';

/**
 * Where jobs are kept, as `--database-url` / `--storage-url` name it (docs/scaling.md
 * "Configuration"). Null for the embedded default (both unset): the job layer then opens the
 * data directory's SQLite file and files itself, exactly as before.
 *
 * A stand-in for `openBackends` (src/store/backends.ts), which adds the configuration checks and
 * is swapped in here when it lands; the shape is the same.
 */
export interface JobBackends {
  records: RecordStore;
  blobs: BlobStore;
  close(): Promise<void>;
}

export async function openJobBackends(options: {
  dataDir: string;
  databaseUrl?: string;
  storageUrl?: string;
}): Promise<JobBackends | null> {
  const databaseUrl = options.databaseUrl?.trim() || undefined;
  const storageUrl = options.storageUrl?.trim() || undefined;
  if (databaseUrl === undefined && storageUrl === undefined) return null;
  // Loaded only here: commands on the embedded default never load pg, pg-boss or the AWS SDK.
  const [{ openBlobStore }, { openRecordStore }] = await Promise.all([import('../storage/index.js'), import('./index.js')]);
  const blobs = openBlobStore({ url: storageUrl, dataDir: options.dataDir });
  try {
    await blobs.check();
    const records = await openRecordStore({ databaseUrl, dataDir: options.dataDir });
    return {
      records,
      blobs,
      async close() {
        await records.close();
        await blobs.close();
      },
    };
  } catch (error) {
    await blobs.close().catch(() => undefined);
    throw error;
  }
}

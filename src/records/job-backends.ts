import { join } from 'node:path';
import { LocalBlobStore } from '../blobs/local-store.js';
import type { BlobStore } from '../blobs/types.js';
import type { Backends } from './backends.js';
import type { JobRecords } from './job-rows.js';
import { JobStore, sqliteJobRecords } from './sqlite/jobs.js';

/**
 * What the job layer is given to work on (docs/architecture.md "Layers"): its records and the blob
 * store of its videos. The job layer never opens a database; the entry points open these.
 */
export interface JobStores {
  records: { readonly jobs: JobRecords };
  blobs: BlobStore;
  /** The configured database and storage (docs/scaling.md "Configuration"); null on the embedded default. */
  shared: Backends | null;
  /** Where they are, for the messages of commands that change data: no secrets. */
  describe(): string;
  close(): Promise<void>;
}

/** The embedded default: the data directory's SQLite job table and its video files. */
export function openEmbeddedJobStores(dataDir: string): JobStores {
  const store = JobStore.open(dataDir);
  const blobs = new LocalBlobStore(dataDir);
  return {
    records: { jobs: sqliteJobRecords(store) },
    blobs,
    shared: null,
    describe: () => `records: SQLite ${join(dataDir, 'immoreel.db')}; blobs: ${dataDir}`,
    async close() {
      await blobs.close();
      store.close();
    },
  };
}

/**
 * Where jobs are kept, as `--database-url` / `--storage-url` name it (docs/scaling.md
 * "Configuration"): `openBackends` (checked, migrated, clear errors) when either is set; the
 * embedded job table and files when both are unset (a local render needs no server records).
 */
export async function openJobStores(options: {
  dataDir: string;
  databaseUrl?: string;
  storageUrl?: string;
  /** The AWS_* variables of the configuration (an s3:// storage URL). */
  aws?: Readonly<Record<string, string>>;
  /** Where notes on a working but risky configuration go (default: a process notice). */
  warn?: (message: string) => void;
}): Promise<JobStores> {
  const databaseUrl = options.databaseUrl?.trim() || undefined;
  const storageUrl = options.storageUrl?.trim() || undefined;
  if (databaseUrl === undefined && storageUrl === undefined) return openEmbeddedJobStores(options.dataDir);
  const { openBackends } = await import('./open-backends.js');
  const shared = await openBackends({ dataDir: options.dataDir, databaseUrl, storageUrl, env: options.aws, warn: options.warn });
  return { records: shared.records, blobs: shared.blobs, shared, describe: () => shared.describe(), close: () => shared.close() };
}

import { join } from 'node:path';
import type { BlobStore } from '../blobs/types.js';
import type { BackendOptions, Backends } from './backends.js';
import type { RecordStore } from './types.js';

/**
 * The one way every command and `serve` open their stores (docs/scaling.md "Configuration"). With
 * neither `--database-url` nor `--storage-url`, the embedded default: the data directory's SQLite
 * file and files, loaded without pg, pg-boss or the AWS SDK. With either, the rules of
 * ./backends.ts (connected, checked, migrated, clear errors), loaded only then.
 */

/** What a configuration names: the options of ./backends.ts. */
export type BackendSelection = BackendOptions;

/** Whether the configuration names a database or a storage of its own (not the embedded default). */
export function namesSharedBackends(selection: Pick<BackendSelection, 'databaseUrl' | 'storageUrl'>): boolean {
  return (selection.databaseUrl?.trim() ?? '') !== '' || (selection.storageUrl?.trim() ?? '') !== '';
}

/** `only: 'records'`: the record store alone (`keys`, `db`, the Studio's sign-in key), no storage check. */
export function openBackends(selection: BackendSelection, parts: { only: 'records' }): Promise<RecordStore>;
export function openBackends(selection: BackendSelection): Promise<Backends>;
export async function openBackends(selection: BackendSelection, parts?: { only: 'records' }): Promise<Backends | RecordStore> {
  if (namesSharedBackends(selection)) {
    const checked = await import('./backends.js');
    return parts?.only === 'records' ? checked.openCheckedRecords(selection) : checked.openCheckedBackends(selection);
  }
  const { openSqliteRecordStore } = await import('./sqlite/index.js');
  const records = openSqliteRecordStore(selection.dataDir, { now: selection.now });
  if (parts?.only === 'records') return records;
  const { LocalBlobStore } = await import('../blobs/local-store.js');
  const blobs: BlobStore = new LocalBlobStore(selection.dataDir);
  try {
    await blobs.check();
  } catch (error) {
    // Ignored: the check's error rethrown next is the one to report; closing is clean-up.
    await records.close().catch(() => undefined);
    throw error;
  }
  return {
    records,
    blobs,
    describe: () => `records: SQLite ${join(selection.dataDir, 'immoreel.db')}; blobs: files in ${selection.dataDir}`,
    async close() {
      await Promise.allSettled([records.close(), blobs.close()]);
    },
  };
}

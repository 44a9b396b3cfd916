import { LocalBlobStore } from './local-store.js';
import { S3BlobStore, type AwsEnvironment } from './s3-store.js';
import type { BlobStore } from './types.js';
import { parseStorageUrl } from './storage-url.js';

export type { BlobInfo, BlobListing, BlobRead, BlobStore, ByteRange, PutOptions } from './types.js';
export { LocalBlobStore } from './local-store.js';
export { S3BlobStore, s3ClientConfig, type AwsEnvironment } from './s3-store.js';
export { parseStorageUrl, type StorageLocation } from './storage-url.js';
export { storageError, isStorageError, type StorageReason } from './errors.js';
export { assertBlobKey, assetKey, outputKey, posterKey, videoKey } from './object-keys.js';

export interface OpenBlobStoreOptions {
  /** `--storage-url` / `IMMOREEL_STORAGE_URL`; unset means files in the data directory. */
  url?: string;
  /** The data directory of the embedded default. */
  dataDir: string;
  env?: AwsEnvironment;
}

/**
 * The blob store a configuration names. Call `check()` on it before serving: a missing bucket or
 * wrong credentials must stop the start with a clear error (docs/scaling.md "Failure modes").
 */
export function openBlobStore(options: OpenBlobStoreOptions): BlobStore {
  const url = options.url?.trim();
  // The data directory itself: keys such as `jobs/<job_id>/output.mp4` and `assets/<file>` are where
  // the embedded default has always kept them, so an existing data directory needs no migration.
  if (url === undefined || url === '') return new LocalBlobStore(options.dataDir);
  const location = parseStorageUrl(url);
  if (location.kind === 'local') return new LocalBlobStore(location.dir);
  return S3BlobStore.fromEnvironment(location.bucket, location.prefix, options.env);
}

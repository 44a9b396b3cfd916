import { AppError, type ErrorCode } from '../core/errors.js';

/**
 * Failures of the blob store as users see them (docs/scaling.md "Failure modes"). Configuration
 * problems are found by `check()` before anything starts: a bad URL or a missing bucket exits 2
 * (fix the command line), wrong credentials exit 4, an unreachable endpoint or one that keeps
 * failing on its side (5xx) exits 6.
 */
export type StorageReason =
  | 'storage_url_invalid'
  | 'bucket_missing'
  | 'storage_credentials'
  | 'storage_unreachable'
  | 'storage_unavailable'
  | 'blob_not_found'
  | 'blob_key_invalid'
  | 'range_not_satisfiable'
  | 'checksum_mismatch';

const CODES: Record<StorageReason, ErrorCode> = {
  storage_url_invalid: 'BAD_REQUEST',
  bucket_missing: 'BAD_REQUEST',
  storage_credentials: 'UNAUTHORIZED',
  storage_unreachable: 'SERVICE_UNAVAILABLE',
  storage_unavailable: 'SERVICE_UNAVAILABLE',
  blob_not_found: 'NOT_FOUND',
  blob_key_invalid: 'INTERNAL_SERVER_ERROR',
  range_not_satisfiable: 'BAD_REQUEST',
  checksum_mismatch: 'INTERNAL_SERVER_ERROR',
};

export function storageError(reason: StorageReason, message: string, cause?: unknown): AppError {
  return new AppError(CODES[reason], message, { reason, cause });
}

export function isStorageError(error: unknown, reason: StorageReason): boolean {
  return error instanceof AppError && error.reason === reason;
}

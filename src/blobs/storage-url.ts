import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { storageError } from './errors.js';

/** Where blobs live, from `--storage-url` / `IMMOREEL_STORAGE_URL` (docs/scaling.md "Configuration"). */
export type StorageLocation = { kind: 'local'; dir: string } | { kind: 's3'; bucket: string; prefix: string };

/** S3's bucket naming rules (3–63 characters, lower-case letters, digits, dots and hyphens, starting and ending with a letter or digit). */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const PREFIX_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

const EXAMPLE = 'Use s3://BUCKET or s3://BUCKET/PREFIX (or file:///DIR, or leave it unset for the data directory).';

/**
 * Parses a storage URL: `s3://bucket/optional/prefix` or `file:///absolute/dir`. A bare absolute
 * path is taken as a directory too. Anything else is an error that says what is wrong.
 */
export function parseStorageUrl(url: string): StorageLocation {
  const text = url.trim();
  if (text === '') throw storageError('storage_url_invalid', `The storage URL is empty. ${EXAMPLE}`);
  if (isAbsolute(text)) return { kind: 'local', dir: resolve(text) };
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
  if (scheme === 'file') {
    try {
      return { kind: 'local', dir: fileURLToPath(text) };
    } catch (error) {
      throw storageError('storage_url_invalid', `Invalid file URL ${JSON.stringify(text)}: ${(error as Error).message}. ${EXAMPLE}`);
    }
  }
  if (scheme !== 's3') {
    throw storageError(
      'storage_url_invalid',
      `Unsupported storage URL ${JSON.stringify(text)}: the scheme must be s3:// or file://. ${EXAMPLE}`,
    );
  }
  const match = /^s3:\/\/([^/?#]*)(\/[^?#]*)?$/i.exec(text);
  if (match === null)
    throw storageError('storage_url_invalid', `Invalid S3 URL ${JSON.stringify(text)}: no query or fragment allowed. ${EXAMPLE}`);
  const bucket = match[1]!;
  if (bucket === '') throw storageError('storage_url_invalid', `The S3 URL ${JSON.stringify(text)} names no bucket. ${EXAMPLE}`);
  if (!BUCKET.test(bucket) || bucket.includes('..')) {
    throw storageError(
      'storage_url_invalid',
      `${JSON.stringify(bucket)} is not a valid S3 bucket name: 3–63 lower-case letters, digits, dots or hyphens. ${EXAMPLE}`,
    );
  }
  const segments = (match[2] ?? '').split('/').filter((s) => s !== '');
  const bad = segments.find((s) => !PREFIX_SEGMENT.test(s) || s.includes('..'));
  if (bad !== undefined)
    throw storageError(
      'storage_url_invalid',
      `Invalid prefix segment ${JSON.stringify(bad)} in ${JSON.stringify(text)}: use letters, digits, ".", "-", "_".`,
    );
  return { kind: 's3', bucket, prefix: segments.join('/') };
}

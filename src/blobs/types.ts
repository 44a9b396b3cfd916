import type { Readable } from 'node:stream';

/**
 * The blob store: where uploaded photos and finished videos live (docs/scaling.md "Blob store").
 * Two implementations — local files (the embedded default) and S3 — behind this one interface;
 * callers never know which runs.
 *
 * Keys are `/`-separated paths of safe segments (`jobs/<job_id>/output.mp4`, `assets/<id>.jpg`),
 * checked by `assertBlobKey`: nothing a client sends becomes a key unchecked.
 */

export interface BlobInfo {
  key: string;
  /** Whole object, in bytes. */
  size: number;
  /** SHA-256 (hex) of the whole object, recorded when it was written through `put`. */
  sha256: string | null;
  /** A strong validator for `ETag`/`If-Range`, quoted as HTTP wants it. */
  etag: string;
  lastModified: Date;
  contentType: string;
}

/** One entry of `list`: what a listing gives without reading each object. */
export interface BlobListing {
  key: string;
  size: number;
  lastModified: Date;
}

/** Inclusive byte range, as in `Range: bytes=start-end` (src/server/http-range.ts resolves the header). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface PutOptions {
  contentType?: string;
  /** The SHA-256 the caller already knows (e.g. from ffprobe verification): checked while writing. */
  sha256?: string;
}

export interface BlobRead {
  info: BlobInfo;
  /** The bytes served: the whole object, or `range` when one was asked for. */
  body: Readable;
  range: ByteRange | null;
}

export interface BlobStore {
  /** `file:///…` or `s3://bucket/prefix`; holds no credentials, safe to log. */
  readonly location: string;
  /** Writes the whole object atomically: readers see the old object or the new one, never a part. */
  put(key: string, body: Buffer | Readable, options?: PutOptions): Promise<BlobInfo>;
  /** Streams the object, or the inclusive `range` of it (`end` is clamped to the last byte). */
  get(key: string, range?: ByteRange): Promise<BlobRead>;
  /** Null when there is no such object. */
  head(key: string): Promise<BlobInfo | null>;
  /** Removes the object; removing a missing object is not an error. */
  delete(key: string): Promise<void>;
  /** Every object whose key starts with `prefix`, sorted by key. */
  list(prefix: string): AsyncIterable<BlobListing>;
  /**
   * A URL a client can GET for `expiresInS` seconds without credentials, or null when the store
   * has none (local files). Downloads stream through the API by default (docs/scaling.md).
   */
  presignGet(key: string, expiresInS: number): Promise<string | null>;
  /** Fails with a clear error when the store cannot be used (missing bucket, wrong credentials). */
  check(): Promise<void>;
  close(): Promise<void>;
}

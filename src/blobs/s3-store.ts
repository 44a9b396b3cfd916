import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Readable } from 'node:stream';
import { sleep } from '../core/time.js';
import { isStorageError, storageError } from './errors.js';
import { DEFAULT_CONTENT_TYPE, HashingStream, sha256Of } from './hashing.js';
import { assertBlobKey, assertBlobPrefix, resolveRange } from './object-keys.js';
import type { BlobInfo, BlobListing, BlobRead, BlobStore, ByteRange, PutOptions } from './types.js';

/** The object metadata key holding the SHA-256 (sent as `x-amz-meta-sha256`). */
const SHA256_META = 'sha256';
/** lib-storage's part size: streams larger than this go up in parts, in parallel. */
const PART_SIZE = 8 * 1024 * 1024;

/**
 * The deadlines of every call to the storage (docs/operations.md "Storage deadlines"). Per HTTP
 * attempt: the connection within 3 s, the first byte of the answer within 30 s, and never 30 s
 * without a byte either way (a frozen server that accepts connections and never answers). Per
 * operation, the SDK's retries included: 10 s for everything but the streamed upload of a video
 * (which the per-attempt limits bound) — a request of the API waiting on the storage is answered
 * 503 within that, not minutes later.
 */
export const S3_DEADLINES = { connectMs: 3_000, firstByteMs: 30_000, idleSocketMs: 30_000, operationMs: 10_000 } as const;

export interface S3BlobStoreOptions {
  bucket: string;
  /** Key prefix inside the bucket, without slashes at either end ('' for none). */
  prefix: string;
  client: S3Client;
  /** For messages only (never holds credentials). */
  endpoint: string | null;
  /** The deadline of one operation, retries included (default `S3_DEADLINES.operationMs`). */
  operationTimeoutMs?: number;
}

/** The `AWS_*` variables a configuration carries (docs/configuration.md "S3"): given, never read from the process here. */
export type AwsEnvironment = Readonly<Record<string, string | undefined>>;

/**
 * The S3 client configuration from the standard AWS environment variables (docs/scaling.md
 * "Configuration"): `AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL` for a non-AWS endpoint (MinIO, R2,
 * s3rver) — then path-style addressing, which such servers expect — `AWS_REGION` (or
 * `AWS_DEFAULT_REGION`; `us-east-1` for a custom endpoint that needs none), and
 * `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`/`AWS_SESSION_TOKEN`. Without keys in the
 * environment the SDK's default chain (profiles, instance roles) applies.
 */
export function s3ClientConfig(env: AwsEnvironment = {}): S3ClientConfig & { endpoint?: string } {
  const endpoint = nonEmpty(env.AWS_ENDPOINT_URL_S3) ?? nonEmpty(env.AWS_ENDPOINT_URL);
  const region = nonEmpty(env.AWS_REGION) ?? nonEmpty(env.AWS_DEFAULT_REGION) ?? (endpoint === undefined ? undefined : 'us-east-1');
  const accessKeyId = nonEmpty(env.AWS_ACCESS_KEY_ID);
  const secretAccessKey = nonEmpty(env.AWS_SECRET_ACCESS_KEY);
  return {
    ...(endpoint === undefined ? {} : { endpoint, forcePathStyle: true }),
    ...(region === undefined ? {} : { region }),
    ...(accessKeyId !== undefined && secretAccessKey !== undefined
      ? {
          credentials: {
            accessKeyId,
            secretAccessKey,
            ...(nonEmpty(env.AWS_SESSION_TOKEN) === undefined ? {} : { sessionToken: env.AWS_SESSION_TOKEN! }),
          },
        }
      : {}),
    // A request that hangs must not hold a request or a worker (S3_DEADLINES); the SDK retries 3 times by default.
    requestHandler: {
      connectionTimeout: S3_DEADLINES.connectMs,
      requestTimeout: S3_DEADLINES.firstByteMs,
      throwOnRequestTimeout: true,
      socketTimeout: S3_DEADLINES.idleSocketMs,
    },
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

interface SdkError {
  name?: string;
  code?: string;
  Code?: string;
  $metadata?: { httpStatusCode?: number };
}

export class S3BlobStore implements BlobStore {
  readonly location: string;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly client: S3Client;
  private readonly endpoint: string | null;
  private readonly operationTimeoutMs: number;

  constructor(options: S3BlobStoreOptions) {
    this.operationTimeoutMs = options.operationTimeoutMs ?? S3_DEADLINES.operationMs;
    this.bucket = options.bucket;
    this.prefix = options.prefix;
    this.client = options.client;
    this.endpoint = options.endpoint;
    this.location = `s3://${this.bucket}${this.prefix === '' ? '' : `/${this.prefix}`}`;
  }

  static fromEnvironment(bucket: string, prefix: string, env: AwsEnvironment = {}): S3BlobStore {
    const config = s3ClientConfig(env);
    return new S3BlobStore({ bucket, prefix, client: new S3Client(config), endpoint: config.endpoint ?? null });
  }

  /**
   * Sends one command under the operation deadline: past it the request is aborted and the caller
   * gets `storage_unreachable` (a 503 with Retry-After for the API, docs/operations.md "Outages").
   * The deadline ends with the answer's headers: a body being streamed to a client is not cut.
   */
  private async send<Output>(
    call: (options: { abortSignal: AbortSignal }) => Promise<Output>,
    timeoutMs = this.operationTimeoutMs,
  ): Promise<Output> {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    try {
      return await call({ abortSignal: deadline.signal });
    } catch (error) {
      if (!deadline.signal.aborted) throw error;
      throw storageError(
        'storage_unreachable',
        `The storage did not answer within ${timeoutMs / 1000} s (${this.location}${this.endpoint === null ? '' : ` at ${this.endpoint}`}): check that it runs and is not overloaded.`,
        error,
      );
    } finally {
      clearTimeout(timer);
    }
  }

  private objectKey(key: string): string {
    assertBlobKey(key);
    return this.prefix === '' ? key : `${this.prefix}/${key}`;
  }

  /** Turns an SDK failure into the error a user can act on; `key` names the object when there is one. */
  private translate(error: unknown, key?: string): unknown {
    const e = error as SdkError;
    const name = e.name ?? e.Code ?? '';
    const status = e.$metadata?.httpStatusCode;
    const where = `${this.location}${this.endpoint === null ? '' : ` at ${this.endpoint}`}`;
    if (name === 'NoSuchBucket' || (key === undefined && (name === 'NotFound' || status === 404))) {
      return storageError(
        'bucket_missing',
        `The bucket ${this.bucket} does not exist (${where}): create it, or fix --storage-url / IMMOREEL_STORAGE_URL.`,
        error,
      );
    }
    if (
      name === 'InvalidAccessKeyId' ||
      name === 'SignatureDoesNotMatch' ||
      name === 'AccessDenied' ||
      name === 'Forbidden' ||
      status === 403 ||
      status === 401
    ) {
      return storageError(
        'storage_credentials',
        `The storage refused our credentials (${where}, ${name || String(status)}): check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and the bucket policy.`,
        error,
      );
    }
    if (name === 'InvalidRange' || status === 416)
      return storageError('range_not_satisfiable', `The range asked of ${key ?? 'an object'} is outside it.`, error);
    if (key !== undefined && (name === 'NoSuchKey' || name === 'NotFound' || status === 404))
      return storageError('blob_not_found', `No blob ${key} in ${this.location}.`, error);
    const code = e.code ?? name;
    if (['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET', 'TimeoutError'].includes(code)) {
      return storageError(
        'storage_unreachable',
        `The storage endpoint is unreachable (${where}: ${code}): check AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL and the network.`,
        error,
      );
    }
    if (status !== undefined && status >= 500) {
      return storageError(
        'storage_unavailable',
        `The storage failed on its side (${where}: ${status} ${name}): try again; if it persists, check the storage service.`,
        error,
      );
    }
    if (name === 'Error' && /Region is missing/i.test((error as Error).message)) {
      return storageError('storage_url_invalid', 'No AWS region configured: set AWS_REGION.', error);
    }
    return error;
  }

  async put(key: string, body: Buffer | Readable, options: PutOptions = {}): Promise<BlobInfo> {
    const objectKey = this.objectKey(key);
    const contentType = options.contentType ?? DEFAULT_CONTENT_TYPE;
    try {
      if (Buffer.isBuffer(body)) {
        const sha256 = sha256Of(body);
        if (options.sha256 !== undefined && options.sha256.toLowerCase() !== sha256) {
          throw storageError('checksum_mismatch', `The bytes given for ${key} have SHA-256 ${sha256}, not the expected ${options.sha256}.`);
        }
        // A second more per MB sent: the deadline is for a storage that does not answer, not for a slow link.
        await this.send(
          (send) =>
            this.client.send(
              new PutObjectCommand({
                Bucket: this.bucket,
                Key: objectKey,
                Body: body,
                ContentLength: body.length,
                ContentType: contentType,
                Metadata: { [SHA256_META]: sha256 },
              }),
              send,
            ),
          this.operationTimeoutMs + Math.ceil(body.length / 1_000_000) * 1000,
        );
      } else {
        // S3 writes an object whole when the upload completes (a single PUT or CompleteMultipartUpload):
        // readers never see a part, as with the local store's rename.
        const hasher = new HashingStream();
        const known = options.sha256?.toLowerCase();
        const upload = new Upload({
          client: this.client,
          partSize: PART_SIZE,
          queueSize: 2,
          params: {
            Bucket: this.bucket,
            Key: objectKey,
            Body: body.pipe(hasher),
            ContentType: contentType,
            ...(known === undefined ? {} : { Metadata: { [SHA256_META]: known } }),
          },
        });
        body.once('error', (error) => hasher.destroy(error));
        await upload.done();
        const sha256 = hasher.digest();
        if (known !== undefined && known !== sha256) {
          // The checksum error thrown next is what matters: its caller records nothing that names this key.
          await this.send((options) => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: objectKey }), options)).catch(
            () => undefined,
          );
          throw storageError('checksum_mismatch', `The bytes written to ${key} have SHA-256 ${sha256}, not the expected ${known}.`);
        }
        if (known === undefined) {
          // The hash of a stream is known only at its end: record it with a server-side copy onto itself.
          await this.send((options) =>
            this.client.send(
              new CopyObjectCommand({
                Bucket: this.bucket,
                Key: objectKey,
                CopySource: `${this.bucket}/${encodeURIComponent(objectKey).replace(/%2F/g, '/')}`,
                MetadataDirective: 'REPLACE',
                ContentType: contentType,
                Metadata: { [SHA256_META]: sha256 },
              }),
              options,
            ),
          );
        }
      }
    } catch (error) {
      throw this.translate(error, key);
    }
    const info = await this.head(key);
    if (info === null) throw storageError('blob_not_found', `The blob ${key} vanished right after it was written to ${this.location}.`);
    return info;
  }

  async head(key: string): Promise<BlobInfo | null> {
    const objectKey = this.objectKey(key);
    try {
      const out = await this.send((options) => this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: objectKey }), options));
      return {
        key,
        size: out.ContentLength ?? 0,
        sha256: out.Metadata?.[SHA256_META] ?? null,
        etag: out.ETag ?? '""',
        lastModified: out.LastModified ?? new Date(0),
        contentType: out.ContentType ?? DEFAULT_CONTENT_TYPE,
      };
    } catch (error) {
      const e = error as SdkError;
      if ((e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) && e.name !== 'NoSuchBucket') {
        // HEAD has no body to tell a missing key from a missing bucket: ask the bucket.
        await this.check();
        return null;
      }
      throw this.translate(error, key);
    }
  }

  async get(key: string, range?: ByteRange): Promise<BlobRead> {
    const objectKey = this.objectKey(key);
    // The size is needed to check the range the way the local store does; one HEAD also gives the metadata.
    const info = await this.head(key);
    if (info === null) throw storageError('blob_not_found', `No blob ${key} in ${this.location}.`);
    const served = range === undefined ? null : resolveRange(key, range, info.size);
    try {
      const out = await this.send((options) =>
        this.client.send(
          new GetObjectCommand({
            Bucket: this.bucket,
            Key: objectKey,
            IfMatch: info.etag,
            ...(served === null ? {} : { Range: `bytes=${served.start}-${served.end}` }),
          }),
          options,
        ),
      );
      if (!(out.Body instanceof Readable)) throw new Error('S3 GetObject returned no stream body');
      return { info, body: out.Body, range: served };
    } catch (error) {
      throw this.translate(error, key);
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await this.send((options) => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }), options));
    } catch (error) {
      throw this.translate(error, key);
    }
  }

  async *list(prefix: string): AsyncIterable<BlobListing> {
    assertBlobPrefix(prefix);
    const base = this.prefix === '' ? '' : `${this.prefix}/`;
    let token: string | undefined;
    do {
      let page;
      try {
        page = await this.send((options) =>
          this.client.send(
            new ListObjectsV2Command({ Bucket: this.bucket, Prefix: `${base}${prefix}`, ContinuationToken: token }),
            options,
          ),
        );
      } catch (error) {
        throw this.translate(error);
      }
      for (const object of page.Contents ?? []) {
        if (object.Key === undefined) continue;
        yield { key: object.Key.slice(base.length), size: object.Size ?? 0, lastModified: object.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  async presignGet(key: string, expiresInS: number): Promise<string | null> {
    return getSignedUrl(this.client, new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }), { expiresIn: expiresInS });
  }

  /**
   * HeadBucket, then a one-key listing of our prefix: some servers answer HEAD without checking
   * the signature, and the listing is a permission the store needs anyway (purging old files).
   */
  async check(): Promise<void> {
    // A failure on the server's side (5xx: S3's SlowDown, a busy MinIO, s3rver listing an object
    // while it is being written) is retried for about 4 s before start-up is refused; the SDK's own
    // three quick retries are not always enough.
    for (let attempt = 0; ; attempt += 1) {
      try {
        await this.send((options) => this.client.send(new HeadBucketCommand({ Bucket: this.bucket }), options));
        await this.send((options) =>
          this.client.send(
            new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix === '' ? undefined : `${this.prefix}/`, MaxKeys: 1 }),
            options,
          ),
        );
        return;
      } catch (error) {
        const failure = this.translate(error);
        if (!isStorageError(failure, 'storage_unavailable') || attempt >= 4) throw failure;
        await sleep(250 * 2 ** attempt);
      }
    }
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

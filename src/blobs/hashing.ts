import { createHash } from 'node:crypto';
import { Readable, Transform } from 'node:stream';

/**
 * A pass-through that hashes and counts what flows through it (one read of the data, not two).
 * The count is not called `size`: lib-storage reads `Body.size` as the upload's total length.
 */
export class HashingStream extends Transform {
  private readonly hash = createHash('sha256');
  byteCount = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null, data?: Buffer) => void): void {
    this.hash.update(chunk);
    this.byteCount += chunk.length;
    callback(null, chunk);
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

export function sha256Of(buffer: Buffer): string {
  return createHash('sha256').update(buffer).digest('hex');
}

export function toReadable(body: Buffer | Readable): Readable {
  return Buffer.isBuffer(body) ? Readable.from([body]) : body;
}

export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

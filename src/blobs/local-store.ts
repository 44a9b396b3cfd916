import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile, access, constants } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { storageError } from './errors.js';
import { DEFAULT_CONTENT_TYPE, HashingStream, toReadable } from './hashing.js';
import { assertBlobKey, assertBlobPrefix, resolveRange } from './object-keys.js';
import type { BlobInfo, BlobListing, BlobRead, BlobStore, ByteRange, PutOptions } from './types.js';

/** What the local store keeps next to each object (a hidden `.<name>.meta.json`): S3 keeps the same as object metadata. */
interface Sidecar {
  sha256: string;
  size: number;
  contentType: string;
}

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/**
 * Blobs as files under one directory (the embedded default: the data directory). Writes go to a
 * hidden temporary file in the same directory, then `rename` — atomic on POSIX, so a reader never
 * sees half a video. Files are 0600 and directories 0700: only the service's user reads them.
 */
export class LocalBlobStore implements BlobStore {
  readonly location: string;

  constructor(readonly root: string) {
    this.location = pathToFileURL(root).href;
  }

  private pathOf(key: string): string {
    return join(this.root, ...assertBlobKey(key).split('/'));
  }

  private static sidecarOf(path: string): string {
    return join(dirname(path), `.${basename(path)}.meta.json`);
  }

  async put(key: string, body: Buffer | Readable, options: PutOptions = {}): Promise<BlobInfo> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true, mode: DIR_MODE });
    const nonce = randomBytes(6).toString('hex');
    const temp = join(dirname(path), `.${basename(path)}.${nonce}.partial`);
    const sidecarTemp = `${temp}.meta`;
    const hasher = new HashingStream();
    try {
      await pipeline(toReadable(body), hasher, createWriteStream(temp, { flags: 'wx', mode: FILE_MODE }));
      const sha256 = hasher.digest();
      if (options.sha256 !== undefined && options.sha256.toLowerCase() !== sha256) {
        throw storageError('checksum_mismatch', `The bytes written to ${key} have SHA-256 ${sha256}, not the expected ${options.sha256}.`);
      }
      const sidecar: Sidecar = { sha256, size: hasher.byteCount, contentType: options.contentType ?? DEFAULT_CONTENT_TYPE };
      await writeFile(sidecarTemp, JSON.stringify(sidecar), { mode: FILE_MODE, flag: 'wx' });
      await rename(sidecarTemp, LocalBlobStore.sidecarOf(path));
      await rename(temp, path);
    } catch (error) {
      await rm(temp, { force: true });
      await rm(sidecarTemp, { force: true });
      throw error;
    }
    return (await this.head(key))!;
  }

  async head(key: string): Promise<BlobInfo | null> {
    const path = this.pathOf(key);
    let stats;
    try {
      stats = await stat(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    if (!stats.isFile()) return null;
    const sidecar = await readFile(LocalBlobStore.sidecarOf(path), 'utf8')
      .then((text) => JSON.parse(text) as Sidecar)
      .catch(() => null);
    // A sidecar that does not describe this file (written by hand, or a crash between the two renames) is ignored.
    const meta = sidecar !== null && sidecar.size === stats.size ? sidecar : null;
    return {
      key,
      size: stats.size,
      sha256: meta?.sha256 ?? null,
      etag: meta === null ? `"${stats.size.toString(16)}-${Math.floor(stats.mtimeMs).toString(16)}"` : `"${meta.sha256}"`,
      lastModified: stats.mtime,
      contentType: meta?.contentType ?? DEFAULT_CONTENT_TYPE,
    };
  }

  async get(key: string, range?: ByteRange): Promise<BlobRead> {
    const info = await this.head(key);
    if (info === null) throw storageError('blob_not_found', `No blob ${key} in ${this.location}.`);
    const served = range === undefined ? null : resolveRange(key, range, info.size);
    const body = createReadStream(this.pathOf(key), served === null ? {} : { start: served.start, end: served.end });
    return { info, body, range: served };
  }

  async delete(key: string): Promise<void> {
    const path = this.pathOf(key);
    await rm(path, { force: true });
    await rm(LocalBlobStore.sidecarOf(path), { force: true });
  }

  async *list(prefix: string): AsyncIterable<BlobListing> {
    assertBlobPrefix(prefix);
    // Walk only the directory the prefix points into, not the whole store.
    const slash = prefix.lastIndexOf('/');
    const base = slash < 0 ? '' : prefix.slice(0, slash);
    const start = base === '' ? this.root : join(this.root, ...base.split('/'));
    const keys: string[] = [];
    const walk = async (dir: string, keyPrefix: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return;
        throw error;
      }
      for (const entry of entries) {
        if (entry.name.startsWith('.')) continue;
        const key = `${keyPrefix}${entry.name}`;
        if (entry.isDirectory()) {
          if (key.startsWith(prefix) || prefix.startsWith(`${key}/`)) await walk(join(dir, entry.name), `${key}/`);
        } else if (entry.isFile() && key.startsWith(prefix)) {
          keys.push(key);
        }
      }
    };
    await walk(start, base === '' ? '' : `${base}/`);
    keys.sort();
    for (const key of keys) {
      const stats = await stat(join(this.root, ...key.split('/'))).catch(() => null);
      if (stats !== null) yield { key, size: stats.size, lastModified: stats.mtime };
    }
  }

  async presignGet(): Promise<string | null> {
    return null;
  }

  async check(): Promise<void> {
    await mkdir(this.root, { recursive: true, mode: DIR_MODE });
    await access(this.root, constants.R_OK | constants.W_OK | constants.X_OK).catch((error: unknown) => {
      throw storageError(
        'storage_credentials',
        `Cannot read and write ${this.root}: ${(error as Error).message}. Fix its permissions or choose another --storage-url.`,
        error,
      );
    });
  }

  async close(): Promise<void> {}
}

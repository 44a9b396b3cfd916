import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError, badRequest } from '../core/errors.js';
import { isRemoteRef } from '../core/refs.js';
import type { RenderRequest } from '../core/requests.js';
import type { HttpClient } from './http.js';
import { IMAGE_FORMAT_NAMES } from '../core/images.js';

/**
 * Local photo and logo files in a remote render (docs/api.md: "the remote CLI uploads local files as
 * assets first"): each file is sent once with POST /api/v1/assets (raw body, image/* type) and its
 * path replaced by `asset:<id>` in the request.
 *
 * Uploads are remembered per server, key and file content (sha256) for as long as the server keeps
 * assets (24 h, minus a safety margin), in `<config dir>/asset-cache.json`. So a batch run again
 * sends the same `asset:` references, its render bodies are byte-identical, and the server's
 * Idempotency-Key replay finds the jobs of the first run instead of refusing a changed body.
 */

/** Server limit of POST /api/v1/assets (docs/api.md). */
export const MAX_ASSET_BYTES = 15 * 1024 * 1024;
/** A cached asset is reused only while it has at least this long to live (a queued job still needs it). */
const CACHE_SAFETY_MS = 2 * 60 * 60 * 1000;

/** The image type from the file's first bytes (what the server checks too), or null. */
export function sniffImageType(bytes: Buffer): string | null {
  const ascii = (start: number, end: number): string => bytes.subarray(start, end).toString('latin1');
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  if (bytes.length >= 6 && (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a')) return 'image/gif';
  if (bytes.length >= 4 && (ascii(0, 4) === 'II*\0' || ascii(0, 4) === 'MM\0*')) return 'image/tiff';
  if (bytes.length >= 12 && ascii(4, 8) === 'ftyp') {
    const brand = ascii(8, 12);
    if (brand === 'avif' || brand === 'avis') return 'image/avif';
    if (['heic', 'heix', 'hevc', 'heim', 'heis', 'mif1', 'msf1'].includes(brand)) return 'image/heic';
  }
  return null;
}

interface CacheEntry {
  asset_id: string;
  ref: string;
  expires_at: string;
}

/** The on-disk upload memory: small JSON, rewritten atomically, pruned of expired entries. */
class AssetCache {
  private entries: Record<string, CacheEntry> | null = null;

  constructor(private readonly file: string | null) {}

  private load(): Record<string, CacheEntry> {
    if (this.entries !== null) return this.entries;
    this.entries = {};
    if (this.file !== null && existsSync(this.file)) {
      try {
        const parsed = JSON.parse(readFileSync(this.file, 'utf8')) as { entries?: Record<string, CacheEntry> };
        if (typeof parsed.entries === 'object' && parsed.entries !== null) this.entries = parsed.entries;
      } catch {
        // A damaged cache only costs uploads: start afresh.
      }
    }
    return this.entries;
  }

  get(key: string, now: number): CacheEntry | null {
    const entry = this.load()[key];
    if (entry === undefined || Date.parse(entry.expires_at) - CACHE_SAFETY_MS <= now) return null;
    return entry;
  }

  put(key: string, entry: CacheEntry | null, now: number): void {
    const entries = this.load();
    if (entry === null) delete entries[key];
    else entries[key] = entry;
    for (const [k, e] of Object.entries(entries)) if (Date.parse(e.expires_at) <= now) delete entries[k];
    if (this.file === null) return;
    try {
      mkdirSync(join(this.file, '..'), { recursive: true, mode: 0o700 });
      const temp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(temp, JSON.stringify({ version: 1, entries }), { mode: 0o600 });
      renameSync(temp, this.file);
      chmodSync(this.file, 0o600);
    } catch {
      // Not being able to remember an upload is not a reason to fail the render.
    }
  }
}

export interface UploaderOptions {
  /** Where uploads are remembered; null = not remembered (tests). */
  cacheFile: string | null;
  /** Partition of the cache: the server and the key (hashed; the key itself is never written). */
  partition: string;
  now?: () => number;
}

interface PreparedFile {
  path: string;
  bytes: Buffer;
  contentType: string;
  sha256: string;
}

export class AssetUploader {
  private readonly cache: AssetCache;
  private readonly inFlight = new Map<string, Promise<string>>();
  private readonly now: () => number;

  constructor(
    private readonly http: HttpClient,
    private readonly options: UploaderOptions,
  ) {
    this.cache = new AssetCache(options.cacheFile);
    this.now = options.now ?? Date.now;
  }

  private async read(path: string, field: string): Promise<PreparedFile> {
    const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
      throw badRequest(`${field}: cannot read ${path}: ${error.code === 'ENOENT' ? 'no such file' : error.message}.`, {
        reason: 'invalid_file',
        details: [{ field, message: error.code === 'ENOENT' ? 'file not found' : 'cannot be read' }],
      });
    });
    if (!info.isFile())
      throw badRequest(`${field}: ${path} is not a file.`, { reason: 'invalid_file', details: [{ field, message: 'is not a file' }] });
    if (info.size > MAX_ASSET_BYTES) {
      throw badRequest(
        `${field}: ${path} is ${(info.size / 1e6).toFixed(1)} MB; the server accepts images up to 15 MB. Resize it (a 1920 px JPEG is plenty for 720p).`,
        {
          reason: 'file_too_large',
          details: [{ field, message: 'larger than 15 MB' }],
        },
      );
    }
    const bytes = await readFile(path);
    const contentType = sniffImageType(bytes);
    if (contentType === 'image/heic') {
      throw badRequest(`${field}: ${path} is a HEIC image, which the renderer cannot read: export it as JPEG (or ${IMAGE_FORMAT_NAMES}).`, {
        reason: 'invalid_image',
        details: [{ field, message: 'HEIC is not accepted' }],
      });
    }
    if (contentType === null) {
      throw badRequest(`${field}: ${path} is not a ${IMAGE_FORMAT_NAMES} image.`, {
        reason: 'invalid_image',
        details: [{ field, message: 'not a supported image' }],
      });
    }
    return { path, bytes, contentType, sha256: createHash('sha256').update(bytes).digest('hex') };
  }

  /** Uploads one local file (or reuses its earlier upload); returns its `asset:<id>` reference. */
  async upload(path: string, field: string, options: { fresh?: boolean } = {}): Promise<string> {
    const file = await this.read(path, field);
    const cacheKey = `${this.options.partition}:${file.sha256}`;
    if (options.fresh === true) this.cache.put(cacheKey, null, this.now());
    else {
      const cached = this.cache.get(cacheKey, this.now());
      if (cached !== null) return cached.ref;
    }
    const pending = this.inFlight.get(cacheKey);
    if (pending !== undefined) return pending;
    const work = (async () => {
      const answer = await this.http.json<{ asset?: { asset_id?: string; ref?: string; expires_at?: string } }>({
        method: 'POST',
        path: '/api/v1/assets',
        route: 'POST /api/v1/assets',
        raw: { body: file.bytes, contentType: file.contentType },
        // A repeated upload only leaves a duplicate that the server drops after 24 h.
        retryable: true,
      });
      const asset = answer.body.asset;
      if (asset?.asset_id === undefined) {
        throw new AppError('INTERNAL_SERVER_ERROR', `The server accepted ${path} but returned no asset id.`, {
          cause: 'POST /api/v1/assets answered without asset.asset_id',
        });
      }
      const ref = asset.ref ?? `asset:${asset.asset_id}`;
      const expiresAt = asset.expires_at ?? new Date(this.now() + 24 * 3600_000).toISOString();
      this.cache.put(cacheKey, { asset_id: asset.asset_id, ref, expires_at: expiresAt }, this.now());
      return ref;
    })();
    this.inFlight.set(cacheKey, work);
    try {
      return await work;
    } finally {
      this.inFlight.delete(cacheKey);
    }
  }

  /**
   * The request as the server takes it: local photo and logo files uploaded and replaced by their
   * `asset:` references (in order, duplicates uploaded once). `fresh` ignores remembered uploads.
   */
  async prepare(request: RenderRequest, options: { fresh?: boolean } = {}): Promise<RenderRequest> {
    const localPath = (value: string): string => (value.startsWith('file:') ? fileURLToPath(value) : resolve(value));
    const prepared: RenderRequest = { ...request };
    if (request.photos !== undefined) {
      prepared.photos = await Promise.all(
        request.photos.map((photo, index) => (isRemoteRef(photo) ? photo : this.upload(localPath(photo), `photos[${index}]`, options))),
      );
    }
    const logo = request.branding?.logo_url;
    if (logo !== undefined && !isRemoteRef(logo)) {
      prepared.branding = { ...request.branding, logo_url: await this.upload(localPath(logo), 'branding.logo_url', options) };
    }
    const music = request.music;
    if (music !== undefined && /[/\\]|\.(mp3|m4a|aac|wav|ogg|flac|opus)$/i.test(music) && existsSync(music)) {
      throw badRequest(
        `--music ${music}: a music file can only be used in local mode; on a server use auto, none or a bundled track (immoreel templates list).`,
        {
          reason: 'local_music_file',
          details: [{ field: 'music', message: 'local files are not uploaded' }],
        },
      );
    }
    return prepared;
  }
}

import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError, badRequest } from '../core/errors.js';
import { isRemoteRef } from '../core/refs.js';
import { photoRef, withPhotoRef } from '../core/photo-ref.js';
import type { RenderRequest } from '../core/requests.js';
import type { HttpClient } from './http.js';
import { readImageFile } from '../core/images.js';

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

/** A cached asset is reused only while it has at least this long to live (a queued job still needs it). */
const CACHE_SAFETY_MS = 2 * 60 * 60 * 1000;

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

  /** Uploads one local file (or reuses its earlier upload); returns its `asset:<id>` reference. */
  async upload(path: string, field: string, options: { fresh?: boolean } = {}): Promise<string> {
    const file = await readImageFile(path, field);
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
        request.photos.map(async (photo, index) =>
          isRemoteRef(photoRef(photo))
            ? photo
            : withPhotoRef(photo, await this.upload(localPath(photoRef(photo)), `photos[${index}]`, options)),
        ),
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

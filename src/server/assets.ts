import { createHash } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError, badRequest } from '../core/errors.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../core/paths.js';
import type { Db } from '../jobs/db.js';
import { idPattern, randomId } from './ids.js';
import { IMAGE_FORMAT_NAMES, IMAGE_FORMATS, type ImageFormat } from '../core/images.js';

/**
 * Uploaded photos and logos (docs/api.md, POST /api/v1/assets). An asset is private to the tenant
 * that uploaded it, kept 24 h, and referenced in a render request as `asset:<asset_id>`.
 * Files are named by the asset id only: nothing a caller sends becomes part of a path.
 */

export const ASSET_TTL_MS = 24 * 60 * 60 * 1000;
const ASSET_ID_PATTERN = idPattern('ast', 24);
/**
 * The accepted formats (src/core/images.ts) by the format the decoder reports, with the ending
 * files are saved with. SVG is refused: it is a document, not a photo.
 */
const ACCEPTED_FORMATS: ReadonlyMap<string, ImageFormat> = new Map(IMAGE_FORMATS.map((format) => [format.decoded, format]));
/** Larger images are refused before anything decodes them (a decompression bomb guard). */
const MAX_PIXELS = 100_000_000;

export interface AssetRecord {
  asset_id: string;
  /** What to put in `photos` or `branding.logo_url`. */
  ref: string;
  content_type: string;
  format: string;
  width: number;
  height: number;
  size_bytes: number;
  sha256: string;
  created_at: string;
  expires_at: string;
}

/** Metadata of an uploaded asset, the same row in both backends (SQLite here, src/store/postgres). */
export interface AssetRow {
  asset_id: string;
  tenant: string;
  content_type: string;
  format: string;
  width: number;
  height: number;
  size_bytes: number;
  sha256: string;
  /** The file name under `assets/` (local) or the key suffix (S3): `<asset_id>.<ext>`. */
  file: string;
  created_at: number;
  expires_at: number;
}

function toRecord(row: AssetRow): AssetRecord {
  return {
    asset_id: row.asset_id,
    ref: `asset:${row.asset_id}`,
    content_type: row.content_type,
    format: row.format,
    width: row.width,
    height: row.height,
    size_bytes: row.size_bytes,
    sha256: row.sha256,
    created_at: new Date(row.created_at).toISOString(),
    expires_at: new Date(row.expires_at).toISOString(),
  };
}

function notAnImage(message: string): AppError {
  return badRequest(message, { reason: 'invalid_image', details: [{ field: 'body', message: `must be a ${IMAGE_FORMAT_NAMES} image` }] });
}

export class AssetStore {
  constructor(
    private readonly db: Db,
    readonly dir: string,
    private readonly now: () => number = Date.now,
  ) {}

  async save(tenant: string, body: Buffer, contentType: string): Promise<AssetRecord> {
    if (body.length === 0) throw notAnImage('The upload is empty: send the image bytes as the request body.');
    const { default: sharp } = await import('sharp');
    let meta;
    try {
      meta = await sharp(body, { limitInputPixels: MAX_PIXELS }).metadata();
    } catch {
      throw notAnImage('The upload is not a readable image.');
    }
    const format = meta.format === undefined ? undefined : ACCEPTED_FORMATS.get(meta.format);
    // A HEIF container holds AVIF (accepted) or HEIC, which the renderer cannot decode.
    const heic = meta.format === 'heif' && meta.compression !== 'av1';
    if (heic) throw notAnImage(`HEIC images are not accepted: export the photo as JPEG (or send ${IMAGE_FORMAT_NAMES}).`);
    const extension = format?.extensions[0]?.slice(1);
    if (extension === undefined || meta.width === undefined || meta.height === undefined) {
      throw notAnImage(`Images of format ${meta.format ?? 'unknown'} are not accepted: send ${IMAGE_FORMAT_NAMES}.`);
    }
    if (meta.width * meta.height > MAX_PIXELS) {
      throw notAnImage(`The image is ${meta.width}x${meta.height}: at most ${MAX_PIXELS / 1_000_000} megapixels are accepted.`);
    }
    // The header alone says little: a truncated or corrupt file would only fail at render time.
    // Decode every pixel now and refuse it with the reason (docs/security.md).
    try {
      await sharp(body, { limitInputPixels: MAX_PIXELS, failOn: 'truncated' }).raw().toBuffer();
    } catch {
      // The decoder's own words name libraries and internals: the reason is said plainly.
      throw notAnImage('The image cannot be decoded in full: it is truncated or corrupt. Export it again and upload the whole file.');
    }
    const assetId = randomId('ast', 24);
    const file = `${assetId}.${extension}`;
    // Not caught: a data directory that cannot be written is a server failure (500), not the caller's.
    await mkdir(this.dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const temp = join(this.dir, `.${file}.partial`);
    await writeFile(temp, body, { mode: PRIVATE_FILE_MODE });
    await rename(temp, join(this.dir, file));
    const created = this.now();
    const row: AssetRow = {
      asset_id: assetId,
      tenant,
      content_type: contentType,
      format: meta.format!,
      width: meta.width,
      height: meta.height,
      size_bytes: body.length,
      sha256: createHash('sha256').update(body).digest('hex'),
      file,
      created_at: created,
      expires_at: created + ASSET_TTL_MS,
    };
    this.db
      .prepare(
        `INSERT INTO server_assets (asset_id, tenant, content_type, format, width, height, size_bytes, sha256, file, created_at, expires_at)
         VALUES (@asset_id, @tenant, @content_type, @format, @width, @height, @size_bytes, @sha256, @file, @created_at, @expires_at)`,
      )
      .run(row);
    return toRecord(row);
  }

  /**
   * The file of `assetId` if `tenant` owns it and it has not expired. Another tenant's asset is
   * reported exactly like a missing one, so ids cannot be probed across tenants.
   */
  resolve(tenant: string, assetId: string, field = 'photos'): string {
    const missing = (): AppError =>
      badRequest(
        `Asset ${JSON.stringify(assetId.slice(0, 40))} does not exist or has expired (assets are kept 24 h): upload it again with POST /api/v1/assets.`,
        {
          reason: 'unknown_asset',
          details: [{ field, message: 'unknown or expired asset' }],
        },
      );
    if (!ASSET_ID_PATTERN.test(assetId)) throw missing();
    const row = this.db.prepare('SELECT * FROM server_assets WHERE asset_id = ?').get(assetId) as AssetRow | undefined;
    if (row === undefined || row.tenant !== tenant || row.expires_at <= this.now()) throw missing();
    return join(this.dir, row.file);
  }

  async purgeExpired(): Promise<number> {
    const rows = this.db.prepare('SELECT asset_id, file FROM server_assets WHERE expires_at <= ?').all(this.now()) as Pick<
      AssetRow,
      'asset_id' | 'file'
    >[];
    for (const row of rows) {
      await rm(join(this.dir, row.file), { force: true });
      this.db.prepare('DELETE FROM server_assets WHERE asset_id = ?').run(row.asset_id);
    }
    return rows.length;
  }
}

import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { AppError, badRequest } from '../core/errors.js';
import { IMAGE_FORMAT_NAMES, IMAGE_FORMATS, MAX_IMAGE_PIXELS, pixelCapMessage, type ImageFormat } from '../core/images.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../core/paths.js';
import { assetKey } from '../blobs/object-keys.js';
import { decodeSlots } from '../render/decode-slots.js';
import { DECODE_TIMEOUT_S, decodeCostOf } from '../render/decode-budget.js';
import { LocalBlobStore } from '../blobs/local-store.js';
import type { BlobStore } from '../blobs/types.js';
import type { AssetRow, RecordStore } from './types.js';
import { idPattern, randomId } from '../core/random-ids.js';

export type { AssetRow };

/**
 * Uploaded photos and logos (docs/api.md, POST /api/v1/assets). An asset is private to the tenant
 * that uploaded it, kept 24 h, and referenced in a render request as `asset:<asset_id>`.
 * The bytes go to the blob store under `assets/<asset_id>.<ext>` (the data directory, or the
 * bucket: any node can use an asset uploaded on another, docs/scaling.md), the row to the record
 * store. Keys are named by the asset id only: nothing a caller sends becomes part of a key.
 */

export const ASSET_TTL_MS = 24 * 60 * 60 * 1000;
const ASSET_ID_PATTERN = idPattern('ast', 24);
/**
 * The accepted formats (src/core/images.ts) by the format the decoder reports, with the ending
 * files are saved with. SVG is refused: it is a document, not a photo.
 */
const ACCEPTED_FORMATS: ReadonlyMap<string, ImageFormat> = new Map(IMAGE_FORMATS.map((format) => [format.decoded, format]));

/** An asset as the API answers it: the row without its tenant and file name, times as ISO strings. */
export type AssetRecord = Omit<AssetRow, 'tenant' | 'file' | 'created_at' | 'expires_at'> & {
  /** What to put in `photos` or `branding.logo_url`. */
  ref: string;
  created_at: string;
  expires_at: string;
};

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

export interface AssetParts {
  records: Pick<RecordStore, 'assets'>;
  blobs: BlobStore;
  now?: () => number;
}

/** Checks that `body` is a whole, decodable image of an accepted format; what the row records of it. */
async function inspectImage(
  body: Buffer,
  refuseWhenBusy: boolean,
): Promise<{ format: string; extension: string; width: number; height: number }> {
  if (body.length === 0) throw notAnImage('The upload is empty: send the image bytes as the request body.');
  const { default: sharp } = await import('sharp');
  let meta;
  try {
    // The header only (no pixel is decoded): an image over the cap is refused below, naming the cap.
    meta = await sharp(body, { limitInputPixels: false }).metadata();
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
  // Before anything decodes it: a decompression bomb guard (docs/security.md, "Bounded image decodes").
  if (meta.width * meta.height > MAX_IMAGE_PIXELS) {
    throw badRequest(pixelCapMessage(meta.width, meta.height), {
      reason: 'invalid_image',
      details: [{ field: 'body', message: `at most ${MAX_IMAGE_PIXELS / 1_000_000} megapixels` }],
    });
  }
  // The header alone says little: a truncated or corrupt file would only fail at render time.
  // Read every byte of the image data now and refuse it with the reason (docs/security.md). It is
  // shrunk as it streams, so the decode never holds the whole image; and it waits for one of the
  // process's decode slots, or, for an API upload (`refuseWhenBusy`), is refused with 429 when too
  // many wait. The CLI's own photos wait their turn: nobody would retry them.
  // What the decoder will hold, from the header (a progressive JPEG holds the whole image), and
  // a refusal for more scans than any encoder writes; no decode runs longer than its deadline.
  const costBytes = await decodeCostOf(body);
  const decoded = await decodeSlots.run(
    () =>
      sharp(body, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'truncated', sequentialRead: true })
        .timeout({ seconds: DECODE_TIMEOUT_S })
        .resize(256, 256, { fit: 'inside' })
        .raw()
        .toBuffer()
        .then(
          () => true,
          () => false,
        ),
    { refuseWhenFull: refuseWhenBusy, costBytes },
  );
  // The decoder's own words name libraries and internals: the reason is said plainly.
  if (!decoded)
    throw notAnImage('The image cannot be decoded in full: it is truncated or corrupt. Export it again and upload the whole file.');
  return { format: meta.format!, extension, width: meta.width, height: meta.height };
}

/** Stores an upload: bytes first, then the row, so a row never names bytes that are not there. */
export async function saveAsset(
  parts: AssetParts,
  tenant: string,
  body: Buffer,
  contentType: string,
  options: { refuseWhenBusy?: boolean } = {},
): Promise<AssetRecord> {
  const image = await inspectImage(body, options.refuseWhenBusy === true);
  const assetId = randomId('ast', 24);
  const file = `${assetId}.${image.extension}`;
  const sha256 = createHash('sha256').update(body).digest('hex');
  // Not caught: a store that cannot be written is a server failure (500), not the caller's.
  await parts.blobs.put(assetKey(file), body, { contentType, sha256 });
  const created = (parts.now ?? Date.now)();
  const row: AssetRow = {
    asset_id: assetId,
    tenant,
    content_type: contentType,
    format: image.format,
    width: image.width,
    height: image.height,
    size_bytes: body.length,
    sha256,
    file,
    created_at: created,
    expires_at: created + ASSET_TTL_MS,
  };
  await parts.records.assets.insert(row);
  return toRecord(row);
}

/**
 * The row of `assetId` if `tenant` owns it and it has not expired. Another tenant's asset is
 * reported exactly like a missing one, so ids cannot be probed across tenants.
 */
export async function findAsset(parts: Pick<AssetParts, 'records'>, tenant: string, assetId: string, field = 'photos'): Promise<AssetRow> {
  const missing = (): AppError =>
    badRequest(
      `Asset ${JSON.stringify(assetId.slice(0, 40))} does not exist or has expired (assets are kept 24 h): upload it again with POST /api/v1/assets.`,
      {
        reason: 'unknown_asset',
        details: [{ field, message: 'unknown or expired asset' }],
      },
    );
  if (!ASSET_ID_PATTERN.test(assetId)) throw missing();
  const row = await parts.records.assets.find(tenant, assetId);
  if (row === null) throw missing();
  return row;
}

/**
 * The job layer's asset resolver: a local file holding the asset's bytes. Local storage answers
 * the file in place; any other store downloads the asset into the job's `scratchDir` (once per
 * job and asset).
 */
export async function resolveAsset(parts: AssetParts, tenant: string, assetId: string, scratchDir: string): Promise<string> {
  const row = await findAsset(parts, tenant, assetId);
  const key = assetKey(row.file);
  if (parts.blobs instanceof LocalBlobStore) return join(parts.blobs.root, ...key.split('/'));
  const dir = join(scratchDir, 'assets');
  const path = join(dir, row.file);
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  // A request may name one asset twice (photos resolve at once): each download has its own partial file.
  const partial = `${path}.${randomBytes(4).toString('hex')}.partial`;
  const { body } = await parts.blobs.get(key);
  await pipeline(body, createWriteStream(partial, { mode: PRIVATE_FILE_MODE }));
  await rename(partial, path);
  return path;
}

/** Housekeeping: expired rows go first (so nothing resolves them any more), then their bytes. */
export async function purgeExpiredAssets(parts: AssetParts): Promise<number> {
  const rows = await parts.records.assets.takeExpired();
  for (const row of rows) await parts.blobs.delete(assetKey(row.file));
  return rows.length;
}

import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import pLimit from 'p-limit';
import sharp from 'sharp';
import { AppError, badRequest } from '../../core/errors.js';
import { workerFaultOf } from '../../core/worker-faults.js';
import { refKind } from '../../core/refs.js';
import type { Warning } from '../../core/types.js';
import type { FetchPort } from '../../net/fetch.js';
import type { LogoImage } from '../cards.js';
import type { Shot } from '../storyboard.js';
import { IMAGE_FORMAT_NAMES, MAX_IMAGE_PIXELS } from '../../core/images.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../core/paths.js';
import { decodeSlots } from '../decode-slots.js';
import { DECODE_TIMEOUT_S, decodeCostOf } from '../decode-budget.js';

/**
 * Photos and logo (docs/rendering.md): downloaded or read, decoded in full by sharp
 * (a truncated JPEG fails here instead of turning green in the video), turned upright from their
 * EXIF orientation, bounded in size, and cached by content hash in a cache shared by all jobs.
 * A broken photo is left out with a warning; none usable is a clear error before ffmpeg starts.
 */

export interface AssetContext {
  cacheDir: string;
  allowLocalFiles: boolean;
  /** The network, with the address policy the job layer chose (docs/architecture.md). */
  fetch: FetchPort;
  resolveAsset?: (assetId: string) => Promise<string>;
  signal?: AbortSignal;
}

/** A photo ready for the storyboard: upright, sRGB, at most MASTER_SIDE pixels. */
export interface MasterPhoto {
  /** sha256 of the original bytes. */
  hash: string;
  file: string;
  width: number;
  height: number;
  /** Short name for messages: the file name or the URL's last segment, never a full local path. */
  name: string;
}

/** Largest side kept: enough for the biggest motion box (portrait sweep ≈ 1.5 × 1280). */
export const MASTER_SIDE = 2048;
/** Below this short side a photo is unusable in a 720p video. */
export const MIN_PHOTO_SIDE = 200;
/** Below this short side a photo is used, but will look soft: warned. */
export const SOFT_PHOTO_SIDE = 480;
/** Largest photo accepted, in bytes and in pixels (decompression bombs; docs/security.md, "Bounded image decodes"). */
export const MAX_PHOTO_BYTES = 25 * 1024 * 1024;
export const MAX_PHOTO_PIXELS = MAX_IMAGE_PIXELS;
/** Largest logo accepted, in bytes. */
export const MAX_LOGO_BYTES = 5 * 1024 * 1024;
const CACHE_VERSION = 'v2';

/** A short, safe name for a photo reference in messages. */
export function describeRef(ref: string): string {
  if (/^https?:/i.test(ref)) {
    try {
      const url = new URL(ref);
      const last = url.pathname.split('/').filter(Boolean).pop();
      return last === undefined ? url.host : `${url.host}/…/${decodeURIComponent(last)}`.slice(0, 120);
    } catch {
      return ref.slice(0, 80);
    }
  }
  if (ref.startsWith('asset:')) return ref;
  return basename(ref);
}

/** Cached photos are the tenants' photos: private like the rest of the data directory (docs/security.md, "Local data"). */
async function writeAtomic(file: string, data: Buffer | string): Promise<void> {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temp, data, { mode: PRIVATE_FILE_MODE });
  await rename(temp, file);
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/** The bytes of a photo or logo: an http(s) URL, an `asset:<id>`, or (local mode) a file path. */
export async function readImageRef(ref: string, ctx: AssetContext, maxBytes = MAX_PHOTO_BYTES): Promise<Buffer> {
  // The validators' rule: anything with an http(s) scheme is a URL, never a local path.
  if (refKind(ref) === 'http') {
    const response = await ctx.fetch(ref, { maxBytes, timeoutMs: 20_000, signal: ctx.signal });
    if (response.status < 200 || response.status >= 300) throw new Error(`the server answered HTTP ${response.status}`);
    return response.body;
  }
  if (refKind(ref) === 'asset') {
    if (ctx.resolveAsset === undefined) throw new Error('asset references only work on an immoreel server');
    return readFile(await ctx.resolveAsset(ref.slice('asset:'.length)));
  }
  if (!ctx.allowLocalFiles) throw new Error('local files are not accepted here: give a URL or an asset:<id>');
  const info = await stat(ref).catch((error: NodeJS.ErrnoException) => {
    throw new Error(error.code === 'ENOENT' ? 'no such file' : error.message);
  });
  if (!info.isFile()) throw new Error('not a file');
  if (info.size > maxBytes) throw new Error(`larger than ${Math.round(maxBytes / 1024 / 1024)} MB`);
  return readFile(ref);
}

function explainDecodeError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/unsupported image format|bad seek|Input buffer/i.test(message)) return `it is not a ${IMAGE_FORMAT_NAMES} image`;
  if (/premature end|truncated|corrupt|unexpected end|VipsJpeg|read error|Invalid/i.test(message))
    return 'the file is truncated or corrupt';
  if (/pixel limit/i.test(message)) return `it has more than ${MAX_PHOTO_PIXELS / 1e6} megapixels, the most accepted: export it smaller`;
  return message.split('\n')[0]?.slice(0, 160) ?? 'it could not be decoded';
}

/** Decodes, orients and bounds one photo; the result is cached by the hash of its bytes. */
export async function normalizePhoto(bytes: Buffer, name: string, cacheDir: string): Promise<MasterPhoto> {
  const hash = createHash('sha256').update(bytes).digest('hex');
  const dir = join(cacheDir, 'photos');
  const file = join(dir, `${hash}-${CACHE_VERSION}.jpg`);
  const metaFile = `${file}.json`;
  if ((await exists(file)) && (await exists(metaFile))) {
    const meta = JSON.parse(await readFile(metaFile, 'utf8')) as { width: number; height: number };
    return { hash, file, width: meta.width, height: meta.height, name };
  }
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  let output: { data: Buffer; info: sharp.OutputInfo };
  try {
    // failOn 'truncated': a cut-off JPEG is an error here, not a green band in the video. One of
    // the process's decode slots, waited for (docs/security.md, "Bounded image decodes").
    const costBytes = await decodeCostOf(bytes);
    output = await decodeSlots.run(
      () =>
        sharp(bytes, { failOn: 'truncated', limitInputPixels: MAX_PHOTO_PIXELS, sequentialRead: true })
          .timeout({ seconds: DECODE_TIMEOUT_S })
          .rotate()
          .resize({ width: MASTER_SIDE, height: MASTER_SIDE, fit: 'inside', withoutEnlargement: true })
          .toColourspace('srgb')
          .flatten({ background: '#000000' })
          .jpeg({ quality: 90 })
          .toBuffer({ resolveWithObject: true }),
      { costBytes },
    );
  } catch (error) {
    throw new PhotoError(explainDecodeError(error));
  }
  await writeAtomic(file, output.data);
  await writeAtomic(metaFile, JSON.stringify({ width: output.info.width, height: output.info.height }));
  return { hash, file, width: output.info.width, height: output.info.height, name };
}

/** A photo-level problem: the photo is dropped with a warning, the render goes on. */
export class PhotoError extends Error {}

export interface LoadedPhotos {
  photos: MasterPhoto[];
  warnings: Warning[];
}

/**
 * Fetches (stage `fetching_assets`) and normalises (stage `preparing`) every photo. Broken,
 * duplicate and tiny photos are dropped with a warning; none left is BAD_REQUEST.
 */
export async function loadPhotos(
  refs: string[],
  ctx: AssetContext,
  onStage: (stage: 'fetching_assets' | 'preparing', progress: number) => void,
): Promise<LoadedPhotos> {
  const warnings: Warning[] = [];
  // `network`: the photo could not be downloaded at all (host unreachable, DNS, timeout).
  const dropped: { index: number; ref: string; reason: string; network: boolean }[] = [];
  const drop = (index: number, ref: string, reason: string, network = false): void => {
    dropped.push({ index, ref, reason, network });
  };

  const limit = pLimit(4);
  const decodeLimit = pLimit(2);
  let fetched = 0;
  onStage('fetching_assets', 0);
  const bytes = await Promise.all(
    refs.map((ref, index) =>
      limit(async () => {
        try {
          return await readImageRef(ref, ctx);
        } catch (error) {
          if (ctx.signal?.aborted) throw ctx.signal.reason ?? error;
          // Our own storage or database stayed down past the wait (docs/operations.md "Outages"): the
          // render fails retryable and refunded, not as if the customer's photo were unusable.
          if (error instanceof AppError && error.code === 'SERVICE_UNAVAILABLE') throw error;
          // A fault of the machine (no scratch space) is not the photo's: the job goes to another worker (docs/jobs.md "Worker faults").
          if (workerFaultOf(error) !== null) throw error;
          const network =
            error instanceof AppError &&
            error.code === 'UPSTREAM_ERROR' &&
            (error.reason === 'network_error' || error.reason === 'timeout');
          drop(index, ref, error instanceof AppError || error instanceof Error ? error.message.replace(/\.$/, '') : String(error), network);
          return null;
        } finally {
          fetched += 1;
          onStage('fetching_assets', fetched / refs.length);
        }
      }),
    ),
  );

  onStage('preparing', 0);
  const photos: MasterPhoto[] = [];
  const seen = new Set<string>();
  // Decoded two at a time (libvips threads already share the cores); results kept in input order.
  let normalized = 0;
  const decoded = await Promise.all(
    bytes.map((data, index) =>
      decodeLimit(async (): Promise<MasterPhoto | PhotoError | null> => {
        if (data === null) return null;
        ctx.signal?.throwIfAborted();
        try {
          return await normalizePhoto(data, describeRef(refs[index] as string), ctx.cacheDir);
        } catch (error) {
          if (error instanceof PhotoError) return error;
          throw error;
        } finally {
          normalized += 1;
          onStage('preparing', (0.5 * normalized) / bytes.length);
        }
      }),
    ),
  );
  for (const [index, photo] of decoded.entries()) {
    const ref = refs[index] as string;
    if (photo === null) continue;
    if (photo instanceof PhotoError) {
      drop(index, ref, photo.message);
      continue;
    }
    const shortSide = Math.min(photo.width, photo.height);
    if (seen.has(photo.hash)) {
      warnings.push({
        code: 'PHOTO_DUPLICATE',
        message: `Photo ${index + 1} (${photo.name}) is the same picture as an earlier one and was used once.`,
      });
      continue;
    }
    if (shortSide < MIN_PHOTO_SIDE) {
      drop(
        index,
        ref,
        `it is too small (${photo.width}x${photo.height}); a 720p video needs at least ${SOFT_PHOTO_SIDE} pixels on the short side`,
      );
      continue;
    }
    if (shortSide < SOFT_PHOTO_SIDE) {
      warnings.push({
        code: 'PHOTO_LOW_RESOLUTION',
        message: `Photo ${index + 1} (${photo.name}) is small (${photo.width}x${photo.height}) and will look soft in the video.`,
      });
    }
    seen.add(photo.hash);
    photos.push(photo);
  }
  // Reported in photo order, whatever order the downloads finished in.
  dropped.sort((a, b) => a.index - b.index);
  warnings.unshift(
    ...dropped.map((d) => ({ code: 'PHOTO_DROPPED', message: `Photo ${d.index + 1} (${describeRef(d.ref)}) was left out: ${d.reason}.` })),
  );
  if (photos.length === 0) throw noUsablePhoto(refs.length, dropped, warnings);
  return { photos, warnings };
}

/**
 * The error when no photo is left: it says why each was dropped, and when every photo failed
 * for the network it is an UPSTREAM_ERROR (exit 6, like `analyze`), not a complaint about the
 * photos. The per-photo warnings travel with it, so the failed job keeps them.
 */
function noUsablePhoto(
  count: number,
  dropped: { index: number; ref: string; reason: string; network: boolean }[],
  warnings: Warning[],
): AppError {
  const details = dropped.map((d) => ({ field: `photos[${d.index}]`, message: `${describeRef(d.ref)}: ${d.reason}` }));
  const shown = dropped.slice(0, 3).map((d) => `${count === 1 ? '' : `photo ${d.index + 1}, `}${describeRef(d.ref)}: ${d.reason}`);
  const more = dropped.length > shown.length ? `; and ${dropped.length - shown.length} more (see the job's warnings)` : '';
  const why = `${shown.join('; ')}${more}`;
  if (dropped.length > 0 && dropped.every((d) => d.network)) {
    return new AppError(
      'UPSTREAM_ERROR',
      `${count === 1 ? 'The photo could not be downloaded' : `None of the ${count} photos could be downloaded`}: ${why}. Check the internet connection (or that the photo host is up), then render again.`,
      { reason: 'photos_unreachable', details, warnings },
    );
  }
  return badRequest(
    `${count === 1 ? 'The photo could not be used' : `None of the ${count} photos could be used`}: ${why}. Give ${IMAGE_FORMAT_NAMES} photos of at least ${SOFT_PHOTO_SIDE} pixels.`,
    { reason: 'no_usable_photo', details, warnings },
  );
}

/**
 * Darkening baked into a shot's source image (text-heavy shots stay readable on bright photos): a
 * gain on the sRGB values. sharp's `modulate` scales lightness in LCh instead, which cost 55 ms per
 * still in colour conversions for a picture of the same mean level within 1 % (docs/rendering.md
 * "Where the time goes").
 */
const LOOKS: Readonly<Record<Shot['look'], { gain: number; blur: number }>> = {
  plain: { gain: 1, blur: 0 },
  dim: { gain: 0.78, blur: 0 },
  backdrop: { gain: 0.34, blur: 9 },
};
/** The blurred copy behind a photo shown whole (contain_blur). */
const BACKDROP_GAIN = 0.52;

/**
 * The still the plan moves over for one shot: the photo fitted into the shot's box (cover, or whole
 * over a blurred copy of itself), with the shot's look. Cached: the same photo in the same box is
 * prepared once for every job.
 */
export async function prepareShotSource(photo: MasterPhoto, shot: Shot, cacheDir: string): Promise<string> {
  const { width, height, fit } = shot.source;
  const look = LOOKS[shot.look];
  const key = createHash('sha256')
    .update(`${CACHE_VERSION}|${photo.hash}|${width}x${height}|${fit}|${look.gain}|${look.blur}|${BACKDROP_GAIN}`)
    .digest('hex');
  const dir = join(cacheDir, 'shots');
  const file = join(dir, `${key}.jpg`);
  if (await exists(file)) return file;
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  let image: sharp.Sharp;
  if (fit === 'contain_blur') {
    const background = await sharp(photo.file)
      .resize(width, height, { fit: 'cover' })
      .blur(Math.max(8, width / 45))
      .linear(BACKDROP_GAIN, 0)
      .toBuffer();
    const foreground = await sharp(photo.file)
      .resize(width, height, { fit: 'inside', kernel: 'lanczos3' })
      .toBuffer({ resolveWithObject: true });
    image = sharp(background).composite([
      {
        input: foreground.data,
        left: Math.round((width - foreground.info.width) / 2),
        top: Math.round((height - foreground.info.height) / 2),
      },
    ]);
    image = sharp(await image.jpeg({ quality: 95 }).toBuffer());
  } else {
    image = sharp(photo.file).resize(width, height, { fit: 'cover', position: 'centre', kernel: 'lanczos3' });
  }
  if (look.blur > 0) image = image.blur(look.blur);
  if (look.gain !== 1) image = image.linear(look.gain, 0);
  await writeAtomic(file, await image.jpeg({ quality: 92 }).toBuffer());
  return file;
}

/** The agency logo: fitted into a small box, transparency kept. */
export async function prepareLogo(ref: string, ctx: AssetContext): Promise<LogoImage> {
  const bytes = await readImageRef(ref, ctx, MAX_LOGO_BYTES);
  const hash = createHash('sha256').update(bytes).digest('hex');
  const dir = join(ctx.cacheDir, 'logos');
  const file = join(dir, `${hash}-${CACHE_VERSION}.png`);
  if (!(await exists(file))) {
    await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    let data: Buffer;
    try {
      data = await decodeSlots.run(() =>
        sharp(bytes, { failOn: 'truncated', limitInputPixels: MAX_PHOTO_PIXELS })
          .rotate()
          .resize({ width: 240, height: 96, fit: 'inside', withoutEnlargement: false })
          .png()
          .toBuffer(),
      );
    } catch (error) {
      throw new PhotoError(explainDecodeError(error));
    }
    await writeAtomic(file, data);
  }
  const buffer = await readFile(file);
  const meta = await sharp(buffer).metadata();
  return { buffer, width: meta.width ?? 0, height: meta.height ?? 0 };
}

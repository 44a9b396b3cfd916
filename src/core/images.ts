import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { badRequest } from './errors.js';

/**
 * The image formats accepted as photos and logos, in one list (docs/rendering.md, "Photos"): the
 * CLI's --photos-dir scan, the upload route, its OpenAPI description and every message that names
 * the formats read it. They are the formats the renderer's image decoders read: sharp's libvips,
 * and for HEIC (iPhone photos, HEVC in a HEIF container, which libvips' prebuilt build cannot
 * decode) libheif compiled to WebAssembly (src/render/image-decode.ts).
 */
export interface ImageFormat {
  /** As users know it, in messages. */
  readonly name: string;
  readonly mime: string;
  /** File name endings, lower case with the dot; the first is the one files are saved with. */
  readonly extensions: readonly string[];
  /** The format the decoder reports when it reads the header (AVIF is a HEIF container). */
  readonly decoded: string;
}

export const IMAGE_FORMATS: readonly ImageFormat[] = [
  { name: 'JPEG', mime: 'image/jpeg', extensions: ['.jpg', '.jpeg'], decoded: 'jpeg' },
  { name: 'PNG', mime: 'image/png', extensions: ['.png'], decoded: 'png' },
  { name: 'WebP', mime: 'image/webp', extensions: ['.webp'], decoded: 'webp' },
  { name: 'HEIC', mime: 'image/heic', extensions: ['.heic', '.heif'], decoded: 'heic' },
  { name: 'AVIF', mime: 'image/avif', extensions: ['.avif'], decoded: 'heif' },
  { name: 'TIFF', mime: 'image/tiff', extensions: ['.tif', '.tiff'], decoded: 'tiff' },
  { name: 'GIF', mime: 'image/gif', extensions: ['.gif'], decoded: 'gif' },
];

/** "JPEG, PNG, WebP, HEIC, AVIF, TIFF or GIF", for messages and help texts. */
export const IMAGE_FORMAT_NAMES = `${IMAGE_FORMATS.slice(0, -1)
  .map((f) => f.name)
  .join(', ')} or ${IMAGE_FORMATS[IMAGE_FORMATS.length - 1]?.name ?? ''}`;

/** Whether a file name ends like an accepted image ("IMG_01.JPG" does). */
export function isImageFileName(name: string): boolean {
  const lower = name.toLowerCase();
  return IMAGE_FORMATS.some((format) => format.extensions.some((extension) => lower.endsWith(extension)));
}

/** Image endings users have that are not accepted, so a folder scan can say why it skipped them. */
export const REFUSED_IMAGE_EXTENSIONS: readonly string[] = ['.svg', '.bmp', '.psd', '.raw', '.cr2', '.nef', '.dng'];

/** The largest photo or logo a server accepts (docs/api.md, POST /api/v1/assets). */
export const MAX_ASSET_BYTES = 15 * 1024 * 1024;

/**
 * The most pixels a photo or logo may have (docs/security.md, "Bounded image decodes"): every
 * phone's full-resolution photo (48–50 MP sensors: 8160 × 6120) and every common camera's fits,
 * while a decode stays within what two at a time on a small server can hold. A 720p video uses at
 * most 2048 pixels a side of any photo; anything larger is only shrunk.
 */
export const MAX_IMAGE_PIXELS = 50_000_000;

/** Why an image over MAX_IMAGE_PIXELS is refused, naming the cap and how to get under it. */
export function pixelCapMessage(width: number, height: number): string {
  const megapixels = (width * height) / 1_000_000;
  return (
    `The image is ${width} × ${height} pixels (${megapixels >= 10 ? Math.round(megapixels) : megapixels.toFixed(1)} megapixels): ` +
    `at most ${MAX_IMAGE_PIXELS / 1_000_000} megapixels are accepted (e.g. 8160 × 6120). Export it smaller; 4000 pixels a side is plenty for a video.`
  );
}

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

export interface ImageFile {
  path: string;
  bytes: Buffer;
  contentType: string;
  sha256: string;
}

/**
 * A local photo or logo file about to be sent where another machine renders it (a server's
 * assets, or the shared storage of several machines): read whole and checked, with errors that
 * name the request field and the file.
 */
export async function readImageFile(path: string, field: string): Promise<ImageFile> {
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
      `${field}: ${path} is ${(info.size / 1e6).toFixed(1)} MB; images shared with a server or other machines may be up to 15 MB. Resize it (a 1920 px JPEG is plenty for 720p).`,
      {
        reason: 'file_too_large',
        details: [{ field, message: 'larger than 15 MB' }],
      },
    );
  }
  const bytes = await readFile(path);
  const contentType = sniffImageType(bytes);
  if (contentType === null) {
    throw badRequest(`${field}: ${path} is not a ${IMAGE_FORMAT_NAMES} image.`, {
      reason: 'invalid_image',
      details: [{ field, message: 'not a supported image' }],
    });
  }
  return { path, bytes, contentType, sha256: createHash('sha256').update(bytes).digest('hex') };
}

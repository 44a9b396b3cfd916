/**
 * The image formats accepted as photos and logos, in one list (docs/rendering.md, "Photos"): the
 * CLI's --photos-dir scan, the upload route, its OpenAPI description and every message that names
 * the formats read it. They are the formats the renderer's image decoder reads. HEIC (iPhone
 * photos) is not one of them: the decoder shipped with the renderer reads AVIF but not HEVC.
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
  { name: 'AVIF', mime: 'image/avif', extensions: ['.avif'], decoded: 'heif' },
  { name: 'TIFF', mime: 'image/tiff', extensions: ['.tif', '.tiff'], decoded: 'tiff' },
  { name: 'GIF', mime: 'image/gif', extensions: ['.gif'], decoded: 'gif' },
];

/** "JPEG, PNG, WebP, AVIF, TIFF or GIF", for messages and help texts. */
export const IMAGE_FORMAT_NAMES = `${IMAGE_FORMATS.slice(0, -1)
  .map((f) => f.name)
  .join(', ')} or ${IMAGE_FORMATS[IMAGE_FORMATS.length - 1]?.name ?? ''}`;

/** Whether a file name ends like an accepted image ("IMG_01.JPG" does). */
export function isImageFileName(name: string): boolean {
  const lower = name.toLowerCase();
  return IMAGE_FORMATS.some((format) => format.extensions.some((extension) => lower.endsWith(extension)));
}

/** Image endings users have that are not accepted, so a folder scan can say why it skipped them. */
export const REFUSED_IMAGE_EXTENSIONS: readonly string[] = ['.heic', '.heif', '.svg', '.bmp', '.psd', '.raw', '.cr2', '.nef', '.dng'];

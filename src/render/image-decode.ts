import { createRequire } from 'node:module';
import sharp from 'sharp';
import { DECODE_OVERHEAD_BYTES, DECODE_TIMEOUT_S, decodeCostOf } from './decode-budget.js';

/*
 * Opening an image for sharp, HEIC included (docs/rendering.md "Photos"). sharp's bundled libvips
 * reads the HEIF container and AVIF but has no HEVC decoder, so iPhone photos (HEIC: HEVC in a
 * HEIF container) are decoded by libheif compiled to WebAssembly (the `heic-decode` package, no
 * native code), then handed to sharp as raw RGBA pixels. Everything else goes to sharp directly.
 */

/** What `immoreel doctor` says reads HEIC photos. */
export function heicDecoderDescription(): string {
  const require = createRequire(import.meta.url);
  try {
    const version = (require('libheif-js/package.json') as { version: string }).version;
    return `libheif ${version} (WebAssembly, through heic-decode)`;
  } catch {
    return 'libheif (WebAssembly, through heic-decode)';
  }
}

/** Whether the bytes are a HEIF container holding HEVC (not AVIF, which sharp reads itself). */
export function isHeic(bytes: Buffer): boolean {
  if (bytes.length < 12 || bytes.subarray(4, 8).toString('latin1') !== 'ftyp') return false;
  // The major brand and the compatible brands that follow it, up to the end of the ftyp box.
  const boxSize = Math.min(bytes.readUInt32BE(0), bytes.length, 256);
  const brands: string[] = [];
  for (let at = 8; at + 4 <= boxSize; at += 4) if (at !== 12) brands.push(bytes.subarray(at, at + 4).toString('latin1'));
  if (brands.some((b) => b === 'avif' || b === 'avis')) return false;
  return brands.some((b) => ['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis', 'mif1', 'msf1'].includes(b));
}

interface HeicImage {
  width: number;
  height: number;
  decode(): Promise<{ width: number; height: number; data: Uint8ClampedArray }>;
}
type HeicDecodeAll = (input: { buffer: Buffer }) => Promise<HeicImage[]>;

let decoder: HeicDecodeAll | null = null;
/** Loaded on first use: the WebAssembly module is 1.5 MB and most renders have no HEIC photo. */
export function loadHeicDecoder(): HeicDecodeAll {
  if (decoder === null) {
    const require = createRequire(import.meta.url);
    decoder = (require('heic-decode') as { all: HeicDecodeAll }).all;
  }
  return decoder;
}

/** The size of a HEIC image's primary picture, from its header (nothing decoded). */
export async function heicSize(bytes: Buffer): Promise<{ width: number; height: number }> {
  const images = await loadHeicDecoder()({ buffer: bytes });
  const first = images[0];
  if (first === undefined) throw new Error('the HEIC file holds no image');
  return { width: first.width, height: first.height };
}

/**
 * What decoding `bytes` will hold in memory (docs/security.md "Bounded image decodes"): libheif
 * holds the whole picture as RGBA, 4 bytes a pixel; any other format as its header says.
 */
export async function decodeCostOfImage(bytes: Buffer): Promise<number> {
  if (!isHeic(bytes)) return decodeCostOf(bytes);
  // libvips' operation cache off, as decodeCostOf turns it off for every other format.
  sharp.cache(false);
  try {
    const { width, height } = await heicSize(bytes);
    return width * height * 4 + DECODE_OVERHEAD_BYTES;
  } catch {
    // Not readable: the decode itself says why.
    return DECODE_OVERHEAD_BYTES;
  }
}

/** An opened image: its sharp pipeline and what its header says. */
export interface OpenedImage {
  image: sharp.Sharp;
  width: number;
  height: number;
  /** EXIF orientation (1 = upright). */
  orientation: number;
  hasAlpha: boolean;
}

/**
 * A sharp pipeline over the image in `bytes`. A HEIC is decoded first (its size checked against
 * `limitInputPixels` before any pixel is), as upright RGBA: libheif applies the container's
 * rotation and mirroring itself.
 */
export async function openImage(bytes: Buffer, options: sharp.SharpOptions & { limitInputPixels: number }): Promise<OpenedImage> {
  if (!isHeic(bytes)) {
    const image = sharp(bytes, options).timeout({ seconds: DECODE_TIMEOUT_S });
    const meta = await image.metadata();
    return {
      image,
      width: meta.width ?? 0,
      height: meta.height ?? 0,
      orientation: meta.orientation ?? 1,
      hasAlpha: meta.hasAlpha === true,
    };
  }
  let images: HeicImage[];
  try {
    images = await loadHeicDecoder()({ buffer: bytes });
  } catch {
    throw new Error('Input buffer: the HEIC file cannot be read: it is truncated or corrupt');
  }
  const first = images[0];
  if (first === undefined) throw new Error('Input buffer: the HEIC file holds no image');
  if (first.width * first.height > options.limitInputPixels) throw new Error('Input image exceeds pixel limit');
  let decoded: { width: number; height: number; data: Uint8ClampedArray };
  try {
    decoded = await first.decode();
  } catch {
    throw new Error('the HEIC file is truncated or corrupt');
  }
  const { data, width, height } = decoded;
  // libheif always hands back RGBA: the alpha channel counts only when some pixel is not opaque.
  let hasAlpha = false;
  for (let i = 3; i < data.length; i += 4) {
    if (data[i] !== 255) {
      hasAlpha = true;
      break;
    }
  }
  let image = sharp(Buffer.from(data.buffer, data.byteOffset, data.byteLength), {
    raw: { width, height, channels: 4 },
    limitInputPixels: options.limitInputPixels,
  }).timeout({ seconds: DECODE_TIMEOUT_S });
  if (!hasAlpha) image = image.removeAlpha();
  return { image, width, height, orientation: 1, hasAlpha };
}

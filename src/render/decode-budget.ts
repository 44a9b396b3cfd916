import { badRequest } from '../core/errors.js';

/*
 * What one image decode will really cost (docs/security.md "Bounded image decodes"), read from
 * the header before any pixel is decoded, so that the process's decode slots (./decode-slots.ts)
 * can admit decodes by the memory they need and refuse the ones no budget should pay for.
 *
 * A baseline JPEG or a plain PNG is decoded in strips as it is shrunk: little memory whatever its
 * size. A progressive JPEG is not: the decoder keeps every DCT coefficient of the whole image
 * (2 bytes each, for each component at its own sampling) until the last scan has arrived, about
 * 147 MB for a 49 MP 4:2:0 photo of 575 KB, 294 MB at 4:4:4. Each scan is a pass over all of
 * them: 2 080 scans took 24 s of CPU. Interlaced PNGs, WebP, AVIF and GIF are decoded whole.
 */

/** Scans a progressive JPEG may have: encoders write about 10 (libjpeg 10, mozjpeg up to ~12). */
export const MAX_JPEG_SCANS = 100;
/** Longest one decode may take before it is stopped (sharp's `timeout`): a 50 MP photo takes ~1 s on a busy core. */
export const DECODE_TIMEOUT_S = 20;

/** What a header says, in sharp's words (`sharp().metadata()`). */
export interface DecodeHeader {
  format?: string;
  width?: number;
  height?: number;
  channels?: number;
  isProgressive?: boolean;
  chromaSubsampling?: string;
  depth?: string;
}

/** Bytes per sample of libvips' band formats. */
const SAMPLE_BYTES: Record<string, number> = { uchar: 1, char: 1, ushort: 2, short: 2, uint: 4, int: 4, float: 4, double: 8 };
/** Rows of strips a sequential decode holds while it shrinks (libvips' tiles and the shrink's window). */
const STRIP_ROWS = 256;
/** What any decode holds besides its pixels: the decoder's tables, the output, libvips' own. */
export const DECODE_OVERHEAD_BYTES = 8 * 1024 * 1024;

/** Samples per pixel of a JPEG's components at their sampling: 4:2:0 → 1.5, 4:2:2 → 2, 4:4:4 → 3, CMYK 4:4:4:4 → 4. */
function componentSamples(header: DecodeHeader): number {
  const channels = header.channels ?? 3;
  const sampling = /^4:(\d):(\d)(?::4)?$/.exec(header.chromaSubsampling ?? '');
  if (sampling === null) return channels;
  const [, a, b] = sampling.map(Number) as [number, number, number];
  // Luma (and K) at full resolution; each chroma plane at (a/4) × (b === 0 ? 1/2 : 1).
  const chroma = (a / 4) * (b === 0 ? 0.5 : 1);
  return channels - 2 + 2 * chroma;
}

/** Bytes the decoder will hold for an image with this header (an estimate from above). */
export function decodeMemoryBytes(header: DecodeHeader): number {
  const width = header.width ?? 0;
  const height = header.height ?? 0;
  const channels = header.channels ?? 3;
  const sample = SAMPLE_BYTES[header.depth ?? 'uchar'] ?? 1;
  const whole = width * height * channels * sample;
  switch (header.format) {
    case 'jpeg':
      return (
        DECODE_OVERHEAD_BYTES +
        (header.isProgressive === true ? width * height * componentSamples(header) * 2 : width * channels * STRIP_ROWS)
      );
    case 'png':
    case 'tiff':
      return DECODE_OVERHEAD_BYTES + (header.isProgressive === true ? whole : width * channels * sample * STRIP_ROWS);
    default:
      return DECODE_OVERHEAD_BYTES + whole;
  }
}

/**
 * Scans (SOS markers) of a JPEG, counted by walking its segments: a length-prefixed segment is
 * skipped whole, and entropy-coded data only holds 0xFF as 0xFF00 or a restart marker. Linear in
 * the file's size; stops counting at `stopAt`.
 */
export function jpegScanCount(bytes: Uint8Array, stopAt = Number.POSITIVE_INFINITY): number {
  let scans = 0;
  let at = 2;
  while (at + 3 < bytes.length && scans < stopAt) {
    if (bytes[at] !== 0xff) {
      // Entropy-coded data: on to the next 0xFF.
      const next = bytes.indexOf(0xff, at + 1);
      if (next < 0) break;
      at = next;
      continue;
    }
    const marker = bytes[at + 1]!;
    // Stuffed 0xFF00, restart markers, fill bytes: inside a scan.
    if (marker === 0x00 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0xff) {
      at += marker === 0xff ? 1 : 2;
      continue;
    }
    if (marker === 0xd9) break;
    if (marker === 0xda) scans += 1;
    // Every other marker has a 2-byte length (which counts itself); a scan's data follows its header.
    at += 2 + ((bytes[at + 2]! << 8) | bytes[at + 3]!);
  }
  return scans;
}

/**
 * What decoding `bytes` will cost, from its header, or a refusal (400 `invalid_image`) for a
 * JPEG with more scans than any encoder writes. `header` is what `sharp().metadata()` read.
 */
export function decodeCost(bytes: Uint8Array, header: DecodeHeader): number {
  if (header.format === 'jpeg' && header.isProgressive === true) {
    const scans = jpegScanCount(bytes, MAX_JPEG_SCANS + 1);
    if (scans > MAX_JPEG_SCANS)
      throw badRequest(
        `The JPEG has more than ${MAX_JPEG_SCANS} progressive scans (cameras and editors write about 10): export it again as a baseline JPEG.`,
        { reason: 'invalid_image', details: [{ field: 'body', message: `more than ${MAX_JPEG_SCANS} progressive scans` }] },
      );
  }
  return decodeMemoryBytes(header);
}

let decoderConfigured = false;

/**
 * The decoder's cost of `bytes` (see `decodeCost`), its header read by sharp. The first call also
 * turns off libvips' operation cache: it kept the buffers of past decodes, and with them ~1.5 GB
 * of a burst of ten 49 MP uploads, long after (docs/security.md "Bounded image decodes").
 */
export async function decodeCostOf(bytes: Buffer): Promise<number> {
  const { default: sharp } = await import('sharp');
  if (!decoderConfigured) {
    decoderConfigured = true;
    sharp.cache(false);
  }
  let header: DecodeHeader;
  try {
    header = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    // Not readable: the decode itself says why, at the cost of its header.
    return DECODE_OVERHEAD_BYTES;
  }
  return decodeCost(bytes, header);
}

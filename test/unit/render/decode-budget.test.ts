import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { decodeCost, decodeMemoryBytes, jpegScanCount, MAX_JPEG_SCANS } from '../../../src/render/decode-budget.js';

/* What a decode will hold, from its header, and JPEGs with more scans than any encoder writes (docs/security.md "Bounded image decodes"). */

const photo = (progressive: boolean, width = 640, height = 480) =>
  sharp({ create: { width, height, channels: 3, background: '#3a6ea5' } })
    .jpeg({ progressive, quality: 80 })
    .toBuffer();

/** `jpeg` with its last scan repeated until it has `scans` of them (decoders would refuse it; the header is intact). */
function withScans(jpeg: Buffer, scans: number): Buffer {
  const lastScan = jpeg.lastIndexOf(Buffer.from([0xff, 0xda]));
  const end = jpeg.lastIndexOf(Buffer.from([0xff, 0xd9]));
  const scan = jpeg.subarray(lastScan, end);
  const have = jpegScanCount(jpeg);
  return Buffer.concat([jpeg.subarray(0, end), ...Array.from({ length: scans - have }, () => scan), jpeg.subarray(end)]);
}

describe('decode budget', () => {
  it('counts the scans of baseline and progressive JPEGs', async () => {
    expect(jpegScanCount(await photo(false))).toBe(1);
    const progressive = jpegScanCount(await photo(true));
    expect(progressive).toBeGreaterThan(1);
    expect(progressive).toBeLessThanOrEqual(12);
    expect(jpegScanCount(withScans(await photo(true), 2080))).toBe(2080);
  });

  it('counts a progressive JPEG at its whole size, a baseline one by its strips', () => {
    const header = { format: 'jpeg', width: 7000, height: 7000, channels: 3, chromaSubsampling: '4:2:0' };
    const progressive = decodeMemoryBytes({ ...header, isProgressive: true });
    // 49 MP × 1.5 samples × 2 bytes of coefficients: ~147 MB, what the decoder was measured to hold.
    expect(progressive).toBeGreaterThan(147_000_000);
    expect(progressive).toBeLessThan(160_000_000);
    expect(decodeMemoryBytes({ ...header, chromaSubsampling: '4:4:4', isProgressive: true })).toBeGreaterThan(294_000_000);
    expect(decodeMemoryBytes({ ...header, isProgressive: false })).toBeLessThan(16_000_000);
    expect(decodeMemoryBytes({ format: 'webp', width: 7000, height: 7000, channels: 4 })).toBeGreaterThan(196_000_000);
  });

  it(`refuses a JPEG of more than ${MAX_JPEG_SCANS} scans with a 400 that says so`, async () => {
    const jpeg = withScans(await photo(true), 2080);
    const header = await sharp(jpeg).metadata();
    expect(() => decodeCost(jpeg, header)).toThrow(expect.objectContaining({ httpStatus: 400, reason: 'invalid_image' }));
    expect(() => decodeCost(jpeg, header)).toThrow(/more than 100 progressive scans/);
    const ordinary = await photo(true);
    expect(decodeCost(ordinary, await sharp(ordinary).metadata())).toBeGreaterThan(0);
  });
});

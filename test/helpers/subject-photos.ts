import sharp from 'sharp';

/**
 * A photo with a known subject (docs/rendering.md "Framing"): grey noise (a texture whose
 * sharpness can be measured, with no colour) and a saturated red disc centred at (x, y), fractions
 * of its size, whose radius is 9 % of the short side.
 */
export async function photoWithSubject(width: number, height: number, x: number, y: number): Promise<Buffer> {
  const r = Math.round(Math.min(width, height) * 0.09);
  const disc = Buffer.from(`<svg width="${2 * r}" height="${2 * r}"><circle cx="${r}" cy="${r}" r="${r}" fill="#E01010"/></svg>`);
  const noise = await sharp({
    create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 120, sigma: 30 } },
  })
    .greyscale()
    .toColourspace('srgb')
    .png({ compressionLevel: 1 })
    .toBuffer();
  return sharp(noise)
    .composite([{ input: disc, left: Math.round(x * width - r), top: Math.round(y * height - r) }])
    .jpeg({ quality: 90 })
    .toBuffer();
}

/** Whether an RGB pixel is the subject's red (also darkened, blurred or half faded). */
export function isSubjectRed(r: number, g: number, b: number): boolean {
  return r - Math.max(g, b) > 40;
}

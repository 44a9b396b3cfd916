import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';

/**
 * Small, photo-like JPEGs (gradients plus grain, so the encoder has real work, unlike a flat
 * colour) written by us for render tests and the jobs benchmark.
 */
export async function makePhotos(dir: string, count = 2, width = 960, height = 720): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const files: string[] = [];
  for (let n = 0; n < count; n += 1) {
    const pixels = Buffer.alloc(width * height * 3);
    let seed = 12345 + n * 977;
    for (let y = 0; y < height; y += 1) {
      for (let x = 0; x < width; x += 1) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        const grain = (seed >> 16) % 24;
        const i = (y * width + x) * 3;
        pixels[i] = (x * 200) / width + grain + n * 30;
        pixels[i + 1] = (y * 180) / height + grain;
        pixels[i + 2] = ((x + y) * 120) / (width + height) + grain + 60;
      }
    }
    const file = join(dir, `photo-${n + 1}.jpg`);
    await sharp(pixels, { raw: { width, height, channels: 3 } })
      .jpeg({ quality: 85 })
      .toFile(file);
    files.push(file);
  }
  return files;
}

/** A short French listing text the analysis understands offline. */
export const LISTING_TEXT =
  'Appartement 95 m² à vendre à Maarif, Casablanca. 3 chambres, 2 salles de bain, terrasse, ascenseur, parking. Prix : 1 450 000 DH.';

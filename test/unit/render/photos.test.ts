import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import {
  masterSize,
  MASTER_SHORT_SIDE,
  normalizePhoto,
  prepareShotSource,
  shotEnlargement,
  type LoadedPhotos,
  type MasterPhoto,
} from '../../../src/render/assets/photos.js';
import { photoNotes } from '../../../src/render/photo-notes.js';
import { buildStoryboard, type Shot } from '../../../src/render/storyboard.js';
import { loadTemplate, stillBackground } from '../../../src/render/templates.js';
import { heifEncode } from '../../helpers/heic.js';
import { demoProperty } from '../../helpers/plan-fixtures.js';
import { photoWithSubject } from '../../helpers/subject-photos.js';

/*
 * Photos as agents have them (docs/rendering.md "Framing" and "Photos"): the subject found, the
 * resolution kept where an output needs it, HEIC decoded, transparency laid on the template's tone,
 * and every photo not shown or enlarged until soft named.
 */

const cacheDir = mkdtempSync(join(tmpdir(), 'immoreel-photos-'));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));
const classic = loadTemplate('classic');

describe('photos', () => {
  it('finds the subject of a photo at 15 % of its width (the render test does it on 3000 × 2000)', async () => {
    const photo = await normalizePhoto(await photoWithSubject(1500, 1000, 0.15, 0.5), 'salon.jpg', cacheDir);
    expect(photo.focus.x).toBeGreaterThan(0.08);
    expect(photo.focus.x).toBeLessThan(0.22);
    expect(photo.focus.y).toBeGreaterThan(0.38);
    expect(photo.focus.y).toBeLessThan(0.62);
    expect(photo).toMatchObject({ originalWidth: 1500, originalHeight: 1000, hasAlpha: false });
  });

  it('keeps a panorama its height of detail: 12000 × 2000 becomes 8448 × 1408, not 2048 × 341', () => {
    expect(masterSize(12000, 2000)).toEqual({ width: 8448, height: MASTER_SHORT_SIDE });
    expect(masterSize(3000, 2000)).toEqual({ width: 2112, height: 1408 });
    expect(masterSize(640, 480)).toEqual({ width: 640, height: 480 });
    expect(masterSize(8160, 6120)).toEqual({ width: 2048, height: 1536 });
    // Every box a still of a panorama needs is covered without enlarging it.
    const panorama = { ...masterSize(12000, 2000), originalWidth: 8448, focus: { x: 0.88, y: 0.5 } };
    for (const format of ['landscape', 'portrait', 'square'] as const) {
      const timeline = buildStoryboard({
        template: classic,
        listing: demoProperty(),
        photos: [panorama],
        format,
        durationS: 10,
        language: 'fr',
        branding: {},
        hasLogo: false,
      });
      for (const shot of timeline.shots) expect(shotEnlargement(panorama, shot)).toBeLessThanOrEqual(1.01);
    }
  });

  it('decodes a real HEIC photo (HEVC, as iPhones write it) upright, with its colours', async () => {
    const png = await sharp({ create: { width: 900, height: 600, channels: 3, background: '#2060C0' } })
      .png()
      .toBuffer();
    const photo = await normalizePhoto(heifEncode(png), 'IMG_0001.HEIC', cacheDir);
    expect([photo.width, photo.height, photo.hasAlpha]).toEqual([900, 600, false]);
    const { dominant } = await sharp(photo.file).stats();
    expect(Math.abs(dominant.b - 0xc0)).toBeLessThan(24);
    expect(Math.abs(dominant.r - 0x20)).toBeLessThan(24);
  });

  it('says what is wrong with a cut-off HEIC, without the decoder’s words', async () => {
    const png = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#20C060' } })
      .png()
      .toBuffer();
    const heic = heifEncode(png);
    await expect(normalizePhoto(heic.subarray(0, Math.round(heic.length * 0.6)), 'IMG_0002.HEIC', cacheDir)).rejects.toThrow(
      /truncated or corrupt/,
    );
  });

  it('lays a half-transparent PNG on a light tone of the template, never on black', async () => {
    // Left half fully transparent, right half a 50 % transparent dark blue.
    const width = 1200;
    const height = 800;
    const pixels = Buffer.alloc(width * height * 4);
    for (let y = 0; y < height; y += 1)
      for (let x = 0; x < width; x += 1) {
        const at = (y * width + x) * 4;
        pixels.set(x < width / 2 ? [0, 0, 0, 0] : [20, 30, 90, 128], at);
      }
    const png = await sharp(pixels, { raw: { width, height, channels: 4 } })
      .png()
      .toBuffer();
    const photo = await normalizePhoto(png, 'cutout.png', cacheDir);
    expect(photo.hasAlpha).toBe(true);
    const shot = {
      source: { width: 1280, height: 720, fit: 'cover', crop: { left: 0, top: 0.0625, width: 1, height: 0.84375 } },
      look: 'plain',
    } as unknown as Shot;
    const still = await prepareShotSource(photo, shot, cacheDir, stillBackground(classic));
    const grey = await sharp(still).greyscale().raw().toBuffer({ resolveWithObject: true });
    // No dark area: every 8 × 8 block is well above black.
    let darkest = 255;
    for (let by = 0; by < grey.info.height; by += 8)
      for (let bx = 0; bx < grey.info.width; bx += 8) {
        let sum = 0;
        for (let y = by; y < by + 8; y += 1) for (let x = bx; x < bx + 8; x += 1) sum += grey.data[y * grey.info.width + x] ?? 0;
        darkest = Math.min(darkest, sum / 64);
      }
    expect(darkest).toBeGreaterThan(90);
  });

  it('names the photos left out for the duration and past the limit, and the soft ones, in the request’s language', () => {
    const master = (width: number, height: number, name: string): MasterPhoto => ({
      hash: name,
      file: name,
      width,
      height,
      originalWidth: width,
      originalHeight: height,
      focus: { x: 0.5, y: 0.5 },
      hasAlpha: false,
      name,
    });
    const photos = [master(640, 480, 'vignette.jpg'), ...Array.from({ length: 6 }, (_, i) => master(3000, 2000, `p${i + 2}.jpg`))];
    const loaded: LoadedPhotos = { photos, indexes: photos.map((_p, i) => i), leftOut: [], warnings: [] };
    const given = [...photos.map((p) => `/photos/${p.name}`), '/photos/p8.jpg'];
    const timeline = buildStoryboard({
      template: classic,
      listing: demoProperty(),
      photos,
      format: 'portrait',
      durationS: 12,
      language: 'ar',
      branding: {},
      hasLogo: false,
    });
    const shown = new Set(timeline.shots.map((s) => s.photo));
    expect(shown.size).toBeLessThan(7);
    const warnings = photoNotes({ given, limit: 7, loaded, outputs: [{ format: 'portrait', timeline }], language: 'ar', durationS: 12 });
    const leftOut = warnings.flatMap((w) => (w.photo === undefined ? [] : [w.photo]));
    expect(leftOut.map((p) => p.index)).toEqual([...[0, 1, 2, 3, 4, 5, 6].filter((i) => !shown.has(i)), 7]);
    expect(leftOut.at(-1)).toMatchObject({ index: 7, ref: '/photos/p8.jpg', reason: 'limit' });
    expect(leftOut.filter((p) => p.reason === 'duration').every((p) => p.message.includes('ليست في الفيديو'))).toBe(true);
    // The thumbnail, enlarged about 2.7 × in portrait, is named with its own size.
    const soft = warnings.find((w) => w.code === 'PHOTO_LOW_RESOLUTION');
    expect(soft?.message).toContain('vignette.jpg، 640 × 480');
    expect(soft?.message).toContain('العمودي');
  });
});

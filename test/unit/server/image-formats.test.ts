import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { collectPhotos } from '../../../src/cli/commands/render.js';
import { AppError } from '../../../src/core/errors.js';
import { IMAGE_FORMAT_NAMES, IMAGE_FORMATS } from '../../../src/core/images.js';
import { makeHarness, type Harness } from '../../helpers/server-harness.js';
import { heifEncode } from '../../helpers/heic.js';

/*
 * One list of accepted image formats (src/core/images.ts) for the --photos-dir scan, the upload
 * route, its OpenAPI description, the messages and the docs; HEIC is one of them (decoded by
 * libheif in WebAssembly).
 */

const REPO = join(import.meta.dirname, '../../..');
let h: Harness | null = null;
const dirs: string[] = [];
afterEach(async () => {
  await h?.close();
  h = null;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function folder(files: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'immoreel-formats-'));
  dirs.push(dir);
  for (const file of files) writeFileSync(join(dir, file), 'x');
  return dir;
}

describe('accepted image formats', () => {
  it('--photos-dir takes every accepted ending, whatever the case, HEIC among them', () => {
    const dir = folder(['01.avif', '02.TIF', '03.jpeg', '04.webp', '05.heic', '06.HEIF', 'notes.txt', 'plan.svg']);
    expect(collectPhotos({ photosDir: dir }).map((file) => file.slice(dir.length + 1))).toEqual([
      '01.avif',
      '02.TIF',
      '03.jpeg',
      '04.webp',
      '05.heic',
      '06.HEIF',
    ]);
  });

  it('--photos-dir with only files of refused formats says to export them as JPEG', () => {
    const dir = folder(['plan.svg', 'scan.bmp', 'notes.txt']);
    let error: unknown;
    try {
      collectPhotos({ photosDir: dir });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('BAD_REQUEST');
    expect((error as AppError).message).toContain(
      `holds no ${IMAGE_FORMAT_NAMES} photos. plan.svg, scan.bmp: not an accepted format; export them as JPEG.`,
    );
  });

  it('the upload route and its OpenAPI description take the same list', async () => {
    h = await makeHarness();
    const doc = JSON.parse((await h.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).body) as {
      paths: Record<string, { post: { description: string; requestBody: { content: Record<string, unknown> } } }>;
    };
    const upload = doc.paths['/api/v1/assets']!.post;
    expect(Object.keys(upload.requestBody.content)).toEqual(IMAGE_FORMATS.map((format) => format.mime));
    expect(upload.description).toContain(IMAGE_FORMATS.map((format) => format.mime).join(', '));
    const { auth } = h.key();
    const avif = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#3366AA' } })
      .avif()
      .toBuffer();
    const stored = await h.app.inject({
      method: 'POST',
      url: '/api/v1/assets',
      headers: { ...auth, 'content-type': 'image/avif' },
      payload: avif,
    });
    expect(stored.statusCode, stored.body).toBe(201);
    expect(readdirSync(join(h.dataDir, 'assets')).some((name) => name.endsWith('.avif'))).toBe(true);
    // An iPhone photo (HEVC in a HEIF container), made by libheif's own encoder.
    const heic = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#CC3322' } })
      .png()
      .toBuffer()
      .then((png) => heifEncode(png));
    const iphone = await h.app.inject({
      method: 'POST',
      url: '/api/v1/assets',
      headers: { ...auth, 'content-type': 'image/heic' },
      payload: heic,
    });
    expect(iphone.statusCode, iphone.body).toBe(201);
    expect(JSON.parse(iphone.body)).toMatchObject({ asset: { format: 'heic', width: 640, height: 480 } });
    expect(readdirSync(join(h.dataDir, 'assets')).some((name) => name.endsWith('.heic'))).toBe(true);
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="640" height="480"><rect width="640" height="480"/></svg>');
    const refused = await h.app.inject({
      method: 'POST',
      url: '/api/v1/assets',
      headers: { ...auth, 'content-type': 'image/svg+xml' },
      payload: svg,
    });
    expect(refused.statusCode).toBe(400);
    expect(JSON.parse(refused.body).error.message).toContain(`send ${IMAGE_FORMAT_NAMES}.`);
  });

  it('a corrupt upload is explained without the decoder library’s words', async () => {
    h = await makeHarness();
    const { auth } = h.key();
    const whole = await sharp({
      create: { width: 640, height: 480, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } },
    })
      .jpeg()
      .toBuffer();
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/v1/assets',
      headers: { ...auth, 'content-type': 'image/jpeg' },
      payload: whole.subarray(0, whole.length / 2),
    });
    expect(res.statusCode).toBe(400);
    const { message } = JSON.parse(res.body).error as { message: string };
    expect(message).toMatch(/truncated or corrupt/);
    expect(message).not.toMatch(/vips|sharp|libjpeg|jpeglib/i);
  });

  it('the docs name the same list', () => {
    for (const file of ['docs/api.md', 'docs/remote.md', 'docs/rendering.md']) {
      const text = readFileSync(join(REPO, file), 'utf8').replace(/\s+/g, ' ');
      expect(text, file).toContain(IMAGE_FORMAT_NAMES);
      expect(text, file).not.toMatch(/AVIF, HEI[CF], TIFF/);
    }
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.js';
import { openFetch } from '../../../src/net/fetch.js';
import { loadPhotos } from '../../../src/render/assets/photos.js';
import { LocalService } from '../../../src/service/local-service.js';
import { TEST_FFMPEG } from '../../helpers/config.js';

/**
 * Each photo left out says why; when every photo failed for the network the error says so, with
 * the code of an unreachable upstream (exit 6), and the failed job keeps the per-photo reasons.
 */

let dir: string;
let server: Server;
let base: string;
/** A port nothing listens on: connections are refused, as with the network down. */
let closedPort: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'immoreel-photo-reasons-'));
  server = createServer((request, response) => {
    if (request.url === '/text.jpg') response.writeHead(200, { 'content-type': 'image/jpeg' }).end('this is not a picture');
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const unreachable = (n: number) => Array.from({ length: n }, (_, i) => `http://127.0.0.1:${closedPort}/photo-${i + 1}.jpg`);

async function failure(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('photos left out', () => {
  it('says the network is the cause when no photo could be downloaded (UPSTREAM_ERROR, exit 6)', async () => {
    const error = await failure(
      loadPhotos(unreachable(3), { cacheDir: join(dir, 'cache'), allowLocalFiles: true, fetch: openFetch }, () => {}),
    );
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.exitCode).toBe(6);
    expect(error.message).toMatch(
      /None of the 3 photos could be downloaded: photo 1, 127\.0\.0\.1:\d+\/…\/photo-1\.jpg: Could not reach 127\.0\.0\.1:\d+: the connection was refused/,
    );
    expect(error.message).toMatch(/internet connection/);
    expect(error.warnings.filter((w) => w.code === 'PHOTO_DROPPED')).toHaveLength(3);
  }, 60_000);

  it('says the one photo could not be downloaded', async () => {
    const error = await failure(
      loadPhotos(unreachable(1), { cacheDir: join(dir, 'cache'), allowLocalFiles: true, fetch: openFetch }, () => {}),
    );
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.message).toMatch(/^The photo could not be downloaded: 127\.0\.0\.1:\d+\/…\/photo-1\.jpg: Could not reach/);
  }, 60_000);

  it('names each reason when photos fail for different causes', async () => {
    const error = await failure(
      loadPhotos(
        [`${base}/missing.jpg`, `${base}/text.jpg`, unreachable(1)[0]!],
        { cacheDir: join(dir, 'cache'), allowLocalFiles: true, fetch: openFetch },
        () => {},
      ),
    );
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toMatch(/photo 1, [^,]*\/missing\.jpg: the server answered HTTP 404/);
    expect(error.message).toMatch(/photo 2, [^,]*\/text\.jpg: it is not a JPEG, PNG, WebP, HEIC, AVIF, TIFF or GIF image/);
    expect(error.message).toMatch(/photo 3, [^,]*\/photo-1\.jpg: Could not reach/);
    expect(error.details.map((d) => d.field)).toEqual(['photos[0]', 'photos[1]', 'photos[2]']);
  }, 60_000);

  it('names the file of a single photo that cannot be used, in words without library names', async () => {
    const fake = join(dir, 'salon-marocain.jpg');
    writeFileSync(fake, 'not a picture, only text saved with a .jpg name');
    const error = await failure(loadPhotos([fake], { cacheDir: join(dir, 'cache'), allowLocalFiles: true, fetch: openFetch }, () => {}));
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toMatch(
      /The photo could not be used: salon-marocain\.jpg: it is not a JPEG, PNG, WebP, HEIC, AVIF, TIFF or GIF image\./,
    );
    expect(error.message).not.toMatch(/sharp|vips|libheif/i);
    expect(error.details).toEqual([
      { field: 'photos[0]', message: 'salon-marocain.jpg: it is not a JPEG, PNG, WebP, HEIC, AVIF, TIFF or GIF image' },
    ]);
  }, 60_000);

  it("keeps every photo's reason in the failed job's warnings", async () => {
    const service = new LocalService({ ffmpeg: TEST_FFMPEG, dataDir: join(dir, 'data'), pollMs: 50 });
    try {
      const job = await service.renderVideo({
        description: 'Appartement à vendre à Maarif, Casablanca. 120 m², 3 chambres. Prix : 1 850 000 DH.',
        photos: unreachable(2),
        music: 'none',
      });
      const done = await service.waitForJob(job.job_id, { timeoutMs: 60_000 });
      expect(done.state).toBe('failed');
      expect(done.error?.code).toBe('UPSTREAM_ERROR');
      expect(done.warnings.filter((w) => w.code === 'PHOTO_DROPPED').map((w) => w.message)).toEqual([
        expect.stringMatching(/^Photo 1 .* was left out: Could not reach .*refused/),
        expect.stringMatching(/^Photo 2 .* was left out: Could not reach .*refused/),
      ]);
    } finally {
      await service.close();
    }
  }, 90_000);
});

describe('one URL rule for validators and readers', () => {
  it('reads http:/host/x as the URL the validator accepted, never as a local path', async () => {
    const { validateRenderRequest } = await import('../../../src/render/render-rules.js');
    const valid = validateRenderRequest(
      { description: 'Villa à Marrakech, 300 m²', photos: [`http:/127.0.0.1:${new URL(base).port}/text.jpg`] },
      'local',
    );
    expect(valid.photos).toEqual([`${base}/text.jpg`]);
    // Read directly (no validator in between), it is still fetched: the server answers, with text.
    const error = await failure(
      loadPhotos(
        [`http:/127.0.0.1:${new URL(base).port}/text.jpg`],
        { cacheDir: join(dir, 'cache'), allowLocalFiles: true, fetch: openFetch },
        () => {},
      ),
    );
    expect(error.message).toMatch(/text\.jpg: it is not a JPEG/);
    expect(error.message).not.toMatch(/no such file/);
  });
});

import { chmodSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resolveAsset } from '../../../src/records/assets.js';
import { normalizePhoto, prepareLogo, prepareShotSource } from '../../../src/render/assets/photos.js';
import type { Shot } from '../../../src/render/storyboard.js';
import { openServerStore } from '../../../src/records/sqlite/server-records.js';
import { makeHarness, type Harness } from '../../helpers/server-harness.js';

/** Files of the data directory are private, and uploads are decoded in full (docs/security.md). */

let h: Harness | null = null;
let savedUmask = 0;
beforeAll(() => {
  // The common default: without the fix, files come out 0644 and directories 0755.
  savedUmask = process.umask(0o022);
});
afterAll(() => process.umask(savedUmask));
afterEach(async () => {
  await h?.close();
  h = null;
});

const modeOf = (path: string): number => statSync(path).mode & 0o777;

/** Opens the server store of `dataDir`; returns the data-directory notices it emitted. */
async function noticesWhileOpening(dataDir: string): Promise<string[]> {
  const notices: string[] = [];
  const listen = (warning: Error & { code?: string }) => {
    if (warning.code === 'IMMOREEL_DATA_DIR_TIGHTENED') notices.push(warning.message);
  };
  process.on('warning', listen);
  try {
    openServerStore(dataDir).close();
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', listen);
  }
  return notices;
}

describe('data directory permissions', () => {
  it('creates directories 0700 and files 0600 under a permissive umask', async () => {
    h = await makeHarness();
    const { auth } = h.key();
    const image = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#336699' } })
      .jpeg()
      .toBuffer();
    const upload = await h.app.inject({
      method: 'POST',
      url: '/api/v1/assets',
      headers: { ...auth, 'content-type': 'image/jpeg' },
      payload: image,
    });
    expect(upload.statusCode, upload.body).toBe(201);
    expect(modeOf(h.dataDir)).toBe(0o700);
    expect(modeOf(join(h.dataDir, 'immoreel.db'))).toBe(0o600);
    expect(modeOf(join(h.dataDir, 'immoreel.db-wal'))).toBe(0o600);
    expect(modeOf(join(h.dataDir, 'assets'))).toBe(0o700);
    const assetId = (JSON.parse(upload.body) as { asset: { asset_id: string } }).asset.asset_id;
    expect(modeOf(await resolveAsset(h, 'acme', assetId, h.dataDir))).toBe(0o600);
  });

  it("keeps a render's photo cache private: cache/render/{photos,shots,logos} 0700, their files 0600", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'immoreel-perm-'));
    try {
      const cacheDir = join(dataDir, 'cache', 'render');
      const bytes = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#336699' } })
        .jpeg()
        .toBuffer();
      const master = await normalizePhoto(bytes, 'a.jpg', cacheDir);
      const shot = {
        source: { width: 160, height: 90, fit: 'cover', crop: { left: 0, top: 0.0625, width: 1, height: 0.875 } },
        look: 'plain',
      } as unknown as Shot;
      const still = await prepareShotSource(master, shot, cacheDir, '#E4EBF1');
      const logoFile = join(dataDir, 'logo.png');
      await sharp({ create: { width: 50, height: 50, channels: 4, background: '#ffffff' } }).toFile(logoFile);
      await prepareLogo(logoFile, { cacheDir, allowLocalFiles: true, fetch: () => Promise.reject(new Error('no network here')) });
      for (const dir of ['photos', 'shots', 'logos']) {
        expect(modeOf(join(cacheDir, dir)), dir).toBe(0o700);
        const files = readdirSync(join(cacheDir, dir));
        expect(files.length, dir).toBeGreaterThan(0);
        for (const file of files) expect(modeOf(join(cacheDir, dir, file)), `${dir}/${file}`).toBe(0o600);
      }
      expect(modeOf(master.file)).toBe(0o600);
      expect(modeOf(still)).toBe(0o600);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('tightens files a render left with the default umask inside a private data directory, without a notice', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'immoreel-perm-'));
    try {
      chmodSync(dataDir, 0o700);
      mkdirSync(join(dataDir, 'cache', 'render', 'shots'), { recursive: true, mode: 0o755 });
      closeSync(openSync(join(dataDir, 'cache', 'render', 'shots', 'a.jpg'), 'w', 0o644));
      const notices = await noticesWhileOpening(dataDir);
      expect(modeOf(join(dataDir, 'cache', 'render', 'shots'))).toBe(0o700);
      expect(modeOf(join(dataDir, 'cache', 'render', 'shots', 'a.jpg'))).toBe(0o600);
      expect(notices).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('tightens an existing data directory at start, with a notice', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'immoreel-perm-'));
    try {
      chmodSync(dataDir, 0o755);
      closeSync(openSync(join(dataDir, 'immoreel.db'), 'w', 0o644));
      mkdirSync(join(dataDir, 'jobs', 'job_x'), { recursive: true, mode: 0o755 });
      closeSync(openSync(join(dataDir, 'jobs', 'job_x', 'output.mp4'), 'w', 0o644));
      closeSync(openSync(join(dataDir, 'notes.txt'), 'w', 0o644));
      const notices = await noticesWhileOpening(dataDir);
      expect(modeOf(dataDir)).toBe(0o700);
      expect(modeOf(join(dataDir, 'immoreel.db'))).toBe(0o600);
      expect(modeOf(join(dataDir, 'jobs', 'job_x'))).toBe(0o700);
      expect(modeOf(join(dataDir, 'jobs', 'job_x', 'output.mp4'))).toBe(0o600);
      // Not immoreel's: left as it was.
      expect(modeOf(join(dataDir, 'notes.txt'))).toBe(0o644);
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatch(/private to you/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('POST /api/v1/assets decodes the whole image', () => {
  it('refuses a truncated JPEG with a clear error', async () => {
    h = await makeHarness();
    const { auth } = h.key();
    const whole = await sharp({
      create: { width: 640, height: 480, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } },
    })
      .jpeg()
      .toBuffer();
    const truncated = whole.subarray(0, Math.floor(whole.length / 2));
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/v1/assets',
      headers: { ...auth, 'content-type': 'image/jpeg' },
      payload: truncated,
    });
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body).error).toMatchObject({
      code: 'BAD_REQUEST',
      reason: 'invalid_image',
      message: expect.stringMatching(/truncated or corrupt/),
    });
    expect(existsSync(join(h.dataDir, 'assets')) ? readdirSync(join(h.dataDir, 'assets')) : []).toEqual([]);
  });
});

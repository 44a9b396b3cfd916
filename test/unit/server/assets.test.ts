import { existsSync, readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { purgeExpiredAssets, resolveAsset } from '../../../src/records/assets.js';
import { decodeSlots, onDecodeRefused } from '../../../src/render/decode-slots.js';
import { zeroPng } from '../../../scripts/crafted-images.js';
import { makeHarness, type Harness } from '../../helpers/server-harness.js';

let h: Harness;
afterEach(async () => h?.close());

const png = (): Promise<Buffer> =>
  sharp({ create: { width: 64, height: 48, channels: 3, background: '#336699' } })
    .png()
    .toBuffer();

interface AssetAnswer {
  asset: { asset_id: string; ref: string; width: number; height: number; format: string; size_bytes: number; expires_at: string };
}

describe('POST /api/v1/assets', () => {
  it('refuses an image over the pixel cap from its header, naming its size and the cap', async () => {
    h = await makeHarness();
    const { auth } = h.key();
    // 7072 × 7072 = 50.01 megapixels, 52 KB of deflated zeros (docs/security.md, "Bounded image decodes").
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/v1/assets',
      headers: { ...auth, 'content-type': 'image/png' },
      payload: zeroPng(7072),
    });
    expect(res.statusCode).toBe(400);
    const { error } = JSON.parse(res.body) as { error: { reason: string; message: string } };
    expect(error.reason).toBe('invalid_image');
    expect(error.message).toMatch(/^The image is 7072 × 7072 pixels \(50 megapixels\): at most 50 megapixels are accepted/);
  });

  it('answers 429 decode_queue_full with Retry-After and the envelope while every decode slot and the queue are taken', async () => {
    h = await makeHarness();
    const { auth } = h.key();
    const refused: string[] = [];
    const stop = onDecodeRefused((reason) => refused.push(reason));
    let open = (): void => {};
    const held = new Promise<void>((resolve) => (open = resolve));
    // Two decodes running and four uploads waiting, as ten parallel uploads of a large image would leave them.
    const busy = Array.from({ length: 6 }, () => decodeSlots.run(() => held, { refuseWhenFull: true }));
    try {
      const res = await h.app.inject({
        method: 'POST',
        url: '/api/v1/assets',
        headers: { ...auth, 'content-type': 'image/png' },
        payload: await png(),
      });
      expect(res.statusCode).toBe(429);
      expect(res.headers['retry-after']).toBe('2');
      expect(JSON.parse(res.body)).toMatchObject({ ok: false, error: { code: 'RATE_LIMIT_EXCEEDED', reason: 'decode_queue_full' } });
      expect(refused).toEqual(['decode_queue_full']);
    } finally {
      open();
      await Promise.all(busy);
      stop();
    }
    const again = await h.app.inject({
      method: 'POST',
      url: '/api/v1/assets',
      headers: { ...auth, 'content-type': 'image/png' },
      payload: await png(),
    });
    expect(again.statusCode).toBe(201);
  });

  it('forgets an asset after 24 h: housekeeping removes its row and its bytes', async () => {
    let clock = Date.now();
    h = await makeHarness({ now: () => clock });
    const { auth } = h.key({ tenant: 'atlas' });
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/v1/assets',
      headers: { ...auth, 'content-type': 'image/png' },
      payload: await png(),
    });
    const { asset } = JSON.parse(res.body) as AssetAnswer;
    const file = await resolveAsset(h, 'atlas', asset.asset_id, h.dataDir);
    expect(await purgeExpiredAssets(h)).toBe(0);
    expect(existsSync(file)).toBe(true);
    clock += 24 * 3_600_000;
    await expect(resolveAsset(h, 'atlas', asset.asset_id, h.dataDir)).rejects.toThrow(/does not exist or has expired/);
    expect(await purgeExpiredAssets(h)).toBe(1);
    expect(existsSync(file)).toBe(false);
  });

  it('stores an uploaded image for the tenant, 24 h, usable as asset:<id> by that tenant only', async () => {
    h = await makeHarness();
    const { auth } = h.key({ tenant: 'atlas' });
    const image = await png();
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/v1/assets',
      headers: { ...auth, 'content-type': 'image/png' },
      payload: image,
    });
    expect(res.statusCode).toBe(201);
    const { asset } = JSON.parse(res.body) as AssetAnswer;
    expect(asset).toMatchObject({ width: 64, height: 48, format: 'png', size_bytes: image.length, ref: `asset:${asset.asset_id}` });
    const hours = (Date.parse(asset.expires_at) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
    const file = await resolveAsset(h, 'atlas', asset.asset_id, h.dataDir);
    expect(readFileSync(file).equals(image)).toBe(true);
    await expect(resolveAsset(h, 'someone-else', asset.asset_id, h.dataDir)).rejects.toThrow(/does not exist or has expired/);
  });

  it('refuses what is not a raster image, a non-image Content-Type, and uploads over the limit', async () => {
    h = await makeHarness({ limits: { assetBodyLimitBytes: 2000 } });
    const { auth } = h.key();
    const upload = (payload: Buffer | string, type: string) =>
      h.app.inject({ method: 'POST', url: '/api/v1/assets', headers: { ...auth, 'content-type': type }, payload });
    const garbage = await upload(Buffer.from('definitely not a jpeg'), 'image/jpeg');
    expect(garbage.statusCode).toBe(400);
    expect(JSON.parse(garbage.body).error).toMatchObject({ code: 'BAD_REQUEST', reason: 'invalid_image' });
    const svg = await upload(
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>',
      'image/svg+xml',
    );
    expect(svg.statusCode).toBe(400);
    expect(JSON.parse(svg.body).error.reason).toBe('invalid_image');
    const json = await upload('{"photo":"x"}', 'application/json');
    expect(json.statusCode).toBe(400);
    expect(JSON.parse(json.body).error).toMatchObject({ reason: 'unsupported_media_type', details: [{ field: 'Content-Type' }] });
    const big = await upload(Buffer.alloc(5000, 1), 'image/png');
    expect(big.statusCode).toBe(413);
    expect(JSON.parse(big.body).error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('needs the preview:dispatch scope', async () => {
    h = await makeHarness();
    const { auth } = h.key({ scopes: ['preview:read'] });
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/v1/assets',
      headers: { ...auth, 'content-type': 'image/png' },
      payload: await png(),
    });
    expect(res.statusCode).toBe(403);
    expect(JSON.parse(res.body).error.reason).toBe('route_not_permitted');
  });
});

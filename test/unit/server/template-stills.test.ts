import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { makeHarness, type Harness } from '../../helpers/server-harness.js';

let h: Harness;
afterEach(async () => h?.close());

describe('GET /api/v1/templates/{name}/still', () => {
  it("draws each template's title card once, as a 640×360 JPEG per template and language, then serves it from the cache", async () => {
    h = await makeHarness({ runWorkers: false });
    const { auth } = h.key();
    const get = (path: string, headers: Record<string, string> = auth) => h.app.inject({ method: 'GET', url: path, headers });
    const classic = await get('/api/v1/templates/classic/still?language=fr');
    expect(classic.statusCode, classic.body).toBe(200);
    expect(classic.headers['content-type']).toBe('image/jpeg');
    expect(await sharp(classic.rawPayload).metadata()).toMatchObject({ format: 'jpeg', width: 640, height: 360 });
    const started = Date.now();
    const again = await get('/api/v1/templates/classic/still?language=fr');
    expect(again.rawPayload.equals(classic.rawPayload)).toBe(true);
    expect(Date.now() - started, 'read from the cache, not drawn again').toBeLessThan(1000);
    expect((await get('/api/v1/templates/classic/still', { ...auth, 'if-none-match': String(classic.headers.etag) })).statusCode).toBe(304);
    // Another template or language is another picture.
    const luxury = await get('/api/v1/templates/luxury/still?language=fr');
    const arabic = await get('/api/v1/templates/classic/still?language=ar');
    expect(luxury.rawPayload.equals(classic.rawPayload)).toBe(false);
    expect(arabic.rawPayload.equals(classic.rawPayload)).toBe(false);

    const unknown = await get('/api/v1/templates/..%2Fetc/still');
    expect(unknown.statusCode).toBe(404);
    expect(JSON.parse(unknown.body).error).toMatchObject({ code: 'NOT_FOUND', reason: 'unknown_template' });
    expect(JSON.parse(unknown.body).error.message).toContain('classic, luxury, social');
    expect((await get('/api/v1/templates/classic/still?language=de')).statusCode).toBe(400);
    expect((await get('/api/v1/templates/classic/still', {})).statusCode).toBe(401);
  }, 60_000);
});

import { afterEach, describe, expect, it } from 'vitest';
import { LISTING_TEXT, makeHarness, type Harness } from '../../helpers/server-harness.js';
import { stableStringify } from '../../../src/core/hash.js';

/** Bodies an attacker can send that used to give a 500, a charge or a stored megabyte (docs/security.md). */

let h: Harness;
afterEach(async () => h?.close());

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 0; i < depth; i += 1) value = { a: value };
  return value;
}

const LISTING = {
  title: 'Appartement 120 m² à Maarif',
  city: 'Casablanca',
  district: 'Maarif',
  price_mad: 1_850_000,
  currency: 'MAD',
  features: ['Terrasse'],
  marketing_angles: [],
  photos: ['https://cdn.example.com/1.jpg'],
};

async function render(body: unknown, headers: Record<string, string> = {}) {
  const { auth } = h.key();
  const answer = await h.app.inject({
    method: 'POST',
    url: '/api/v1/render-video',
    headers: { ...auth, 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
  return {
    status: answer.statusCode,
    body: JSON.parse(answer.body) as { error?: { code: string; details: { field: string; message: string }[] } },
  };
}

describe('deeply nested JSON', () => {
  it('is a 400 naming metadata, with or without an Idempotency-Key', async () => {
    h = await makeHarness();
    for (const headers of [{}, { 'idempotency-key': 'deep-metadata-1' }] as Record<string, string>[]) {
      const { status, body } = await render({ description: LISTING_TEXT, metadata: nested(4000) }, headers);
      expect(status).toBe(400);
      expect(body.error?.code).toBe('BAD_REQUEST');
      expect(body.error?.details).toContainEqual({ field: 'metadata', message: expect.stringMatching(/nested more than \d+ levels/) });
    }
  });

  it('is a 400 naming listing when its free-form objects nest too deep', async () => {
    h = await makeHarness();
    const { status, body } = await render({ listing: { ...LISTING, market: nested(4000) } }, { 'idempotency-key': 'deep-listing-1' });
    expect(status).toBe(400);
    expect(body.error?.details.map((d) => d.field)).toContain('listing');
  });

  it('hashes a 100 000-level value without overflowing the stack', () => {
    expect(stableStringify(nested(100_000))).toMatch(/^\{"a":\{"a":/);
    expect(stableStringify({ b: [1, { d: 2, c: undefined }], a: 'x' })).toBe('{"a":"x","b":[1,{"d":2}]}');
  });
});

describe('listing field limits', () => {
  it('refuses a 1 MB title and 1 MB of features, naming each field', async () => {
    h = await makeHarness();
    const big = 'x'.repeat(1024 * 1024);
    const title = await render({ listing: { ...LISTING, title: big } });
    expect(title.status).toBe(400);
    expect(title.body.error?.details.map((d) => d.field)).toContain('listing');
    const features = await render({ listing: { ...LISTING, features: Array.from({ length: 200 }, () => 'Piscine chauffée') } });
    expect(features.status).toBe(400);
    expect(features.body.error?.details.map((d) => d.field)).toContain('listing.features');
    const longTitle = await render({ listing: { ...LISTING, title: 'Villa '.repeat(100) } });
    expect(longTitle.status).toBe(400);
    expect(longTitle.body.error?.details.map((d) => d.field)).toContain('listing.title');
  });
});

describe('an idempotent retry once the quota is spent', () => {
  it('replays the stored answer instead of refusing it for quota', async () => {
    h = await makeHarness();
    const { auth, keyId } = h.key({ monthlyQuota: 1 });
    const send = () =>
      h.app.inject({
        method: 'POST',
        url: '/api/v1/analyze',
        headers: { ...auth, 'idempotency-key': 'retry-after-quota-1' },
        payload: { description: LISTING_TEXT },
      });
    const first = await send();
    expect(first.statusCode, first.body).toBe(200);
    const retry = await send();
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(h.store.usage.used(keyId)).toBe(1);
    // A new request is still refused: the quota is spent.
    const fresh = await h.app.inject({
      method: 'POST',
      url: '/api/v1/analyze',
      headers: { ...auth, 'idempotency-key': 'another-key-2' },
      payload: { description: LISTING_TEXT },
    });
    expect(fresh.statusCode).toBe(403);
  });
});

describe('control and bidi-override characters', () => {
  const UNSAFE =
    // eslint-disable-next-line no-control-regex -- looking for control characters is the point
    /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

  it('never reach an analysis answer', async () => {
    h = await makeHarness();
    const { auth } = h.key();
    const description = `\u202EVilla\u0000 à vendre à Marrakech\u2066, 300 m², 5 chambres \uD800 piscine. Prix : 4 500 000 DH.\u0007`;
    const res = await h.app.inject({ method: 'POST', url: '/api/v1/analyze', headers: auth, payload: { description } });
    expect(res.statusCode, res.body).toBe(200);
    const text = JSON.stringify(JSON.parse(res.body));
    expect(text).toContain('Villa');
    // JSON.stringify escapes lone surrogates and controls as \u sequences: look at the parsed strings.
    const strings: string[] = [];
    JSON.parse(res.body, (_key, value: unknown) => (typeof value === 'string' && strings.push(value), value));
    expect(strings.filter((s) => UNSAFE.test(s))).toEqual([]);
  });

  it('are stripped from branding and listing texts drawn on the video', async () => {
    h = await makeHarness();
    const { auth } = h.key();
    const body = {
      listing: { ...LISTING, title: 'Villa\u202E 4 chambres\u0000', features: ['Piscine\u2067'] },
      branding: { agency_name: '\u202Eeilibommi saltA', agent_name: 'Salma\uDC00' },
    };
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/v1/render-video',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
    expect(res.statusCode, res.body).toBe(202);
    const stored = h.store.db.prepare('SELECT request_json FROM jobs').get() as { request_json: string };
    const request = JSON.parse(stored.request_json) as {
      listing: { title: string; features: string[] };
      branding: { agency_name: string; agent_name: string };
    };
    expect(request.listing.title).toBe('Villa 4 chambres');
    expect(request.listing.features).toEqual(['Piscine']);
    expect(request.branding).toMatchObject({ agency_name: 'eilibommi saltA', agent_name: 'Salma' });
  });
});

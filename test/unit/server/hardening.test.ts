import { afterEach, describe, expect, it } from 'vitest';
import { stableStringify } from '../../../src/jobs/hash.js';
import { LISTING_TEXT, makeHarness, type Harness } from './harness.js';

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
  features: ['Terrasse'],
  marketing_angles: [],
  photos: ['https://cdn.example.com/1.jpg'],
};

async function render(body: unknown, headers: Record<string, string> = {}) {
  const { auth } = h.key();
  const answer = await h.app.inject({ method: 'POST', url: '/api/v1/render-video', headers: { ...auth, 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) });
  return { status: answer.statusCode, body: JSON.parse(answer.body) as { error?: { code: string; details: { field: string; message: string }[] } } };
}

describe('deeply nested JSON', () => {
  it('is a 400 naming metadata, with or without an Idempotency-Key', async () => {
    h = makeHarness();
    for (const headers of [{}, { 'idempotency-key': 'deep-metadata-1' }] as Record<string, string>[]) {
      const { status, body } = await render({ description: LISTING_TEXT, metadata: nested(4000) }, headers);
      expect(status).toBe(400);
      expect(body.error?.code).toBe('BAD_REQUEST');
      expect(body.error?.details).toContainEqual({ field: 'metadata', message: expect.stringMatching(/nested more than \d+ levels/) });
    }
  });

  it('is a 400 naming listing when its free-form objects nest too deep', async () => {
    h = makeHarness();
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
    h = makeHarness();
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
    h = makeHarness();
    const { auth, keyId } = h.key({ monthlyQuota: 1 });
    const send = () => h.app.inject({ method: 'POST', url: '/api/v1/analyze', headers: { ...auth, 'idempotency-key': 'retry-after-quota-1' }, payload: { description: LISTING_TEXT } });
    const first = await send();
    expect(first.statusCode, first.body).toBe(200);
    const retry = await send();
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(h.store.usage.used(keyId)).toBe(1);
    // A new request is still refused: the quota is spent.
    const fresh = await h.app.inject({ method: 'POST', url: '/api/v1/analyze', headers: { ...auth, 'idempotency-key': 'another-key-2' }, payload: { description: LISTING_TEXT } });
    expect(fresh.statusCode).toBe(403);
  });
});

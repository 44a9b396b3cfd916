import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { TokenBucketLimiter } from '../../../src/records/rate-limit.js';
import { seededRandom } from '../../../scripts/prng.js';
import { LISTING_TEXT, makeHarness, type Harness } from '../../helpers/server-harness.js';

let h: Harness;
afterEach(async () => h?.close());

const jobOf = (body: string): { job_id: string; state: string } => (JSON.parse(body) as { job: { job_id: string; state: string } }).job;
const errorOf = (body: string): { code: string; message: string; reason?: string; details: { field: string; message: string }[] } =>
  JSON.parse(body).error;

async function succeededJob(auth: Record<string, string>): Promise<string> {
  const created = await h.app.inject({
    method: 'POST',
    url: '/api/v1/render-video',
    headers: auth,
    payload: { description: LISTING_TEXT, photos: ['https://cdn.example.com/photo-1.jpg'] },
  });
  expect(created.statusCode, created.body).toBe(202);
  const id = jobOf(created.body).job_id;
  for (let i = 0; i < 200; i += 1) {
    const res = await h.app.inject({ method: 'GET', url: `/api/v1/jobs/${id}`, headers: auth });
    if (jobOf(res.body).state === 'succeeded') return id;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`job ${id} did not succeed`);
}

describe('CORS', () => {
  it('is off by default: no Access-Control-* header, preflight is not answered', async () => {
    h = await makeHarness();
    const preflight = await h.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/analyze',
      headers: {
        origin: 'https://crm.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(preflight.statusCode).toBe(404);
    expect(Object.keys(preflight.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    const health = await h.app.inject({ method: 'GET', url: '/api/v1/health', headers: { origin: 'https://crm.example.com' } });
    expect(health.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers preflights and exposes headers for the configured origins only, never with credentials', async () => {
    h = await makeHarness({ corsOrigins: ['https://crm.example.com'] });
    const { auth } = h.key();
    const preflight = await h.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/analyze',
      headers: {
        origin: 'https://crm.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,idempotency-key',
      },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://crm.example.com');
    expect(String(preflight.headers['access-control-allow-methods'])).toContain('POST');
    expect(String(preflight.headers['access-control-allow-headers']).toLowerCase()).toContain('idempotency-key');
    expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();

    const call = await h.app.inject({
      method: 'POST',
      url: '/api/v1/analyze',
      headers: { ...auth, origin: 'https://crm.example.com' },
      payload: { description: LISTING_TEXT },
    });
    expect(call.statusCode).toBe(200);
    expect(call.headers['access-control-allow-origin']).toBe('https://crm.example.com');
    expect(String(call.headers['access-control-expose-headers'])).toContain('RateLimit-Remaining');

    const stranger = await h.app.inject({ method: 'GET', url: '/api/v1/health', headers: { origin: 'https://evil.example.net' } });
    expect(stranger.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('conditional requests', () => {
  it('gives job reads an ETag and answers If-None-Match with 304 until the job changes', async () => {
    h = await makeHarness({ runWorkers: false });
    const { auth } = h.key();
    const created = await h.app.inject({
      method: 'POST',
      url: '/api/v1/render-video',
      headers: auth,
      payload: { description: LISTING_TEXT, photos: ['https://cdn.example.com/photo-1.jpg'] },
    });
    const id = jobOf(created.body).job_id;
    const first = await h.app.inject({ method: 'GET', url: `/api/v1/jobs/${id}`, headers: auth });
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const same = await h.app.inject({ method: 'GET', url: `/api/v1/jobs/${id}`, headers: { ...auth, 'if-none-match': etag } });
    expect(same.statusCode).toBe(304);
    expect(same.body).toBe('');
    expect(same.headers.etag).toBe(etag);
    expect(same.headers['retry-after']).toBe('5');
    // Canceling changes the job: the old tag no longer matches.
    await h.app.inject({ method: 'POST', url: `/api/v1/jobs/${id}/cancel`, headers: auth });
    const changed = await h.app.inject({ method: 'GET', url: `/api/v1/jobs/${id}`, headers: { ...auth, 'if-none-match': etag } });
    expect(changed.statusCode).toBe(200);
    expect(jobOf(changed.body).state).toBe('canceled');
    expect(changed.headers.etag).not.toBe(etag);
  });

  it('answers If-None-Match on the video with 304, and If-Range with a stale validator with the whole file', async () => {
    h = await makeHarness();
    const { auth } = h.key();
    const id = await succeededJob(auth);
    const url = `/api/v1/jobs/${id}/video`;
    const whole = await h.app.inject({ method: 'GET', url, headers: auth });
    const etag = String(whole.headers.etag);
    const lastModified = String(whole.headers['last-modified']);
    expect((await h.app.inject({ method: 'GET', url, headers: { ...auth, 'if-none-match': etag } })).statusCode).toBe(304);
    expect((await h.app.inject({ method: 'GET', url, headers: { ...auth, 'if-none-match': `"other", W/${etag}` } })).statusCode).toBe(304);

    const current = await h.app.inject({ method: 'GET', url, headers: { ...auth, range: 'bytes=0-99', 'if-range': etag } });
    expect(current.statusCode).toBe(206);
    expect(current.rawPayload.length).toBe(100);
    const byDate = await h.app.inject({ method: 'GET', url, headers: { ...auth, range: 'bytes=0-99', 'if-range': lastModified } });
    expect(byDate.statusCode).toBe(206);
    const stale = await h.app.inject({ method: 'GET', url, headers: { ...auth, range: 'bytes=0-99', 'if-range': '"an-older-video"' } });
    expect(stale.statusCode).toBe(200);
    expect(stale.rawPayload.length).toBe(1000);
    const weak = await h.app.inject({ method: 'GET', url, headers: { ...auth, range: 'bytes=0-99', 'if-range': `W/${etag}` } });
    expect(weak.statusCode).toBe(200);
  });
});

describe('pacing', () => {
  it('never refuses a client sending exactly the documented rate with ±200 ms of jitter, over 3 simulated minutes', async () => {
    let clock = Date.parse('2026-05-04T10:00:00Z');
    h = await makeHarness({ now: () => clock });
    const { auth } = h.key();
    const random = seededRandom(13);
    // 60 analyses a minute: one every second, each sent up to 200 ms early or late.
    const start = clock;
    const statuses: number[] = [];
    for (let i = 0; i < 180; i += 1) {
      clock = start + i * 1000 + Math.round((random() * 2 - 1) * 200);
      const res = await h.app.inject({ method: 'POST', url: '/api/v1/analyze', headers: auth, payload: {} });
      statuses.push(res.statusCode);
    }
    expect(statuses.filter((s) => s === 429)).toEqual([]);
    expect(new Set(statuses)).toEqual(new Set([400]));
  });

  it('keeps the limit: past the burst, a client going faster than the rate is refused with Retry-After', () => {
    let clock = 0;
    const limiter = new TokenBucketLimiter(() => clock);
    const policy = { name: 'analyze', limit: 60, windowMs: 60_000 };
    for (let i = 0; i < 60; i += 1) expect(limiter.take(policy, 'k').allowed).toBe(true);
    const refused = limiter.take(policy, 'k');
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterS: 1 });
    // Two a second for a minute: about half are refused.
    let allowed = 0;
    for (let i = 0; i < 120; i += 1) {
      clock += 500;
      if (limiter.take(policy, 'k').allowed) allowed += 1;
    }
    expect(allowed).toBe(60);
  });
});

describe('small surprises', () => {
  it('accepts POST /jobs/{id}/cancel with Content-Type: application/json and no body', async () => {
    h = await makeHarness({ runWorkers: false });
    const { auth } = h.key();
    const id = jobOf(
      (
        await h.app.inject({
          method: 'POST',
          url: '/api/v1/render-video',
          headers: auth,
          payload: { description: LISTING_TEXT, photos: ['https://cdn.example.com/photo-1.jpg'] },
        })
      ).body,
    ).job_id;
    const canceled = await h.app.inject({
      method: 'POST',
      url: `/api/v1/jobs/${id}/cancel`,
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '',
    });
    expect(canceled.statusCode, canceled.body).toBe(200);
    expect(jobOf(canceled.body).state).toBe('canceled');
    // Routes that take a body still refuse an empty one.
    const empty = await h.app.inject({
      method: 'POST',
      url: '/api/v1/analyze',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '',
    });
    expect(empty.statusCode).toBe(400);
  });

  it('answers a wrong method on a known route with 405 and Allow, and a retired route names the method called', async () => {
    h = await makeHarness();
    const wrong = await h.app.inject({ method: 'DELETE', url: '/api/v1/jobs/job_01jabcdefghjkmnpqrstvwxyz0' });
    expect(wrong.statusCode).toBe(405);
    expect(wrong.headers.allow).toBe('GET, HEAD');
    expect(errorOf(wrong.body)).toMatchObject({ code: 'METHOD_NOT_ALLOWED', reason: 'method_not_allowed' });
    const analyze = await h.app.inject({ method: 'GET', url: '/api/v1/analyze' });
    expect(analyze.statusCode).toBe(405);
    expect(analyze.headers.allow).toBe('POST');
    expect((await h.app.inject({ method: 'GET', url: '/api/v1/no-such-route' })).statusCode).toBe(404);

    const retired = await h.app.inject({ method: 'PUT', url: '/api/v1/campaigns/generate' });
    expect(retired.statusCode).toBe(410);
    expect(errorOf(retired.body).message).toMatch(/^PUT \/api\/v1\/campaigns\/generate was retired/);
  });

  it('says plainly what is missing when /analyze gets {}', async () => {
    h = await makeHarness();
    const { auth } = h.key();
    const res = await h.app.inject({ method: 'POST', url: '/api/v1/analyze', headers: auth, payload: {} });
    expect(res.statusCode).toBe(400);
    const error = errorOf(res.body);
    expect(error.details).toEqual([{ field: 'url', message: 'is missing: give a listing url, a saved page (html) or a description' }]);
    expect(error.message).toBe('Invalid analysis request: url is missing: give a listing url, a saved page (html) or a description.');
  });

  it('compresses answers with brotli or gzip when the client asks', async () => {
    h = await makeHarness();
    const plain = await h.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    const br = await h.app.inject({ method: 'GET', url: '/api/v1/openapi.json', headers: { 'accept-encoding': 'br, gzip' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 4);
    expect(JSON.parse(brotliDecompressSync(br.rawPayload).toString())).toEqual(JSON.parse(plain.body));
    const gz = await h.app.inject({ method: 'GET', url: '/api/v1/openapi.json', headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gz.rawPayload).toString())).toEqual(JSON.parse(plain.body));
  });
});

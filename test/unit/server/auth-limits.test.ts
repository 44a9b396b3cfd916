import { afterEach, describe, expect, it } from 'vitest';
import { PrometheusMetrics } from '../../../src/server/prometheus.js';
import { sample } from '../../helpers/prometheus-text.js';
import { LISTING_TEXT, makeHarness, type Harness } from '../../helpers/server-harness.js';

let h: Harness;
afterEach(async () => h?.close());

interface Envelope {
  error: { code: string; reason?: string; message: string; resets_at?: string };
}
const errorOf = (body: string): Envelope['error'] => (JSON.parse(body) as Envelope).error;
/** A body that fails validation fast: limits and auth are decided before the body is even parsed. */
const BAD_BODY = { description: 'x', language: 'zz' };

describe('authentication', () => {
  it('answers 401 with WWW-Authenticate for missing, malformed, unknown and revoked keys', async () => {
    h = await makeHarness();
    const { auth, keyId } = h.key();
    const call = (headers: Record<string, string>) => h.app.inject({ method: 'GET', url: '/api/v1/me', headers });

    const missing = await call({});
    expect(missing.statusCode).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="immoreel"');
    expect(errorOf(missing.body)).toMatchObject({ code: 'UNAUTHORIZED', reason: 'missing_key' });

    const malformed = await call({ authorization: 'Basic dXNlcjpwYXNz' });
    expect(malformed.statusCode).toBe(401);
    expect(errorOf(malformed.body).reason).toBe('malformed_header');
    expect(malformed.headers['www-authenticate']).toContain('error="invalid_request"');

    const unknown = await call({ authorization: `Bearer imk_${'A'.repeat(43)}` });
    expect(unknown.statusCode).toBe(401);
    expect(errorOf(unknown.body).reason).toBe('invalid_key');
    expect(unknown.headers['www-authenticate']).toContain('error="invalid_token"');

    expect((await call(auth)).statusCode).toBe(200);
    h.store.keys.revoke(keyId);
    const revoked = await call(auth);
    expect(revoked.statusCode).toBe(401);
    expect(errorOf(revoked.body).reason).toBe('invalid_key');
  });

  it('authenticates before reading the body: garbage from an anonymous caller is a 401, not a 400', async () => {
    h = await makeHarness();
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/v1/analyze',
      headers: { 'content-type': 'application/json' },
      payload: '{not json',
    });
    expect(res.statusCode).toBe(401);
  });

  it('stores only a hash of the key and reports who is calling on /me', async () => {
    h = await makeHarness();
    const { apiKey, auth, keyId } = h.key({ tenant: 'agence-atlas', preview: true });
    const raw = JSON.stringify(h.store.db.prepare('SELECT * FROM server_api_keys').all());
    expect(raw).not.toContain(apiKey);
    expect(raw).not.toContain(apiKey.slice(4, 30));
    const me = await h.app.inject({ method: 'GET', url: '/api/v1/me', headers: auth });
    const body = JSON.parse(me.body) as { key: Record<string, unknown>; quota: Record<string, unknown> };
    expect(body.key).toMatchObject({
      key_id: keyId,
      tenant: 'agence-atlas',
      plan: 'preview',
      scopes: ['preview:read', 'preview:dispatch'],
    });
    expect(body.quota).toMatchObject({ limit: 1000, used: 0 });
  });
});

describe('scopes and quotas', () => {
  it('gives a preview key 403 INSUFFICIENT_SCOPE on /usage, a standard key its usage', async () => {
    h = await makeHarness();
    const preview = h.key({ tenant: 'sandbox', preview: true });
    const denied = await h.app.inject({ method: 'GET', url: '/api/v1/usage', headers: preview.auth });
    expect(denied.statusCode).toBe(403);
    expect(errorOf(denied.body)).toMatchObject({ code: 'INSUFFICIENT_SCOPE', reason: 'billing_scope' });
    expect(denied.headers['www-authenticate']).toContain('error="insufficient_scope"');
    const standard = h.key({ tenant: 'sandbox' });
    const usage = await h.app.inject({ method: 'GET', url: '/api/v1/usage', headers: standard.auth });
    expect(usage.statusCode).toBe(200);
    const body = JSON.parse(usage.body) as { usage: { tenant: string; keys: { key_id: string }[] } };
    expect(body.usage.tenant).toBe('sandbox');
    expect(body.usage.keys.map((k) => k.key_id).sort()).toEqual([preview.keyId, standard.keyId].sort());
  });

  it("gives a key without the route's scope 403 QUOTA_EXCEEDED route_not_permitted", async () => {
    h = await makeHarness();
    const readOnly = h.key({ scopes: ['preview:read'] });
    const res = await h.app.inject({ method: 'POST', url: '/api/v1/analyze', headers: readOnly.auth, payload: BAD_BODY });
    expect(res.statusCode).toBe(403);
    expect(errorOf(res.body)).toMatchObject({ code: 'QUOTA_EXCEEDED', reason: 'route_not_permitted' });
    const noBilling = h.key({ scopes: ['preview:read', 'preview:dispatch'] });
    const usage = await h.app.inject({ method: 'GET', url: '/api/v1/usage', headers: noBilling.auth });
    expect(errorOf(usage.body)).toMatchObject({ code: 'QUOTA_EXCEEDED', reason: 'route_not_permitted' });
  });

  it('counts answered requests against the monthly quota, refunds failed ones, and refuses when spent', async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    h = await makeHarness({ metrics });
    const { auth, keyId } = h.key({ monthlyQuota: 2 });
    const ok = () => h.app.inject({ method: 'POST', url: '/api/v1/analyze', headers: auth, payload: { description: LISTING_TEXT } });
    const bad = await h.app.inject({ method: 'POST', url: '/api/v1/analyze', headers: auth, payload: BAD_BODY });
    expect(bad.statusCode).toBe(400);
    expect(h.store.usage.used(keyId)).toBe(0);
    expect((await ok()).statusCode).toBe(200);
    expect((await ok()).statusCode).toBe(200);
    const spent = await ok();
    expect(spent.statusCode).toBe(403);
    const error = errorOf(spent.body);
    expect(error).toMatchObject({ code: 'QUOTA_EXCEEDED', reason: 'monthly_quota' });
    expect(Date.parse(String(error.resets_at))).toBeGreaterThan(Date.now());
    expect(h.store.usage.used(keyId)).toBe(2);
    // The operator sees the refusal, and only it (docs/operations.md "Metrics").
    const { text } = await metrics.scrape();
    expect(sample(text, 'immoreel_refusals_total', 'reason="quota"')).toBe(1);
    expect(sample(text, 'immoreel_refusals_total', 'reason="rate_limit"')).toBe(0);
    // Reads stay possible with a spent quota: the caller can still fetch what it paid for.
    expect((await h.app.inject({ method: 'GET', url: '/api/v1/me', headers: auth })).statusCode).toBe(200);
  });
});

describe('rate limits', () => {
  it('refuses the analyze request past the limit with 429, Retry-After and RateLimit headers, then recovers', async () => {
    let clock = Date.parse('2026-05-04T10:00:00Z');
    const metrics = new PrometheusMetrics({ processMetrics: false });
    h = await makeHarness({ now: () => clock, limits: { analyzePerWindow: 5 }, metrics });
    const { auth } = h.key();
    const call = () => h.app.inject({ method: 'POST', url: '/api/v1/analyze', headers: auth, payload: BAD_BODY });
    // A bucket of 5 tokens, refilled at 5 per minute (one every 12 s): a burst of 5 passes.
    for (let i = 1; i <= 5; i += 1) {
      const res = await call();
      expect(res.statusCode).toBe(400);
      expect(res.headers['ratelimit-policy']).toBe('"analyze";q=5;w=60');
      // t: seconds until the bucket is full again.
      expect(res.headers.ratelimit).toBe(`"analyze";r=${5 - i};t=${12 * i}`);
      expect(res.headers['ratelimit-limit']).toBe('5');
      expect(res.headers['ratelimit-remaining']).toBe(String(5 - i));
      expect(res.headers['ratelimit-reset']).toBe(String(12 * i));
    }
    clock += 1000;
    const limited = await call();
    expect(limited.statusCode).toBe(429);
    expect(errorOf(limited.body)).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', reason: 'analyze_rate' });
    expect(limited.headers['retry-after']).toBe('11');
    expect(limited.headers.ratelimit).toBe('"analyze";r=0;t=59');
    expect(sample((await metrics.scrape()).text, 'immoreel_refusals_total', 'reason="rate_limit"')).toBe(1);
    clock += 11_000;
    expect((await call()).statusCode).toBe(400);
  });

  it('keeps each key and each route family in its own budget', async () => {
    const clock = Date.parse('2026-05-04T10:00:00Z');
    h = await makeHarness({ now: () => clock, limits: { analyzePerWindow: 2, jobReadsPerWindow: 3 } });
    const a = h.key({ tenant: 'a' });
    const b = h.key({ tenant: 'b' });
    const analyze = (auth: Record<string, string>) =>
      h.app.inject({ method: 'POST', url: '/api/v1/analyze', headers: auth, payload: BAD_BODY });
    const poll = (auth: Record<string, string>) =>
      h.app.inject({ method: 'GET', url: '/api/v1/jobs/job_01jabcdefghjkmnpqrstvwxyz0', headers: auth });
    await analyze(a.auth);
    await analyze(a.auth);
    expect((await analyze(a.auth)).statusCode).toBe(429);
    expect((await analyze(b.auth)).statusCode).toBe(400);
    for (let i = 0; i < 3; i += 1) expect((await poll(a.auth)).statusCode).toBe(404);
    const tooFast = await poll(a.auth);
    expect(tooFast.statusCode).toBe(429);
    expect(errorOf(tooFast.body).reason).toBe('job_reads_rate');
    expect(tooFast.headers['retry-after']).toBeDefined();
  });
});

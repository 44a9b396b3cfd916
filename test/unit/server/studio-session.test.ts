import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { csrfTokenFor } from '../../../src/server/studio/session.js';
import { LISTING_TEXT, makeHarness, type Harness } from '../../helpers/server-harness.js';

/** The Studio's cookie sign-in as a browser would use it, and as a hostile page would try to. */

let h: Harness;
let apiKey: string;
const HOST = 'studio.test';

beforeEach(async () => {
  h = await makeHarness();
  apiKey = h.key().apiKey;
});
afterEach(async () => h.close());

async function signIn(): Promise<string> {
  const response = await h.app.inject({
    method: 'POST',
    url: '/studio/session',
    headers: { host: HOST, origin: `http://${HOST}` },
    payload: { api_key: apiKey },
  });
  expect(response.statusCode).toBe(200);
  const cookie = String(response.headers['set-cookie']);
  expect(cookie).toMatch(/^immoreel_session=imk_[\w-]+; Path=\/; HttpOnly; SameSite=Strict$/);
  expect(response.json()).toMatchObject({ signed_in: true, tenant: 'acme', csrf_token: csrfTokenFor(apiKey) });
  expect(response.body).not.toContain(apiKey);
  return cookie.split(';')[0]!;
}

describe('studio session', () => {
  it('refuses a wrong key without setting a cookie, in the API envelope', async () => {
    const response = await h.app.inject({
      method: 'POST',
      url: '/studio/session',
      headers: { host: HOST },
      payload: { api_key: 'imk_' + 'x'.repeat(43) },
    });
    expect(response.statusCode).toBe(401);
    expect(response.headers['set-cookie']).toBeUndefined();
    expect(response.json().error.reason).toBe('invalid_key');
  });

  it('lets the cookie read the API, and write only with the CSRF token from the same origin', async () => {
    const cookie = await signIn();
    const read = await h.app.inject({ method: 'GET', url: '/api/v1/jobs', headers: { host: HOST, cookie } });
    expect(read.statusCode).toBe(200);

    const body = { description: LISTING_TEXT };
    const noToken = await h.app.inject({
      method: 'POST',
      url: '/api/v1/analyze',
      headers: { host: HOST, cookie, origin: `http://${HOST}` },
      payload: body,
    });
    expect(noToken.statusCode).toBe(403);
    expect(noToken.json().error.reason).toBe('csrf_token');

    const wrongToken = await h.app.inject({
      method: 'POST',
      url: '/api/v1/analyze',
      headers: { host: HOST, cookie, 'x-csrf-token': csrfTokenFor('imk_other') },
      payload: body,
    });
    expect(wrongToken.json().error.reason).toBe('csrf_token');

    const token = csrfTokenFor(apiKey);
    const crossSite = await h.app.inject({
      method: 'POST',
      url: '/api/v1/analyze',
      headers: { host: HOST, cookie, 'x-csrf-token': token, origin: 'https://evil.example' },
      payload: body,
    });
    expect(crossSite.statusCode).toBe(403);
    expect(crossSite.json().error.reason).toBe('cross_origin');

    const fetchSite = await h.app.inject({
      method: 'POST',
      url: '/api/v1/analyze',
      headers: { host: HOST, cookie, 'x-csrf-token': token, 'sec-fetch-site': 'cross-site' },
      payload: body,
    });
    expect(fetchSite.json().error.reason).toBe('cross_origin');

    const ok = await h.app.inject({
      method: 'POST',
      url: '/api/v1/analyze',
      headers: { host: HOST, cookie, 'x-csrf-token': token, origin: `http://${HOST}` },
      payload: body,
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().property.surface_m2).toBe(120);
  });

  it('keeps bearer clients unaffected and follows key revocation', async () => {
    const cookie = await signIn();
    const bearer = await h.app.inject({
      method: 'POST',
      url: '/api/v1/analyze',
      headers: { authorization: `Bearer ${apiKey}` },
      payload: { description: LISTING_TEXT },
    });
    expect(bearer.statusCode).toBe(200);
    h.store.keys.revoke(h.store.keys.list()[0]!.key_id);
    const after = await h.app.inject({ method: 'GET', url: '/api/v1/jobs', headers: { host: HOST, cookie } });
    expect(after.statusCode).toBe(401);
    const session = await h.app.inject({ method: 'GET', url: '/studio/session', headers: { host: HOST, cookie } });
    expect(session.json()).toEqual({ ok: true, signed_in: false });
  });

  it('signs out only with the CSRF token', async () => {
    const cookie = await signIn();
    const forged = await h.app.inject({ method: 'DELETE', url: '/studio/session', headers: { host: HOST, cookie } });
    expect(forged.statusCode).toBe(403);
    const out = await h.app.inject({
      method: 'DELETE',
      url: '/studio/session',
      headers: { host: HOST, cookie, 'x-csrf-token': csrfTokenFor(apiKey) },
    });
    expect(out.statusCode).toBe(200);
    expect(String(out.headers['set-cookie'])).toContain('Max-Age=0');
  });
});

describe('studio page headers', () => {
  it('still answers unknown paths with the API 404 envelope', async () => {
    const response = await h.app.inject({ method: 'GET', url: '/nope.js' });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.code).toBe('NOT_FOUND');
  });
});

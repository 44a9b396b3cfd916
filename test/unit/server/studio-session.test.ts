import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { csrfTokenFor } from '../../../src/server/studio/session.js';
import { servedHosts } from '../../../src/server/studio/request-guard.js';
import { LISTING_TEXT, makeHarness, type Harness, type HarnessOptions } from '../../helpers/server-harness.js';

/**
 * The Studio's cookie sign-in as a browser would use it, and as a hostile page or a neighbour on
 * the same host would try to (docs/security.md "Studio sessions").
 */

let h: Harness | undefined;
let apiKey: string;
const HOST = 'studio.test';
const ORIGIN = `http://${HOST}`;
const PHOTOS = ['https://cdn.example.com/photo-1.jpg'];
let clock = Date.UTC(2026, 10, 25, 9, 0, 0);

afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function harness(options: HarnessOptions = {}): Promise<Harness> {
  h = await makeHarness({ ...options, studio: { publicHosts: [HOST], ...options.studio } });
  apiKey = h.key().apiKey;
  return h;
}

interface SignedIn {
  /** `name=value`, as the browser sends it back. */
  cookie: string;
  token: string;
  csrf: string;
  setCookie: string;
}

async function signIn(headers: Record<string, string> = { host: HOST, origin: ORIGIN }): Promise<SignedIn> {
  const response = await h!.app.inject({ method: 'POST', url: '/studio/session', headers, payload: { api_key: apiKey } });
  expect(response.statusCode, response.body).toBe(200);
  const setCookie = String(response.headers['set-cookie']);
  const cookie = setCookie.split(';')[0]!;
  const token = cookie.slice(cookie.indexOf('=') + 1);
  const body = response.json<{ signed_in: boolean; tenant: string; csrf_token: string }>();
  expect(body).toMatchObject({ signed_in: true, tenant: 'acme', csrf_token: csrfTokenFor(token) });
  expect(response.body).not.toContain(apiKey);
  return { cookie, token, csrf: body.csrf_token, setCookie };
}

function get(url: string, headers: Record<string, string>) {
  return h!.app.inject({ method: 'GET', url, headers: { host: HOST, ...headers } });
}

describe('studio session cookie', () => {
  it('holds a random session token, never the key, and neither is stored in clear', async () => {
    await harness();
    const session = await signIn();
    expect(session.setCookie).toMatch(/^immoreel_session=ims_[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(session.token).not.toContain(apiKey.slice(4, 20));
    // A second sign-in is another session with another token.
    expect((await signIn()).token).not.toBe(session.token);

    const rows = h!.store.db.prepare('SELECT * FROM server_studio_sessions').all();
    expect(rows).toHaveLength(2);
    expect(JSON.stringify(rows)).not.toContain(session.token);
    // The file itself (and its write-ahead log) holds neither secret.
    for (const file of ['immoreel.db', 'immoreel.db-wal'].map((name) => join(h!.dataDir, name)).filter((f) => existsSync(f))) {
      const bytes = readFileSync(file).toString('latin1');
      expect(bytes).not.toContain(session.token);
      expect(bytes).not.toContain(apiKey);
    }
  });

  it('refuses a wrong key without setting a cookie, in the API envelope', async () => {
    await harness();
    const response = await h!.app.inject({
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
    await harness();
    const { cookie, csrf } = await signIn();
    const read = await get('/api/v1/jobs', { cookie, 'sec-fetch-site': 'same-origin' });
    expect(read.statusCode).toBe(200);
    // Not a key: as a bearer token it is refused.
    const asBearer = await get('/api/v1/jobs', { authorization: `Bearer ${cookie.split('=')[1]!}` });
    expect(asBearer.statusCode).toBe(401);

    const body = { description: LISTING_TEXT };
    const post = (headers: Record<string, string>) =>
      h!.app.inject({ method: 'POST', url: '/api/v1/analyze', headers: { host: HOST, cookie, ...headers }, payload: body });
    const noToken = await post({ origin: ORIGIN });
    expect(noToken.statusCode).toBe(403);
    expect(noToken.json().error.reason).toBe('csrf_token');
    expect((await post({ 'x-csrf-token': csrfTokenFor('ims_other') })).json().error.reason).toBe('csrf_token');
    const crossSite = await post({ 'x-csrf-token': csrf, origin: 'https://evil.example' });
    expect(crossSite.statusCode).toBe(403);
    expect(crossSite.json().error.reason).toBe('cross_origin');
    expect((await post({ 'x-csrf-token': csrf, 'sec-fetch-site': 'cross-site' })).json().error.reason).toBe('cross_origin');
    const ok = await post({ 'x-csrf-token': csrf, origin: ORIGIN });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().property.surface_m2).toBe(120);
  });

  it('refuses cross-site and same-site reads made with the cookie (/me, /jobs, /video), and marks API answers same-origin', async () => {
    await harness();
    const bearer = h!.key({ tenant: 'acme' }).auth;
    const created = await h!.app.inject({
      method: 'POST',
      url: '/api/v1/render-video',
      headers: bearer,
      payload: { description: LISTING_TEXT, photos: PHOTOS },
    });
    const jobId = created.json<{ job: { job_id: string } }>().job.job_id;
    for (let i = 0; i < 200 && (await h!.jobs.get(jobId))?.job.state !== 'succeeded'; i += 1) await new Promise((r) => setTimeout(r, 25));
    const { cookie } = await signIn();
    for (const url of ['/api/v1/me', '/api/v1/jobs', `/api/v1/jobs/${jobId}/video`]) {
      for (const hostile of <Record<string, string>[]>[
        { 'sec-fetch-site': 'cross-site' },
        // Another port of the same host is "same-site": the browser would send the cookie there.
        { 'sec-fetch-site': 'same-site' },
        { origin: 'http://studio.test:9999' },
        { origin: 'null' },
      ]) {
        const refused = await get(url, { cookie, ...hostile });
        expect(refused.statusCode, `${url} ${JSON.stringify(hostile)}`).toBe(403);
        expect(refused.json().error.reason).toBe('cross_origin');
      }
      // The page itself (a fetch, the <video> element, a typed or pasted address) is served.
      for (const site of ['same-origin', 'none']) {
        const served = await get(url, { cookie, 'sec-fetch-site': site, 'sec-fetch-dest': 'video' });
        expect(served.statusCode, `${url} ${site}`).toBe(200);
        expect(served.headers['cross-origin-resource-policy']).toBe('same-origin');
      }
    }
    // A bearer client's cross-site call (CORS integrations) is not the cookie's business.
    expect((await get('/api/v1/me', { ...bearer, 'sec-fetch-site': 'cross-site', origin: 'https://crm.example' })).statusCode).toBe(200);
  });
});

describe('how a studio session ends', () => {
  it('sign-out ends the session on the server: the old cookie is refused and cleared', async () => {
    await harness();
    const { cookie } = await signIn();
    const out = await h!.app.inject({ method: 'DELETE', url: '/studio/session', headers: { host: HOST, cookie, origin: ORIGIN } });
    expect(out.statusCode).toBe(200);
    expect(out.json()).toEqual({ ok: true, signed_in: false });
    expect(String(out.headers['set-cookie'])).toBe('immoreel_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0');
    expect(h!.store.db.prepare('SELECT COUNT(*) AS n FROM server_studio_sessions').get()).toEqual({ n: 0 });

    // A copy of the cookie kept from before (another tab, a thief) no longer works.
    const replay = await get('/api/v1/jobs', { cookie });
    expect(replay.statusCode).toBe(401);
    expect(replay.json().error.reason).toBe('session_ended');
    expect(String(replay.headers['set-cookie'])).toContain('Max-Age=0');
    const who = await get('/studio/session', { cookie });
    expect(who.json()).toEqual({ ok: true, signed_in: false });
  });

  it('revoking the key ends its sessions, and the stale cookie can still be cleared', async () => {
    await harness();
    const { cookie } = await signIn();
    expect(await h!.records.sessions.list()).toHaveLength(1);
    await h!.records.keys.revoke(h!.store.keys.list()[0]!.key_id);
    expect(await h!.records.sessions.list()).toEqual([]);
    const after = await get('/api/v1/jobs', { cookie });
    expect(after.statusCode).toBe(401);
    expect(after.json().error.reason).toBe('session_ended');
    expect((await get('/studio/session', { cookie })).json()).toEqual({ ok: true, signed_in: false });
    // Without the CSRF token the page no longer has: sign-out still clears the cookie.
    const out = await h!.app.inject({ method: 'DELETE', url: '/studio/session', headers: { host: HOST, cookie, origin: ORIGIN } });
    expect(out.statusCode).toBe(200);
    expect(String(out.headers['set-cookie'])).toContain('Max-Age=0');
  });

  it('ends after the idle lifetime without use, and at the absolute lifetime however used', async () => {
    await harness({ now: () => clock, studio: { sessionLifetime: { idleMs: 30 * 60_000, maxMs: 2 * 3600_000 } } });
    const idle = await signIn();
    clock += 29 * 60_000;
    expect((await get('/api/v1/me', { cookie: idle.cookie })).statusCode).toBe(200);
    // That use pushed the idle end on: 29 more minutes are fine, 31 without use are not.
    clock += 29 * 60_000;
    expect((await get('/api/v1/me', { cookie: idle.cookie })).statusCode).toBe(200);
    const [listed] = await h!.records.sessions.list();
    expect(listed!.expires_at).toBe(new Date(clock + 30 * 60_000).toISOString());
    clock += 31 * 60_000;
    const expired = await get('/api/v1/me', { cookie: idle.cookie });
    expect(expired.statusCode).toBe(401);
    expect(expired.json().error.reason).toBe('session_ended');

    const busy = await signIn();
    for (let used = 0; used < 2 * 3600_000; used += 20 * 60_000) {
      expect((await get('/api/v1/me', { cookie: busy.cookie })).statusCode).toBe(200);
      clock += 20 * 60_000;
    }
    expect((await get('/api/v1/me', { cookie: busy.cookie })).statusCode).toBe(401);
    expect(await h!.records.sessions.purgeExpired()).toBe(2);
  });

  it('lists and revokes sessions by their public id, which is no cookie', async () => {
    await harness();
    const { cookie } = await signIn();
    const [session] = await h!.records.sessions.list();
    expect(session).toMatchObject({ tenant: 'acme', session_id: expect.stringMatching(/^ses_/) as unknown });
    // Neither the public id nor a key (what the cookie of an older version held) is a session token.
    for (const value of [session!.session_id, apiKey]) {
      const refused = await get('/api/v1/me', { cookie: `immoreel_session=${value}` });
      expect(refused.statusCode).toBe(401);
      expect(refused.json().error.reason).toBe('session_ended');
      expect(String(refused.headers['set-cookie'])).toContain('Max-Age=0');
    }
    await h!.records.sessions.revoke(session!.session_id);
    expect((await get('/api/v1/me', { cookie })).statusCode).toBe(401);
    await expect(h!.records.sessions.revoke(session!.session_id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('studio behind a proxy (--trust-proxy)', () => {
  const viaProxy = { host: HOST, origin: `https://${HOST}`, 'x-forwarded-proto': 'https' };

  it('ignores X-Forwarded-Proto unless told to trust the proxy', async () => {
    await harness();
    const { setCookie } = await signIn({ host: HOST, 'x-forwarded-proto': 'https' });
    expect(setCookie).toMatch(/^immoreel_session=ims_[\w-]+; Path=\/; HttpOnly; SameSite=Strict$/);
  });

  it('behind a trusted https proxy: a __Host- cookie with Secure, and only that cookie counts', async () => {
    await harness({ trustProxy: true });
    const session = await signIn(viaProxy);
    expect(session.setCookie).toMatch(/^__Host-immoreel_session=ims_[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict; Secure$/);
    expect((await get('/api/v1/me', { ...viaProxy, cookie: session.cookie })).statusCode).toBe(200);
    // The same token under the name any http page of this host could set is not read over https.
    const plain = await get('/api/v1/me', { ...viaProxy, cookie: `immoreel_session=${session.token}` });
    expect(plain.statusCode).toBe(401);
    expect(plain.json().error.reason).toBe('missing_key');
    // The origin must now be the https one the proxy reports.
    const http = await get('/api/v1/me', { ...viaProxy, origin: ORIGIN, cookie: session.cookie });
    expect(http.json().error.reason).toBe('cross_origin');
    const out = await h!.app.inject({ method: 'DELETE', url: '/studio/session', headers: { ...viaProxy, cookie: session.cookie } });
    expect(String(out.headers['set-cookie'])).toBe('__Host-immoreel_session=; Path=/; HttpOnly; SameSite=Strict; Secure; Max-Age=0');
  });
});

describe('studio host names', () => {
  it('answers only at the names it serves (DNS rebinding), with what to configure', async () => {
    await harness();
    const rebound = { host: 'attacker.example:8080', origin: 'http://attacker.example:8080' };
    const signin = await h!.app.inject({ method: 'POST', url: '/studio/session', headers: rebound, payload: { api_key: apiKey } });
    expect(signin.statusCode).toBe(403);
    expect(signin.headers['set-cookie']).toBeUndefined();
    expect(signin.json().error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', reason: 'unknown_host' });
    expect(signin.json().error.message).toContain('--public-host attacker.example');
    expect((await h!.app.inject({ method: 'GET', url: '/', headers: rebound })).json().error.reason).toBe('unknown_host');
    expect((await h!.app.inject({ method: 'GET', url: '/studio/login?token=x', headers: rebound })).statusCode).toBe(403);

    // A cookie presented at a foreign name is refused before it is looked at.
    const { cookie } = await signIn();
    const api = await get('/api/v1/jobs', { cookie, host: 'attacker.example' });
    expect(api.json().error.reason).toBe('unknown_host');
    // Bearer clients may use any name (service names, load balancers).
    expect((await get('/api/v1/me', { ...h!.key().auth, host: 'api.internal' })).statusCode).toBe(200);
    // The loopback names of a loopback bind, and the --public-host names, are served.
    for (const host of ['127.0.0.1:8080', 'localhost:8080', '[::1]:8080', 'STUDIO.test']) {
      const page = await h!.app.inject({ method: 'GET', url: '/studio/session', headers: { host } });
      expect(page.statusCode, host).toBe(200);
    }
  });

  it('derives the served names from the bound address', () => {
    const interfaces = {
      lo: [{ address: '127.0.0.1', family: 'IPv4' }],
      eth0: [
        { address: '192.0.2.7', family: 'IPv4' },
        { address: 'fe80::1%eth0', family: 'IPv6' },
      ],
    } as unknown as Parameters<typeof servedHosts>[2];
    expect([...servedHosts('127.0.0.1', [])].sort()).toEqual(['127.0.0.1', '[::1]', 'localhost']);
    expect([...servedHosts('::1', ['Studio.Example.com'])].sort()).toEqual(['127.0.0.1', '[::1]', 'localhost', 'studio.example.com']);
    expect([...servedHosts('192.0.2.7', [])]).toEqual(['192.0.2.7']);
    expect([...servedHosts('0.0.0.0', [], interfaces)].sort()).toEqual(['127.0.0.1', '192.0.2.7', '[::1]', '[fe80::1]', 'localhost']);
  });
});

describe('studio page headers', () => {
  it('still answers unknown paths with the API 404 envelope', async () => {
    await harness();
    const response = await h!.app.inject({ method: 'GET', url: '/nope.js' });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.code).toBe('NOT_FOUND');
  });
});

describe('sign-in links per device', () => {
  it('each link signs one browser in once; a signed-in page asks for another, with its CSRF token', async () => {
    const { newLoginToken } = await import('../../../src/server/studio/session.js');
    const login = { apiKey: '', tokens: new Set<string>(), deviceHosts: ['192.168.1.20'] };
    h = await makeHarness({ studio: { publicHosts: [HOST, '192.168.1.20'], login } });
    // The studio's key, as `immoreel studio` creates it before serving.
    login.apiKey = h.key({ tenant: 'studio' }).apiKey;
    const first = newLoginToken(login);
    const used = await get(`/studio/login?token=${first}`, {});
    expect([used.statusCode, used.headers.location]).toEqual([303, '/']);
    const cookie = String(used.headers['set-cookie']).split(';')[0]!;
    expect((await get(`/studio/login?token=${first}`, {})).headers.location).toBe('/?signin=link_used');

    const ask = (headers: Record<string, string>) =>
      h!.app.inject({
        method: 'POST',
        url: '/studio/device-link',
        headers: { host: `${HOST}:8765`, origin: `http://${HOST}:8765`, ...headers },
      });
    expect((await ask({})).statusCode).toBe(401);
    expect((await ask({ cookie })).statusCode).toBe(403);
    const token = cookie.slice(cookie.indexOf('=') + 1);
    const answer = await ask({ cookie, 'x-csrf-token': csrfTokenFor(token) });
    expect(answer.statusCode, answer.body).toBe(200);
    const { links, lan } = answer.json<{ links: string[]; lan: boolean }>();
    expect(lan).toBe(true);
    expect(links).toEqual([expect.stringMatching(/^http:\/\/192\.168\.1\.20:8765\/studio\/login\?token=[\w-]{32}$/)]);
    // The phone's link works once, at the machine's network address, and opens its own session.
    const phone = new URL(links[0]!);
    const signedIn = await h.app.inject({ method: 'GET', url: `${phone.pathname}${phone.search}`, headers: { host: phone.host } });
    expect([signedIn.statusCode, signedIn.headers.location]).toEqual([303, '/']);
    expect(String(signedIn.headers['set-cookie'])).not.toContain(token);
    const again = await h.app.inject({ method: 'GET', url: `${phone.pathname}${phone.search}`, headers: { host: phone.host } });
    expect(again.headers.location).toBe('/?signin=link_used');
  });

  it('is refused by `serve`, which has no sign-in links', async () => {
    await harness();
    const session = await signIn();
    const answer = await h!.app.inject({
      method: 'POST',
      url: '/studio/device-link',
      headers: { host: HOST, origin: ORIGIN, cookie: session.cookie, 'x-csrf-token': session.csrf },
    });
    expect(answer.statusCode).toBe(404);
    expect(answer.json()).toMatchObject({ error: { reason: 'no_device_links' } });
  });
});

import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { jpegScanCount } from '../../../src/render/decode-budget.js';
import { makeHarness, type Harness } from '../../helpers/server-harness.js';

/**
 * What a body may cost before it is refused (docs/security.md "Bodies"): requests that need no
 * body (no key, a retired or unknown route) are answered from their headers, with the body still
 * on its way; a gzip body is inflated only up to the route's limit.
 */

interface Answer {
  status: number;
  body: string;
}

let h: Harness;
let port: number;
let auth: Record<string, string>;
beforeAll(async () => {
  h = await makeHarness({ runWorkers: false });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  port = (h.app.server.address() as { port: number }).port;
  auth = h.key().auth;
});
afterAll(async () => h?.close());

/**
 * Sends the headers and `first` bytes of a body announced as `announced` bytes long, then waits
 * with the rest unsent: an answer can only come from what was sent so far.
 */
function answerBeforeTheBodyEnds(path: string, headers: Record<string, string>, first: Buffer, announced: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: 'POST', path, headers: { 'content-length': String(announced), ...headers } },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('error', reject);
    req.write(first);
  });
}

function send(path: string, headers: Record<string, string>, body: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: 'POST', path, headers: { 'content-length': String(body.length), ...headers } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const GZIP_JSON = { 'content-type': 'application/json', 'content-encoding': 'gzip' };
/** A JSON body of 50 MB, gzipped to about 50 KB. */
const BOMB = gzipSync(Buffer.concat([Buffer.from('{"description":"'), Buffer.alloc(50 * 1024 * 1024, 0x20), Buffer.from('"}')]));

describe('bodies that need not be read are not', () => {
  const start = BOMB.subarray(0, 1024);
  for (const [what, path, headers, status] of [
    ['a keyless request to an authenticated route', '/api/v1/analyze', {}, 401],
    ['a request to a retired route', '/api/v1/campaigns/generate', {}, 410],
    ['a request to an unknown route', '/api/v1/nothing-here', {}, 404],
  ] as const) {
    it(`answers ${what} (${status}) before its gzip body has arrived`, async () => {
      const answer = await answerBeforeTheBodyEnds(path, { ...GZIP_JSON, ...headers }, start, BOMB.length);
      expect(answer.status).toBe(status);
    });
  }
});

describe('a gzip body is inflated up to the limit, no further', () => {
  expect(BOMB.length).toBeLessThan(100 * 1024);
  for (const path of ['/api/v1/analyze', '/api/v1/render-video']) {
    it(`${path}: 413 for a body that inflates to 50 MB`, async () => {
      const answer = await send(path, { ...GZIP_JSON, ...auth }, BOMB);
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE', reason: 'body_too_large' } });
    });
  }

  it('the Studio sign-in reads a few kilobytes at most', async () => {
    const answer = await send('/studio/session', { 'content-type': 'application/json' }, Buffer.from(`{"api_key":"${'a'.repeat(8000)}"}`));
    expect(answer.status).toBe(413);
  });
});

describe('bodies held at once are bounded per caller and in all', () => {
  let small: Harness;
  let smallPort: number;
  beforeAll(async () => {
    small = await makeHarness({ runWorkers: false, limits: { bodyBytesInFlightPerCaller: 100_000, bodyBytesInFlight: 150_000 } });
    await small.app.listen({ port: 0, host: '127.0.0.1' });
    smallPort = (small.app.server.address() as { port: number }).port;
  });
  afterAll(async () => small?.close());

  /** A body of `size` bytes announced, its first `sent` bytes sent, the rest held back until `finish` is called. */
  function stalled(headers: Record<string, string>, size: number, sent: number) {
    const body = Buffer.from(JSON.stringify({ description: 'x'.repeat(size - 18) }));
    let finish = (): void => undefined;
    const answer = new Promise<Answer>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: smallPort,
          method: 'POST',
          path: '/api/v1/analyze',
          headers: { 'content-type': 'application/json', 'content-length': String(body.length), ...headers },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.write(body.subarray(0, sent));
      finish = () => req.end(body.subarray(sent));
    });
    return { answer, finish: () => finish() };
  }

  it('refuses, from its headers, a body its caller has no room left for; another caller still gets in', async () => {
    const alice = small.key({ tenant: 'alice' }).auth;
    const bob = small.key({ tenant: 'bob' }).auth;
    const first = stalled(alice, 60_000, 1000);
    // The first body is being received before the second is announced.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const second = stalled(alice, 60_000, 0);
    const refused = await second.answer;
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE', reason: 'server_busy' } });
    const other = stalled(bob, 60_000, 1000);
    other.finish();
    first.finish();
    expect((await other.answer).status).not.toBe(503);
    expect((await first.answer).status).not.toBe(503);
    // Everything held is given back with the answers.
    const again = stalled(alice, 60_000, 0);
    again.finish();
    expect((await again.answer).status).not.toBe(503);
  });

  it('refuses a body once all callers together hold the total', async () => {
    const callers = ['c1', 'c2', 'c3'].map((tenant) => small.key({ tenant }).auth);
    const a = stalled(callers[0]!, 70_000, 1000);
    const b = stalled(callers[1]!, 70_000, 1000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const c = stalled(callers[2]!, 70_000, 0);
    expect((await c.answer).status).toBe(503);
    a.finish();
    b.finish();
    await Promise.all([a.answer, b.answer]);
  });
});

describe('uploads cost what their decoder really needs', () => {
  it('refuses a JPEG of 2 080 progressive scans before decoding it', async () => {
    const jpeg = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#3a6ea5' } })
      .jpeg({ progressive: true })
      .toBuffer();
    const lastScan = jpeg.lastIndexOf(Buffer.from([0xff, 0xda]));
    const end = jpeg.lastIndexOf(Buffer.from([0xff, 0xd9]));
    const extra = Array.from({ length: 2080 - jpegScanCount(jpeg) }, () => jpeg.subarray(lastScan, end));
    const crafted = Buffer.concat([jpeg.subarray(0, end), ...extra, jpeg.subarray(end)]);
    const answer = await send('/api/v1/assets', { 'content-type': 'image/jpeg', ...auth }, crafted);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({
      error: { reason: 'invalid_image', message: expect.stringMatching(/progressive scans/) },
    });
  });
});

describe('guessing keys costs the guesser', () => {
  it('answers 429 auth_attempts after 20 unknown keys from one address, before looking the key up', async () => {
    const throttled = await makeHarness({ runWorkers: false });
    try {
      // A caller on another machine (loopback callers are not counted: docs/security.md "Keys and sign-ins").
      const remoteAddress = '203.0.113.9';
      const guess = (key: string) =>
        throttled.app.inject({ method: 'GET', url: '/api/v1/me', remoteAddress, headers: { authorization: `Bearer imk_${key}` } });
      for (let i = 0; i < 20; i++) expect((await guess(`guess${i}abcdefgh`)).statusCode).toBe(401);
      const blocked = await guess('guess-twenty-one');
      expect(blocked.statusCode).toBe(429);
      expect(JSON.parse(blocked.body)).toMatchObject({ error: { code: 'RATE_LIMIT_EXCEEDED', reason: 'auth_attempts' } });
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
      // Even a valid key waits out the window from that address: the lookup is what is spared.
      const valid = throttled.key().auth;
      expect((await throttled.app.inject({ method: 'GET', url: '/api/v1/me', remoteAddress, headers: valid })).statusCode).toBe(429);
      // Another address, and the server's own machine, are not held back.
      expect(
        (await throttled.app.inject({ method: 'GET', url: '/api/v1/me', remoteAddress: '198.51.100.7', headers: valid })).statusCode,
      ).toBe(200);
      for (let i = 0; i < 25; i++) {
        const local = await throttled.app.inject({
          method: 'GET',
          url: '/api/v1/me',
          headers: { authorization: `Bearer imk_local${i}abcdefgh` },
        });
        expect(local.statusCode).toBe(401);
      }
    } finally {
      await throttled.close();
    }
  });

  it('names the missing scope in WWW-Authenticate on the contract answer QUOTA_EXCEEDED route_not_permitted', async () => {
    const reader = h.key({ tenant: 'readonly', scopes: ['preview:read'] }).auth;
    const answer = await h.app.inject({
      method: 'POST',
      url: '/api/v1/analyze',
      headers: { ...reader, 'content-type': 'application/json' },
      payload: '{"description":"Villa"}',
    });
    expect(answer.statusCode).toBe(403);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'QUOTA_EXCEEDED', reason: 'route_not_permitted' } });
    expect(answer.headers['www-authenticate']).toBe('Bearer realm="immoreel", error="insufficient_scope", scope="preview:dispatch"');
  });
});

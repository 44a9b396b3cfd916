import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

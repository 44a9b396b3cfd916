import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_HTML_BYTES } from '../../../src/core/limits.js';
import { makeHarness, type Harness } from '../../helpers/server-harness.js';
import { startSecureServer, type SecureServer } from '../../helpers/secure-server.js';

/**
 * A large analysis body is parsed and checked in an analysis worker, never on the server's event
 * loop (docs/security.md "Measured"). What a caller notices must not change: each bad 5 MB body
 * gets exactly the answer the server gives when it parses the body itself, and idempotent retries
 * of a large body replay as before.
 */

/** A real listing page (a fixture) padded to about 5 MB: far over the size parsed off the event loop. */
const PAGE = (() => {
  const page = readFileSync(new URL('../../fixtures/portals/mubawab-jsonld-fr.html', import.meta.url), 'utf8');
  const filler = `<p>${'Bel appartement lumineux proche des commodités. '.repeat(40)}</p>\n`;
  const room = Math.floor(MAX_HTML_BYTES * 0.95) - page.length;
  return page.replace('</body>', `${filler.repeat(Math.floor(room / filler.length))}</body>`);
})();
const json = (value: unknown) => JSON.stringify(value);

/** Bad bodies, each with a different answer; every one far over the off-thread size. */
const BAD_BODIES: Record<string, string> = {
  'an unknown field and a bad language': json({ html: PAGE, language: 'xx', colour: 'blue' }),
  'a wrong type': json({ html: PAGE, target_audience: 7 }),
  'a page over the size limit': json({ html: `${PAGE}${'x'.repeat(MAX_HTML_BYTES - PAGE.length + 10)}` }),
  'an empty description and nothing else': json({ description: ' '.repeat(200_000) }),
  'broken JSON': json({ html: PAGE }).slice(0, -2),
  'a __proto__ key': `{"html":${json(PAGE)},"__proto__":{"admin":true}}`,
  'a constructor.prototype key': `{"html":${json(PAGE)},"constructor":{"prototype":{"admin":true}}}`,
  'a body over the route limit': json({ html: PAGE, description: 'x'.repeat(2 * 1024 * 1024) }),
};

let server: SecureServer;
/** The same app with no worker for large bodies: every body is parsed and checked on its event loop. */
let inProcess: Harness;
beforeAll(async () => {
  server = await startSecureServer({ analysis: { threads: 1 } });
  inProcess = await makeHarness();
});
afterAll(async () => {
  await server?.close();
  await inProcess?.close();
});

async function answerOffThread(body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}/api/v1/analyze`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...server.auth, ...headers },
    body,
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function answerInProcess(body: string) {
  const response = await inProcess.app.inject({
    method: 'POST',
    url: '/api/v1/analyze',
    headers: { 'content-type': 'application/json', ...inProcess.key().auth },
    payload: body,
  });
  return { status: response.statusCode, text: response.body };
}

/** The error a caller reads, without the request id that differs on every request. */
function errorOf(text: string) {
  const { request_id: _requestId, ...error } = (JSON.parse(text) as { error: { request_id?: string } }).error;
  return error;
}

describe('large analysis bodies, parsed off the event loop', () => {
  for (const [what, body] of Object.entries(BAD_BODIES)) {
    it(`answers a 5 MB body with ${what} exactly as when the server parses it`, async () => {
      const offThread = await answerOffThread(body);
      const reference = await answerInProcess(body);
      expect(offThread.status).toBeGreaterThanOrEqual(400);
      expect(offThread.status).toBe(reference.status);
      expect(errorOf(offThread.text)).toEqual(errorOf(reference.text));
    }, 60_000);
  }

  it('names the bad field of a 5 MB body and charges no quota for it', async () => {
    const answer = await answerOffThread(BAD_BODIES['an unknown field and a bad language']!);
    expect(answer.status).toBe(400);
    expect(errorOf(answer.text)).toMatchObject({
      code: 'BAD_REQUEST',
      reason: 'invalid_request',
      details: [
        { field: 'colour', message: 'is not an accepted field' },
        { field: 'language', message: 'must be one of fr, en, ar' },
      ],
    });
    expect(await server.server.records.usage.used(server.keyId)).toBe(0);
  }, 60_000);

  it('replays an idempotent 5 MB request, whatever its key order and spacing, and refuses the key for another body', async () => {
    const headers = { 'idempotency-key': 'large-body-retry' };
    const description = 'Appartement à vendre à Maarif, Casablanca. 120 m², 3 chambres. Prix : 1 850 000 DH.';
    const first = await answerOffThread(json({ description, html: PAGE, language: 'en' }), headers);
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    // The same request as a client library might re-encode it: other key order, other spacing.
    const retry = await answerOffThread(JSON.stringify({ language: 'en', html: PAGE, description }, null, 2), headers);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.text).toBe(first.text);
    expect(await server.server.records.usage.used(server.keyId)).toBe(1);

    const other = await answerOffThread(json({ description, html: `${PAGE} `, language: 'en' }), headers);
    expect(other.status).toBe(400);
    expect(errorOf(other.text)).toMatchObject({ reason: 'idempotency_key_reused', details: [{ field: 'Idempotency-Key' }] });

    // A bad body with a used key gets its own 400 first, as when the server parses it.
    const bad = await answerOffThread(BAD_BODIES['a wrong type']!, headers);
    expect(bad.status).toBe(400);
    expect(errorOf(bad.text)).toMatchObject({
      reason: 'invalid_request',
      details: expect.arrayContaining([expect.objectContaining({ field: 'target_audience' })]),
    });
  }, 60_000);

  it('analyses a valid 5 MB page as the in-process path does', async () => {
    const body = json({ html: PAGE, description: 'Villa 300 m² à Marrakech, piscine, 4 chambres. Prix : 6 500 000 DH.', language: 'fr' });
    const offThread = await answerOffThread(body);
    const reference = await answerInProcess(body);
    expect(offThread.status, offThread.text).toBe(200);
    expect(reference.status).toBe(200);
    expect(JSON.parse(offThread.text)).toEqual(JSON.parse(reference.text));
  }, 60_000);

  it('analyses a 5 MB page sent gzip-compressed and chunked, with no Content-Length, as the in-process path does', async () => {
    // Decompressed chunks share buffers: they must reach the worker whole, without detaching one another.
    const body = json({ html: PAGE, description: 'Riad 180 m² à Fès, patio, 5 chambres. Prix : 2 900 000 DH.', language: 'fr' });
    const zipped = gzipSync(body);
    const response = await fetch(`${server.url}/api/v1/analyze`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', ...server.auth },
      body: new ReadableStream({
        start(controller) {
          for (let at = 0; at < zipped.length; at += 7_001) controller.enqueue(zipped.subarray(at, at + 7_001));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    const reference = await answerInProcess(body);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(JSON.parse(reference.text));
  }, 60_000);

  it('refuses a chunked body with 413 as soon as it passes the route limit, with no Content-Length to read first', async () => {
    const over = Buffer.from(BAD_BODIES['a body over the route limit']!);
    const response = await fetch(`${server.url}/api/v1/analyze`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...server.auth },
      body: new ReadableStream({
        start(controller) {
          for (let at = 0; at < over.length; at += 256 * 1024) controller.enqueue(over.subarray(at, at + 256 * 1024));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit).catch((error: unknown) => error);
    // The server answers and closes at the limit; a client still sending may see the reset instead.
    if (response instanceof Response) {
      expect(response.status).toBe(413);
      expect(errorOf(await response.text())).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    } else {
      expect(String((response as Error).cause ?? response)).toMatch(/reset|closed|socket|EPIPE/i);
    }
  }, 60_000);
});

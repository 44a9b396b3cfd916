import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashInputs } from '../../../src/core/hash.js';
import { MAX_HTML_BYTES } from '../../../src/core/limits.js';
import { validateRenderRequest } from '../../../src/render/render-rules.js';
import { makeHarness, type Harness } from '../../helpers/server-harness.js';
import { startSecureServer, type SecureServer } from '../../helpers/secure-server.js';

/**
 * A large `POST /render-video` body is parsed and checked in a thread, never on the server's event
 * loop (docs/security.md "Measured"). What a caller notices must not change: each bad 5 MB body
 * gets exactly the answer the server gives when it parses the body itself, a good one is queued
 * with the whole request (its page included), and idempotent retries replay as before.
 */

/** A real listing page (a fixture) padded to about 5 MB: far over the size parsed off the event loop. */
const PAGE = (() => {
  const page = readFileSync(new URL('../../fixtures/portals/mubawab-jsonld-fr.html', import.meta.url), 'utf8');
  const filler = `<p>${'Bel appartement lumineux proche des commodités. '.repeat(40)}</p>\n`;
  const room = Math.floor(MAX_HTML_BYTES * 0.95) - page.length;
  return page.replace('</body>', `${filler.repeat(Math.floor(room / filler.length))}</body>`);
})();
const json = (value: unknown) => JSON.stringify(value);
const PHOTOS = ['https://photos.example.com/1.jpg', 'https://photos.example.com/2.jpg'];

const BAD_BODIES: Record<string, string> = {
  'an unknown field and a bad format': json({ html: PAGE, photos: PHOTOS, format: 'cinema', colour: 'blue' }),
  'a wrong type': json({ html: PAGE, duration_s: 'long' }),
  'broken JSON': json({ html: PAGE }).slice(0, -2),
  'a __proto__ key': `{"html":${json(PAGE)},"__proto__":{"admin":true}}`,
  // The worst shape of the size limit (docs/security.md "Bounded validation"): answered as fast and small as a 64 KB one.
  'a list of wrong entries far past its limit': `{"formats":[${'1,'.repeat(2_900_000)}1]}`,
};

/** The largest answer a refused body may get, whatever its shape. */
const MAX_ANSWER_BYTES = 8 * 1024;

let server: SecureServer;
/** The same app with no thread for large bodies: every body is parsed and checked on its event loop. */
let inProcess: Harness;
beforeAll(async () => {
  server = await startSecureServer({ analysis: { threads: 1 }, concurrency: 1 });
  inProcess = await makeHarness({ runWorkers: false });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await inProcess?.close();
});

async function answerOffThread(body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}/api/v1/render-video`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...server.auth, ...headers },
    body,
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function answerInProcess(body: string) {
  const response = await inProcess.app.inject({
    method: 'POST',
    url: '/api/v1/render-video',
    headers: { 'content-type': 'application/json', ...inProcess.key().auth },
    payload: body,
  });
  return { status: response.statusCode, text: response.body };
}

function errorOf(text: string) {
  const { request_id: _requestId, ...error } = (JSON.parse(text) as { error: { request_id?: string } }).error;
  return error;
}

async function cancel(text: string): Promise<string> {
  const jobId = (JSON.parse(text) as { job: { job_id: string } }).job.job_id;
  await server.server.jobs.cancel(jobId);
  return jobId;
}

describe('large render bodies, parsed off the event loop', () => {
  for (const [what, body] of Object.entries(BAD_BODIES)) {
    it(`answers a large body with ${what} exactly as when the server parses it`, async () => {
      const offThread = await answerOffThread(body);
      const reference = await answerInProcess(body);
      expect(offThread.status).toBeGreaterThanOrEqual(400);
      expect(offThread.status).toBe(reference.status);
      expect(errorOf(offThread.text)).toEqual(errorOf(reference.text));
      expect(offThread.text.length).toBeLessThan(MAX_ANSWER_BYTES);
    }, 60_000);
  }

  it('queues a valid 5 MB body with the whole request, its page included, and the input hash of the in-process path', async () => {
    const body = { html: PAGE, photos: PHOTOS, duration_s: 12, metadata: { ref: 'A-12' } };
    const answer = await answerOffThread(json(body));
    expect(answer.status, answer.text).toBe(202);
    const jobId = await cancel(answer.text);
    const expected = validateRenderRequest(body, 'server');
    expect(await server.server.jobs.records.requestOf(jobId)).toEqual(expected);
    const { metadata: _m, webhook_url: _w, ...inputs } = expected;
    expect(await server.server.jobs.inputHash(jobId)).toBe(hashInputs(inputs));
  }, 60_000);

  it('replays an idempotent 5 MB render, whatever its key order and spacing, and refuses the key for another body', async () => {
    const headers = { 'idempotency-key': 'large-render-retry' };
    const first = await answerOffThread(json({ html: PAGE, photos: PHOTOS, language: 'en' }), headers);
    expect(first.status, first.text).toBe(202);
    const jobId = await cancel(first.text);
    const retry = await answerOffThread(JSON.stringify({ language: 'en', photos: PHOTOS, html: PAGE }, null, 2), headers);
    expect(retry.status).toBe(202);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect((JSON.parse(retry.text) as { job: { job_id: string } }).job.job_id).toBe(jobId);
    const other = await answerOffThread(json({ html: `${PAGE} `, photos: PHOTOS, language: 'en' }), headers);
    expect(other.status).toBe(400);
    expect(errorOf(other.text)).toMatchObject({ reason: 'idempotency_key_reused' });
  }, 60_000);
});

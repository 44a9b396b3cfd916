import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeHarness, type Harness } from '../../helpers/server-harness.js';

/* Requests fastify's routes never see still get the docs/api.md envelope: a real socket on loopback. */

let h: Harness;
let port = 0;
beforeAll(async () => {
  h = await makeHarness();
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  port = (h.app.server.address() as { port: number }).port;
});
afterAll(async () => h.close());

/** Sends `request` as raw bytes; the whole answer once the server closes the connection. */
async function raw(request: string): Promise<{ status: number; headers: string; body: { ok: boolean; error: Record<string, unknown> } }> {
  const socket = connect(port, '127.0.0.1');
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
  socket.write(request);
  await new Promise<void>((resolve, reject) => {
    const giveUp = setTimeout(() => reject(new Error(`no close; got ${JSON.stringify(answer)}`)), 10_000);
    socket.once('close', () => {
      clearTimeout(giveUp);
      resolve();
    });
  });
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), headers: head, body: JSON.parse(body) as never };
}

describe('raw HTTP requests', () => {
  it('answers CONNECT with 405 in the envelope instead of dropping the connection', async () => {
    const answer = await raw('CONNECT 169.254.169.254:80 HTTP/1.1\r\nHost: 169.254.169.254:80\r\n\r\n');
    expect(answer.status).toBe(405);
    expect(answer.headers).toMatch(/\r\nAllow: GET, HEAD, POST\r\n/);
    expect(answer.headers).toMatch(/\r\ncontent-type: application\/json/i);
    expect(answer.body).toMatchObject({ ok: false, error: { code: 'METHOD_NOT_ALLOWED', reason: 'method_not_allowed' } });
    expect(answer.body.error.message).toMatch(/CONNECT is not allowed/);
    expect(answer.body.error.request_id).toMatch(/^req_/);
  });

  it('answers an HTTP/1.1 request without Host with 400 in the envelope, naming Host', async () => {
    const answer = await raw('GET /api/v1/health HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(answer.status).toBe(400);
    expect(answer.headers).toMatch(/\r\ncontent-type: application\/json/i);
    expect(answer.body).toMatchObject({
      ok: false,
      error: { code: 'BAD_REQUEST', reason: 'malformed_http', details: [{ field: 'Host' }] },
    });
    expect(answer.body.error.message).toMatch(/no Host header/);
  });

  it('still answers an HTTP/1.0 request without Host, and one with Host', async () => {
    expect((await raw('GET /api/v1/health HTTP/1.0\r\n\r\n')).status).toBe(200);
    expect((await raw('GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')).status).toBe(200);
  });
});

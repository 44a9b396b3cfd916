import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startSecureServer, type SecureServer } from '../../helpers/secure-server.js';

/** A peer that stalls mid-body is answered 408 and cut off (docs/security.md). */

let running: SecureServer | null = null;
afterEach(async () => {
  await running?.close();
  running = null;
});

describe('request timeout', () => {
  it('answers 408 and closes a request whose body stalls', async () => {
    running = await startSecureServer({ limits: { requestTimeoutMs: 1000 } });
    const { port } = new URL(running.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `POST /api/v1/analyze HTTP/1.1\r\nHost: 127.0.0.1\r\n${running.auth.authorization ? `Authorization: ${running.auth.authorization}\r\n` : ''}` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
    );
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    const closed = await new Promise<boolean>((resolve) => {
      const giveUp = setTimeout(() => resolve(false), 8000);
      socket.once('close', () => {
        clearTimeout(giveUp);
        resolve(true);
      });
    });
    socket.destroy();
    expect(closed).toBe(true);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toMatch(/"reason":"request_timeout"/);
  }, 20_000);
});

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.js';
import { forbiddenAddressKind, guardedLookup } from '../../../src/net/address-guard.js';
import { fetchBuffer } from '../../../src/net/fetch.js';
import { parseRetryAfter } from '../../../src/net/retry.js';

/** A real HTTP server on 127.0.0.1 whose behaviour each test sets. */
type Handler = (req: IncomingMessage, res: ServerResponse) => void;
let handler: Handler = (_req, res) => res.end('ok');
let server: Server;
let base: string;
const seen: { path: string; at: number; headers: IncomingMessage['headers'] }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', at: Date.now(), headers: req.headers });
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
afterEach(() => {
  seen.length = 0;
  handler = (_req, res) => res.end('ok');
});

async function failure(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

const fast = { retryBaseMs: 5 };

describe('fetchBuffer: responses', () => {
  it('follows redirects and reports the final URL', async () => {
    handler = (req, res) => {
      if (req.url === '/old') res.writeHead(301, { location: '/new' }).end();
      else res.end(`at ${req.url}`);
    };
    const result = await fetchBuffer(`${base}/old`);
    expect(result.status).toBe(200);
    expect(result.url).toBe(`${base}/new`);
    expect(result.body.toString()).toBe('at /new');
  });

  it('stops a redirect loop', async () => {
    handler = (req, res) => res.writeHead(302, { location: req.url === '/a' ? '/b' : '/a' }).end();
    const error = await failure(fetchBuffer(`${base}/a`, { maxRedirects: 3 }));
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.message).toMatch(/redirects more than 3 times/);
    expect(seen).toHaveLength(4);
  });

  it('refuses a body over the size limit, declared or streamed', async () => {
    handler = (_req, res) => res.writeHead(200, { 'content-length': '5000' }).end('x'.repeat(5000));
    expect((await failure(fetchBuffer(`${base}/big`, { maxBytes: 1000 }))).message).toMatch(/larger than the 1000 bytes allowed/);
    handler = (_req, res) => {
      res.writeHead(200);
      for (let i = 0; i < 10; i += 1) res.write('y'.repeat(500));
      res.end();
    };
    expect((await failure(fetchBuffer(`${base}/stream`, { maxBytes: 1000 }))).message).toMatch(/larger than/);
  });

  it('sends browser headers and decompresses gzip, within the size limit', async () => {
    const page = '<html>'.padEnd(4000, 'a');
    handler = (_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(page));
    const result = await fetchBuffer(`${base}/page`, { browserHeaders: true });
    expect(result.body.toString()).toBe(page);
    expect(seen[0].headers['user-agent']).toMatch(/Mozilla\/5\.0 .* Chrome\//);
    expect(seen[0].headers['accept-language']).toMatch(/^fr-MA/);
    expect((await failure(fetchBuffer(`${base}/page`, { browserHeaders: true, maxBytes: 1000 }))).message).toMatch(/larger than/);
  });
});

describe('fetchBuffer: retries', () => {
  it('retries a 503 with backoff, then succeeds', async () => {
    let calls = 0;
    handler = (_req, res) => {
      calls += 1;
      if (calls < 3) res.writeHead(503).end('busy');
      else res.end('fine');
    };
    const result = await fetchBuffer(`${base}/flaky`, fast);
    expect(result.body.toString()).toBe('fine');
    expect(calls).toBe(3);
  });

  it('returns the last 5xx once the retries are spent', async () => {
    handler = (_req, res) => res.writeHead(502).end();
    const result = await fetchBuffer(`${base}/down`, { ...fast, retries: 1 });
    expect(result.status).toBe(502);
    expect(seen).toHaveLength(2);
  });

  it('does not retry a 404', async () => {
    handler = (_req, res) => res.writeHead(404).end();
    expect((await fetchBuffer(`${base}/gone`, fast)).status).toBe(404);
    expect(seen).toHaveLength(1);
  });

  it('waits as long as a 429 Retry-After asks', async () => {
    handler = (_req, res) => {
      if (seen.length === 1) res.writeHead(429, { 'retry-after': '1' }).end();
      else res.end('now');
    };
    const result = await fetchBuffer(`${base}/limited`, fast);
    expect(result.body.toString()).toBe('now');
    expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(950);
  });

  it('hands back a 429 that asks to wait too long', async () => {
    handler = (_req, res) => res.writeHead(429, { 'retry-after': '600' }).end();
    const result = await fetchBuffer(`${base}/limited`, { ...fast, maxRetryAfterS: 30 });
    expect(result.status).toBe(429);
    expect(seen).toHaveLength(1);
  });

  it('retries a dropped connection', async () => {
    handler = (req, res) => {
      if (seen.length === 1) req.socket.destroy();
      else res.end('second try');
    };
    expect((await fetchBuffer(`${base}/drop`, fast)).body.toString()).toBe('second try');
  });

  it('reads Retry-After dates', () => {
    expect(parseRetryAfter('120')).toBe(120);
    expect(parseRetryAfter(new Date(Date.now() + 30_000).toUTCString())).toBeGreaterThanOrEqual(29);
    expect(parseRetryAfter('soon')).toBeNull();
  });
});

describe('fetchBuffer: timeouts and pace', () => {
  it('gives up on a server that does not answer, saying so', async () => {
    handler = () => undefined; // never answers
    const error = await failure(fetchBuffer(`${base}/silent`, { timeoutMs: 100, retries: 0 }));
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.exitCode).toBe(6);
    expect(error.message).toMatch(/Could not reach 127\.0\.0\.1:\d+: it did not answer within 0\.1 s/);
  });

  it('stops a body that drips forever', async () => {
    handler = (_req, res) => {
      res.writeHead(200);
      const timer = setInterval(() => res.write('.'), 20);
      res.on('close', () => clearInterval(timer));
    };
    const error = await failure(fetchBuffer(`${base}/drip`, { timeoutMs: 1000, totalTimeoutMs: 200, retries: 0 }));
    expect(error.message).toMatch(/took longer than 0\.2 s/);
  });

  it('keeps a polite gap between requests to the same host', async () => {
    // Measured from before the first request leaves, not between the two arrivals: a busy machine
    // can only delay an arrival, so the check holds under load and fails only if the pace is gone.
    const started = Date.now();
    await Promise.all([fetchBuffer(`${base}/one`, { paceMs: 250 }), fetchBuffer(`${base}/two`, { paceMs: 250 })]);
    expect(Math.max(seen[0].at, seen[1].at) - started).toBeGreaterThanOrEqual(250);
  });
});

describe('address guard (server-side fetches)', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd00:ec2::254', 'private'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['fe80::1', 'link-local (cloud metadata)'],
    ['0.0.0.0', 'reserved'],
    ['8.8.8.8', null],
    ['2a00:1450:4007::200e', null],
  ])('%s is %s', (address, kind) => {
    expect(forbiddenAddressKind(address)).toBe(kind);
  });

  it('refuses loopback URLs unless tests allow them', async () => {
    const error = await failure(fetchBuffer(`${base}/x`, { guardAddresses: true }));
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.reason).toBe('forbidden_address');
    expect(error.message).toMatch(/loopback address/);
    expect((await failure(fetchBuffer(base.replace('127.0.0.1', 'localhost'), { guardAddresses: true }))).reason).toBe('forbidden_address');
    expect((await fetchBuffer(`${base}/x`, { guardAddresses: true, allowLoopback: true })).status).toBe(200);
    expect(seen).toHaveLength(1);
  });

  it('refuses a redirect to the metadata address', async () => {
    handler = (_req, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    const error = await failure(fetchBuffer(`${base}/hop`, { guardAddresses: true, allowLoopback: true }));
    expect(error.reason).toBe('forbidden_address');
    expect(error.message).toMatch(/link-local/);
  });

  it('checks the addresses DNS returns, not only the name', async () => {
    const lookup = (policy: { allowLoopback?: boolean }): Promise<unknown> =>
      new Promise((resolve) => guardedLookup(policy)('localhost', {}, (error, address) => resolve(error ?? address)));
    expect(String(await lookup({}))).toMatch(/localhost resolves to 127\.0\.0\.1, a loopback address/);
    expect(await lookup({ allowLoopback: true })).toBe('127.0.0.1');
  });
});

describe('fetchBuffer: maxRedirects 0', () => {
  it('returns the redirect itself instead of following it', async () => {
    handler = (_req, res) => res.writeHead(302, { location: '/elsewhere' }).end();
    const result = await fetchBuffer(`${base}/hook`, { method: 'POST', body: '{}', maxRedirects: 0 });
    expect(result.status).toBe(302);
    expect(result.headers.location).toBe('/elsewhere');
    expect(seen.map((s) => s.path)).toEqual(['/hook']);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import pLimit from 'p-limit';
import { HttpClient } from '../../../src/client/http.js';
import { parseRateLimit, parseRateLimitPolicy } from '../../../src/client/pacing.js';
import { parseRetryAfter } from '../../../src/net/retry.js';
import { envelope, sendJson, startFake, type FakeServer } from '../../helpers/fake-server.js';

describe('RateLimit header parsing (IETF draft, structured-field lists)', () => {
  it('reads named policies with quota and window', () => {
    expect(parseRateLimitPolicy('"analyze";q=60;w=60')).toEqual([{ name: 'analyze', quota: 60, windowS: 60 }]);
    expect(parseRateLimitPolicy('"burst";q=10;w=1, "day";q=1000;w=86400')).toEqual([
      { name: 'burst', quota: 10, windowS: 1 },
      { name: 'day', quota: 1000, windowS: 86400 },
    ]);
  });

  it('ignores malformed members, as the draft tells clients to', () => {
    expect(parseRateLimitPolicy('garbage;;, "ok";q=5;w=2, "noquota";w=3')).toEqual([{ name: 'ok', quota: 5, windowS: 2 }]);
    expect(parseRateLimit('"analyze";r=0;t=7, "bad";t=1')).toEqual([{ name: 'analyze', remaining: 0, resetS: 7 }]);
  });

  it('reads Retry-After as seconds or as an HTTP-date', () => {
    expect(parseRetryAfter('12')).toBe(12);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:10 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(10);
    expect(parseRetryAfter('soon')).toBeNull();
  });
});

/**
 * A server that limits like immoreel's (a sliding-window log per policy, counted when the request
 * arrives) and says so in RateLimit-Policy / RateLimit, with Retry-After on its 429s.
 */
async function limitedServer(quota: number, windowMs: number, preUsed = 0): Promise<{ fake: FakeServer; refused: () => number }> {
  const log: number[] = [];
  for (let i = 0; i < preUsed; i += 1) log.push(Date.now());
  let refused = 0;
  const fake = await startFake((request, res) => {
    const now = request.at;
    while (log.length > 0 && log[0]! <= now - windowMs) log.shift();
    const secondsUntilSlot = (): number => (log.length === 0 ? 0 : Math.max(1, Math.ceil((log[0]! + windowMs - now) / 1000)));
    const policy = { 'ratelimit-policy': `"analyze";q=${quota};w=${windowMs / 1000}` };
    if (log.length >= quota) {
      refused += 1;
      const wait = secondsUntilSlot();
      sendJson(res, 429, envelope('RATE_LIMIT_EXCEEDED', 'slow down', { reason: 'analyze_rate' }), {
        ...policy,
        ratelimit: `"analyze";r=0;t=${wait}`,
        'retry-after': String(wait),
      });
      return;
    }
    log.push(now);
    // A little work, so that answers lag behind arrivals as on a real server.
    setTimeout(
      () => sendJson(res, 200, { ok: true }, { ...policy, ratelimit: `"analyze";r=${quota - log.length};t=${secondsUntilSlot()}` }),
      15,
    );
  });
  return { fake, refused: () => refused };
}

let fake: FakeServer | null = null;
let client: HttpClient | null = null;
afterEach(async () => {
  await client?.close();
  await fake?.close();
  client = null;
  fake = null;
});

async function runBatch(url: string, count: number, concurrency: number): Promise<number> {
  client = new HttpClient({ baseUrl: url, apiKey: 'k' });
  const http = client;
  const limit = pLimit(concurrency);
  const started = Date.now();
  await Promise.all(
    Array.from({ length: count }, () =>
      limit(() => http.json({ method: 'POST', path: '/api/v1/analyze', route: 'POST /api/v1/analyze', json: {}, retryable: true })),
    ),
  );
  return Date.now() - started;
}

describe('RatePacer against a sliding-window server', () => {
  it('runs a batch larger than the quota with zero 429s, at the advertised rate', { timeout: 30_000 }, async () => {
    const server = await limitedServer(4, 1000);
    fake = server.fake;
    const elapsed = await runBatch(fake.url, 13, 8);
    expect(server.refused()).toBe(0);
    expect(fake.requests).toHaveLength(13);
    // 13 requests at 4 per second need at least three full windows.
    expect(elapsed).toBeGreaterThanOrEqual(3000);
    // …and pacing does not crawl either: well under one request per second.
    expect(elapsed).toBeLessThan(8000);
    // Never more than the quota within any window, as the server counted them.
    const arrivals = fake.requests.map((r) => r.at);
    for (const t of arrivals) expect(arrivals.filter((u) => u > t - 1000 && u <= t).length).toBeLessThanOrEqual(4);
  });

  it('leaves room for what another client with the same key already used', { timeout: 30_000 }, async () => {
    const server = await limitedServer(4, 1000, 3);
    fake = server.fake;
    await runBatch(fake.url, 6, 8);
    expect(server.refused()).toBe(0);
    expect(fake.requests).toHaveLength(6);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.js';
import { RemoteError } from '../../../src/client/errors.js';
import { deprecationWarning, HttpClient, type CallSpec } from '../../../src/client/http.js';
import { closedPort, envelope, sendJson, startFake, type FakeServer } from '../../helpers/fake-server.js';

let fake: FakeServer | null = null;
let client: HttpClient | null = null;

afterEach(async () => {
  await client?.close();
  await fake?.close();
  client = null;
  fake = null;
});

const ME: CallSpec = { method: 'GET', path: '/api/v1/me', route: 'GET /api/v1/me', retryable: true };
const ANALYZE: CallSpec = {
  method: 'POST',
  path: '/api/v1/analyze',
  route: 'POST /api/v1/analyze',
  json: { description: 'x' },
  retryable: false,
};

function clientFor(url: string, options: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}): HttpClient {
  client = new HttpClient({ baseUrl: url, apiKey: 'imk_secret_key_for_tests_0000000000000000000', backoffMs: 20, ...options });
  return client;
}

async function failure(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('HttpClient: 429 and Retry-After', () => {
  it('waits out Retry-After before sending again, then succeeds', async () => {
    fake = await startFake((_req, res, index) => {
      if (index === 0)
        sendJson(
          res,
          429,
          envelope('RATE_LIMIT_EXCEEDED', 'Rate limit of 60 analyze requests per minute exceeded: retry in 1 s.', {
            reason: 'analyze_rate',
          }),
          { 'retry-after': '1' },
        );
      else sendJson(res, 200, { ok: true });
    });
    const answer = await clientFor(fake.url).json<{ ok: boolean }>(ANALYZE);
    expect(answer.body.ok).toBe(true);
    expect(fake.requests).toHaveLength(2);
    // A POST without an idempotency key is still re-sent after a 429: the server did not process it.
    expect(fake.requests[1]!.at - fake.requests[0]!.at).toBeGreaterThanOrEqual(1000);
  });

  it('gives up with exit 5, the server message and its request id when Retry-After is too long', async () => {
    fake = await startFake((_req, res) =>
      sendJson(
        res,
        429,
        envelope('RATE_LIMIT_EXCEEDED', 'Rate limit of 1 analyze requests per 600 s exceeded: retry in 600 s.', {
          reason: 'analyze_rate',
          request_id: 'req_abc123def456',
        }),
        {
          'retry-after': '600',
        },
      ),
    );
    const error = await failure(clientFor(fake.url).json(ANALYZE));
    expect(error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(error.exitCode).toBe(5);
    expect(error.message).toContain('retry in 600 s');
    expect(error.message).toContain('req_abc123def456');
    expect(error.retryAfterS).toBe(600);
    expect(fake.requests).toHaveLength(1);
  });
});

describe('HttpClient: retries of 5xx and network errors', () => {
  it('retries an idempotent request after 500 and 503, and returns the third answer', async () => {
    fake = await startFake((_req, res, index) => {
      if (index === 0) sendJson(res, 500, envelope('INTERNAL_SERVER_ERROR', 'An unexpected error occurred on the server.'));
      else if (index === 1) {
        res.writeHead(503, { 'content-type': 'text/html' });
        res.end('<h1>Service Unavailable</h1>');
      } else sendJson(res, 200, { ok: true, key: { key_id: 'key_1' } });
    });
    const answer = await clientFor(fake.url).json<{ key: { key_id: string } }>(ME);
    expect(answer.body.key.key_id).toBe('key_1');
    expect(answer.attempt).toBe(3);
    expect(fake.requests).toHaveLength(3);
  });

  it('never re-sends a request that is not safe to repeat', async () => {
    fake = await startFake((_req, res) =>
      sendJson(
        res,
        500,
        envelope('INTERNAL_SERVER_ERROR', 'An unexpected error occurred on the server.', { request_id: 'req_500xyz000000' }),
      ),
    );
    const error = await failure(clientFor(fake.url).json(ANALYZE));
    expect(fake.requests).toHaveLength(1);
    expect(error.code).toBe('INTERNAL_SERVER_ERROR');
    expect(error.exitCode).toBe(1);
    expect(error.message).toContain('req_500xyz000000');
  });

  it('reports a server that is not running as SERVICE_UNAVAILABLE (exit 6) at once when no wait is allowed', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const error = await failure(clientFor(url, { outageWaitMs: 0 }).json(ME));
    expect(error.code).toBe('SERVICE_UNAVAILABLE');
    expect(error.exitCode).toBe(6);
    expect(error.message).toBe(
      `Cannot reach the immoreel server at ${url} (connection refused). Check that it is running and that --base-url or the profile's URL is right.`,
    );
  });

  it('gives up on a server that does not answer in time, with the timeout in the message', async () => {
    fake = await startFake(() => undefined); // never answers
    const error = await failure(clientFor(fake.url, { retries: 0 }).json({ ...ME, timeoutMs: 300 }));
    expect(error.code).toBe('SERVICE_UNAVAILABLE');
    expect(error.message).toContain('no answer within 0.3 s');
  });
});

describe('HttpClient: outages are waited out within IMMOREEL_REMOTE_WAIT_SECONDS (docs/remote.md "Outages")', () => {
  const unavailable = (res: Parameters<Parameters<typeof startFake>[0]>[1]): void =>
    sendJson(
      res,
      503,
      envelope('SERVICE_UNAVAILABLE', "The service's database is unavailable for a moment; retry in 1 s.", {
        reason: 'database_unavailable',
      }),
      {
        'retry-after': '1',
      },
    );

  it('waits out 503s never sooner than Retry-After, saying so, then returns the answer', async () => {
    fake = await startFake((_req, res, index) =>
      index < 2 ? unavailable(res) : sendJson(res, 200, { ok: true, key: { key_id: 'key_1' } }),
    );
    const warnings: string[] = [];
    const answer = await clientFor(fake.url, { warn: (m) => warnings.push(m) }).json<{ key: { key_id: string } }>(ME);
    expect(answer.body.key.key_id).toBe('key_1');
    expect(fake.requests).toHaveLength(3);
    expect(fake.requests[1]!.at - fake.requests[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(fake.requests[2]!.at - fake.requests[1]!.at).toBeGreaterThanOrEqual(1000);
    expect(warnings).toEqual([
      `the immoreel server at ${fake.url} is unavailable (its database is unavailable); retrying in 1 s (waited 0 s of 120 s)`,
      expect.stringMatching(/is unavailable \(its database is unavailable\); retrying in 1 s \(waited [12] s of 120 s\)$/),
    ]);
  });

  it('gives up with exit 6 once the wait is used up, saying how long it waited', async () => {
    fake = await startFake((_req, res) => unavailable(res));
    const error = await failure(clientFor(fake.url, { outageWaitMs: 3_000, warn: () => undefined }).json(ME));
    expect(error.exitCode).toBe(6);
    expect(error.message).toMatch(
      /^The service's database is unavailable for a moment; retry in 1 s\. \(request_id \w+\) Gave up after waiting [12] s \(IMMOREEL_REMOTE_WAIT_SECONDS=3\)\.$/,
    );
    expect(fake.requests.length).toBeGreaterThanOrEqual(2);
  });

  it('waits for a server that refuses connections, even for a request not safe to repeat', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const warnings: string[] = [];
    const started = Date.now();
    const error = await failure(clientFor(url, { outageWaitMs: 2_000, warn: (m) => warnings.push(m) }).json(ANALYZE));
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(error.exitCode).toBe(6);
    expect(error.message).toMatch(
      /^Cannot reach the immoreel server at .* \(connection refused\)\..* Gave up after waiting [12] s \(IMMOREEL_REMOTE_WAIT_SECONDS=2\)\.$/,
    );
    expect(warnings[0]).toMatch(/is unavailable \(connection refused\); retrying in [\d.]+ s \(waited 0 s of 2 s\)$/);
  });

  it('never re-sends a request not safe to repeat after a 503: the server may have done the work', async () => {
    fake = await startFake((_req, res) => unavailable(res));
    const error = await failure(clientFor(fake.url).json(ANALYZE));
    expect(error.exitCode).toBe(6);
    expect(fake.requests).toHaveLength(1);
  });
});

describe('HttpClient: the error envelope becomes the AppError of docs/cli.md', () => {
  const cases: { status: number; code: string; reason?: string; exit: number }[] = [
    { status: 400, code: 'BAD_REQUEST', reason: 'invalid_request', exit: 2 },
    { status: 401, code: 'UNAUTHORIZED', reason: 'invalid_key', exit: 4 },
    { status: 403, code: 'INSUFFICIENT_SCOPE', reason: 'other_tenant', exit: 4 },
    { status: 403, code: 'QUOTA_EXCEEDED', reason: 'route_not_permitted', exit: 4 },
    { status: 403, code: 'QUOTA_EXCEEDED', reason: 'monthly_quota', exit: 5 },
    { status: 404, code: 'NOT_FOUND', reason: 'unknown_job', exit: 2 },
    { status: 502, code: 'UPSTREAM_ERROR', reason: 'portal_down', exit: 6 },
  ];
  for (const c of cases) {
    it(`${c.status} ${c.code} (${c.reason}) → exit ${c.exit}, message and request id kept`, async () => {
      fake = await startFake((_req, res) =>
        sendJson(
          res,
          c.status,
          envelope(c.code, `Server says ${c.code}.`, {
            reason: c.reason,
            request_id: 'req_map0000000001',
            details: [{ field: 'language', message: 'must be one of fr, en, ar' }],
          }),
        ),
      );
      const error = await failure(clientFor(fake.url).json(ANALYZE));
      expect(error).toBeInstanceOf(RemoteError);
      expect(error.code).toBe(c.code);
      expect(error.exitCode).toBe(c.exit);
      expect(error.reason).toBe(c.reason);
      expect(error.message.startsWith(`Server says ${c.code}. (request_id req_map0000000001)`)).toBe(true);
      expect(error.details).toEqual([{ field: 'language', message: 'must be one of fr, en, ar' }]);
      expect((error as RemoteError).toJSON()).toMatchObject({ code: c.code, request_id: 'req_map0000000001' });
      // An UPSTREAM_ERROR is the portal's failure, not the server's: not retried.
      expect(fake.requests).toHaveLength(1);
    });
  }

  it('tells how to log in again on a 401', async () => {
    fake = await startFake((_req, res) =>
      sendJson(res, 401, envelope('UNAUTHORIZED', 'Invalid API key: it is unknown or was revoked.', { reason: 'invalid_key' })),
    );
    const error = await failure(clientFor(fake.url).json(ME));
    expect(error.message).toContain(`immoreel auth login --base-url ${fake.url}`);
  });

  it('names a base URL that is not an immoreel server', async () => {
    fake = await startFake((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html>nginx</html>');
    });
    const error = await failure(clientFor(fake.url).json(ME));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toContain(`GET /api/v1/me at ${fake.url} answered HTTP 404. Is ${fake.url} an immoreel server?`);
  });

  it('never sends the key in a query string and sends it as a Bearer header', async () => {
    fake = await startFake((_req, res) => sendJson(res, 200, { ok: true }));
    await clientFor(fake.url).json(ME);
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer imk_secret_key_for_tests_0000000000000000000');
    expect(fake.requests[0]!.url).toBe('/api/v1/me');
  });
});

describe('HttpClient: Deprecation and Sunset', () => {
  it('warns once per route, on one line, with the sunset date and the link', async () => {
    fake = await startFake((_req, res) =>
      sendJson(
        res,
        200,
        { ok: true },
        { deprecation: '@1767225600', sunset: 'Thu, 01 Oct 2026 00:00:00 GMT', link: '<https://docs.example/migrate>; rel="deprecation"' },
      ),
    );
    const warnings: string[] = [];
    const http = clientFor(fake.url, { warn: (m) => warnings.push(m) });
    await http.json(ME);
    await http.json(ME);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).not.toContain('\n');
    expect(warnings[0]).toContain('GET /api/v1/me');
    expect(warnings[0]).toContain('2026-10-01');
    expect(warnings[0]).toContain('https://docs.example/migrate');
  });

  it('says nothing when the answer carries neither header', () => {
    expect(deprecationWarning('GET /api/v1/me', {})).toBeNull();
  });
});

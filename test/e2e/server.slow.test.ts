import { execFile } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { compileErrors, validate } from '@readme/openapi-parser';
import sharp from 'sharp';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { promtoolProblems, sample } from '../helpers/prometheus-text.js';
import { bearer, createKey, freshDataDir, startServe, type CreatedKey, type ServeProcess } from '../helpers/serve-process.js';

/**
 * `immoreel serve` end to end: the built CLI on a random loopback port with a fresh data
 * directory, keys made with `immoreel keys create`, a real HTTP client, a real render checked
 * with ffprobe. `npm test` builds first (bin/immoreel.js runs dist/).
 */

const run = promisify(execFile);
/** Real renders and CLI spawns on a shared 2-core machine: generous, they only bound a hang. */
const SLOW = 300_000;
const LISTING =
  'Appartement à vendre à Maarif, Casablanca. Bel appartement de 120 m² au 3e étage avec ascenseur, 3 chambres, 2 salles de bain, ' +
  'un salon marocain, cuisine équipée, terrasse et parking. Prix : 1 850 000 DH.';

interface Envelope {
  ok: false;
  status: 'error';
  error: {
    code: string;
    message: string;
    reason?: string;
    details: { field: string; message: string }[];
    request_id: string;
    successor?: string;
  };
}
interface JobAnswer {
  ok: true;
  job: {
    job_id: string;
    state: string;
    links: { self: string; video: string | null };
    result: { sha256: string; size_bytes: number } | null;
    error: unknown;
  };
}

let serve: ServeProcess;
let dataDir: string;
let acme: CreatedKey;
let rival: CreatedKey;
let preview: CreatedKey;
let hookServer: Server;
const hooks: { headers: IncomingHttpHeaders; body: string }[] = [];
let hookUrl: string;

async function call(
  method: 'GET' | 'POST',
  path: string,
  options: { key?: CreatedKey; body?: unknown; raw?: string | Buffer; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...(options.key ? bearer(options.key) : {}), ...options.headers };
  let body: string | Buffer | undefined = options.raw;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await request(`${serve.url}${path}`, { method, headers, body });
  const buffer = Buffer.from(await response.body.arrayBuffer());
  return {
    status: response.statusCode,
    headers: response.headers,
    buffer,
    text: buffer.toString(),
    json: <T>() => JSON.parse(buffer.toString()) as T,
  };
}

function expectEnvelope(
  answer: { status: number; headers: IncomingHttpHeaders; text: string },
  status: number,
  code: string,
  reason?: string,
): Envelope['error'] {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers['x-api-version']).toBe('1.0.0');
  const body = JSON.parse(answer.text) as Envelope;
  expect(body.ok).toBe(false);
  expect(body.status).toBe('error');
  expect(body.error.code).toBe(code);
  if (reason !== undefined) expect(body.error.reason).toBe(reason);
  expect(body.error.request_id).toBe(answer.headers['x-request-id']);
  expect(Array.isArray(body.error.details)).toBe(true);
  return body.error;
}

async function waitForJob(key: CreatedKey, jobId: string, timeoutMs = 240_000): Promise<JobAnswer['job']> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await call('GET', `/api/v1/jobs/${jobId}`, { key });
    expect(answer.status).toBe(200);
    const { job } = answer.json<JobAnswer>();
    if (['succeeded', 'failed', 'canceled'].includes(job.state)) return job;
    // The server says when to come back; obeying it keeps us far below 120 reads per minute.
    expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.state}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

function verifySignature(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key)
    .update(`${String(headers['webhook-id'])}.${String(headers['webhook-timestamp'])}.${body}`)
    .digest();
  const [version, signature] = String(headers['webhook-signature']).split(',');
  const given = Buffer.from(signature ?? '', 'base64');
  return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
}

beforeAll(async () => {
  dataDir = freshDataDir();
  acme = await createKey(dataDir, ['--tenant', 'acme']);
  rival = await createKey(dataDir, ['--tenant', 'rival']);
  preview = await createKey(dataDir, ['--tenant', 'sandbox', '--preview']);
  hookServer = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      hooks.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => hookServer.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}/hook`;
  // Loopback fetches are allowed only so that the webhook receiver above can run on 127.0.0.1.
  serve = await startServe(dataDir, ['--allow-loopback-fetch', '--concurrency', '1', '--metrics-port', '0']);
}, SLOW);

afterAll(async () => {
  await serve?.stop();
  hookServer?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('immoreel serve: the error table of the contract', () => {
  it('400 BAD_REQUEST for invalid JSON and invalid fields, naming them', async () => {
    expectEnvelope(
      await call('POST', '/api/v1/analyze', { key: acme, raw: '{"description": ', headers: { 'content-type': 'application/json' } }),
      400,
      'BAD_REQUEST',
      'invalid_json',
    );
    const error = expectEnvelope(
      await call('POST', '/api/v1/analyze', { key: acme, body: { description: LISTING, language: 'de', colour: 'red' } }),
      400,
      'BAD_REQUEST',
    );
    expect(error.details.map((d) => d.field).sort()).toEqual(['colour', 'language']);
    const neither = expectEnvelope(await call('POST', '/api/v1/analyze', { key: acme, body: { language: 'en' } }), 400, 'BAD_REQUEST');
    expect(neither.details[0]!.field).toBe('url');
  });

  it('401 UNAUTHORIZED with WWW-Authenticate for a missing or invalid key', async () => {
    const missing = await call('GET', '/api/v1/me');
    expectEnvelope(missing, 401, 'UNAUTHORIZED', 'missing_key');
    expect(missing.headers['www-authenticate']).toMatch(/^Bearer/);
    const wrong = await call('GET', '/api/v1/me', { headers: { authorization: 'Bearer imk_not-a-real-key' } });
    expectEnvelope(wrong, 401, 'UNAUTHORIZED', 'invalid_key');
  });

  it('403 INSUFFICIENT_SCOPE for a preview key on billing', async () => {
    const answer = await call('GET', '/api/v1/usage', { key: preview });
    expectEnvelope(answer, 403, 'INSUFFICIENT_SCOPE', 'billing_scope');
    expect((await call('GET', '/api/v1/usage', { key: acme })).status).toBe(200);
  });

  it(
    '403 QUOTA_EXCEEDED for a route the key may not use, and for a spent monthly quota',
    async () => {
      const readOnly = await createKey(dataDir, ['--tenant', 'acme', '--scopes', 'preview:read']);
      expectEnvelope(
        await call('POST', '/api/v1/analyze', { key: readOnly, body: { description: LISTING } }),
        403,
        'QUOTA_EXCEEDED',
        'route_not_permitted',
      );
      const small = await createKey(dataDir, ['--tenant', 'acme', '--monthly-quota', '1']);
      const first = await call('POST', '/api/v1/analyze', { key: small, body: { description: LISTING } });
      expect(first.status, first.text).toBe(200);
      expectEnvelope(
        await call('POST', '/api/v1/analyze', { key: small, body: { description: LISTING } }),
        403,
        'QUOTA_EXCEEDED',
        'monthly_quota',
      );
    },
    SLOW,
  );

  it(
    '429 RATE_LIMIT_EXCEEDED once the burst of 60 analyses is spent, with Retry-After and RateLimit headers',
    async () => {
      const busy = await createKey(dataDir, ['--tenant', 'busy']);
      // The limit is a token bucket (docs/api.md "Rate limits"): a burst of 60, refilled at one a
      // second. Sent in concurrent batches until refused: 60 pass, plus at most what refilled meanwhile.
      const started = Date.now();
      let admitted = 0;
      let limited: Awaited<ReturnType<typeof call>> | null = null;
      while (limited === null && admitted < 200) {
        const answers = await Promise.all(
          Array.from({ length: 12 }, () => call('POST', '/api/v1/analyze', { key: busy, body: { description: LISTING } })),
        );
        for (const answer of answers) {
          if (answer.status === 429) limited ??= answer;
          else {
            expect(answer.status, answer.text).toBe(200);
            expect(String(answer.headers.ratelimit)).toMatch(/^"analyze";r=\d+;t=\d+$/);
            admitted += 1;
          }
        }
      }
      const elapsedS = (Date.now() - started) / 1000;
      expect(admitted).toBeGreaterThanOrEqual(60);
      expect(admitted).toBeLessThanOrEqual(60 + Math.ceil(elapsedS) + 1);
      expectEnvelope(limited!, 429, 'RATE_LIMIT_EXCEEDED', 'analyze_rate');
      expect(Number(limited!.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(limited!.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(limited!.headers['ratelimit-policy']).toBe('"analyze";q=60;w=60');
    },
    SLOW,
  );

  it('410 GONE for both retired routes, without a key, naming the successor', async () => {
    const campaigns = await call('POST', '/api/v1/campaigns/generate', { body: {} });
    expect(expectEnvelope(campaigns, 410, 'GONE').message).toContain('POST /api/v1/render-video');
    expect(campaigns.headers.link).toBe('</api/v1/render-video>; rel="successor-version"');
    expect(campaigns.headers.sunset).toBe('Thu, 01 Oct 2026 00:00:00 GMT');
    const tasks = await call('GET', '/api/v1/tasks/abc123');
    expect(expectEnvelope(tasks, 410, 'GONE').message).toContain('GET /api/v1/jobs/{job_id}');
    expect(tasks.headers.link).toBe('</api/v1/jobs/{job_id}>; rel="successor-version"');
  });

  it('500 INTERNAL_SERVER_ERROR with a generic message when the data directory breaks under it, and stays up', async () => {
    // Root ignores file modes, so "read-only" cannot break anything here. Instead the assets
    // folder is replaced by a plain file: storing an upload then fails inside the server
    // (ENOTDIR/EEXIST), a genuine internal failure the caller cannot cause or fix.
    const assetsDir = join(dataDir, 'assets');
    rmSync(assetsDir, { recursive: true, force: true });
    writeFileSync(assetsDir, 'not a directory');
    try {
      const image = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#aa3300' } })
        .png()
        .toBuffer();
      const answer = await call('POST', '/api/v1/assets', { key: acme, raw: image, headers: { 'content-type': 'image/png' } });
      const error = expectEnvelope(answer, 500, 'INTERNAL_SERVER_ERROR');
      expect(error.message).not.toMatch(/ENOTDIR|EEXIST|assets|immoreel-serve/);
      const logged = serve.logs.find((l) => l.request_id === error.request_id && l.level === 'error');
      expect(logged, 'the cause is in the log under the same request id').toBeDefined();
    } finally {
      rmSync(assetsDir, { force: true });
    }
    expect((await call('GET', '/api/v1/health')).status).toBe(200);
  });
});

describe('immoreel serve: keys', () => {
  it(
    'revokes a key with `keys revoke`, effective on the next request, and lists keys masked',
    async () => {
      const temp = await createKey(dataDir, ['--tenant', 'acme']);
      expect((await call('GET', '/api/v1/me', { key: temp })).status).toBe(200);
      const revoked = await runCli(['--data-dir', dataDir, 'keys', 'revoke', temp.key_id]);
      expect(revoked.code).toBe(0);
      expectEnvelope(await call('GET', '/api/v1/me', { key: temp }), 401, 'UNAUTHORIZED', 'invalid_key');
      const listed = await runCli(['--data-dir', dataDir, 'keys', 'list']);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain(temp.key_id);
      expect(listed.stdout).toMatch(/revoked/);
      expect(listed.stdout).not.toContain(temp.api_key);
      expect(listed.stdout).not.toContain(acme.api_key);
    },
    SLOW,
  );
});

describe('immoreel serve: render jobs', () => {
  let jobId: string;

  it(
    'takes a render from queued to succeeded, signs its webhook, and serves a verified MP4 with Range support',
    async () => {
      const photo = await sharp({ create: { width: 1600, height: 1000, channels: 3, background: '#c9a27e' } })
        .jpeg()
        .toBuffer();
      const upload = await call('POST', '/api/v1/assets', { key: acme, raw: photo, headers: { 'content-type': 'image/jpeg' } });
      expect(upload.status, upload.text).toBe(201);
      const { asset } = upload.json<{ asset: { ref: string } }>();

      const body = { description: LISTING, photos: [asset.ref], duration_s: 10, webhook_url: hookUrl, metadata: { crm_id: 'A-42' } };
      const created = await call('POST', '/api/v1/render-video', { key: acme, body, headers: { 'idempotency-key': 'render-acme-1' } });
      expect(created.status, created.text).toBe(202);
      const { job } = created.json<JobAnswer>();
      jobId = job.job_id;
      expect(job.state).toBe('queued');
      expect(created.headers.location).toBe(`/api/v1/jobs/${jobId}`);

      // Idempotent replay: same key and body → the same job; same key, other body → 400.
      const replay = await call('POST', '/api/v1/render-video', { key: acme, body, headers: { 'idempotency-key': 'render-acme-1' } });
      expect(replay.status).toBe(202);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.json<JobAnswer>().job.job_id).toBe(jobId);
      expectEnvelope(
        await call('POST', '/api/v1/render-video', {
          key: acme,
          body: { ...body, duration_s: 12 },
          headers: { 'idempotency-key': 'render-acme-1' },
        }),
        400,
        'BAD_REQUEST',
        'idempotency_key_reused',
      );

      const done = await waitForJob(acme, jobId);
      expect(done.state, JSON.stringify(done.error)).toBe('succeeded');
      expect(done.links.video).toBe(`/api/v1/jobs/${jobId}/video`);

      const video = await call('GET', `/api/v1/jobs/${jobId}/video`, { key: acme });
      expect(video.status).toBe(200);
      expect(video.headers['content-type']).toBe('video/mp4');
      expect(video.buffer.length).toBe(done.result!.size_bytes);
      const file = join(dataDir, 'downloaded.mp4');
      writeFileSync(file, video.buffer);
      const probe = await run('ffprobe', [
        '-v',
        'error',
        '-show_entries',
        'stream=codec_type,codec_name,width,height,r_frame_rate',
        '-of',
        'json',
        file,
      ]);
      const streams = (
        JSON.parse(probe.stdout) as {
          streams: { codec_type: string; codec_name: string; width?: number; height?: number; r_frame_rate?: string }[];
        }
      ).streams;
      expect(streams.find((s) => s.codec_type === 'video')).toMatchObject({
        codec_name: 'h264',
        width: 1280,
        height: 720,
        r_frame_rate: '60/1',
      });
      expect(streams.find((s) => s.codec_type === 'audio')).toMatchObject({ codec_name: 'aac' });

      const part = await call('GET', `/api/v1/jobs/${jobId}/video`, { key: acme, headers: { range: 'bytes=0-99' } });
      expect(part.status).toBe(206);
      expect(part.headers['content-range']).toBe(`bytes 0-99/${video.buffer.length}`);
      expect(part.buffer.equals(video.buffer.subarray(0, 100))).toBe(true);
      const outside = await call('GET', `/api/v1/jobs/${jobId}/video`, { key: acme, headers: { range: `bytes=${video.buffer.length}-` } });
      expect(outside.status).toBe(416);
      expect(outside.headers['content-range']).toBe(`bytes */${video.buffer.length}`);

      for (let i = 0; i < 50 && hooks.length === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(hooks).toHaveLength(1);
      expect(verifySignature(acme.webhook_secret, hooks[0]!.headers, hooks[0]!.body)).toBe(true);
      expect(verifySignature(rival.webhook_secret, hooks[0]!.headers, hooks[0]!.body)).toBe(false);
      const payload = JSON.parse(hooks[0]!.body) as { type: string; data: { job_id: string; metadata: unknown } };
      expect(payload).toMatchObject({ type: 'job.succeeded', data: { job_id: jobId, metadata: { crm_id: 'A-42' } } });
    },
    SLOW,
  );

  it(
    'isolates tenants both ways: jobs, videos and lists',
    async () => {
      const theirs = await call('POST', '/api/v1/render-video', {
        key: rival,
        body: { description: LISTING, photos: ['https://cdn.example.com/photo-1.jpg'] },
      });
      expect(theirs.status, theirs.text).toBe(202);
      const rivalJob = theirs.json<JobAnswer>().job.job_id;
      await call('POST', `/api/v1/jobs/${rivalJob}/cancel`, { key: rival });

      expectEnvelope(await call('GET', `/api/v1/jobs/${jobId}`, { key: rival }), 403, 'INSUFFICIENT_SCOPE', 'other_tenant');
      expectEnvelope(await call('GET', `/api/v1/jobs/${jobId}/video`, { key: rival }), 403, 'INSUFFICIENT_SCOPE', 'other_tenant');
      expectEnvelope(await call('POST', `/api/v1/jobs/${jobId}/cancel`, { key: rival }), 403, 'INSUFFICIENT_SCOPE', 'other_tenant');
      expectEnvelope(await call('GET', `/api/v1/jobs/${rivalJob}`, { key: acme }), 403, 'INSUFFICIENT_SCOPE', 'other_tenant');
      expectEnvelope(await call('GET', `/api/v1/jobs/${rivalJob}`, { key: preview }), 403, 'INSUFFICIENT_SCOPE', 'other_tenant');

      const acmeList = (await call('GET', '/api/v1/jobs', { key: acme })).json<{ jobs: { job_id: string }[] }>().jobs.map((j) => j.job_id);
      const rivalList = (await call('GET', '/api/v1/jobs', { key: rival }))
        .json<{ jobs: { job_id: string }[] }>()
        .jobs.map((j) => j.job_id);
      expect(acmeList).toContain(jobId);
      expect(acmeList).not.toContain(rivalJob);
      expect(rivalList).toEqual([rivalJob]);
    },
    SLOW,
  );
});

describe('immoreel serve: contract and lifecycle', () => {
  it('publishes a valid OpenAPI 3.1 document', async () => {
    const answer = await call('GET', '/api/v1/openapi.json');
    expect(answer.status).toBe(200);
    const doc = answer.json<{ openapi: string; paths: Record<string, unknown> }>();
    expect(doc.openapi).toBe('3.1.0');
    const result = await validate(doc as never);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/v1/analyze', '/api/v1/render-video', '/api/v1/jobs/{job_id}', '/api/v1/jobs/{job_id}/video']),
    );
  });

  it('serves Prometheus metrics on --metrics-port only: the render timed, the 429s counted, promtool satisfied', async () => {
    expect((await call('GET', '/metrics')).status, 'the API port never shows the metrics').toBe(404);
    const line = serve.logs.find((l) => l.event === 'metrics');
    expect(line, 'serve logs where its metrics are').toBeDefined();
    const answer = await request(String(line!.url));
    expect(answer.statusCode).toBe(200);
    const text = await answer.body.text();
    expect(promtoolProblems(text)).toBe('');
    expect(sample(text, 'immoreel_render_duration_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'immoreel_render_duration_seconds_sum')).toBeGreaterThan(0);
    expect(sample(text, 'immoreel_refusals_total', 'reason="rate_limit"')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'immoreel_jobs', 'state="succeeded"')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'immoreel_renders_in_flight')).toBe(0);
    expect(sample(text, 'immoreel_outbox_backlog')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'immoreel_fetch_duration_seconds_count')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
  });

  it('never writes API keys or bodies to its log, and stops cleanly on SIGTERM', async () => {
    const log = serve.rawStderr();
    for (const key of [acme, rival, preview]) expect(log).not.toContain(key.api_key);
    expect(log).not.toContain('Maarif');
    expect(serve.logs.some((l) => l.msg === 'request' && l.route === '/api/v1/analyze' && typeof l.latency_ms === 'number')).toBe(true);
    const code = await serve.stop();
    expect(code).toBe(0);
    expect(serve.logs.some((l) => l.event === 'stopped')).toBe(true);
  });
});

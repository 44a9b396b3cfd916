import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3BlobStore } from '../../../src/blobs/s3-store.js';
import { rideOut } from '../../../src/jobs/ride-out.js';
import { startServer, type RunningServer, type StartOptions } from '../../../src/server/start.js';
import { TEST_FFMPEG } from '../../helpers/config.js';
import { fakeEngine } from '../../helpers/fake-engine.js';
import { startS3, type S3Server } from '../../helpers/services.js';

/**
 * A video upload while the object storage restarts (docs/operations.md "Outages"): the write is
 * waited out with backoff and lands once the server is back; past the budget it fails with a
 * retryable SERVICE_UNAVAILABLE that names no endpoint. A download while it is down answers 503
 * in words that name nothing of the deployment; the log keeps the detail (docs/operations.md "Logs").
 */

let s3: S3Server;
let blobs: S3BlobStore;

beforeAll(async () => {
  s3 = await startS3('immoreel-outage');
  blobs = S3BlobStore.fromEnvironment(s3.bucket, 'videos', s3.env);
}, 60_000);

afterAll(async () => {
  await blobs?.close();
  await s3?.stop();
});

describe('an upload during a storage outage', () => {
  it('waits the outage out and lands once the server is back, each phase told once', async () => {
    await s3.halt();
    const events: string[] = [];
    const body = Buffer.from('a finished video');
    const upload = rideOut('uploading a video', () => blobs.put('jobs/outage.mp4', body, { contentType: 'video/mp4' }), {
      budgetMs: 60_000,
      maxDelayMs: 1_000,
      onOutage: ({ outage, phase }) => events.push(`${outage} ${phase}`),
    });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await s3.resume();
    await upload;
    expect(events).toEqual(['storage begins', 'storage ends']);
    expect((await blobs.head('jobs/outage.mp4'))?.size).toBe(body.length);
  });

  it('gives up past its budget with a retryable error that names no endpoint', async () => {
    await s3.halt();
    try {
      const failure = await rideOut('uploading a video', () => blobs.put('jobs/late.mp4', Buffer.from('x')), { budgetMs: 1_500 }).catch(
        (error: unknown) => error as { code?: string; reason?: string; message: string },
      );
      expect(failure).toMatchObject({ code: 'SERVICE_UNAVAILABLE', reason: 'storage_unavailable' });
      expect((failure as Error).message).not.toContain(s3.endpoint);
    } finally {
      await s3.resume();
    }
  });
});

/**
 * An API node on the bucket (under `prefix`) with one key and one job rendered and uploaded: what a
 * client downloads, or uploads beside, when the storage goes away.
 */
async function nodeWithVideo(
  root: string,
  prefix: string,
  log: StartOptions['log'],
): Promise<{ server: RunningServer; jobId: string; call: (path: string, init?: RequestInit, type?: string) => Promise<Response> }> {
  const server = await startServer({
    dataDir: root,
    storageUrl: `s3://${s3.bucket}/${prefix}`,
    aws: s3.env,
    host: '127.0.0.1',
    port: 0,
    engine: fakeEngine({ ms: 50 }),
    ffmpeg: TEST_FFMPEG,
    log,
  });
  const { apiKey } = await server.records.keys.create({ tenant: 'acme' });
  const call = (path: string, init: RequestInit = {}, type = 'application/json'): Promise<Response> =>
    fetch(`${server.url}/api/v1${path}`, { ...init, headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': type } });
  const created = await call('/render-video', {
    method: 'POST',
    body: JSON.stringify({
      description: 'Appartement 120 m² à Maarif, Casablanca, 1 850 000 DH',
      photos: ['https://photos.example.com/a.jpg'],
    }),
  });
  expect(created.status, await created.clone().text()).toBe(202);
  const jobId = ((await created.json()) as { job: { job_id: string } }).job.job_id;
  let state = '';
  for (let i = 0; i < 200 && state !== 'succeeded' && state !== 'failed'; i += 1) {
    state = ((await (await call(`/jobs/${jobId}`)).json()) as { job: { state: string } }).job.state;
    if (state !== 'succeeded') await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(state).toBe('succeeded');
  return { server, jobId, call };
}

describe('a download while the storage is down', () => {
  it('answers 503 naming neither the endpoint nor a variable; the log line has the detail', async () => {
    const root = mkdtempSync(join(tmpdir(), 'immoreel-download-outage-'));
    let log = '';
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        log += chunk.toString();
        done();
      },
    });
    const { server, jobId, call } = await nodeWithVideo(root, 'api', { stream, level: 'info' });
    try {
      expect((await call(`/jobs/${jobId}/video`)).status).toBe(200);

      await s3.halt();
      try {
        const download = await call(`/jobs/${jobId}/video`);
        const body = await download.text();
        expect(download.status, body).toBe(503);
        expect(Number(download.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(JSON.parse(body)).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE', reason: 'storage_unavailable' } });
        const hostPort = new URL(s3.endpoint).host;
        expect(body).not.toContain(hostPort);
        expect(body).not.toMatch(/IMMOREEL_|AWS_|s3:\/\//);
        // The operator's line, under the request id the client got, names the endpoint that failed.
        const requestId = download.headers.get('x-request-id');
        const lines = (): { event?: string; level?: string; request_id?: string; error?: string; stack?: string }[] =>
          log
            .split('\n')
            .filter((line) => line !== '')
            .map((line) => JSON.parse(line) as { event?: string; level?: string; request_id?: string; error?: string });
        const began = lines().find((line) => line.event === 'outage_begins' && line.request_id === requestId);
        expect(began?.level).toBe('warn');
        expect(began?.error).toContain(hostPort);
        // Every request meets the same outage: one line as it begins, none per request, no stack.
        for (let i = 0; i < 3; i += 1) expect((await call(`/jobs/${jobId}/video`)).status).toBe(503);
        expect(log.match(/"event":"outage_begins"/g)).toHaveLength(1);
        expect(log).not.toMatch(/request failed/);
      } finally {
        await s3.resume();
      }
      // And one line as it ends, once a probe finds the storage back.
      for (let i = 0; i < 100 && !log.includes('"event":"outage_ends"'); i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(log.match(/"event":"outage_ends"/g)).toHaveLength(1);
      expect(log).toMatch(/"requests":4/);
    } finally {
      await server.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('a frozen storage (it accepts connections and never answers)', () => {
  it('answers an asset upload, a download and /ready 503 with Retry-After within 15 s', async () => {
    const root = mkdtempSync(join(tmpdir(), 'immoreel-frozen-'));
    const { server, jobId, call } = await nodeWithVideo(root, 'frozen', false);
    let frozen = false;
    try {
      const image = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c05020' } })
        .png()
        .toBuffer();

      s3.freeze();
      frozen = true;
      const timed = async (request: Promise<Response>): Promise<{ status: number; retryAfter: string | null; seconds: number }> => {
        const started = performance.now();
        const answer = await request;
        await answer.arrayBuffer();
        return { status: answer.status, retryAfter: answer.headers.get('retry-after'), seconds: (performance.now() - started) / 1000 };
      };
      const [upload, download, ready] = await Promise.all([
        timed(call('/assets', { method: 'POST', body: new Uint8Array(image) }, 'image/png')),
        timed(call(`/jobs/${jobId}/video`)),
        timed(call('/ready')),
      ]);
      for (const answer of [upload, download, ready]) {
        expect(answer.status).toBe(503);
        expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
        expect(answer.seconds).toBeLessThan(15);
      }
      s3.thaw();
      frozen = false;
      expect((await call('/assets', { method: 'POST', body: new Uint8Array(image) }, 'image/png')).status).toBe(201);
    } finally {
      if (frozen) s3.thaw();
      await server.close();
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);
});

import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.js';
import type { JobRecord } from '../../../src/core/types.js';
import type { RenderRequest } from '../../../src/core/requests.js';
import { RemoteService } from '../../../src/client/remote-service.js';
import { sniffImageType } from '../../../src/core/images.js';
import { envelope, sendJson, startFake, type FakeServer, type SeenRequest } from '../../helpers/fake-server.js';

let work: string;
let photoA: string;
let photoB: string;
let logo: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'immoreel-remote-'));
  photoA = join(work, 'a.jpg');
  photoB = join(work, 'b.png');
  logo = join(work, 'logo.webp');
  await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c0392b' } })
    .jpeg()
    .toFile(photoA);
  await sharp({ create: { width: 64, height: 48, channels: 3, background: '#2980b9' } })
    .png()
    .toFile(photoB);
  await sharp({ create: { width: 32, height: 32, channels: 4, background: '#ffffff00' } })
    .webp()
    .toFile(logo);
});

let fake: FakeServer | null = null;
let service: RemoteService | null = null;
afterEach(async () => {
  await service?.close();
  await fake?.close();
  service = null;
  fake = null;
});

function job(id: string, state: JobRecord['state'], extra: Partial<JobRecord> = {}): JobRecord {
  return {
    job_id: id,
    state,
    stage: state === 'running' ? 'rendering' : null,
    progress: state === 'succeeded' ? 1 : 0,
    attempts: 1,
    held_back: [],
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: new Date().toISOString(),
    started_at: null,
    finished_at: null,
    template: 'classic',
    format: 'landscape',
    formats: ['landscape'],
    language: 'fr',
    listing: null,
    result: null,
    outputs: null,
    error: state === 'failed' ? { code: 'RENDER_FAILED', message: 'ffmpeg died' } : null,
    warnings: [],
    metadata: null,
    links: { self: `/api/v1/jobs/${id}`, video: null, cancel: null },
    ...extra,
  };
}

function serviceFor(url: string, extra: Partial<ConstructorParameters<typeof RemoteService>[0]> = {}): RemoteService {
  service = new RemoteService({ baseUrl: url, apiKey: 'imk_test_key_000000000000000000', backoffMs: 10, ...extra });
  return service;
}

/** A server with assets and render-video, replaying jobs by Idempotency-Key as immoreel does. */
async function renderServer(options: { firstState?: JobRecord['state']; forgetAssetsOnce?: boolean } = {}) {
  let assets = 0;
  let jobs = 0;
  let forget = options.forgetAssetsOnce === true;
  const byKey = new Map<string, { body: string; job: JobRecord }>();
  const known = new Set<string>();
  const server = await startFake((request: SeenRequest, res) => {
    if (request.url === '/api/v1/assets') {
      assets += 1;
      const id = `ast_${String(assets).padStart(24, '0')}`;
      known.add(`asset:${id}`);
      sendJson(res, 201, {
        ok: true,
        status: 'success',
        asset: { asset_id: id, ref: `asset:${id}`, expires_at: new Date(Date.now() + 86_400_000).toISOString() },
      });
      return;
    }
    if (request.url === '/api/v1/render-video') {
      const body = request.body.toString();
      const parsed = JSON.parse(body) as RenderRequest;
      const refs = [...(parsed.photos ?? []), parsed.branding?.logo_url].filter((r): r is string => r?.startsWith('asset:') === true);
      if (forget && refs.length > 0) {
        forget = false;
        known.clear();
      }
      if (refs.some((r) => !known.has(r))) {
        sendJson(res, 400, envelope('BAD_REQUEST', 'Unknown or expired assets.', { reason: 'unknown_asset' }));
        return;
      }
      const key = String(request.headers['idempotency-key']);
      const seen = byKey.get(key);
      if (seen !== undefined) {
        if (seen.body !== body) sendJson(res, 400, envelope('BAD_REQUEST', 'reused', { reason: 'idempotency_key_reused' }));
        else sendJson(res, 202, { ok: true, status: 'success', job: seen.job }, { 'idempotent-replayed': 'true' });
        return;
      }
      jobs += 1;
      const record = job(`job_${String(jobs).padStart(26, '0')}`, jobs === 1 ? (options.firstState ?? 'queued') : 'queued');
      byKey.set(key, { body, job: record });
      sendJson(res, 202, { ok: true, status: 'success', job: record }, { location: record.links.self });
      return;
    }
    sendJson(res, 404, envelope('NOT_FOUND', 'no route'));
  });
  return { server, assets: () => assets, jobs: () => jobs };
}

describe('RemoteService.renderVideo: local files become assets', () => {
  it('uploads each local photo and the logo once, raw with its image type, and sends asset references', async () => {
    const s = await renderServer();
    fake = s.server;
    const queued = await serviceFor(fake.url).renderVideo({
      description: 'Villa',
      photos: [photoA, 'https://cdn.example/photo.jpg', photoB, photoA],
      branding: { agency_name: 'Agence', logo_url: logo },
    });
    expect(queued.state).toBe('queued');
    const uploads = fake.requests.filter((r) => r.url === '/api/v1/assets');
    expect(uploads.map((r) => r.headers['content-type']).sort()).toEqual(['image/jpeg', 'image/png', 'image/webp']);
    expect(uploads.find((r) => r.headers['content-type'] === 'image/jpeg')!.body.equals(readFileSync(photoA))).toBe(true);
    const render = fake.requests.find((r) => r.url === '/api/v1/render-video')!;
    const body = JSON.parse(render.body.toString()) as RenderRequest;
    expect(body.photos).toHaveLength(4);
    expect(body.photos![1]).toBe('https://cdn.example/photo.jpg');
    expect(body.photos![0]).toMatch(/^asset:ast_/);
    expect(body.photos![3]).toBe(body.photos![0]);
    expect(body.branding?.logo_url).toMatch(/^asset:ast_/);
    expect(body.branding?.agency_name).toBe('Agence');
    expect(JSON.stringify(body)).not.toContain(work);
    expect(render.headers['idempotency-key']).toMatch(/^imr-[0-9a-f-]{36}$/);
  });

  it('refuses a file that is not an image before sending anything', async () => {
    const s = await renderServer();
    fake = s.server;
    const text = join(work, 'notes.txt');
    writeFileSync(text, 'not an image');
    await expect(serviceFor(fake.url).renderVideo({ description: 'x', photos: [text] })).rejects.toThrow(
      /photos\[0\]: .*notes\.txt is not a JPEG, PNG, WebP/,
    );
    await expect(serviceFor(fake.url).renderVideo({ description: 'x', photos: [join(work, 'missing.jpg')] })).rejects.toThrow(
      /no such file/,
    );
    expect(fake.requests).toHaveLength(0);
  });

  it('remembers uploads, so a second run sends the same body and the same key replays the same job', async () => {
    const s = await renderServer();
    fake = s.server;
    const cacheFile = join(mkdtempSync(join(tmpdir(), 'immoreel-cache-')), 'asset-cache.json');
    const request = { description: 'Villa', photos: [photoA, photoB] };
    const first = await serviceFor(fake.url, { assetCacheFile: cacheFile }).renderVideo(request, { idempotencyKey: 'imr-batch-row-1' });
    await service!.close();
    const second = await serviceFor(fake.url, { assetCacheFile: cacheFile }).renderVideo(request, { idempotencyKey: 'imr-batch-row-1' });
    expect(second.job_id).toBe(first.job_id);
    expect(s.assets()).toBe(2);
    expect(s.jobs()).toBe(1);
    expect(existsSync(cacheFile)).toBe(true);
    expect(readFileSync(cacheFile, 'utf8')).not.toContain('imk_test_key');
  });

  it('uploads again when the server no longer knows a remembered asset', async () => {
    const s = await renderServer({ forgetAssetsOnce: true });
    fake = s.server;
    const queued = await serviceFor(fake.url).renderVideo({ description: 'Villa', photos: [photoA] });
    expect(queued.state).toBe('queued');
    expect(s.assets()).toBe(2);
  });

  it('renders a row again under the next key when its earlier job failed, but never duplicates a live one', async () => {
    const s = await renderServer({ firstState: 'failed' });
    fake = s.server;
    const remote = serviceFor(fake.url);
    const first = await remote.renderVideo({ description: 'Villa' }, { idempotencyKey: 'imr-batch-x' });
    expect(first.state).toBe('failed');
    // The re-run: the key replays the failed job, so the client moves on to imr-batch-x.2.
    const rerun = await remote.renderVideo({ description: 'Villa' }, { idempotencyKey: 'imr-batch-x' });
    expect(rerun.state).toBe('queued');
    expect(rerun.job_id).not.toBe(first.job_id);
    // A third run finds the live job behind .2 and starts nothing.
    const third = await remote.renderVideo({ description: 'Villa' }, { idempotencyKey: 'imr-batch-x' });
    expect(third.job_id).toBe(rerun.job_id);
    expect(s.jobs()).toBe(2);
    expect(fake.requests.map((r) => r.headers['idempotency-key'])).toEqual([
      'imr-batch-x',
      'imr-batch-x',
      'imr-batch-x.2',
      'imr-batch-x',
      'imr-batch-x.2',
    ]);
  });
});

describe('RemoteService.waitForJob', () => {
  it('polls when the server’s Retry-After says, reports each change, and returns the finished job', { timeout: 20_000 }, async () => {
    const id = 'job_01jd9x3m6k8b2q4r5s7t9v0w1y';
    const states: JobRecord['state'][] = ['queued', 'running', 'succeeded'];
    fake = await startFake((_req, res, index) => {
      const state = states[Math.min(index, 2)]!;
      sendJson(res, 200, { ok: true, status: 'success', job: job(id, state) }, state === 'succeeded' ? {} : { 'retry-after': '1' });
    });
    const seen: string[] = [];
    const done = await serviceFor(fake.url, { pollMinMs: 5_000 }).waitForJob(id, { onUpdate: (j) => seen.push(j.state) });
    expect(done.state).toBe('succeeded');
    expect(seen).toEqual(['queued', 'running', 'succeeded']);
    const gaps = fake.requests.slice(1).map((r, i) => r.at - fake!.requests[i]!.at);
    // Retry-After: 1 wins over the 5 s the client would otherwise wait.
    for (const gap of gaps) {
      expect(gap).toBeGreaterThanOrEqual(950);
      expect(gap).toBeLessThan(3000);
    }
  });

  it('says the job is kept on the server when the server goes away mid-wait (exit 6)', { timeout: 20_000 }, async () => {
    const id = 'job_01jd9x3m6k8b2q4r5s7t9v0w1y';
    fake = await startFake((_req, res) =>
      sendJson(res, 200, { ok: true, status: 'success', job: job(id, 'running') }, { 'retry-after': '1' }),
    );
    const remote = serviceFor(fake.url, { outageWaitMs: 2_000, warn: () => undefined });
    const waiting = remote.waitForJob(id).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 300));
    await fake.close();
    fake = null;
    const error = (await waiting) as AppError;
    expect(error).toBeInstanceOf(AppError);
    expect(error.exitCode).toBe(6);
    expect(error.message).toContain(`while waiting for job ${id}`);
    expect(error.message).toContain(`immoreel jobs wait ${id}`);
  });
});

describe('RemoteService.downloadVideo: resumable with Range', () => {
  const video = randomBytes(300_000);
  const sha = createHash('sha256').update(video).digest('hex');
  const id = 'job_01jd9x3m6k8b2q4r5s7t9v0w1y';
  const finished = job(id, 'succeeded', {
    result: {
      video_url: `/api/v1/jobs/${id}/video`,
      width: 1280,
      height: 720,
      fps: 60,
      duration_s: 10,
      size_bytes: video.length,
      video_codec: 'h264',
      audio_codec: 'aac',
      audio_bitrate_kbps: 160,
      sha256: sha,
    },
  });

  /** Serves the job and its video; the first video answer breaks off after `cutAt` bytes. */
  async function videoServer(cutAt: number | null) {
    let cut = cutAt !== null;
    return startFake((request, res) => {
      if (request.url === `/api/v1/jobs/${id}`) return sendJson(res, 200, { ok: true, status: 'success', job: finished });
      const range = /^bytes=(\d+)-$/.exec(String(request.headers.range ?? ''));
      const start = range === null ? 0 : Number(range[1]);
      const headers = { 'content-type': 'video/mp4', 'accept-ranges': 'bytes', etag: `"${sha}"` };
      if (cut) {
        cut = false;
        res.writeHead(200, { ...headers, 'content-length': String(video.length) });
        // Cut once those bytes have left this process: on a busy machine a timer alone could cut earlier.
        res.write(video.subarray(0, cutAt!), () => setTimeout(() => res.socket?.destroy(), 50));
        return;
      }
      if (start > 0) {
        res.writeHead(206, {
          ...headers,
          'content-range': `bytes ${start}-${video.length - 1}/${video.length}`,
          'content-length': String(video.length - start),
        });
        res.end(video.subarray(start));
      } else {
        res.writeHead(200, { ...headers, 'content-length': String(video.length) });
        res.end(video);
      }
    });
  }

  it('resumes a transfer that broke off, asking only for the missing bytes', async () => {
    fake = await videoServer(120_000);
    const out = join(mkdtempSync(join(tmpdir(), 'immoreel-dl-')), 'villa.mp4');
    const bytes = await serviceFor(fake.url).downloadVideo(id, out);
    expect(bytes).toBe(video.length);
    expect(readFileSync(out).equals(video)).toBe(true);
    expect(existsSync(`${out}.part`)).toBe(false);
    const videoRequests = fake.requests.filter((r) => r.url.endsWith('/video'));
    expect(videoRequests).toHaveLength(2);
    expect(videoRequests[0]!.headers.range).toBeUndefined();
    expect(videoRequests[1]!.headers.range).toBe('bytes=120000-');
    expect(videoRequests[1]!.headers['if-range']).toBe(`"${sha}"`);
  });

  it('continues a .part left by an earlier run that was killed, into a directory destination', async () => {
    fake = await videoServer(null);
    const dir = mkdtempSync(join(tmpdir(), 'immoreel-dl-'));
    writeFileSync(join(dir, `${id}.mp4.part`), video.subarray(0, 200_000));
    await serviceFor(fake.url).downloadVideo(id, dir);
    expect(readFileSync(join(dir, `${id}.mp4`)).equals(video)).toBe(true);
    expect(fake.requests.filter((r) => r.url.endsWith('/video')).map((r) => r.headers.range)).toEqual(['bytes=200000-']);
  });

  it('throws away a .part that is not this video and fetches it whole', async () => {
    fake = await videoServer(null);
    const dir = mkdtempSync(join(tmpdir(), 'immoreel-dl-'));
    writeFileSync(join(dir, 'v.mp4.part'), randomBytes(1000));
    await serviceFor(fake.url).downloadVideo(id, join(dir, 'v.mp4'));
    expect(readFileSync(join(dir, 'v.mp4')).equals(video)).toBe(true);
  });
});

describe('sniffImageType', () => {
  it('knows images by their first bytes, not their names', async () => {
    expect(sniffImageType(readFileSync(photoA))).toBe('image/jpeg');
    expect(sniffImageType(readFileSync(photoB))).toBe('image/png');
    expect(sniffImageType(readFileSync(logo))).toBe('image/webp');
    expect(sniffImageType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeNull();
  });
});

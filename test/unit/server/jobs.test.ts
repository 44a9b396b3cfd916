import { afterEach, describe, expect, it } from 'vitest';
import { PrometheusMetrics } from '../../../src/server/prometheus.js';
import { sample } from '../../helpers/prometheus-text.js';
import { FAKE_POSTER, LISTING_TEXT, makeHarness, type Harness } from '../../helpers/server-harness.js';

/** Every render needs photos; the file engine of these tests never downloads them. */
const PHOTOS = ['https://cdn.example.com/photo-1.jpg'];

let h: Harness;
afterEach(async () => h?.close());

interface JobBody {
  job: { job_id: string; state: string; links: { self: string; video: string | null }; metadata: unknown };
}
const jobOf = (body: string): JobBody['job'] => (JSON.parse(body) as JobBody).job;
const errorOf = (body: string): { code: string; reason?: string; details: { field: string }[] } => JSON.parse(body).error;

async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 200; i += 1) {
    const value = await probe();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('condition not reached');
}

describe('render jobs over HTTP', () => {
  it('queues a render (202 + Location), reports it with Retry-After, and serves its video with Range support', async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    h = await makeHarness({ metrics });
    const { auth } = h.key();
    const created = await h.app.inject({
      method: 'POST',
      url: '/api/v1/render-video',
      headers: auth,
      payload: { description: LISTING_TEXT, photos: PHOTOS, metadata: { row: 7 } },
    });
    expect(created.statusCode, created.body).toBe(202);
    const job = jobOf(created.body);
    expect(created.headers.location).toBe(`/api/v1/jobs/${job.job_id}`);
    expect(job.metadata).toEqual({ row: 7 });

    const poll = () => h.app.inject({ method: 'GET', url: `/api/v1/jobs/${job.job_id}`, headers: auth });
    const first = await poll();
    if (jobOf(first.body).state !== 'succeeded') expect(Number(first.headers['retry-after'])).toBeGreaterThan(0);
    const finished = await until(poll, (res) => jobOf(res.body).state === 'succeeded');
    expect(finished.headers['retry-after']).toBeUndefined();
    expect(jobOf(finished.body).links.video).toBe(`/api/v1/jobs/${job.job_id}/video`);
    // The pool timed the render and let go of its slot (docs/operations.md "Metrics").
    const { text } = await metrics.scrape();
    expect(sample(text, 'immoreel_render_duration_seconds_count')).toBe(1);
    expect(sample(text, 'immoreel_renders_in_flight')).toBe(0);

    const video = await h.app.inject({ method: 'GET', url: `/api/v1/jobs/${job.job_id}/video`, headers: auth });
    expect(video.statusCode).toBe(200);
    expect(video.headers['content-type']).toBe('video/mp4');
    expect(video.headers['accept-ranges']).toBe('bytes');
    expect(video.rawPayload.length).toBe(1000);
    const part = await h.app.inject({
      method: 'GET',
      url: `/api/v1/jobs/${job.job_id}/video`,
      headers: { ...auth, range: 'bytes=100-199' },
    });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe('bytes 100-199/1000');
    expect(part.rawPayload.length).toBe(100);
    const outside = await h.app.inject({
      method: 'GET',
      url: `/api/v1/jobs/${job.job_id}/video`,
      headers: { ...auth, range: 'bytes=5000-' },
    });
    expect(outside.statusCode).toBe(416);
    expect(outside.headers['content-range']).toBe('bytes */1000');
    expect(errorOf(outside.body).reason).toBe('range_not_satisfiable');
  });

  it('serves the poster drawn with the video: JPEG, ETag, 304, and only in the format rendered', async () => {
    h = await makeHarness();
    const { auth } = h.key();
    const created = await h.app.inject({
      method: 'POST',
      url: '/api/v1/render-video',
      headers: auth,
      payload: { description: LISTING_TEXT, photos: PHOTOS, format: 'square' },
    });
    const job = jobOf(created.body);
    await until(
      () => h.app.inject({ method: 'GET', url: `/api/v1/jobs/${job.job_id}`, headers: auth }),
      (res) => jobOf(res.body).state === 'succeeded',
    );
    const poster = await h.app.inject({ method: 'GET', url: `/api/v1/jobs/${job.job_id}/poster?format=square`, headers: auth });
    expect(poster.statusCode, poster.body).toBe(200);
    expect(poster.headers['content-type']).toBe('image/jpeg');
    expect(poster.rawPayload.equals(FAKE_POSTER)).toBe(true);
    const again = await h.app.inject({
      method: 'GET',
      url: `/api/v1/jobs/${job.job_id}/poster`,
      headers: { ...auth, 'if-none-match': String(poster.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
    const other = await h.app.inject({ method: 'GET', url: `/api/v1/jobs/${job.job_id}/poster?format=portrait`, headers: auth });
    expect(other.statusCode).toBe(404);
    expect(errorOf(other.body)).toMatchObject({ reason: 'format_not_rendered', details: [{ field: 'format' }] });
    expect(JSON.parse(other.body).error.message).toContain('rendered in square');
    const unknown = await h.app.inject({ method: 'GET', url: `/api/v1/jobs/${job.job_id}/poster?format=round`, headers: auth });
    expect(unknown.statusCode).toBe(400);
  });

  it("keeps tenants apart: another tenant's job, video and cancel are 403, lists are per tenant", async () => {
    h = await makeHarness({ runWorkers: false });
    const a = h.key({ tenant: 'a' });
    const b = h.key({ tenant: 'b', preview: true });
    const jobA = jobOf(
      (
        await h.app.inject({
          method: 'POST',
          url: '/api/v1/render-video',
          headers: a.auth,
          payload: { description: LISTING_TEXT, photos: PHOTOS },
        })
      ).body,
    );
    const jobB = jobOf(
      (
        await h.app.inject({
          method: 'POST',
          url: '/api/v1/render-video',
          headers: b.auth,
          payload: { description: LISTING_TEXT, photos: PHOTOS },
        })
      ).body,
    );
    for (const [auth, id] of [
      [b.auth, jobA.job_id],
      [a.auth, jobB.job_id],
    ] as const) {
      for (const [method, suffix] of [
        ['GET', ''],
        ['GET', '/video'],
        ['GET', '/poster'],
        ['POST', '/cancel'],
      ] as const) {
        const res = await h.app.inject({ method, url: `/api/v1/jobs/${id}${suffix}`, headers: auth });
        expect(res.statusCode, `${method} ${suffix}`).toBe(403);
        expect(errorOf(res.body)).toMatchObject({ code: 'INSUFFICIENT_SCOPE', reason: 'other_tenant' });
      }
    }
    const listA = JSON.parse((await h.app.inject({ method: 'GET', url: '/api/v1/jobs', headers: a.auth })).body) as {
      jobs: { job_id: string }[];
    };
    expect(listA.jobs.map((j) => j.job_id)).toEqual([jobA.job_id]);
    const notReady = await h.app.inject({ method: 'GET', url: `/api/v1/jobs/${jobA.job_id}/video`, headers: a.auth });
    expect(notReady.statusCode).toBe(404);
    expect(errorOf(notReady.body).reason).toBe('video_not_ready');
    expect(notReady.headers['retry-after']).toBe('5');
    const posterNotReady = await h.app.inject({ method: 'GET', url: `/api/v1/jobs/${jobA.job_id}/poster`, headers: a.auth });
    expect(posterNotReady.statusCode).toBe(404);
    expect(errorOf(posterNotReady.body).reason).toBe('video_not_ready');
    expect(JSON.parse(posterNotReady.body).error.message).toMatch(/is queued: its poster is drawn when the video is ready/);
    const canceled = await h.app.inject({ method: 'POST', url: `/api/v1/jobs/${jobA.job_id}/cancel`, headers: a.auth });
    expect(jobOf(canceled.body).state).toBe('canceled');
  });

  it('limits jobs in flight: 30 per preview tenant by default (here 2), 100 queued per tenant (here 3)', async () => {
    h = await makeHarness({ runWorkers: false, limits: { previewConcurrentRenders: 2, maxQueuedJobs: 3 } });
    const preview = h.key({ tenant: 'sandbox', preview: true });
    const standard = h.key({ tenant: 'acme' });
    const submit = (auth: Record<string, string>) =>
      h.app.inject({ method: 'POST', url: '/api/v1/render-video', headers: auth, payload: { description: LISTING_TEXT, photos: PHOTOS } });
    expect((await submit(preview.auth)).statusCode).toBe(202);
    expect((await submit(preview.auth)).statusCode).toBe(202);
    const busy = await submit(preview.auth);
    expect(busy.statusCode).toBe(429);
    expect(errorOf(busy.body)).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', reason: 'concurrent_renders' });
    expect(Number(busy.headers['retry-after'])).toBeGreaterThan(0);
    for (let i = 0; i < 3; i += 1) expect((await submit(standard.auth)).statusCode).toBe(202);
    const full = await submit(standard.auth);
    expect(full.statusCode).toBe(429);
    expect(errorOf(full.body).reason).toBe('queued_jobs');
    expect(h.store.usage.used(standard.keyId)).toBe(3);
  });

  it('counts a pack as one concurrent render per output (docs/api.md "Video packs")', async () => {
    h = await makeHarness({ runWorkers: false, limits: { previewConcurrentRenders: 4 } });
    const preview = h.key({ tenant: 'sandbox', preview: true });
    const submit = (formats: string[]) =>
      h.app.inject({
        method: 'POST',
        url: '/api/v1/render-video',
        headers: preview.auth,
        payload: { description: LISTING_TEXT, photos: PHOTOS, formats },
      });
    expect((await submit(['landscape', 'portrait', 'square'])).statusCode).toBe(202);
    // 3 videos in flight: a second pack of two would make 5.
    const busy = await submit(['landscape', 'portrait']);
    expect(busy.statusCode).toBe(429);
    expect(errorOf(busy.body)).toMatchObject({ reason: 'concurrent_renders' });
    expect((JSON.parse(busy.body) as { error: { message: string } }).error.message).toMatch(
      /at most 4 videos .*3 are, and this request adds 2/,
    );
    expect((await submit(['square'])).statusCode).toBe(202);
    const me = await h.app.inject({ method: 'GET', url: '/api/v1/me', headers: preview.auth });
    expect(JSON.parse(me.body).units).toEqual({ analyze: 1, render_video_per_output: 1 });
  });

  it('replays an idempotent render as the same job, billed once', async () => {
    h = await makeHarness({ runWorkers: false });
    const { auth, keyId } = h.key();
    const send = (payload: object) =>
      h.app.inject({ method: 'POST', url: '/api/v1/render-video', headers: { ...auth, 'idempotency-key': 'crm-row-7' }, payload });
    const first = await send({ description: LISTING_TEXT, photos: PHOTOS, format: 'portrait' });
    const second = await send({ format: 'portrait', description: LISTING_TEXT, photos: PHOTOS });
    expect(second.statusCode).toBe(202);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(jobOf(second.body).job_id).toBe(jobOf(first.body).job_id);
    expect(h.store.usage.used(keyId)).toBe(1);
    const changed = await send({ description: LISTING_TEXT, photos: PHOTOS, format: 'square' });
    expect(changed.statusCode).toBe(400);
    expect(errorOf(changed.body).reason).toBe('idempotency_key_reused');
    expect((await h.jobs.list('acme')).jobs).toHaveLength(1);
  });

  it('refuses unknown or foreign assets, private webhook targets and oversized metadata, naming the field', async () => {
    h = await makeHarness({ runWorkers: false });
    const { auth } = h.key({ tenant: 'a' });
    const post = (payload: object) => h.app.inject({ method: 'POST', url: '/api/v1/render-video', headers: auth, payload });
    const asset = await post({ description: LISTING_TEXT, photos: ['https://example.com/a.jpg', 'asset:ast_000000000000000000000000'] });
    expect(asset.statusCode).toBe(400);
    expect(errorOf(asset.body)).toMatchObject({ reason: 'unknown_asset', details: [{ field: 'photos[1]' }] });
    for (const url of [
      'http://169.254.169.254/latest/meta-data',
      'http://10.1.2.3/hook',
      'http://localhost:9999/h',
      'ftp://example.com/h',
    ]) {
      const hook = await post({ description: LISTING_TEXT, photos: PHOTOS, webhook_url: url });
      expect(hook.statusCode, url).toBe(400);
      expect(errorOf(hook.body).details.map((d) => d.field)).toContain('webhook_url');
    }
    const meta = await post({ description: LISTING_TEXT, photos: PHOTOS, metadata: { blob: 'x'.repeat(5000) } });
    expect(meta.statusCode).toBe(400);
    expect(errorOf(meta.body).details[0]!.field).toBe('metadata');
    const unknownField = await post({ description: LISTING_TEXT, photos: PHOTOS, branding: { agency_name: 'X', slogan: 'y' } });
    expect(errorOf(unknownField.body).details[0]!.field).toBe('branding.slogan');
    expect((await h.jobs.list('a')).jobs).toHaveLength(0);
  });
});

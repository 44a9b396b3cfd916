import { afterEach, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../src/core/types.js';
import { FAKE_POSTER, LISTING_TEXT, makeHarness, type Harness } from '../../helpers/server-harness.js';

/**
 * Share links (docs/api.md "Share links"): created, listed and revoked with a key; the public
 * page, its video and its poster opened with no key or cookie; other tenants, unfinished jobs,
 * unknown and revoked tokens refused. In process with the harness's file engine.
 */

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function finishedJob(harness: Harness, auth: Record<string, string>, payload: Record<string, unknown>): Promise<JobRecord> {
  const created = await harness.app.inject({ method: 'POST', url: '/api/v1/render-video', headers: auth, payload });
  expect(created.statusCode, created.body).toBe(202);
  const jobId = (JSON.parse(created.body) as { job: JobRecord }).job.job_id;
  for (let i = 0; i < 200; i += 1) {
    const read = await harness.app.inject({ method: 'GET', url: `/api/v1/jobs/${jobId}`, headers: auth });
    const job = (JSON.parse(read.body) as { job: JobRecord }).job;
    if (job.state === 'succeeded') return job;
    if (job.state === 'failed' || job.state === 'canceled') throw new Error(`job ${jobId} ${job.state}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`job ${jobId} did not succeed`);
}

const meta = (html: string, name: string): string | undefined =>
  new RegExp(`<meta (?:property|name)="${name}" content="([^"]*)"`).exec(html)?.[1];

describe('share links', () => {
  it('opens a page with the video, its poster and preview tags without a key, until revoked', async () => {
    h = await makeHarness();
    const harness = h;
    const { auth } = harness.key({ tenant: 'agence-atlas' });
    const job = await finishedJob(harness, auth, {
      description: LISTING_TEXT,
      photos: ['https://cdn.example.com/photo-1.jpg'],
      formats: ['landscape', 'portrait'],
    });
    const created = await harness.app.inject({
      method: 'POST',
      url: `/api/v1/jobs/${job.job_id}/shares`,
      headers: auth,
      payload: { format: 'portrait' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const square = await harness.app.inject({
      method: 'POST',
      url: `/api/v1/jobs/${job.job_id}/shares`,
      headers: auth,
      payload: { format: 'square' },
    });
    expect(square.statusCode).toBe(400);
    expect(JSON.parse(square.body)).toMatchObject({ error: { reason: 'format_not_rendered' } });
    const { share } = JSON.parse(created.body) as { share: { id: string; url: string; expires_at: string; format: string } };
    expect(share.url).toMatch(/^\/s\/[A-Za-z0-9_-]{32}$/);
    expect(share.format).toBe('portrait');
    const days = (Date.parse(share.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);

    // No Authorization, no cookie: the token alone opens the page, at any host name.
    const page = await harness.app.inject({ method: 'GET', url: share.url, headers: { host: 'immo.example.com' } });
    expect(page.statusCode, page.body).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(meta(page.body, 'og:title')).toBe(job.listing!.title.replace(/'/g, '&#39;'));
    expect(meta(page.body, 'og:image')).toBe(`http://immo.example.com${share.url}/poster.jpg`);
    expect(meta(page.body, 'og:video')).toBe(`http://immo.example.com${share.url}/video.mp4`);
    expect(meta(page.body, 'og:video:height')).toBe(String(job.outputs![1]!.height));
    expect(meta(page.body, 'twitter:card')).toBe('summary_large_image');
    expect(meta(page.body, 'twitter:image')).toBe(`http://immo.example.com${share.url}/poster.jpg`);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.body).not.toContain('<script');
    const video = await harness.app.inject({ method: 'GET', url: `${share.url}/video.mp4`, headers: { range: 'bytes=0-9' } });
    expect(video.statusCode).toBe(206);
    expect(video.headers['content-range']).toBe(`bytes 0-9/${job.outputs![1]!.size_bytes}`);
    const poster = await harness.app.inject({ method: 'GET', url: `${share.url}/poster.jpg` });
    expect(poster.statusCode).toBe(200);
    expect(poster.rawPayload.equals(FAKE_POSTER)).toBe(true);

    const listed = await harness.app.inject({ method: 'GET', url: '/api/v1/shares', headers: auth });
    expect((JSON.parse(listed.body) as { shares: { id: string }[] }).shares.map((s) => s.id)).toEqual([share.id]);
    // Another tenant neither sees, revokes, nor shares this tenant's job.
    const other = harness.key({ tenant: 'autre-agence' }).auth;
    expect(
      (JSON.parse((await harness.app.inject({ method: 'GET', url: '/api/v1/shares', headers: other })).body) as { shares: [] }).shares,
    ).toEqual([]);
    expect((await harness.app.inject({ method: 'DELETE', url: `/api/v1/shares/${share.id}`, headers: other })).statusCode).toBe(404);
    expect((await harness.app.inject({ method: 'POST', url: `/api/v1/jobs/${job.job_id}/shares`, headers: other })).statusCode).toBe(404);

    const revoked = await harness.app.inject({ method: 'DELETE', url: `/api/v1/shares/${share.id}`, headers: auth });
    expect(revoked.statusCode, revoked.body).toBe(200);
    const gone = await harness.app.inject({ method: 'GET', url: share.url });
    expect(gone.statusCode).toBe(404);
    expect(gone.body).toContain('Ce lien ne fonctionne plus');
    expect((await harness.app.inject({ method: 'GET', url: `${share.url}/video.mp4` })).statusCode).toBe(404);
    expect((await harness.app.inject({ method: 'GET', url: '/s/not-a-token' })).statusCode).toBe(404);
  });

  it('refuses a job that has not succeeded, and a create without a key', async () => {
    h = await makeHarness({ runWorkers: false });
    const harness = h;
    const { auth } = harness.key();
    const created = await harness.app.inject({
      method: 'POST',
      url: '/api/v1/render-video',
      headers: auth,
      payload: { description: LISTING_TEXT, photos: ['https://cdn.example.com/photo-1.jpg'] },
    });
    const jobId = (JSON.parse(created.body) as { job: JobRecord }).job.job_id;
    const queued = await harness.app.inject({ method: 'POST', url: `/api/v1/jobs/${jobId}/shares`, headers: auth });
    expect(queued.statusCode).toBe(404);
    expect(JSON.parse(queued.body)).toMatchObject({ error: { reason: 'video_not_ready' } });
    expect((await harness.app.inject({ method: 'POST', url: `/api/v1/jobs/${jobId}/shares` })).statusCode).toBe(401);
  });

  it("lists one job's links with ?job_id=, and says a withdrawn link was withdrawn", async () => {
    h = await makeHarness();
    const harness = h;
    const { auth } = harness.key({ tenant: 'agence-atlas' });
    const body = { description: LISTING_TEXT, photos: ['https://cdn.example.com/photo-1.jpg'] };
    const [first, second] = [await finishedJob(harness, auth, body), await finishedJob(harness, auth, body)];
    const share = async (jobId: string): Promise<{ id: string; url: string; job_id: string }> => {
      const created = await harness.app.inject({ method: 'POST', url: `/api/v1/jobs/${jobId}/shares`, headers: auth });
      expect(created.statusCode, created.body).toBe(201);
      return (JSON.parse(created.body) as { share: { id: string; url: string; job_id: string } }).share;
    };
    const older = await share(first.job_id);
    const newer = await share(first.job_id);
    const otherJob = await share(second.job_id);
    const listed = async (query: string, headers = auth): Promise<string[]> => {
      const answer = await harness.app.inject({ method: 'GET', url: `/api/v1/shares${query}`, headers });
      expect(answer.statusCode, answer.body).toBe(200);
      return (JSON.parse(answer.body) as { shares: { id: string }[] }).shares.map((s) => s.id);
    };
    expect(await listed('')).toEqual([otherJob.id, newer.id, older.id]);
    expect(await listed(`?job_id=${first.job_id}`)).toEqual([newer.id, older.id]);
    expect(await listed(`?job_id=${second.job_id}`)).toEqual([otherJob.id]);
    expect(await listed('?job_id=job_00000000000000000000000000')).toEqual([]);
    // Another tenant naming the job sees none of its links.
    expect(await listed(`?job_id=${first.job_id}`, harness.key({ tenant: 'autre-agence' }).auth)).toEqual([]);
    const unknownParameter = await harness.app.inject({ method: 'GET', url: '/api/v1/shares?job=x', headers: auth });
    expect(unknownParameter.statusCode).toBe(400);

    // The older withdrawn: its page says so in words a client reads, and shows no video; the newer still opens.
    expect((await harness.app.inject({ method: 'DELETE', url: `/api/v1/shares/${older.id}`, headers: auth })).statusCode).toBe(200);
    expect(await listed(`?job_id=${first.job_id}`)).toEqual([newer.id]);
    const gone = await harness.app.inject({ method: 'GET', url: older.url });
    expect(gone.statusCode).toBe(404);
    expect(gone.body).toContain('l’agence l’a retiré');
    expect(gone.body).toContain('the agency withdrew it');
    expect(gone.body).not.toContain('<video');
    expect((await harness.app.inject({ method: 'GET', url: newer.url })).statusCode).toBe(200);
  });

  it('limits page reads per client address', async () => {
    h = await makeHarness({ limits: { windowMs: 60_000 } });
    const harness = h;
    let last = 0;
    for (let i = 0; i < 121; i += 1)
      last = (await harness.app.inject({ method: 'GET', url: '/s/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' })).statusCode;
    expect(last).toBe(429);
  });
});

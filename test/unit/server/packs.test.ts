import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.js';
import type { JobRecord } from '../../../src/core/types.js';
import { batchRowRequest } from '../../../src/jobs/batch-row.js';
import { runRenderBatch, type RenderBatchRecord } from '../../../src/jobs/render-batch.js';
import { validateRenderRequest } from '../../../src/render/render-rules.js';
import { openSqlite } from '../../../src/records/sqlite/driver.js';
import { LocalService } from '../../../src/service/local-service.js';
import { TEST_FFMPEG } from '../../helpers/config.js';
import { fakeEngine } from '../../helpers/fake-engine.js';
import { FAKE_POSTER, LISTING_TEXT, makeHarness, type Harness } from '../../helpers/server-harness.js';

/**
 * Video packs above the render layer (docs/api.md "Video packs"): the request's two fields, the
 * job's outputs and their routes, one quota unit per output, and jobs stored before packs. In process, with
 * the harness's file engine (one file per output); real renders are test/e2e/packs.slow.test.ts's.
 */

const PHOTOS = ['https://cdn.example.com/photo-1.jpg'];
const BASE = { description: LISTING_TEXT, photos: PHOTOS };

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The details of the 400 a request gets, or a failure when it is accepted. */
function refusal(input: unknown): { message: string; details: { field: string; message: string }[] } {
  try {
    validateRenderRequest(input, 'server');
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    expect(error.code).toBe('BAD_REQUEST');
    return { message: error.message, details: error.details };
  }
  throw new Error('the request was accepted');
}

describe('a pack request', () => {
  it('keeps the formats in request order, the first as `format`; `format` alone is a pack of one', () => {
    const pack = validateRenderRequest({ ...BASE, formats: ['portrait', 'landscape', 'square'] }, 'server');
    expect(pack.formats).toEqual(['portrait', 'landscape', 'square']);
    expect(pack.format).toBe('portrait');
    expect(validateRenderRequest({ ...BASE, format: 'square' }, 'server')).toMatchObject({ format: 'square', formats: ['square'] });
    expect(validateRenderRequest(BASE, 'server')).toMatchObject({ format: 'landscape', formats: ['landscape'] });
  });

  it('refuses both fields, a repeated format, an empty list and an unknown format, naming each', () => {
    const both = refusal({ ...BASE, format: 'landscape', formats: ['portrait'] });
    expect(both.details).toEqual([{ field: 'formats', message: expect.stringMatching(/format .*formats/) as unknown as string }]);
    const repeated = refusal({ ...BASE, formats: ['portrait', 'square', 'portrait'] });
    expect(repeated.details).toEqual([{ field: 'formats[2]', message: 'repeats portrait: give each format once' }]);
    expect(refusal({ ...BASE, formats: [] }).details).toEqual([
      { field: 'formats', message: 'must list at least one of landscape, portrait, square' },
    ]);
    expect(refusal({ ...BASE, formats: ['landscape', 'wide'] }).details).toEqual([
      { field: 'formats[1]', message: 'must be one of landscape, portrait, square' },
    ]);
  });

  it('reads a batch CSV formats column split on | or , and refuses a bad value naming the allowed ones', () => {
    const row = (formats: string) =>
      batchRowRequest({ id: 'r1', description: LISTING_TEXT, formats }, 'r1', { defaults: { format: 'square' } });
    expect(row('landscape|portrait').formats).toEqual(['landscape', 'portrait']);
    // The row's own choice replaces the command line's --format.
    expect(row(' portrait , square ')).toMatchObject({ formats: ['portrait', 'square'] });
    expect(row('portrait').format).toBeUndefined();
    const bad = refusal({ ...row('landscape|reel'), photos: PHOTOS });
    expect(bad.message).toContain('formats[1] must be one of landscape, portrait, square');
  });
});

interface JobBody {
  job: JobRecord;
}
const jobOf = (body: string): JobRecord => (JSON.parse(body) as JobBody).job;

async function succeeded(harness: Harness, auth: Record<string, string>, jobId: string): Promise<JobRecord> {
  for (let i = 0; i < 400; i += 1) {
    const job = jobOf((await harness.app.inject({ method: 'GET', url: `/api/v1/jobs/${jobId}`, headers: auth })).body);
    if (job.state === 'succeeded') return job;
    expect(['queued', 'running']).toContain(job.state);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`job ${jobId} did not succeed`);
}

describe('a pack job over HTTP', () => {
  it('lists every output, serves each video and poster by ?format=, and takes one quota unit per output', async () => {
    h = await makeHarness();
    const harness = h;
    const { auth, keyId } = harness.key();
    const created = await harness.app.inject({
      method: 'POST',
      url: '/api/v1/render-video',
      headers: auth,
      payload: { ...BASE, formats: ['portrait', 'landscape', 'square'] },
    });
    expect(created.statusCode, created.body).toBe(202);
    expect(jobOf(created.body)).toMatchObject({ format: 'portrait', formats: ['portrait', 'landscape', 'square'], outputs: null });
    const job = await succeeded(harness, auth, jobOf(created.body).job_id);
    const self = `/api/v1/jobs/${job.job_id}`;
    expect(job.outputs?.map((o) => [o.format, o.size_bytes, o.video_url, o.poster_url])).toEqual([
      ['portrait', 1000, `${self}/video?format=portrait`, `${self}/poster?format=portrait`],
      ['landscape', 1001, `${self}/video?format=landscape`, `${self}/poster?format=landscape`],
      ['square', 1002, `${self}/video?format=square`, `${self}/poster?format=square`],
    ]);
    // The primary stays where old clients look: `result`, the plain routes.
    expect(job.result).toMatchObject({ size_bytes: 1000, video_url: `${self}/video` });
    // Three videos, three units (docs/api.md "Monthly quota"), said on the job too.
    expect(harness.store.usage.used(keyId)).toBe(3);
    expect(job.units).toBe(3);

    const get = (url: string, headers: Record<string, string> = {}) =>
      harness.app.inject({ method: 'GET', url, headers: { ...auth, ...headers } });
    expect((await get(`${self}/video`)).rawPayload.length).toBe(1000);
    const square = await get(`${self}/video?format=square`);
    expect(square.statusCode).toBe(200);
    expect(square.rawPayload.length).toBe(1002);
    expect(square.headers.etag).toBe(`"${job.outputs?.[2]?.sha256}"`);
    expect(square.headers['content-disposition']).toBe(`attachment; filename="${job.job_id}-square.mp4"`);
    // Range and If-None-Match work on every output as on the plain route.
    const part = await get(`${self}/video?format=landscape`, { range: 'bytes=1000-' });
    expect([part.statusCode, part.headers['content-range']]).toEqual([206, 'bytes 1000-1000/1001']);
    expect((await get(`${self}/video?format=square`, { 'if-none-match': String(square.headers.etag) })).statusCode).toBe(304);
    for (const format of ['portrait', 'landscape', 'square']) {
      const poster = await get(`${self}/poster?format=${format}`);
      expect(poster.statusCode, format).toBe(200);
      expect(poster.rawPayload.equals(FAKE_POSTER)).toBe(true);
    }
  });

  it('answers 404 format_not_rendered for a format the job does not have, on both routes', async () => {
    h = await makeHarness();
    const harness = h;
    const { auth } = harness.key();
    const created = await harness.app.inject({
      method: 'POST',
      url: '/api/v1/render-video',
      headers: auth,
      payload: { ...BASE, formats: ['landscape', 'square'] },
    });
    const job = await succeeded(harness, auth, jobOf(created.body).job_id);
    for (const route of ['video', 'poster']) {
      const answer = await harness.app.inject({ method: 'GET', url: `/api/v1/jobs/${job.job_id}/${route}?format=portrait`, headers: auth });
      expect(answer.statusCode, route).toBe(404);
      const error = (JSON.parse(answer.body) as { error: { reason: string; message: string; details: unknown } }).error;
      expect(error.reason).toBe('format_not_rendered');
      expect(error.details).toEqual([{ field: 'format', message: 'must be one of landscape, square' }]);
      expect(error.message).toContain('landscape, square');
    }
  });

  it('reads a job stored before packs as one output in its format', async () => {
    h = await makeHarness();
    const harness = h;
    const { auth } = harness.key();
    const created = await harness.app.inject({
      method: 'POST',
      url: '/api/v1/render-video',
      headers: auth,
      payload: { ...BASE, format: 'square' },
    });
    const jobId = jobOf(created.body).job_id;
    await succeeded(harness, auth, jobId);
    // The row and stored request as an immoreel from before packs wrote them.
    const db = openSqlite(join(harness.dataDir, 'immoreel.db'));
    try {
      const { request_json: stored } = db.prepare('SELECT request_json FROM jobs WHERE job_id = ?').get(jobId) as { request_json: string };
      const { formats: _formats, ...old } = JSON.parse(stored) as Record<string, unknown>;
      db.prepare('UPDATE jobs SET formats_json = NULL, outputs_json = NULL, request_json = ? WHERE job_id = ?').run(
        JSON.stringify(old),
        jobId,
      );
    } finally {
      db.close();
    }
    expect((await harness.records.jobs.requestOf(jobId)).formats).toEqual(['square']);
    const job = jobOf((await harness.app.inject({ method: 'GET', url: `/api/v1/jobs/${jobId}`, headers: auth })).body);
    expect(job.formats).toEqual(['square']);
    expect(job.outputs).toEqual([
      {
        ...job.result,
        video_url: `/api/v1/jobs/${jobId}/video?format=square`,
        format: 'square',
        poster_url: `/api/v1/jobs/${jobId}/poster?format=square`,
      },
    ]);
    const video = await harness.app.inject({ method: 'GET', url: `/api/v1/jobs/${jobId}/video?format=square`, headers: auth });
    expect(video.statusCode).toBe(200);
    const other = await harness.app.inject({ method: 'GET', url: `/api/v1/jobs/${jobId}/video?format=portrait`, headers: auth });
    expect(other.statusCode).toBe(404);
  });
});

describe('a pack job in local mode, its videos in another store', () => {
  it("uploads every output and poster under the attempt's keys and downloads each by format", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'immoreel-packs-'));
    const storage = join(dir, 'bucket');
    const service = new LocalService({
      ffmpeg: TEST_FFMPEG,
      dataDir: join(dir, 'data'),
      storageUrl: pathToFileURL(storage).href,
      engine: fakeEngine({ ms: 20 }),
      pollMs: 20,
    });
    try {
      const queued = await service.renderVideo({ description: LISTING_TEXT, photos: PHOTOS, formats: ['square', 'portrait'] });
      const job = await service.waitForJob(queued.job_id);
      expect(job.state).toBe('succeeded');
      // The primary keeps the attempt's own key; the other output and both posters sit beside it.
      for (const key of ['output-1.mp4', 'output-1-poster.jpg', 'output-1-portrait.mp4', 'output-1-portrait-poster.jpg'])
        expect(existsSync(join(storage, 'jobs', job.job_id, key)), key).toBe(true);
      for (const format of ['square', 'portrait'] as const) {
        const file = join(dir, `${format}.mp4`);
        await service.downloadVideo(job.job_id, file, { format });
        expect(readFileSync(file, 'utf8')).toContain(`a ${format} mp4`);
        expect(await service.downloadPoster(job.job_id, join(dir, `${format}.jpg`), { format })).toBeGreaterThan(0);
      }
      await expect(service.downloadVideo(job.job_id, join(dir, 'x.mp4'), { format: 'landscape' })).rejects.toMatchObject({
        code: 'NOT_FOUND',
        reason: 'format_not_rendered',
      });
    } finally {
      await service.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a batch CSV with a formats column', () => {
  it('writes <id>-<format>.mp4 per output of a pack row, fails a bad row naming the formats, and resumes packs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'immoreel-packs-'));
    const service = new LocalService({ ffmpeg: TEST_FFMPEG, dataDir: join(dir, 'data'), engine: fakeEngine({ ms: 20 }), pollMs: 20 });
    const csv = join(dir, 'listings.csv');
    const outDir = join(dir, 'videos');
    writeFileSync(
      csv,
      [
        'id,description,photos,formats',
        `pack,${LISTING_TEXT.replace(/,/g, ' ')},${PHOTOS[0]},landscape|portrait`,
        `bad,${LISTING_TEXT.replace(/,/g, ' ')},${PHOTOS[0]},"landscape,reel"`,
        `plain,${LISTING_TEXT.replace(/,/g, ' ')},${PHOTOS[0]},`,
      ].join('\n'),
    );
    const run = async (resume: boolean): Promise<RenderBatchRecord[]> => {
      const records: RenderBatchRecord[] = [];
      await runRenderBatch(service, { csv, outDir, resume, concurrency: 2, defaults: {} }, { onRecord: (r) => records.push(r) });
      return records.sort((a, b) => a.id.localeCompare(b.id));
    };
    try {
      const [bad, pack, plain] = await run(false);
      expect(bad).toMatchObject({
        ok: false,
        error: { message: expect.stringContaining('formats[1] must be one of landscape, portrait, square') },
      });
      expect(pack).toMatchObject({
        ok: true,
        video: join(outDir, 'pack-landscape.mp4'),
        videos: [join(outDir, 'pack-landscape.mp4'), join(outDir, 'pack-portrait.mp4')],
      });
      expect(readFileSync(join(outDir, 'pack-portrait.mp4'), 'utf8')).toContain('a portrait mp4');
      expect(plain).toMatchObject({ ok: true, video: join(outDir, 'plain.mp4') });
      expect((plain as { videos?: unknown }).videos).toBeUndefined();
      // --resume skips the pack only while every one of its files is intact.
      const resumed = await run(true);
      expect(resumed.find((r) => r.id === 'pack')).toMatchObject({
        ok: true,
        skipped: true,
        videos: [join(outDir, 'pack-landscape.mp4'), join(outDir, 'pack-portrait.mp4')],
      });
      writeFileSync(join(outDir, 'pack-portrait.mp4'), 'changed');
      expect((await run(true)).find((r) => r.id === 'pack')).toMatchObject({ ok: true, skipped: false });
    } finally {
      await service.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord, VideoFormat } from '../../src/core/types.js';
import { defaultEngine } from '../../src/jobs/engine.js';
import { assertBuiltCliIsFresh, runCli } from '../helpers/cli.js';
import { LISTING_TEXT, makePhotos } from '../helpers/job-photos.js';
import { expectPlayable720p60, probe } from '../helpers/probe.js';
import { makeHarness, type Harness } from '../helpers/server-harness.js';

/*
 * The must-show for video packs (docs/api.md "Video packs"): one pack job through the API
 * and one through the CLI (`render --formats landscape,portrait,square --poster`, remote mode
 * against the same server), each with three outputs and three posters verified by ffprobe, and one
 * quota unit per output (docs/api.md "Monthly quota"). Real engine, real ffmpeg; the shortest duration (10 s) and small photos.
 */

const PACK: VideoFormat[] = ['landscape', 'portrait', 'square'];
const SIZE: Record<VideoFormat, [number, number]> = { landscape: [1280, 720], portrait: [720, 1280], square: [720, 720] };
const TIMEOUT = 10 * 60_000;

let h: Harness;
let baseUrl: string;
let work: string;
let photos: string[];

beforeAll(async () => {
  // The CLI half spawns bin/immoreel.js, which runs dist/: a stale build fails here, saying so.
  assertBuiltCliIsFresh();
  work = mkdtempSync(join(tmpdir(), 'immoreel-packs-'));
  photos = await makePhotos(join(work, 'photos'), 2, 640, 480);
  h = await makeHarness({ engine: defaultEngine });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await h?.close();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

/** Each output and poster at its format's size: H.264 60 fps with AAC, and a JPEG of the same frame size. */
async function expectVerified(videos: Record<VideoFormat, string>, posters: Record<VideoFormat, string>): Promise<void> {
  for (const format of PACK) {
    expect(expectPlayable720p60(await probe(videos[format]), format), format).toEqual([]);
    const [width, height] = SIZE[format];
    expect(await probe(posters[format]), format).toMatchObject({ videoCodec: 'mjpeg', width, height });
  }
}

describe('video packs, rendered for real', () => {
  it('through the API: one job, three verified outputs and posters by ?format=, three quota units', { timeout: TIMEOUT }, async () => {
    const { auth, keyId } = h.key({ tenant: 'api' });
    const refs: string[] = [];
    for (const photo of photos) {
      const upload = await h.app.inject({
        method: 'POST',
        url: '/api/v1/assets',
        headers: { ...auth, 'content-type': 'image/jpeg' },
        payload: readFileSync(photo),
      });
      expect(upload.statusCode, upload.body).toBe(201);
      refs.push((JSON.parse(upload.body) as { asset: { ref: string } }).asset.ref);
    }
    const created = await h.app.inject({
      method: 'POST',
      url: '/api/v1/render-video',
      headers: auth,
      payload: { description: LISTING_TEXT, photos: refs, formats: PACK, duration_s: 10, music: 'none' },
    });
    expect(created.statusCode, created.body).toBe(202);
    const jobId = (JSON.parse(created.body) as { job: JobRecord }).job.job_id;
    let job: JobRecord | undefined;
    for (const deadline = Date.now() + TIMEOUT - 30_000; Date.now() < deadline;) {
      job = (JSON.parse((await h.app.inject({ method: 'GET', url: `/api/v1/jobs/${jobId}`, headers: auth })).body) as { job: JobRecord })
        .job;
      if (job.state !== 'queued' && job.state !== 'running') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(job?.state, JSON.stringify(job?.error)).toBe('succeeded');
    expect(job?.outputs?.map((o) => [o.format, o.width, o.height, o.fps])).toEqual(PACK.map((f) => [f, ...SIZE[f], 60]));
    const videos = {} as Record<VideoFormat, string>;
    const posters = {} as Record<VideoFormat, string>;
    for (const format of PACK) {
      for (const [route, files, extension] of [
        ['video', videos, 'mp4'],
        ['poster', posters, 'jpg'],
      ] as const) {
        const answer = await h.app.inject({ method: 'GET', url: `/api/v1/jobs/${jobId}/${route}?format=${format}`, headers: auth });
        expect(answer.statusCode, `${route} ${format}`).toBe(200);
        files[format] = join(work, `api-${route}-${format}.${extension}`);
        writeFileSync(files[format], answer.rawPayload);
      }
    }
    await expectVerified(videos, posters);
    expect(h.store.usage.used(keyId)).toBe(3);
  });

  it(
    'through the CLI: render --formats landscape,portrait,square --poster writes three videos and posters, three quota units (one per output)',
    { timeout: TIMEOUT },
    async () => {
      const { apiKey, keyId } = h.key({ tenant: 'cli' });
      const out = join(work, 'villa.mp4');
      // prettier-ignore
      const args = ['--json', '--base-url', baseUrl, 'render', '--description', LISTING_TEXT, '--photos', photos.join(','),
        '--duration', '10', '--music', 'none', '--formats', PACK.join(','), '--poster', '--out', out];
      const result = await runCli(args, {
        timeoutMs: TIMEOUT - 30_000,
        env: { IMMOREEL_API_KEY: apiKey, IMMOREEL_CONFIG_DIR: join(work, 'config'), IMMOREEL_PROFILE: undefined },
      });
      expect(result.code, result.stderr).toBe(0);
      const printed = JSON.parse(result.stdout) as { job: JobRecord; outputs: { format: VideoFormat; file: string; poster: string }[] };
      expect(printed.job.formats).toEqual(PACK);
      const named = (format: VideoFormat, suffix: string) => join(work, `villa-${format}${suffix}`);
      expect(printed.outputs).toEqual(
        PACK.map((format) => ({ format, file: named(format, '.mp4'), poster: named(format, '-poster.jpg') })),
      );
      const files = (suffix: string) => Object.fromEntries(PACK.map((f) => [f, named(f, suffix)])) as Record<VideoFormat, string>;
      await expectVerified(files('.mp4'), files('-poster.jpg'));
      expect(h.store.usage.used(keyId)).toBe(3);

      // `jobs download --format` fetches one output of the pack again, under the name asked for.
      const again = join(work, 'again.mp4');
      const download = await runCli(
        ['--json', '--base-url', baseUrl, 'jobs', 'download', printed.job.job_id, '--format', 'portrait', '--out', again],
        {
          env: { IMMOREEL_API_KEY: apiKey, IMMOREEL_CONFIG_DIR: join(work, 'config'), IMMOREEL_PROFILE: undefined },
        },
      );
      expect(download.code, download.stderr).toBe(0);
      expect(readFileSync(again).equals(readFileSync(named('portrait', '.mp4')))).toBe(true);
    },
  );
});

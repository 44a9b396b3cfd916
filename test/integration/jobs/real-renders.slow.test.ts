import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../src/core/types.js';
import type { RenderRequest } from '../../../src/core/requests.js';
import { LocalService } from '../../../src/service/local-service.js';
import { expectPlayable720p60, ffmpegChildren, probe } from '../../helpers/probe.js';
import { LISTING_TEXT, makePhotos } from '../../helpers/job-photos.js';
import { TEST_FFMPEG } from '../../helpers/config.js';

/*
 * Must show: real renders through the job layer (real engine, real ffmpeg, real store).
 * Videos are the shortest the validator accepts, from a short text and 1–2 small photos.
 *
 * The pool runs at its maximum concurrency (30), so each render gets the 1-thread budget of a full
 * pool; 12 jobs, not 30, are what it is given: the same code path for a third of the renders
 * (docs/scaling.md "CI time budget"; `npm run bench:jobs` runs the full 30, docs/jobs.md "Benchmark").
 */
const JOBS = 12;
const POOL = 30;

let work: string;
let photos: string[];
const services: LocalService[] = [];

function request(extra: Partial<RenderRequest> = {}): RenderRequest {
  return { description: LISTING_TEXT, photos, music: 'none', duration_s: 10, ...extra };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'immoreel-real-'));
  photos = await makePhotos(join(work, 'photos'), 2, 800, 600);
});

afterAll(async () => {
  for (const s of services.splice(0)) await s.close();
});

function service(concurrency: number): LocalService {
  const s = new LocalService({ ffmpeg: TEST_FFMPEG, dataDir: mkdtempSync(join(work, 'data-')), concurrency });
  services.push(s);
  return s;
}

describe('real renders through the job layer', () => {
  it(`${JOBS} short jobs submitted at once to a pool of ${POOL} all succeed and pass verification`, { timeout: 30 * 60_000 }, async () => {
    const local = service(POOL);
    const queued = await Promise.all(
      Array.from({ length: JOBS }, (_, i) => local.renderVideo(request({ photos: i % 2 === 0 ? photos : photos.slice(0, 1) }))),
    );
    expect(queued.every((j) => j.state === 'queued')).toBe(true);
    let peakRunning = 0;
    const running = new Set<string>();
    const finished = await Promise.all(
      queued.map((job) =>
        local.waitForJob(job.job_id, {
          onUpdate: (update: JobRecord) => {
            if (update.state === 'running') running.add(update.job_id);
            else running.delete(update.job_id);
            peakRunning = Math.max(peakRunning, running.size);
          },
        }),
      ),
    );
    expect(finished.map((j) => `${j.state} ${j.error?.message ?? ''}`.trim())).toEqual(Array(JOBS).fill('succeeded'));
    // They really ran side by side, not one after another.
    expect(peakRunning).toBeGreaterThan(JOBS / 2);
    for (const job of finished) {
      const manager = await local.jobs();
      const key = await manager.videoKey(job.job_id);
      expect(key).not.toBeNull();
      const file = join(local.dataDir, key!);
      expect(expectPlayable720p60(await probe(file!))).toEqual([]);
      expect(job.result).toMatchObject({ width: 1280, height: 720, fps: 60, video_codec: 'h264', audio_codec: 'aac' });
      expect(job.attempts).toBe(1);
    }
  });

  it('a canceled render stops its ffmpeg and never turns into succeeded', { timeout: 10 * 60_000 }, async () => {
    const local = service(1);
    const job = await local.renderVideo(request());
    let sawRendering = false;
    const waiting = local.waitForJob(job.job_id, {
      onUpdate: (update) => {
        if (update.state === 'running' && update.stage === 'rendering' && !sawRendering) {
          sawRendering = true;
          void local.cancelJob(job.job_id);
        }
      },
    });
    const ended = await waiting;
    expect(sawRendering).toBe(true);
    expect(ended.state).toBe('canceled');
    // Long enough for a render that ignored the cancel to have finished.
    await new Promise((r) => setTimeout(r, 5000));
    const later = await local.getJob(job.job_id);
    expect(later).toMatchObject({ state: 'canceled', result: null });
    expect(existsSync(join(local.dataDir, 'jobs', job.job_id, 'output.mp4'))).toBe(false);
    expect(await ffmpegChildren()).toBe(0);
    await expect(local.downloadVideo(job.job_id, join(work, 'nope.mp4'))).rejects.toMatchObject({ reason: 'job_canceled' });
  });
});

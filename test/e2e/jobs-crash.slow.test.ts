import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { startDetachedWorker } from '../../src/cli/commands/render.js';
import type { JobRecord } from '../../src/core/types.js';
import { LocalService } from '../../src/service/local-service.js';
import { runCli } from '../helpers/cli.js';
import { expectPlayable720p60, probe } from '../helpers/probe.js';
import { LISTING_TEXT, makePhotos } from '../helpers/job-photos.js';
import { TEST_FFMPEG } from '../helpers/config.js';
import { loadConfig } from '../../src/config/index.js';

/*
 * Must show: `immoreel worker` killed with SIGKILL in the middle of a real render; the
 * next worker finds the job abandoned, renders it again, and it ends succeeded with a verified
 * video. Also `render --no-wait`'s detached worker draining the queue on its own.
 */

const BIN = fileURLToPath(new URL('../../bin/immoreel.js', import.meta.url));
let work: string;
let photos: string[];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'immoreel-crash-'));
  photos = await makePhotos(join(work, 'photos'), 2, 800, 600);
});

async function queueJob(dataDir: string): Promise<string> {
  const service = new LocalService({ ffmpeg: TEST_FFMPEG, dataDir });
  try {
    return (await service.renderVideo({ description: LISTING_TEXT, photos, music: 'none', duration_s: 10 })).job_id;
  } finally {
    await service.close();
  }
}

async function readJob(dataDir: string, jobId: string): Promise<JobRecord> {
  const service = new LocalService({ ffmpeg: TEST_FFMPEG, dataDir });
  try {
    return await service.getJob(jobId);
  } finally {
    await service.close();
  }
}

async function until(dataDir: string, jobId: string, ok: (job: JobRecord) => boolean, timeoutMs: number): Promise<JobRecord> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await readJob(dataDir, jobId);
    if (ok(job)) return job;
    if (Date.now() > deadline) throw new Error(`timed out waiting; job is ${JSON.stringify(job)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('immoreel worker', () => {
  it('survives SIGKILL mid-render: the restarted worker renders the job again to a verified video', { timeout: 15 * 60_000 }, async () => {
    const dataDir = join(work, 'killed');
    const jobId = await queueJob(dataDir);
    // Its own process group, so the kill takes its ffmpeg along, as a power cut or `systemctl kill` would.
    const worker = spawn(process.execPath, [BIN, '--data-dir', dataDir, 'worker', '--concurrency', '1'], {
      detached: true,
      stdio: 'ignore',
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => worker.on('exit', (_code, signal) => resolve(signal)));
    const midway = await until(dataDir, jobId, (j) => j.state === 'running' && j.stage === 'rendering' && j.progress >= 0.2, 10 * 60_000);
    expect(midway.attempts).toBe(1);
    process.kill(-worker.pid!, 'SIGKILL');
    expect(await exited).toBe('SIGKILL');

    // Nothing half-written where the result is expected. The next process to open the store
    // (here the read below) sees the worker's pid is gone and puts the job back in the queue.
    expect(existsSync(join(dataDir, 'jobs', jobId, 'output.mp4'))).toBe(false);
    expect(await readJob(dataDir, jobId)).toMatchObject({ state: 'queued', attempts: 1, stage: null, result: null });

    const restart = await runCli(['--data-dir', dataDir, 'worker', '--until-idle', '--concurrency', '1'], { timeoutMs: 10 * 60_000 });
    expect(restart.code).toBe(0);
    const job = await readJob(dataDir, jobId);
    expect(job).toMatchObject({ state: 'succeeded', attempts: 2, error: null });
    expect(expectPlayable720p60(await probe(join(dataDir, 'jobs', jobId, 'output.mp4')))).toEqual([]);
  });

  it('started detached (render --no-wait), drains the queue and exits', { timeout: 15 * 60_000 }, async () => {
    const dataDir = join(work, 'detached');
    const jobId = await queueJob(dataDir);
    startDetachedWorker({ config: loadConfig({ env: process.env, flags: { dataDir } }), environment: process.env });
    const job = await until(dataDir, jobId, (j) => j.state === 'succeeded' || j.state === 'failed', 10 * 60_000);
    expect(job.state).toBe('succeeded');
    expect(expectPlayable720p60(await probe(join(dataDir, 'jobs', jobId, 'output.mp4')))).toEqual([]);
  });
});

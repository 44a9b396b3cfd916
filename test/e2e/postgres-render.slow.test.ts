import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBlobStore } from '../../src/blobs/index.js';
import { BIN, runCli } from '../helpers/cli.js';
import { startPostgres, startS3, type PostgresServer, type S3Server } from '../helpers/services.js';
import { LISTING_TEXT, makePhotos } from '../helpers/job-photos.js';
import { expectPlayable720p60, probe } from '../helpers/probe.js';
import { promtoolProblems, sample } from '../helpers/prometheus-text.js';

/**
 * A real render end to end on the multi-machine backends: `immoreel worker` and `immoreel render`
 * / `jobs` as separate processes with their own data directories (scratch only), sharing
 * PostgreSQL (records + pg-boss queue) and an S3 bucket (s3rver) — docs/scaling.md.
 */

let postgres: PostgresServer;
let s3: S3Server;
let worker: ChildProcess | null = null;
let env: Record<string, string>;
const work = mkdtempSync(join(tmpdir(), 'immoreel-pg-render-'));

beforeAll(async () => {
  postgres = await startPostgres();
  s3 = await startS3();
  env = { ...s3.env, IMMOREEL_DATABASE_URL: await postgres.createDatabase(), IMMOREEL_STORAGE_URL: `s3://${s3.bucket}/videos` };
}, 60_000);

afterAll(async () => {
  worker?.kill('SIGKILL');
  await s3?.stop();
  await postgres?.stop();
});

/** `immoreel worker` with its own data directory (scratch only); what it prints is gathered. */
function startWorker(name: string): { text: string } {
  const log = { text: '' };
  worker = spawn(process.execPath, [BIN, '--data-dir', join(work, name), 'worker', '--concurrency', '1', '--metrics-port', '0'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  worker.stdout!.on('data', (chunk: Buffer) => (log.text += chunk.toString()));
  worker.stderr!.on('data', (chunk: Buffer) => (log.text += chunk.toString()));
  return log;
}

async function assetKeys(): Promise<string[]> {
  const blobs = openBlobStore({ url: env.IMMOREEL_STORAGE_URL!, dataDir: work, env: s3.env });
  const found: string[] = [];
  for await (const entry of blobs.list('assets/')) found.push(entry.key);
  await blobs.close();
  return found;
}

describe('immoreel on PostgreSQL + S3', { timeout: 240_000 }, () => {
  it('renders through `immoreel worker`: the video is in the bucket, downloads verified and plays as 720p60', async () => {
    const log = startWorker('worker');

    const out = join(work, 'demo.mp4');
    const render = await runCli(
      ['--json', '--data-dir', join(work, 'cli'), 'render', '--demo', '--duration', '10', '--out', out, '--poster'],
      {
        env,
        timeoutMs: 220_000,
      },
    );
    expect(render.code, `${render.stderr}\nworker: ${log.text}`).toBe(0);
    const printed = JSON.parse(render.stdout) as { job: { job_id: string; state: string; attempts: number } };
    expect(printed.job).toMatchObject({ state: 'succeeded', attempts: 1 });
    expect(expectPlayable720p60(await probe(out))).toEqual([]);
    expect(log.text).toMatch(/postgres records, videos in s3:\/\//);

    // The worker rendered it: the CLI's own data directory holds no video, the bucket holds one.
    const id = printed.job.job_id;
    const blobs = openBlobStore({ url: env.IMMOREEL_STORAGE_URL, dataDir: work, env: s3.env });
    const keys: string[] = [];
    for await (const entry of blobs.list(`jobs/${id}/`)) keys.push(entry.key);
    await blobs.close();
    expect(keys.sort()).toEqual([`jobs/${id}/output-1-poster.jpg`, `jobs/${id}/output-1.mp4`]);
    // --poster: the title card's frame from the bucket, beside the video, at its size.
    expect(JSON.parse(render.stdout)).toMatchObject({ poster: join(work, 'demo-poster.jpg') });
    const poster = await probe(join(work, 'demo-poster.jpg'));
    expect(poster).toMatchObject({ videoCodec: 'mjpeg', width: 1280, height: 720 });

    // Another process with another data directory sees and downloads the same job.
    const listed = await runCli(['--json', '--data-dir', join(work, 'other'), 'jobs', 'list'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { jobs: { job_id: string }[] }).jobs.map((j) => j.job_id)).toEqual([id]);
    const copy = join(work, 'copy.mp4');
    const download = await runCli(['--json', '--data-dir', join(work, 'other'), 'jobs', 'download', id, '--out', copy], { env });
    expect(download.code, download.stderr).toBe(0);
    expect(expectPlayable720p60(await probe(copy))).toEqual([]);

    // The worker's metrics port (docs/operations.md "Metrics"): its render and upload timed, its probes answering.
    const metricsUrl = /Metrics on (http:\/\/\S+)\/metrics/.exec(log.text)?.[1];
    expect(metricsUrl, log.text).toBeDefined();
    const scraped = await request(`${metricsUrl!}/metrics`);
    const text = await scraped.body.text();
    expect(scraped.statusCode).toBe(200);
    expect(promtoolProblems(text)).toBe('');
    expect(sample(text, 'immoreel_render_duration_seconds_count')).toBe(1);
    expect(sample(text, 'immoreel_upload_duration_seconds_count')).toBe(1);
    expect(sample(text, 'immoreel_jobs', 'state="succeeded"')).toBe(1);
    expect(sample(text, 'immoreel_queue_depth')).toBe(0);
    expect(sample(text, 'immoreel_ready')).toBe(1);
    expect(sample(text, 'immoreel_retries_total', 'operation="upload"')).toBe(0);
    const health = await request(`${metricsUrl!}/api/v1/health`);
    expect(health.statusCode).toBe(200);
    expect(await health.body.json()).toMatchObject({ ok: true, service: 'immoreel' });
    const ready = await request(`${metricsUrl!}/api/v1/ready`);
    expect(await ready.body.json()).toEqual({ ok: true, status: 'success', checks: { database: 'ok', storage: 'ok', queue: 'ok' } });
  });

  it('runs a CSV batch: every row a job in PostgreSQL rendered by the worker, every video copied out and playable', async () => {
    const photos = await makePhotos(join(work, 'batch-photos'), 2);
    const csv = join(work, 'rows.csv');
    writeFileSync(
      csv,
      ['id,description,photos,duration_s', ...['villa-a', 'villa-b'].map((id) => `${id},"${LISTING_TEXT}",${photos.join('|')},10`)].join(
        '\n',
      ),
    );
    const outDir = join(work, 'batch-out');
    const batch = await runCli(['--json', '--data-dir', join(work, 'batch-cli'), 'render', '--csv', csv, '--out-dir', outDir], {
      env,
      timeoutMs: 220_000,
    });
    expect(batch.code, batch.stderr).toBe(0);
    const rows = batch.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; ok: boolean; video: string; job: { state: string } });
    expect(rows.map((row) => [row.id, row.ok, row.job.state]).sort()).toEqual([
      ['villa-a', true, 'succeeded'],
      ['villa-b', true, 'succeeded'],
    ]);
    for (const id of ['villa-a', 'villa-b']) expect(expectPlayable720p60(await probe(join(outDir, `${id}.mp4`)))).toEqual([]);
  });

  it('puts local photo and logo files in the bucket, so a worker without those files renders the job', async () => {
    // The worker of the first test stops: the job must wait in the queue while its files disappear.
    if (worker !== null && worker.exitCode === null) {
      worker.kill('SIGTERM');
      await once(worker, 'exit');
    }
    worker = null;
    const laptop = join(work, 'laptop');
    const [front, back] = await makePhotos(join(laptop, 'photos'), 2);
    const logo = join(laptop, 'logo.jpg');
    copyFileSync(front!, logo);
    const music = join(laptop, 'bed.wav');
    writeFileSync(music, 'RIFF');

    const common = ['--json', '--data-dir', join(work, 'laptop-cli'), 'render', '--description', LISTING_TEXT, '--duration', '10'];
    // A music file cannot be shared the same way: refused up front, nothing queued.
    const refused = await runCli([...common, '--photos', `${front},${back}`, '--music', music, '--no-wait'], { env });
    expect(refused.code, refused.stderr).toBe(2);
    expect(JSON.parse(refused.stdout)).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST', reason: 'local_music_file' } });

    const before = await assetKeys();
    const queued = await runCli([...common, '--photos', `${front},${back},${front}`, '--logo', logo, '--no-wait'], { env });
    expect(queued.code, queued.stderr).toBe(0);
    const id = (JSON.parse(queued.stdout) as { job: { job_id: string; state: string } }).job.job_id;
    // The files are gone from "this machine" before any worker looks at the job.
    rmSync(laptop, { recursive: true, force: true });

    const log = startWorker('worker-2');
    const out = join(work, 'shared-files.mp4');
    const waited = await runCli(['--json', '--data-dir', join(work, 'other'), 'jobs', 'wait', id], { env, timeoutMs: 200_000 });
    expect(waited.code, `${waited.stderr}\nworker: ${log.text}`).toBe(0);
    const job = (JSON.parse(waited.stdout) as { job: { state: string; warnings?: { code: string }[] } }).job;
    expect(job.state).toBe('succeeded');
    expect((job.warnings ?? []).filter((warning) => warning.code === 'PHOTO_DROPPED')).toEqual([]);
    const download = await runCli(['--json', '--data-dir', join(work, 'other'), 'jobs', 'download', id, '--out', out], { env });
    expect(download.code, download.stderr).toBe(0);
    expect(expectPlayable720p60(await probe(out))).toEqual([]);

    // Two photos (one named twice) and a logo: three files, each stored once, as assets in the bucket.
    const added = (await assetKeys()).filter((key) => !before.includes(key));
    expect(added).toHaveLength(3);
    for (const key of added) expect(key).toMatch(/^assets\/ast_[0-9a-z]{24}\.jpg$/);
  });
});

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../src/core/types.js';
import { JobManager, type JobManagerOptions } from '../../../src/jobs/manager.js';
import { LocalService } from '../../../src/service/local-service.js';
import { openBlobStore, type BlobStore } from '../../../src/blobs/index.js';
import { openRecordStore, type RecordStore } from '../../../src/records/index.js';
import { startPostgres, startS3, type PostgresServer, type S3Server } from '../../helpers/services.js';
import { fakeEngine, fakeRequest } from '../../helpers/fake-engine.js';
import { TEST_FFMPEG } from '../../helpers/config.js';
import { until as pollUntil } from '../../helpers/until.js';

/** This file's waits read PostgreSQL: every 100 ms, for up to 30 s by default. */
const until = <T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 30_000): Promise<T> => pollUntil(read, ok, timeoutMs, 100);

/**
 * The job layer on PostgreSQL + pg-boss + S3 (docs/scaling.md "Dispatch"): real PostgreSQL and
 * s3rver started here, fake renders (the job layer only moves bytes; the real render on this
 * backend is in postgres-render.slow.test.ts).
 */

let postgres: PostgresServer;
let s3: S3Server;
const cleanup: (() => Promise<void>)[] = [];

beforeAll(async () => {
  postgres = await startPostgres();
  s3 = await startS3();
}, 60_000);

afterAll(async () => {
  await s3?.stop();
  await postgres?.stop();
});

afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close().catch(() => undefined);
});

interface Node {
  records: RecordStore;
  blobs: BlobStore;
  dataDir: string;
}

/** One "machine": its own data directory (scratch), its own connections to the shared database and bucket. */
async function node(databaseUrl: string, storageUrl: string): Promise<Node> {
  const dataDir = mkdtempSync(join(tmpdir(), 'immoreel-pgjobs-'));
  const records = await openRecordStore({ databaseUrl, dataDir });
  const blobs = openBlobStore({ url: storageUrl, dataDir, env: s3.env });
  cleanup.push(async () => {
    await records.close();
    await blobs.close();
  });
  return { records, blobs, dataDir };
}

async function manager(at: Node, options: Partial<JobManagerOptions> = {}): Promise<JobManager> {
  const m = await JobManager.open({
    ffmpeg: TEST_FFMPEG,
    dataDir: at.dataDir,
    records: at.records,
    blobs: at.blobs,
    pollMs: 50,
    engine: fakeEngine(),
    ...options,
  });
  cleanup.push(() => m.close());
  return m;
}

async function keysUnder(blobs: BlobStore, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const entry of blobs.list(prefix)) keys.push(entry.key);
  return keys;
}

let bucketPrefix = 0;
const storage = (): string => `s3://${s3.bucket}/t${(bucketPrefix += 1)}`;
const quickQueue = { retryDelaySeconds: 1, expireInSeconds: 600 };

describe('jobs on PostgreSQL + pg-boss + S3', () => {
  it('dispatches jobs submitted on one node to workers on others: each succeeds once, with one verified video in the bucket', async () => {
    const databaseUrl = await postgres.createDatabase();
    const storageUrl = storage();
    const api = await manager(await node(databaseUrl, storageUrl), { runWorkers: false, linkBase: '/api/v1', queue: quickQueue });
    const ended: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const worker = await manager(await node(databaseUrl, storageUrl), {
        concurrency: 2,
        engine: fakeEngine({ ms: 150 }),
        queue: quickQueue,
      });
      worker.onTerminal((job) => ended.push(`${job.job_id} ${job.state}`));
    }
    expect(api.dispatching).toBe(true);
    const ids: string[] = [];
    for (let i = 0; i < 8; i += 1) ids.push((await api.submit(fakeRequest(), { tenant: 'acme' })).job_id);
    const jobs = await until(
      () => Promise.all(ids.map(async (id) => (await api.get(id))!.job)),
      (all) => all.every((job) => job.state === 'succeeded'),
    );
    await until(
      async () => ended.length,
      (n) => n >= ids.length,
      5000,
    );
    // Each job ended once, on one worker, and nothing rendered it twice.
    expect(ended.sort()).toEqual(ids.map((id) => `${id} succeeded`).sort());
    expect(jobs.every((job) => job.attempts === 1)).toBe(true);
    const reader = await node(databaseUrl, storageUrl);
    for (const job of jobs) {
      // The poster goes beside the video, under the same attempt's name.
      expect(await keysUnder(reader.blobs, `jobs/${job.job_id}/`)).toEqual([
        `jobs/${job.job_id}/output-1-poster.jpg`,
        `jobs/${job.job_id}/output-1.mp4`,
      ]);
      expect(await api.videoKey(job.job_id)).toBe(`jobs/${job.job_id}/output-1.mp4`);
    }
    // The CLI's download reads the bucket and checks the recorded checksum.
    const service = new LocalService({ ffmpeg: TEST_FFMPEG, dataDir: reader.dataDir, records: reader.records, blobs: reader.blobs });
    cleanup.push(() => service.close());
    const local = await (await service.jobs()).submit(fakeRequest(), { tenant: 'local' });
    const done = await service.waitForJob(local.job_id);
    expect(done.state).toBe('succeeded');
    const out = join(reader.dataDir, 'copy.mp4');
    const bytes = await service.downloadVideo(local.job_id, out);
    expect(readFileSync(out).length).toBe(bytes);
    const poster = join(reader.dataDir, 'copy-poster.jpg');
    await service.downloadPoster(local.job_id, poster);
    expect(readFileSync(poster, 'utf8')).toBe('not really a jpeg');
    expect(bytes).toBeGreaterThan(0);
    // Purge deletes the video from the bucket and marks the record expired.
    const purger = await manager(reader, { runWorkers: false, queue: quickQueue });
    const summary = await purger.purge(0);
    expect(summary.jobs).toBe(9);
    expect(await keysUnder(reader.blobs, 'jobs/')).toEqual([]);
    expect((await service.getJob(local.job_id)).result?.expired_at).toMatch(/^\d{4}-/);
    await expect(service.downloadVideo(local.job_id, out)).rejects.toMatchObject({ code: 'GONE' });
  }, 90_000);

  it('stops a render on another node when the job is canceled, and leaves no video', async () => {
    const databaseUrl = await postgres.createDatabase();
    const storageUrl = storage();
    const api = await manager(await node(databaseUrl, storageUrl), { runWorkers: false, queue: quickQueue });
    let aborted = false;
    const slow = fakeEngine({ ms: 20_000 });
    await manager(await node(databaseUrl, storageUrl), {
      queue: quickQueue,
      engine: (request, ctx) => {
        ctx.signal.addEventListener('abort', () => (aborted = true));
        return slow(request, ctx);
      },
    });
    const id = (await api.submit(fakeRequest(), { tenant: 'acme' })).job_id;
    await until(
      async () => (await api.get(id))!.job.stage,
      (stage) => stage === 'rendering',
    );
    expect((await api.cancel(id)).state).toBe('canceled');
    await until(async () => aborted, Boolean, 5000);
    const reader = await node(databaseUrl, storageUrl);
    expect(await keysUnder(reader.blobs, `jobs/${id}/`)).toEqual([]);
    expect((await api.get(id))!.job.state).toBe('canceled');
  }, 60_000);

  describe('a worker killed mid-render (SIGKILL)', () => {
    const FIXTURE = fileURLToPath(new URL('../../helpers/pg-worker.ts', import.meta.url));

    /** Starts the doomed worker process and resolves once it has started rendering `jobId`. */
    async function doomedWorker(databaseUrl: string, storageUrl: string, jobId: string): Promise<ChildProcess> {
      const dataDir = mkdtempSync(join(tmpdir(), 'immoreel-doomed-'));
      const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, dataDir, databaseUrl, storageUrl, '600000'], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, ...s3.env, IMMOREEL_LEASE_SECONDS: '2' },
      });
      cleanup.push(async () => void child.kill('SIGKILL'));
      let output = '';
      let errors = '';
      child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the worker never started ${jobId}: ${errors}`)), 30_000);
        child.stdout!.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes(`STARTED ${jobId}`)) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.on('exit', (code) => reject(new Error(`the worker exited (${code}) before rendering: ${errors}`)));
      });
      return child;
    }

    /** Makes the dead worker look like one on another machine: only its lease can tell it is gone. */
    async function elsewhere(databaseUrl: string, jobId: string): Promise<void> {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`UPDATE jobs SET owner_host = 'another-machine' WHERE job_id = $1`, [jobId]);
      await client.end();
    }

    it('retries its job on another worker once the lease expires: one success, one video', async () => {
      const databaseUrl = await postgres.createDatabase();
      const storageUrl = storage();
      const api = await manager(await node(databaseUrl, storageUrl), { runWorkers: false, queue: quickQueue });
      const id = (await api.submit(fakeRequest(), { tenant: 'acme' })).job_id;
      const doomed = await doomedWorker(databaseUrl, storageUrl, id);
      doomed.kill('SIGKILL');
      await elsewhere(databaseUrl, id);
      const killedAt = Date.now();
      const survivor = await manager(await node(databaseUrl, storageUrl), { leaseMs: 2000, queue: quickQueue });
      const ended: JobRecord[] = [];
      survivor.onTerminal((job) => ended.push(job));
      const job = await until(
        async () => (await api.get(id))!.job,
        (j) => j.state === 'succeeded',
      );
      // Lease (2 s) + recovery poll + retry delay (1 s): well under the 600 s pg-boss expiry.
      expect(Date.now() - killedAt).toBeLessThan(20_000);
      expect(job.attempts).toBe(2);
      await until(
        async () => ended.length,
        (n) => n > 0,
        5000,
      );
      expect(ended.map((j) => `${j.job_id} ${j.state}`)).toEqual([`${id} succeeded`]);
      const reader = await node(databaseUrl, storageUrl);
      expect(await keysUnder(reader.blobs, `jobs/${id}/`)).toEqual([`jobs/${id}/output-2-poster.jpg`, `jobs/${id}/output-2.mp4`]);
    }, 90_000);

    it('fails the job with a clear error once its attempts are used up', async () => {
      const databaseUrl = await postgres.createDatabase();
      const storageUrl = storage();
      const oneTry = { ...quickQueue, attempts: 1 };
      const api = await manager(await node(databaseUrl, storageUrl), { runWorkers: false, queue: oneTry });
      const id = (await api.submit(fakeRequest(), { tenant: 'acme' })).job_id;
      const doomed = await doomedWorker(databaseUrl, storageUrl, id);
      doomed.kill('SIGKILL');
      await elsewhere(databaseUrl, id);
      const survivor = await manager(await node(databaseUrl, storageUrl), { leaseMs: 2000, queue: oneTry });
      const ended: JobRecord[] = [];
      survivor.onTerminal((job) => ended.push(job));
      const job = await until(
        async () => (await api.get(id))!.job,
        (j) => j.state === 'failed',
      );
      expect(job.error?.code).toBe('RENDER_FAILED');
      await until(
        async () => ended.length,
        (n) => n > 0,
        5000,
      );
      expect(job.error?.message).toMatch(/tried 1 time and each attempt failed or its worker stopped before finishing.*Submit it again/);
      expect(ended.map((j) => j.state)).toEqual(['failed']);
      const reader = await node(databaseUrl, storageUrl);
      expect(await keysUnder(reader.blobs, `jobs/${id}/`)).toEqual([]);
    }, 90_000);
  });
});

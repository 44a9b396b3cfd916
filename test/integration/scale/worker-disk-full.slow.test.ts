import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../src/core/types.js';
import { assertBuiltCliIsFresh, runCli } from '../../helpers/cli.js';
import { freePort, startPostgres, startS3, type PostgresServer, type S3Server } from '../../helpers/services.js';
import { expectPlayable720p60, probe } from '../../helpers/probe.js';
import { LISTING_TEXT, makePhotos } from '../../helpers/job-photos.js';
import { ProcessSet, waitFor, type ClusterProcess } from '../../helpers/cluster.js';

/*
 * A full scratch disk on one of two workers (docs/jobs.md "Worker faults"): one PostgreSQL, one
 * bucket, one `immoreel serve` and two `immoreel worker`s of the built CLI; the first worker's data
 * directory (its scratch space) is a 1 MB tmpfs, too small for a render. That worker takes the
 * first job, runs out of space, hands the job on and says it is not ready (its log, its `/ready`);
 * then a healthy worker starts. Every job succeeds once with a verified video, the tenant is
 * charged once per job, and no client ever sees the disk's error or a path of the sick machine.
 * Mounting a tmpfs needs root, which the tests and CI have.
 */

const JOBS = 2;
const DURATION_S = 10;
const TEST_TIMEOUT = 6 * 60_000;

let pgServer: PostgresServer;
let s3: S3Server;
let databaseUrl: string;
let work: string;
let tinyDisk: string | null = null;
const processes = new ProcessSet();

function backendArgs(dataDir: string): string[] {
  return ['--data-dir', dataDir, '--database-url', databaseUrl, '--storage-url', `s3://${s3.bucket}/disk-full`];
}

const backendEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
  ...s3.env,
  IMMOREEL_ALLOW_LOOPBACK_FETCH: '1',
  IMMOREEL_LEASE_SECONDS: '8',
  IMMOREEL_RETRY_DELAY_SECONDS: '1',
  ...extra,
});

beforeAll(async () => {
  assertBuiltCliIsFresh();
  work = mkdtempSync(join(tmpdir(), 'immoreel-disk-full-'));
  tinyDisk = join(work, 'tiny');
  mkdirSync(tinyDisk);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', tinyDisk]);
  [pgServer, s3] = await Promise.all([startPostgres(), startS3('immoreel-disk-full')]);
  databaseUrl = await pgServer.createDatabase('immoreel_disk_full');
}, 120_000);

afterAll(async () => {
  await processes.stopAll();
  const leftovers = await processes.leftovers();
  await Promise.all([pgServer?.stop(), s3?.stop()]);
  if (tinyDisk !== null) execFileSync('umount', ['-l', tinyDisk]);
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
  expect(leftovers).toEqual([]);
}, 120_000);

/** The JSON log lines of a process with `event`. */
function events(proc: ClusterProcess, event: string): Record<string, unknown>[] {
  return proc
    .stderr()
    .split('\n')
    .filter((line) => line.includes(`"event":"${event}"`))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('a full scratch disk on one of two workers', () => {
  it(
    'every job still succeeds, charged once; the sick worker hands its job on and says it is not ready',
    { timeout: TEST_TIMEOUT },
    async () => {
      const created = await runCli([...backendArgs(join(work, 'keys')), 'keys', 'create', '--tenant', 'acme', '--json'], {
        env: backendEnv(),
      });
      expect(created.code, created.stderr).toBe(0);
      const key = (JSON.parse(created.stdout) as { api_key: string }).api_key;
      const apiProc = await processes.spawn('api', [...backendArgs(join(work, 'api')), 'serve', '--port', '0'], {
        env: backendEnv(),
        readyWhen: /"event":"listening"/,
      });
      const base = /"url":"(http[^"]+)"/.exec(apiProc.stderr())![1]!.replace(/\/$/, '');
      const api = async <T>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> => {
        const response = await fetch(`${base}/api/v1${path}`, {
          ...init,
          headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string> | undefined) },
          signal: AbortSignal.timeout(30_000),
        });
        const text = await response.text();
        return { status: response.status, body: (text === '' ? null : JSON.parse(text)) as T };
      };

      // The sick worker: its scratch space is the 1 MB tmpfs; it asks for no free space up front, so
      // it claims, and meets the full disk in the middle of the render.
      const sickMetrics = await freePort();
      const sick = await processes.spawn(
        'worker-sick',
        [...backendArgs(tinyDisk!), 'worker', '--concurrency', '1', '--metrics-port', String(sickMetrics)],
        { env: backendEnv({ IMMOREEL_SCRATCH_MIN_FREE_MB: '0' }), readyWhen: /"event":"ready"/ },
      );

      const [photo] = await makePhotos(join(work, 'photos'), 1, 960, 720);
      const uploaded = await api<{ asset: { ref: string } }>('/assets', {
        method: 'POST',
        headers: { 'content-type': 'image/jpeg' },
        body: readFileSync(photo!),
      });
      expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201);
      const submit = async (n: number): Promise<string> => {
        const answer = await api<{ job: JobRecord }>('/render-video', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': `disk-full-${n}` },
          body: JSON.stringify({ description: LISTING_TEXT, photos: [uploaded.body.asset.ref], music: 'none', duration_s: DURATION_S }),
        });
        expect(answer.status, JSON.stringify(answer.body)).toBe(202);
        return answer.body.job.job_id;
      };

      const first = await submit(0);
      const handedOn = await waitFor(
        'the sick worker to hand its job on',
        async () => events(sick, 'job_handed_on').find((line) => line.job_id === first),
        { timeoutMs: 120_000, processes },
      );
      expect(handedOn).toMatchObject({ reason: 'disk_full', attempt: 1 });
      const notReady = events(sick, 'worker_not_ready');
      expect(notReady).toHaveLength(1);
      expect(notReady[0]).toMatchObject({ reason: 'disk_full', job_id: first, level: 'error' });
      const ready = await fetch(`http://127.0.0.1:${sickMetrics}/api/v1/ready`);
      expect(ready.status).toBe(503);
      expect(ready.headers.get('retry-after')).toBe('5');
      expect(((await ready.json()) as { error: { reason: string; message: string } }).error).toMatchObject({
        reason: 'worker_not_ready',
        message: expect.stringMatching(/scratch disk is full/) as unknown,
      });
      // What a client sees meanwhile: the job waits in the queue, with no error.
      const waiting = await api<{ job: JobRecord }>(`/jobs/${first}`);
      expect(waiting.body.job).toMatchObject({ state: 'queued', error: null });

      // A healthy worker comes; the next job arrives while the sick one backs off.
      await processes.spawn('worker-healthy', [...backendArgs(join(work, 'healthy')), 'worker', '--concurrency', '2'], {
        env: backendEnv(),
        readyWhen: /"event":"ready"/,
      });
      const submitted = [first, await submit(1)];
      const ended = await waitFor(
        `${JOBS} jobs to end`,
        async () => {
          const jobs = await Promise.all(submitted.map(async (id) => (await api<{ job: JobRecord }>(`/jobs/${id}`)).body.job));
          return jobs.every((job) => ['succeeded', 'failed', 'canceled'].includes(job.state)) ? jobs : undefined;
        },
        { timeoutMs: 240_000, everyMs: 1_000, processes },
      );
      expect(ended.map((job) => `${job.job_id} ${job.state} ${job.error?.message ?? ''}`)).toEqual(
        submitted.map((id) => `${id} succeeded `),
      );
      for (const job of ended) {
        expect(JSON.stringify(job)).not.toMatch(/no space left|ENOSPC|tiny|immoreel-disk-full/i);
        const response = await fetch(`${base}/api/v1/jobs/${job.job_id}/video`, { headers: { authorization: `Bearer ${key}` } });
        expect(response.status, job.job_id).toBe(200);
        const file = join(work, `${job.job_id}.mp4`);
        writeFileSync(file, Buffer.from(await response.arrayBuffer()));
        expect(expectPlayable720p60(await probe(file)), job.job_id).toEqual([]);
      }
      // The sick worker rendered nothing to the end, and took only the one job.
      expect(sick.stderr()).not.toMatch(/"event":"job_ended"/);
      expect(events(sick, 'job_handed_on')).toHaveLength(1);

      // Charged once per job: the hand-over cost nothing.
      const me = await api<{ quota: { used: number } }>('/me');
      expect(me.body.quota.used).toBe(JOBS);
      expect(processes.crashed()).toEqual([]);
    },
  );
});

import { openJobManager } from '../../helpers/job-manager.js';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.js';
import { storageError } from '../../../src/blobs/errors.js';
import type { JobRecord } from '../../../src/core/types.js';
import { JobManager, jobTimings, type JobManagerOptions } from '../../../src/jobs/manager.js';
import { defaultConcurrency, threadBudget } from '../../../src/jobs/pool.js';
import { claimDispatched } from '../../../src/jobs/delivery.js';
import { openEmbeddedJobStores } from '../../../src/records/job-backends.js';
import { IllegalTransitionError } from '../../../src/core/job-state.js';
import { openDatabase } from '../../../src/records/sqlite/driver.js';
import { LocalService } from '../../../src/service/local-service.js';
import type { RenderContext } from '../../../src/render/types.js';
import { fakeEngine, fakeRequest } from '../../helpers/fake-engine.js';
import { TEST_FFMPEG } from '../../helpers/config.js';
import { until } from '../../helpers/until.js';
import { loadConfig } from '../../../src/config/index.js';

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
});

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'immoreel-jobs-'));
}

async function manager(options: Partial<JobManagerOptions> & { dataDir?: string } = {}): Promise<JobManager> {
  const m = await openJobManager({
    ffmpeg: TEST_FFMPEG,
    dataDir: options.dataDir ?? tempDir(),
    pollMs: 20,
    engine: fakeEngine(),
    ...options,
  });
  opened.push(m);
  return m;
}

const stateOf = async (m: JobManager, id: string): Promise<JobRecord> => (await m.get(id))!.job;
const terminal = (job: JobRecord): boolean => ['succeeded', 'failed', 'canceled'].includes(job.state);

/** Puts a job in `running` as if a worker on this machine had claimed it and then died. */
function strandAsRunning(m: JobManager, jobId: string, attempts: number, owner: { host: string; pid: number; leaseMs: number }): void {
  const db = openDatabase(dirname(m.files.jobsDir));
  db.prepare(
    `UPDATE jobs SET state = 'running', attempts = ?, owner = ?, owner_host = ?, owner_pid = ?, lease_expires_at = ? WHERE job_id = ?`,
  ).run(attempts, `${owner.host}/${owner.pid}/dead`, owner.host, owner.pid, Date.now() + owner.leaseMs, jobId);
  db.close();
}

interface Reported {
  message: string;
  fields: Record<string, string | number>;
  level: string | undefined;
}

/** A `report` that keeps what the job layer tells the log. */
function reporter(into: Reported[]): NonNullable<JobManagerOptions['report']> {
  return (message, fields, level) => void into.push({ message, fields, level });
}

function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('JobManager', () => {
  it('stores a queued job with the record of docs/jobs.md, with local or API links', async () => {
    const local = await manager({ runWorkers: false });
    const job = await local.submit(fakeRequest({ metadata: { crm_id: 'A-17' } }), { tenant: 'local' });
    expect(job).toMatchObject({
      state: 'queued',
      stage: null,
      progress: 0,
      attempts: 0,
      template: 'classic',
      format: 'landscape',
      language: 'fr',
      result: null,
      error: null,
      metadata: { crm_id: 'A-17' },
    });
    expect(job.links.self).toMatch(/^file:\/\/.*\/jobs\/job_[0-9a-z]{26}\/$/);
    const api = await manager({ runWorkers: false, linkBase: '/api/v1' });
    const remote = await api.submit(fakeRequest(), { tenant: 'acme' });
    expect(remote.links).toEqual({ self: `/api/v1/jobs/${remote.job_id}`, video: null, cancel: `/api/v1/jobs/${remote.job_id}/cancel` });
    expect((await api.get(remote.job_id))?.tenant).toBe('acme');
    expect(await api.countJobs('acme', ['queued'])).toBe(1);
    expect(await api.countJobs('other', ['queued'])).toBe(0);
  });

  it('runs at most `concurrency` renders at once, each in its own directory with its thread budget', async () => {
    const seen: RenderContext[] = [];
    let active = 0;
    let peak = 0;
    const inner = fakeEngine({ ms: 120, seen });
    const m = await manager({
      concurrency: 3,
      engine: async (request, ctx) => {
        active += 1;
        peak = Math.max(peak, active);
        try {
          return await inner(request, ctx);
        } finally {
          active -= 1;
        }
      },
    });
    const ids = await Promise.all(Array.from({ length: 10 }, async () => (await m.submit(fakeRequest(), { tenant: 't' })).job_id));
    await until(
      async () => Promise.all(ids.map(async (id) => (await stateOf(m, id)).state)),
      (states) => states.every((s) => s === 'succeeded'),
    );
    expect(peak).toBe(3);
    // Each render's ffmpeg threads are shared among the renders running when it starts.
    expect(seen.every((c) => c.threads >= threadBudget(3) && c.threads <= threadBudget(1))).toBe(true);
    for (const ctx of seen) {
      const id = ids.find((i) => ctx.workDir.endsWith(i))!;
      expect(ctx.workDir).toBe(join(m.files.jobsDir, id));
      expect(ctx.outputPath).toBe(join(m.files.jobsDir, id, 'output.mp4'));
    }
    const done = await stateOf(m, ids[0]!);
    expect(done).toMatchObject({ stage: null, progress: 1, attempts: 1, listing: { city: 'Casablanca' } });
    expect(done.result?.video_url).toMatch(/^file:\/\/.*output\.mp4$/);
    expect(await m.videoKey(ids[0]!)).toBe(`jobs/${ids[0]!}/output.mp4`);
  });

  it('budgets ffmpeg threads from the cores and the concurrency', async () => {
    expect(threadBudget(1, 2)).toBe(3);
    expect(threadBudget(2, 2)).toBe(1);
    expect(threadBudget(30, 2)).toBe(1);
    expect(threadBudget(4, 16)).toBe(6);
    expect(threadBudget(30, 64)).toBe(3);
  });

  it('sizes the default pool from cores and memory, never above 30', async () => {
    const GB = 1024 ** 3;
    expect(defaultConcurrency(2, 24 * GB)).toBe(4);
    expect(defaultConcurrency(2, 1 * GB)).toBe(2);
    expect(defaultConcurrency(64, 256 * GB)).toBe(30);
    expect(defaultConcurrency(1, 0.25 * GB)).toBe(1);
  });

  it('records stage and progress while running', async () => {
    const m = await manager({ engine: fakeEngine({ ms: 1500 }) });
    const id = (await m.submit(fakeRequest(), { tenant: 't' })).job_id;
    const running = await until(
      () => stateOf(m, id),
      (j) => j.state === 'running' && j.stage === 'rendering' && j.progress > 0,
    );
    expect(running.started_at).not.toBeNull();
    expect(running.progress).toBeLessThan(1);
  });

  it('cancels a queued job: it never runs', async () => {
    const seen: RenderContext[] = [];
    const m = await manager({ runWorkers: false, engine: fakeEngine({ seen }) });
    const id = (await m.submit(fakeRequest(), { tenant: 't' })).job_id;
    const canceled = await m.cancel(id);
    expect(canceled).toMatchObject({ state: 'canceled', stage: null });
    expect(canceled.finished_at).not.toBeNull();
    m.work(id);
    await new Promise((r) => setTimeout(r, 200));
    expect(seen).toEqual([]);
    expect((await stateOf(m, id)).state).toBe('canceled');
  });

  it('cancels a running job: the render is aborted and no video is left', async () => {
    let aborted = false;
    const inner = fakeEngine({ ms: 5000 });
    const m = await manager({
      engine: (request, ctx) => {
        ctx.signal.addEventListener('abort', () => (aborted = true));
        return inner(request, ctx);
      },
    });
    const id = (await m.submit(fakeRequest(), { tenant: 't' })).job_id;
    await until(
      async () => (await stateOf(m, id)).stage,
      (s) => s === 'rendering',
    );
    expect((await m.cancel(id)).state).toBe('canceled');
    await until(() => aborted, Boolean);
    await new Promise((r) => setTimeout(r, 100));
    expect(await stateOf(m, id)).toMatchObject({ state: 'canceled', result: null });
    expect(existsSync(m.outputPath(id))).toBe(false);
    expect(await m.videoKey(id)).toBeNull();
  });

  it('never turns a canceled job into succeeded, even when the engine ignores the abort and finishes', async () => {
    const m = await manager({ engine: fakeEngine({ ms: 400, ignoreAbort: true }) });
    const finished: JobRecord[] = [];
    m.onTerminal((job) => finished.push(job));
    const id = (await m.submit(fakeRequest(), { tenant: 't' })).job_id;
    await until(
      async () => (await stateOf(m, id)).stage,
      (s) => s === 'rendering',
    );
    await m.cancel(id);
    await new Promise((r) => setTimeout(r, 800)); // the engine completes its "video" meanwhile
    expect((await stateOf(m, id)).state).toBe('canceled');
    expect(existsSync(m.outputPath(id))).toBe(false);
    expect(finished.map((j) => j.state)).toEqual(['canceled']);
    // A finished job is returned unchanged by cancel.
    expect((await m.cancel(id)).state).toBe('canceled');
  });

  it('notices a cancel made by another process on the same data directory', async () => {
    const dataDir = tempDir();
    let aborted = false;
    const inner = fakeEngine({ ms: 5000 });
    const worker = await manager({
      dataDir,
      engine: (request, ctx) => {
        ctx.signal.addEventListener('abort', () => (aborted = true));
        return inner(request, ctx);
      },
    });
    const other = await manager({ dataDir, runWorkers: false });
    const id = (await other.submit(fakeRequest(), { tenant: 't' })).job_id;
    await until(
      async () => (await stateOf(other, id)).stage,
      (s) => s === 'rendering',
    );
    await other.cancel(id);
    await until(() => aborted, Boolean, 2000);
    expect((await stateOf(worker, id)).state).toBe('canceled');
  });

  it('records a failed render with its error code and message', async () => {
    const m = await manager({ engine: fakeEngine({ ms: 20, fail: new AppError('UPSTREAM_ERROR', 'The listing page answered 404.') }) });
    const id = (await m.submit(fakeRequest(), { tenant: 't' })).job_id;
    const job = await until(() => stateOf(m, id), terminal);
    expect(job).toMatchObject({
      state: 'failed',
      stage: null,
      result: null,
      error: { code: 'UPSTREAM_ERROR', message: 'The listing page answered 404.' },
    });
    const crash = await manager({ engine: fakeEngine({ ms: 20, fail: new TypeError('x is undefined') }) });
    const other = (await crash.submit(fakeRequest(), { tenant: 't' })).job_id;
    expect((await until(() => stateOf(crash, other), terminal)).error).toEqual({
      code: 'RENDER_FAILED',
      message: 'The render failed unexpectedly (TypeError: x is undefined).',
    });
  });

  it("removes a failed attempt's scratch, and records a storage failure in words that name nothing internal", async () => {
    const reports: Reported[] = [];
    const endpoint = 'http://10.1.2.3:9000';
    const m = await manager({
      report: reporter(reports),
      engine: async (_request, ctx) => {
        // What a render leaves in its scratch before failing: downloaded photos, a half-made video.
        await writeFile(join(ctx.workDir, 'photo-1.jpg'), Buffer.alloc(2 * 1024 * 1024, 1));
        await writeFile(join(ctx.workDir, 'render-1.tmp.mp4'), Buffer.alloc(1024, 2));
        throw storageError(
          'storage_unreachable',
          `The storage endpoint is unreachable (s3://videos at ${endpoint}: ECONNREFUSED): check AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL and the network.`,
        );
      },
    });
    const id = (await m.submit(fakeRequest(), { tenant: 't' })).job_id;
    const job = await until(() => stateOf(m, id), terminal);
    expect(job).toMatchObject({ state: 'failed', error: { code: 'SERVICE_UNAVAILABLE' } });
    expect(job.error?.message).toMatch(/file storage is unavailable/);
    expect(job.error?.message).not.toMatch(/10\.1\.2\.3|s3:\/\/|AWS_|IMMOREEL_/);
    // Nothing of the attempt is left under the scratch root.
    await until(
      () => readdirSync(m.files.jobsDir),
      (entries) => entries.length === 0,
    );
    // The operator's log keeps what the client is not told.
    expect(reports.find((r) => r.fields.event === 'job_attempt_failed')?.fields).toMatchObject({ job_id: id, tenant: 't', attempt: 1 });
    expect(String(reports.find((r) => r.fields.event === 'job_attempt_failed')?.fields.error)).toContain(endpoint);
  });

  it('fails a render that exceeds the watchdog', async () => {
    const m = await manager({ watchdogMs: 150, engine: fakeEngine({ ms: 5000 }) });
    const id = (await m.submit(fakeRequest(), { tenant: 't' })).job_id;
    const job = await until(() => stateOf(m, id), terminal);
    expect(job.state).toBe('failed');
    expect(job.error?.message).toMatch(/stopped by the watchdog/);
  });

  it('fails a render whose engine claims a video that is not there', async () => {
    const m = await manager({
      engine: async (request, ctx) => {
        const outcome = await fakeEngine({ ms: 10 })(request, ctx);
        return { ...outcome, result: { ...outcome.result, size_bytes: outcome.result.size_bytes + 1 } };
      },
    });
    const id = (await m.submit(fakeRequest(), { tenant: 't' })).job_id;
    const job = await until(() => stateOf(m, id), terminal);
    expect(job.state).toBe('failed');
    expect(existsSync(m.outputPath(id))).toBe(false);
  });

  it('throws on an illegal transition: it is a bug, not a state', async () => {
    const m = await manager();
    const id = (await m.submit(fakeRequest(), { tenant: 't' })).job_id;
    await until(
      async () => (await stateOf(m, id)).state,
      (s) => s === 'succeeded',
    );
    await expect(m.records.transition(id, 'running')).rejects.toThrow(IllegalTransitionError);
    await expect(m.records.transition(id, 'canceled')).rejects.toThrow(IllegalTransitionError);
    expect((await stateOf(m, id)).state).toBe('succeeded');
  });

  it('re-queues a job whose worker process died, then renders it', async () => {
    const dataDir = tempDir();
    const setup = await manager({ dataDir, runWorkers: false });
    const id = (await setup.submit(fakeRequest(), { tenant: 't' })).job_id;
    strandAsRunning(setup, id, 1, { host: hostname(), pid: deadPid(), leaseMs: 600_000 });
    const m = await manager({ dataDir });
    const job = await until(() => stateOf(m, id), terminal);
    expect(job).toMatchObject({ state: 'succeeded', attempts: 2 });
  });

  it('re-queues a job whose lease expired (a worker on another machine stopped), and logs it once', async () => {
    const dataDir = tempDir();
    const setup = await manager({ dataDir, runWorkers: false });
    const id = (await setup.submit(fakeRequest(), { tenant: 't' })).job_id;
    strandAsRunning(setup, id, 1, { host: 'elsewhere', pid: 1, leaseMs: -1 });
    const reports: Reported[] = [];
    // The lapsed lease is seen at start, and acted on once a later look finds the same one (half a lease on).
    const m = await manager({ dataDir, runWorkers: false, leaseMs: 400, report: reporter(reports) });
    expect((await stateOf(m, id)).state).toBe('running');
    expect(
      await until(
        () => stateOf(m, id),
        (job) => job.state === 'queued',
      ),
    ).toMatchObject({ state: 'queued', attempts: 1, stage: null });
    // A second process opening the store finds nothing left to recover: the event is not told twice.
    await manager({ dataDir, runWorkers: false, leaseMs: 400, report: reporter(reports) });
    await new Promise((r) => setTimeout(r, 600));
    expect(reports).toEqual([
      {
        message: 'job re-queued for attempt 2 of 3: its worker stopped renewing its lease',
        fields: expect.objectContaining({ event: 'job_requeued', job_id: id, tenant: 't', attempt: 1, reason: 'lease_expired' }),
        level: undefined,
      },
    ]);
  });

  it('re-queues a job the queue hands out again while its row is still running, and logs it', async () => {
    const dataDir = tempDir();
    const setup = await manager({ dataDir, runWorkers: false });
    const id = (await setup.submit(fakeRequest(), { tenant: 't' })).job_id;
    strandAsRunning(setup, id, 1, { host: 'elsewhere', pid: 1, leaseMs: 600_000 });
    const stores = openEmbeddedJobStores(dataDir);
    opened.push(stores);
    const reports: Reported[] = [];
    const owner = { id: `${hostname()}/${process.pid}/redelivered`, host: hostname(), pid: process.pid };
    const claimed = await claimDispatched(stores.records.jobs, id, owner, 60_000, reporter(reports));
    expect(claimed).toMatchObject({ state: 'running', attempts: 2, owner: owner.id });
    expect(reports).toEqual([
      {
        message: 'job re-queued for attempt 2 of 3: the queue handed it out again',
        fields: expect.objectContaining({ event: 'job_requeued', job_id: id, tenant: 't', attempt: 1, reason: 'redelivered' }),
        level: undefined,
      },
    ]);
  });

  it('leaves a job alone whose live worker renews its lapsed lease (a database outage longer than the lease)', async () => {
    const dataDir = tempDir();
    const setup = await manager({ dataDir, runWorkers: false });
    const id = (await setup.submit(fakeRequest(), { tenant: 't' })).job_id;
    strandAsRunning(setup, id, 1, { host: 'elsewhere', pid: 1, leaseMs: -1 });
    const m = await manager({ dataDir, runWorkers: false, leaseMs: 400 });
    // Its worker, back in touch with the database, renews before the lapse is confirmed.
    const db = openDatabase(dataDir);
    db.prepare('UPDATE jobs SET lease_expires_at = ? WHERE job_id = ?').run(Date.now() + 600_000, id);
    db.close();
    // Several recovery polls (every lease, here 400 ms) later it still runs under its worker.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await stateOf(m, id)).toMatchObject({ state: 'running', attempts: 1 });
  });

  it("leaves a live worker's job alone", async () => {
    const dataDir = tempDir();
    const setup = await manager({ dataDir, runWorkers: false });
    const id = (await setup.submit(fakeRequest(), { tenant: 't' })).job_id;
    strandAsRunning(setup, id, 1, { host: 'elsewhere', pid: 1, leaseMs: 600_000 });
    const m = await manager({ dataDir, runWorkers: false });
    expect((await stateOf(m, id)).state).toBe('running');
  });

  it('waits out a storage outage while reading an uploaded photo, then renders (docs/operations.md "Outages")', async () => {
    let refusals = 2;
    const render = fakeEngine({ ms: 20 });
    const m = await manager({
      // An uploaded photo read while the storage refuses connections, then answers again.
      resolveAsset: async () => {
        if (refusals > 0) {
          refusals -= 1;
          throw new AppError('SERVICE_UNAVAILABLE', 'The storage endpoint is unreachable.', { reason: 'storage_unreachable' });
        }
        return '/dev/null';
      },
      engine: async (request, ctx) => {
        await ctx.resolveAsset!('ast_photo');
        return render(request, ctx);
      },
    });
    const { job_id } = await m.submit(fakeRequest(), { tenant: 't' });
    const job = await until(() => stateOf(m, job_id), terminal);
    expect(job).toMatchObject({ state: 'succeeded', attempts: 1 });
    expect(refusals).toBe(0);
  });

  it('fails a job after its third interrupted attempt, saying why', async () => {
    const dataDir = tempDir();
    const setup = await manager({ dataDir, runWorkers: false });
    const id = (await setup.submit(fakeRequest(), { tenant: 't' })).job_id;
    strandAsRunning(setup, id, 3, { host: hostname(), pid: deadPid(), leaseMs: 600_000 });
    const m = await manager({ dataDir, runWorkers: false });
    const job = await stateOf(m, id);
    expect(job.state).toBe('failed');
    expect(job.error?.message).toMatch(/interrupted 3 times because its worker process stopped/);
  });

  it('puts running renders back in the queue on shutdown, without counting the attempt', async () => {
    const dataDir = tempDir();
    const m = await openJobManager({ ffmpeg: TEST_FFMPEG, dataDir, pollMs: 20, engine: fakeEngine({ ms: 5000 }) });
    const id = (await m.submit(fakeRequest(), { tenant: 't' })).job_id;
    await until(
      async () => (await stateOf(m, id)).state,
      (s) => s === 'running',
    );
    await m.close({ drainMs: 50 });
    const after = await manager({ dataDir, runWorkers: false });
    expect(await stateOf(after, id)).toMatchObject({ state: 'queued', attempts: 0 });
  });

  it('lists newest first with cursor pagination and a state filter', async () => {
    const m = await manager({ runWorkers: false });
    const ids: string[] = [];
    for (let i = 0; i < 25; i += 1) ids.push((await m.submit(fakeRequest(), { tenant: 't' })).job_id);
    await m.submit(fakeRequest(), { tenant: 'someone-else' });
    await m.cancel(ids[3]!);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await m.list('t', { limit: 10, cursor });
      seen.push(...page.jobs.map((j) => j.job_id));
      if (page.next_cursor === null) break;
      cursor = page.next_cursor;
    }
    expect(seen).toEqual([...ids].reverse());
    expect((await m.list('t', { state: 'canceled' })).jobs.map((j) => j.job_id)).toEqual([ids[3]]);
    await expect(m.list('t', { cursor: 'DROP TABLE jobs' })).rejects.toThrow(/Invalid cursor/);
    await expect(m.list('t', { limit: 1000 })).rejects.toThrow(/limit must be/);
  });

  it("purges finished jobs' files and keeps their records marked expired", async () => {
    const dataDir = tempDir();
    const service = new LocalService({ ffmpeg: TEST_FFMPEG, dataDir, engine: fakeEngine({ ms: 20 }), pollMs: 20 });
    opened.push(service);
    const m = await service.jobs();
    const done = (await m.submit(fakeRequest(), { tenant: 'local' })).job_id;
    await service.waitForJob(done);
    const waiting = (await m.submit(fakeRequest(), { tenant: 'local' })).job_id;
    expect((await m.purge(3_600_000)).jobs).toBe(0);
    const summary = await m.purge(0);
    expect(summary.jobs).toBe(1);
    expect(summary.bytes).toBeGreaterThan(0);
    expect(existsSync(m.jobDir(done))).toBe(false);
    const job = await service.getJob(done);
    expect(job.state).toBe('succeeded');
    expect(job.result?.expired_at).toMatch(/^\d{4}-/);
    expect(job.result?.width).toBe(1280);
    expect(job.links.video).toBeNull();
    expect(await m.videoKey(done)).toBeNull();
    await expect(service.downloadVideo(done, join(dataDir, 'x.mp4'))).rejects.toMatchObject({ code: 'GONE' });
    expect((await stateOf(m, waiting)).state).toBe('queued');
  });

  it('reads the lease and queue timings from the environment, refusing nonsense with the variable named', () => {
    const timingsOf = (env: Record<string, string>): ReturnType<typeof jobTimings> => jobTimings(loadConfig({ env }).jobs);
    expect(timingsOf({})).toEqual({ leaseMs: 60_000, queue: { expireInSeconds: 900, retryDelaySeconds: 10, attempts: 3 } });
    expect(jobTimings()).toEqual(timingsOf({}));
    expect(timingsOf({ IMMOREEL_LEASE_SECONDS: '2', IMMOREEL_RETRY_DELAY_SECONDS: '1', IMMOREEL_RENDER_EXPIRY_SECONDS: '30' })).toEqual({
      leaseMs: 2000,
      queue: { expireInSeconds: 30, retryDelaySeconds: 1, attempts: 3 },
    });
    expect(() => timingsOf({ IMMOREEL_LEASE_SECONDS: '2s' })).toThrow(
      /IMMOREEL_LEASE_SECONDS must be a whole number of seconds from 1 to 86400 \(got "2s"\)/,
    );
    expect(() => timingsOf({ IMMOREEL_RETRY_DELAY_SECONDS: '0' })).toThrow(/IMMOREEL_RETRY_DELAY_SECONDS/);
  });

  it('refuses a concurrency above 30', async () => {
    await expect(manager({ concurrency: 31 })).rejects.toThrow(/from 1 to 30/);
  });
});

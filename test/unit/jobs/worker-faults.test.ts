import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../src/core/types.js';
import type { JobManager, JobManagerOptions } from '../../../src/jobs/manager.js';
import { DEFAULT_JOB_TIMINGS } from '../../../src/jobs/manager.js';
import type { JobRecords } from '../../../src/records/job-rows.js';
import { openEmbeddedJobStores } from '../../../src/records/job-backends.js';
import { openDatabase } from '../../../src/records/sqlite/driver.js';
import { openJobManager } from '../../helpers/job-manager.js';
import { fakeEngine, fakeRequest } from '../../helpers/fake-engine.js';
import { TEST_FFMPEG } from '../../helpers/config.js';
import { until } from '../../helpers/until.js';

/*
 * Faults of one worker stay on that worker (docs/jobs.md "Worker faults"), and a finished video is
 * never thrown away because the database was away (docs/jobs.md "Settling an attempt"): worker
 * pools on one data directory with a stand-in engine; the real full disk is in
 * test/e2e/worker-faults.slow.test.ts.
 */

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
});

interface Reported {
  message: string;
  fields: Record<string, string | number>;
  level: string | undefined;
}

async function manager(dataDir: string, options: Partial<JobManagerOptions> = {}): Promise<JobManager> {
  const m = await openJobManager({ ffmpeg: TEST_FFMPEG, dataDir, pollMs: 20, engine: fakeEngine({ ms: 50 }), ...options });
  opened.push(m);
  return m;
}

const stateOf = async (m: JobManager, id: string): Promise<JobRecord> => (await m.get(id))!.job;
const terminal = (job: JobRecord): boolean => ['succeeded', 'failed', 'canceled'].includes(job.state);
const noSpace = (): Error =>
  Object.assign(new Error("ENOSPC: no space left on device, write '/scratch/jobs/job_x/render-1.tmp.mp4'"), { code: 'ENOSPC' });

describe('a fault of one worker stays on that worker', () => {
  it('hands a job that met a full disk to another worker: succeeded once, never failed, and the sick worker stops claiming', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'immoreel-faults-'));
    const reports: Reported[] = [];
    const sick = await manager(dataDir, {
      engine: fakeEngine({ ms: 20, fail: noSpace() }),
      report: (message, fields, level) => void reports.push({ message, fields, level }),
    });
    const first = (await sick.submit(fakeRequest(), { tenant: 't' })).job_id;
    await until(
      () => sick.workerStatus(),
      (status) => !status.ready,
    );
    expect(sick.workerStatus()).toMatchObject({ ready: false, reason: 'disk_full' });
    expect(sick.workerStatus().message).toMatch(/scratch disk is full/);
    // Back in the queue for another worker, with no error a client could see.
    const released = await stateOf(sick, first);
    expect(released).toMatchObject({ state: 'queued', error: null, attempts: 1 });
    expect(reports.filter((r) => r.fields.event === 'job_handed_on').map((r) => r.fields.job_id)).toEqual([first]);
    expect(reports.filter((r) => r.fields.event === 'worker_not_ready')).toHaveLength(1);

    const healthy = await manager(dataDir);
    const more = [
      (await healthy.submit(fakeRequest(), { tenant: 't' })).job_id,
      (await healthy.submit(fakeRequest(), { tenant: 't' })).job_id,
    ];
    for (const id of [first, ...more]) {
      const job = await until(() => stateOf(healthy, id), terminal);
      expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
    }
    expect((await stateOf(healthy, first)).attempts).toBe(2);
    // The sick worker took nothing more during its back-off.
    expect(reports.filter((r) => r.fields.event === 'job_handed_on')).toHaveLength(1);
  });

  it('claims nothing while its scratch disk has less free space than a render needs, and says so once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'immoreel-faults-'));
    const reports: Reported[] = [];
    // More free space than any disk of the test machine has: this worker is always short.
    const short = await manager(dataDir, {
      timings: { ...DEFAULT_JOB_TIMINGS, scratchMinFreeMb: 1_048_576 },
      report: (message, fields, level) => void reports.push({ message, fields, level }),
    });
    const id = (await short.submit(fakeRequest(), { tenant: 't' })).job_id;
    await until(
      () => short.workerStatus(),
      (status) => !status.ready,
    );
    expect(short.workerStatus()).toMatchObject({ ready: false, reason: 'disk_low' });
    await new Promise((r) => setTimeout(r, 300));
    expect((await stateOf(short, id)).state).toBe('queued');
    expect(reports.filter((r) => r.fields.event === 'worker_not_ready')).toHaveLength(1);
    const healthy = await manager(dataDir);
    expect((await until(() => stateOf(healthy, id), terminal)).state).toBe('succeeded');
  });

  it('fails a job that met a fault on its last attempt, refundable, in words that name nothing of the machine', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'immoreel-faults-'));
    const setup = await manager(dataDir, { runWorkers: false });
    const id = (await setup.submit(fakeRequest(), { tenant: 't' })).job_id;
    // Two attempts already lost to faults of other workers.
    const db = openDatabase(dataDir);
    db.prepare('UPDATE jobs SET attempts = 2 WHERE job_id = ?').run(id);
    db.close();
    const sick = await manager(dataDir, { engine: fakeEngine({ ms: 20, fail: noSpace() }) });
    const job = await until(() => stateOf(sick, id), terminal);
    expect(job).toMatchObject({ state: 'failed', attempts: 3, error: { code: 'SERVICE_UNAVAILABLE' } });
    expect(job.error?.message).toMatch(/Nothing was charged/);
    expect(job.error?.message).not.toMatch(/ENOSPC|No space left|\/scratch|job_x/i);
  });

  it('records a job failed as before when the render is not a worker fault, and when no worker runs (a local render)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'immoreel-faults-'));
    const local = await manager(dataDir, { runWorkers: false, engine: fakeEngine({ ms: 20, fail: noSpace() }) });
    const id = (await local.submit(fakeRequest(), { tenant: 'local' })).job_id;
    local.work(id);
    const job = await until(() => stateOf(local, id), terminal);
    // On the user's own machine the disk is theirs to free: the job says so.
    expect(job).toMatchObject({ state: 'failed', error: { code: 'RENDER_FAILED' } });
    expect(job.error?.message).toMatch(/no space left/i);
  });
});

describe('a finished video is never thrown away because the database was away', () => {
  it('keeps retrying the record of a published video past the outage budget, then records it succeeded', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'immoreel-faults-'));
    const stores = openEmbeddedJobStores(dataDir);
    opened.push(stores);
    let downUntil = 0;
    const down = (): boolean => Date.now() < downUntil;
    const lost = (): Error => new Error('Connection terminated unexpectedly');
    const records = stores.records.jobs;
    // The job table, with the database gone for 1.5 s from the moment the render is done.
    const flaky: JobRecords = new Proxy(records, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (down() && ['transition', 'renewLeases', 'stillOwned', 'row', 'runningJobs', 'claimNext'].includes(String(name)))
            return Promise.reject(lost());
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const reports: Reported[] = [];
    const inner = fakeEngine({ ms: 50 });
    const m = await manager(dataDir, {
      records: flaky,
      blobs: stores.blobs,
      outageBudgetMs: 200,
      report: (message, fields, level) => void reports.push({ message, fields, level }),
      engine: async (request, ctx) => {
        const outcome = await inner(request, ctx);
        downUntil = Date.now() + 1_500;
        return outcome;
      },
    });
    const id = (await m.submit(fakeRequest(), { tenant: 't' })).job_id;
    const job = await until(
      () => (down() ? undefined : stateOf(m, id)),
      (j) => j !== undefined && terminal(j),
    );
    expect(job!.state, JSON.stringify(job!.error)).toBe('succeeded');
    expect(job!.attempts).toBe(1);
    expect(reports.some((r) => r.fields.event === 'outage_begins')).toBe(true);
    expect(reports.filter((r) => r.fields.event === 'outage_gave_up')).toEqual([]);
  });

  it('logs one line per job a worker gave up because it was handed on while the worker was frozen', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'immoreel-faults-'));
    const reports: Reported[] = [];
    const m = await manager(dataDir, {
      engine: fakeEngine({ ms: 3_000 }),
      report: (message, fields, level) => void reports.push({ message, fields, level }),
    });
    const id = (await m.submit(fakeRequest(), { tenant: 't' })).job_id;
    await until(
      () => stateOf(m, id),
      (job) => job.state === 'running',
    );
    // What recovery on another machine does to a lease that ran out: the job is someone else's now.
    const db = openDatabase(dirname(m.files.jobsDir));
    db.prepare("UPDATE jobs SET owner = 'elsewhere/1/abcd', owner_host = 'elsewhere', owner_pid = 1 WHERE job_id = ?").run(id);
    db.close();
    await until(
      () => reports.filter((r) => r.fields.event === 'job_given_up'),
      (lines) => lines.length > 0,
    );
    await new Promise((r) => setTimeout(r, 300));
    const lines = reports.filter((r) => r.fields.event === 'job_given_up');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.fields).toMatchObject({ job_id: id, tenant: 't', attempt: 1, owner: 'elsewhere/1/abcd' });
  });
});

import { fakeEngine, fakeRequest } from '../../helpers/fake-engine.js';
import { TEST_FFMPEG } from '../../helpers/config.js';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../src/core/types.js';
import { openDatabase } from '../../../src/records/sqlite/driver.js';
import { JobManager } from '../../../src/jobs/manager.js';
import type { JobQueue, JobRecords } from '../../../src/records/job-rows.js';
import { MAX_ATTEMPTS } from '../../../src/records/job-rows.js';
import { JobStore, sqliteJobRecords } from '../../../src/records/sqlite/jobs.js';
import { LocalBlobStore } from '../../../src/blobs/local-store.js';

/**
 * A dispatching queue whose database refuses to withdraw or fail an entry (a connection lost between
 * the row's transition and the queue's): the row is the truth, and the refusal must be reported,
 * not swallowed (docs/jobs.md "Failures the job layer survives").
 */
function refusingQueue(records: JobRecords, refusal: Error): JobQueue {
  return {
    settings: { expireInSeconds: 900, retryDelaySeconds: 10, attempts: MAX_ATTEMPTS },
    submit: (job) => records.insert(job),
    work: async () => undefined,
    workDeadLetters: async () => undefined,
    abandon: async () => Promise.reject(refusal),
    cancel: async () => Promise.reject(refusal),
    stopWork: async () => undefined,
    stop: async () => undefined,
  };
}

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

interface Reported {
  message: string;
  fields: Record<string, string | number>;
}

async function open(dataDir: string, reported?: Reported[]): Promise<JobManager> {
  const store = JobStore.open(dataDir);
  cleanup.push(() => store.close());
  const sqlite = sqliteJobRecords(store);
  const records: JobRecords = { ...sqlite, openQueue: async () => refusingQueue(sqlite, new Error('connection terminated unexpectedly')) };
  const manager = await JobManager.open({
    ffmpeg: TEST_FFMPEG,
    dataDir,
    records,
    blobs: new LocalBlobStore(dataDir),
    runWorkers: false,
    pollMs: 20,
    engine: fakeEngine(),
    ...(reported === undefined ? {} : { report: (message, fields) => reported.push({ message, fields }) }),
  });
  cleanup.push(() => manager.close());
  return manager;
}

describe('a queue that refuses a state change', () => {
  it('cancel: the job is canceled and the kept queue entry is reported with the job and the cause', async () => {
    const reported: Reported[] = [];
    const manager = await open(mkdtempSync(join(tmpdir(), 'immoreel-queue-')), reported);
    const ended: JobRecord[] = [];
    manager.onTerminal((job) => ended.push(job));
    const { job_id } = await manager.submit(fakeRequest(), { tenant: 't' });

    const canceled = await manager.cancel(job_id);

    expect(canceled.state).toBe('canceled');
    expect((await manager.get(job_id))?.job.state).toBe('canceled');
    expect(ended.map((job) => [job.job_id, job.state])).toEqual([[job_id, 'canceled']]);
    expect(reported).toEqual([
      {
        message: expect.stringMatching(/queue kept the entry of a canceled job/),
        fields: { job_id, error: 'Error: connection terminated unexpectedly' },
      },
    ]);
  });

  it('cancel with no reporter wired: a process warning says it on stderr', async () => {
    const manager = await open(mkdtempSync(join(tmpdir(), 'immoreel-queue-')));
    const { job_id } = await manager.submit(fakeRequest(), { tenant: 't' });
    const warned = new Promise<Error>((resolve) => process.once('warning', resolve));

    await manager.cancel(job_id);

    const warning = (await warned) as Error & { code?: string };
    expect(warning.code).toBe('IMMOREEL_JOBS');
    expect(warning.message).toContain(job_id);
    expect(warning.message).toContain('connection terminated unexpectedly');
  }, 10_000);

  it('abandon: a dead worker’s job goes back to queued and the kept queue entry is reported', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'immoreel-queue-'));
    const setup = await open(dataDir, []);
    const { job_id } = await setup.submit(fakeRequest(), { tenant: 't' });
    await setup.close();
    // As if a worker on this machine had claimed it and then died.
    const deadPid = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString());
    const db = openDatabase(dataDir);
    db.prepare(
      `UPDATE jobs SET state = 'running', attempts = 1, owner = ?, owner_host = ?, owner_pid = ?, lease_expires_at = ? WHERE job_id = ?`,
    ).run(`${hostname()}/${deadPid}/dead`, hostname(), deadPid, Date.now() + 600_000, job_id);
    db.close();

    const reported: Reported[] = [];
    const manager = await open(dataDir, reported);

    expect((await manager.get(job_id))?.job).toMatchObject({ state: 'queued', attempts: 1 });
    expect(reported).toEqual([
      {
        message: 'job re-queued for attempt 2 of 3: its worker stopped renewing its lease',
        fields: expect.objectContaining({ event: 'job_requeued', job_id, tenant: 't', attempt: 1, reason: 'worker_gone' }),
      },
      {
        message: expect.stringMatching(/queue kept the entry of an abandoned job/),
        fields: { job_id, state: 'queued', error: 'Error: connection terminated unexpectedly' },
      },
    ]);
  });
});

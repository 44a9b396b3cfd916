import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newJobId } from '../../../src/core/job-ids.js';
import type { NewJob } from '../../../src/records/job-rows.js';
import { validateRenderRequest } from '../../../src/render/render-rules.js';
import { claimDispatched, failExhausted } from '../../../src/jobs/delivery.js';
import { RenderDispatch, type RenderMessage } from '../../../src/records/postgres/dispatch.js';
import { openPostgresRecordStore, type PostgresRecordStore } from '../../../src/records/postgres/index.js';
import { migrate, migrationStatus } from '../../../src/records/postgres/migrate.js';
import { checkConnection, createPool } from '../../../src/records/postgres/connection.js';
import { SCHEMA } from '../../../src/records/postgres/schema.js';
import { startPostgres, type PostgresServer } from '../../helpers/services.js';
import { until as pollUntil } from '../../helpers/until.js';

/** This file's waits read PostgreSQL: every 100 ms, for up to 20 s by default. */
const waitFor = <T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 20_000): Promise<T> =>
  pollUntil(read, ok, timeoutMs, 100);

let postgres: PostgresServer;

beforeAll(async () => {
  postgres = await startPostgres();
});

afterAll(async () => {
  await postgres?.stop();
});

function newJob(): NewJob {
  return {
    jobId: newJobId(),
    tenant: 'acme',
    // The stores never fetch photos: a URL makes the request valid (a description alone has none).
    request: validateRenderRequest(
      { description: 'Riad 200 m² à Fès, 2 300 000 DH', photos: ['https://photos.example.com/patio.jpg'] },
      'server',
    ),
    inputHash: 'h'.repeat(64),
    allowLocalFiles: false,
    linkBase: 'http://127.0.0.1:8787/api/v1',
  };
}

describe('PostgreSQL migrations', () => {
  it('are safe when several nodes start at once: each migration applies exactly once', async () => {
    const url = await postgres.createDatabase();
    const pools = Array.from({ length: 6 }, () => createPool(url, { max: 2 }));
    try {
      expect(await migrationStatus(pools[0]!)).toEqual([
        { component: 'jobs', applied: 0, available: SCHEMA.jobs!.length },
        { component: 'server', applied: 0, available: SCHEMA.server!.length },
      ]);
      const results = await Promise.all(pools.map((pool) => migrate(pool)));
      for (const status of results) {
        expect(status).toEqual([
          { component: 'jobs', applied: SCHEMA.jobs!.length, available: SCHEMA.jobs!.length },
          { component: 'server', applied: SCHEMA.server!.length, available: SCHEMA.server!.length },
        ]);
      }
      const { rows } = await pools[0]!.query<{ tablename: string }>(
        "SELECT tablename FROM pg_tables WHERE tablename IN ('jobs', 'server_api_keys', 'server_rate_buckets', 'server_rate_hits') ORDER BY tablename",
      );
      expect(rows.map((r) => r.tablename)).toEqual(['jobs', 'server_api_keys', 'server_rate_buckets']);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it('upgrade a database of the sliding-window rate limits to token buckets', async () => {
    const url = await postgres.createDatabase();
    const pool = createPool(url);
    try {
      const shipped = { jobs: SCHEMA.jobs!, server: SCHEMA.server!.slice(0, 1) };
      await migrate(pool, shipped);
      await pool.query("INSERT INTO server_rate_hits (policy, partition, at_ms) VALUES ('analyze', 'key_a', 1)");
      expect(await migrate(pool)).toContainEqual({ component: 'server', applied: SCHEMA.server!.length, available: SCHEMA.server!.length });
      const { rows } = await pool.query<{ hits: string | null; buckets: string | null }>(
        "SELECT to_regclass('server_rate_hits')::text AS hits, to_regclass('server_rate_buckets')::text AS buckets",
      );
      expect(rows[0]).toEqual({ hits: null, buckets: 'server_rate_buckets' });
    } finally {
      await pool.end();
    }
    const store = await openPostgresRecordStore(url, { dataDir: '/tmp/unused' });
    try {
      expect(await store.rateLimits.take({ name: 'analyze', limit: 2, windowMs: 60_000 }, 'key_a')).toMatchObject({
        allowed: true,
        remaining: 1,
      });
    } finally {
      await store.close();
    }
  });

  it('roll back a failing migration and leave the version where it was', async () => {
    const url = await postgres.createDatabase();
    const pool = createPool(url);
    try {
      const broken = {
        extra: [
          async (client: pg.PoolClient) => {
            await client.query('CREATE TABLE first_step (id INTEGER)');
          },
          async (client: pg.PoolClient) => {
            await client.query('CREATE TABLE second_step (id INTEGER)');
            await client.query('SELECT * FROM no_such_table');
          },
        ],
      };
      await expect(migrate(pool, broken)).rejects.toThrow(/no_such_table/);
      expect(await migrationStatus(pool, broken)).toEqual([{ component: 'extra', applied: 1, available: 2 }]);
      const { rows } = await pool.query<{ t: string | null }>("SELECT to_regclass('second_step')::text AS t");
      expect(rows[0]!.t).toBeNull();
    } finally {
      await pool.end();
    }
  });
});

describe('PostgreSQL configuration errors', () => {
  it('say what is wrong, with an exit code, before anything starts', async () => {
    const missing = postgres.url.replace(/\/postgres$/, '/no_such_database');
    await expect(openPostgresRecordStore(missing, { dataDir: '/tmp/unused' })).rejects.toMatchObject({
      reason: 'database_missing',
      exitCode: 2,
    });
    const unknownRole = postgres.url.replace('postgres@', 'nobody@');
    await expect(openPostgresRecordStore(unknownRole, { dataDir: '/tmp/unused' })).rejects.toMatchObject({
      reason: 'database_credentials',
      exitCode: 4,
    });
    const pool = createPool('postgres://immoreel:s3cret-pw@127.0.0.1:9/immoreel');
    const error = await checkConnection(pool, 'postgres://immoreel:s3cret-pw@127.0.0.1:9/immoreel').catch(
      (e: unknown) => e as Error & { exitCode: number },
    );
    await pool.end();
    expect(error).toMatchObject({ reason: 'database_unreachable', exitCode: 6 });
    expect(error!.message).not.toContain('s3cret-pw');
    expect(error!.message).toContain('127.0.0.1:9');
  });
});

describe('render dispatch with pg-boss', () => {
  let store: PostgresRecordStore;
  let dispatch: RenderDispatch;
  let url: string;

  beforeAll(async () => {
    url = await postgres.createDatabase();
    store = await openPostgresRecordStore(url, { dataDir: '/tmp/immoreel-dispatch' });
    dispatch = await RenderDispatch.start(url, store.pool, { retryLimit: 1, retryDelaySeconds: 1, expireInSeconds: 60 });
  });

  afterAll(async () => {
    await dispatch?.stop(5_000);
    await store?.close();
  });

  async function queueEntries(): Promise<number> {
    const { rows } = await store.pool.query<{ n: number }>(`SELECT COUNT(*) AS n FROM pgboss.job WHERE name = $1`, [dispatch.queue]);
    return rows[0]!.n;
  }

  it('writes the job row and its queue entry together', async () => {
    const before = await queueEntries();
    const row = await dispatch.submit(newJob());
    expect(row.state).toBe('queued');
    expect(await store.jobs.row(row.job_id)).toMatchObject({ state: 'queued' });
    expect(await dispatch.entryOf(row.job_id)).toMatchObject({ state: 'created', data: { jobId: row.job_id, tenant: 'acme' } });
    expect(await queueEntries()).toBe(before + 1);
  });

  it('leaves neither the job nor its queue entry when the submission fails after the insert', async () => {
    const before = await queueEntries();
    const job = newJob();
    await expect(
      dispatch.submit(job, {
        alsoInTransaction: async (client) => {
          // The row and the entry exist inside the transaction at this point…
          const seen = await client.query('SELECT 1 FROM jobs WHERE job_id = $1', [job.jobId]);
          expect(seen.rowCount).toBe(1);
          throw new Error('webhook outbox write failed');
        },
      }),
    ).rejects.toThrow(/webhook outbox write failed/);
    // …and neither survives the rollback.
    expect(await store.jobs.row(job.jobId)).toBeUndefined();
    expect(await dispatch.entryOf(job.jobId)).toBeNull();
    expect(await queueEntries()).toBe(before);
    // A job id submitted twice gets one row and one entry: the second submission fails whole.
    const once = newJob();
    await dispatch.submit(once);
    await expect(dispatch.submit(once)).rejects.toThrow(/duplicate key/);
    expect(await queueEntries()).toBe(before + 1);
  });

  it('holds a per-tenant limit exactly when many submissions race (admission under a tenant lock)', async () => {
    const job = (): NewJob => ({ ...newJob(), tenant: 'busy-tenant' });
    const admit = async (count: (states: readonly ('queued' | 'running')[]) => Promise<number>): Promise<void> => {
      const active = await count(['queued', 'running']);
      if (active >= 30) throw new Error(`busy: ${active} queued or running`);
    };
    const results = await Promise.allSettled(Array.from({ length: 40 }, () => dispatch.submit(job(), { admit })));
    expect(results.filter((r) => r.status === 'fulfilled').length).toBe(30);
    expect(results.filter((r) => r.status === 'rejected').every((r) => /busy: 30/.test(String((r as PromiseRejectedResult).reason)))).toBe(
      true,
    );
    expect(await store.jobs.count('busy-tenant', ['queued'])).toBe(30);
    const { rows } = await store.pool.query<{ n: number }>(
      `SELECT COUNT(*) AS n FROM pgboss.job WHERE name = $1 AND data->>'tenant' = 'busy-tenant'`,
      [dispatch.queue],
    );
    expect(rows[0]!.n).toBe(30);
    await store.pool.query(`UPDATE jobs SET state = 'canceled' WHERE tenant = 'busy-tenant'`);
    await store.pool.query(`DELETE FROM pgboss.job WHERE data->>'tenant' = 'busy-tenant'`);
  });

  it('hands each job to one worker; a failing attempt is retried, then dead-lettered', async () => {
    const ok = await dispatch.submit(newJob());
    const doomed = await dispatch.submit(newJob());
    const seen: RenderMessage[] = [];
    const attemptsOfDoomed: number[] = [];
    await dispatch.work(
      2,
      async (message) => {
        seen.push(message);
        if (message.jobId === doomed.job_id) {
          attemptsOfDoomed.push(Date.now());
          throw new Error('ffmpeg crashed');
        }
        const claimed = await store.jobs.claimNext({ id: 'w1', host: 'h', pid: 1 }, 60_000, [message.jobId]);
        if (claimed !== null)
          await store.jobs.transition(message.jobId, 'succeeded', { progress: 1, finished_at: new Date().toISOString() });
      },
      0.5,
    );
    await waitFor(
      () => dispatch.entryOf(ok.job_id),
      (e) => e?.state === 'completed',
    );
    expect((await store.jobs.row(ok.job_id))!.state).toBe('succeeded');
    const failed = await waitFor(
      () => dispatch.entryOf(doomed.job_id),
      (e) => e?.state === 'failed',
      30_000,
    );
    expect(failed!.retryCount).toBe(1);
    expect(attemptsOfDoomed.length).toBe(2);
    const { rows } = await store.pool.query<{ n: number }>(`SELECT COUNT(*) AS n FROM pgboss.job WHERE name = $1 AND data->>'jobId' = $2`, [
      dispatch.deadLetter,
      doomed.job_id,
    ]);
    expect(rows[0]!.n).toBe(1);
    // The dead-letter consumer ends the job with a clear error: bounded attempts, then `failed`.
    await dispatch.workDeadLetters(async (message) => {
      await failExhausted(store.jobs, message.jobId, 2, { id: 'dead-letter', host: 'h', pid: 1 });
    }, 0.5);
    const ended = await waitFor(
      () => store.jobs.row(doomed.job_id),
      (r) => r?.state === 'failed',
    );
    expect(store.jobs.toRecord(ended!).error).toMatchObject({ code: 'RENDER_FAILED', message: expect.stringMatching(/tried 2 times/) });
    expect(await failExhausted(store.jobs, doomed.job_id, 2, { id: 'dead-letter', host: 'h', pid: 1 })).toBeNull();
    // Every job from the earlier tests was handed out exactly once (none failed).
    const ids = seen.filter((m) => m.jobId !== doomed.job_id).map((m) => m.jobId);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('a worker killed mid-render', () => {
  it('loses nothing: the job comes back after its expiry and succeeds once on another worker', async () => {
    const url = await postgres.createDatabase();
    const store = await openPostgresRecordStore(url, { dataDir: '/tmp/immoreel-dispatch' });
    // A 2 s expiry and 1 s maintenance stand for "longest render" and "maintenance interval".
    const dispatch = await RenderDispatch.start(url, store.pool, {
      retryLimit: 2,
      retryDelaySeconds: 1,
      expireInSeconds: 2,
      maintenanceIntervalSeconds: 1,
    });
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('../../helpers/dispatch-worker.ts', import.meta.url)), url],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      await waitFor(
        async () => output,
        (o) => o.includes('READY') || child.exitCode !== null,
        30_000,
      );
      expect(output).toContain('READY');
      const job = await dispatch.submit(newJob());
      await waitFor(
        async () => output,
        (o) => o.includes(`STARTED ${job.job_id} 1`) || child.exitCode !== null,
      );
      expect(await store.jobs.row(job.job_id)).toMatchObject({ state: 'running', attempts: 1 });
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));

      const runs: string[] = [];
      await dispatch.work(
        1,
        async (message) => {
          const row = await claimDispatched(store.jobs, message.jobId, { id: 'survivor', host: 'h', pid: 2 }, 60_000);
          if (row === null) return;
          runs.push(`${row.job_id}:${row.attempts}`);
          await store.jobs.transition(
            row.job_id,
            'succeeded',
            { progress: 1, finished_at: new Date().toISOString() },
            (r) => r.owner === 'survivor',
          );
        },
        0.5,
      );
      await waitFor(
        () => dispatch.entryOf(job.job_id),
        (e) => e?.state === 'completed',
        30_000,
      );
      expect(runs).toEqual([`${job.job_id}:2`]);
      expect(await store.jobs.row(job.job_id)).toMatchObject({ state: 'succeeded', attempts: 2, owner: 'survivor' });
      // Delivered again (a late duplicate), a finished job is not rendered twice.
      expect(await claimDispatched(store.jobs, job.job_id, { id: 'late', host: 'h', pid: 3 }, 60_000)).toBeNull();
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await dispatch.stop(5_000);
      await store.close();
    }
  });
});

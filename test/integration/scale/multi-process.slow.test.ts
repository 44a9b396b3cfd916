import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../src/core/types.js';
import { assertBuiltCliIsFresh, runCli } from '../../helpers/cli.js';
import { startPostgres, startS3, type PostgresServer, type S3Server } from '../../helpers/services.js';
import { expectPlayable720p60, probe } from '../../helpers/probe.js';
import { LISTING_TEXT, makePhotos } from '../../helpers/job-photos.js';
import {
  groupCommands,
  listBucket,
  ProcessSet,
  startWebhookReceiver,
  videosByJob,
  waitFor,
  type ClusterProcess,
  type WebhookReceiver,
} from '../../helpers/cluster.js';

/*
 * The several-machine mode on loopback (docs/scaling.md "Tests"): one PostgreSQL, one bucket
 * (s3rver), 2 `immoreel serve` and 3 `immoreel worker` processes of the built CLI. 40 short
 * renders go in through both API nodes; one worker is SIGKILLed while it owns a running render
 * and one API node is stopped halfway. Then every job has succeeded exactly once (state, a single
 * signed `job.succeeded` webhook event each), every video downloads through the remaining node
 * and passes ffprobe, no job is lost, and the bucket holds exactly one video per job.
 *
 * The render lease and the retry delay are shortened (IMMOREEL_LEASE_SECONDS,
 * IMMOREEL_RETRY_DELAY_SECONDS; docs/scaling.md "Failure modes") so that the killed worker's job
 * is taken up again within seconds, not a minute.
 */

/**
 * 40 by default. `.ci/run` sets fewer on Node 22 and 24 (same scenario, same checks): the 40
 * are proven on the first Node, the others show the runtime holds; renders are what cost.
 */
const JOBS = jobCount(process.env.IMMOREEL_CLUSTER_JOBS);
const DURATION_S = 10;
/** Render lease and first retry delay, shortened (docs/scaling.md "Failure modes"). */
const LEASE_SECONDS = 8;
const RETRY_DELAY_SECONDS = 1;
const BUCKET_PREFIX = 'cluster';
const TEST_TIMEOUT = 15 * 60_000;
const DB_PASSWORD = 'db-secret-7f3a9c';

function jobCount(value: string | undefined): number {
  if (value === undefined || value === '') return 40;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 6 || n % 2 !== 0) throw new Error(`IMMOREEL_CLUSTER_JOBS=${value}: give an even number ≥ 6.`);
  return n;
}

let pgServer: PostgresServer;
let s3: S3Server;
let databaseUrl: string;
let work: string;
const processes = new ProcessSet();
let hooks: WebhookReceiver;
let webhookSecret = '';

/** What every process shares: the database, the bucket and its AWS_* variables. */
function backendArgs(dataDir: string): string[] {
  return ['--data-dir', dataDir, '--database-url', databaseUrl, '--storage-url', `s3://${s3.bucket}/${BUCKET_PREFIX}`];
}

function backendEnv(): Record<string, string> {
  return {
    ...s3.env,
    // Photos come as assets; webhooks go to the loopback receiver (docs/api.md "serve" options).
    IMMOREEL_ALLOW_LOOPBACK_FETCH: '1',
    IMMOREEL_LEASE_SECONDS: String(LEASE_SECONDS),
    IMMOREEL_RETRY_DELAY_SECONDS: String(RETRY_DELAY_SECONDS),
  };
}

async function startApi(name: string): Promise<{ proc: ClusterProcess; url: string }> {
  const dataDir = join(work, name);
  const proc = await processes.spawn(
    name,
    [...backendArgs(dataDir), 'serve', '--port', '0', '--render-rate', '1000', '--job-read-rate', '10000', '--max-queued', '1000'],
    { env: backendEnv(), readyWhen: /"event":"listening"/ },
  );
  const url = /"event":"listening","url":"([^"]+)"/.exec(proc.stderr())?.[1] ?? /"url":"(http[^"]+)"/.exec(proc.stderr())?.[1];
  if (url === undefined) throw new Error(`${name} logged no url:\n${proc.stderr()}`);
  return { proc, url: url.replace(/\/$/, '') };
}

async function api<T>(base: string, key: string, path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const response = await fetch(`${base}/api/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string> | undefined) },
  });
  const text = await response.text();
  return { status: response.status, body: (text === '' ? null : JSON.parse(text)) as T };
}

/** Every job of the tenant, through one API node (all pages). */
async function listJobs(base: string, key: string): Promise<JobRecord[]> {
  const jobs: JobRecord[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? '?limit=100' : `?limit=100&cursor=${encodeURIComponent(cursor)}`;
    const page = await api<{ jobs: JobRecord[]; next_cursor: string | null }>(base, key, `/jobs${query}`);
    if (page.status !== 200) throw new Error(`GET /jobs answered ${page.status}: ${JSON.stringify(page.body)}`);
    jobs.push(...page.body.jobs);
    cursor = page.body.next_cursor;
  } while (cursor !== null);
  return jobs;
}

beforeAll(async () => {
  // A stale build fails here with the reason: every process below runs bin/immoreel.js (dist/).
  assertBuiltCliIsFresh();
  work = mkdtempSync(join(tmpdir(), 'immoreel-cluster-'));
  [pgServer, s3] = await Promise.all([startPostgres(), startS3('immoreel-cluster')]);
  // The test server trusts loopback and ignores passwords: one is given anyway, to show that no
  // process ever prints it (docs/security.md: secrets never reach logs or output).
  databaseUrl = (await pgServer.createDatabase('immoreel_cluster')).replace('postgres://postgres@', `postgres://postgres:${DB_PASSWORD}@`);
  hooks = await startWebhookReceiver(() => webhookSecret);
}, 120_000);

afterAll(async () => {
  await processes.stopAll();
  const leftovers = await processes.leftovers();
  await hooks?.close();
  await Promise.all([pgServer?.stop(), s3?.stop()]);
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
  // No orphan: every process of every group the test started (servers, workers, their ffmpeg) is gone.
  expect(leftovers).toEqual([]);
}, 120_000);

describe('2 API nodes and 3 workers on one PostgreSQL and one bucket', () => {
  it(
    `${JOBS} renders through both nodes survive a SIGKILLed worker and a stopped API node: each succeeds once, one verified video each`,
    { timeout: TEST_TIMEOUT },
    async () => {
      // Operators create keys against the shared database (README "Running on several machines").
      const created = await runCli([...backendArgs(join(work, 'keys')), 'keys', 'create', '--tenant', 'acme', '--json'], {
        env: backendEnv(),
      });
      expect(created.stdout + created.stderr).not.toContain(DB_PASSWORD);
      expect(created.code, created.stderr).toBe(0);
      const key = JSON.parse(created.stdout) as { api_key: string; webhook_secret: string };
      webhookSecret = key.webhook_secret;

      const [nodeA, nodeB] = await Promise.all([startApi('api-a'), startApi('api-b')]);
      const workers: ClusterProcess[] = [];
      for (let n = 1; n <= 3; n += 1) {
        workers.push(
          await processes.spawn(`worker-${n}`, [...backendArgs(join(work, `worker-${n}`)), '--json', 'worker', '--concurrency', '1'], {
            env: backendEnv(),
            // Ready once its stores are checked: the renders below are then the only thing measured.
            readyWhen: /"event":"ready"/,
          }),
        );
      }

      // Two photos, one uploaded on each node: an asset stored through B is usable through A.
      const photoFiles = await makePhotos(join(work, 'photos'), 2, 960, 720);
      const refs: string[] = [];
      for (const [file, node] of [
        [photoFiles[0]!, nodeA],
        [photoFiles[1]!, nodeB],
      ] as const) {
        const uploaded = await api<{ asset: { ref: string } }>(node.url, key.api_key, '/assets', {
          method: 'POST',
          headers: { 'content-type': 'image/jpeg' },
          body: readFileSync(file),
        });
        expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201);
        refs.push(uploaded.body.asset.ref);
      }

      const submitted: { jobId: string; via: string }[] = [];
      const submit = async (node: { url: string }, n: number): Promise<void> => {
        const answer = await api<{ job: JobRecord }>(node.url, key.api_key, '/render-video', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': `cluster-${n}` },
          body: JSON.stringify({
            description: LISTING_TEXT,
            photos: refs,
            music: 'none',
            duration_s: DURATION_S,
            webhook_url: hooks.url,
            metadata: { n },
          }),
        });
        expect(answer.status, JSON.stringify(answer.body)).toBe(202);
        submitted.push({ jobId: answer.body.job.job_id, via: node.url });
      };

      // The first half through both nodes, alternately.
      for (let n = 0; n < JOBS / 2; n += 1) await submit(n % 2 === 0 ? nodeA : nodeB, n);

      // A worker that owns a running render (its pid on the job row, ffmpeg in its group) dies.
      const db = new pg.Client({ connectionString: databaseUrl });
      await db.connect();
      let killedJobs: string[];
      try {
        const victim = await waitFor(
          'a worker that owns a running render',
          async () => {
            const rows = await db.query<{ job_id: string; owner_pid: number }>(
              "SELECT job_id, owner_pid FROM jobs WHERE state = 'running' AND owner_pid IS NOT NULL",
            );
            for (const worker of workers) {
              const owned = rows.rows.filter((r) => r.owner_pid === worker.pid).map((r) => r.job_id);
              if (owned.length > 0 && (await groupCommands(worker.pid)).includes('ffmpeg')) return { worker, owned };
            }
            return undefined;
          },
          { timeoutMs: 120_000, processes },
        );
        processes.expectExit(victim.worker);
        victim.worker.signalGroup('SIGKILL');
        expect((await victim.worker.exited).signal).toBe('SIGKILL');
        killedJobs = victim.owned;
      } finally {
        await db.end();
      }

      // API node B stops gracefully (SIGTERM); the second half goes through A only.
      processes.expectExit(nodeB.proc);
      nodeB.proc.signalGroup('SIGTERM');
      expect((await nodeB.proc.exited).code, nodeB.proc.stderr()).toBe(0);
      for (let n = JOBS / 2; n < JOBS; n += 1) await submit(nodeA, n);

      // Every job reaches an end, seen through the remaining node.
      const ended = await waitFor(
        `${JOBS} jobs to end`,
        async () => {
          const jobs = await listJobs(nodeA.url, key.api_key);
          const done = jobs.filter((j) => ['succeeded', 'failed', 'canceled'].includes(j.state));
          return done.length >= JOBS ? jobs : undefined;
        },
        { timeoutMs: 10 * 60_000, everyMs: 2_000, processes },
      );

      // No job lost, none invented, all succeeded; the killed worker's job was tried again.
      expect(ended.map((j) => j.job_id).sort()).toEqual(submitted.map((s) => s.jobId).sort());
      expect(ended.filter((j) => j.state !== 'succeeded').map((j) => `${j.job_id} ${j.state} ${j.error?.message ?? ''}`)).toEqual([]);
      for (const jobId of killedJobs) expect(ended.find((j) => j.job_id === jobId)!.attempts).toBeGreaterThanOrEqual(2);

      // Exactly one `job.succeeded` event per job (retries of one event share its webhook-id).
      await waitFor('a webhook for every job', async () => (new Set(hooks.events.map((e) => e.jobId)).size >= JOBS ? true : undefined), {
        timeoutMs: 60_000,
        processes,
      });
      expect(hooks.rejected).toEqual([]);
      expect(hooks.events.filter((e) => e.type !== 'job.succeeded')).toEqual([]);
      for (const { jobId } of submitted) {
        const ids = new Set(hooks.events.filter((e) => e.jobId === jobId).map((e) => e.messageId));
        expect(ids.size, `${jobId}: distinct job.succeeded events`).toBe(1);
      }

      // No worker reported a job succeeded twice, nor two workers the same job (`worker --json`
      // prints one record per job it ended).
      const reported = new Map<string, number>();
      for (const worker of workers) {
        for (const line of worker.stdout().split('\n')) {
          if (line.trim() === '') continue;
          let record: { job?: JobRecord };
          try {
            record = JSON.parse(line) as { job?: JobRecord };
          } catch {
            throw new Error(`${worker.name} printed a line that is not JSON on stdout with --json: ${line}`);
          }
          if (record.job?.state === 'succeeded') reported.set(record.job.job_id, (reported.get(record.job.job_id) ?? 0) + 1);
        }
      }
      expect([...reported].filter(([, count]) => count > 1)).toEqual([]);

      // The database agrees: 40 rows, all succeeded, none left with an owner.
      const check = new pg.Client({ connectionString: databaseUrl });
      await check.connect();
      try {
        const states = await check.query<{ state: string; n: string }>('SELECT state, count(*) AS n FROM jobs GROUP BY state');
        expect(states.rows.map((r) => [r.state, Number(r.n)])).toEqual([['succeeded', JOBS]]);
      } finally {
        await check.end();
      }

      // Exactly one video object per job in the bucket, and none for anything else.
      const videos = videosByJob(await listBucket(s3, `${BUCKET_PREFIX}/`));
      expect([...videos.keys()].sort()).toEqual(submitted.map((s) => s.jobId).sort());
      for (const [jobId, objects] of videos)
        expect(
          objects.map((o) => o.key),
          jobId,
        ).toHaveLength(1);

      // No process printed the database password.
      for (const proc of processes.all()) expect(proc.stdout() + proc.stderr(), proc.name).not.toContain(DB_PASSWORD);

      // Every video, downloaded through node A (B is gone), is the one the record describes.
      const downloads = join(work, 'downloads');
      for (const job of ended) {
        const response = await fetch(`${nodeA.url}/api/v1/jobs/${job.job_id}/video`, {
          headers: { authorization: `Bearer ${key.api_key}` },
        });
        expect(response.status, job.job_id).toBe(200);
        const bytes = Buffer.from(await response.arrayBuffer());
        expect(bytes.length).toBe(job.result!.size_bytes);
        expect(createHash('sha256').update(bytes).digest('hex')).toBe(job.result!.sha256.replace(/^sha256:/, ''));
        const file = join(mkdtempSync(`${downloads}-`), 'video.mp4');
        writeFileSync(file, bytes);
        const probed = await probe(file);
        expect(expectPlayable720p60(probed), job.job_id).toEqual([]);
        expect(probed.durationS).toBeGreaterThan(DURATION_S - 0.5);
        expect(probed.durationS).toBeLessThan(DURATION_S + 0.5);
      }
    },
  );
});

import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../src/core/types.js';
import { assertBuiltCliIsFresh, runCli } from '../../helpers/cli.js';
import { freePort, startPostgres, startS3, type PostgresServer, type S3Server } from '../../helpers/services.js';
import { expectPlayable720p60, probe } from '../../helpers/probe.js';
import { LISTING_TEXT, makePhotos } from '../../helpers/job-photos.js';
import {
  groupCommands,
  listBucket,
  ProcessSet,
  sleep,
  startWebhookReceiver,
  videosByJob,
  waitFor,
  type ClusterProcess,
  type WebhookReceiver,
} from '../../helpers/cluster.js';

/*
 * The whole cluster under faults, on loopback (docs/scaling.md "Tests"): one PostgreSQL, one bucket
 * (s3rver), 3 `immoreel serve` and 2 `immoreel worker` processes of the built CLI. While short
 * renders run, PostgreSQL is stopped fast (down 15 s) with idempotent submissions in flight, the S3
 * server is stopped for 15 s and started again, then frozen (an asset upload must get its 503 within
 * 15 s), API node C is SIGKILLed with submissions in flight (their clients fail over to A with the
 * same keys), and a worker that owns a running render is SIGKILLed (a replacement worker is started,
 * as a supervisor would); then API node B is stopped and the last jobs go through A. Nodes A and B
 * are polled throughout (`/ready` and the job list), and every answer any of them gave is kept.
 *
 * Then: every job `succeeded` exactly once with a video that passes ffprobe, one job per key, the
 * tenant was charged once per job and `immoreel db reconcile` finds the books equal, one signed `job.succeeded` webhook each; no API node ever answered 500;
 * `/ready` said 503 during each outage and 200 after; every `serve` and every surviving `worker`
 * ran to the end; the bucket holds one video per job; no process of the test is left. The time to
 * recover after each fault is printed (and written in docs/scaling.md "Failure modes").
 *
 * The render lease and the retry delay are shortened (IMMOREEL_LEASE_SECONDS,
 * IMMOREEL_RETRY_DELAY_SECONDS; docs/scaling.md "Failure modes"): a 15 s outage is then longer
 * than a lease, which is the case where a live worker must keep its render.
 */

/** 10 by default, an even number ≥ 8 with IMMOREEL_CLUSTER_JOBS (renders are what costs). */
const JOBS = jobCount(process.env.IMMOREEL_CLUSTER_JOBS);
/** The shortest video the API accepts. */
const DURATION_S = 10;
const LEASE_SECONDS = 8;
const RETRY_DELAY_SECONDS = 1;
const OUTAGE_MS = 15_000;
const BUCKET_PREFIX = 'cluster';
const TEST_TIMEOUT = 12 * 60_000;
const DB_PASSWORD = 'db-secret-7f3a9c';

function jobCount(value: string | undefined): number {
  if (value === undefined || value === '') return 10;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 8 || n % 2 !== 0) throw new Error(`IMMOREEL_CLUSTER_JOBS=${value}: give an even number ≥ 8.`);
  return n;
}

let pgServer: PostgresServer;
let s3: S3Server;
let databaseUrl: string;
let work: string;
const processes = new ProcessSet();
let hooks: WebhookReceiver;
let webhookSecret = '';

/** Every answer an API node gave, to the test's own calls and to the pollers. */
interface Answer {
  at: number;
  node: string;
  method: string;
  path: string;
  status: number;
  body: string;
}
const answers: Answer[] = [];

function backendArgs(dataDir: string): string[] {
  return ['--data-dir', dataDir, '--database-url', databaseUrl, '--storage-url', `s3://${s3.bucket}/${BUCKET_PREFIX}`];
}

function backendEnv(): Record<string, string> {
  return {
    ...s3.env,
    IMMOREEL_ALLOW_LOOPBACK_FETCH: '1',
    IMMOREEL_LEASE_SECONDS: String(LEASE_SECONDS),
    IMMOREEL_RETRY_DELAY_SECONDS: String(RETRY_DELAY_SECONDS),
  };
}

interface Node {
  name: string;
  proc: ClusterProcess;
  url: string;
}

async function startApi(name: string, metricsPort?: number): Promise<Node> {
  const proc = await processes.spawn(
    name,
    [
      ...backendArgs(join(work, name)),
      'serve',
      ...(metricsPort === undefined ? [] : ['--metrics-port', String(metricsPort)]),
      '--port',
      '0',
      '--render-rate',
      '1000',
      '--job-read-rate',
      '100000',
      '--max-queued',
      '1000',
    ],
    { env: backendEnv(), readyWhen: /"event":"listening"/ },
  );
  const url = /"event":"listening","url":"([^"]+)"/.exec(proc.stderr())?.[1] ?? /"url":"(http[^"]+)"/.exec(proc.stderr())?.[1];
  if (url === undefined) throw new Error(`${name} logged no url:\n${proc.stderr()}`);
  return { name, proc, url: url.replace(/\/$/, '') };
}

// ---------------------------------------------------------------------------------------------
// Worker metrics (docs/operations.md "Metrics"): the retries and outages each worker counted.
// ---------------------------------------------------------------------------------------------

/** Sum of a counter's samples in a Prometheus text exposition, over the samples whose labels include `labels`. */
function counterSum(text: string, name: string, labels = ''): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (labels !== '' && !line.includes(labels)) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

interface WorkerHandle {
  proc: ClusterProcess;
  metricsPort: number | null;
}

// ---------------------------------------------------------------------------------------------

async function api<T>(
  node: Node,
  key: string,
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; body: T; headers: Headers }> {
  const response = await fetch(`${node.url}/api/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string> | undefined) },
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  answers.push({ at: Date.now(), node: node.name, method: init.method ?? 'GET', path, status: response.status, body: text.slice(0, 300) });
  return { status: response.status, body: (text === '' ? null : JSON.parse(text)) as T, headers: response.headers };
}

/** Every job of the tenant through one node (all pages); undefined when the node did not answer 200. */
async function listJobs(node: Node, key: string): Promise<JobRecord[] | undefined> {
  const jobs: JobRecord[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? '?limit=100' : `?limit=100&cursor=${encodeURIComponent(cursor)}`;
    const page = await api<{ jobs: JobRecord[]; next_cursor: string | null }>(node, key, `/jobs${query}`);
    if (page.status !== 200) return undefined;
    jobs.push(...page.body.jobs);
    cursor = page.body.next_cursor;
  } while (cursor !== null);
  return jobs;
}

/**
 * Polls `/ready` and the job list of every node every 300 ms until stopped: what a load balancer
 * and a client see throughout the faults. `progress` is the latest job list any node gave, with when.
 */
function startPolling(nodes: () => Node[], key: string) {
  let stopped = false;
  const ready: { at: number; node: string; status: number }[] = [];
  const lists: { at: number; jobs: JobRecord[] }[] = [];
  const loop = async (node: Node): Promise<void> => {
    while (!stopped && !node.proc.hasExited()) {
      try {
        const response = await fetch(`${node.url}/api/v1/ready`, { signal: AbortSignal.timeout(10_000) });
        const body = await response.text();
        const at = Date.now();
        answers.push({ at, node: node.name, method: 'GET', path: '/ready', status: response.status, body: body.slice(0, 300) });
        ready.push({ at, node: node.name, status: response.status });
        const jobs = await listJobs(node, key);
        if (jobs !== undefined) lists.push({ at: Date.now(), jobs });
      } catch (error) {
        // Only a node the test stopped may refuse a connection: the check after says so.
        if (!node.proc.hasExited())
          answers.push({ at: Date.now(), node: node.name, method: 'GET', path: '(poll)', status: 0, body: String(error) });
      }
      await sleep(300);
    }
  };
  const loops = nodes().map(loop);
  return {
    ready,
    lists,
    async stop(): Promise<void> {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/** How each job stood in a job list: `state:progress`, to see the first change after a fault. */
const standing = (jobs: JobRecord[]): string =>
  jobs
    .map((j) => `${j.job_id}:${j.state}:${j.progress}`)
    .sort()
    .join(',');

beforeAll(async () => {
  // A stale build fails here with the reason: every process below runs bin/immoreel.js (dist/).
  assertBuiltCliIsFresh();
  work = mkdtempSync(join(tmpdir(), 'immoreel-faults-'));
  [pgServer, s3] = await Promise.all([startPostgres(), startS3('immoreel-faults')]);
  // The test server trusts loopback and ignores passwords: one is given anyway, to show that no
  // process ever prints it (docs/security.md: secrets never reach logs or output).
  databaseUrl = (await pgServer.createDatabase('immoreel_faults')).replace('postgres://postgres@', `postgres://postgres:${DB_PASSWORD}@`);
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

describe('2 API nodes and 2 workers on one PostgreSQL and one bucket, under faults', () => {
  it(
    `${JOBS} renders survive a PostgreSQL restart, a stopped S3 server, a SIGKILLed worker and a stopped API node`,
    { timeout: TEST_TIMEOUT },
    async () => {
      const started = Date.now();
      const created = await runCli([...backendArgs(join(work, 'keys')), 'keys', 'create', '--tenant', 'acme', '--json'], {
        env: backendEnv(),
      });
      expect(created.stdout + created.stderr).not.toContain(DB_PASSWORD);
      expect(created.code, created.stderr).toBe(0);
      const key = JSON.parse(created.stdout) as { api_key: string; webhook_secret: string };
      webhookSecret = key.webhook_secret;

      // C is there to be SIGKILLed mid-submission (its clients fail over to A with the same keys).
      const apiMetricsPort = await freePort();
      const [nodeA, nodeB, nodeC] = await Promise.all([startApi('api-a', apiMetricsPort), startApi('api-b'), startApi('api-c')]);
      const workers: WorkerHandle[] = [];
      const startWorker = async (n: number): Promise<WorkerHandle> => {
        const metricsPort = await freePort();
        const proc = await processes.spawn(
          `worker-${n}`,
          [...backendArgs(join(work, `worker-${n}`)), '--json', 'worker', '--concurrency', '1', '--metrics-port', String(metricsPort)],
          { env: backendEnv(), readyWhen: /"event":"ready"/ },
        );
        const handle = { proc, metricsPort };
        workers.push(handle);
        return handle;
      };
      await startWorker(1);
      await startWorker(2);

      /** The retries and outages every live worker counted so far, scraped after each fault (a killed worker's are lost). */
      const counted = { retries: 0, database: 0, storage: 0 };
      const scrapeWorkerMetrics = async (): Promise<void> => {
        for (const w of workers.filter((h) => !h.proc.hasExited())) {
          const response = await fetch(`http://127.0.0.1:${w.metricsPort}/metrics`);
          expect(response.status, `${w.proc.name} /metrics`).toBe(200);
          const text = await response.text();
          counted.retries = Math.max(counted.retries, counterSum(text, 'immoreel_retries_total'));
          counted.database = Math.max(counted.database, counterSum(text, 'immoreel_outages_total', 'service="database"'));
          counted.storage = Math.max(counted.storage, counterSum(text, 'immoreel_outages_total', 'service="storage"'));
        }
      };

      // Two photos, one uploaded on each node: an asset stored through B is usable through A.
      const photoFiles = await makePhotos(join(work, 'photos'), 2, 960, 720);
      const refs: string[] = [];
      for (const [file, node] of [
        [photoFiles[0]!, nodeA],
        [photoFiles[1]!, nodeB],
      ] as const) {
        const uploaded = await api<{ asset: { ref: string } }>(node, key.api_key, '/assets', {
          method: 'POST',
          headers: { 'content-type': 'image/jpeg' },
          body: readFileSync(file),
        });
        expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201);
        refs.push(uploaded.body.asset.ref);
      }

      const submitted: string[] = [];
      const renderBody = (n: number): string =>
        JSON.stringify({
          description: LISTING_TEXT,
          photos: refs,
          music: 'none',
          duration_s: DURATION_S,
          webhook_url: hooks.url,
          metadata: { n },
        });
      const submit = async (node: Node, n: number): Promise<void> => {
        const answer = await api<{ job: JobRecord }>(node, key.api_key, '/render-video', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': `faults-${n}` },
          body: renderBody(n),
        });
        expect(answer.status, JSON.stringify(answer.body)).toBe(202);
        submitted.push(answer.body.job.job_id);
      };
      const submitBatch = async (from: number, count: number, nodes: Node[]): Promise<void> => {
        for (let n = from; n < from + count; n += 1) await submit(nodes[n % nodes.length]!, n);
      };
      /**
       * A submission as the remote CLI makes it through a fault: the same Idempotency-Key and body,
       * retried after a 503 or a lost connection, failing over to the next node. One job per key.
       */
      const submitThroughFaults = async (nodes: Node[], n: number): Promise<void> => {
        for (let attempt = 0; attempt < 240; attempt += 1) {
          const node = nodes[attempt % nodes.length]!;
          const answer = await api<{ job: JobRecord }>(node, key.api_key, '/render-video', {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': `faults-${n}` },
            body: renderBody(n),
          }).catch(() => null);
          if (answer?.status === 202) {
            submitted.push(answer.body.job.job_id);
            return;
          }
          if (answer !== null) expect(answer.status, JSON.stringify(answer.body)).toBe(503);
          await sleep(500);
        }
        throw new Error(`faults-${n} was never accepted`);
      };

      // The job rows as they stand (owner pid, progress), read directly: one short connection each, since PostgreSQL restarts.
      const running = async (): Promise<{ job_id: string; owner_pid: number; stage: string | null; progress: number }[]> => {
        const db = new pg.Client({ connectionString: databaseUrl });
        await db.connect();
        try {
          const rows = await db.query<{ job_id: string; owner_pid: number; stage: string | null; progress: number }>(
            "SELECT job_id, owner_pid, stage, progress FROM jobs WHERE state = 'running' AND owner_pid IS NOT NULL",
          );
          return rows.rows;
        } finally {
          await db.end();
        }
      };
      // A render three quarters encoded when a service goes: it ends during the outage, so its upload
      // or its record is what must wait the outage out (docs/operations.md "Outages").
      const renderNearlyDone = (what: string) =>
        waitFor(
          what,
          async () =>
            (await running()).some((r) => (r.stage === 'rendering' && r.progress >= 0.75) || r.stage === 'verifying') ? true : undefined,
          { timeoutMs: 240_000, everyMs: 250, processes },
        );

      const polling = startPolling(() => [nodeA, nodeB], key.api_key);
      const recovery: Record<string, number> = {};
      const readyAfter = (node: Node, since: number) =>
        waitFor(
          `${node.name} /ready 200`,
          async () => polling.ready.find((r) => r.node === node.name && r.at >= since && r.status === 200),
          {
            timeoutMs: 120_000,
            everyMs: 100,
            processes,
          },
        );
      const sawReady503 = (node: Node, from: number, to: number): boolean =>
        polling.ready.some((r) => r.node === node.name && r.at >= from && r.at <= to && r.status === 503);

      // Batch 1, through both nodes; once a render is nearly done, PostgreSQL restarts.
      let next = 0;
      await submitBatch(next, 3, [nodeA, nodeB]);
      next += 3;
      await renderNearlyDone('a render nearly done before the PostgreSQL restart');

      // Batch 2 is submitted as PostgreSQL stops fast: idempotent submissions in flight, retried until accepted.
      const batch2 = Promise.all([next, next + 1].map((n) => submitThroughFaults([nodeA, nodeB], n)));
      next += 2;
      await sleep(30);
      const pgDown = Date.now();
      await pgServer.halt();
      await sleep(OUTAGE_MS / 2);
      // A submission meanwhile is refused with 503 and Retry-After (and charged nothing: checked at the end).
      const refused = await api<{ error: { reason?: string } }>(nodeA, key.api_key, '/render-video', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'faults-during-db-outage' },
        body: renderBody(-1),
      });
      expect(refused.status, JSON.stringify(refused.body)).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      const lastBefore = polling.lists.filter((l) => l.at < pgDown).at(-1)!;
      await sleep(pgDown + OUTAGE_MS - Date.now());
      await pgServer.resume();
      const pgUp = Date.now();
      for (const node of [nodeA, nodeB]) {
        recovery[`database: ${node.name} /ready 200`] = (await readyAfter(node, pgUp)).at - pgUp;
        expect(sawReady503(node, pgDown, pgUp), `${node.name} /ready 503 while PostgreSQL was down`).toBe(true);
      }
      const moved = await waitFor(
        'a job to move after the PostgreSQL restart',
        async () => polling.lists.find((l) => l.at >= pgUp && standing(l.jobs) !== standing(lastBefore.jobs)),
        { timeoutMs: 120_000, everyMs: 100, processes },
      );
      recovery['database: first job progress'] = moved.at - pgUp;
      await batch2;
      await scrapeWorkerMetrics();
      const storageOutagesBefore = counted.storage;

      // Once a render of batch 2 is nearly done, the S3 server stops for 15 s.
      await renderNearlyDone('a render nearly done before the S3 server stops');
      const succeededSoFar = polling.lists.at(-1)!.jobs.filter((j) => j.state === 'succeeded');
      const s3Down = Date.now();
      await s3.halt();
      // The nearly done render may still upload before the server is down; a job submitted now
      // cannot avoid it: whichever worker takes it reads its photos from the stopped server and must
      // wait the outage out (docs/operations.md "Outages"). Submitting needs only the database.
      await submit(nodeA, next);
      next += 1;
      await sleep(OUTAGE_MS / 2);
      // A video download meanwhile is refused with 503 (the bytes are in the bucket), never a 500.
      if (succeededSoFar.length > 0) {
        const download = await fetch(`${nodeB.url}/api/v1/jobs/${succeededSoFar[0]!.job_id}/video`, {
          headers: { authorization: `Bearer ${key.api_key}` },
        });
        await download.arrayBuffer();
        answers.push({ at: Date.now(), node: nodeB.name, method: 'GET', path: '/jobs/:id/video', status: download.status, body: '' });
        expect(download.status).toBe(503);
      }
      const succeededBefore = polling.lists
        .filter((l) => l.at < s3Down)
        .at(-1)!
        .jobs.filter((j) => j.state === 'succeeded').length;
      await sleep(s3Down + OUTAGE_MS - Date.now());
      // The server comes back only once a worker has met the outage (at once, unless both workers
      // were still busy with renders for all of the 15 s): a worker that never met it would prove nothing.
      await waitFor(
        'a worker to meet the storage outage',
        async () => {
          await scrapeWorkerMetrics();
          return counted.storage > storageOutagesBefore ? true : undefined;
        },
        { timeoutMs: 60_000, everyMs: 250, processes },
      );
      await s3.resume();
      const s3Up = Date.now();
      for (const node of [nodeA, nodeB]) {
        recovery[`storage: ${node.name} /ready 200`] = (await readyAfter(node, s3Up)).at - s3Up;
        expect(sawReady503(node, s3Down, s3Up), `${node.name} /ready 503 while the S3 server was down`).toBe(true);
      }
      const landed = await waitFor(
        'a video to land after the S3 server is back',
        async () => polling.lists.find((l) => l.at >= s3Up && l.jobs.filter((j) => j.state === 'succeeded').length > succeededBefore),
        { timeoutMs: 180_000, everyMs: 100, processes },
      );
      recovery['storage: first job succeeded'] = landed.at - s3Up;
      await scrapeWorkerMetrics();
      // Node A has seen the stopped server's outage end (its own probe, about once a second; `/ready`
      // 200 may come first): the freeze below is then a second outage, counted on its own.
      await waitFor(
        `${nodeA.name} to log the storage outage's end`,
        async () => (/"event":"outage_ends"[^\n]*"service":"storage"/.test(nodeA.proc.stderr()) ? true : undefined),
        { timeoutMs: 30_000, everyMs: 100, processes },
      );

      // The S3 server frozen (it accepts connections, never answers): an asset upload is answered
      // 503 with Retry-After within 15 s, not after minutes (docs/operations.md "Storage deadlines").
      s3.freeze();
      const frozenAt = Date.now();
      const frozenUpload = await api<{ error: { reason?: string } }>(nodeA, key.api_key, '/assets', {
        method: 'POST',
        headers: { 'content-type': 'image/jpeg' },
        body: readFileSync(photoFiles[0]!),
      });
      recovery['frozen storage: asset upload answered'] = Date.now() - frozenAt;
      s3.thaw();
      const thawedAt = Date.now();
      expect(frozenUpload.status, JSON.stringify(frozenUpload.body)).toBe(503);
      expect(frozenUpload.headers.get('retry-after')).toBe('5');
      expect(thawedAt - frozenAt).toBeLessThan(15_000);

      // Batch 3 goes to API node C, SIGKILLed while the submissions are in flight; its clients fail
      // over to A with the same keys: one job per key, nothing charged without its job.
      const batch3 = Promise.all([next, next + 1].map((n) => submitThroughFaults([nodeC, nodeA], n)));
      next += 2;
      await sleep(20);
      processes.expectExit(nodeC.proc);
      nodeC.proc.signalGroup('SIGKILL');
      expect((await nodeC.proc.exited).signal).toBe('SIGKILL');
      await batch3;

      // A worker that owns a running render (its pid on the job row, ffmpeg in its group) dies.
      const victim = await waitFor(
        'a worker that owns a running render',
        async () => {
          const rows = await running();
          for (const w of workers) {
            const rendering = rows.some((r) => r.owner_pid === w.proc.pid && r.progress > 0);
            // Every job it holds dies with it: the one rendering, and those claimed into its fetch stage.
            const owned = rows.filter((r) => r.owner_pid === w.proc.pid).map((r) => r.job_id);
            if (rendering && (await groupCommands(w.proc.pid)).includes('ffmpeg')) return { worker: w, owned };
          }
          return undefined;
        },
        { timeoutMs: 180_000, processes },
      );
      processes.expectExit(victim.worker.proc);
      victim.worker.proc.signalGroup('SIGKILL');
      const killedAt = Date.now();
      expect((await victim.worker.proc.exited).signal).toBe('SIGKILL');
      // It may have claimed another job between the look above and the kill; its rows still name it
      // until a recovery poll (every 5 s here) hands them on.
      for (const row of await running()) {
        if (row.owner_pid === victim.worker.proc.pid && !victim.owned.includes(row.job_id)) victim.owned.push(row.job_id);
      }
      // A supervisor starts a new worker (systemd Restart=on-failure): two render again.
      await startWorker(3);
      const retaken = await waitFor(
        "the killed worker's render under way again elsewhere",
        async () =>
          (await running()).find((r) => victim.owned.includes(r.job_id) && r.owner_pid !== victim.worker.proc.pid && r.progress > 0),
        { timeoutMs: 180_000, everyMs: 100, processes },
      );
      recovery['worker SIGKILL: its render under way again'] = Date.now() - killedAt;
      expect(retaken.job_id).toBeDefined();

      console.log(
        [
          `cluster faults: time to recover after each fault (${Math.round((Date.now() - started) / 1000)} s in):`,
          ...Object.entries(recovery).map(([what, ms]) => `  ${what}: ${(ms / 1000).toFixed(1)} s`),
        ].join('\n'),
      );

      // API node B stops gracefully (SIGTERM); the last jobs go through A only.
      await polling.stop();
      processes.expectExit(nodeB.proc);
      nodeB.proc.signalGroup('SIGTERM');
      expect((await nodeB.proc.exited).code, nodeB.proc.stderr()).toBe(0);
      await submitBatch(next, JOBS - next, [nodeA]);

      const ended = await waitFor(
        `${JOBS} jobs to end`,
        async () => {
          const jobs = await listJobs(nodeA, key.api_key);
          return jobs !== undefined && jobs.filter((j) => ['succeeded', 'failed', 'canceled'].includes(j.state)).length >= JOBS
            ? jobs
            : undefined;
        },
        { timeoutMs: 10 * 60_000, everyMs: 1_000, processes },
      );

      // No job lost, none invented, all succeeded; the killed worker's job was tried again.
      expect(ended.map((j) => j.job_id).sort()).toEqual([...submitted].sort());
      expect(ended.filter((j) => j.state !== 'succeeded').map((j) => `${j.job_id} ${j.state} ${j.error?.message ?? ''}`)).toEqual([]);
      for (const jobId of victim.owned) expect(ended.find((j) => j.job_id === jobId)!.attempts).toBeGreaterThanOrEqual(2);
      // No other render was done twice: leases that ran out during the 15 s database outage did not
      // hand a live worker's render to another (docs/jobs.md "Crash safety").
      expect(
        ended.filter((j) => !victim.owned.includes(j.job_id) && j.attempts !== 1).map((j) => `${j.job_id}: ${j.attempts} attempts`),
      ).toEqual([]);

      // Charged once per job: the refused submission, the retried submissions and renders cost nothing.
      const me = await api<{ quota: { used: number } }>(nodeA, key.api_key, '/me');
      expect(me.status).toBe(200);
      expect(me.body.quota.used).toBe(JOBS);
      // The books, as an operator checks them: quota used = units charged on jobs, for every key and month.
      const books = await runCli([...backendArgs(join(work, 'keys')), 'db', 'reconcile', '--period', 'all', '--json'], {
        env: backendEnv(),
      });
      expect(books.code, books.stdout + books.stderr).toBe(0);
      expect((JSON.parse(books.stdout) as { keys: { used: number; charged: number; difference: number }[] }).keys).toEqual([
        expect.objectContaining({ used: JOBS, charged: JOBS, difference: 0 }),
      ]);

      // Exactly one signed `job.succeeded` event per job (retries of one event share its webhook-id).
      await waitFor('a webhook for every job', async () => (new Set(hooks.events.map((e) => e.jobId)).size >= JOBS ? true : undefined), {
        timeoutMs: 90_000,
        processes,
      });
      expect(hooks.rejected).toEqual([]);
      expect(hooks.events.filter((e) => e.type !== 'job.succeeded')).toEqual([]);
      for (const jobId of submitted) {
        const ids = new Set(hooks.events.filter((e) => e.jobId === jobId).map((e) => e.messageId));
        expect(ids.size, `${jobId}: distinct job.succeeded events`).toBe(1);
      }

      // No worker reported a job succeeded twice, nor two workers the same job (`worker --json`
      // prints one record per job it ended).
      const reported = new Map<string, number>();
      for (const { proc } of workers) {
        for (const line of proc.stdout().split('\n')) {
          if (line.trim() === '') continue;
          let record: { job?: JobRecord };
          try {
            record = JSON.parse(line) as { job?: JobRecord };
          } catch {
            throw new Error(`${proc.name} printed a line that is not JSON on stdout with --json: ${line}`);
          }
          if (record.job?.state === 'succeeded') reported.set(record.job.job_id, (reported.get(record.job.job_id) ?? 0) + 1);
        }
      }
      expect([...reported].filter(([, count]) => count > 1)).toEqual([]);
      expect([...reported.keys()].sort()).toEqual([...submitted].sort());

      // The database agrees: all succeeded.
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
      expect([...videos.keys()].sort()).toEqual([...submitted].sort());
      for (const [jobId, objects] of videos)
        expect(
          objects.map((o) => o.key),
          jobId,
        ).toHaveLength(1);

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

      // Worker metrics: the outages and the retries that rode them out were counted (docs/operations.md "Metrics").
      await scrapeWorkerMetrics();
      const storageLines = workers.map(({ proc }) => proc.stderr().match(/"event":"outage_begins"[^\n]*"service":"storage"/g)?.length ?? 0);
      expect(counted.database, 'immoreel_outages_total{service="database"}').toBeGreaterThanOrEqual(1);
      expect(
        counted.storage,
        `immoreel_outages_total{service="storage"} (workers' storage outage_begins lines: ${storageLines.join(', ')})`,
      ).toBeGreaterThanOrEqual(1);
      // An API node counts each outage once, however many requests met it (docs/operations.md "Logs"):
      // PostgreSQL stopped, S3 stopped, S3 frozen — and one begin line each, not one per 503. (A
      // `/ready` check slower than 2 s on a loaded machine may add one: hence "at least".)
      const apiMetrics = await (await fetch(`http://127.0.0.1:${apiMetricsPort}/metrics`)).text();
      const apiOutages = {
        database: counterSum(apiMetrics, 'immoreel_outages_total', 'service="database"'),
        storage: counterSum(apiMetrics, 'immoreel_outages_total', 'service="storage"'),
      };
      expect(apiOutages.database, `${nodeA.name} database outages`).toBeGreaterThanOrEqual(1);
      expect(apiOutages.storage, `${nodeA.name} storage outages`).toBeGreaterThanOrEqual(2);
      expect(nodeA.proc.stderr().match(/"event":"outage_begins"/g)).toHaveLength(apiOutages.database + apiOutages.storage);
      expect(nodeA.proc.stderr()).not.toMatch(/"msg":"request failed"/);
      expect(counted.retries, 'immoreel_retries_total').toBeGreaterThanOrEqual(1);

      // No API node ever answered 500 (or anything 5xx but the outages' 503), to the test or the pollers.
      expect(
        answers.filter((a) => a.status >= 500 && a.status !== 503).map((a) => `${a.node} ${a.method} ${a.path} ${a.status} ${a.body}`),
      ).toEqual([]);
      // A node answered every poll until the test stopped it (no refused connection, no hang).
      expect(answers.filter((a) => a.status === 0).map((a) => `${a.node} ${a.body}`)).toEqual([]);
      // 503s to API calls only while a service was down, or in the seconds after. (`/ready` is left
      // out: on a loaded machine the S3 server may take longer than its 2 s check, which is a 503 by
      // design; it was 200 again after each outage, above, and is 200 at the end, below.)
      const lastFaultEnd = Math.max(s3Up, pgUp, thawedAt) + 30_000;
      expect(
        answers
          .filter((a) => a.status === 503 && a.path !== '/ready' && (a.at < pgDown || a.at > lastFaultEnd))
          .map((a) => `${a.node} ${a.method} ${a.path} ${a.body}`),
      ).toEqual([]);
      const finalReady = await fetch(`${nodeA.url}/api/v1/ready`);
      expect(finalReady.status, await finalReady.text()).toBe(200);
      // Every API node and every worker but those killed ran to the end (B was stopped by the test, C killed).
      expect(nodeA.proc.hasExited()).toBe(false);
      for (const { proc } of workers) if (proc !== victim.worker.proc) expect(proc.hasExited(), proc.name).toBe(false);
      expect(processes.crashed()).toEqual([]);

      // No process printed the database password.
      for (const proc of processes.all()) expect(proc.stdout() + proc.stderr(), proc.name).not.toContain(DB_PASSWORD);
      console.log(
        `cluster faults: ${JOBS} jobs in ${Math.round((Date.now() - started) / 1000)} s; worker metrics: ${JSON.stringify(counted)}; api-a outages: ${JSON.stringify(apiOutages)}`,
      );
    },
  );
});

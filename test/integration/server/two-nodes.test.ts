import { createHash, createHmac } from 'node:crypto';
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeCheckedListing } from '../../../src/analysis/analyze.js';
import { sha256Hex } from '../../../src/core/hash.js';
import { newJobId } from '../../../src/core/job-ids.js';
import { guardedFetch } from '../../../src/net/fetch.js';
import { validateRenderRequest } from '../../../src/render/render-rules.js';
import { buildApp } from '../../../src/server/app.js';
import { resolveAsset } from '../../../src/records/assets.js';
import type { JobsPort } from '../../../src/server/request-context.js';
import { startJobEndDuties, type JobEndDuties } from '../../../src/server/job-end.js';
import { S3BlobStore, videoKey, type BlobStore } from '../../../src/blobs/index.js';
import { openPostgresRecordStore } from '../../../src/records/postgres/index.js';
import type { RecordStore } from '../../../src/records/types.js';
import { startPostgres, startS3, type PostgresServer, type S3Server } from '../../helpers/services.js';

/**
 * Two API nodes on one PostgreSQL database and one S3 bucket (docs/scaling.md): the nodes hold
 * no state of their own, so whatever one node was told, the other answers.
 */

interface Node {
  app: FastifyInstance;
  records: RecordStore;
  blobs: BlobStore;
  duties: JobEndDuties;
  dataDir: string;
}

/**
 * The routes' job port over the shared job records. The job layer's JobManager (renders, the
 * queue) is not what this test is about; this thin port lets the server layer be tested on
 * PostgreSQL on its own: every answer comes from the database both nodes share.
 */
function recordsJobsPort(records: RecordStore): JobsPort {
  return {
    async submitOnce(request, { tenant, charge, idempotency, webhookUrl }) {
      const jobId = newJobId();
      const row = await records.jobs.insert({
        jobId,
        tenant,
        request,
        inputHash: sha256Hex(JSON.stringify(request)),
        allowLocalFiles: false,
        linkBase: '/api/v1',
        charge,
        idempotency,
        webhookUrl,
      });
      return { job: records.jobs.toRecord(row), replayed: row.job_id !== jobId };
    },
    async get(jobId) {
      const row = await records.jobs.row(jobId);
      return row === undefined ? null : { job: records.jobs.toRecord(row), tenant: row.tenant };
    },
    list: (tenant, options) => records.jobs.list(tenant, options),
    async cancel(jobId) {
      const row = await records.jobs.transition(jobId, 'canceled', { finished_at: new Date().toISOString() });
      return records.jobs.toRecord(row ?? (await records.jobs.row(jobId))!);
    },
    async videoKey(jobId) {
      const row = await records.jobs.row(jobId);
      return row?.state === 'succeeded' && row.expired_at === null ? videoKey(jobId) : null;
    },
    countJobs: (tenant, states) => records.jobs.count(tenant, states),
  };
}

let postgres: PostgresServer;
let s3: S3Server;
let root: string;
let a: Node;
let b: Node;
const nodes: Node[] = [];

async function openNode(databaseUrl: string, name: string): Promise<Node> {
  const dataDir = join(root, name);
  const records = await openPostgresRecordStore(databaseUrl, { dataDir });
  const blobs = S3BlobStore.fromEnvironment(s3.bucket, 'nodes-test', s3.env);
  const app = buildApp({
    records,
    blobs,
    jobs: recordsJobsPort(records),
    analyze: (checked, signal) => analyzeCheckedListing(checked, { signal }),
    validateRender: (request) => validateRenderRequest(request, 'server'),
    limits: { accountPerWindow: 6, windowMs: 60_000 },
    log: false,
    allowLoopbackFetch: true,
  });
  const duties = startJobEndDuties({ records, fetch: guardedFetch({ allowLoopback: true }), pollMs: 50 });
  const node = { app, records, blobs, duties, dataDir };
  nodes.push(node);
  return node;
}

beforeAll(async () => {
  postgres = await startPostgres();
  s3 = await startS3();
  root = await mkdtemp(join(tmpdir(), 'immoreel-two-nodes-'));
  const databaseUrl = await postgres.createDatabase();
  a = await openNode(databaseUrl, 'a');
  b = await openNode(databaseUrl, 'b');
}, 120_000);

afterAll(async () => {
  for (const node of nodes) {
    await node.duties.stop();
    await node.app.close();
    await node.records.close();
    await node.blobs.close();
  }
  await s3?.stop();
  await postgres?.stop();
  if (root !== undefined) await rm(root, { recursive: true, force: true });
});

const bearer = (apiKey: string): Record<string, string> => ({ authorization: `Bearer ${apiKey}` });
const RENDER = { description: 'Appartement 120 m² à Maarif, Casablanca, 1 850 000 DH', photos: ['https://photos.example.com/salon.jpg'] };

/** The parts of the answers these tests read (a job envelope or an error envelope). */
interface Answer {
  job: { job_id: string; state: string };
  error: { reason: string };
}

async function post(node: Node, url: string, apiKey: string, payload: object): Promise<{ status: number; body: Answer }> {
  const res = await node.app.inject({ method: 'POST', url, headers: bearer(apiKey), payload });
  return { status: res.statusCode, body: JSON.parse(res.body) as Answer };
}

describe('two API nodes on one PostgreSQL database and one bucket', () => {
  it('authenticate a key created once, on both nodes', async () => {
    const { apiKey } = await a.records.keys.create({ tenant: 'acme' });
    for (const node of [a, b]) {
      const res = await node.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(apiKey) });
      expect(res.statusCode, res.body).toBe(200);
      expect(JSON.parse(res.body)).toMatchObject({ key: { tenant: 'acme' } });
    }
    const revoked = await b.records.keys.create({ tenant: 'acme' });
    await b.records.keys.revoke(revoked.record.key_id);
    expect((await a.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(revoked.apiKey) })).statusCode).toBe(401);
  });

  it('use on node B an asset uploaded on node A', async () => {
    const { apiKey } = await a.records.keys.create({ tenant: 'atlas' });
    const image = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c05020' } })
      .png()
      .toBuffer();
    const upload = await a.app.inject({
      method: 'POST',
      url: '/api/v1/assets',
      headers: { ...bearer(apiKey), 'content-type': 'image/png' },
      payload: image,
    });
    expect(upload.statusCode, upload.body).toBe(201);
    const assetId = (JSON.parse(upload.body) as { asset: { asset_id: string } }).asset.asset_id;
    const render = await post(b, '/api/v1/render-video', apiKey, { ...RENDER, photos: [`asset:${assetId}`] });
    expect(render.status, JSON.stringify(render.body)).toBe(202);
    // What a render on node B reads: the uploaded bytes, downloaded into its scratch directory.
    const path = await resolveAsset(b, 'atlas', assetId, join(b.dataDir, 'jobs', render.body.job.job_id));
    expect((await readFile(path)).equals(image)).toBe(true);
    // A request naming one asset twice resolves both at once, into one job directory.
    const twice = await Promise.all([0, 1].map(() => resolveAsset(b, 'atlas', assetId, join(b.dataDir, 'jobs', 'twice'))));
    for (const copy of twice) expect((await readFile(copy)).equals(image)).toBe(true);
    const foreign = await post(b, '/api/v1/render-video', (await b.records.keys.create({ tenant: 'other' })).apiKey, {
      ...RENDER,
      photos: [`asset:${assetId}`],
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.reason).toBe('unknown_asset');
  });

  it('show and cancel on node B a job created on node A', async () => {
    const { apiKey } = await a.records.keys.create({ tenant: 'casa' });
    const created = await post(a, '/api/v1/render-video', apiKey, RENDER);
    expect(created.status).toBe(202);
    const jobId = created.body.job.job_id;
    const seen = await b.app.inject({ method: 'GET', url: `/api/v1/jobs/${jobId}`, headers: bearer(apiKey) });
    expect(seen.statusCode).toBe(200);
    expect(JSON.parse(seen.body)).toMatchObject({ job: { job_id: jobId, state: 'queued' } });
    const canceled = await post(b, `/api/v1/jobs/${jobId}/cancel`, apiKey, {});
    expect(canceled.status).toBe(200);
    expect(canceled.body.job.state).toBe('canceled');
    const onA = await a.app.inject({ method: 'GET', url: `/api/v1/jobs/${jobId}`, headers: bearer(apiKey) });
    expect(JSON.parse(onA.body)).toMatchObject({ job: { state: 'canceled' } });
  });

  it('download from node B, with Range, the video of a job created on node A', async () => {
    const { apiKey } = await a.records.keys.create({ tenant: 'rabat' });
    const created = await post(a, '/api/v1/render-video', apiKey, RENDER);
    const jobId = created.body.job.job_id;
    const video = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251));
    const sha256 = createHash('sha256').update(video).digest('hex');
    // What a worker does when a render is verified: the video into the bucket, then `succeeded`.
    await a.blobs.put(videoKey(jobId), video, { contentType: 'video/mp4', sha256 });
    await a.records.jobs.transition(jobId, 'running', { started_at: new Date().toISOString() });
    const result = { width: 1280, height: 720, fps: 60, duration_s: 10, size_bytes: video.length, sha256 };
    await a.records.jobs.transition(jobId, 'succeeded', { finished_at: new Date().toISOString(), result_json: JSON.stringify(result) });

    const whole = await b.app.inject({ method: 'GET', url: `/api/v1/jobs/${jobId}/video`, headers: bearer(apiKey) });
    expect(whole.statusCode).toBe(200);
    expect(whole.rawPayload.equals(video)).toBe(true);
    expect(whole.headers).toMatchObject({ etag: `"${sha256}"`, 'accept-ranges': 'bytes', 'content-length': '5000' });
    const head = await b.app.inject({ method: 'HEAD', url: `/api/v1/jobs/${jobId}/video`, headers: bearer(apiKey) });
    expect(head.statusCode).toBe(200);
    expect(head.headers).toMatchObject({ etag: `"${sha256}"`, 'content-length': '5000' });
    expect(head.rawPayload.length).toBe(0);
    const part = await b.app.inject({
      method: 'GET',
      url: `/api/v1/jobs/${jobId}/video`,
      headers: { ...bearer(apiKey), range: 'bytes=1000-1999', 'if-range': `"${sha256}"` },
    });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe('bytes 1000-1999/5000');
    expect(part.rawPayload.equals(video.subarray(1000, 2000))).toBe(true);
    const past = await b.app.inject({
      method: 'GET',
      url: `/api/v1/jobs/${jobId}/video`,
      headers: { ...bearer(apiKey), range: 'bytes=9000-' },
    });
    expect(past.statusCode).toBe(416);
    expect(past.headers['content-range']).toBe('bytes */5000');
    const cached = await b.app.inject({
      method: 'GET',
      url: `/api/v1/jobs/${jobId}/video`,
      headers: { ...bearer(apiKey), 'if-none-match': `"${sha256}"` },
    });
    expect(cached.statusCode).toBe(304);
  });

  it('count rate limits and monthly quotas per key across both nodes', async () => {
    const { apiKey } = await a.records.keys.create({ tenant: 'fes', monthlyQuota: 3 });
    // The account policy allows 6 per window: 3 on each node, then both refuse.
    const statuses: number[] = [];
    for (const node of [a, b, a, b, a, b, a, b]) {
      statuses.push((await node.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(apiKey) })).statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);

    const renders: number[] = [];
    for (const node of [a, b, a, b]) renders.push((await post(node, '/api/v1/render-video', apiKey, RENDER)).status);
    expect(renders).toEqual([202, 202, 202, 403]);
    expect(await b.records.usage.used((await a.records.keys.listForTenant('fes'))[0]!.key_id)).toBe(3);
  });

  it('deliver a webhook enqueued on one node once, signed, whichever node sends it', async () => {
    const received: { headers: IncomingHttpHeaders; body: string }[] = [];
    const receiver: Server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      const { apiKey, webhookSecret } = await a.records.keys.create({ tenant: 'tanger' });
      const created = await post(b, '/api/v1/render-video', apiKey, { ...RENDER, webhook_url: url });
      expect(created.status).toBe(202);
      const jobId = created.body.job.job_id;
      const row = (await a.records.jobs.transition(jobId, 'canceled', { finished_at: new Date().toISOString() }))!;
      // The node that ended the job runs the duties; both nodes' loops poll the outbox.
      await a.duties.onTerminal(a.records.jobs.toRecord(row), 'tanger');
      for (let i = 0; i < 100 && (await a.records.webhooks.get(jobId))?.state !== 'delivered'; i += 1)
        await new Promise((resolve) => setTimeout(resolve, 50));
      // Both loops keep polling for a while: still exactly one delivery.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(received).toHaveLength(1);
      const delivery = received[0]!;
      expect(JSON.parse(delivery.body)).toMatchObject({ type: 'job.canceled', data: { job_id: jobId } });
      const id = delivery.headers['webhook-id'] as string;
      const timestamp = delivery.headers['webhook-timestamp'] as string;
      const key = Buffer.from(webhookSecret.replace(/^whsec_/, ''), 'base64');
      const expected = `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${delivery.body}`).digest('base64')}`;
      expect(delivery.headers['webhook-signature']).toBe(expected);
      expect(await b.records.webhooks.get(jobId)).toMatchObject({ state: 'delivered', attempts: 1, last_status: 204 });
    } finally {
      receiver.close();
    }
  });
});

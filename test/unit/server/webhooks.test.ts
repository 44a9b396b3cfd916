import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../src/core/types.js';
import { openSqliteRecordStore, type RecordStore } from '../../../src/records/index.js';
import { openServerStore, type ServerStore } from '../../../src/records/sqlite/server-records.js';
import { guardedFetch } from '../../../src/net/fetch.js';
import { validateRenderRequest } from '../../../src/render/render-rules.js';
import { startJobEndDuties } from '../../../src/server/job-end.js';
import { webhookSender, WebhookDispatcher } from '../../../src/server/webhook-sender.js';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A receiver on loopback answering the given statuses in turn (the last one repeats). */
async function receiver(statuses: number[]): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      const status = statuses[Math.min(received.length - 1, statuses.length - 1)]!;
      if (status === 302) response.setHeader('location', 'http://127.0.0.1:9/elsewhere');
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received, server };
}

/** Standard Webhooks verification written from the spec, independently of the signer under test. */
function verify(secret: string, headers: IncomingMessage['headers'], body: string): boolean {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key)
    .update(`${String(headers['webhook-id'])}.${String(headers['webhook-timestamp'])}.${body}`)
    .digest();
  return String(headers['webhook-signature'])
    .split(' ')
    .some((entry) => {
      const [version, signature] = entry.split(',');
      const given = Buffer.from(signature ?? '', 'base64');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
}

const job = (state: JobRecord['state']): JobRecord =>
  ({
    job_id: 'job_01jabcdefghjkmnpqrstvwxyz0',
    state,
    stage: null,
    progress: 1,
    links: { self: '/api/v1/jobs/job_01jabcdefghjkmnpqrstvwxyz0', video: null, cancel: null },
  }) as JobRecord;

let dataDir: string;
let store: ServerStore;
let records: RecordStore;
let servers: Server[] = [];
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'immoreel-webhooks-'));
  store = openServerStore(dataDir);
  records = openSqliteRecordStore(dataDir);
});
afterEach(async () => {
  await records.close();
  for (const server of servers) server.close();
  servers = [];
  store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function dispatcher(allowLoopback: boolean): WebhookDispatcher {
  return new WebhookDispatcher({
    store: records.webhooks,
    secretFor: (tenant) => records.keys.webhookSecret(tenant),
    send: webhookSender(guardedFetch({ allowLoopback })),
    backoffMs: [0, 10, 20],
  });
}

async function settle(d: WebhookDispatcher, jobId: string): Promise<void> {
  for (let i = 0; i < 100; i += 1) {
    await d.tick();
    const state = store.webhooks.get(jobId)?.state;
    if (state !== 'pending' && state !== 'waiting') return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('webhooks', () => {
  it('POSTs the job signed with the tenant secret, retrying with backoff until a 2xx', async () => {
    const { webhookSecret } = store.keys.create({ tenant: 'acme' });
    const target = await receiver([500, 503, 204]);
    servers.push(target.server);
    const d = dispatcher(true);
    store.webhooks.register(job('queued').job_id, 'acme', target.url);
    await d.onTerminal(job('succeeded'));
    await settle(d, job('queued').job_id);

    expect(target.received).toHaveLength(3);
    const ids = new Set(target.received.map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(1);
    for (const delivery of target.received) {
      expect(verify(webhookSecret, delivery.headers, delivery.body)).toBe(true);
      expect(verify(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, delivery.headers, delivery.body)).toBe(false);
      expect(Math.abs(Number(delivery.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    }
    const payload = JSON.parse(target.received[2]!.body) as { type: string; data: JobRecord };
    expect(payload.type).toBe('job.succeeded');
    expect(payload.data.job_id).toBe(job('queued').job_id);
    expect(store.webhooks.get(job('queued').job_id)).toMatchObject({ state: 'delivered', attempts: 3, last_status: 204 });
  });

  it('gives up after the last backoff step, stops on 410, and treats redirects as failures', async () => {
    store.keys.create({ tenant: 'acme' });
    const failing = await receiver([500]);
    const gone = await receiver([410]);
    const moved = await receiver([302]);
    servers.push(failing.server, gone.server, moved.server);
    const d = dispatcher(true);
    const ids = ['job_01jaaaaaaaaaaaaaaaaaaaaaa1', 'job_01jaaaaaaaaaaaaaaaaaaaaaa2', 'job_01jaaaaaaaaaaaaaaaaaaaaaa3'];
    [failing, gone, moved].forEach((target, i) => store.webhooks.register(ids[i]!, 'acme', target.url));
    for (const id of ids) await d.onTerminal({ ...job('failed'), job_id: id });
    for (const id of ids) await settle(d, id);
    expect(failing.received).toHaveLength(3);
    expect(store.webhooks.get(ids[0]!)!.state).toBe('failed');
    expect(gone.received).toHaveLength(1);
    expect(store.webhooks.get(ids[1]!)!.state).toBe('disabled');
    expect(moved.received).toHaveLength(3);
    expect(store.webhooks.get(ids[2]!)!.state).toBe('failed');
  });

  it('never calls a private or loopback address unless loopback is explicitly allowed', async () => {
    store.keys.create({ tenant: 'acme' });
    const target = await receiver([204]);
    servers.push(target.server);
    const d = dispatcher(false);
    store.webhooks.register(job('queued').job_id, 'acme', target.url.replace('127.0.0.1', 'localhost'));
    await d.onTerminal(job('succeeded'));
    await settle(d, job('queued').job_id);
    expect(target.received).toHaveLength(0);
    const row = store.webhooks.get(job('queued').job_id)!;
    expect(row.state).toBe('failed');
    expect(row.last_error).toMatch(/loopback/);
  });

  it('does nothing for jobs that asked for no webhook', async () => {
    const d = dispatcher(true);
    await d.onTerminal(job('succeeded'));
    expect(store.webhooks.get(job('succeeded').job_id)).toBeNull();
  });
});

describe('job-end duties', () => {
  it('deliver the webhook of a job that ended while no process ran them; its refund came with its end, once', async () => {
    const { webhookSecret, record: key } = await records.keys.create({ tenant: 'acme', monthlyQuota: 5 });
    const target = await receiver([204]);
    servers.push(target.server);
    // A job that failed on its input while no API node ran (a worker died before its duties).
    const row = await records.jobs.insert({
      jobId: 'job_01jabcdefghjkmnpqrstvwxyz9',
      tenant: 'acme',
      request: validateRenderRequest({ description: 'Villa 300 m² à Marrakech', photos: ['https://cdn.example.com/a.jpg'] }, 'server'),
      inputHash: 'h'.repeat(64),
      allowLocalFiles: false,
      linkBase: '/api/v1',
      charge: { keyId: key.key_id, period: new Date().toISOString().slice(0, 7), route: 'render_video', units: 1, limit: 5 },
      webhookUrl: target.url,
    });
    expect(store.usage.used(key.key_id)).toBe(1);
    await records.jobs.transition(row.job_id, 'running', { started_at: new Date().toISOString() });
    const failed = (await records.jobs.transition(row.job_id, 'failed', {
      error_code: 'BAD_REQUEST',
      error_message: 'No photo could be used.',
      finished_at: new Date().toISOString(),
    }))!;
    expect(failed.refunded_at).not.toBeNull();
    expect(store.usage.used(key.key_id)).toBe(0);

    const duties = startJobEndDuties({ records, fetch: guardedFetch({ allowLoopback: true }), pollMs: 20 });
    try {
      for (let i = 0; i < 100 && store.webhooks.get(row.job_id)?.state !== 'delivered'; i += 1)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(target.received).toHaveLength(1);
      expect(verify(webhookSecret, target.received[0]!.headers, target.received[0]!.body)).toBe(true);
      expect(JSON.parse(target.received[0]!.body)).toMatchObject({ type: 'job.failed', data: { job_id: row.job_id } });
      // The unit is given back once, however many processes report the same end.
      expect(store.usage.used(key.key_id)).toBe(0);
      await duties.onTerminal(records.jobs.toRecord(failed), 'acme');
      expect(store.usage.used(key.key_id)).toBe(0);
      expect(target.received).toHaveLength(1);
    } finally {
      await duties.stop();
    }
  });
});

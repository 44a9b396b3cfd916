import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../src/core/types.js';
import { openSqliteRecordStore, type RecordStore } from '../../../src/records/index.js';
import { openServerStore, type ServerStore } from '../../../src/records/sqlite/server-records.js';
import { guardedFetch } from '../../../src/net/fetch.js';
import { webhookSender, WebhookDispatcher } from '../../../src/server/webhook-sender.js';

/** A slow or refused receiver affects its own deliveries only (docs/security.md). */

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
  for (const server of servers) server.closeAllConnections();
  for (const server of servers) server.close();
  servers = [];
  store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const job = (id: string): JobRecord =>
  ({
    job_id: id,
    state: 'succeeded',
    stage: null,
    progress: 1,
    links: { self: `/api/v1/jobs/${id}`, video: null, cancel: null },
  }) as JobRecord;

/** A receiver that answers 204 after `delayMs`, logging when each request arrived and was answered. */
async function receiver(name: string, delayMs: number, log: string[]): Promise<string> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      log.push(`${name} received`);
      setTimeout(() => {
        log.push(`${name} answered`);
        response.writeHead(204).end();
      }, delayMs);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
}

describe('webhook deliveries', () => {
  it("run concurrently: one tenant's slow receiver does not delay another tenant's delivery", async () => {
    store.keys.create({ tenant: 'slow' });
    store.keys.create({ tenant: 'fast' });
    const log: string[] = [];
    const slowUrl = await receiver('slow', 1500, log);
    const fastUrl = await receiver('fast', 0, log);
    const d = new WebhookDispatcher({
      store: records.webhooks,
      secretFor: (t) => records.keys.webhookSecret(t),
      send: webhookSender(guardedFetch({ allowLoopback: true })),
    });
    store.webhooks.register('job_01jslowaaaaaaaaaaaaaaaaaa1', 'slow', slowUrl);
    store.webhooks.register('job_01jfastaaaaaaaaaaaaaaaaaa1', 'fast', fastUrl);
    await d.onTerminal(job('job_01jslowaaaaaaaaaaaaaaaaaa1'));
    await d.onTerminal(job('job_01jfastaaaaaaaaaaaaaaaaaa1'));
    await d.tick();
    expect(store.webhooks.get('job_01jfastaaaaaaaaaaaaaaaaaa1')!.state).toBe('delivered');
    expect(store.webhooks.get('job_01jslowaaaaaaaaaaaaaaaaaa1')!.state).toBe('delivered');
    expect(log.indexOf('fast answered')).toBeLessThan(log.indexOf('slow answered'));
    await d.stop();
  });

  it('fails at once, with the reason, a delivery the address guard refuses', async () => {
    store.keys.create({ tenant: 'acme' });
    const d = new WebhookDispatcher({
      store: records.webhooks,
      secretFor: (t) => records.keys.webhookSecret(t),
      send: webhookSender(guardedFetch({ allowLoopback: false })),
    });
    store.webhooks.register('job_01jguardaaaaaaaaaaaaaaaaa1', 'acme', 'http://127.0.0.1:9/hooks');
    await d.onTerminal(job('job_01jguardaaaaaaaaaaaaaaaaa1'));
    await d.tick();
    const row = store.webhooks.get('job_01jguardaaaaaaaaaaaaaaaaa1')!;
    expect(row).toMatchObject({ state: 'failed', attempts: 1, next_attempt_at: null });
    expect(row.last_error).toMatch(/loopback/);
  });
});

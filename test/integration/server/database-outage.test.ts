import { fakeEngine } from '../../helpers/fake-engine.js';
import { TEST_FFMPEG } from '../../helpers/config.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../../src/server/start.js';
import { startPostgres, type PostgresServer } from '../../helpers/services.js';

/**
 * An API node while its PostgreSQL restarts (docs/operations.md "Outages"): requests that need the
 * database get 503 with Retry-After and no endpoint in the message, never a 500; liveness stays
 * 200, readiness says which dependency fails; once the database is back, everything answers again
 * without restarting the node.
 */

let postgres: PostgresServer;
let server: RunningServer;
let root: string;
let apiKey: string;

beforeAll(async () => {
  postgres = await startPostgres();
  root = mkdtempSync(join(tmpdir(), 'immoreel-outage-'));
  server = await startServer({
    dataDir: join(root, 'node'),
    databaseUrl: await postgres.createDatabase(),
    // A directory this one node sees: the outage under test is the database's.
    storageUrl: `file://${join(root, 'blobs')}`,
    host: '127.0.0.1',
    port: 0,
    engine: fakeEngine(),
    ffmpeg: TEST_FFMPEG,
    log: false,
  });
  apiKey = (await server.records.keys.create({ tenant: 'acme' })).apiKey;
}, 120_000);

afterAll(async () => {
  await server?.close();
  await postgres?.stop();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

const get = (path: string): Promise<Response> => fetch(`${server.url}${path}`, { headers: { Authorization: `Bearer ${apiKey}` } });

describe('PostgreSQL restarting under an API node', () => {
  it('answers 503 with Retry-After while it is down, and carries on when it is back', async () => {
    expect((await get('/api/v1/jobs')).status).toBe(200);
    expect((await get('/api/v1/ready')).status).toBe(200);

    await postgres.halt();
    try {
      const jobs = await get('/api/v1/jobs');
      expect(jobs.status).toBe(503);
      expect(Number(jobs.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const body = (await jobs.json()) as { error: { code: string; reason: string; message: string } };
      expect(body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', reason: 'database_unavailable' });
      // Nothing of the deployment reaches the client: no port, host, URL or variable name.
      expect(body.error.message).not.toMatch(new RegExp(`${postgres.port}|127\\.0\\.0\\.1|postgres://|IMMOREEL_`));

      expect((await get('/api/v1/health')).status).toBe(200);
      const ready = await get('/api/v1/ready');
      expect(ready.status).toBe(503);
      const readiness = (await ready.json()) as { error: { reason: string; checks: Record<string, string>; details: { field: string }[] } };
      expect(readiness.error.reason).toBe('not_ready');
      expect(readiness.error.checks).toMatchObject({ database: 'failing', storage: 'ok' });
      expect(readiness.error.details.map((detail) => detail.field)).toContain('database');
    } finally {
      await postgres.resume();
    }

    // The pool reconnects by itself: no restart of the node.
    let status = 0;
    for (let i = 0; i < 40 && status !== 200; i += 1) {
      status = (await get('/api/v1/jobs')).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(status).toBe(200);
    expect((await get('/api/v1/ready')).status).toBe(200);
  });

  it('stopped fast with idempotent submissions in flight: no crash, one job and one unit per key', async () => {
    const key = await server.records.keys.create({ tenant: 'books', monthlyQuota: 1000 });
    const keys = Array.from({ length: 16 }, (_, i) => `books-${i}`);
    const outcomes = new Map<string, string>();
    // Each key is retried as the CLI does, with the same key and body, until it has its job.
    const submit = async (idempotencyKey: string): Promise<void> => {
      for (let attempt = 0; attempt < 200; attempt += 1) {
        const answer = await fetch(`${server.url}/api/v1/render-video`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key.apiKey}`, 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
          body: JSON.stringify({ description: `Villa ${idempotencyKey} à Marrakech`, photos: ['https://cdn.example.com/a.jpg'] }),
        }).catch(() => null);
        if (answer !== null && answer.status === 202) {
          outcomes.set(idempotencyKey, ((await answer.json()) as { job: { job_id: string } }).job.job_id);
          return;
        }
        // Only an outage's 503 is expected; anything else (a 500) fails the test.
        if (answer !== null) expect(answer.status).toBe(503);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const submitting = Promise.all(keys.map((k, i) => new Promise((r) => setTimeout(r, i * 15)).then(() => submit(k))));
    await new Promise((resolve) => setTimeout(resolve, 60));
    await postgres.halt();
    await new Promise((resolve) => setTimeout(resolve, 500));
    await postgres.resume();
    await submitting;
    expect(outcomes.size).toBe(keys.length);
    const jobs = await server.records.jobs.list('books', { limit: 100 });
    expect(jobs.jobs.map((job) => job.job_id).sort()).toEqual([...outcomes.values()].sort());
    const units = (await Promise.all(jobs.jobs.map(async (job) => (await server.records.jobs.row(job.job_id))!.units))).reduce(
      (a, b) => a + b,
      0,
    );
    expect(await server.records.usage.used(key.record.key_id)).toBe(units);
    expect((await server.records.usage.reconcile(null)).filter((row) => row.difference !== 0)).toEqual([]);
  }, 60_000);
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBlobStore } from '../../../src/blobs/index.js';
import { AppError } from '../../../src/core/errors.js';
import { rideOut } from '../../../src/jobs/ride-out.js';
import { openSqliteRecordStore } from '../../../src/records/index.js';
import type { RecordStore } from '../../../src/records/types.js';
import { MetricsEndpoint } from '../../../src/server/metrics-endpoint.js';
import { PrometheusMetrics } from '../../../src/server/prometheus.js';
import { promtoolProblems, sample } from '../../helpers/prometheus-text.js';

/**
 * The metrics port of docs/operations.md "Metrics" on the embedded default's real stores: what a
 * scraper and a worker's probes see. The counters fed by renders and refusals are checked on a real
 * `serve` and `worker` (test/e2e/server.slow.test.ts, test/e2e/postgres-render.slow.test.ts).
 */

let dir: string;
let records: RecordStore;
let blobs: LocalBlobStore;
let endpoint: MetricsEndpoint;
let url: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'immoreel-metrics-'));
  records = openSqliteRecordStore(dir);
  blobs = new LocalBlobStore(dir);
  endpoint = new MetricsEndpoint({ host: '127.0.0.1', port: 0 });
  url = await endpoint.listen({ records, blobs });
});

afterAll(async () => {
  await endpoint.close();
  await records.close().catch(() => undefined);
  await blobs.close();
  rmSync(dir, { recursive: true, force: true });
});

async function get(path: string): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const answer = await request(`${url}${path}`);
  return { status: answer.statusCode, headers: answer.headers, text: await answer.body.text() };
}

describe('the metrics port', () => {
  it('answers only requests addressed to a name it listens at (DNS rebinding)', async () => {
    const rebound = await request(`${url}/metrics`, { headers: { host: 'attacker.example:9464' } });
    expect(rebound.statusCode).toBe(403);
    expect(JSON.parse(await rebound.body.text())).toMatchObject({ error: { reason: 'unknown_host' } });
    const local = await request(`${url}/metrics`, { headers: { host: 'localhost' } });
    await local.body.text();
    expect(local.statusCode).toBe(200);
  });

  it('serves /metrics that promtool accepts, with the record gauges read at the scrape', async () => {
    await records.webhooks.register('job_a', 'acme', 'https://hooks.example.com/a');
    await records.webhooks.enqueue('job_a', '{}');
    const scraped = await get('/metrics');
    expect(scraped.status).toBe(200);
    expect(String(scraped.headers['content-type'])).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(promtoolProblems(scraped.text)).toBe('');
    expect(sample(scraped.text, 'immoreel_outbox_backlog')).toBe(1);
    expect(sample(scraped.text, 'immoreel_jobs', 'state="queued"')).toBe(0);
    expect(sample(scraped.text, 'immoreel_queue_depth')).toBe(0);
    expect(sample(scraped.text, 'immoreel_renders_in_flight')).toBe(0);
    expect(sample(scraped.text, 'immoreel_ready')).toBe(1);
    expect(sample(scraped.text, 'immoreel_refusals_total', 'reason="quota"')).toBe(0);
    expect(sample(scraped.text, 'immoreel_render_duration_seconds_count')).toBe(0);
    expect(sample(scraped.text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it("answers a worker's liveness and readiness with the API's bodies", async () => {
    const health = await get('/api/v1/health');
    expect(health.status).toBe(200);
    expect(JSON.parse(health.text)).toMatchObject({ ok: true, status: 'success', service: 'immoreel', uptime_s: expect.any(Number) });
    const ready = await get('/api/v1/ready');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.text)).toEqual({ ok: true, status: 'success', checks: { database: 'ok', storage: 'ok', queue: 'ok' } });
    const unknown = await get('/api/v1/jobs');
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text)).toMatchObject({ ok: false, error: { code: 'NOT_FOUND', reason: 'unknown_route' } });
  });

  it('counts retries and outages where rideOut waits one out', async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    let tries = 0;
    const value = await rideOut(
      'uploading a video',
      async () => {
        tries += 1;
        if (tries < 3) throw new AppError('SERVICE_UNAVAILABLE', 'storage down', { reason: 'storage_unavailable' });
        return 'done';
      },
      { metrics, operation: 'upload', firstDelayMs: 1, maxDelayMs: 2 },
    );
    expect(value).toBe('done');
    const { text } = await metrics.scrape();
    expect(sample(text, 'immoreel_retries_total', 'operation="upload"')).toBe(2);
    expect(sample(text, 'immoreel_outages_total', 'service="storage"')).toBe(1);
    expect(sample(text, 'immoreel_outages_total', 'service="database"')).toBe(0);
  });

  it('does not hang a scrape on a database that does not answer: the last values stay, ready is 0', async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    const hung = new Promise<never>(() => undefined);
    let down = false;
    const slow =
      <T>(work: () => Promise<T>) =>
      (): Promise<T> =>
        down ? hung : work();
    metrics.readFrom({
      records: {
        jobs: { ...records.jobs, count: (tenant, states) => (down ? hung : records.jobs.count(tenant, states)) },
        webhooks: { ...records.webhooks, backlog: slow(() => records.webhooks.backlog()) },
        ping: slow(() => records.ping()),
        pingQueue: slow(() => records.pingQueue()),
      },
      blobs,
      collectTimeoutMs: 200,
    });
    expect(sample((await metrics.scrape()).text, 'immoreel_outbox_backlog')).toBe(1);
    down = true;
    const started = Date.now();
    const { text } = await metrics.scrape();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(sample(text, 'immoreel_outbox_backlog')).toBe(1);
    expect(sample(text, 'immoreel_ready')).toBe(0);
  });

  it('answers 503 naming the dependency when the database is gone, with no path or secret', async () => {
    await records.close();
    const ready = await get('/api/v1/ready');
    expect(ready.status).toBe(503);
    expect(ready.headers['retry-after']).toBeDefined();
    const body = JSON.parse(ready.text) as { error: { code: string; reason: string; details: { field: string }[]; checks: unknown } };
    expect(body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', reason: 'not_ready', checks: { database: 'failing' } });
    expect(body.error.details.map((d) => d.field)).toContain('database');
    expect(ready.text).not.toContain(dir);
    // The scrape still answers: a down database is what the metrics must show, not hide.
    const scraped = await get('/metrics');
    expect(scraped.status).toBe(200);
    expect(sample(scraped.text, 'immoreel_ready')).toBe(0);
  });
});

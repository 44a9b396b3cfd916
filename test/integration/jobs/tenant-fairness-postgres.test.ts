import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBlobStore } from '../../../src/blobs/index.js';
import { defaultEngine, type RenderEngine } from '../../../src/jobs/engine.js';
import { JobManager } from '../../../src/jobs/manager.js';
import { guardedFetch } from '../../../src/net/fetch.js';
import { openRecordStore } from '../../../src/records/index.js';
import { TEST_FFMPEG } from '../../helpers/config.js';
import { fakeProperty, fakeRequest } from '../../helpers/fake-engine.js';
import { makePhotos } from '../../helpers/job-photos.js';
import { startPostgres, type PostgresServer } from '../../helpers/services.js';
import { startPhotoHosts, type PhotoHosts } from '../../helpers/slow-photo-host.js';

/*
 * The outside tester's finding with two workers on PostgreSQL (docs/scaling.md "Fairness"): tenant
 * A's 8 renders wait on a host that sends one byte per second; tenant B's job, submitted after
 * them, must start rendering within 10 s on one of the workers. Real PostgreSQL and pg-boss, real
 * engine; the test stops once B's render has begun.
 */

let postgres: PostgresServer;
let hosts: PhotoHosts;
const cleanup: (() => Promise<void>)[] = [];

beforeAll(async () => {
  postgres = await startPostgres();
  const [photo] = await makePhotos(mkdtempSync(join(tmpdir(), 'immoreel-fairpg-photos-')), 1, 800, 600);
  hosts = await startPhotoHosts(photo!);
}, 60_000);

afterAll(async () => {
  for (const close of cleanup.splice(0).reverse()) await close().catch(() => undefined);
  await hosts?.close();
  await postgres?.stop();
}, 60_000);

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One worker "machine": its own scratch directory and connections, one render slot, the real engine. */
async function worker(engine: RenderEngine): Promise<JobManager> {
  const dataDir = mkdtempSync(join(tmpdir(), 'immoreel-fairpg-'));
  const records = await openRecordStore({ databaseUrl: postgres.url, dataDir });
  const blobs = openBlobStore({ dataDir });
  const manager = await JobManager.open({
    ffmpeg: TEST_FFMPEG,
    dataDir,
    records,
    blobs,
    concurrency: 1,
    pollMs: 50,
    engine,
    guardedFetch: guardedFetch({ allowLoopback: true }),
  });
  cleanup.push(async () => {
    await manager.close();
    await records.close();
    await blobs.close();
  });
  return manager;
}

describe('render slots across two workers on PostgreSQL, with a tenant whose photo host trickles', () => {
  it("starts tenant B's render within 10 s while tenant A's 8 renders wait on their photos", async () => {
    const begun = new Map<string, number>();
    const engine: RenderEngine = (request, ctx) => {
      begun.set(ctx.workDir.split('/').pop()!, Date.now());
      return defaultEngine(request, ctx);
    };
    const first = await worker(engine);
    await worker(engine);
    const slowJobs: string[] = [];
    for (let i = 0; i < 8; i += 1) {
      const request = fakeRequest({ listing: fakeProperty(), photos: [hosts.slowUrl(`a${i}-1.jpg`), hosts.slowUrl(`a${i}-2.jpg`)] });
      slowJobs.push((await first.submit(request, { tenant: 'tenant-a' })).job_id);
    }
    // Both workers have taken A's jobs and are waiting on the slow host before B submits.
    await until('both workers fetch from the slow host', () => hosts.slowHits() >= 4, 20_000);
    const submittedAt = Date.now();
    const b = await first.submit(fakeRequest({ listing: fakeProperty('B'), photos: [hosts.fastUrl('b.jpg')], duration_s: 10 }), {
      tenant: 'tenant-b',
    });
    await until("tenant B's render begins", () => begun.has(b.job_id), 10_000);
    expect(begun.get(b.job_id)! - submittedAt).toBeLessThan(10_000);
    for (const id of slowJobs) {
      expect(begun.has(id)).toBe(false);
      const { job } = (await first.get(id))!;
      expect(['queued', 'running']).toContain(job.state);
      if (job.state === 'running') expect(job.stage).toBe('fetching_assets');
    }
    for (const id of [...slowJobs, b.job_id]) await first.cancel(id);
  }, 90_000);
});

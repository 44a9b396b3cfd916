import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultEngine, type RenderEngine } from '../../../src/jobs/engine.js';
import type { JobManager } from '../../../src/jobs/manager.js';
import { guardedFetch } from '../../../src/net/fetch.js';
import { TEST_FFMPEG } from '../../helpers/config.js';
import { fakeProperty, fakeRequest } from '../../helpers/fake-engine.js';
import { openJobManager } from '../../helpers/job-manager.js';
import { makePhotos } from '../../helpers/job-photos.js';
import { startPhotoHosts, type PhotoHosts } from '../../helpers/slow-photo-host.js';

/*
 * The outside tester's finding, on one node (docs/security.md "Tenants and fairness"): tenant A
 * queues 8 renders whose photos come from a host that sends one byte per second; tenant B's job
 * must still start at once. Real SQLite job store, real engine, real photo hosts on loopback.
 */

let hosts: PhotoHosts;
const opened: JobManager[] = [];
beforeAll(async () => {
  const [photo] = await makePhotos(mkdtempSync(join(tmpdir(), 'immoreel-fair-photos-')), 1, 800, 600);
  hosts = await startPhotoHosts(photo!);
});
afterAll(async () => {
  for (const manager of opened) await manager.close();
  await hosts?.close();
});

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('render slots on one node, with a tenant whose photo host trickles', () => {
  it("starts tenant B's render within 10 s while tenant A's 8 renders wait on their photos, holding no render slot", async () => {
    const begun = new Map<string, number>();
    // The real engine; the map notes when each job's render began (it runs only inside a render slot).
    const engine: RenderEngine = (request, ctx) => {
      begun.set(ctx.workDir.split('/').pop()!, Date.now());
      return defaultEngine(request, ctx);
    };
    const manager = await openJobManager({
      ffmpeg: TEST_FFMPEG,
      dataDir: mkdtempSync(join(tmpdir(), 'immoreel-fair-')),
      concurrency: 2,
      pollMs: 50,
      engine,
      guardedFetch: guardedFetch({ allowLoopback: true }),
    });
    opened.push(manager);
    const slowJobs = [];
    for (let i = 0; i < 8; i += 1) {
      const request = fakeRequest({ listing: fakeProperty(), photos: [hosts.slowUrl(`a${i}-1.jpg`), hosts.slowUrl(`a${i}-2.jpg`)] });
      slowJobs.push((await manager.submit(request, { tenant: 'tenant-a' })).job_id);
    }
    // A's first jobs are fetching before B submits: the slot-holding case the tester found.
    await until('the slow host receives requests', async () => hosts.slowHits() > 0, 10_000);
    const submittedAt = Date.now();
    const b = await manager.submit(fakeRequest({ listing: fakeProperty('B'), photos: [hosts.fastUrl('b.jpg')], duration_s: 10 }), {
      tenant: 'tenant-b',
    });
    await until("tenant B's render begins", async () => begun.has(b.job_id), 10_000);
    expect(begun.get(b.job_id)! - submittedAt).toBeLessThan(10_000);
    // None of A's renders began: they are fetching (running, stage fetching_assets) or still queued.
    for (const id of slowJobs) {
      expect(begun.has(id)).toBe(false);
      const { job } = (await manager.get(id))!;
      expect(['queued', 'running']).toContain(job.state);
      if (job.state === 'running') expect(job.stage).toBe('fetching_assets');
    }
    for (const id of [...slowJobs, b.job_id]) await manager.cancel(id);
  }, 60_000);

  it('fails a job whose photos outlast its fetch budget, naming the budget and the slow host', async () => {
    const manager = await openJobManager({
      ffmpeg: TEST_FFMPEG,
      dataDir: mkdtempSync(join(tmpdir(), 'immoreel-fair-')),
      concurrency: 1,
      pollMs: 50,
      fetchBudgetMs: 2_000,
      guardedFetch: guardedFetch({ allowLoopback: true }),
    });
    opened.push(manager);
    const url = hosts.slowUrl('budget.jpg');
    const job = await manager.submit(fakeRequest({ listing: fakeProperty(), photos: [url, hosts.fastUrl('ok.jpg')] }), {
      tenant: 'tenant-a',
    });
    await manager.whenIdle();
    const { job: ended } = (await manager.get(job.job_id))!;
    expect(ended.state).toBe('failed');
    expect(ended.error?.code).toBe('UPSTREAM_ERROR');
    expect(ended.error?.reason).toBe('fetch_budget_exceeded');
    expect(ended.error?.message).toContain('2 s budget');
    expect(ended.error?.message).toContain(new URL(url).host);
    expect(ended.error?.message).toContain('IMMOREEL_FETCH_BUDGET_SECONDS');
  }, 30_000);
});

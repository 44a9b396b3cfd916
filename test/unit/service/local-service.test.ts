import { openJobManager } from '../../helpers/job-manager.js';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalService } from '../../../src/service/local-service.js';
import type { JobRecord } from '../../../src/core/types.js';
import { fakeEngine, fakeRequest } from '../../helpers/fake-engine.js';
import { TEST_FFMPEG } from '../../helpers/config.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
});

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'immoreel-jobs-'));
}

describe('LocalService on the job manager', () => {
  it('renders a submitted job when waited for, reports progress, and downloads the verified bytes', async () => {
    const dataDir = tempDir();
    const service = new LocalService({ ffmpeg: TEST_FFMPEG, dataDir, engine: fakeEngine({ ms: 200 }), pollMs: 20 });
    open.push(service);
    const queued = await (await service.jobs()).submit(fakeRequest(), { tenant: 'local' });
    expect(queued.state).toBe('queued');
    expect(queued.job_id).toMatch(/^job_[0-9a-z]{26}$/);
    const updates: JobRecord[] = [];
    const done = await service.waitForJob(queued.job_id, { onUpdate: (job) => updates.push(job) });
    expect(done.state).toBe('succeeded');
    expect(done.attempts).toBe(1);
    expect(done.result?.width).toBe(1280);
    expect(done.listing?.city).toBe('Casablanca');
    expect(updates.some((u) => u.state === 'running')).toBe(true);
    expect(updates.at(-1)?.state).toBe('succeeded');
    const out = join(dataDir, 'copy.mp4');
    const bytes = await service.downloadVideo(queued.job_id, out);
    expect(bytes).toBe(readFileSync(out).length);
    const list = await service.listJobs();
    expect(list.jobs.map((j) => j.job_id)).toEqual([queued.job_id]);
  });

  it('rejects malformed ids before touching storage and unknown ids as NOT_FOUND', async () => {
    const service = new LocalService({ ffmpeg: TEST_FFMPEG, dataDir: tempDir(), engine: fakeEngine() });
    open.push(service);
    await expect(service.getJob('../../etc/passwd')).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(service.getJob('job_00000000000000000000000000')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it("does not show another tenant's job", async () => {
    const dataDir = tempDir();
    const manager = await openJobManager({ ffmpeg: TEST_FFMPEG, dataDir, engine: fakeEngine(), runWorkers: false });
    open.push(manager);
    const foreign = await manager.submit(fakeRequest(), { tenant: 'acme' });
    const service = new LocalService({ ffmpeg: TEST_FFMPEG, dataDir, engine: fakeEngine() });
    open.push(service);
    await expect(service.getJob(foreign.job_id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await service.listJobs()).jobs).toEqual([]);
  });
});

import { openJobManager } from '../../helpers/job-manager.js';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../src/core/types.js';
import { type JobManagerOptions } from '../../../src/jobs/manager.js';
import { guardedFetch } from '../../../src/net/fetch.js';
import { fakeProperty, fakeRequest } from '../../helpers/fake-engine.js';
import { TEST_FFMPEG } from '../../helpers/config.js';

/*
 * The job layer, not the renderer, decides how a job may reach the network (docs/architecture.md,
 * "The fetch port"): a job submitted through the API gets the guarded port, a local one the open
 * port. Real engine and a real photo server on loopback; every job here stops at its photo (the
 * server answers bytes that are not an image), before ffmpeg, so what matters is whether the
 * request reached the server at all.
 */

let server: Server;
let photoUrl: string;
let hits = 0;

beforeAll(async () => {
  server = createServer((_req, res) => {
    hits += 1;
    res.writeHead(200, { 'content-type': 'image/jpeg' }).end(Buffer.alloc(64, 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  photoUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/photo.jpg`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function runOneJob(options: Partial<JobManagerOptions>): Promise<{ job: JobRecord; hits: number }> {
  const before = hits;
  const manager = await openJobManager({
    ffmpeg: TEST_FFMPEG,
    dataDir: mkdtempSync(join(tmpdir(), 'immoreel-port-')),
    pollMs: 20,
    ...options,
  });
  try {
    const submitted = await manager.submit(fakeRequest({ listing: fakeProperty(), photos: [photoUrl] }), { tenant: 't' });
    await manager.whenIdle();
    return { job: (await manager.get(submitted.job_id))!.job, hits: hits - before };
  } finally {
    await manager.close();
  }
}

describe('the fetch port of a job', () => {
  it('refuses loopback for a job submitted through the API (no local files), by default', async () => {
    const { job, hits: reached } = await runOneJob({ allowLocalFiles: false });
    expect(job.state).toBe('failed');
    expect(job.error?.message).toMatch(/loopback/);
    expect(reached).toBe(0);
  });

  it('uses the port the server passes: a guarded port open to loopback reaches the fixture server', async () => {
    const { job, hits: reached } = await runOneJob({ allowLocalFiles: false, guardedFetch: guardedFetch({ allowLoopback: true }) });
    expect(reached).toBe(1);
    expect(job.state).toBe('failed');
    expect(job.error?.message).not.toMatch(/loopback/);
  });

  it('gives a local-mode job the open port: it may fetch from this machine', async () => {
    const { job, hits: reached } = await runOneJob({ allowLocalFiles: true });
    expect(reached).toBe(1);
    expect(job.error?.message).not.toMatch(/loopback/);
  });
});

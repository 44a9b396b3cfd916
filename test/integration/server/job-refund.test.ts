import { afterEach, describe, expect, it } from 'vitest';
import { badRequest } from '../../../src/core/errors.js';
import type { RenderEngine } from '../../../src/jobs/engine.js';
import { startSecureServer, type SecureServer } from '../../helpers/secure-server.js';

/** A render job that fails on the caller's input is not charged (docs/security.md). */

let running: SecureServer | null = null;
afterEach(async () => {
  await running?.close();
  running = null;
});

const failsOnInput: RenderEngine = async () => {
  throw badRequest('None of the 2 photos could be used: photo 1: it is not an image; photo 2: it is not an image.', {
    reason: 'no_usable_photo',
  });
};

async function finished(server: SecureServer, jobId: string): Promise<{ state: string; error?: { code: string } }> {
  for (let i = 0; i < 200; i += 1) {
    const answer = await fetch(`${server.url}/api/v1/jobs/${jobId}`, { headers: server.auth });
    const { job } = (await answer.json()) as { job: { state: string; error?: { code: string } } };
    if (job.state !== 'queued' && job.state !== 'running') return job;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the job did not finish');
}

describe('quota for render jobs', () => {
  it('gives the unit back when the job fails on the caller\u2019s input', async () => {
    running = await startSecureServer({ engine: failsOnInput });
    const created = await running.post('/api/v1/render-video', {
      description: 'Villa 300 m² à Marrakech',
      photos: ['https://cdn.example.com/a.jpg'],
    });
    expect(created.status).toBe(202);
    expect(await running.server.records.usage.used(running.keyId)).toBe(1);
    const job = await finished(running, (created.json as { job: { job_id: string } }).job.job_id);
    expect(job).toMatchObject({ state: 'failed', error: { code: 'BAD_REQUEST' } });
    // The refund was written by the transaction that failed the job: nothing to wait for.
    expect(await running.server.records.usage.used(running.keyId)).toBe(0);
    expect(await running.server.records.usage.reconcile(null)).toEqual([
      expect.objectContaining({ key_id: running.keyId, used: 0, charged: 0, difference: 0 }),
    ]);
  }, 30_000);
});

import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openSqliteRecordStore } from '../../../src/records/sqlite/index.js';
import { fakeEngine } from '../../helpers/fake-engine.js';
import { startSecureServer } from '../../helpers/secure-server.js';

/** SIGTERM on `serve` (docs/operations.md "Stopping a node"): while renders drain, requests are answered 503, not refused. */

describe('a serve node that is stopping', () => {
  it('answers 503 with Retry-After while its renders drain, then closes its listener', async () => {
    const running = await startSecureServer({ engine: fakeEngine({ ms: 1_500 }) });
    let closed: Promise<void> | null = null;
    try {
      const created = await running.post('/api/v1/render-video', {
        description: 'Villa 300 m² à Marrakech',
        photos: ['https://cdn.example.com/a.jpg'],
      });
      expect(created.status).toBe(202);
      const jobId = (created.json as unknown as { job: { job_id: string } }).job.job_id;
      for (let i = 0; i < 100; i += 1) {
        const { job } = (await (await fetch(`${running.url}/api/v1/jobs/${jobId}`, { headers: running.auth })).json()) as {
          job: { state: string };
        };
        if (job.state === 'running') break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      closed = running.server.close({ drainMs: 10_000 });
      await new Promise((resolve) => setTimeout(resolve, 50));
      // A new connection during the drain: an answer, not ECONNREFUSED.
      const during = await fetch(`${running.url}/api/v1/jobs`, { headers: { ...running.auth, connection: 'close' } });
      expect(during.status).toBe(503);
      expect(during.headers.get('retry-after')).toBe('5');
      expect(((await during.json()) as { error: { reason: string } }).error.reason).toBe('shutting_down');
      await closed;
      // The render drained to its end; the listener is closed only then.
      const records = openSqliteRecordStore(running.dataDir);
      expect((await records.jobs.row(jobId))?.state).toBe('succeeded');
      await records.close();
      expect(await fetch(`${running.url}/api/v1/health`).catch((error: unknown) => error)).toBeInstanceOf(Error);
    } finally {
      await (closed ?? running.server.close());
      rmSync(running.dataDir, { recursive: true, force: true });
    }
  }, 30_000);
});

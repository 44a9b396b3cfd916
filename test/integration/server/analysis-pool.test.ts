import { readdirSync, readFileSync } from 'node:fs';
import { AnalysisPool } from '../../../src/analysis/worker-pool.js';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_HTML_BYTES } from '../../../src/core/analyze-rules.js';
import { startSecureServer, type SecureServer } from '../../helpers/secure-server.js';

/**
 * Analysis runs in worker threads with a time budget (docs/security.md): a heavy request never
 * holds up the health check or other tenants, and one over its budget ends with a clear error.
 */

const LISTING = 'Appartement à vendre à Maarif, Casablanca. 120 m², 3 chambres, terrasse. Prix : 1 850 000 DH.';

/** A real listing page (a fixture) padded to the largest size allowed: slow to parse, but valid. */
function largestPage(): string {
  const page = readFileSync(new URL('../../fixtures/portals/mubawab-jsonld-fr.html', import.meta.url), 'utf8');
  const filler = `<p>${'Bel appartement lumineux proche des commodités. '.repeat(40)}</p>\n`;
  const budget = Math.floor(MAX_HTML_BYTES * 0.95) - page.length;
  return page.replace('</body>', `${filler.repeat(Math.floor(budget / filler.length))}</body>`);
}

let running: SecureServer | null = null;
afterEach(async () => {
  await running?.close();
  running = null;
});

describe('analysis off the event loop', () => {
  it('answers the health check while large pages are being analysed', async () => {
    running = await startSecureServer({ analysis: { threads: 1 } });
    const { url, auth } = running;
    // Warm the worker thread so the slow part below is the analysis itself.
    expect((await running.post('/api/v1/analyze', { description: LISTING })).status).toBe(200);
    const page = JSON.stringify({ html: largestPage() });
    const started = performance.now();
    let pending = true;
    // Three pages for one thread: on the event loop, a health check arriving mid-analysis would
    // wait for the rest of it; off the loop, it is answered at once.
    const analyses = Promise.all(
      [1, 2, 3].map(() =>
        fetch(`${url}/api/v1/analyze`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: page }).then(
          async (response) => {
            expect(response.status).toBe(200);
            await response.arrayBuffer();
          },
        ),
      ),
    ).finally(() => {
      pending = false;
    });
    const latencies: number[] = [];
    while (pending) {
      const asked = performance.now();
      const health = await fetch(`${url}/api/v1/health`);
      expect(health.status).toBe(200);
      await health.arrayBuffer();
      if (pending) latencies.push(performance.now() - asked);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await analyses;
    const oneAnalysisMs = (performance.now() - started) / 3;
    expect(latencies.length).toBeGreaterThanOrEqual(3);
    // The median, not the maximum: a loaded machine may delay any one answer, but analysis on the
    // event loop would hold most health checks for a good part of an analysis.
    const median = [...latencies].sort((a, b) => a - b)[Math.floor(latencies.length / 2)]!;
    expect(median).toBeLessThan(oneAnalysisMs / 4);
  }, 60_000);

  it('stops an analysis over its time budget with a 503 that says so, and refunds it', async () => {
    running = await startSecureServer({ analysis: { threads: 1, timeBudgetMs: 50 } });
    const { status, json } = await running.post('/api/v1/analyze', { html: largestPage() });
    expect(status).toBe(503);
    expect(json.error?.reason).toBe('analysis_time_budget');
    expect(json.error?.message).toMatch(/budget/);
    expect(await running.server.records.usage.used(running.keyId)).toBe(0);
  }, 60_000);

  it("analyses a render job's listing in the pool too, within the same budget", async () => {
    running = await startSecureServer({ analysis: { threads: 1, timeBudgetMs: 1 } });
    const created = await running.post('/api/v1/render-video', {
      description: LISTING,
      photos: ['https://cdn.example.com/photo-1.jpg'],
      music: 'none',
    });
    expect(created.status).toBe(202);
    const jobId = (created.json as { job: { job_id: string } }).job.job_id;
    let job: { state: string; error?: { code: string; message: string } } = { state: 'queued' };
    for (let i = 0; i < 200 && (job.state === 'queued' || job.state === 'running'); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const answer = await fetch(`${running.url}/api/v1/jobs/${jobId}`, { headers: running.auth });
      job = ((await answer.json()) as { job: typeof job }).job;
    }
    expect(job.state).toBe('failed');
    expect(job.error?.code).toBe('SERVICE_UNAVAILABLE');
    expect(job.error?.message).toMatch(/budget/);
  }, 60_000);

  /** Nice value of each thread of this process (Linux `/proc`), by thread id. */
  function threadNiceValues(): Map<number, number> {
    const nice = new Map<number, number>();
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      nice.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
    }
    return nice;
  }

  it.runIf(process.platform === 'linux')(
    'runs analysis threads below the priority of the event loop that answers requests',
    async () => {
      const before = threadNiceValues();
      const pool = new AnalysisPool({ threads: 2 });
      try {
        await Promise.all(
          [1, 2].map(() => pool.analyze({ description: LISTING }, { fetchPage: () => Promise.reject(new Error('no fetch')) })),
        );
        const after = threadNiceValues();
        const loopNice = after.get(process.pid)!;
        expect(loopNice).toBe(before.get(process.pid));
        const lowered = [...after].filter(([tid, nice]) => !before.has(tid) && nice > loopNice);
        expect(lowered.length).toBeGreaterThanOrEqual(1);
      } finally {
        await pool.close();
      }
      // Starting two threads that load the TypeScript sources takes seconds on a loaded machine.
    },
    60_000,
  );
});

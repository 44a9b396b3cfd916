import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../src/core/types.js';
import type { Service } from '../../../src/core/service.js';
import { runRenderBatch, type RenderBatchRecord } from '../../../src/jobs/render-batch.js';

/*
 * What a batch makes of each row's end (docs/jobs.md "Batch renders"): a canceled job is a
 * canceled row, not a failed one; an out folder that cannot take a video stops the batch with one
 * error instead of failing every row. A stand-in Service: the rows' jobs end as the test says.
 */

function job(jobId: string, state: JobRecord['state']): JobRecord {
  return {
    job_id: jobId,
    state,
    result: state === 'succeeded' ? { sha256: 'sha256:00', size_bytes: 1 } : null,
    outputs: null,
  } as unknown as JobRecord;
}

function stubService(end: (n: number) => JobRecord['state'], download: (jobId: string, destination: string) => Promise<number>): Service {
  let n = 0;
  const ids = new Map<string, number>();
  return {
    renderVideo: async () => {
      n += 1;
      ids.set(`job_${n}`, n);
      return job(`job_${n}`, 'queued');
    },
    waitForJob: async (jobId: string) => job(jobId, end(ids.get(jobId)!)),
    cancelJob: async (jobId: string) => job(jobId, 'canceled'),
    getJob: async (jobId: string) => job(jobId, end(ids.get(jobId)!)),
    downloadVideo: download,
  } as unknown as Service;
}

function batchFile(rows: number): { csv: string; outDir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'immoreel-batch-outcomes-'));
  const csv = join(dir, 'rows.csv');
  const lines = Array.from({ length: rows }, (_, i) => `r${i},Villa ${i + 1} à Marrakech`);
  writeFileSync(csv, `id,description\n${lines.join('\n')}\n`);
  return { csv, outDir: join(dir, 'videos') };
}

describe('a render batch reports each row as it ended', () => {
  it('reports a canceled job as a canceled row, not a failure, and keeps it out of the failed file', async () => {
    const { csv, outDir } = batchFile(3);
    const records: RenderBatchRecord[] = [];
    const service = stubService(
      (n) => (n === 2 ? 'canceled' : 'succeeded'),
      async (_jobId, destination) => {
        writeFileSync(destination, 'v');
        return 1;
      },
    );
    const summary = await runRenderBatch(
      service,
      { csv, outDir, resume: false, concurrency: 1, defaults: {} },
      { onRecord: (r) => records.push(r) },
    );
    expect(summary).toMatchObject({ total: 3, succeeded: 2, failed: 0, canceled: 1 });
    expect(records.filter((r) => !r.ok)).toEqual([{ ok: false, status: 'canceled', id: 'r1', job_id: 'job_2' }]);
    expect(existsSync(csv.replace(/\.csv$/, '.failed.csv'))).toBe(false);
  });

  it('stops at an out folder that is full: one error saying what to do, the rows after it not started nor failed', async () => {
    const { csv, outDir } = batchFile(4);
    const records: RenderBatchRecord[] = [];
    const full = (): Promise<number> =>
      Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
    const service = stubService(() => 'succeeded', full);
    await expect(
      runRenderBatch(service, { csv, outDir, resume: false, concurrency: 1, defaults: {} }, { onRecord: (r) => records.push(r) }),
    ).rejects.toThrow(/The batch stopped: .*videos is full\. Free or fix it, then run the batch again with --resume/);
    // The row that met the full disk is told; the others were never started.
    expect(records).toHaveLength(1);
    const failedFile = csv.replace(/\.csv$/, '.failed.csv');
    expect(existsSync(failedFile) ? readFileSync(failedFile, 'utf8') : '').not.toMatch(/r[0-3],/);
  });
});

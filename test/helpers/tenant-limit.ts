import { expect } from 'vitest';
import { newJobId } from '../../src/core/job-ids.js';
import { MAX_RUNNING_PER_TENANT } from '../../src/core/job-limits.js';
import type { JobRecords, JobRow, NewJob } from '../../src/records/job-rows.js';
import { fakeRequest } from './fake-engine.js';

/**
 * At most 30 renders of one tenant run at once across every worker (docs/jobs.md "Worker pool"):
 * a claim passes over a tenant that has 30 running, on both backends, however many claim at once.
 * test/unit/jobs checks it on SQLite, test/integration/jobs on PostgreSQL.
 */

function job(tenant: string): NewJob {
  return { jobId: newJobId(), tenant, request: fakeRequest(), inputHash: 'h'.repeat(64), allowLocalFiles: false, linkBase: null };
}

const owners = Array.from({ length: 8 }, (_, i) => ({ id: `worker-${i}`, host: `machine-${i}`, pid: 1000 + i }));

export async function checkTenantLimit(jobs: JobRecords): Promise<void> {
  const greedy: string[] = [];
  for (let i = 0; i < MAX_RUNNING_PER_TENANT + 10; i += 1) greedy.push((await jobs.insert(job('greedy'))).job_id);
  const modest = (await jobs.insert(job('modest'))).job_id;
  // Eight workers claim 50 times at once: the greedy tenant gets 30, the other tenant its one job.
  const claims = await Promise.all(Array.from({ length: 50 }, (_, i) => jobs.claimNext(owners[i % owners.length]!, 60_000)));
  const claimed = claims.filter((row): row is JobRow => row !== null);
  expect(claimed.filter((row) => row.tenant === 'greedy')).toHaveLength(MAX_RUNNING_PER_TENANT);
  expect(claimed.filter((row) => row.tenant === 'modest').map((row) => row.job_id)).toEqual([modest]);
  expect(await jobs.count('greedy', ['running'])).toBe(MAX_RUNNING_PER_TENANT);
  // Asked for by id, the 31st is refused too.
  const waiting = greedy.find((id) => !claimed.some((row) => row.job_id === id))!;
  expect(await jobs.claimNext(owners[0]!, 60_000, [waiting])).toBeNull();
  // One ends: exactly one more may start.
  const first = claimed.find((row) => row.tenant === 'greedy')!;
  await jobs.transition(first.job_id, 'succeeded', { finished_at: new Date().toISOString() });
  const next = await Promise.all(owners.map((owner) => jobs.claimNext(owner, 60_000)));
  expect(next.filter((row) => row !== null)).toHaveLength(1);
  expect(await jobs.count('greedy', ['running'])).toBe(MAX_RUNNING_PER_TENANT);
}

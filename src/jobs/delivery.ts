import { sleep } from '../core/time.js';
import type { JobRecords, JobRow, Owner } from '../records/job-rows.js';
import { isTerminal } from '../core/job-state.js';
import { finalFailurePatch, MAX_ATTEMPTS } from '../records/job-rows.js';
import type { ProblemReporter } from './pool.js';

/**
 * What a worker does with a job a dispatching queue delivered (docs/scaling.md "Dispatch"). The
 * job row is the truth: the queue only says "someone should look at this job now".
 */

/**
 * Takes the job row for `owner`. A row still `running` means the queue redelivered the entry
 * because the previous attempt expired or failed — its worker is dead or gave up — so the row
 * goes back to `queued` (the one edge the state machine allows for that) and is claimed again,
 * counting one more attempt. A finished or canceled job gives null: the entry is simply
 * completed, never rendered twice.
 */
export async function claimDispatched(
  jobs: JobRecords,
  jobId: string,
  owner: Owner,
  leaseMs: number,
  report?: ProblemReporter,
): Promise<JobRow | null> {
  const row = await jobs.row(jobId);
  if (row === undefined || isTerminal(row.state)) return null;
  if (row.state === 'running') {
    const previousOwner = row.owner;
    const requeued = await jobs.transition(
      jobId,
      'queued',
      { owner: null, owner_host: null, owner_pid: null, lease_expires_at: null, stage: null, progress: 0 },
      (current) => current.state === 'running' && current.owner === previousOwner,
    );
    if (requeued === null) return null;
    // Logged by the one process whose transition won (docs/operations.md "Logs").
    report?.(`job re-queued for attempt ${row.attempts + 1} of ${MAX_ATTEMPTS}: the queue handed it out again`, {
      event: 'job_requeued',
      job_id: jobId,
      tenant: row.tenant,
      attempt: row.attempts,
      max_attempts: MAX_ATTEMPTS,
      reason: 'redelivered',
      owner: previousOwner ?? '',
    });
  }
  return jobs.claimNext(owner, leaseMs, [jobId]);
}

/**
 * `claimDispatched` for a worker pool that renews row leases: a delivered job still `running`
 * under a live lease is being rendered by a live worker (its queue entry merely outlived
 * `expireInSeconds`), so this waits until that render ends or its lease runs out instead of taking
 * it away. A job whose tenant already has its limit of running renders waits for a slot here too,
 * without spending an attempt. Resolves null once the job needs nothing more (finished, canceled)
 * or `stopped()` says the worker is shutting down.
 */
export async function claimDelivered(
  jobs: JobRecords,
  jobId: string,
  owner: Owner,
  options: { leaseMs: number; pollMs: number; stopped: () => boolean; report?: ProblemReporter },
): Promise<JobRow | null> {
  for (;;) {
    if (options.stopped()) return null;
    const row = await jobs.row(jobId);
    if (row === undefined || isTerminal(row.state)) return null;
    const leaseAlive = row.state === 'running' && row.lease_expires_at !== null && row.lease_expires_at >= Date.now();
    if (!leaseAlive) {
      const claimed = await claimDispatched(jobs, jobId, owner, options.leaseMs, options.report);
      if (claimed !== null) return claimed;
    }
    await sleep(options.pollMs);
  }
}

/**
 * Ends a job whose queue entry used up its attempts (it reached the dead-letter queue): `failed`,
 * with an error that says what happened and what to do. A row still `queued` (its last attempt
 * failed before claiming it) is claimed first, since the state machine only fails running jobs.
 */
export async function failExhausted(jobs: JobRecords, jobId: string, attempts: number, owner: Owner): Promise<JobRow | null> {
  const row = await jobs.row(jobId);
  if (row === undefined || isTerminal(row.state)) return null;
  if (row.state === 'queued' && (await jobs.claimNext(owner, 60_000, [jobId])) === null) return null;
  return jobs.transition(
    jobId,
    'failed',
    finalFailurePatch(
      `The render was tried ${attempts} time${attempts === 1 ? '' : 's'} and each attempt failed or its worker stopped before finishing ` +
        "(crash, kill, out of memory or power loss); it will not be retried. Submit it again; if it fails again, check the workers' logs.",
    ),
    (current) => !isTerminal(current.state),
  );
}

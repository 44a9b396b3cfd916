import { assertJobId } from '../../core/job-ids.js';
import { chargeValues, JOB_ROW_COLUMNS, type JobRow, type NewJob } from '../job-rows.js';
import { newJobValues } from '../job-rows.js';
import type { Client, Queryable } from './connection.js';
import { lockedAnswer, registerWebhook, storeAnswer, takeUnits } from './server-records.js';

/** Inserts a job row with the caller's executor: the dispatcher passes its transaction here. */
export async function insertJob(db: Queryable, job: NewJob): Promise<JobRow> {
  const now = new Date().toISOString();
  const { rows } = await db.query<JobRow>(
    `INSERT INTO jobs (job_id, tenant, state, progress, attempts, created_at, updated_at, template, format, language,
       request_json, input_hash, allow_local_files, link_base, listing_json, warnings_json, metadata_json, formats_json,
       units, charge_key_id, charge_period)
     VALUES ($1, $2, 'queued', 0, 0, $3, $3, $4, $5, $6, $7, $8, $9, $10, $11, '[]', $12, $13, $14, $15, $16)
     RETURNING ${JOB_ROW_COLUMNS}`,
    [assertJobId(job.jobId), job.tenant, now, ...newJobValues(job), ...chargeValues(job)],
  );
  return rows[0]!;
}

/**
 * One submission in the caller's transaction (docs/operations.md "Exactly once"): under the lock of
 * its `Idempotency-Key`, the stored answer (if any: that key's job is returned, nothing is written),
 * the quota charge, the row, `enqueue` (the queue entry), the webhook outbox row and the stored answer.
 */
export async function submitJob(
  client: Client,
  job: NewJob,
  now: number,
  enqueue: (row: JobRow) => Promise<void> = async () => undefined,
): Promise<JobRow> {
  const idem = job.idempotency;
  if (idem !== undefined) {
    const stored = await lockedAnswer(client, idem, now);
    if (stored !== null) {
      const { rows } = await client.query<JobRow>(`SELECT ${JOB_ROW_COLUMNS} FROM jobs WHERE job_id = $1`, [stored.jobId]);
      if (rows[0] === undefined) throw new Error(`the job ${String(stored.jobId)} of a stored idempotent answer is missing from the store`);
      return rows[0];
    }
  }
  if (job.charge !== undefined) await takeUnits(client, job.charge);
  const row = await insertJob(client, job);
  await enqueue(row);
  if (job.webhookUrl !== undefined && job.webhookUrl !== null) await registerWebhook(client, row.job_id, row.tenant, job.webhookUrl, now);
  if (idem !== undefined) {
    await storeAnswer(client, idem, { statusCode: 202, body: null, jobId: row.job_id }, now);
  }
  return row;
}

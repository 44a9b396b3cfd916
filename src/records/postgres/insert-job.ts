import { assertJobId } from '../../core/job-ids.js';
import { JOB_ROW_COLUMNS, type JobRow, type NewJob } from '../job-rows.js';
import { newJobValues } from '../job-rows.js';
import type { Queryable } from './connection.js';

/** Inserts a job row with the caller's executor: the dispatcher passes its transaction here. */
export async function insertJob(db: Queryable, job: NewJob): Promise<JobRow> {
  const now = new Date().toISOString();
  const { rows } = await db.query<JobRow>(
    `INSERT INTO jobs (job_id, tenant, state, progress, attempts, created_at, updated_at, template, format, language,
       request_json, input_hash, allow_local_files, link_base, listing_json, warnings_json, metadata_json, formats_json)
     VALUES ($1, $2, 'queued', 0, 0, $3, $3, $4, $5, $6, $7, $8, $9, $10, $11, '[]', $12, $13)
     RETURNING ${JOB_ROW_COLUMNS}`,
    [assertJobId(job.jobId), job.tenant, now, ...newJobValues(job)],
  );
  return rows[0]!;
}

import { JOB_STAGES, type JobList, type JobRecord, type JobStage, type JobState, type ListJobsOptions } from '../../core/types.js';
import { assertJobId } from '../../jobs/ids.js';
import { assertTransition } from '../../jobs/state.js';
import { newJobValues, type JobPatch, type JobRow, type NewJob, type Owner } from '../../jobs/store.js';
import type { ValidRenderRequest } from '../../render/types.js';
import { checkListOptions, JOB_ROW_COLUMNS, toJobRecord } from '../../jobs/records.js';
import type { JobRecords } from '../types.js';
import { withTransaction, type Pool, type Queryable } from './pool.js';

/** Columns `transition` may write: the patch keys are checked against this list before they reach SQL. */
const PATCHABLE = new Set([
  'stage',
  'progress',
  'attempts',
  'started_at',
  'finished_at',
  'listing_json',
  'result_json',
  'error_code',
  'error_message',
  'warnings_json',
  'owner',
  'owner_host',
  'owner_pid',
  'lease_expires_at',
  'state',
  'updated_at',
]);

const nowIso = (): string => new Date().toISOString();

/** Inserts a job row with the caller's executor: the dispatcher passes its transaction here. */
export async function insertJob(db: Queryable, job: NewJob): Promise<JobRow> {
  const now = nowIso();
  const { rows } = await db.query<JobRow>(
    `INSERT INTO jobs (job_id, tenant, state, progress, attempts, created_at, updated_at, template, format, language,
       request_json, input_hash, allow_local_files, link_base, listing_json, warnings_json, metadata_json)
     VALUES ($1, $2, 'queued', 0, 0, $3, $3, $4, $5, $6, $7, $8, $9, $10, $11, '[]', $12)
     RETURNING ${JOB_ROW_COLUMNS}`,
    [assertJobId(job.jobId), job.tenant, now, ...newJobValues(job)],
  );
  return rows[0]!;
}

/**
 * Job records in PostgreSQL: the same state machine as SQLite (src/jobs/state.ts), with row locks
 * (`FOR UPDATE`) where SQLite takes its database-wide write lock, and `SKIP LOCKED` so concurrent
 * claims never wait on each other nor take the same job.
 */
export class PostgresJobRecords implements JobRecords {
  constructor(
    private readonly pool: Pool,
    private readonly jobsDir: string,
  ) {}

  insert(job: NewJob): Promise<JobRow> {
    return insertJob(this.pool, job);
  }

  async row(jobId: string): Promise<JobRow | undefined> {
    const { rows } = await this.pool.query<JobRow>(`SELECT ${JOB_ROW_COLUMNS} FROM jobs WHERE job_id = $1`, [assertJobId(jobId)]);
    return rows[0];
  }

  async requestOf(jobId: string): Promise<ValidRenderRequest> {
    const { rows } = await this.pool.query<{ request_json: string }>('SELECT request_json FROM jobs WHERE job_id = $1', [
      assertJobId(jobId),
    ]);
    if (rows[0] === undefined) throw new Error(`job ${jobId} vanished from the store`);
    return JSON.parse(rows[0].request_json) as ValidRenderRequest;
  }

  toRecord(row: JobRow): JobRecord {
    return toJobRecord(row, this.jobsDir);
  }

  async list(tenant: string, options: ListJobsOptions = {}): Promise<JobList> {
    const { limit, state, cursor } = checkListOptions(options);
    const where = ['tenant = $1'];
    const params: (string | number)[] = [tenant];
    if (state !== undefined) {
      params.push(state);
      where.push(`state = $${params.length}`);
    }
    if (cursor !== undefined) {
      params.push(cursor);
      // COLLATE "C": job ids sort byte-wise, as in SQLite, whatever the database's collation.
      where.push(`job_id COLLATE "C" < $${params.length}`);
    }
    params.push(limit + 1);
    const { rows } = await this.pool.query<JobRow>(
      `SELECT ${JOB_ROW_COLUMNS} FROM jobs WHERE ${where.join(' AND ')} ORDER BY job_id COLLATE "C" DESC LIMIT $${params.length}`,
      params,
    );
    const page = rows.slice(0, limit);
    return { jobs: page.map((r) => this.toRecord(r)), next_cursor: rows.length > limit ? page[page.length - 1]!.job_id : null };
  }

  async count(tenant: string | null, states: readonly JobState[]): Promise<number> {
    if (states.length === 0) return 0;
    const { rows } = await this.pool.query<{ n: number }>(
      `SELECT COUNT(*) AS n FROM jobs WHERE state = ANY($1::text[])${tenant === null ? '' : ' AND tenant = $2'}`,
      tenant === null ? [states] : [states, tenant],
    );
    return rows[0]!.n;
  }

  transition(jobId: string, to: JobState, patch: JobPatch = {}, guard?: (row: JobRow) => boolean): Promise<JobRow | null> {
    return withTransaction(this.pool, async (client) => {
      const { rows } = await client.query<JobRow>(`SELECT ${JOB_ROW_COLUMNS} FROM jobs WHERE job_id = $1 FOR UPDATE`, [assertJobId(jobId)]);
      const row = rows[0];
      if (row === undefined) return null;
      if (guard !== undefined && !guard(row)) return null;
      assertTransition(row.job_id, row.state, to);
      const entries = Object.entries({ ...patch, state: to, updated_at: nowIso() });
      for (const [column] of entries) if (!PATCHABLE.has(column)) throw new Error(`not a job column a transition may set: ${column}`);
      const sets = entries.map(([column], i) => `${column} = $${i + 2}`).join(', ');
      const updated = await client.query<JobRow>(`UPDATE jobs SET ${sets} WHERE job_id = $1 RETURNING ${JOB_ROW_COLUMNS}`, [
        row.job_id,
        ...entries.map(([, v]) => v as string | number | null),
      ]);
      return updated.rows[0]!;
    });
  }

  async claimNext(owner: Owner, leaseMs: number, onlyIds?: readonly string[]): Promise<JobRow | null> {
    if (onlyIds !== undefined && onlyIds.length === 0) return null;
    const now = nowIso();
    const params: unknown[] = [owner.id, owner.host, owner.pid, Date.now() + leaseMs, now];
    let filter = '';
    if (onlyIds !== undefined) {
      params.push([...onlyIds]);
      filter = ` AND job_id = ANY($${params.length}::text[])`;
    }
    // The queued → running edge of src/jobs/state.ts, taken by the WHERE clause in one statement.
    const { rows } = await this.pool.query<JobRow>(
      `UPDATE jobs SET state = 'running', stage = 'fetching_assets', progress = 0, attempts = attempts + 1,
         owner = $1, owner_host = $2, owner_pid = $3, lease_expires_at = $4, started_at = $5, updated_at = $5
       WHERE job_id = (SELECT job_id FROM jobs WHERE state = 'queued'${filter} ORDER BY job_id COLLATE "C" LIMIT 1 FOR UPDATE SKIP LOCKED)
         AND state = 'queued'
       RETURNING ${JOB_ROW_COLUMNS}`,
      params,
    );
    return rows[0] ?? null;
  }

  async renewLeases(owner: Owner, leaseMs: number): Promise<void> {
    await this.pool.query(`UPDATE jobs SET lease_expires_at = $1 WHERE owner = $2 AND state = 'running'`, [Date.now() + leaseMs, owner.id]);
  }

  async stillOwned(owner: Owner, jobIds: readonly string[]): Promise<Set<string>> {
    if (jobIds.length === 0) return new Set();
    const { rows } = await this.pool.query<{ job_id: string }>(
      `SELECT job_id FROM jobs WHERE owner = $1 AND state = 'running' AND job_id = ANY($2::text[])`,
      [owner.id, [...jobIds]],
    );
    return new Set(rows.map((r) => r.job_id));
  }

  async setProgress(jobId: string, owner: Owner, stage: JobStage, progress: number): Promise<void> {
    if (!(JOB_STAGES as readonly string[]).includes(stage)) return;
    const clamped = Math.min(1, Math.max(0, Number.isFinite(progress) ? progress : 0));
    await this.pool.query(
      `UPDATE jobs SET stage = $1, progress = $2, updated_at = $3 WHERE job_id = $4 AND state = 'running' AND owner = $5`,
      [stage, Math.round(clamped * 1000) / 1000, nowIso(), jobId, owner.id],
    );
  }

  async runningJobs(): Promise<JobRow[]> {
    return (await this.pool.query<JobRow>(`SELECT ${JOB_ROW_COLUMNS} FROM jobs WHERE state = 'running'`)).rows;
  }

  async purgeable(cutoffIso: string): Promise<JobRow[]> {
    const { rows } = await this.pool.query<JobRow>(
      `SELECT ${JOB_ROW_COLUMNS} FROM jobs WHERE state IN ('succeeded', 'failed', 'canceled') AND expired_at IS NULL AND finished_at < $1 ORDER BY job_id COLLATE "C"`,
      [cutoffIso],
    );
    return rows;
  }

  async markExpired(jobId: string): Promise<void> {
    const now = nowIso();
    await this.pool.query(
      `UPDATE jobs SET expired_at = $1, updated_at = $1 WHERE job_id = $2 AND state IN ('succeeded', 'failed', 'canceled')`,
      [now, assertJobId(jobId)],
    );
  }
}

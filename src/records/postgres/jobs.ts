import { JOB_STAGES, type JobList, type JobRecord, type JobStage, type JobState, type ListJobsOptions } from '../../core/types.js';
import { assertJobId } from '../../core/job-ids.js';
import { assertTransition } from '../../core/job-state.js';
import { type CountUnit, type JobPatch, type JobRow, type NewJob, type Owner } from '../job-rows.js';
import type { ValidRenderRequest } from '../../render/types.js';
import {
  checkListOptions,
  JOB_ROW_COLUMNS,
  refundsCharge,
  storedRequest,
  toJobRecord,
  type JobQueue,
  type JobRecords,
  type QueueSettings,
} from '../job-rows.js';
import { MAX_RUNNING_PER_TENANT } from '../../core/job-limits.js';
import { withTransaction, type Pool } from './connection.js';
import { RenderDispatch, renderQueueOf } from './dispatch.js';
import { submitJob } from './insert-job.js';
import { returnUnits } from './server-records.js';

export { insertJob } from './insert-job.js';

/** Columns `transition` may write: the patch keys are checked against this list before they reach SQL. */
const PATCHABLE = new Set([
  'stage',
  'progress',
  'attempts',
  'started_at',
  'finished_at',
  'listing_json',
  'result_json',
  'outputs_json',
  'error_code',
  'error_message',
  'warnings_json',
  'owner',
  'owner_host',
  'owner_pid',
  'lease_expires_at',
  'state',
  'updated_at',
  'refunded_at',
]);

const nowIso = (): string => new Date().toISOString();

/**
 * Job records in PostgreSQL: the same state machine as SQLite (src/core/job-state.ts), with row locks
 * (`FOR UPDATE`) where SQLite takes its database-wide write lock, and `SKIP LOCKED` so concurrent
 * claims never wait on each other nor take the same job.
 */
export class PostgresJobRecords implements JobRecords {
  private queue: Promise<{ dispatch: RenderDispatch; queue: JobQueue }> | null = null;

  constructor(
    private readonly pool: Pool,
    private readonly jobsDir: string,
    /** The database URL pg-boss connects with (it keeps its own small pool). */
    private readonly url: string,
    /** The clock of stored idempotent answers (their 24 h), as the server's records have it. */
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The pg-boss render queue, started on first use (commands that only read records never start
   * pg-boss): one per process, stopped by `closeQueue` when the record store closes.
   */
  async openQueue(settings: QueueSettings): Promise<JobQueue> {
    this.queue ??= RenderDispatch.start(this.url, this.pool, {
      expireInSeconds: settings.expireInSeconds,
      retryDelaySeconds: settings.retryDelaySeconds,
      retryLimit: Math.max(0, settings.attempts - 1),
      now: this.now,
    }).then((dispatch) => ({ dispatch, queue: renderQueueOf(dispatch, settings) }));
    const started = this.queue;
    try {
      return (await started).queue;
    } catch (error) {
      // A failed start is not remembered: the next caller tries again.
      if (this.queue === started) this.queue = null;
      throw error;
    }
  }

  async closeQueue(): Promise<void> {
    const started = this.queue;
    this.queue = null;
    // Ignored: a queue that never started has nothing to stop; its failure went to openQueue's callers.
    if (started !== null) await (await started.catch(() => null))?.dispatch.stop();
  }

  insert(job: NewJob): Promise<JobRow> {
    return withTransaction(this.pool, (client) => submitJob(client, job, this.now()));
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
    return storedRequest(rows[0].request_json);
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

  async count(tenant: string | null, states: readonly JobState[], unit: CountUnit = 'jobs'): Promise<number> {
    if (states.length === 0) return 0;
    // A pack's outputs are its formats; a row from before packs is one output.
    const what =
      unit === 'jobs'
        ? 'COUNT(*)'
        : 'COALESCE(SUM(CASE WHEN formats_json IS NULL THEN 1 ELSE json_array_length(formats_json::json) END), 0)';
    const { rows } = await this.pool.query<{ n: number }>(
      `SELECT ${what}::int AS n FROM jobs WHERE state = ANY($1::text[])${tenant === null ? '' : ' AND tenant = $2'}`,
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
      // The refund of a job's units is part of the transaction that ends it (docs/api.md "Monthly quota").
      const refund = refundsCharge(row, to, patch.error_code ?? row.error_code);
      if (refund) await returnUnits(client, { charge_key_id: row.charge_key_id!, charge_period: row.charge_period!, units: row.units });
      const entries = Object.entries({ ...patch, state: to, updated_at: nowIso(), ...(refund ? { refunded_at: nowIso() } : {}) });
      for (const [column] of entries) if (!PATCHABLE.has(column)) throw new Error(`not a job column a transition may set: ${column}`);
      const sets = entries.map(([column], i) => `${column} = $${i + 2}`).join(', ');
      const updated = await client.query<JobRow>(`UPDATE jobs SET ${sets} WHERE job_id = $1 RETURNING ${JOB_ROW_COLUMNS}`, [
        row.job_id,
        ...entries.map(([, v]) => v as string | number | null),
      ]);
      return updated.rows[0]!;
    });
  }

  /**
   * The oldest queued job of the tenant with the fewest running (none of `skipTenants`, none whose
   * tenant has MAX_RUNNING_PER_TENANT running: docs/scaling.md "Fairness"), taken for
   * `owner`. The candidate row is locked (`SKIP LOCKED`: concurrent claimers take other rows),
   * then a transaction-scoped advisory lock on its tenant serialises the count-and-claim of that
   * tenant across every worker, so the limit holds for the whole service. One tenant per
   * transaction (a full one is skipped in the next), so two claimers never wait on each other's locks.
   */
  async claimNext(owner: Owner, leaseMs: number, onlyIds?: readonly string[], skipTenants: readonly string[] = []): Promise<JobRow | null> {
    if (onlyIds !== undefined && onlyIds.length === 0) return null;
    const full: string[] = [...skipTenants];
    for (;;) {
      const outcome = await withTransaction(this.pool, async (client): Promise<JobRow | 'none' | { full: string }> => {
        const params: unknown[] = [full];
        let filter = '';
        if (onlyIds !== undefined) {
          params.push([...onlyIds]);
          filter = ` AND job_id = ANY($2::text[])`;
        }
        // Of the tenant with the fewest jobs running, the oldest (docs/scaling.md "Fairness").
        const candidate = await client.query<{ job_id: string; tenant: string }>(
          `SELECT job_id, tenant FROM jobs q WHERE state = 'queued' AND NOT (tenant = ANY($1::text[]))${filter}
           ORDER BY (SELECT COUNT(*) FROM jobs r WHERE r.tenant = q.tenant AND r.state = 'running'), job_id COLLATE "C"
           LIMIT 1 FOR UPDATE OF q SKIP LOCKED`,
          params,
        );
        const next = candidate.rows[0];
        if (next === undefined) return 'none';
        await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`tenant-running:${next.tenant}`]);
        const running = await client.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM jobs WHERE tenant = $1 AND state = 'running'`, [
          next.tenant,
        ]);
        if (running.rows[0]!.n >= MAX_RUNNING_PER_TENANT) return { full: next.tenant };
        const now = nowIso();
        // The queued → running edge of src/core/job-state.ts, taken by the WHERE clause.
        const { rows } = await client.query<JobRow>(
          `UPDATE jobs SET state = 'running', stage = 'fetching_assets', progress = 0, attempts = attempts + 1,
             owner = $1, owner_host = $2, owner_pid = $3, lease_expires_at = $4, started_at = $5, updated_at = $5
           WHERE job_id = $6 AND state = 'queued'
           RETURNING ${JOB_ROW_COLUMNS}`,
          [owner.id, owner.host, owner.pid, Date.now() + leaseMs, now, next.job_id],
        );
        return rows[0] ?? 'none';
      });
      if (outcome === 'none') return null;
      if ('full' in outcome) {
        full.push(outcome.full);
        continue;
      }
      return outcome;
    }
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

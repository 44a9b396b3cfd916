import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { badRequest } from '../core/errors.js';
import {
  JOB_STATES,
  type JobRecord,
  type JobStage,
  type JobState,
  type ListJobsOptions,
  type VideoResult,
  type Warning,
} from '../core/types.js';
import { isJobId } from './ids.js';
import { isTerminal } from './state.js';
import { MAX_LIST_LIMIT } from './limits.js';

/**
 * Job logic that does not depend on the database: the row, list-option checks and the record a row
 * becomes. The SQLite JobStore (store.ts) and the PostgreSQL records (src/store/postgres/jobs.ts)
 * both use these, so both backends answer with the same records and the same errors.
 */

export const DEFAULT_LIST_LIMIT = 20;

/**
 * One row of the `jobs` table, without the stored request: that can hold a saved page of several
 * MB, so it is only read when a job runs (`requestOf`), never when jobs are listed.
 */
/** The columns of a `JobRow`, in table order: what every store selects (the stored request is read apart). */
export const JOB_ROW_COLUMNS = [
  'job_id',
  'tenant',
  'state',
  'stage',
  'progress',
  'attempts',
  'created_at',
  'updated_at',
  'started_at',
  'finished_at',
  'template',
  'format',
  'language',
  'input_hash',
  'allow_local_files',
  'link_base',
  'listing_json',
  'result_json',
  'error_code',
  'error_message',
  'warnings_json',
  'metadata_json',
  'owner',
  'owner_host',
  'owner_pid',
  'lease_expires_at',
  'expired_at',
].join(', ');

export interface JobRow {
  job_id: string;
  tenant: string;
  state: JobState;
  stage: JobStage | null;
  progress: number;
  attempts: number;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
  template: string;
  format: string;
  language: string;
  input_hash: string;
  allow_local_files: number;
  link_base: string | null;
  listing_json: string | null;
  result_json: string | null;
  error_code: string | null;
  error_message: string | null;
  warnings_json: string;
  metadata_json: string | null;
  owner: string | null;
  owner_host: string | null;
  owner_pid: number | null;
  lease_expires_at: number | null;
  expired_at: string | null;
}

export type ListingSummary = NonNullable<JobRecord['listing']>;

export interface CheckedListOptions {
  limit: number;
  state: JobState | undefined;
  cursor: string | undefined;
}

export function checkListOptions(options: ListJobsOptions = {}): CheckedListOptions {
  const limit = options.limit ?? DEFAULT_LIST_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
    throw badRequest(`limit must be a whole number from 1 to ${MAX_LIST_LIMIT}, not ${String(options.limit)}.`, {
      reason: 'invalid_field',
      details: [{ field: 'limit', message: `must be an integer from 1 to ${MAX_LIST_LIMIT}` }],
    });
  }
  if (options.state !== undefined && !(JOB_STATES as readonly string[]).includes(options.state)) {
    throw badRequest(`Unknown state ${JSON.stringify(options.state)}: use one of ${JOB_STATES.join(', ')}.`, {
      reason: 'invalid_field',
      details: [{ field: 'state', message: `must be one of ${JOB_STATES.join(', ')}` }],
    });
  }
  if (options.cursor !== undefined && !isJobId(options.cursor)) {
    throw badRequest('Invalid cursor: pass the next_cursor value of the previous page unchanged.', {
      reason: 'invalid_field',
      details: [{ field: 'cursor', message: 'not a cursor returned by this API' }],
    });
  }
  return { limit, state: options.state, cursor: options.cursor };
}

/** The job record (docs/jobs.md) as the API and the CLI print it; `jobsDir` makes local-mode file links. */
export function toJobRecord(row: JobRow, jobsDir: string): JobRecord {
  const dir = join(jobsDir, row.job_id);
  const expired = row.expired_at !== null;
  const stored = row.result_json === null ? null : (JSON.parse(row.result_json) as Omit<VideoResult, 'video_url'>);
  let links: JobRecord['links'];
  if (row.link_base === null) {
    links = {
      self: pathToFileURL(`${dir}/`).href,
      video: stored === null ? null : pathToFileURL(join(dir, 'output.mp4')).href,
      cancel: null,
    };
  } else {
    const self = `${row.link_base}/jobs/${row.job_id}`;
    links = { self, video: stored === null ? null : `${self}/video`, cancel: isTerminal(row.state) ? null : `${self}/cancel` };
  }
  const result: VideoResult | null =
    stored === null ? null : { video_url: links.video as string, ...stored, ...(expired ? { expired_at: row.expired_at as string } : {}) };
  if (expired) links = { ...links, video: null };
  return {
    job_id: row.job_id,
    state: row.state,
    stage: row.state === 'running' ? row.stage : null,
    progress: row.progress,
    attempts: row.attempts,
    created_at: row.created_at,
    updated_at: row.updated_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
    template: row.template,
    format: row.format as JobRecord['format'],
    language: row.language as JobRecord['language'],
    listing: row.listing_json === null ? null : (JSON.parse(row.listing_json) as ListingSummary),
    result: row.state === 'succeeded' ? result : null,
    error: row.state === 'failed' && row.error_code !== null ? { code: row.error_code, message: row.error_message ?? '' } : null,
    warnings: JSON.parse(row.warnings_json) as Warning[],
    metadata: row.metadata_json === null ? null : (JSON.parse(row.metadata_json) as Record<string, unknown>),
    links,
  };
}

import { AppError, ERROR_CODES, type ErrorCode } from '../core/errors.js';
import type { JobRecord } from '../core/types.js';

/** A render job that ended without a video, with the job's own error code (exit codes follow it). */
export class JobFailedError extends AppError {
  constructor(
    readonly jobId: string,
    code: ErrorCode,
    message: string,
    reason?: string,
  ) {
    super(code, message, reason === undefined ? {} : { reason });
  }

  override toJSON(): ReturnType<AppError['toJSON']> & { job_id: string } {
    return { ...super.toJSON(), job_id: this.jobId };
  }
}

/** The error of a failed or canceled job: its own code when it is one of ours, else RENDER_FAILED. */
export function jobFailure(job: JobRecord): JobFailedError {
  if (job.state === 'canceled')
    return new JobFailedError(job.job_id, 'RENDER_FAILED', `Job ${job.job_id} was canceled; it has no video.`, 'canceled');
  const code = job.error?.code;
  const known = code !== undefined && code in ERROR_CODES ? (code as ErrorCode) : 'RENDER_FAILED';
  return new JobFailedError(job.job_id, known, `Job ${job.job_id} failed: ${job.error?.message ?? 'unknown error'}`);
}

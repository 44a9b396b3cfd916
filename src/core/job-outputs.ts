import { AppError } from './errors.js';
import type { OutputChoice } from './service.js';
import type { JobRecord, VideoFormat } from './types.js';

/** A job's formats, in order: a server from before packs answers records without them, its one output is `format`. */
export function jobFormats(job: JobRecord): VideoFormat[] {
  return (job as Partial<JobRecord>).formats ?? [job.format];
}

/**
 * The output of `job` that `choice` names, and its recorded SHA-256: the primary by default; a
 * format the job does not render is a NOT_FOUND naming the ones it does, as the API's
 * `format_not_rendered` (docs/api.md "Video packs").
 */
export function outputOf(job: JobRecord, choice: OutputChoice): { format: VideoFormat; primary: boolean; sha256: string | undefined } {
  const formats = jobFormats(job);
  const format = choice.format ?? formats[0] ?? job.format;
  if (!formats.includes(format)) {
    throw new AppError('NOT_FOUND', `Job ${job.job_id} was rendered in ${formats.join(', ')}, so it has no ${format} video.`, {
      reason: 'format_not_rendered',
      details: [{ field: 'format', message: `must be one of ${formats.join(', ')}` }],
    });
  }
  const output = job.outputs?.find((o) => o.format === format);
  return { format, primary: format === formats[0], sha256: output?.sha256 ?? (format === formats[0] ? job.result?.sha256 : undefined) };
}

import { createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { AppError, badRequest } from '../core/errors.js';
import type { JobRecord, VideoFormat } from '../core/types.js';
import { outputOf } from '../core/job-outputs.js';
import { networkFailure, unreachable } from './errors.js';
import type { HttpClient } from './http.js';
import { sha256File } from '../core/files.js';
import { sleep as defaultSleep } from '../core/time.js';
import { backoffMs } from '../net/retry.js';

/**
 * GET /api/v1/jobs/{id}/video to a file, resumable: bytes go to `<target>.part`; when the transfer
 * breaks (or the command is killed and run again), the next attempt asks only for the rest with
 * `Range: bytes=<have>-` (and `If-Range` with the video's ETag). The finished file is checked
 * against the job's recorded sha256 before it is renamed to its final name, so a destination file
 * is always a complete, verified video.
 */

const MAX_ATTEMPTS = 5;

async function sizeOf(path: string): Promise<number> {
  return (await stat(path).catch(() => null))?.size ?? 0;
}

/** Where `destination` puts the video: a directory gets `<job_id>.mp4`. */
export async function downloadTarget(destination: string, jobId: string): Promise<string> {
  const info = await stat(destination).catch(() => null);
  return info?.isDirectory() ? join(destination, `${jobId}.mp4`) : destination;
}

export interface DownloadOptions {
  sleep?: (ms: number) => Promise<void>;
  /** Which output of a pack (docs/api.md "Video packs"); default the primary. */
  format?: VideoFormat;
}

/** Downloads the video of a succeeded `job` to `destination`; returns its size in bytes. */
export async function downloadJobVideo(
  http: HttpClient,
  job: JobRecord,
  destination: string,
  options: DownloadOptions = {},
): Promise<number> {
  const sleep = options.sleep ?? ((ms: number) => defaultSleep(ms));
  const output = outputOf(job, options.format === undefined ? {} : { format: options.format });
  const result = output.primary ? job.result : (job.outputs?.find((o) => o.format === output.format) ?? null);
  if (result === null) throw badRequest(`Job ${job.job_id} has no ${output.format} video.`, { reason: 'no_video' });
  const expected = result.sha256.replace(/^sha256:/, '');
  const target = await downloadTarget(destination, job.job_id);
  const partial = `${target}.part`;
  // The plain route for the primary: a server from before packs knows no `format`.
  const path = `/api/v1/jobs/${encodeURIComponent(job.job_id)}/video${output.primary ? '' : `?format=${output.format}`}`;
  let restartedOnce = false;

  for (let attempt = 1; ; attempt += 1) {
    if (attempt > MAX_ATTEMPTS * 2) {
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        `The video of ${job.job_id} could not be downloaded completely; run the download again (it resumes).`,
        { reason: 'incomplete_download' },
      );
    }
    let have = await sizeOf(partial);
    if (have > result.size_bytes) {
      await rm(partial, { force: true });
      have = 0;
    }
    if (have < result.size_bytes) {
      try {
        const answer = await http.send({
          method: 'GET',
          path,
          route: 'GET /api/v1/jobs/{job_id}/video',
          headers: { accept: 'video/mp4', ...(have > 0 ? { range: `bytes=${have}-`, 'if-range': `"${result.sha256}"` } : {}) },
          retryable: true,
          accept: [416],
        });
        if (answer.status === 416) {
          // The server's file is shorter than what we hold: what we hold is not its file.
          await answer.body.dump();
          await rm(partial, { force: true });
          continue;
        }
        const resumed = answer.status === 206 && have > 0 && (answer.headers['content-range'] ?? '').startsWith(`bytes ${have}-`);
        await pipeline(answer.body, createWriteStream(partial, { flags: resumed ? 'a' : 'w' }));
      } catch (error) {
        const failure = networkFailure(error);
        if (failure === null) {
          if ((error as NodeJS.ErrnoException).code !== undefined && !(error instanceof AppError)) {
            throw badRequest(`Cannot write ${partial}: ${(error as Error).message}`, { reason: 'cannot_write' });
          }
          throw error;
        }
        // The body broke off mid-way: resume from what arrived.
        if (attempt >= MAX_ATTEMPTS) throw unreachable(http.baseUrl, failure);
        await sleep(backoffMs(attempt - 1, 500, 8_000));
        continue;
      }
      if ((await sizeOf(partial)) < result.size_bytes && attempt < MAX_ATTEMPTS) continue;
    }
    const digest = await sha256File(partial);
    if (digest !== expected) {
      await rm(partial, { force: true });
      if (!restartedOnce) {
        // A stale `.part` from another video, or bytes garbled in transit: fetch it whole once more.
        restartedOnce = true;
        continue;
      }
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        `The video of ${job.job_id} arrived corrupted twice (sha256 mismatch); run the download again.`,
        { reason: 'checksum_mismatch' },
      );
    }
    try {
      await rename(partial, target);
    } catch (error) {
      throw badRequest(`Cannot write ${target}: ${(error as Error).message}`, { reason: 'cannot_write' });
    }
    return result.size_bytes;
  }
}

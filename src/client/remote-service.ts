import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { AppError, badRequest } from '../core/errors.js';
import type { AnalyzeResponse, JobList, JobRecord, ListJobsOptions, WaitOptions } from '../core/types.js';
import type { OutputChoice, Service } from '../core/service.js';
import type { AnalyzeRequest, RenderRequest } from '../core/requests.js';
import { downloadJobVideo, type DownloadOptions } from './download.js';
import { RemoteError } from './errors.js';
import { HttpClient, type HttpClientOptions, type JsonAnswer } from './http.js';
import { nextAttemptKey, randomIdempotencyKey } from './idempotency-keys.js';
import { sleep } from '../core/time.js';
import { parseRetryAfter } from '../net/retry.js';
import { AssetUploader } from './uploads.js';

/**
 * The remote `Service` (docs/architecture.md): the same seven operations as the local one, answered by an
 * immoreel server over HTTP (API v1, docs/api.md). The CLI cannot tell the two apart, so every
 * command prints the same in local and remote mode.
 */

export interface RemoteServiceOptions extends Omit<HttpClientOptions, 'baseUrl' | 'apiKey'> {
  baseUrl: string;
  apiKey: string;
  /** Where uploads of local photos are remembered (see uploads.ts); null = not remembered. */
  assetCacheFile?: string | null;
  /** Job polling without a Retry-After from the server: first delay, growing ×1.5 up to the cap. */
  pollMinMs?: number;
  pollMaxMs?: number;
  download?: DownloadOptions;
}

const TERMINAL = new Set<JobRecord['state']>(['succeeded', 'failed', 'canceled']);
/** A failed job behind a batch key is rendered again under `<key>.2`, `<key>.3`… up to this many times. */
const MAX_KEY_CHAIN = 5;
/** A poll is retried longer than other requests: a server restarting for a few seconds should not end a wait. */
const POLL_RETRIES = 4;
/** Analysis and render dispatch may fetch a portal page on the server first. */
const SLOW_ROUTE_TIMEOUT_MS = 120_000;

function jobPath(jobId: string, suffix = ''): string {
  return `/api/v1/jobs/${encodeURIComponent(jobId)}${suffix}`;
}

function expectJob(answer: JsonAnswer<{ job?: JobRecord }>, what: string): JobRecord {
  const job = answer.body.job;
  if (typeof job !== 'object' || job === null || typeof job.job_id !== 'string' || typeof job.state !== 'string') {
    throw new RemoteError('SERVICE_UNAVAILABLE', `${what} answered without a job record: is this an immoreel server?`, {
      reason: 'not_immoreel',
      requestId: answer.requestId,
    });
  }
  return job;
}

export class RemoteService implements Service {
  readonly http: HttpClient;
  private readonly uploader: AssetUploader;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(private readonly options: RemoteServiceOptions) {
    this.http = new HttpClient(options);
    this.sleep = options.sleep ?? sleep;
    const partition = createHash('sha256').update(`${this.http.baseUrl}\n${options.apiKey}`).digest('hex').slice(0, 16);
    this.uploader = new AssetUploader(this.http, { cacheFile: options.assetCacheFile ?? null, partition });
  }

  get baseUrl(): string {
    return this.http.baseUrl;
  }

  async analyze(request: AnalyzeRequest): Promise<AnalyzeResponse> {
    const answer = await this.http.json<AnalyzeResponse>({
      method: 'POST',
      path: '/api/v1/analyze',
      route: 'POST /api/v1/analyze',
      json: request,
      // The server replays the first answer for a repeated key, so a retry is never counted twice.
      headers: { 'idempotency-key': randomIdempotencyKey() },
      retryable: true,
      timeoutMs: SLOW_ROUTE_TIMEOUT_MS,
    });
    if (answer.body?.ok !== true || typeof answer.body.property !== 'object' || answer.body.property === null) {
      throw new RemoteError(
        'SERVICE_UNAVAILABLE',
        `POST /api/v1/analyze at ${this.baseUrl} answered without a property: is this an immoreel server?`,
        {
          reason: 'not_immoreel',
          requestId: answer.requestId,
        },
      );
    }
    return answer.body;
  }

  private async postRender(body: RenderRequest, key: string): Promise<JsonAnswer<{ job?: JobRecord }>> {
    return this.http.json<{ job?: JobRecord }>({
      method: 'POST',
      path: '/api/v1/render-video',
      route: 'POST /api/v1/render-video',
      json: body,
      headers: { 'idempotency-key': key },
      retryable: true,
      timeoutMs: SLOW_ROUTE_TIMEOUT_MS,
    });
  }

  /**
   * Uploads local files, then POST /render-video with an Idempotency-Key: the caller's (derived in
   * batches) or a random one. A caller's key that names an earlier failed or canceled job moves on
   * to the next key of its chain, so running a batch again re-renders exactly its failed rows.
   */
  async renderVideo(request: RenderRequest, options: { idempotencyKey?: string } = {}): Promise<JobRecord> {
    const given = options.idempotencyKey;
    let key = given ?? randomIdempotencyKey();
    let body = await this.uploader.prepare(request);
    let uploadedAfresh = false;
    for (let link = 1; ;) {
      let answer: JsonAnswer<{ job?: JobRecord }>;
      try {
        answer = await this.postRender(body, key);
      } catch (error) {
        // A remembered upload the server no longer has (expired, or a new server): upload again, once.
        if (error instanceof AppError && error.reason === 'unknown_asset' && !uploadedAfresh) {
          uploadedAfresh = true;
          body = await this.uploader.prepare(request, { fresh: true });
          continue;
        }
        throw error;
      }
      const job = expectJob(answer, 'POST /api/v1/render-video');
      const replayedFromEarlierRun = answer.headers['idempotent-replayed'] === 'true' && answer.attempt === 1;
      if (given !== undefined && replayedFromEarlierRun && (job.state === 'failed' || job.state === 'canceled') && link < MAX_KEY_CHAIN) {
        link += 1;
        key = nextAttemptKey(given, link);
        continue;
      }
      return job;
    }
  }

  async getJob(jobId: string): Promise<JobRecord> {
    return this.readJob(jobId, {}).then((answer) => expectJob(answer, `GET ${jobPath(jobId)}`));
  }

  private readJob(jobId: string, options: { signal?: AbortSignal; retries?: number }): Promise<JsonAnswer<{ job?: JobRecord }>> {
    return this.http.json<{ job?: JobRecord }>({
      method: 'GET',
      path: jobPath(jobId),
      route: 'GET /api/v1/jobs/{job_id}',
      retryable: true,
      signal: options.signal,
      retries: options.retries,
    });
  }

  async listJobs(options: ListJobsOptions = {}): Promise<JobList> {
    const answer = await this.http.json<{ jobs?: JobRecord[]; next_cursor?: string | null }>({
      method: 'GET',
      path: '/api/v1/jobs',
      route: 'GET /api/v1/jobs',
      query: { state: options.state, limit: options.limit, cursor: options.cursor },
      retryable: true,
    });
    if (!Array.isArray(answer.body.jobs)) {
      throw new RemoteError(
        'SERVICE_UNAVAILABLE',
        `GET /api/v1/jobs at ${this.baseUrl} answered without a job list: is this an immoreel server?`,
        { reason: 'not_immoreel' },
      );
    }
    return { jobs: answer.body.jobs, next_cursor: answer.body.next_cursor ?? null };
  }

  async cancelJob(jobId: string): Promise<JobRecord> {
    const answer = await this.http.json<{ job?: JobRecord }>({
      method: 'POST',
      path: jobPath(jobId, '/cancel'),
      route: 'POST /api/v1/jobs/{job_id}/cancel',
      // Cancelling twice is cancelling once.
      retryable: true,
    });
    return expectJob(answer, `POST ${jobPath(jobId, '/cancel')}`);
  }

  /**
   * Polls GET /jobs/{id} until the job ends: as soon as the server's Retry-After says (it sends
   * one while a job is queued or running), else after a delay growing from 1 s to 10 s.
   */
  async waitForJob(jobId: string, options: WaitOptions = {}): Promise<JobRecord> {
    const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
    const minDelay = this.options.pollMinMs ?? 1_000;
    const maxDelay = this.options.pollMaxMs ?? 10_000;
    let delay = minDelay;
    let seen = '';
    for (;;) {
      let answer: JsonAnswer<{ job?: JobRecord }>;
      try {
        answer = await this.readJob(jobId, { signal: options.signal, retries: POLL_RETRIES });
      } catch (error) {
        if (options.signal?.aborted)
          throw new AppError('INTERNAL_SERVER_ERROR', 'Waiting was interrupted.', { cause: options.signal.reason });
        if (error instanceof AppError && error.code === 'SERVICE_UNAVAILABLE' && error.reason === 'unreachable') {
          throw new RemoteError(
            'SERVICE_UNAVAILABLE',
            `Lost contact with the immoreel server at ${this.baseUrl} while waiting for job ${jobId}: ${error.message.replace(/^Cannot reach the immoreel server at \S+ /, '')} ` +
              `The job is kept on the server: follow it with \`immoreel jobs wait ${jobId}\` (same --profile or --base-url) once the server is back.`,
            { reason: 'unreachable' },
          );
        }
        throw error;
      }
      const job = expectJob(answer, `GET ${jobPath(jobId)}`);
      const key = `${job.state}|${job.stage}|${job.progress}|${job.updated_at}`;
      if (key !== seen) {
        seen = key;
        options.onUpdate?.(job);
      }
      if (TERMINAL.has(job.state)) return job;
      if (Date.now() >= deadline) {
        throw new AppError(
          'SERVICE_UNAVAILABLE',
          `Job ${job.job_id} is still ${job.state} after ${Math.round((options.timeoutMs ?? 0) / 1000)} s; follow it with \`immoreel jobs wait ${job.job_id}\`.`,
          {
            reason: 'wait_timeout',
          },
        );
      }
      const hinted = parseRetryAfter(answer.headers['retry-after']);
      const wait = hinted !== null ? Math.min(60_000, Math.max(250, hinted * 1000)) : delay;
      delay = Math.min(maxDelay, Math.round(delay * 1.5));
      try {
        await this.sleep(Math.max(0, Math.min(wait, deadline - Date.now())), options.signal);
      } catch {
        throw new AppError('INTERNAL_SERVER_ERROR', 'Waiting was interrupted.', { cause: options.signal?.reason });
      }
    }
  }

  async downloadVideo(jobId: string, destination: string, choice: OutputChoice = {}): Promise<number> {
    const job = await this.getJob(jobId);
    const id = job.job_id;
    if (job.state === 'failed')
      throw new AppError('RENDER_FAILED', `Job ${id} failed, so it has no video: ${job.error?.message ?? 'unknown error'}`);
    if (job.state === 'canceled') throw badRequest(`Job ${id} was canceled, so it has no video.`, { reason: 'job_canceled' });
    if (job.state !== 'succeeded' || job.result === null) {
      throw badRequest(`Job ${id} is ${job.state}; its video is not ready. Wait for it with \`immoreel jobs wait ${id}\`.`, {
        reason: 'job_not_finished',
      });
    }
    if (job.result.expired_at !== undefined)
      throw new AppError('GONE', `The video of ${id} was removed from the server on ${job.result.expired_at}; render it again.`);
    return downloadJobVideo(this.http, job, destination, {
      ...this.options.download,
      ...(choice.format === undefined ? {} : { format: choice.format }),
    });
  }

  /** GET /api/v1/jobs/{id}/poster[?format=] to `destination` (via a `.part` file renamed when complete). */
  async downloadPoster(jobId: string, destination: string, choice: OutputChoice = {}): Promise<number> {
    const id = encodeURIComponent(jobId);
    const answer = await this.http.send({
      method: 'GET',
      path: `/api/v1/jobs/${id}/poster${choice.format === undefined ? '' : `?format=${choice.format}`}`,
      route: 'GET /api/v1/jobs/{job_id}/poster',
      headers: { accept: 'image/jpeg' },
      retryable: true,
    });
    const partial = `${destination}.part`;
    try {
      await pipeline(answer.body, createWriteStream(partial));
      await rename(partial, destination);
    } catch (error) {
      await rm(partial, { force: true });
      throw badRequest(`Cannot write ${destination}: ${(error as Error).message}`, { reason: 'cannot_write' });
    }
    return (await stat(destination)).size;
  }

  async close(): Promise<void> {
    await this.http.close();
  }
}

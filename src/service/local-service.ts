import { createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { createHash, randomBytes } from 'node:crypto';
import { isAbsolute, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { analyzeListing } from '../analysis/analyze.js';
import type { FfmpegSettings, JobTimingSettings, ProxySettings } from '../config/config-schema.js';
import { sleep } from '../core/time.js';
import { AppError, badRequest } from '../core/errors.js';
import { readImageFile } from '../core/images.js';
import { isRemoteRef } from '../core/refs.js';
import type { AnalyzeResponse, JobList, JobRecord, ListJobsOptions, VideoFormat, WaitOptions } from '../core/types.js';
import type { OutputChoice, Service } from '../core/service.js';
import { outputOf } from '../core/job-outputs.js';
import type { AnalyzeRequest, RenderRequest } from '../core/requests.js';
import { validateRequest, type RenderEngine } from '../jobs/engine.js';
import { assertJobId } from '../core/job-ids.js';
import { JobManager } from '../jobs/manager.js';
import { openFetchVia, type FetchPort } from '../net/fetch.js';
import { isTerminal } from '../core/job-state.js';
import type { ValidRenderRequest } from '../render/types.js';
import { posterKey, type BlobStore } from '../blobs/index.js';
import type { AssetParts } from '../records/assets.js';
import type { RecordStore } from '../records/index.js';
import { openJobStores, type JobStores } from '../records/job-backends.js';

/**
 * Everything comes from the run's configuration (docs/configuration.md), read by the entry point
 * and handed down here: this layer reads no environment.
 */
export interface LocalServiceOptions {
  /** The data directory (`Config.dataDir`). */
  dataDir: string;
  /** Where ffmpeg and ffprobe are (`Config.ffmpeg`). */
  ffmpeg: FfmpegSettings;
  /** The proxy of listing pages and photos (`Config.proxy`); none by default. */
  proxy?: ProxySettings;
  /** IMMOREEL_EUR_TO_MAD (`Config.eurToMad`). */
  eurToMad?: number;
  /** Lease and queue timings (`Config.jobs`). */
  timings?: JobTimingSettings;
  /** The AWS_* variables for an s3:// storage URL (`Config.aws`). */
  aws?: Readonly<Record<string, string>>;
  /** Renders at once in this process (1–30). */
  concurrency?: number;
  /** The render engine; default the real one (tests pass a fake). */
  engine?: RenderEngine;
  /** How often waitForJob reads the store (default 250 ms). */
  pollMs?: number;
  /** `--database-url` / `IMMOREEL_DATABASE_URL`: PostgreSQL instead of the data directory's SQLite file. */
  databaseUrl?: string;
  /** `--storage-url` / `IMMOREEL_STORAGE_URL`: where videos are kept instead of the data directory. */
  storageUrl?: string;
  /** Where notes on the configuration go (the CLI's stderr, silenced by --quiet). */
  warn?: (message: string) => void;
  /** Records and blobs the caller already opened (and closes); they win over the URLs. */
  records?: RecordStore;
  blobs?: BlobStore;
}

/** Local jobs all belong to one tenant; the server's tenants never see them, nor they the server's. */
export const LOCAL_TENANT = 'local';

/**
 * The engine in this process (docs/architecture.md): analysis, and renders as jobs in the data directory's
 * store. A job is rendered by the process that waits for it (`render`, `jobs wait`, a batch) or by
 * `immoreel worker`; a job nobody waits for stays queued for the worker (`render --no-wait`).
 */
export class LocalService implements Service {
  readonly dataDir: string;
  private manager: Promise<JobManager> | null = null;
  /** The stores this service opened itself (none when the caller gave both records and blobs). */
  private stores: JobStores | null = null;
  /** Local files already put in the shared storage by this process: path → `asset:` reference. */
  private readonly sharedFiles = new Map<string, Promise<string>>();

  /** Local mode's network: any host, through the configured proxy. */
  private readonly fetch: FetchPort;

  constructor(readonly options: LocalServiceOptions) {
    this.dataDir = options.dataDir;
    this.fetch = openFetchVia(options.proxy ?? {});
  }

  /** The job manager, opened on first use so that `analyze` never touches the store. */
  jobs(): Promise<JobManager> {
    this.manager ??= this.openManager();
    return this.manager;
  }

  private async openManager(): Promise<JobManager> {
    const { options } = this;
    if (options.records === undefined || options.blobs === undefined) {
      this.stores = await openJobStores({
        dataDir: this.dataDir,
        databaseUrl: options.databaseUrl,
        storageUrl: options.storageUrl,
        aws: options.aws,
        warn: options.warn,
      });
    }
    const stores = this.stores;
    try {
      return await JobManager.open({
        dataDir: this.dataDir,
        records: options.records ?? stores!.records,
        blobs: options.blobs ?? stores!.blobs,
        concurrency: options.concurrency,
        engine: options.engine,
        runWorkers: false,
        allowLocalFiles: true,
        pollMs: options.pollMs,
        ffmpeg: options.ffmpeg,
        openFetch: this.fetch,
        ...(options.timings === undefined ? {} : { timings: options.timings }),
        ...(options.eurToMad === undefined ? {} : { eurToMad: options.eurToMad }),
      });
    } catch (error) {
      // The opening error is the one to report; a close failing after it adds nothing.
      await this.closeStores().catch(() => undefined);
      this.manager = null;
      throw error;
    }
  }

  private async closeStores(): Promise<void> {
    const stores = this.stores;
    this.stores = null;
    await stores?.close();
  }

  /** Renders at once in this process (batches raise it with --concurrency). */
  async setConcurrency(value: number): Promise<void> {
    (await this.jobs()).setConcurrency(value);
  }

  async analyze(request: AnalyzeRequest): Promise<AnalyzeResponse> {
    const property = await analyzeListing(request, {
      fetch: this.fetch,
      ...(this.options.eurToMad === undefined ? {} : { eurToMad: this.options.eurToMad }),
    });
    return { ok: true, status: 'success', property };
  }

  async renderVideo(request: RenderRequest): Promise<JobRecord> {
    // A bad request is refused here and never becomes a job.
    const valid = await validateRequest(request, 'local');
    const manager = await this.jobs();
    const records = this.options.records ?? this.stores?.shared?.records;
    const shared = records?.kind === 'postgres' ? await this.shareLocalFiles(valid, { records, blobs: manager.blobs }) : valid;
    return manager.submit(shared, { tenant: LOCAL_TENANT });
  }

  /**
   * With PostgreSQL, any worker on any machine may render the job, and it cannot read this
   * machine's files: local photo and logo files go into the shared storage as assets first (kept
   * 24 h, read by whichever worker renders), as remote mode uploads them (docs/scaling.md "The
   * job layer on both backends"). A file used by several jobs of this process is stored once.
   */
  private async shareLocalFiles(valid: ValidRenderRequest, parts: AssetParts): Promise<ValidRenderRequest> {
    const { saveAsset } = await import('../records/assets.js');
    const share = (path: string, field: string): Promise<string> => {
      let stored = this.sharedFiles.get(path);
      if (stored === undefined) {
        stored = readImageFile(path, field).then(async (file) => (await saveAsset(parts, LOCAL_TENANT, file.bytes, file.contentType)).ref);
        // A failure is not remembered: the file may be fixed and tried again by the next row.
        stored.catch(() => this.sharedFiles.delete(path));
        this.sharedFiles.set(path, stored);
      }
      return stored;
    };
    if (isAbsolute(valid.music)) {
      throw badRequest(
        `music: ${valid.music} is a file of this machine, which the workers of a shared database may not have: use auto, none or a bundled track (immoreel templates list), or render with the embedded default (no --database-url).`,
        { reason: 'local_music_file', details: [{ field: 'music', message: 'local files are not shared with workers' }] },
      );
    }
    const photos = await Promise.all(
      valid.photos.map(async (photo, index) => (isRemoteRef(photo) ? photo : share(photo, `photos[${index}]`))),
    );
    const logo = valid.branding.logo_url;
    const branding =
      logo === undefined || isRemoteRef(logo) ? valid.branding : { ...valid.branding, logo_url: await share(logo, 'branding.logo_url') };
    return { ...valid, photos, branding };
  }

  async getJob(jobId: string): Promise<JobRecord> {
    const id = assertJobId(jobId);
    const found = await (await this.jobs()).get(id);
    if (found === null || found.tenant !== LOCAL_TENANT) {
      throw new AppError('NOT_FOUND', `No job ${id} in ${this.dataDir}. List jobs with \`immoreel jobs list\`.`);
    }
    return found.job;
  }

  async listJobs(options: ListJobsOptions = {}): Promise<JobList> {
    return (await this.jobs()).list(LOCAL_TENANT, options);
  }

  async cancelJob(jobId: string): Promise<JobRecord> {
    await this.getJob(jobId);
    return (await this.jobs()).cancel(jobId);
  }

  /** Renders the job here if it is still queued, and follows it until it finishes. */
  async waitForJob(jobId: string, options: WaitOptions = {}): Promise<JobRecord> {
    let job = await this.getJob(jobId);
    const manager = await this.jobs();
    const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
    let seen = '';
    manager.work(job.job_id);
    try {
      for (;;) {
        const key = `${job.state}|${job.stage}|${job.progress}|${job.updated_at}`;
        if (key !== seen) {
          seen = key;
          options.onUpdate?.(job);
        }
        if (isTerminal(job.state)) return job;
        if (options.signal?.aborted)
          throw new AppError('INTERNAL_SERVER_ERROR', 'Waiting was interrupted.', { cause: options.signal.reason });
        if (Date.now() >= deadline) {
          throw new AppError(
            'SERVICE_UNAVAILABLE',
            `Job ${job.job_id} is still ${job.state} after ${Math.round((options.timeoutMs ?? 0) / 1000)} s; follow it with \`immoreel jobs wait ${job.job_id}\`.`,
            {
              reason: 'wait_timeout',
            },
          );
        }
        // A job put back in the queue (its worker died) is taken again by this process.
        if (job.state === 'queued') manager.work(job.job_id);
        // An interruption ends the wait early; the check above then reports it.
        await sleep(Math.min(this.options.pollMs ?? 250, Math.max(0, deadline - Date.now())), options.signal).catch(() => undefined);
        job = await this.getJob(jobId);
      }
    } finally {
      manager.release(job.job_id);
    }
  }

  /** Copies the verified video from the blob store (checked against its recorded sha256), atomically. */
  async downloadVideo(jobId: string, destination: string, choice: OutputChoice = {}): Promise<number> {
    const job = await this.getJob(jobId);
    const manager = await this.jobs();
    const output = outputOf(job, choice);
    const key = await this.videoOf(job, manager, output.format);
    const target = (await stat(destination).catch(() => null))?.isDirectory() ? join(destination, `${job.job_id}.mp4`) : destination;
    const partial = `${target}.${randomBytes(4).toString('hex')}.part`;
    const hash = createHash('sha256');
    let bytes = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        hash.update(chunk);
        bytes += chunk.length;
        callback(null, chunk);
      },
    });
    try {
      await pipeline((await manager.blobs.get(key)).body, counter, createWriteStream(partial));
      const digest = hash.digest('hex');
      const expected = output.sha256?.replace(/^sha256:/, '');
      if (expected !== undefined && expected !== digest) {
        throw new AppError(
          'INTERNAL_SERVER_ERROR',
          `The stored video of ${job.job_id} does not match its recorded checksum; render it again.`,
        );
      }
      await rename(partial, target);
      return bytes;
    } catch (error) {
      await rm(partial, { force: true });
      if (error instanceof AppError) throw error;
      throw badRequest(`Cannot write ${target}: ${(error as Error).message}`);
    }
  }

  /** Copies the poster next to the video in the blob store (docs/api.md "The poster"), atomically. */
  async downloadPoster(jobId: string, destination: string, choice: OutputChoice = {}): Promise<number> {
    const job = await this.getJob(jobId);
    const manager = await this.jobs();
    const key = posterKey(await this.videoOf(job, manager, outputOf(job, choice).format));
    if ((await manager.blobs.head(key)) === null) {
      throw new AppError('NOT_FOUND', `Job ${job.job_id} has no poster (it was rendered before posters existed, or drawing it failed).`, {
        reason: 'no_poster',
      });
    }
    const partial = `${destination}.${randomBytes(4).toString('hex')}.part`;
    try {
      let bytes = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          bytes += chunk.length;
          callback(null, chunk);
        },
      });
      await pipeline((await manager.blobs.get(key)).body, counter, createWriteStream(partial));
      await rename(partial, destination);
      return bytes;
    } catch (error) {
      await rm(partial, { force: true });
      if (error instanceof AppError) throw error;
      throw badRequest(`Cannot write ${destination}: ${(error as Error).message}`);
    }
  }

  private async videoOf(job: JobRecord, manager: JobManager, format: VideoFormat): Promise<string> {
    const id = job.job_id;
    if (job.state === 'failed') {
      throw new AppError('RENDER_FAILED', `Job ${id} failed, so it has no video: ${job.error?.message ?? 'unknown error'}`);
    }
    if (job.state === 'canceled') throw badRequest(`Job ${id} was canceled, so it has no video.`, { reason: 'job_canceled' });
    if (job.state !== 'succeeded') {
      throw badRequest(`Job ${id} is ${job.state}; its video is not ready. Wait for it with \`immoreel jobs wait ${id}\`.`, {
        reason: 'job_not_finished',
      });
    }
    if (job.result?.expired_at !== undefined) {
      throw new AppError('GONE', `The video of ${id} was removed by \`immoreel jobs purge\` on ${job.result.expired_at}; render it again.`);
    }
    const key = await manager.videoKey(id, format);
    if (key === null) throw new AppError('NOT_FOUND', `The video of ${id} is missing from ${manager.blobs.location}; render it again.`);
    return key;
  }

  async close(): Promise<void> {
    const manager = this.manager;
    this.manager = null;
    await (await manager?.catch(() => null))?.close({ drainMs: 0 });
    await this.closeStores();
  }
}

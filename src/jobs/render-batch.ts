import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { batchIdOf, batchRowIdempotencyKey } from './batch-keys.js';
import { AppError, badRequest } from '../core/errors.js';
import { sha256File } from '../core/files.js';
import { isRemoteRef } from '../core/refs.js';
import type { JobRecord, VideoFormat } from '../core/types.js';
import type { Service } from '../core/service.js';
import { photoRef } from '../core/photo-ref.js';
import type { RenderRequest } from '../core/requests.js';
import { failedFileFor, readBatchCsv, runBatch, updateFailedCsv, type BatchColumns, type BatchRow } from './batch.js';
import { JobFailedError, jobFailure } from './failure.js';
import { hashInputs } from '../core/hash.js';
import { jobFormats } from '../core/job-outputs.js';
import { BRANDING_COLUMNS, RENDER_COLUMN_ALIASES, batchRowRequest } from './batch-row.js';

/*
 * Render batches (docs/cli.md, "Batch CSV"): a CSV's rows as render jobs, their videos in a folder,
 * a manifest so that a re-run with --resume skips what is already done. Shared by the CLI and any
 * other front end; it prints nothing itself (hooks report rows and progress).
 */

export interface RenderBatchOptions {
  csv: string;
  outDir: string;
  resume: boolean;
  /** Rows rendered at once. */
  concurrency: number;
  /** Settings from the command line that apply to every row unless the row sets them. */
  defaults: RenderRequest;
  /** Where failed rows go; default FILE.failed.csv next to the CSV (none for stdin); null: nowhere. */
  failedFile?: string | null;
}

/** What --resume needs to know about a row that succeeded. */
interface ManifestEntry {
  input_hash: string;
  job_id: string;
  sha256: string;
  size_bytes: number;
  /** A pack's row (a `formats` column): each output's file name and SHA-256, in the job's order. */
  outputs?: { format: VideoFormat; file: string; sha256: string }[];
}

interface Manifest {
  version: 1;
  rows: Record<string, ManifestEntry>;
}

export const MANIFEST_NAME = '.immoreel-batch.json';

/** Ids name the output files: letters, digits, space, dot, dash, underscore; no path tricks. */
const SAFE_ID = /^[\p{L}\p{N}][\p{L}\p{N} ._-]{0,99}$/u;

/**
 * The render request of one row (batch-row.ts): the row's columns over the command line's
 * settings. Relative photo and logo paths are relative to the CSV file's folder, so a CSV travels
 * with its photos.
 */
export function rowRenderRequest(row: BatchRow, defaults: RenderRequest, baseDir: string): RenderRequest {
  const localPath = (p: string): string => (isRemoteRef(p) || isAbsolute(p) ? p : resolve(baseDir, p));
  return batchRowRequest(row.values, row.id, { defaults, localPath });
}

/**
 * What makes two runs of a row "the same inputs": the request (without metadata) and, for local
 * files, their size and modification time — a photo replaced under the same name renders again.
 */
export async function rowInputHash(request: RenderRequest): Promise<string> {
  const { metadata: _m, webhook_url: _w, ...inputs } = request;
  const files = [...(request.photos ?? []).map(photoRef), request.branding?.logo_url, request.music].filter(
    (p): p is string => typeof p === 'string' && isAbsolute(p),
  );
  const fileStats = await Promise.all(
    files.map(async (file) => {
      const info = await stat(file).catch(() => null);
      return { file, size: info?.size ?? null, mtime_ms: info?.mtimeMs ?? null };
    }),
  );
  return hashInputs({ inputs, files: fileStats });
}

async function fileSha256(path: string): Promise<string | null> {
  try {
    return await sha256File(path);
  } catch {
    return null;
  }
}

async function readManifest(outDir: string): Promise<Manifest> {
  try {
    const parsed = JSON.parse(await readFile(join(outDir, MANIFEST_NAME), 'utf8')) as Manifest;
    if (parsed.version === 1 && typeof parsed.rows === 'object' && parsed.rows !== null) return parsed;
    return { version: 1, rows: {} };
  } catch {
    // Missing or unreadable: nothing is known to be done.
    return { version: 1, rows: {} };
  }
}

/** Errors of this machine's file system that no row can get past (the out folder full, read-only, gone). */
const LOCAL_FAULTS = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM', 'EIO', 'ENOENT']);

function isLocalFault(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 4; depth += 1) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && LOCAL_FAULTS.has(code)) return true;
    current = current.cause;
  }
  return false;
}

/** The batch's own error when the out folder cannot take more videos: what happened and what to do. */
function localFaultError(error: unknown, outDir: string): AppError {
  const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
  const why = code === 'ENOSPC' || code === 'EDQUOT' ? 'is full' : code === 'ENOENT' ? 'was removed' : `cannot be written (${code})`;
  return new AppError(
    'INTERNAL_SERVER_ERROR',
    `The batch stopped: ${outDir} ${why}. Free or fix it, then run the batch again with --resume (the videos already saved are kept).`,
    { reason: 'out_dir_unwritable', cause: error },
  );
}

export function formatEta(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return '…';
  const s = Math.round(ms / 1000);
  return s >= 3600
    ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
    : s >= 60
      ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`
      : `${s}s`;
}

/** The columns of a render batch, and the CLI option names accepted for them (docs/cli.md). */
export const RENDER_BATCH_COLUMNS: BatchColumns = {
  known: [
    'url',
    'description',
    'photos',
    'template',
    'format',
    'formats',
    'duration_s',
    'language',
    'target_audience',
    'confirmed_facts',
    'music',
    ...BRANDING_COLUMNS,
    'unbranded',
  ],
  aliases: RENDER_COLUMN_ALIASES,
};

/** One line of the batch's results (NDJSON with --json): the same envelope as every command. */
export type RenderBatchRecord =
  | {
      ok: true;
      status: 'success';
      id: string;
      skipped: boolean;
      job_id: string;
      /** The primary video; a pack's row lists every video in `videos`, the primary first. */
      video: string;
      videos?: string[];
      job?: JobRecord;
    }
  | { ok: false; status: 'error'; id: string; job_id: string | null; error: ReturnType<AppError['toJSON']> }
  /** A row whose job was canceled (Ctrl-C, SIGTERM, or `jobs cancel`): not failed, and `--resume` renders it. */
  | { ok: false; status: 'canceled'; id: string; job_id: string };

export interface RenderBatchHooks {
  /** Before any row runs: columns the batch does not know (they are ignored). */
  onUnknownColumns?(columns: string[]): void;
  /** A row finished or was skipped by --resume, in completion order. */
  onRecord(record: RenderBatchRecord): void;
  /** About once a second: "3 done, 1 failed, 2 running, 4 waiting · ETA 1m20s". */
  onProgress?(text: string): void;
  /** Aborted (Ctrl-C): running rows' jobs are canceled, waiting rows are not started. */
  signal?: AbortSignal;
  /** Something went wrong that changes no row's outcome (a cancel refused while quitting): said on stderr. */
  onWarning?(message: string): void;
}

export interface RenderBatchSummary {
  total: number;
  succeeded: number;
  skipped: number;
  failed: number;
  /** Rows whose job was canceled (not failed: `--resume` renders them). */
  canceled: number;
  /** Rows not started because the batch was interrupted. */
  notStarted: number;
  /** Rendered rows whose analysis held a fact back as doubtful (docs/analysis.md "Held back"). */
  heldBack: number;
  outDir: string;
  failedFile: string | null;
  elapsedMs: number;
}

/**
 * `render --csv FILE --out-dir DIR [--resume]`: one job per row, one video per row at DIR/<id>.mp4
 * (a pack's row: DIR/<id>-<format>.mp4 per format),
 * failed rows in FILE.failed.csv (input columns + error_code, error_message). `--resume` reads
 * DIR/.immoreel-batch.json, written as rows succeed.
 */
export async function runRenderBatch(service: Service, options: RenderBatchOptions, hooks: RenderBatchHooks): Promise<RenderBatchSummary> {
  const batch = await readBatchCsv(options.csv, RENDER_BATCH_COLUMNS);
  if (batch.unknownColumns.length > 0) hooks.onUnknownColumns?.(batch.unknownColumns);
  const outDir = resolve(options.outDir);
  await mkdir(outDir, { recursive: true });
  const baseDir = options.csv === '-' ? process.cwd() : dirname(resolve(options.csv));
  const manifest = await readManifest(outDir);
  const manifestPath = join(outDir, MANIFEST_NAME);
  let manifestWrite = Promise.resolve();
  const saveManifest = (): Promise<void> => {
    // Serialised and atomic: a killed batch leaves the previous manifest, never half of one.
    manifestWrite = manifestWrite.then(async () => {
      const temp = `${manifestPath}.${process.pid}.tmp`;
      await writeFile(temp, `${JSON.stringify(manifest, null, 2)}\n`);
      await rename(temp, manifestPath);
    });
    return manifestWrite;
  };

  // Each row's request and input hash up front: bad cells fail their row, not the batch.
  const prepared = new Map<string, { request: RenderRequest; hash: string } | AppError>();
  for (const row of batch.rows) {
    try {
      if (!SAFE_ID.test(row.id)) {
        throw badRequest(
          `id ${JSON.stringify(row.id)} cannot name a video file: use letters, digits, spaces, dots, dashes or underscores (up to 100).`,
          {
            details: [{ field: 'id', message: 'letters, digits, space . _ - only' }],
          },
        );
      }
      const request = rowRenderRequest(row, options.defaults, baseDir);
      prepared.set(row.id, { request, hash: await rowInputHash(request) });
    } catch (error) {
      prepared.set(row.id, error instanceof AppError ? error : badRequest((error as Error).message));
    }
  }

  const skip = new Set<string>();
  if (options.resume) {
    for (const row of batch.rows) {
      const entry = manifest.rows[row.id];
      const prep = prepared.get(row.id);
      if (entry === undefined || prep === undefined || prep instanceof AppError || entry.input_hash !== prep.hash) continue;
      const files = entry.outputs ?? [{ file: `${row.id}.mp4`, sha256: entry.sha256 }];
      const job = await service.getJob(entry.job_id).catch(() => null);
      if (job?.state !== 'succeeded') continue;
      const intact = await Promise.all(files.map(async (f) => (await fileSha256(join(outDir, f.file))) === f.sha256));
      if (intact.includes(false)) continue;
      skip.add(row.id);
      const videos = files.map((f) => join(outDir, f.file));
      hooks.onRecord({
        ok: true,
        status: 'success',
        id: row.id,
        skipped: true,
        job_id: entry.job_id,
        video: videos[0]!,
        ...(entry.outputs === undefined ? {} : { videos }),
      });
    }
  }

  const started = Date.now();
  const total = batch.rows.length - skip.size;
  let done = 0;
  let failedCount = 0;
  let canceledCount = 0;
  let notStarted = 0;
  /** A fault of this machine met while saving (no space, no permission): the batch stops, and says why. */
  let fatal: unknown = null;
  const running = new Set<string>();
  const showProgress = (): void => {
    const finished = done + failedCount;
    const eta = finished === 0 ? Number.NaN : ((Date.now() - started) / finished) * (total - finished);
    hooks.onProgress?.(
      `${done} done, ${failedCount} failed, ${running.size} running, ${total - finished - running.size} waiting · ETA ${formatEta(eta)}`,
    );
  };
  const progressTimer = setInterval(showProgress, 1000);
  const failed: { row: BatchRow; error: AppError }[] = [];
  let heldBack = 0;
  const jobOf = new Map<string, string>();
  const interrupted = (): boolean => hooks.signal?.aborted === true || fatal !== null;
  // Ctrl-C: cancel the jobs of the rows that are running; the rows waiting are never started.
  // Best effort while the user is quitting: a job whose cancel fails renders on; the warning says which.
  const cancel = (jobId: string): Promise<void> =>
    service.cancelJob(jobId).then(
      () => undefined,
      (error: unknown) => hooks.onWarning?.(`${jobId} could not be canceled (${(error as Error).message}); it may render on.`),
    );
  const cancelRunning = (): void => {
    for (const jobId of jobOf.values()) void cancel(jobId);
  };
  hooks.signal?.addEventListener('abort', cancelRunning, { once: true });

  const summary = await runBatch(
    batch.rows,
    async (row) => {
      const prep = prepared.get(row.id);
      if (prep === undefined || prep instanceof AppError) throw prep ?? badRequest(`Row ${row.id} could not be read.`);
      // Remote mode: the same row of the same batch names the same server job (no duplicates on a re-run).
      const queued = await service.renderVideo(prep.request, {
        idempotencyKey: batchRowIdempotencyKey(batchIdOf(options.csv, outDir), row.id, prep.hash),
      });
      jobOf.set(row.id, queued.job_id);
      // As in cancelRunning: best effort while quitting.
      if (interrupted()) await cancel(queued.job_id);
      const job = await service
        .waitForJob(queued.job_id, {
          onUpdate: (update) => {
            if (update.state === 'running') running.add(row.id);
          },
        })
        .finally(() => {
          running.delete(row.id);
          jobOf.delete(row.id);
        });
      if (job.state !== 'succeeded' || job.result === null) throw jobFailure(job);
      // A pack's row (a `formats` column) writes DIR/<id>-<format>.mp4 per output (docs/cli.md "Batch CSV").
      const pack = prep.request.formats !== undefined;
      const formats = jobFormats(job);
      const outputs = (pack ? formats : formats.slice(0, 1)).map((format) => ({
        format,
        file: pack ? `${row.id}-${format}.mp4` : `${row.id}.mp4`,
        sha256: (format === formats[0] ? job.result?.sha256 : job.outputs?.find((o) => o.format === format)?.sha256) ?? '',
      }));
      let bytes = 0;
      try {
        for (const output of outputs) {
          const size = await service.downloadVideo(job.job_id, join(outDir, output.file), { format: output.format });
          if (output.format === formats[0]) bytes = size;
        }
        manifest.rows[row.id] = {
          input_hash: prep.hash,
          job_id: job.job_id,
          sha256: job.result.sha256.replace(/^sha256:/, ''),
          size_bytes: bytes,
          ...(pack ? { outputs: outputs.map((o) => ({ ...o, sha256: o.sha256.replace(/^sha256:/, '') })) } : {}),
        };
        await saveManifest();
      } catch (error) {
        // The out folder cannot take the video (full, read-only): no later row could be saved either.
        if (isLocalFault(error)) fatal ??= error;
        throw error;
      }
      const videos = outputs.map((o) => join(outDir, o.file));
      return { job, video: videos[0]!, videos: pack ? videos : undefined };
    },
    {
      concurrency: options.concurrency,
      shouldSkip: (row) => {
        if (skip.has(row.id)) return true;
        if (interrupted()) {
          notStarted += 1;
          return true;
        }
        return false;
      },
      onOutcome: (outcome) => {
        if (outcome.ok) {
          done += 1;
          // A server older than held-back facts sends none.
          if ((outcome.value.job.held_back ?? []).length > 0) heldBack += 1;
          hooks.onRecord({
            ok: true,
            status: 'success',
            id: outcome.id,
            skipped: false,
            job_id: outcome.value.job.job_id,
            video: outcome.value.video,
            ...(outcome.value.videos === undefined ? {} : { videos: outcome.value.videos }),
            job: outcome.value.job,
          });
        } else if (outcome.error instanceof JobFailedError && outcome.error.reason === 'canceled') {
          canceledCount += 1;
          hooks.onRecord({ ok: false, status: 'canceled', id: outcome.id, job_id: outcome.error.jobId });
        } else {
          failedCount += 1;
          failed.push({ row: outcome.row, error: outcome.error });
          const jobId = outcome.error instanceof JobFailedError ? outcome.error.jobId : null;
          hooks.onRecord({ ok: false, status: 'error', id: outcome.id, job_id: jobId, error: outcome.error.toJSON() });
        }
        showProgress();
      },
    },
  );
  clearInterval(progressTimer);
  hooks.signal?.removeEventListener('abort', cancelRunning);
  await manifestWrite;

  const failedFile = options.failedFile === undefined ? failedFileFor(options.csv) : options.failedFile;
  // A fault of the out folder is the batch's, not its rows': the rows it stopped are not "failed".
  await updateFailedCsv(failedFile, batch.columns, fatal === null ? failed : failed.filter((f) => !isLocalFault(f.error)));
  if (fatal !== null) throw localFaultError(fatal, outDir);
  return {
    total: summary.total,
    succeeded: summary.succeeded,
    skipped: summary.skipped - notStarted,
    failed: summary.failed - canceledCount,
    canceled: canceledCount,
    notStarted,
    heldBack,
    outDir,
    failedFile: failed.length > 0 ? failedFile : null,
    elapsedMs: Date.now() - started,
  };
}

import { spawn } from 'node:child_process';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { batchIdOf, batchRowIdempotencyKey } from '../../client/idempotency.js';
import { AppError, badRequest, ERROR_CODES, type ErrorCode } from '../../core/errors.js';
import { sha256File } from '../../core/files.js';
import { isRemoteRef } from '../../core/refs.js';
import { resolveDataDir } from '../../core/paths.js';
import type { Branding, JobRecord, RenderRequest, Service } from '../../core/types.js';
import { failedFileFor, readBatchCsv, runBatch, writeFailedCsv, type BatchRow } from '../../jobs/batch.js';
import { hashInputs } from '../../jobs/hash.js';
import { LocalService } from '../../service/local.js';
import type { CommandContext, GlobalOptions } from '../context.js';

/*
 * `immoreel render --csv FILE --out-dir DIR [--resume] [--concurrency N]` (docs/cli.md).
 * One job per row, one video per row at DIR/<id>.mp4, NDJSON results on stdout in completion
 * order, failed rows in FILE.failed.csv (input columns + error_code, error_message), exit 3 when
 * any row failed. `--resume` reads DIR/.immoreel-batch.json, written as rows succeed.
 */

export interface RenderBatchOptions {
  csv: string;
  outDir: string;
  resume: boolean;
  concurrency?: number;
  /** Settings from the command line that apply to every row unless the row sets them. */
  defaults: RenderRequest;
}

/** What --resume needs to know about a row that succeeded. */
interface ManifestEntry {
  input_hash: string;
  job_id: string;
  sha256: string;
  size_bytes: number;
}

interface Manifest {
  version: 1;
  rows: Record<string, ManifestEntry>;
}

export const MANIFEST_NAME = '.immoreel-batch.json';

/** Ids name the output files: letters, digits, space, dot, dash, underscore; no path tricks. */
const SAFE_ID = /^[\p{L}\p{N}][\p{L}\p{N} ._-]{0,99}$/u;

const BRANDING_COLUMNS = ['agency_name', 'agent_name', 'phone', 'email', 'logo_url', 'primary_color'] as const;

function parseBoolean(value: string, field: string): boolean {
  if (/^(1|true|yes|y|oui)$/i.test(value)) return true;
  if (/^(0|false|no|n|non)$/i.test(value)) return false;
  throw badRequest(`${field} ${JSON.stringify(value)} is not a yes/no value: use true or false.`, { details: [{ field, message: 'must be true or false' }] });
}

/**
 * The render request of one row: the row's columns over the command line's settings. The listing
 * inputs (url, description, photos) come only from the row. Relative photo and logo paths are
 * relative to the CSV file's folder, so a CSV travels with its photos.
 */
export function rowRenderRequest(row: BatchRow, defaults: RenderRequest, baseDir: string): RenderRequest {
  const v = row.values;
  const pick = (key: string): string | undefined => (v[key] === undefined || v[key] === '' ? undefined : v[key]);
  const localPath = (p: string): string => (isRemoteRef(p) || isAbsolute(p) ? p : resolve(baseDir, p));
  const { url: _u, description: _d, html: _h, listing: _l, photos: _p, ...shared } = defaults;
  const request: RenderRequest = { ...shared };
  const url = pick('url');
  const description = v.description;
  if (url !== undefined) request.url = url;
  // An empty description cell is passed on when there is no url, so validation names the field.
  if (description !== undefined && (description !== '' || url === undefined)) request.description = description;
  const photos = pick('photos');
  if (photos !== undefined) request.photos = photos.split('|').map((p) => p.trim()).filter((p) => p !== '').map(localPath);
  for (const key of ['template', 'language', 'target_audience', 'music'] as const) {
    const value = pick(key);
    if (value !== undefined) (request as Record<string, unknown>)[key] = value;
  }
  const format = pick('format');
  if (format !== undefined) request.format = format as RenderRequest['format'];
  const duration = pick('duration_s');
  if (duration !== undefined) {
    const n = Number(duration);
    if (!Number.isFinite(n)) throw badRequest(`duration_s ${JSON.stringify(duration)} is not a number of seconds (10–90).`, { details: [{ field: 'duration_s', message: 'must be a number' }] });
    request.duration_s = n;
  }
  const branding: Branding = { ...(defaults.branding ?? {}) };
  for (const key of BRANDING_COLUMNS) {
    const value = pick(key);
    if (value !== undefined) branding[key] = key === 'logo_url' ? localPath(value) : value;
  }
  const unbranded = pick('unbranded');
  if (unbranded !== undefined) branding.unbranded = parseBoolean(unbranded, 'unbranded');
  if (Object.keys(branding).length > 0) request.branding = branding;
  request.metadata = { ...(defaults.metadata ?? {}), batch_row_id: row.id };
  return request;
}

/**
 * What makes two runs of a row "the same inputs": the request (without metadata) and, for local
 * files, their size and modification time — a photo replaced under the same name renders again.
 */
export async function rowInputHash(request: RenderRequest): Promise<string> {
  const { metadata: _m, webhook_url: _w, ...inputs } = request;
  const files = [...(request.photos ?? []), request.branding?.logo_url, request.music].filter(
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
  return sha256File(path).catch(() => null);
}

async function readManifest(outDir: string): Promise<Manifest> {
  try {
    const parsed = JSON.parse(await readFile(join(outDir, MANIFEST_NAME), 'utf8')) as Manifest;
    if (parsed.version === 1 && typeof parsed.rows === 'object' && parsed.rows !== null) return parsed;
  } catch {
    // Missing or unreadable: nothing is known to be done.
  }
  return { version: 1, rows: {} };
}

/** The job's own error code when it is one of ours (exit codes follow it), else RENDER_FAILED. */
function jobFailure(job: JobRecord): AppError {
  const code = job.error?.code;
  const known = code !== undefined && code in ERROR_CODES ? (code as ErrorCode) : 'RENDER_FAILED';
  if (job.state === 'canceled') return new AppError('RENDER_FAILED', `Job ${job.job_id} was canceled.`, { reason: 'canceled' });
  return new AppError(known, job.error?.message ?? `Job ${job.job_id} failed.`);
}

function formatEta(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return '…';
  const s = Math.round(ms / 1000);
  return s >= 3600 ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m` : s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

export async function runRenderBatch(ctx: CommandContext, service: Service, options: RenderBatchOptions): Promise<void> {
  const { output } = ctx;
  const batch = await readBatchCsv(options.csv);
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

  const local = service instanceof LocalService ? service : null;
  if (options.concurrency !== undefined) local?.setConcurrency(options.concurrency);
  const concurrency = options.concurrency ?? local?.jobs().concurrency ?? 4;

  // Each row's request and input hash up front: bad cells fail their row, not the batch.
  const prepared = new Map<string, { request: RenderRequest; hash: string } | AppError>();
  for (const row of batch.rows) {
    try {
      if (!SAFE_ID.test(row.id)) {
        throw badRequest(`id ${JSON.stringify(row.id)} cannot name a video file: use letters, digits, spaces, dots, dashes or underscores (up to 100).`, {
          details: [{ field: 'id', message: 'letters, digits, space . _ - only' }],
        });
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
      const video = join(outDir, `${row.id}.mp4`);
      const job = await service.getJob(entry.job_id).catch(() => null);
      if (job?.state !== 'succeeded' || (await fileSha256(video)) !== entry.sha256) continue;
      skip.add(row.id);
      output.record({ id: row.id, ok: true, skipped: true, job_id: entry.job_id, video });
    }
  }

  const started = Date.now();
  const total = batch.rows.length - skip.size;
  let done = 0;
  let failedCount = 0;
  const running = new Set<string>();
  const progress = output.progress(`Rendering ${total} video${total === 1 ? '' : 's'}…`);
  const showProgress = (): void => {
    const finished = done + failedCount;
    const eta = finished === 0 ? Number.NaN : ((Date.now() - started) / finished) * (total - finished);
    progress.update(`Rendering: ${done} done, ${failedCount} failed, ${running.size} running, ${total - finished - running.size} waiting · ETA ${formatEta(eta)}`);
  };
  const progressTimer = setInterval(showProgress, 1000);
  const failed: { row: BatchRow; error: AppError }[] = [];
  const jobOf = new Map<string, string>();

  const summary = await runBatch(
    batch.rows,
    async (row) => {
      const prep = prepared.get(row.id);
      if (prep === undefined || prep instanceof AppError) throw prep ?? badRequest(`Row ${row.id} could not be read.`);
      // Remote mode: the same row of the same batch names the same server job (no duplicates on a re-run).
      const queued = await service.renderVideo(prep.request, { idempotencyKey: batchRowIdempotencyKey(batchIdOf(options.csv, outDir), row.id, prep.hash) });
      jobOf.set(row.id, queued.job_id);
      const job = await service.waitForJob(queued.job_id, {
        onUpdate: (update) => {
          if (update.state === 'running') running.add(row.id);
        },
      }).finally(() => running.delete(row.id));
      if (job.state !== 'succeeded' || job.result === null) throw jobFailure(job);
      const video = join(outDir, `${row.id}.mp4`);
      const bytes = await service.downloadVideo(job.job_id, video);
      manifest.rows[row.id] = { input_hash: prep.hash, job_id: job.job_id, sha256: job.result.sha256.replace(/^sha256:/, ''), size_bytes: bytes };
      await saveManifest();
      return { job, video };
    },
    {
      concurrency,
      shouldSkip: (row) => skip.has(row.id),
      onOutcome: (outcome) => {
        if (outcome.ok) {
          done += 1;
          output.record({ id: outcome.id, ok: true, skipped: false, video: outcome.value.video, job: outcome.value.job });
        } else {
          failedCount += 1;
          failed.push({ row: outcome.row, error: outcome.error });
          output.record({ id: outcome.id, ok: false, job_id: jobOf.get(outcome.id) ?? null, error: outcome.error.toJSON() });
        }
        showProgress();
      },
    },
  );
  clearInterval(progressTimer);
  progress.stop();
  await manifestWrite;

  const failedFile = failedFileFor(options.csv);
  if (failed.length > 0) await writeFailedCsv(failedFile, batch.columns, failed);
  else await rm(failedFile, { force: true }); // a stale list from an earlier run would mislead
  const minutes = (Date.now() - started) / 60_000;
  output.info(
    `${summary.total} rows: ${summary.succeeded} rendered, ${summary.skipped} already done, ${summary.failed} failed` +
      ` in ${formatEta(Date.now() - started)}${summary.succeeded > 0 ? ` (${(summary.succeeded / minutes).toFixed(1)} videos/min)` : ''}; videos in ${outDir}` +
      (failed.length > 0 ? `; failed rows in ${failedFile}` : ''),
  );
  if (summary.failed > 0) {
    throw new AppError('BATCH_ROWS_FAILED', `${summary.failed} of ${summary.total} rows failed; fix them in ${failedFile} and run it again.`);
  }
}

/**
 * `render --no-wait`: starts `immoreel worker --until-idle` on the same data directory, detached
 * (own process group, no stdio), so it drains the queue after this command has exited.
 */
export function startDetachedWorker(globals: GlobalOptions): void {
  const bin = fileURLToPath(new URL('../../../bin/immoreel.js', import.meta.url));
  const child = spawn(process.execPath, [bin, '--quiet', '--data-dir', resolveDataDir(globals.dataDir), 'worker', '--until-idle'], {
    detached: true,
    stdio: 'ignore',
    env: process.env,
  });
  child.unref();
}

import { mkdir, stat } from 'node:fs/promises';
import { dirname, extname, join, resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import type { ChalkInstance } from 'chalk';
import type { Command } from 'commander';
import { AppError, badRequest } from '../../core/errors.js';
import { formatPathOf, posterPathOf } from '../../core/paths.js';
import { jobFormats } from '../../core/job-outputs.js';
import type { JobRecord, JobState, VideoFormat } from '../../core/types.js';
import type { Service } from '../../core/service.js';
import { assertJobId, isJobId } from '../../core/job-ids.js';
import { parseAge } from '../../jobs/age.js';
import { JobManager } from '../../jobs/manager.js';
import { MAX_LIST_LIMIT } from '../../core/job-limits.js';
import { contextFor, type CommandContext } from '../command-context.js';
import { assertWritableFolder } from '../output-folders.js';
import { followUp } from '../hints.js';
import { jobFailure } from '../../jobs/failure.js';

/*
 * `immoreel jobs …` (docs/jobs.md, docs/cli.md). Every subcommand except `purge` goes through the Service, so
 * it works the same in local and remote mode, and `--json` prints exactly the HTTP API's bodies:
 *   show, wait, cancel → { ok: true, status: 'success', job }
 *   list               → { ok: true, status: 'success', jobs, next_cursor }
 */

const percent = (progress: number): string => `${Math.round(progress * 100)}%`;

function when(iso: string | null): string {
  return iso === null ? '-' : iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

function stateLabel(job: JobRecord, style: ChalkInstance): string {
  const colour = { queued: style.gray, running: style.cyan, succeeded: style.green, failed: style.red, canceled: style.yellow }[job.state];
  const detail = job.state === 'running' ? ` ${job.stage ?? ''} ${percent(job.progress)}` : '';
  return colour(`${job.state}${detail}`);
}

/** The readable form of one job (`jobs show` without --json). */
export function formatJob(job: JobRecord, style: ChalkInstance): string {
  const lines = [`${style.bold(job.job_id)}  ${stateLabel(job, style)}`];
  if (job.listing !== null) {
    const where = [job.listing.district, job.listing.city].filter(Boolean).join(', ');
    // Titles often name the place already ("… — Maârif, Casablanca"): do not say it twice.
    const said = where === '' || job.listing.title.includes(job.listing.city ?? where);
    lines.push(`${job.listing.title}${said ? '' : ` — ${where}`}`);
  }
  const formats = jobFormats(job);
  lines.push(`template ${job.template} · ${formats.join(' + ')} · ${job.language} · attempts ${job.attempts}`);
  lines.push(`created ${when(job.created_at)} · started ${when(job.started_at)} · finished ${when(job.finished_at)}`);
  // A pack lists each of its videos (docs/cli.md "Video packs"); one video reads as before packs.
  const videos =
    job.outputs !== null && job.outputs !== undefined && job.outputs.length > 1 ? job.outputs : job.result === null ? [] : [job.result];
  for (const r of videos) {
    const format = 'format' in r ? `${r.format} ` : '';
    lines.push(
      `${format}video ${r.width}x${r.height} ${r.fps} fps, ${r.duration_s.toFixed(1)} s, ${(r.size_bytes / 1e6).toFixed(1)} MB, ${r.video_codec}/${r.audio_codec}`,
    );
    lines.push(r.expired_at === undefined ? `  ${r.video_url}` : style.yellow(`  removed by jobs purge on ${when(r.expired_at)}`));
  }
  if (job.error !== null) lines.push(style.red(`error ${job.error.code}: ${job.error.message}`));
  for (const w of job.warnings) lines.push(style.yellow(`  ! ${w.message} [${w.code}]`));
  return lines.join('\n');
}

function formatJobTable(jobs: JobRecord[], style: ChalkInstance): string {
  if (jobs.length === 0) return 'No jobs.';
  const rows = jobs.map((job) => [job.job_id, stateLabel(job, style), when(job.created_at), job.template, job.listing?.title ?? '']);
  const header = ['JOB', 'STATE', 'CREATED', 'TEMPLATE', 'LISTING'];
  // Widths from the uncoloured text so that colours do not misalign the columns.
  const plain = (s: string): string => stripVTControlCharacters(s);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => plain(r[i]!).length)));
  const line = (cells: string[]): string =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c + ' '.repeat(widths[i]! - plain(c).length))).join('  ');
  return [style.bold(line(header)), ...rows.map(line)].join('\n');
}

function printJob(ctx: CommandContext, job: JobRecord): void {
  if (ctx.output.json) ctx.output.data({ ok: true, status: 'success', job });
  else ctx.output.text(formatJob(job, ctx.output.style));
}

async function withService<T>(
  command: Command,
  run: (ctx: CommandContext, service: Awaited<ReturnType<CommandContext['openService']>>) => Promise<T>,
): Promise<T> {
  const ctx = contextFor(command);
  const service = await ctx.openService();
  try {
    return await run(ctx, service);
  } finally {
    await service.close();
  }
}

function parseLimit(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIST_LIMIT) {
    throw badRequest(`--limit must be a whole number from 1 to ${MAX_LIST_LIMIT}, not ${JSON.stringify(value)}.`);
  }
  return n;
}

/**
 * A job id, or a unique prefix of one as `git` accepts for commits (`job_01m8`, `01m8`): the jobs
 * visible to this data directory or key are searched, newest first (docs/cli.md, "Job ids, purge, JSON").
 */
export async function resolveJobId(service: Service, input: string): Promise<string> {
  const typed: string = input;
  if (isJobId(input)) return input;
  const prefix = (typed.startsWith('job_') ? typed : `job_${typed}`).toLowerCase();
  if (!/^job_[0-9a-z]{4,25}$/.test(prefix)) return assertJobId(input);
  const matches: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 50; page += 1) {
    const list = await service.listJobs({ limit: MAX_LIST_LIMIT, cursor });
    matches.push(...list.jobs.map((j) => j.job_id).filter((id) => id.startsWith(prefix)));
    if (list.next_cursor === null || matches.length > 1) break;
    cursor = list.next_cursor;
  }
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new AppError('NOT_FOUND', `No job id starts with ${prefix}: see \`immoreel jobs list\`.`);
  throw badRequest(`${input} is the start of several job ids (${matches.slice(0, 3).join(', ')}…): give more characters.`, {
    reason: 'ambiguous_job_id',
  });
}

/** The exit status of `jobs wait`: a job that ended without a video carries its own error code. */
export function assertSucceeded(job: JobRecord): JobRecord {
  if (job.state === 'failed' || job.state === 'canceled') throw jobFailure(job);
  return job;
}

/** `jobs list`. */
export async function listJobs(flags: { state?: JobState; limit: string; cursor?: string }, command: Command): Promise<void> {
  await withService(command, async (ctx, service) => {
    const page = await service.listJobs({ state: flags.state, limit: parseLimit(flags.limit), cursor: flags.cursor });
    if (ctx.output.json) {
      ctx.output.data({ ok: true, status: 'success', jobs: page.jobs, next_cursor: page.next_cursor });
      return;
    }
    ctx.output.text(formatJobTable(page.jobs, ctx.output.style));
    if (page.next_cursor !== null) {
      const filters = [
        ...(flags.state === undefined ? [] : ['--state', flags.state]),
        ...(flags.limit === '20' ? [] : ['--limit', flags.limit]),
      ];
      ctx.output.info(`More: ${followUp(ctx.config, 'jobs', 'list', ...filters, '--cursor', page.next_cursor)}`);
    }
  });
}

/** `jobs show`. */
export async function showJob(input: string, _flags: unknown, command: Command): Promise<void> {
  await withService(command, async (ctx, service) => printJob(ctx, await service.getJob(await resolveJobId(service, input))));
}

/** `jobs wait`: exit 7 when the job did not succeed. */
export async function waitJob(input: string, flags: { timeout?: string }, command: Command): Promise<void> {
  await withService(command, async (ctx, service) => {
    const jobId = await resolveJobId(service, input);
    const timeoutMs = flags.timeout === undefined ? undefined : Number(flags.timeout) * 1000;
    if (timeoutMs !== undefined && !(timeoutMs > 0))
      throw badRequest(`--timeout must be a number of seconds, not ${JSON.stringify(flags.timeout)}.`);
    const progress = ctx.output.progress(`Waiting for ${jobId}…`);
    let job: JobRecord;
    try {
      job = await service.waitForJob(jobId, {
        timeoutMs,
        onUpdate: (update) =>
          progress.update(
            `${update.job_id} ${update.state}${update.state === 'running' ? ` · ${update.stage ?? ''} ${percent(update.progress)}` : ''}`,
          ),
      });
    } catch (error) {
      progress.stop();
      throw error;
    }
    if (job.state === 'succeeded') progress.succeed(`${job.job_id} succeeded`);
    else progress.fail(`${job.job_id} ${job.state}`);
    printJob(ctx, assertSucceeded(job));
  });
}

/** `jobs cancel`. */
export async function cancelJob(input: string, _flags: unknown, command: Command): Promise<void> {
  await withService(command, async (ctx, service) => {
    const jobId = await resolveJobId(service, input);
    // Local mode changes this machine's records: name them (remote mode acts on the server, already named by its URL).
    if (ctx.mode === 'local') ctx.output.info(`Canceling ${jobId} in ${ctx.recordsLabel()}.`);
    const job = await service.cancelJob(jobId);
    if (job.state !== 'canceled')
      ctx.output.info(`${job.job_id} had already ${job.state === 'succeeded' ? 'succeeded' : 'failed'}; nothing to cancel.`);
    printJob(ctx, job);
  });
}

/** `jobs download`. */
export async function downloadJob(
  input: string,
  flags: { out: string; force?: boolean; poster?: boolean; format?: VideoFormat | 'all' },
  command: Command,
): Promise<void> {
  await withService(command, async (ctx, service) => {
    const jobId = await resolveJobId(service, input);
    // A directory (existing, or named with a trailing /) receives DIR/JOB_ID.mp4 (decided here, so local and remote services agree).
    const isDir = (await stat(flags.out).catch(() => null))?.isDirectory() === true || /[\\/]$/.test(flags.out);
    // One output of a pack other than through `all` is named after its format in a folder (docs/cli.md "Video packs").
    const single = flags.format === undefined || flags.format === 'all' ? null : flags.format;
    const path = resolve(isDir ? join(flags.out, `${jobId}${single === null ? '' : `-${single}`}.mp4`) : flags.out);
    if (!isDir && extname(path).toLowerCase() !== '.mp4') {
      throw badRequest(`--out ${flags.out} must name an .mp4 file (the video is MP4), or a folder.`, {
        details: [{ field: 'out', message: 'must end in .mp4' }],
      });
    }
    if (isDir) await mkdir(dirname(path), { recursive: true });
    else await assertWritableFolder(dirname(path), '--out');
    // `--format all`: every output, `<file>-<format>.mp4`, in the job's order (the job is read once for its formats).
    const job = flags.format === 'all' ? await service.getJob(jobId) : null;
    const wanted: { format: VideoFormat | undefined; path: string }[] =
      job === null || job.state !== 'succeeded'
        ? [{ format: single ?? undefined, path }]
        : jobFormats(job).map((format) => ({ format, path: formatPathOf(path, format) as string }));
    // A job without a video says so (exit 7) before any word about the file.
    for (const target of wanted) {
      if (
        flags.force !== true &&
        (await stat(target.path).catch(() => null)) !== null &&
        (job ?? (await service.getJob(jobId))).state === 'succeeded'
      ) {
        throw badRequest(`${target.path} already exists: pass --force to overwrite it, or choose another --out.`, {
          reason: 'file_exists',
          details: [{ field: 'out', message: 'file exists' }],
        });
      }
    }
    const saved: { format?: VideoFormat; path: string; size_bytes: number; poster?: string }[] = [];
    for (const target of wanted) {
      const choice = target.format === undefined ? {} : { format: target.format };
      const bytes = await service.downloadVideo(jobId, target.path, choice);
      // Next to the video, named after it (docs/api.md "The poster"); `path` ends in .mp4 (checked above).
      const poster = flags.poster === true ? (posterPathOf(target.path) as string) : undefined;
      if (poster !== undefined) await service.downloadPoster(jobId, poster, choice);
      saved.push({ ...choice, path: target.path, size_bytes: bytes, ...(poster === undefined ? {} : { poster }) });
    }
    const [first] = saved as [(typeof saved)[number], ...typeof saved];
    if (ctx.output.json)
      ctx.output.data({
        ok: true,
        status: 'success',
        job_id: jobId,
        ...first,
        ...(flags.format === 'all' ? { outputs: saved } : {}),
      });
    else
      for (const file of saved)
        ctx.output.text(
          `Saved ${file.path} (${(file.size_bytes / 1e6).toFixed(1)} MB)${file.poster === undefined ? '' : ` and ${file.poster}`}`,
        );
  });
}

/** `jobs purge`: on the data directory, or the configured database and bucket; says which first. */
export async function purgeJobs(flags: { olderThan: string; dryRun?: boolean; yes?: boolean }, command: Command): Promise<void> {
  const ctx = contextFor(command);
  if (ctx.mode === 'remote') {
    throw badRequest(
      "jobs purge works on this machine's store (the data directory, or --database-url/--storage-url); run it where the jobs are stored, without --profile/--base-url (the server keeps its own retention).",
    );
  }
  const olderThanMs = parseAge(flags.olderThan);
  const { dataDir } = ctx.config;
  const stores = await ctx.openJobStores();
  const manager = await JobManager.open({
    dataDir,
    ...stores,
    closeWith: () => stores.close(),
    runWorkers: false,
    ffmpeg: ctx.config.ffmpeg,
    timings: ctx.config.jobs,
  }).catch(async (error: unknown) => {
    await stores.close();
    throw error;
  });
  try {
    const store = stores.describe();
    const planned = await manager.purge(olderThanMs, { dryRun: true });
    const what = `${planned.jobs} finished job${planned.jobs === 1 ? '' : 's'} (${(planned.bytes / 1e6).toFixed(1)} MB)`;
    if (flags.dryRun === true) {
      if (ctx.output.json)
        ctx.output.data({ ok: true, status: 'success', dry_run: true, store, purged_jobs: planned.jobs, freed_bytes: planned.bytes });
      else ctx.output.text(`Would purge ${what} from ${store}; nothing was deleted.`);
      return;
    }
    // At a terminal, deleting videos is confirmed first (--yes for scripts; pipes and cron never ask).
    if (planned.jobs > 0 && flags.yes !== true && !ctx.output.json && process.stdin.isTTY === true && process.stderr.isTTY === true) {
      const { createInterface } = await import('node:readline/promises');
      const prompt = createInterface({ input: process.stdin, output: process.stderr });
      const answer = await prompt
        .question(`Delete the videos and work files of ${what} from ${store}? [y/N] `)
        .finally(() => prompt.close());
      if (!/^y(es)?$/i.test(answer.trim())) {
        ctx.output.info('Nothing was deleted.');
        return;
      }
    }
    const summary = await manager.purge(olderThanMs);
    if (ctx.output.json) ctx.output.data({ ok: true, status: 'success', store, purged_jobs: summary.jobs, freed_bytes: summary.bytes });
    else
      ctx.output.text(
        `Purged ${summary.jobs} finished job${summary.jobs === 1 ? '' : 's'} from ${store}, freed ${(summary.bytes / 1e6).toFixed(1)} MB.`,
      );
  } finally {
    await manager.close();
  }
}

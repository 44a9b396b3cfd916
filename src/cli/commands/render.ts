import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { AppError, badRequest } from '../../core/errors.js';
import { formatPathOf, posterPathOf } from '../../core/paths.js';
import { splitFormats } from '../../jobs/batch-row.js';
import { jobFormats } from '../../core/job-outputs.js';
import { isRemoteRef } from '../../core/refs.js';
import type { JobRecord, Property, VideoFormat } from '../../core/types.js';
import { MAX_PHOTOS, type Branding, type PhotoItem, type RenderRequest } from '../../core/requests.js';
import type { Service } from '../../core/service.js';
import { demoBranding, demoListingText, demoPhotos } from '../../render/demo.js';
import { jobFailure } from '../../jobs/failure.js';
import { defaultConcurrency } from '../../core/job-limits.js';
import { formatEta, runRenderBatch } from '../../jobs/render-batch.js';
import { contextFor, type CommandContext } from '../command-context.js';
import { followUp } from '../hints.js';
import { confirmedFactsFlag, readInputRequest, type InputFlags } from '../inputs.js';
import { interruptible, interruptSignal, wasInterrupted } from '../interrupt.js';
import { assertWritableFolder } from '../output-folders.js';
import { parseCount, withFlagNames } from '../parse.js';
import { IMAGE_FORMAT_NAMES, isImageFileName, REFUSED_IMAGE_EXTENSIONS } from '../../core/images.js';

export interface RenderFlags extends InputFlags {
  listingJson?: string;
  photos?: string;
  photosDir?: string;
  focus?: string[];
  template?: string;
  format?: string;
  formats?: string;
  duration?: string;
  music?: string;
  agency?: string;
  agent?: string;
  phone?: string;
  email?: string;
  logo?: string;
  color?: string;
  unbranded?: boolean;
  out?: string;
  force?: boolean;
  poster?: boolean;
  wait?: boolean;
  csv?: string;
  outDir?: string;
  resume?: boolean;
  concurrency?: string;
}

/** --photos P1,P2 and --photos-dir D: URLs kept, local files made absolute and checked now. */
export function collectPhotos(flags: Pick<RenderFlags, 'photos' | 'photosDir'>): string[] {
  const photos: string[] = [];
  if (flags.photos !== undefined) {
    for (const raw of flags.photos
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '')) {
      if (isRemoteRef(raw)) {
        photos.push(raw);
        continue;
      }
      const file = isAbsolute(raw) ? raw : resolve(raw);
      if (!existsSync(file) || !statSync(file).isFile()) {
        throw badRequest(`Photo ${raw} does not exist (--photos takes image files or URLs separated by commas).`, {
          details: [{ field: 'photos', message: `${raw}: no such file` }],
        });
      }
      photos.push(file);
    }
  }
  if (flags.photosDir !== undefined) {
    const dir = resolve(flags.photosDir);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
      throw badRequest(`--photos-dir ${flags.photosDir} is not a folder.`, { details: [{ field: 'photos', message: 'not a folder' }] });
    }
    const names = readdirSync(dir).filter((name) => !name.startsWith('.'));
    const files = names
      .filter((name) => isImageFileName(name))
      .sort((a, b) => a.localeCompare(b, undefined, { numeric: true }))
      .map((name) => join(dir, name));
    if (files.length === 0) {
      const refused = names.filter((name) => REFUSED_IMAGE_EXTENSIONS.some((extension) => name.toLowerCase().endsWith(extension)));
      const why =
        refused.length === 0
          ? ''
          : ` ${refused.slice(0, 3).join(', ')}${refused.length > 3 ? '…' : ''}: not an accepted format; export ${refused.length === 1 ? 'it' : 'them'} as JPEG.`;
      throw badRequest(`--photos-dir ${flags.photosDir} holds no ${IMAGE_FORMAT_NAMES} photos.${why}`, {
        details: [{ field: 'photos', message: 'no image files' }],
      });
    }
    photos.push(...files);
  }
  return photos;
}

async function readStdinText(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** An `analyze --json` document, or the `property` object alone. */
async function readListingJson(file: string): Promise<Property> {
  let text: string;
  try {
    text = file === '-' ? await readStdinText() : await readFile(file, 'utf8');
  } catch (error) {
    throw badRequest(
      `Cannot read --listing-json ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}.`,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw badRequest(`--listing-json ${file} is not JSON: give the output of \`immoreel analyze --json\`.`, {
      details: [{ field: 'listing', message: 'not JSON' }],
    });
  }
  const object = data as { property?: unknown };
  return (typeof object === 'object' && object !== null && 'property' in object ? object.property : data) as Property;
}

function brandingFromFlags(flags: RenderFlags, base: Branding): Branding {
  const branding: Branding = { ...base };
  if (flags.agency !== undefined) branding.agency_name = flags.agency;
  if (flags.agent !== undefined) branding.agent_name = flags.agent;
  if (flags.phone !== undefined) branding.phone = flags.phone;
  if (flags.email !== undefined) branding.email = flags.email;
  if (flags.logo !== undefined) branding.logo_url = isRemoteRef(flags.logo) ? flags.logo : resolve(flags.logo);
  if (flags.color !== undefined) branding.primary_color = flags.color;
  if (flags.unbranded) branding.unbranded = true;
  return branding;
}

function parseDuration(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value.replace(/s$/i, ''));
  if (!Number.isFinite(seconds))
    throw badRequest(`--duration must be a number of seconds (10–90), not ${JSON.stringify(value)}.`, {
      details: [{ field: 'duration_s', message: 'not a number' }],
    });
  return seconds;
}

/** The settings every row or single render shares: everything but the listing inputs. */
function settingsFromFlags(flags: RenderFlags, demo: boolean): RenderRequest {
  const request: RenderRequest = {};
  if (flags.template !== undefined) request.template = flags.template;
  if (flags.format !== undefined && flags.formats !== undefined) {
    throw badRequest('--format renders one video and --formats a pack: give one of them (e.g. --formats landscape,portrait).', {
      details: [{ field: 'formats', message: 'not together with --format' }],
    });
  }
  if (flags.format !== undefined) request.format = flags.format as RenderRequest['format'];
  if (flags.formats !== undefined) request.formats = splitFormats(flags.formats);
  const duration = parseDuration(flags.duration);
  if (duration !== undefined) request.duration_s = duration;
  if (flags.language !== undefined) request.language = flags.language as RenderRequest['language'];
  if (flags.audience !== undefined) request.target_audience = flags.audience as RenderRequest['target_audience'];
  Object.assign(request, confirmedFactsFlag(flags));
  if (flags.music !== undefined) {
    const named = /^[a-z0-9-]+$/.test(flags.music) && !existsSync(flags.music);
    request.music = named || isRemoteRef(flags.music) ? flags.music : resolve(flags.music);
  }
  // The demo carries its agency's branding, unless told otherwise.
  const branding = brandingFromFlags(flags, demo && !flags.unbranded ? demoBranding() : {});
  if (Object.keys(branding).length > 0) request.branding = branding;
  return request;
}

export async function buildRenderRequest(flags: RenderFlags, stdinArg: string | undefined): Promise<RenderRequest> {
  const request = settingsFromFlags(flags, Boolean(flags.demo));
  if (flags.listingJson !== undefined) {
    if (
      flags.url !== undefined ||
      flags.htmlFile !== undefined ||
      flags.description !== undefined ||
      flags.descriptionFile !== undefined ||
      stdinArg !== undefined ||
      flags.demo
    ) {
      throw badRequest('--listing-json comes alone: it replaces --url, --html-file, --description and --demo.');
    }
    request.listing = await readListingJson(flags.listingJson);
  } else if (flags.demo) {
    request.description = demoListingText();
  } else {
    Object.assign(request, await readInputRequest(flags, stdinArg));
    // readInputRequest fills language/audience defaults of analyze; the render flags above win.
    if (flags.language !== undefined) request.language = flags.language as RenderRequest['language'];
    if (flags.audience !== undefined) request.target_audience = flags.audience as RenderRequest['target_audience'];
  }
  const photos = collectPhotos(flags);
  if (photos.length > 0) request.photos = withFocus(photos, flags.focus ?? []);
  else if (flags.demo) request.photos = withFocus(demoPhotos(), flags.focus ?? []);
  else if ((flags.focus ?? []).length > 0) throw badRequest('--focus names photos given with --photos or --photos-dir: give them.');
  return request;
}

/**
 * `--focus FILE=X,Y` (repeatable) on the photos it names: a photo is named by its path as given,
 * its file name, or its URL. A focus naming no photo, or not two fractions, is an error.
 */
export function withFocus(photos: string[], focus: string[]): PhotoItem[] {
  const items: PhotoItem[] = [...photos];
  for (const raw of focus) {
    const match = /^(.+)=\s*([0-9.]+)\s*,\s*([0-9.]+)\s*$/.exec(raw);
    const x = Number(match?.[2]);
    const y = Number(match?.[3]);
    if (match === null || !(x >= 0 && x <= 1) || !(y >= 0 && y <= 1)) {
      throw badRequest(`--focus ${raw}: give FILE=X,Y with X and Y fractions from 0 to 1 (e.g. salon.jpg=0.2,0.5).`, {
        details: [{ field: 'photos', message: `--focus ${raw}: not FILE=X,Y` }],
      });
    }
    const name = (match[1] as string).trim();
    const index = photos.findIndex((p) => p === name || p === resolve(name) || basename(p) === name);
    if (index === -1) {
      throw badRequest(
        `--focus ${raw}: no photo ${name} among the photos given (${photos
          .map((p) => basename(p))
          .slice(0, 4)
          .join(', ')}…).`,
        {
          details: [{ field: 'photos', message: `--focus names ${name}, which is not given` }],
        },
      );
    }
    items[index] = { url: photos[index] as string, focus: { x, y } };
  }
  return items;
}

function progressBar(job: JobRecord): string {
  const width = 24;
  const filled = Math.round(job.progress * width);
  const stage = job.state === 'queued' ? 'queued' : (job.stage ?? job.state).replace('_', ' ');
  return `[${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${String(Math.round(job.progress * 100)).padStart(3)} %  ${stage}`;
}

/** Where the video goes: FILE.mp4, or a folder (existing, or named with a trailing /) receiving <job id>.mp4. */
interface OutTarget {
  dir: string;
  file: string | null;
}

/** Checks --out before anything is queued: its folder must exist and be writable, its name end in .mp4. */
export async function checkOut(out: string | undefined): Promise<OutTarget> {
  if (out === undefined) return { dir: process.cwd(), file: null };
  const path = resolve(out);
  const info = await stat(path).catch(() => null);
  if (info?.isDirectory() || /[\\/]$/.test(out)) {
    if (info === null) await mkdir(path, { recursive: true });
    await assertWritableFolder(path, '--out');
    return { dir: path, file: null };
  }
  if (extname(path).toLowerCase() !== '.mp4') {
    throw badRequest(`--out ${out} must name an .mp4 file (the video is MP4), or a folder ending with /.`, {
      details: [{ field: 'out', message: 'must end in .mp4' }],
    });
  }
  await assertWritableFolder(dirname(path), '--out');
  return { dir: dirname(path), file: path };
}

/**
 * The files a render with `--out FILE` writes: the video (a pack: one per format, `<stem>-<format>.mp4`)
 * and, with --poster, each one's poster (docs/cli.md "Files and paths").
 */
function filesWritten(out: string, formats: readonly VideoFormat[] | null, poster: boolean): string[] {
  const videos = formats === null ? [out] : formats.map((format) => formatPathOf(out, format) as string);
  return poster ? videos.flatMap((video) => [video, posterPathOf(video) as string]) : videos;
}

/**
 * Nothing the user made is overwritten unasked: a file `--out` would write that already exists is
 * refused without --force, as `jobs download` refuses it (docs/cli.md "Files and paths").
 */
async function refuseToOverwrite(paths: readonly string[], force: boolean): Promise<void> {
  if (force) return;
  for (const path of paths) {
    if ((await stat(path).catch(() => null)) === null) continue;
    throw badRequest(`${path} already exists: pass --force to overwrite it, or choose another --out.`, {
      reason: 'file_exists',
      details: [{ field: 'out', message: 'file exists' }],
    });
  }
}

/** Inputs that would be silently ignored are refused (docs/cli.md, "Conflicting flags"). */
function refuseIgnoredInputs(flags: RenderFlags, stdinArg: string | undefined): void {
  if (flags.demo) {
    const given = (['url', 'htmlFile', 'description', 'descriptionFile', 'listingJson'] as const).filter((k) => flags[k] !== undefined);
    if (given.length > 0 || stdinArg !== undefined) {
      const names = given.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
      throw badRequest(
        `--demo renders the bundled sample listing; it cannot be combined with ${names.join(', ') || '"-"'}. Drop --demo to render your listing.`,
      );
    }
  }
  if (flags.wait === false && flags.poster === true) {
    throw badRequest(
      '--poster is not used with --no-wait (nothing is downloaded): drop --poster, then fetch it with `immoreel jobs download JOB_ID --poster`.',
    );
  }
  if (flags.wait === false && flags.out !== undefined) {
    throw badRequest(
      '--out is not used with --no-wait (nothing is downloaded): drop --out, then fetch the video with `immoreel jobs download JOB_ID --out FILE.mp4`.',
    );
  }
}

/** Local files named by --logo and --music must exist before anything runs (like photos). */
function checkLocalFiles(request: RenderRequest): void {
  const logo = request.branding?.logo_url;
  if (logo !== undefined && !isRemoteRef(logo) && !isReadableFile(logo)) {
    throw badRequest(`Logo ${logo} does not exist or is not a file (--logo takes an image file or URL).`, {
      details: [{ field: 'logo', message: `${logo}: no such file` }],
    });
  }
  const music = request.music;
  if (music !== undefined && isAbsolute(music) && !isReadableFile(music)) {
    throw badRequest(`Music ${music} does not exist or is not a file (--music takes auto, none, a bundled track or an audio file).`, {
      details: [{ field: 'music', message: `${music}: no such file` }],
    });
  }
}

function isReadableFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}

/**
 * Before the render: the photos the video will leave out for its length, or past the limit
 * (docs/rendering.md "Photos shown and left out"), said now so the agent can shorten the list or
 * lengthen the video; the job's warnings say it again, with the photos that turn out unreadable.
 * Only when the listing is known without the network (a listing file, a description, the demo):
 * a page is analysed once, by the job.
 */
async function sayPhotosLeftOut(request: RenderRequest, warn: (message: string) => void): Promise<void> {
  if ((request.photos ?? []).length === 0 || request.url !== undefined || request.html !== undefined) return;
  const [{ validateRenderRequest }, { previewStoryboard, leftOutMessage }, { analyzeListing }, { describeRef }] = await Promise.all([
    import('../../render/render-rules.js'),
    import('../../render/photo-notes.js'),
    import('../../analysis/analyze.js'),
    import('../../render/assets/photos.js'),
  ]);
  const valid = validateRenderRequest(request, 'local');
  const listing = valid.listing ?? (await analyzeListing(valid.input));
  const preview = previewStoryboard(listing, valid);
  for (const photo of preview.photos) {
    if (photo.shown || photo.reason === undefined) continue;
    warn(
      leftOutMessage(photo.reason, photo.index, describeRef(photo.ref), valid.language, {
        durationS: preview.duration_s,
        limit: MAX_PHOTOS,
      }),
    );
  }
}

async function renderOne(ctx: CommandContext, flags: RenderFlags, stdinArg: string | undefined): Promise<void> {
  const { output } = ctx;
  refuseIgnoredInputs(flags, stdinArg);
  const target = flags.wait === false ? null : await checkOut(flags.out);
  const request = await buildRenderRequest(flags, stdinArg);
  checkLocalFiles(request);
  // Before anything is queued: a render that could not be saved is not worth starting.
  const pack = flags.formats !== undefined ? (request.formats ?? null) : null;
  if (target?.file != null) await refuseToOverwrite(filesWritten(target.file, pack, flags.poster === true), flags.force === true);
  if (ctx.mode === 'local') {
    // A missing ffmpeg is exit 1 with how to install it, before anything is queued.
    const { resolveBinaries } = await import('../../render/ffmpeg/runner.js');
    resolveBinaries(ctx.config.ffmpeg);
  }
  if (!output.json)
    await sayPhotosLeftOut(request, (message) => output.warn(message)).catch((error: unknown) => {
      throw withFlagNames(error);
    });
  const service = await ctx.openService();
  try {
    const submitted = await service.renderVideo(request).catch((error: unknown) => {
      throw withFlagNames(error);
    });
    if (target === null) {
      if (ctx.mode === 'local') startDetachedWorker(ctx);
      if (output.json) output.data({ ok: true, status: 'success', job: submitted });
      else output.text(`${submitted.job_id}  queued — follow it with: ${followUp(ctx.config, 'jobs', 'wait', submitted.job_id)}`);
      return;
    }
    const progress = output.progress(progressBar(submitted));
    let job: JobRecord;
    try {
      job = await interruptible(
        () => service.waitForJob(submitted.job_id, { onUpdate: (update) => progress.update(progressBar(update)) }),
        () => {
          progress.stop();
          output.info(`Canceling ${submitted.job_id} (Ctrl-C again to quit at once)…`);
          // The wait below sees the job end: canceled, or (a cancel that failed) its real outcome.
          void service.cancelJob(submitted.job_id).catch(() => undefined);
        },
      );
    } catch (error) {
      progress.fail();
      throw error;
    }
    if (wasInterrupted()) {
      output.info(`${submitted.job_id} canceled; nothing was saved.`);
      if (output.json) output.data({ ok: false, status: 'error', error: { ...jobFailure(job).toJSON(), code: 'CANCELED' } });
      return;
    }
    if (job.state !== 'succeeded') {
      progress.fail(job.state === 'failed' ? `Render failed: ${job.error?.message ?? 'unknown error'}` : 'Render canceled');
      // The error envelope (main.ts) carries the job's own code and its id.
      throw jobFailure(job);
    }
    const out = target.file ?? join(target.dir, `${job.job_id}.mp4`);
    // Made meanwhile (another run writing the same name): still not overwritten unasked.
    if (target.file !== null)
      await refuseToOverwrite(
        filesWritten(out, flags.formats !== undefined ? jobFormats(job) : null, flags.poster === true),
        flags.force === true,
      );
    const files = await downloadOutputs(service, job, out, { pack: flags.formats !== undefined, poster: flags.poster === true });
    const [primary] = files as [SavedOutput, ...SavedOutput[]];
    const posters = files.flatMap((f) => (f.poster === undefined ? [] : [f.poster]));
    progress.succeed(
      files.length === 1
        ? `Video saved to ${primary.file}${primary.poster === undefined ? '' : `, poster to ${primary.poster}`}`
        : `${files.length} videos saved${posters.length === 0 ? '' : ` with their posters`}`,
    );
    // A fact held back first: the video shows no claim on it until it is confirmed (docs/analysis.md "Held back").
    // A server older than held-back facts sends none.
    for (const fact of job.held_back ?? []) output.warn(`${fact.message} [${fact.code}]`);
    for (const warning of job.warnings) output.warn(`${warning.message} [${warning.code}]`);
    if (output.json)
      output.data({
        ok: true,
        status: 'success',
        job,
        file: primary.file,
        ...(primary.poster === undefined ? {} : { poster: primary.poster }),
        outputs: files,
      });
    else {
      for (const saved of files) {
        const r = saved.format === jobFormats(job)[0] ? job.result : (job.outputs?.find((o) => o.format === saved.format) ?? null);
        output.text(
          r === null
            ? saved.file
            : `${saved.file}  ${r.width}x${r.height} ${r.fps} fps · ${r.duration_s.toFixed(1)} s · ${(r.size_bytes / 1e6).toFixed(1)} MB · ${r.video_codec}/${r.audio_codec} ${r.audio_bitrate_kbps} kbps · ${job.job_id}`,
        );
      }
    }
  } finally {
    await service.close();
  }
}

/** One output of a job, saved: its format, its file and (with --poster) its poster's. */
export interface SavedOutput {
  format: VideoFormat;
  file: string;
  poster?: string;
}

/**
 * Saves a finished job's videos: a plain render to `out`, a pack (`--formats`) one file per
 * format beside it, `<stem>-<format>.mp4`, in the job's order; each poster, when asked for, next
 * to its video (docs/cli.md "Video packs"). `out` ends in .mp4 (checkOut).
 */
async function downloadOutputs(
  service: Service,
  job: JobRecord,
  out: string,
  options: { pack: boolean; poster: boolean },
): Promise<SavedOutput[]> {
  const saved: SavedOutput[] = [];
  const formats = jobFormats(job);
  for (const format of options.pack ? formats : formats.slice(0, 1)) {
    const file = options.pack ? (formatPathOf(out, format) as string) : out;
    await service.downloadVideo(job.job_id, file, { format });
    // Next to the video, named after it (docs/cli.md "Files and paths").
    const poster = options.poster ? (posterPathOf(file) as string) : undefined;
    if (poster !== undefined) await service.downloadPoster(job.job_id, poster, { format });
    saved.push({ format, file, ...(poster === undefined ? {} : { poster }) });
  }
  return saved;
}

async function renderBatch(ctx: CommandContext, flags: RenderFlags & { csv: string }): Promise<void> {
  const { output } = ctx;
  if (flags.outDir === undefined) throw badRequest("--csv needs --out-dir DIR: the folder where each row's video is written.");
  if (flags.out !== undefined) throw badRequest('--out names one video; a batch writes DIR/<id>.mp4 into --out-dir.');
  const concurrency = flags.concurrency === undefined ? undefined : parseCount(flags.concurrency, '--concurrency', 1, 30);
  const outDirInfo = await stat(resolve(flags.outDir)).catch(() => null);
  if (outDirInfo !== null && !outDirInfo.isDirectory())
    throw badRequest(`--out-dir ${flags.outDir} is a file, not a folder: choose a folder for the videos.`, {
      details: [{ field: 'out-dir', message: 'not a folder' }],
    });
  const service = await ctx.openService({ concurrency });
  const progress = output.progress('Rendering…');
  const table = !output.json && process.stdout.isTTY === true;
  try {
    const summary = await interruptible(
      (signal) =>
        runRenderBatch(
          service,
          {
            csv: flags.csv,
            outDir: flags.outDir as string,
            resume: Boolean(flags.resume),
            concurrency: concurrency ?? (ctx.mode === 'remote' ? 4 : defaultConcurrency()),
            defaults: settingsFromFlags(flags, false),
          },
          {
            signal,
            onUnknownColumns: (columns) =>
              output.warn(
                `${flags.csv}: column${columns.length === 1 ? '' : 's'} ${columns.map((c) => `"${c}"`).join(', ')} ignored (not a column immoreel knows; see \`immoreel render --help\`).`,
              ),
            onProgress: (text) => progress.update(`Rendering: ${text}`),
            onWarning: (message) => output.warn(message),
            onRecord: (record) => {
              if (!table) output.record(record);
              else
                output.text(
                  record.ok
                    ? `${output.style.green('✔')} ${record.id}  ${record.skipped ? 'already done' : record.video}`
                    : record.status === 'canceled'
                      ? `${output.style.yellow('■')} ${record.id}  canceled (${record.job_id})`
                      : `${output.style.red('✘')} ${record.id}  ${record.error.code}: ${record.error.message}`,
                );
            },
          },
        ),
      () => {
        progress.stop();
        output.info('Canceling the running rows (Ctrl-C or SIGTERM again to quit at once); --resume picks up from here…');
      },
    );
    progress.stop();
    output.info(
      `${summary.total} rows: ${summary.succeeded} rendered, ${summary.skipped} already done, ${summary.failed} failed` +
        (summary.canceled > 0 ? `, ${summary.canceled} canceled` : '') +
        (summary.notStarted > 0 ? `, ${summary.notStarted} not started` : '') +
        (summary.heldBack > 0
          ? ` (${summary.heldBack} with a fact held back as doubtful: no claim on it; confirm it with a confirmed_facts column)`
          : '') +
        ` in ${formatEta(summary.elapsedMs)}; videos in ${summary.outDir}` +
        (summary.failedFile !== null ? `; failed rows in ${summary.failedFile}` : ''),
    );
    if (wasInterrupted()) {
      const resume = followUp(ctx.config, 'render', '--csv', flags.csv, '--out-dir', flags.outDir as string, '--resume');
      // The closing record of an interrupted batch (Ctrl-C or SIGTERM): a script reading the NDJSON knows it was cut short.
      if (!table)
        output.record({
          ok: false,
          status: 'interrupted',
          signal: interruptSignal(),
          summary: {
            total: summary.total,
            succeeded: summary.succeeded,
            skipped: summary.skipped,
            failed: summary.failed,
            canceled: summary.canceled,
            not_started: summary.notStarted,
          },
          resume,
        });
      output.info(`Interrupted: run it again with --resume to render the rest (${resume}).`);
      return;
    }
    if (summary.failed > 0) {
      throw new AppError(
        'BATCH_ROWS_FAILED',
        `${summary.failed} of ${summary.total} rows failed${summary.failedFile === null ? '' : `; fix them in ${summary.failedFile} and run it again`}.`,
      );
    }
  } finally {
    progress.stop();
    await service.close();
  }
}

/** `render`: one video, or a batch with --csv. */
export async function render(stdinArg: string | undefined, flags: RenderFlags, command: Command): Promise<void> {
  const ctx = contextFor(command);
  if (flags.csv !== undefined) {
    await renderBatch(ctx, { ...flags, csv: flags.csv });
    return;
  }
  if (flags.outDir !== undefined || flags.resume || flags.concurrency !== undefined) {
    throw badRequest('--out-dir, --resume and --concurrency go with --csv; for one video use --out FILE.mp4.');
  }
  await renderOne(ctx, flags, stdinArg);
}

/**
 * `render --no-wait`: starts `immoreel worker --until-idle` on the same data directory, detached
 * (own process group, no stdio), so it drains the queue after this command has exited.
 */
export function startDetachedWorker(ctx: Pick<CommandContext, 'config' | 'environment'>): void {
  const { config } = ctx;
  // With PostgreSQL the queue hands the job to the running `immoreel worker`s (docs/scaling.md).
  if (config.databaseUrl !== undefined) return;
  const bin = fileURLToPath(new URL('../../../bin/immoreel.js', import.meta.url));
  const child = spawn(process.execPath, [bin, '--quiet', '--data-dir', config.dataDir, 'worker', '--until-idle'], {
    detached: true,
    stdio: 'ignore',
    // This CLI's own environment, with the same blobs: a URL on a command line shows in `ps`.
    env: {
      ...ctx.environment,
      ...(config.storageUrl === undefined ? {} : { IMMOREEL_STORAGE_URL: config.storageUrl }),
    },
  });
  child.unref();
}

import { existsSync, readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { AppError, badRequest } from '../../core/errors.js';
import type { Branding, JobRecord, Property, RenderRequest } from '../../core/types.js';
import { demoBranding, demoListingText, demoPhotos } from '../../render/demo.js';
import { contextFor, type CommandContext } from '../context.js';
import { readInputRequest, type InputFlags } from '../inputs.js';
import { assertSucceeded } from './jobs.js';
import { runRenderBatch, startDetachedWorker } from './render-batch.js';

export interface RenderFlags extends InputFlags {
  listingJson?: string;
  photos?: string;
  photosDir?: string;
  template?: string;
  format?: string;
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
  wait?: boolean;
  csv?: string;
  outDir?: string;
  resume?: boolean;
  concurrency?: string;
}



const IMAGE_FILE = /\.(jpe?g|png|webp|avif|tiff?|gif|heic|heif)$/i;

function isRemoteRef(value: string): boolean {
  return /^(https?:\/\/|asset:)/i.test(value);
}

/** --photos P1,P2 and --photos-dir D: URLs kept, local files made absolute and checked now. */
export function collectPhotos(flags: Pick<RenderFlags, 'photos' | 'photosDir'>): string[] {
  const photos: string[] = [];
  if (flags.photos !== undefined) {
    for (const raw of flags.photos.split(',').map((p) => p.trim()).filter((p) => p !== '')) {
      if (isRemoteRef(raw)) {
        photos.push(raw);
        continue;
      }
      const file = isAbsolute(raw) ? raw : resolve(raw);
      if (!existsSync(file) || !statSync(file).isFile()) {
        throw badRequest(`Photo ${raw} does not exist (--photos takes image files or URLs separated by commas).`, { details: [{ field: 'photos', message: `${raw}: no such file` }] });
      }
      photos.push(file);
    }
  }
  if (flags.photosDir !== undefined) {
    const dir = resolve(flags.photosDir);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
      throw badRequest(`--photos-dir ${flags.photosDir} is not a folder.`, { details: [{ field: 'photos', message: 'not a folder' }] });
    }
    const files = readdirSync(dir)
      .filter((name) => IMAGE_FILE.test(name) && !name.startsWith('.'))
      .sort((a, b) => a.localeCompare(b, undefined, { numeric: true }))
      .map((name) => join(dir, name));
    if (files.length === 0) {
      throw badRequest(`--photos-dir ${flags.photosDir} holds no photos (JPEG, PNG, WebP, AVIF, TIFF, HEIC).`, { details: [{ field: 'photos', message: 'no image files' }] });
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
    throw badRequest(`Cannot read --listing-json ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}.`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw badRequest(`--listing-json ${file} is not JSON: give the output of \`immoreel analyze --json\`.`, { details: [{ field: 'listing', message: 'not JSON' }] });
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
  if (!Number.isFinite(seconds)) throw badRequest(`--duration must be a number of seconds (10–90), not ${JSON.stringify(value)}.`, { details: [{ field: 'duration_s', message: 'not a number' }] });
  return seconds;
}

/** The settings every row or single render shares: everything but the listing inputs. */
function settingsFromFlags(flags: RenderFlags, demo: boolean): RenderRequest {
  const request: RenderRequest = {};
  if (flags.template !== undefined) request.template = flags.template;
  if (flags.format !== undefined) request.format = flags.format as RenderRequest['format'];
  const duration = parseDuration(flags.duration);
  if (duration !== undefined) request.duration_s = duration;
  if (flags.language !== undefined) request.language = flags.language as RenderRequest['language'];
  if (flags.audience !== undefined) request.target_audience = flags.audience as RenderRequest['target_audience'];
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
    if (flags.url !== undefined || flags.htmlFile !== undefined || flags.description !== undefined || flags.descriptionFile !== undefined || stdinArg !== undefined || flags.demo) {
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
  if (photos.length > 0) request.photos = photos;
  else if (flags.demo) request.photos = demoPhotos();
  return request;
}

function progressBar(job: JobRecord): string {
  const width = 24;
  const filled = Math.round(job.progress * width);
  const stage = job.state === 'queued' ? 'queued' : (job.stage ?? job.state).replace('_', ' ');
  return `[${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${String(Math.round(job.progress * 100)).padStart(3)} %  ${stage}`;
}

function isLocal(ctx: CommandContext): boolean {
  const baseUrl = ctx.globals.baseUrl ?? process.env.IMMOREEL_BASE_URL;
  return ctx.globals.profile === undefined && (baseUrl === undefined || baseUrl === '');
}

async function renderOne(ctx: CommandContext, flags: RenderFlags, stdinArg: string | undefined): Promise<void> {
  const { output } = ctx;
  const request = await buildRenderRequest(flags, stdinArg);
  if (isLocal(ctx)) {
    // A missing ffmpeg is exit 1 with how to install it, before anything is queued.
    const { resolveBinaries } = await import('../../render/ffmpeg/runner.js');
    resolveBinaries();
  }
  const service = await ctx.openService();
  try {
    const submitted = await service.renderVideo(request);
    if (flags.wait === false) {
      if (isLocal(ctx)) startDetachedWorker(ctx.globals);
      if (output.json) output.data({ ok: true, status: 'success', job: submitted });
      else output.text(`${submitted.job_id}  queued — follow it with: immoreel jobs wait ${submitted.job_id}`);
      return;
    }
    const progress = output.progress(progressBar(submitted));
    let job: JobRecord;
    try {
      job = await service.waitForJob(submitted.job_id, { onUpdate: (update) => progress.update(progressBar(update)) });
    } catch (error) {
      progress.fail();
      throw error;
    }
    if (job.state !== 'succeeded') {
      progress.fail(job.state === 'failed' ? `Render failed: ${job.error?.message ?? 'unknown error'}` : 'Render canceled');
      if (job.error?.code === 'DEPENDENCY_MISSING') throw new AppError('DEPENDENCY_MISSING', job.error.message);
      // The error envelope (main.ts) names the job and its error: one JSON document on stdout.
      assertSucceeded(job);
    }
    const out = resolve(flags.out ?? `${job.job_id}.mp4`);
    await service.downloadVideo(job.job_id, out);
    progress.succeed(`Video saved to ${out}`);
    for (const warning of job.warnings) output.warn(`${warning.message} [${warning.code}]`);
    if (output.json) output.data({ ok: true, status: 'success', job, file: out });
    else {
      const r = job.result;
      output.text(
        r === null
          ? out
          : `${out}  ${r.width}x${r.height} ${r.fps} fps · ${r.duration_s.toFixed(1)} s · ${(r.size_bytes / 1e6).toFixed(1)} MB · ${r.video_codec}/${r.audio_codec} ${r.audio_bitrate_kbps} kbps · ${job.job_id}`,
      );
    }
  } finally {
    await service.close();
  }
}

/** `render`: one video, or a batch with --csv. */
export async function render(stdinArg: string | undefined, flags: RenderFlags, command: Command): Promise<void> {
      const ctx = contextFor(command);
      if (flags.csv !== undefined) {
        if (flags.outDir === undefined) throw badRequest('--csv needs --out-dir DIR: the folder where each row\'s video is written.');
        const concurrency = flags.concurrency === undefined ? undefined : Number(flags.concurrency);
        if (concurrency !== undefined && (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 30)) {
          throw badRequest(`--concurrency must be a whole number from 1 to 30, not ${JSON.stringify(flags.concurrency)}.`);
        }
        const service = await ctx.openService();
        try {
          await runRenderBatch(ctx, service, {
            csv: flags.csv,
            outDir: flags.outDir,
            resume: Boolean(flags.resume),
            ...(concurrency === undefined ? {} : { concurrency }),
            defaults: settingsFromFlags(flags, false),
          });
        } finally {
          await service.close();
        }
        return;
      }
      if (flags.outDir !== undefined || flags.resume) throw badRequest('--out-dir and --resume go with --csv; for one video use --out FILE.mp4.');
      await renderOne(ctx, flags, stdinArg);
}

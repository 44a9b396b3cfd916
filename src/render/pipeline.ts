import { randomBytes } from 'node:crypto';
import { chmod, copyFile, mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import pLimit from 'p-limit';
import { badRequest } from '../core/errors.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../core/paths.js';
import type { JobStage, Property, Warning } from '../core/types.js';
import { describeRef, loadPhotos, prepareLogo, prepareShotSource, PhotoError, type AssetContext } from './assets/photos.js';
import { drawTimelineCards, type CardStyle, type LogoImage } from './cards.js';
import { buildRenderPlan, type EncoderSettings } from './ffmpeg/plan.js';
import { resolveBinaries, runFfmpeg } from './ffmpeg/runner.js';
import { prepareSoundtrack, resolveMusic } from './music.js';
import { buildStoryboard, type Timeline } from './storyboard.js';
import { loadTemplate } from './templates.js';
import type { RenderContext, RenderedVideo, RenderSpec } from './types.js';
import { MAX_PHOTOS } from './render-rules.js';
import { verifyVideo } from './verify.js';
import { FORMAT_SIZES } from './formats.js';
import { posterTimeS, writePoster } from './poster.js';

/**
 * renderListing: an analysed listing and a validated request to a verified MP4 (docs/architecture.md,
 * "A render, from the shell or the route down to ffmpeg"). The listing is analysed before, by the job
 * layer: nothing here knows about portals. Stages as the job record shows them: fetching_assets
 * (photos, logo), preparing (photos, stills, cards, soundtrack), rendering (one ffmpeg run),
 * verifying (ffprobe). `progress` is overall and never goes back: each stage owns a slice of
 * 0 → 1, rendering the largest.
 */

const STAGE_SPAN: Readonly<Record<JobStage, [number, number]>> = {
  fetching_assets: [0, 0.08],
  preparing: [0.08, 0.2],
  rendering: [0.2, 0.96],
  verifying: [0.96, 1],
};

export interface RenderDebug {
  timeline: Timeline;
  args: string[];
  timings: Record<string, number>;
}

/** Extra knobs for benchmarks and tests; the job layer never passes them. */
export interface EngineOptions {
  encoder?: EncoderSettings;
  onDebug?: (debug: RenderDebug) => void;
}

function progressReporter(ctx: RenderContext): (stage: JobStage, fraction: number) => void {
  let last = 0;
  return (stage, fraction) => {
    const [from, to] = STAGE_SPAN[stage];
    const overall = Math.max(last, from + (to - from) * Math.min(1, Math.max(0, fraction)));
    last = overall;
    ctx.onProgress(stage, Math.round(overall * 1000) / 1000);
  };
}

async function publish(temp: string, outputPath: string): Promise<void> {
  await mkdir(dirname(outputPath), { recursive: true, mode: PRIVATE_DIR_MODE });
  // ffmpeg created the file under the process umask: the video is private like the rest.
  await chmod(temp, PRIVATE_FILE_MODE);
  try {
    await rename(temp, outputPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    // Another filesystem: copy next to the destination first, so the final step is still a rename.
    const staged = `${outputPath}.${randomBytes(4).toString('hex')}.tmp`;
    await copyFile(temp, staged);
    await rename(staged, outputPath);
    await rm(temp, { force: true });
  }
}

export async function renderListing(
  listing: Property,
  request: RenderSpec,
  ctx: RenderContext,
  options: EngineOptions = {},
): Promise<RenderedVideo> {
  const { signal } = ctx;
  signal.throwIfAborted();
  const timings: Record<string, number> = {};
  let clock = Date.now();
  const lap = (name: string): void => {
    const now = Date.now();
    timings[name] = now - clock;
    clock = now;
  };
  const report = progressReporter(ctx);
  // Missing ffmpeg or a broken template fail before anything is downloaded.
  const binaries = resolveBinaries(ctx.ffmpeg);
  const template = loadTemplate(request.template);
  const cacheDir = ctx.cacheDir ?? join(dirname(dirname(ctx.workDir)), 'cache', 'render');
  await mkdir(ctx.workDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  await mkdir(cacheDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const warnings: Warning[] = [];
  const redact = [ctx.workDir, cacheDir];
  const durationS = request.duration_s ?? template.default_duration_s;

  report('fetching_assets', 0);
  // The soundtrack only depends on the duration: it is prepared while photos download.
  const musicChoice = resolveMusic(request.music, template.music.mood);
  const soundtrack = prepareSoundtrack(musicChoice, durationS, ctx.workDir, { binaries, signal, redact, watchdogMs: ctx.watchdogMs });
  // Awaited (and its failure seen) where the soundtrack is used or in `finally`; this only keeps a
  // rejection while photos download from counting as unhandled.
  soundtrack.catch(() => undefined);
  try {
    const refs = (request.photos.length > 0 ? request.photos : listing.photos).slice(0, MAX_PHOTOS);
    if (refs.length === 0) {
      throw badRequest('No photos to render: the listing has none. Give photos (--photos, --photos-dir, or photos[] in the API).', {
        reason: 'no_usable_photo',
        details: [{ field: 'photos', message: 'no photos given and none on the listing page' }],
      });
    }
    const assets: AssetContext = {
      cacheDir,
      allowLocalFiles: ctx.allowLocalFiles,
      fetch: ctx.fetch,
      resolveAsset: ctx.resolveAsset,
      signal,
    };
    const loaded = await loadPhotos(refs, assets, report);
    warnings.push(...loaded.warnings);
    let logo: LogoImage | null = null;
    if (request.branding.logo_url !== undefined && !request.branding.unbranded) {
      try {
        logo = await prepareLogo(request.branding.logo_url, assets);
      } catch (error) {
        if (signal.aborted) throw error;
        const reason = error instanceof PhotoError || error instanceof Error ? error.message : String(error);
        warnings.push({ code: 'LOGO_DROPPED', message: `The logo (${describeRef(request.branding.logo_url)}) was left out: ${reason}.` });
      }
    }
    lap('photos');

    const timeline = buildStoryboard({
      template,
      listing,
      photos: loaded.photos.map((p) => ({ width: p.width, height: p.height })),
      format: request.format,
      durationS,
      language: request.language,
      branding: request.branding,
      hasLogo: logo !== null,
    });
    const size = FORMAT_SIZES[request.format];
    const style: CardStyle = {
      template,
      accent: request.branding.primary_color ?? template.colors.accent,
      direction: timeline.direction,
      width: size.width,
      height: size.height,
    };
    const cardsDir = join(ctx.workDir, 'cards');
    await mkdir(cardsDir, { recursive: true, mode: PRIVATE_DIR_MODE });
    // Stills (libvips) and cards (Pango) are independent: drawn at the same time.
    const limit = pLimit(2);
    let prepared = 0;
    const stillsReady = Promise.all(
      timeline.shots.map((shot) =>
        limit(async () => {
          signal.throwIfAborted();
          const file = await prepareShotSource(loaded.photos[shot.photo] as (typeof loaded.photos)[number], shot, cacheDir);
          prepared += 1;
          report('preparing', 0.5 + (0.3 * prepared) / timeline.shots.length);
          return file;
        }),
      ),
    );
    const cardsReady = drawTimelineCards(timeline, style, cardsDir, logo, signal);
    const [shotFiles, drawn] = await Promise.all([stillsReady, cardsReady]);
    lap('stills and cards');
    const audioFile = await soundtrack;
    report('preparing', 1);
    lap('soundtrack');

    const temp = join(ctx.workDir, `render-${randomBytes(4).toString('hex')}.tmp.mp4`);
    const plan = buildRenderPlan({
      timeline,
      shotFiles,
      cards: drawn.cards,
      brandBug: drawn.brandBug,
      audioFile,
      output: temp,
      threads: ctx.threads,
      ...(options.encoder === undefined ? {} : { encoder: options.encoder }),
    });
    report('rendering', 0);
    try {
      await runFfmpeg(plan.command, {
        binaries,
        signal,
        watchdogMs: ctx.watchdogMs,
        expectedDurationS: plan.durationS,
        onProgress: (fraction) => report('rendering', fraction),
        redact,
        what: 'render the video',
      });
      lap('ffmpeg');
      report('verifying', 0);
      const result = await verifyVideo(
        temp,
        { width: timeline.width, height: timeline.height, durationS: plan.durationS, checkAudioBitrate: audioFile !== null },
        binaries,
        signal,
      );
      lap('verify');
      signal.throwIfAborted();
      if (ctx.posterPath !== undefined) {
        // Drawn from the verified file, before it is published: a job that succeeds has its poster
        // already. A video without one is still the video: the poster's failure is a warning.
        try {
          await writePoster(temp, posterTimeS(timeline), ctx.posterPath, { binaries, signal, redact, watchdogMs: ctx.watchdogMs });
        } catch (error) {
          if (signal.aborted) throw error;
          warnings.push({ code: 'POSTER_SKIPPED', message: `The poster image could not be drawn: ${(error as Error).message}` });
        }
        lap('poster');
      }
      await publish(temp, ctx.outputPath);
      report('verifying', 1);
      options.onDebug?.({ timeline, args: plan.args, timings });
      return { result, warnings };
    } finally {
      await rm(temp, { force: true });
    }
  } finally {
    // Settle the soundtrack run (a failure elsewhere must not leave ffmpeg running or a rejection unhandled).
    await soundtrack.catch(() => undefined);
  }
}

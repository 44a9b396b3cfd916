import { randomBytes } from 'node:crypto';
import { chmod, copyFile, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import pLimit from 'p-limit';
import { badRequest } from '../core/errors.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../core/paths.js';
import { commandArgs } from './ffmpeg/command.js';
import type { JobStage, Property, VideoFormat, Warning } from '../core/types.js';
import { describeRef, loadPhotos, prepareLogo, prepareShotSource, PhotoError, type AssetContext } from './assets/photos.js';
import { drawTimelineCards, type CardStyle, type LogoImage } from './cards.js';
import {
  buildRenderPlan,
  buildSegmentedPlan,
  segmentCuts,
  type EncoderSettings,
  type PlacedImage,
  type PlanInput,
  type SegmentedPlan,
} from './ffmpeg/plan.js';
import { preloadCapabilities, resolveBinaries, runFfmpeg } from './ffmpeg/runner.js';
import { prepareSoundtrack, resolveMusic } from './music.js';
import { buildStoryboard, type Timeline } from './storyboard.js';
import { loadTemplate } from './templates.js';
import type { OutputTarget, RenderContext, RenderedVideo, RenderSpec } from './types.js';
import { MAX_PHOTOS } from './render-rules.js';
import { verifyVideo } from './verify.js';
import { FORMAT_SIZES } from './formats.js';
import { posterTimeS, writePoster } from './poster.js';

/**
 * renderListing: an analysed listing and a validated request to a verified MP4 (docs/architecture.md,
 * "A render, from the shell or the route down to ffmpeg"). The listing is analysed before, by the job
 * layer: nothing here knows about portals. Stages as the job record shows them: fetching_assets
 * (photos, logo), preparing (photos, stills, cards, soundtrack), rendering (ffmpeg), verifying
 * (ffprobe, posters). `progress` is overall and never goes back: each stage owns a slice of
 * 0 → 1, rendering the largest.
 *
 * A pack (several formats, docs/rendering.md "Packs") is one call: photos fetched and decoded once,
 * one soundtrack, then a storyboard, stills and cards per format; every stage covers every output
 * before the next stage starts, so the stages and the progress of the job record stay in order.
 */

/** Most segments one output is cut into, whatever the thread budget (docs/rendering.md "Segments"). */
const MAX_SEGMENTS = 4;

const STAGE_SPAN: Readonly<Record<JobStage, [number, number]>> = {
  fetching_assets: [0, 0.08],
  preparing: [0.08, 0.2],
  rendering: [0.2, 0.96],
  verifying: [0.96, 1],
};

export interface RenderDebug {
  /** The primary output's timeline and ffmpeg arguments (`outputs[0]`). */
  timeline: Timeline;
  args: string[];
  /** Every output's, in `formats` order. */
  outputs: Array<{ format: VideoFormat; timeline: Timeline; args: string[] }>;
  /** The runs that made the primary output: each segment's (one or more), then the join with the soundtrack. */
  segmentArgs: string[][];
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

/**
 * The outputs of a render: `ctx.outputs` checked against the request's formats, or the single
 * output of `ctx.outputPath`. A mismatch is the caller's bug (validation already checked the
 * request), so it is a plain error, not a message for the user.
 */
export function outputTargets(
  request: Pick<RenderSpec, 'format' | 'formats'>,
  ctx: Pick<RenderContext, 'outputPath' | 'posterPath' | 'outputs'>,
): OutputTarget[] {
  const formats = request.formats ?? [request.format];
  if (formats.length === 0) throw new Error('RenderSpec.formats is empty: give at least one format');
  if (formats[0] !== request.format)
    throw new Error(`RenderSpec.formats starts with ${formats[0]} but format is ${request.format}: the first format is the primary one`);
  const duplicate = formats.find((f, i) => formats.indexOf(f) !== i);
  if (duplicate !== undefined) throw new Error(`RenderSpec.formats lists ${duplicate} twice`);
  if (ctx.outputs === undefined) {
    if (formats.length > 1) throw new Error(`a render of ${formats.length} formats needs RenderContext.outputs, one target per format`);
    return [
      { format: request.format, outputPath: ctx.outputPath, ...(ctx.posterPath === undefined ? {} : { posterPath: ctx.posterPath }) },
    ];
  }
  if (ctx.outputs.length !== formats.length || ctx.outputs.some((o, i) => o.format !== formats[i])) {
    throw new Error(
      `RenderContext.outputs (${ctx.outputs.map((o) => o.format).join(', ')}) must list the formats ${formats.join(', ')}, in that order`,
    );
  }
  const paths = ctx.outputs.flatMap((o) => (o.posterPath === undefined ? [o.outputPath] : [o.outputPath, o.posterPath]));
  const clash = paths.find((p, i) => paths.indexOf(p) !== i);
  if (clash !== undefined) throw new Error(`RenderContext.outputs writes two files to the same path (${clash})`);
  return ctx.outputs;
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

/** One output of a render, from its storyboard to its verified temporary file. */
interface OutputWork {
  target: OutputTarget;
  timeline: Timeline;
  shotFiles: string[];
  cards: ReadonlyMap<string, PlacedImage>;
  brandBug: PlacedImage | null;
  /** What the plan is built from (the whole render as one run is built from it only for `onDebug`). */
  planInput: PlanInput | null;
  /** The runs that make it: one or more segments encoded at the same time, then the join. */
  segmented: SegmentedPlan | null;
  temp: string;
  result: RenderedVideo['result'] | null;
}

export async function renderListing(
  listing: Property,
  request: RenderSpec,
  ctx: RenderContext,
  options: EngineOptions = {},
): Promise<RenderedVideo> {
  const { signal } = ctx;
  signal.throwIfAborted();
  const targets = outputTargets(request, ctx);
  const pack = targets.length > 1;
  /** Timing names of a single render stay as they were; a pack's carry the format. */
  const named = (name: string, format: VideoFormat): string => (pack ? `${name} ${format}` : name);
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
  // fluent-ffmpeg's lists of ffmpeg's formats and encoders, ready by the first run (never rejects).
  void preloadCapabilities(binaries);
  const template = loadTemplate(request.template);
  const cacheDir = ctx.cacheDir ?? join(dirname(dirname(ctx.workDir)), 'cache', 'render');
  await mkdir(ctx.workDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  await mkdir(cacheDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const warnings: Warning[] = [];
  const redact = [ctx.workDir, cacheDir];
  const durationS = request.duration_s ?? template.default_duration_s;

  report('fetching_assets', 0);
  const musicChoice = resolveMusic(request.music, template.music.mood);
  const audioFile = join(ctx.workDir, 'soundtrack.m4a');
  let soundtrack: Promise<void> | null = null;
  const work: OutputWork[] = [];
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

    // One storyboard per format: the same scenes and lengths, framed for each size.
    for (const target of targets) {
      const timeline = buildStoryboard({
        template,
        listing,
        photos: loaded.photos.map((p) => ({ width: p.width, height: p.height })),
        format: target.format,
        durationS,
        language: request.language,
        branding: request.branding,
        hasLogo: logo !== null,
      });
      const temp = join(ctx.workDir, `render-${target.format}-${randomBytes(4).toString('hex')}.tmp.mp4`);
      work.push({
        target,
        timeline,
        shotFiles: [],
        cards: new Map(),
        brandBug: null,
        planInput: null,
        segmented: null,
        temp,
        result: null,
      });
    }
    // Stills (libvips) and cards (Pango) are independent: drawn at the same time. Stills are cached
    // by photo and box, so a box two formats share is prepared once.
    const limit = pLimit(2);
    const totalShots = work.reduce((sum, w) => sum + w.timeline.shots.length, 0);
    let prepared = 0;
    const stillsReady = Promise.all(
      work.map(async (w) => {
        w.shotFiles = await Promise.all(
          w.timeline.shots.map((shot) =>
            limit(async () => {
              signal.throwIfAborted();
              const file = await prepareShotSource(loaded.photos[shot.photo] as (typeof loaded.photos)[number], shot, cacheDir);
              prepared += 1;
              report('preparing', 0.5 + (0.3 * prepared) / totalShots);
              return file;
            }),
          ),
        );
      }),
    );
    const cardsReady = (async () => {
      for (const w of work) {
        const size = FORMAT_SIZES[w.target.format];
        const style: CardStyle = {
          template,
          accent: request.branding.primary_color ?? template.colors.accent,
          direction: w.timeline.direction,
          width: size.width,
          height: size.height,
        };
        // A single render keeps its cards in `cards/`, as before packs.
        const cardsDir = join(ctx.workDir, pack ? `cards-${w.target.format}` : 'cards');
        await mkdir(cardsDir, { recursive: true, mode: PRIVATE_DIR_MODE });
        const drawn = await drawTimelineCards(w.timeline, style, cardsDir, logo, signal);
        w.cards = drawn.cards;
        w.brandBug = drawn.brandBug;
      }
    })();
    await Promise.all([stillsReady, cardsReady]);
    lap('stills and cards');
    report('preparing', 1);
    // The soundtrack, encoded once for every output, starts with the encoding, not while photos decode:
    // a process started from this one while libvips works slowed it by a second on 2 cores
    // (docs/rendering.md "Soundtrack"). The video runs do not wait for it: only the joins take it.
    // ffmpeg writes it with the umask's mode: made private like every other file of the job.
    const soundtrackReady = prepareSoundtrack(musicChoice, durationS, audioFile, {
      binaries,
      signal,
      redact,
      watchdogMs: ctx.watchdogMs,
    }).then(() => chmod(audioFile, PRIVATE_FILE_MODE));
    soundtrack = soundtrackReady;
    // Awaited (and its failure seen) by the runs or in `finally`: this only keeps a rejection from
    // counting as unhandled meanwhile.
    soundtrackReady.catch(() => undefined);

    // A pack's outputs are encoded at the same time, the thread budget shared between them (docs/rendering.md
    // "Packs"): one ffmpeg run leaves a core partly idle while its graph thread works, three keep both busy.
    const threads = pack ? Math.max(1, Math.floor(ctx.threads / work.length)) : ctx.threads;
    for (const w of work) {
      const planInput: PlanInput = {
        timeline: w.timeline,
        shotFiles: w.shotFiles,
        cards: w.cards,
        brandBug: w.brandBug,
        audioFile,
        output: w.temp,
        threads,
        ...(options.encoder === undefined ? {} : { encoder: options.encoder }),
      };
      w.planInput = planInput;
      // Video runs, then a join with the soundtrack. A single output on several threads is encoded in
      // segments at the same time; a pack's outputs are one segment each (docs/rendering.md "Segments").
      w.segmented = buildSegmentedPlan(planInput, pack ? [] : segmentCuts(w.timeline, Math.min(threads, MAX_SEGMENTS)));
    }
    // Rendering progress covers the whole pack, each output weighted by its pixels.
    const weights = work.map((w) => w.timeline.width * w.timeline.height);
    const totalWeight = weights.reduce((a, b) => a + b, 0);
    const fractions = work.map(() => 0);
    const reportRendering = (): void =>
      report('rendering', fractions.reduce((sum, f, i) => sum + f * (weights[i] as number), 0) / totalWeight);
    report('rendering', 0);
    // Each output is checked (and its poster drawn) as soon as it is joined, while a pack's other
    // outputs still encode; the stage turns to verifying once every output is encoded.
    const posterWarnings: Array<Warning | null> = work.map(() => null);
    let encoded = 0;
    let checked = 0;
    const reportVerifying = (): void => {
      if (encoded === work.length) report('verifying', checked / (work.length + 1));
    };
    const verifyOutput = async (w: OutputWork, i: number): Promise<void> => {
      const verifyStart = Date.now();
      w.result = await verifyVideo(
        w.temp,
        {
          width: w.timeline.width,
          height: w.timeline.height,
          durationS: (w.segmented as SegmentedPlan).durationS,
          checkAudioBitrate: musicChoice.kind !== 'none',
        },
        binaries,
        runs.signal,
      );
      timings[named('verify', w.target.format)] = Date.now() - verifyStart;
      runs.signal.throwIfAborted();
      if (w.target.posterPath !== undefined) {
        // Drawn from the verified file, before it is published: a job that succeeds has its poster
        // already. A video without one is still the video: the poster's failure is a warning.
        const posterStart = Date.now();
        try {
          await writePoster(w.temp, posterTimeS(w.timeline), w.target.posterPath, {
            binaries,
            signal: runs.signal,
            redact,
            watchdogMs: ctx.watchdogMs,
          });
        } catch (error) {
          if (runs.signal.aborted) throw error;
          const which = pack ? `The ${w.target.format} poster image` : 'The poster image';
          posterWarnings[i] = { code: 'POSTER_SKIPPED', message: `${which} could not be drawn: ${(error as Error).message}` };
        }
        timings[named('poster', w.target.format)] = Date.now() - posterStart;
      }
      checked += 1;
      reportVerifying();
    };
    // One output failing stops the others: their files would be thrown away anyway.
    const runs = new AbortController();
    const stopRuns = (): void => runs.abort(signal.reason);
    signal.addEventListener('abort', stopRuns, { once: true });
    let firstFailure: unknown = null;
    signal.throwIfAborted();
    try {
      await Promise.all(
        work.map(async (w, i) => {
          const what = pack ? `render the ${w.target.format} video` : 'render the video';
          const run = { binaries, signal: runs.signal, watchdogMs: ctx.watchdogMs, redact };
          try {
            const { segments, mux, listFile, listText } = w.segmented as SegmentedPlan;
            const done = segments.map(() => 0);
            await writeFile(listFile, listText, { mode: PRIVATE_FILE_MODE });
            // Every run settles before this returns (no ffmpeg left writing a file being deleted); the
            // first failure stops the others.
            const settled = await Promise.allSettled(
              [
                ...segments.map(async (segment, k) => {
                  await runFfmpeg(segment.command, {
                    ...run,
                    expectedDurationS: segment.durationS,
                    onProgress: (fraction) => {
                      done[k] = fraction * segment.frames;
                      fractions[i] = (0.98 * done.reduce((a, b) => a + b, 0)) / (w.segmented as SegmentedPlan).frames;
                      reportRendering();
                    },
                    what: segments.length === 1 ? what : `${what} (part ${k + 1} of ${segments.length})`,
                  });
                  if (segments.length > 1) timings[`ffmpeg part ${k + 1} (${segment.frames} frames)`] = Date.now() - clock;
                }),
                soundtrackReady.then(() => {
                  timings['soundtrack'] = Date.now() - clock;
                }),
              ].map((running) =>
                running.catch((error: unknown) => {
                  if (!runs.signal.aborted) runs.abort(error);
                  throw error;
                }),
              ),
            );
            const failed = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
            // The others' failures are their being stopped: the first one is the cause.
            if (failed !== undefined) throw runs.signal.aborted ? runs.signal.reason : failed.reason;
            await runFfmpeg(mux, {
              ...run,
              what: segments.length === 1 ? 'add the soundtrack to the video' : 'join the parts of the video',
            });
            // A pack's runs overlap: each one's time counts from the start of the stage.
            if (pack) timings[`ffmpeg ${w.target.format}`] = Date.now() - clock;
            fractions[i] = 1;
            encoded += 1;
            if (encoded < work.length) reportRendering();
            else {
              lap('ffmpeg');
              report('verifying', 0);
              reportVerifying();
            }
            await verifyOutput(w, i);
          } catch (error) {
            if (firstFailure === null) {
              firstFailure = error;
              runs.abort(error);
            }
          }
        }),
      );
    } finally {
      signal.removeEventListener('abort', stopRuns);
    }
    if (firstFailure !== null) throw signal.aborted ? (signal.reason ?? firstFailure) : firstFailure;
    for (const warning of posterWarnings) if (warning !== null) warnings.push(warning);
    clock = Date.now();
    // Published only once every output is verified: a pack that fails leaves no video behind.
    for (const w of work) await publish(w.temp, w.target.outputPath);
    report('verifying', 1);
    const outputs = work.map((w) => ({ format: w.target.format, result: w.result as RenderedVideo['result'] }));
    const primary = work[0] as OutputWork;
    // The whole render as one run: what the segments reproduce (benchmarks compare against it).
    const wholeArgs = (w: OutputWork): string[] => buildRenderPlan(w.planInput as PlanInput).args;
    options.onDebug?.({
      timeline: primary.timeline,
      args: wholeArgs(primary),
      outputs: work.map((w) => ({ format: w.target.format, timeline: w.timeline, args: wholeArgs(w) })),
      segmentArgs: [
        ...(primary.segmented as SegmentedPlan).segments.map((segment) => segment.args),
        commandArgs((primary.segmented as SegmentedPlan).mux),
      ],
      timings,
    });
    return { result: (outputs[0] as (typeof outputs)[number]).result, outputs, warnings };
  } finally {
    await Promise.all(work.flatMap((w) => [w.temp, ...(w.segmented?.scratchFiles ?? [])].map((file) => rm(file, { force: true }))));
    // Settle the soundtrack run (a failure elsewhere must not leave ffmpeg running or a rejection unhandled).
    await soundtrack?.catch(() => undefined);
  }
}

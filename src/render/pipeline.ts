import { randomBytes } from 'node:crypto';
import { chmod, copyFile, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import pLimit from 'p-limit';
import { badRequest } from '../core/errors.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../core/paths.js';
import { commandArgs } from './ffmpeg/command.js';
import type { JobStage, Property, VideoFormat, Warning } from '../core/types.js';
import {
  describeRef,
  loadPhotos,
  prepareLogo,
  prepareShotSource,
  PhotoError,
  type AssetContext,
  type LoadedPhotos,
} from './assets/photos.js';
import { drawTimelineCards, type CardStyle, type LogoImage } from './cards.js';
import {
  buildRenderPlan,
  buildSegmentedPlan,
  segmentCuts,
  type EncoderSettings,
  type PlanInput,
  type SegmentedPlan,
} from './ffmpeg/plan.js';
import { preloadCapabilities, resolveBinaries, runFfmpeg, type FfmpegBinaries } from './ffmpeg/runner.js';
import { prepareSoundtrack, resolveMusic, type MusicChoice } from './music.js';
import { buildStoryboard, type Timeline } from './storyboard.js';
import { loadTemplate, stillBackground, type Template } from './templates.js';
import { photoNotes } from './photo-notes.js';
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
 *
 * The steps, each returning data to the next (docs/rendering.md "The steps of a render"):
 * `openRender` (binaries, template, folders), `prepareRender` (photos, storyboards, stills, cards →
 * the ffmpeg plans), `startSoundtrack`, `encodeAndVerify` (the ffmpeg runs, each output checked by
 * `verifyOutput` as soon as it is encoded), `publishOutputs` (temporary files to their paths).
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

type ProgressReport = (stage: JobStage, fraction: number) => void;

function progressReporter(ctx: RenderContext): ProgressReport {
  let last = 0;
  return (stage, fraction) => {
    const [from, to] = STAGE_SPAN[stage];
    const overall = Math.max(last, from + (to - from) * Math.min(1, Math.max(0, fraction)));
    last = overall;
    ctx.onProgress(stage, Math.round(overall * 1000) / 1000);
  };
}

/** The timings of `RenderDebug`: each lap counts from the end of the one before. */
class Stopwatch {
  readonly timings: Record<string, number> = {};
  private clock = Date.now();

  lap(name: string): void {
    const now = Date.now();
    this.timings[name] = now - this.clock;
    this.clock = now;
  }

  /** Time since the last lap, without ending it: runs that overlap each count from the start of their stage. */
  mark(name: string): void {
    this.timings[name] = Date.now() - this.clock;
  }
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

/** What every step of one render reads: the request, where it works, how it reports and times itself. */
interface RenderSession {
  request: RenderSpec;
  ctx: RenderContext;
  options: EngineOptions;
  targets: OutputTarget[];
  /** Several formats in one call (docs/rendering.md "Packs"). */
  pack: boolean;
  binaries: FfmpegBinaries;
  template: Template;
  cacheDir: string;
  /** Paths kept out of ffmpeg's messages. */
  redact: string[];
  durationS: number;
  music: MusicChoice;
  /** The soundtrack every output is joined with, encoded once. */
  audioFile: string;
  report: ProgressReport;
  watch: Stopwatch;
}

/** One output of a render as ffmpeg will make it: its storyboard and its runs. */
interface PlannedOutput {
  target: OutputTarget;
  timeline: Timeline;
  /** Where the runs write the video; published to `target.outputPath` once every output is verified. */
  temp: string;
  /** What the plan is built from (the whole render as one run is built from it only for `onDebug`). */
  planInput: PlanInput;
  /** The runs that make it: one or more segments encoded at the same time, then the join. */
  segmented: SegmentedPlan;
}

/** A render ready to encode: every output planned, and what the user is told so far. */
interface RenderPlan {
  outputs: PlannedOutput[];
  warnings: Warning[];
}

/** An encoded output after its checks: the probe's figures, and a warning if its poster could not be drawn. */
interface VerifiedOutput {
  result: RenderedVideo['result'];
  posterWarning: Warning | null;
}

/** Timing names of a single render stay as they were; a pack's carry the format. */
function timingName(session: RenderSession, name: string, format: VideoFormat): string {
  return session.pack ? `${name} ${format}` : name;
}

export async function renderListing(
  listing: Property,
  request: RenderSpec,
  ctx: RenderContext,
  options: EngineOptions = {},
): Promise<RenderedVideo> {
  ctx.signal.throwIfAborted();
  const session = await openRender(request, ctx, options);
  let outputs: PlannedOutput[] = [];
  let soundtrack: Promise<void> | null = null;
  try {
    const plan = await prepareRender(session, listing);
    outputs = plan.outputs;
    soundtrack = startSoundtrack(session);
    const verified = await encodeAndVerify(session, outputs, soundtrack);
    const posterWarnings = verified.flatMap((v) => (v.posterWarning === null ? [] : [v.posterWarning]));
    await publishOutputs(outputs);
    session.report('verifying', 1);
    reportDebug(session, outputs);
    const results = outputs.map((o, i) => ({ format: o.target.format, result: (verified[i] as VerifiedOutput).result }));
    return { result: (results[0] as (typeof results)[number]).result, outputs: results, warnings: [...plan.warnings, ...posterWarnings] };
  } finally {
    await Promise.all(outputs.flatMap((o) => [o.temp, ...o.segmented.scratchFiles].map((file) => rm(file, { force: true }))));
    // Settle the soundtrack run (a failure elsewhere must not leave ffmpeg running or a rejection unhandled).
    await soundtrack?.catch(() => undefined);
  }
}

/** What a render needs before any download: ffmpeg, the template, its folders, the soundtrack chosen. */
async function openRender(request: RenderSpec, ctx: RenderContext, options: EngineOptions): Promise<RenderSession> {
  const targets = outputTargets(request, ctx);
  const watch = new Stopwatch();
  const report = progressReporter(ctx);
  // Missing ffmpeg or a broken template fail before anything is downloaded.
  const binaries = resolveBinaries(ctx.ffmpeg);
  // fluent-ffmpeg's lists of ffmpeg's formats and encoders, ready by the first run (never rejects).
  void preloadCapabilities(binaries);
  const template = loadTemplate(request.template);
  const cacheDir = ctx.cacheDir ?? join(dirname(dirname(ctx.workDir)), 'cache', 'render');
  await mkdir(ctx.workDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  await mkdir(cacheDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  report('fetching_assets', 0);
  return {
    request,
    ctx,
    options,
    targets,
    pack: targets.length > 1,
    binaries,
    template,
    cacheDir,
    redact: [ctx.workDir, cacheDir],
    durationS: request.duration_s ?? template.default_duration_s,
    music: resolveMusic(request.music, template.music.mood),
    audioFile: join(ctx.workDir, 'soundtrack.m4a'),
    report,
    watch,
  };
}

/**
 * Photos and logo fetched and decoded once, a storyboard per format, stills and cards drawn, and
 * each output's ffmpeg runs planned: everything up to the first ffmpeg run.
 */
async function prepareRender(session: RenderSession, listing: Property): Promise<RenderPlan> {
  const { request, ctx, template, targets, durationS, watch } = session;
  const { given, loaded, logo, warnings } = await loadRenderAssets(session, listing);
  watch.lap('photos');

  // One storyboard per format: the same scenes and lengths, framed for each size.
  const timelines = targets.map((target) =>
    buildStoryboard({
      template,
      listing,
      photos: loaded.photos.map((p) => ({ width: p.width, height: p.height, focus: p.focus })),
      format: target.format,
      durationS,
      language: request.language,
      branding: request.branding,
      hasLogo: logo !== null,
    }),
  );
  const temps = targets.map((target) => join(ctx.workDir, `render-${target.format}-${randomBytes(4).toString('hex')}.tmp.mp4`));
  // No photo left out in silence, none enlarged until soft without a word (docs/rendering.md "Framing").
  const framed = targets.map((target, i) => ({ format: target.format, timeline: timelines[i] as Timeline }));
  warnings.push(...photoNotes({ given, limit: MAX_PHOTOS, loaded, outputs: framed, language: request.language, durationS }));
  const drawn = await drawStillsAndCards(session, timelines, loaded, logo);
  watch.lap('stills and cards');
  session.report('preparing', 1);

  // A pack's outputs are encoded at the same time, the thread budget shared between them (docs/rendering.md
  // "Packs"): one ffmpeg run leaves a core partly idle while its graph thread works, three keep both busy.
  const threads = session.pack ? Math.max(1, Math.floor(ctx.threads / targets.length)) : ctx.threads;
  const outputs = targets.map((target, i): PlannedOutput => {
    const timeline = timelines[i] as Timeline;
    const planInput: PlanInput = {
      timeline,
      ...(drawn[i] as DrawnOutput),
      audioFile: session.audioFile,
      output: temps[i] as string,
      threads,
      ...(session.options.encoder === undefined ? {} : { encoder: session.options.encoder }),
    };
    // Video runs, then a join with the soundtrack. A single output on several threads is encoded in
    // segments at the same time; a pack's outputs are one segment each (docs/rendering.md "Segments").
    const cuts = session.pack ? [] : segmentCuts(timeline, Math.min(threads, MAX_SEGMENTS));
    return { target, timeline, temp: temps[i] as string, planInput, segmented: buildSegmentedPlan(planInput, cuts) };
  });
  return { outputs, warnings };
}

/** The photos (at most MAX_PHOTOS, the request's or else the listing's) and the logo; a logo that fails is a warning. */
async function loadRenderAssets(
  session: RenderSession,
  listing: Property,
): Promise<{ given: string[]; loaded: LoadedPhotos; logo: LogoImage | null; warnings: Warning[] }> {
  const { request, ctx, cacheDir } = session;
  const { signal } = ctx;
  const warnings: Warning[] = [];
  const given = request.photos.length > 0 ? request.photos : listing.photos;
  const refs = given.slice(0, MAX_PHOTOS);
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
  const loaded = await loadPhotos(refs, assets, session.report, request.photos.length > 0 ? (request.photo_focus ?? []) : []);
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
  return { given, loaded, logo, warnings };
}

/** What an output's ffmpeg runs read besides the soundtrack: a still per shot, the cards, the brand bug. */
type DrawnOutput = Pick<PlanInput, 'shotFiles' | 'cards' | 'brandBug'>;

/**
 * Stills (libvips) and cards (Pango) are independent: drawn at the same time. Stills are cached by
 * photo and box, so a box two formats share is prepared once.
 */
async function drawStillsAndCards(
  session: RenderSession,
  timelines: readonly Timeline[],
  loaded: LoadedPhotos,
  logo: LogoImage | null,
): Promise<DrawnOutput[]> {
  const { ctx, request, template, targets, cacheDir } = session;
  const { signal } = ctx;
  const limit = pLimit(2);
  const totalShots = timelines.reduce((sum, t) => sum + t.shots.length, 0);
  let prepared = 0;
  const stillsReady = Promise.all(
    timelines.map((timeline) =>
      Promise.all(
        timeline.shots.map((shot) =>
          limit(async () => {
            signal.throwIfAborted();
            const photo = loaded.photos[shot.photo] as (typeof loaded.photos)[number];
            const file = await prepareShotSource(photo, shot, cacheDir, stillBackground(template));
            prepared += 1;
            session.report('preparing', 0.5 + (0.3 * prepared) / totalShots);
            return file;
          }),
        ),
      ),
    ),
  );
  const cardsReady = (async () => {
    const drawn: Array<Pick<DrawnOutput, 'cards' | 'brandBug'>> = [];
    for (const [i, timeline] of timelines.entries()) {
      const format = (targets[i] as OutputTarget).format;
      const size = FORMAT_SIZES[format];
      const style: CardStyle = {
        template,
        accent: request.branding.primary_color ?? template.colors.accent,
        direction: timeline.direction,
        width: size.width,
        height: size.height,
      };
      // A single render keeps its cards in `cards/`, as before packs.
      const cardsDir = join(ctx.workDir, session.pack ? `cards-${format}` : 'cards');
      await mkdir(cardsDir, { recursive: true, mode: PRIVATE_DIR_MODE });
      drawn.push(await drawTimelineCards(timeline, style, cardsDir, logo, signal));
    }
    return drawn;
  })();
  const [stills, cards] = await Promise.all([stillsReady, cardsReady]);
  return stills.map((shotFiles, i) => {
    const { cards: placed, brandBug } = cards[i] as (typeof cards)[number];
    return { shotFiles, cards: placed, brandBug };
  });
}

/**
 * The soundtrack, encoded once for every output, starts with the encoding, not while photos decode:
 * a process started from this one while libvips works slowed it by a second on 2 cores
 * (docs/rendering.md "Soundtrack"). The video runs do not wait for it: only the joins take it.
 * ffmpeg writes it with the umask's mode: made private like every other file of the job.
 */
function startSoundtrack(session: RenderSession): Promise<void> {
  const { ctx, audioFile } = session;
  const soundtrackReady = prepareSoundtrack(session.music, session.durationS, audioFile, {
    binaries: session.binaries,
    signal: ctx.signal,
    redact: session.redact,
    watchdogMs: ctx.watchdogMs,
  }).then(() => chmod(audioFile, PRIVATE_FILE_MODE));
  // Awaited (and its failure seen) by the runs or by renderListing's `finally`: this only keeps a
  // rejection from counting as unhandled meanwhile.
  soundtrackReady.catch(() => undefined);
  return soundtrackReady;
}

/**
 * Every output encoded, at the same time, and each checked (its poster drawn) by `verifyOutput` as
 * soon as it is joined, while a pack's other outputs still encode; the stage turns to verifying once
 * every output is encoded. One output failing stops the others: their files would be thrown away anyway.
 */
async function encodeAndVerify(
  session: RenderSession,
  outputs: readonly PlannedOutput[],
  soundtrackReady: Promise<void>,
): Promise<VerifiedOutput[]> {
  const { signal } = session.ctx;
  const { report, watch } = session;
  // Rendering progress covers the whole pack, each output weighted by its pixels.
  const weights = outputs.map((o) => o.timeline.width * o.timeline.height);
  const totalWeight = weights.reduce((a, b) => a + b, 0);
  const fractions = outputs.map(() => 0);
  const reportRendering = (): void =>
    report('rendering', fractions.reduce((sum, f, i) => sum + f * (weights[i] as number), 0) / totalWeight);
  report('rendering', 0);
  let encoded = 0;
  let checked = 0;
  const reportVerifying = (): void => {
    if (encoded === outputs.length) report('verifying', checked / (outputs.length + 1));
  };
  const verified: VerifiedOutput[] = [];
  signal.throwIfAborted();
  const runs = new AbortController();
  const stopRuns = (): void => runs.abort(signal.reason);
  signal.addEventListener('abort', stopRuns, { once: true });
  let firstFailure: unknown = null;
  try {
    await Promise.all(
      outputs.map(async (output, i) => {
        try {
          await encodeOutput(session, output, soundtrackReady, runs, (fraction) => {
            fractions[i] = fraction;
            reportRendering();
          });
          fractions[i] = 1;
          encoded += 1;
          if (encoded < outputs.length) reportRendering();
          else {
            watch.lap('ffmpeg');
            report('verifying', 0);
            reportVerifying();
          }
          verified[i] = await verifyOutput(session, output, runs.signal);
          checked += 1;
          reportVerifying();
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
  return verified;
}

/**
 * One output's ffmpeg runs: its segments at the same time, then the join with the soundtrack.
 * `runs` is shared by every output of the render: a failure here aborts it, stopping the others.
 */
async function encodeOutput(
  session: RenderSession,
  output: PlannedOutput,
  soundtrackReady: Promise<void>,
  runs: AbortController,
  onProgress: (fraction: number) => void,
): Promise<void> {
  const { watch } = session;
  const format = output.target.format;
  const what = session.pack ? `render the ${format} video` : 'render the video';
  const run = { binaries: session.binaries, signal: runs.signal, watchdogMs: session.ctx.watchdogMs, redact: session.redact };
  const { segments, mux, listFile, listText, frames } = output.segmented;
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
            // The join is the last 2 %.
            onProgress((0.98 * done.reduce((a, b) => a + b, 0)) / frames);
          },
          what: segments.length === 1 ? what : `${what} (part ${k + 1} of ${segments.length})`,
        });
        if (segments.length > 1) watch.mark(`ffmpeg part ${k + 1} (${segment.frames} frames)`);
      }),
      soundtrackReady.then(() => watch.mark('soundtrack')),
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
  if (session.pack) watch.mark(`ffmpeg ${format}`);
}

/** An encoded output checked with ffprobe, then its poster drawn when the target asks for one. */
async function verifyOutput(session: RenderSession, output: PlannedOutput, signal: AbortSignal): Promise<VerifiedOutput> {
  const { timings } = session.watch;
  const { target, timeline, temp } = output;
  const verifyStart = Date.now();
  const result = await verifyVideo(
    temp,
    {
      width: timeline.width,
      height: timeline.height,
      durationS: output.segmented.durationS,
      checkAudioBitrate: session.music.kind !== 'none',
    },
    session.binaries,
    signal,
  );
  timings[timingName(session, 'verify', target.format)] = Date.now() - verifyStart;
  signal.throwIfAborted();
  let posterWarning: Warning | null = null;
  if (target.posterPath !== undefined) {
    // Drawn from the verified file, before it is published: a job that succeeds has its poster
    // already. A video without one is still the video: the poster's failure is a warning.
    const posterStart = Date.now();
    try {
      await writePoster(temp, posterTimeS(timeline), target.posterPath, {
        binaries: session.binaries,
        signal,
        redact: session.redact,
        watchdogMs: session.ctx.watchdogMs,
      });
    } catch (error) {
      if (signal.aborted) throw error;
      const which = session.pack ? `The ${target.format} poster image` : 'The poster image';
      posterWarning = { code: 'POSTER_SKIPPED', message: `${which} could not be drawn: ${(error as Error).message}` };
    }
    timings[timingName(session, 'poster', target.format)] = Date.now() - posterStart;
  }
  return { result, posterWarning };
}

/** Published only once every output is verified: a pack that fails leaves no video behind. */
async function publishOutputs(outputs: readonly PlannedOutput[]): Promise<void> {
  for (const output of outputs) await publish(output.temp, output.target.outputPath);
}

function reportDebug(session: RenderSession, outputs: readonly PlannedOutput[]): void {
  const { onDebug } = session.options;
  if (onDebug === undefined) return;
  const primary = outputs[0] as PlannedOutput;
  // The whole render as one run: what the segments reproduce (benchmarks compare against it).
  const wholeArgs = (output: PlannedOutput): string[] => buildRenderPlan(output.planInput).args;
  onDebug({
    timeline: primary.timeline,
    args: wholeArgs(primary),
    outputs: outputs.map((o) => ({ format: o.target.format, timeline: o.timeline, args: wholeArgs(o) })),
    segmentArgs: [...primary.segmented.segments.map((segment) => segment.args), commandArgs(primary.segmented.mux)],
    timings: session.watch.timings,
  });
}

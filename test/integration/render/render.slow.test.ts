import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { isAppError, type AppError } from '../../../src/core/errors.js';
import { loadPhotos } from '../../../src/render/assets/photos.js';
import { openFetch, type FetchPort } from '../../../src/net/fetch.js';
import type { VideoFormat } from '../../../src/core/types.js';
import {
  renderListing,
  type EngineOptions,
  type RenderContext,
  type RenderDebug,
  type RenderSpec,
  type ValidRenderRequest,
} from '../../../src/render/index.js';
import { demoProperty } from '../../helpers/plan-fixtures.js';
import {
  ffprobe,
  makePhotos,
  meanVolume,
  processesMentioning,
  renderContext,
  renderRequest,
  type PhotoSet,
} from '../../helpers/render-fixtures.js';
import { TEST_FFMPEG } from '../../helpers/config.js';
import { IMAGE_FORMAT_NAMES } from '../../../src/core/images.js';
import { isSubjectRed, photoWithSubject } from '../../helpers/subject-photos.js';
import type { Shot } from '../../../src/render/storyboard.js';

/**
 * The frames of a video as RGB, read once: every frame shrunk `shrink` times, or every `every`-th
 * frame at full size (frame f is then `frame(f / every)`).
 */
function framesOf(file: string, width: number, height: number, { shrink = 1, every = 1 }): { frame: (i: number) => Buffer } {
  const filter = shrink > 1 ? `scale=${width / shrink}:${height / shrink}:flags=area` : `select='not(mod(n,${every}))'`;
  const raw = execFileSync(
    'ffmpeg',
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-i',
      file,
      '-vf',
      filter,
      '-fps_mode',
      'passthrough',
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgb24',
      '-',
    ],
    { maxBuffer: 1024 * 1024 * 1024 },
  );
  const size = (width / shrink) * (height / shrink) * 3;
  return { frame: (i) => raw.subarray(i * size, (i + 1) * size) };
}

/** Whether the subject's red shows: at least 0.1 % of the frame's pixels. */
function subjectVisible(rgb: Buffer, width: number, height: number): boolean {
  let red = 0;
  for (let i = 0; i < width * height * 3; i += 3) if (isSubjectRed(rgb[i]!, rgb[i + 1]!, rgb[i + 2]!)) red += 1;
  return red >= width * height * 0.001;
}

/** Mean squared luma gradient over the frame's upper middle (clear of cards and the corner mark): its sharpness. */
function gradientEnergy(rgb: Buffer, width: number, height: number): number {
  const luma = (x: number, y: number): number => {
    const i = (y * width + x) * 3;
    return 0.2126 * rgb[i]! + 0.7152 * rgb[i + 1]! + 0.0722 * rgb[i + 2]!;
  };
  let sum = 0;
  let count = 0;
  for (let y = Math.round(height * 0.12); y < Math.round(height * 0.45); y += 1)
    for (let x = Math.round(width * 0.15); x < Math.round(width * 0.85); x += 1) {
      const dx = luma(x + 1, y) - luma(x, y);
      const dy = luma(x, y + 1) - luma(x, y);
      sum += dx * dx + dy * dy;
      count += 1;
    }
  return sum / count;
}

let photos: PhotoSet;

/** The renderer as the job layer calls it, once the listing is analysed. */
function render(request: ValidRenderRequest & RenderSpec, ctx: RenderContext, options?: EngineOptions): ReturnType<typeof renderListing> {
  return renderListing(request.listing ?? demoProperty(), request, ctx, options);
}
const cacheDir = mkdtempSync(join(tmpdir(), 'immoreel-render-cache-'));

beforeAll(async () => {
  photos = await makePhotos();
});

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (isAppError(error)) return error;
    throw error;
  }
  throw new Error('expected the render to fail');
}

function video(file: string): { width?: number; height?: number; profile?: string; pix_fmt?: string; r_frame_rate?: string } {
  return ffprobe(file).streams.find((s) => s.codec_type === 'video') ?? {};
}

// Real renders on a shared 2-core machine: generous time limits, short videos.
describe('render engine (real ffmpeg)', { timeout: 180_000 }, () => {
  it('leaves out corrupt, truncated and tiny photos with warnings, and renders the huge, portrait and EXIF-rotated ones', async () => {
    const ctx = renderContext(cacheDir);
    const request = renderRequest({
      photos: [photos.corrupt, photos.huge, photos.truncated, photos.portrait, photos.tiny, photos.exifRotated, photos.good],
      duration_s: 4,
    });
    const outcome = await render(request, ctx);
    const dropped = outcome.warnings.filter((w) => w.code === 'PHOTO_DROPPED').map((w) => w.message);
    expect(dropped).toHaveLength(3);
    expect(dropped.join('\n')).toContain(`Photo 1 (corrupt.jpg) was left out: it is not a ${IMAGE_FORMAT_NAMES} image`);
    // Each carries the job record's photos_left_out entry, in the request's language.
    // The four usable photos do not all fit in 4 s: those left out for the duration are named too.
    const leftOut = outcome.warnings.flatMap((w) => (w.photo === undefined ? [] : [[w.photo.index, w.photo.reason]]));
    expect(leftOut.slice(0, 3)).toEqual([
      [0, 'unreadable'],
      [2, 'unreadable'],
      [4, 'too_small'],
    ]);
    expect(leftOut.slice(3).every(([index, reason]) => [1, 3, 5, 6].includes(index as number) && reason === 'duration')).toBe(true);
    expect(dropped.join('\n')).toMatch(/Photo 3 \(truncated\.jpg\) was left out: the file is truncated or corrupt/);
    expect(dropped.join('\n')).toMatch(/Photo 5 \(tiny\.jpg\) was left out: it is too small \(120x80\)/);
    // The verified output contract (docs/rendering.md), checked again here independently.
    expect(outcome.result).toMatchObject({ width: 1280, height: 720, fps: 60, video_codec: 'h264', audio_codec: 'aac' });
    expect(video(ctx.outputPath)).toMatchObject({ profile: 'High', pix_fmt: 'yuv420p', width: 1280, height: 720, r_frame_rate: '60/1' });
    expect(Number(ffprobe(ctx.outputPath).format.duration)).toBeCloseTo(4, 1);
    // Stages in order, progress never going back, ending at 1.
    const stages = [...new Set(ctx.stages.map((s) => s.stage))];
    expect(stages).toEqual(['fetching_assets', 'preparing', 'rendering', 'verifying']);
    const progress = ctx.stages.map((s) => s.progress);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(progress[progress.length - 1]).toBe(1);
    // Nothing half-written is left behind.
    expect(readdirSync(ctx.workDir).filter((f) => f.endsWith('.tmp.mp4'))).toEqual([]);
  });

  it('renders a pack of three formats in one call: photos fetched once, one soundtrack, every output verified with its poster; each photo framed around its subject', async () => {
    const base = renderContext(mkdtempSync(join(tmpdir(), 'immoreel-pack-cache-')));
    // A living room whose subject is at 15 % of its width and a panorama whose subject is at 88 %
    // (docs/rendering.md "Framing"), both of the same texture, and a portrait photo.
    const room = join(photos.dir, 'room-3000x2000.jpg');
    const panorama = join(photos.dir, 'panorama-12000x2000.jpg');
    writeFileSync(room, await photoWithSubject(3000, 2000, 0.15, 0.5));
    writeFileSync(panorama, await photoWithSubject(12000, 2000, 0.88, 0.5));
    // Photos from "the network", counted: a pack downloads each photo once, not once per format.
    const byUrl = new Map([room, panorama, photos.portrait].map((file, i) => [`https://photos.test/p${i}.jpg`, file]));
    const fetched: string[] = [];
    const fetch: FetchPort = (url) => {
      fetched.push(url);
      return Promise.resolve({ status: 200, url, headers: { 'content-type': 'image/jpeg' }, body: readFileSync(byUrl.get(url) as string) });
    };
    const formats: VideoFormat[] = ['portrait', 'landscape', 'square'];
    const out = join(base.workDir, 'out');
    const outputs = formats.map((format) => ({
      format,
      outputPath: join(out, `pack-${format}.mp4`),
      posterPath: join(out, `pack-${format}-poster.jpg`),
    }));
    const ctx: RenderContext = { ...base, fetch, outputs };
    const request = { ...renderRequest({ photos: [...byUrl.keys()], format: 'portrait', duration_s: 10 }), formats };
    let debug: RenderDebug | null = null;
    const outcome = await render(request, ctx, { onDebug: (d) => (debug = d) });

    expect(fetched.sort()).toEqual([...byUrl.keys()].sort());
    expect(outcome.outputs.map((o) => o.format)).toEqual(formats);
    expect(outcome.result).toEqual(outcome.outputs[0]!.result);
    const sizes: Record<VideoFormat, [number, number]> = { landscape: [1280, 720], portrait: [720, 1280], square: [720, 720] };
    for (const [i, target] of outputs.entries()) {
      const [width, height] = sizes[target.format];
      const probed = ffprobe(target.outputPath);
      expect(probed.streams.find((s) => s.codec_type === 'video')).toMatchObject({
        codec_name: 'h264',
        profile: 'High',
        pix_fmt: 'yuv420p',
        width,
        height,
        r_frame_rate: '60/1',
      });
      expect(probed.streams.find((s) => s.codec_type === 'audio')).toMatchObject({ codec_name: 'aac', sample_rate: '48000', channels: 2 });
      expect(Number(probed.format.duration)).toBeCloseTo(10, 1);
      const result = outcome.outputs[i]!.result;
      expect(result).toMatchObject({
        width,
        height,
        fps: 60,
        video_codec: 'h264',
        audio_codec: 'aac',
        size_bytes: statSync(target.outputPath).size,
      });
      // A poster per output, at the output's own size.
      expect(await sharp(target.posterPath).metadata()).toMatchObject({ format: 'jpeg', width, height });
    }
    // Three different videos, all from the same one soundtrack file.
    expect(new Set(outcome.outputs.map((o) => o.result.sha256)).size).toBe(3);
    // Framing: the subject's red pixels on the frames of its photo's shots (the video's own fade
    // from and to black aside), in portrait and square for the room, in every format for the
    // panorama; and the panorama as sharp as the ordinary photo.
    const seen = { room: [] as boolean[], panorama: [] as boolean[] };
    const energy = { room: [] as number[], panorama: [] as number[] };
    for (const [i, target] of outputs.entries()) {
      const timeline = debug!.outputs[i]!.timeline;
      const { width, height } = timeline;
      const small = framesOf(target.outputPath, width, height, { shrink: 4 });
      const sampled = framesOf(target.outputPath, width, height, { every: 10 });
      // The outro's photo is only the blurred backdrop of the contact card: not counted.
      const photoAt = (f: number): number[] =>
        timeline.shots
          .filter((shot) => shot.look !== 'backdrop' && f >= shot.start && f < shot.start + shot.frames)
          .map((shot) => shot.photo);
      const steady = (f: number): Shot | undefined =>
        timeline.shots.find(
          (shot) => shot.look !== 'backdrop' && f >= shot.start + shot.transitionFrames + 10 && f < shot.start + shot.frames - 40,
        );
      for (let f = timeline.fadeInFrames; f < timeline.frames - timeline.fadeOutFrames; f += 2) {
        const on = photoAt(f);
        const key = on.includes(0) ? 'room' : on.includes(1) ? 'panorama' : null;
        if (key === null) continue;
        if (target.format !== 'landscape' || key === 'panorama') seen[key].push(subjectVisible(small.frame(f), width / 4, height / 4));
        const shot = steady(f);
        // A dimmed shot's values are × 0.78 (docs/rendering.md "Text"): its gradients are brought back to scale.
        const gain = shot?.look === 'dim' ? 0.78 : 1;
        if (f % 10 === 0 && shot !== undefined && shot.photo <= 1)
          energy[shot.photo === 0 ? 'room' : 'panorama'].push(gradientEnergy(sampled.frame(f / 10), width, height) / gain ** 2);
      }
    }
    const share = (list: boolean[]): number => list.filter(Boolean).length / list.length;
    expect(seen.room.length).toBeGreaterThan(100);
    expect(share(seen.room)).toBeGreaterThanOrEqual(0.9);
    expect(seen.panorama.length).toBeGreaterThan(50);
    expect(share(seen.panorama)).toBeGreaterThanOrEqual(0.5);
    const mean = (list: number[]): number => list.reduce((a, b) => a + b, 0) / list.length;
    expect(energy.room.length).toBeGreaterThan(3);
    expect(energy.panorama.length).toBeGreaterThan(3);
    expect(mean(energy.panorama)).toBeGreaterThanOrEqual(0.6 * mean(energy.room));
    const audioInputs = debug!.outputs.map((o) => o.args.filter((a) => a.endsWith('soundtrack.m4a')));
    expect(audioInputs.map((a) => a.length)).toEqual([1, 1, 1]);
    expect(new Set(audioInputs.flat()).size).toBe(1);
    // One progress over the whole pack: each stage once, in order, never going back, ending at 1.
    expect([...new Set(base.stages.map((s) => s.stage))]).toEqual(['fetching_assets', 'preparing', 'rendering', 'verifying']);
    const progress = base.stages.map((s) => s.progress);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(progress[progress.length - 1]).toBe(1);
    expect(readdirSync(base.workDir).filter((f) => f.endsWith('.tmp.mp4'))).toEqual([]);
  });

  it('turns EXIF-rotated photos upright and bounds huge ones before ffmpeg sees them', async () => {
    const loaded = await loadPhotos([photos.exifRotated, photos.huge], { cacheDir, allowLocalFiles: true, fetch: openFetch }, () => {});
    const [rotated, huge] = loaded.photos;
    expect(rotated).toMatchObject({ width: 800, height: 1200 });
    // Long side 2048 unless that leaves the short side under 1408 (docs/rendering.md "Photos").
    expect([huge!.width, huge!.height]).toEqual([2112, 1408]);
    const stored = await sharp(rotated!.file).metadata();
    expect(stored.orientation ?? 1).toBe(1);
    expect([stored.width, stored.height]).toEqual([800, 1200]);
  });

  it('renders a single photo without a price in portrait, 720x1280', async () => {
    const ctx = renderContext(cacheDir);
    const request = renderRequest({
      photos: [photos.good],
      format: 'portrait',
      duration_s: 3,
      listing: demoProperty({ price_mad: null, price_per_m2_mad: null }),
    });
    const outcome = await render(request, ctx);
    expect(outcome.result).toMatchObject({ width: 720, height: 1280, fps: 60 });
    expect(video(ctx.outputPath)).toMatchObject({ width: 720, height: 1280, profile: 'High' });
    const cards = readdirSync(join(ctx.workDir, 'cards'));
    expect(cards.some((f) => f.includes('price'))).toBe(false);
  });

  it('draws Arabic cards and renders them (RTL, shaped by Pango)', async () => {
    const ctx = renderContext(cacheDir);
    const request = renderRequest({
      photos: [photos.good, photos.second],
      language: 'ar',
      duration_s: 4,
      listing: demoProperty({ language: 'ar', marketing_angles: [] }),
    });
    const outcome = await render(request, ctx);
    expect(outcome.result.width).toBe(1280);
    const intro = join(ctx.workDir, 'cards', 'card-intro-0.png');
    expect(existsSync(intro)).toBe(true);
    const meta = await sharp(intro).metadata();
    expect(meta.hasAlpha).toBe(true);
    // Right to left: the dark title panel sits in the lower right of the frame, not the lower left.
    const frame = join(ctx.workDir, 'frame.png');
    execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-ss', '2', '-i', ctx.outputPath, '-frames:v', '1', frame]);
    const brightness = async (left: number): Promise<number> => {
      // stats() reads its input, so the region is cut out first.
      const region = await sharp(frame).extract({ left, top: 500, width: 260, height: 130 }).greyscale().png().toBuffer();
      const stats = await sharp(region).stats();
      return stats.channels[0]!.mean;
    };
    expect(await brightness(1280 - 80 - 260)).toBeLessThan((await brightness(80)) - 25);
  });

  it('encodes a render in segments at once, joined into the same frames as one run, cut on a keyframe', async () => {
    const request = renderRequest({ photos: [photos.good, photos.portrait, photos.exifRotated, photos.huge], duration_s: 10 });
    const inSegments = renderContext(cacheDir, { threads: 2 });
    let runs: string[][] = [];
    const segmented = await render(request, inSegments, { onDebug: (d) => (runs = d.segmentArgs) });
    const oneRun = renderContext(cacheDir, { threads: 1 });
    let oneRunArgs: string[][] = [];
    await render(request, oneRun, { onDebug: (d) => (oneRunArgs = d.segmentArgs) });
    // On one thread: one video run, then the soundtrack added.
    expect(oneRunArgs).toHaveLength(2);
    // On two: two segments, each video only, then a join that copies them with the soundtrack.
    expect(runs).toHaveLength(3);
    for (const run of runs.slice(0, 2)) expect(run).toContain('-an');
    expect(runs[2]!.join(' ')).toMatch(/-f concat -safe 0 -i \S+ -i \S+soundtrack\.m4a .*-c copy/);
    // The verified contract (every packet on the 1/60 s grid, 600 frames, keyframes ≤ 2 s apart) holds.
    expect(segmented.result).toMatchObject({ width: 1280, height: 720, fps: 60, duration_s: 10 });
    const keyframes = execFileSync(
      'ffprobe',
      ['-v', 'error', '-select_streams', 'v', '-show_entries', 'packet=pts_time,flags', '-of', 'csv=p=0', inSegments.outputPath],
      { encoding: 'utf8' },
    )
      .trim()
      .split('\n')
      .filter((line) => line.includes('K'))
      .map((line) => Number(line.split(',')[0]));
    // The second segment starts on a keyframe of its own, not on the 1 s grid.
    expect(keyframes.some((t) => Math.abs(t - Math.round(t)) > 1e-6)).toBe(true);
    // The same pictures: the two encodes differ by their encoder threads only.
    const report = spawnSync(
      'ffmpeg',
      ['-nostdin', '-i', inSegments.outputPath, '-i', oneRun.outputPath, '-lavfi', '[0:v][1:v]ssim', '-f', 'null', '-'],
      { encoding: 'utf8' },
    ).stderr;
    expect(Number(/All:([\d.]+)/.exec(report)?.[1])).toBeGreaterThan(0.99);
    expect(Number(ffprobe(inSegments.outputPath).format.duration)).toBeCloseTo(Number(ffprobe(oneRun.outputPath).format.duration), 2);
    // Nothing of the segments is left in the job directory.
    expect(readdirSync(inSegments.workDir).filter((f) => /\.part\d+\.mp4$|\.parts\.txt$/.test(f))).toEqual([]);
  });

  it('moves the camera smoothly: zooms stay centred and sub-pixel, pans step one pixel at a time, never backwards', async () => {
    // Two black bars on white, high in the frame where no card goes: their edges show every wobble.
    const bars = join(photos.dir, 'bars.jpg');
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="2000" height="1125"><rect width="2000" height="1125" fill="#fff"/><rect x="400" width="100" height="500"/><rect x="1500" width="100" height="500"/></svg>';
    await sharp(Buffer.from(svg)).jpeg({ quality: 95 }).toFile(bars);
    const ctx = renderContext(cacheDir);
    let shots: { start: number; frames: number; transitionFrames: number; motion: { kind: string } }[] = [];
    let fadeOutStart = 0;
    let planArgs: string[] = [];
    await render(renderRequest({ photos: [bars], duration_s: 5, music: 'none', branding: { unbranded: true } }), ctx, {
      onDebug: (d) => {
        shots = d.timeline.shots;
        fadeOutStart = d.timeline.frames - d.timeline.fadeOutFrames;
        planArgs = d.args;
      },
    });
    // A zoom scales only the first frame of each size and repeats it: every frame must be the one that
    // scaling each frame on its own gives (same count, same pixels), before any encoding.
    const graphAt = planArgs.indexOf('-filter_complex');
    const graph = planArgs[graphAt + 1]!;
    expect(graph).toContain('select=');
    const everyFrame = graph
      .replace(/select='[^']*',/g, '')
      .replace(/,fps=60/g, '')
      .replace(/round\(t\*60\)/g, 'n');
    const frameHashes = (filterGraph: string): string[] =>
      execFileSync(
        'ffmpeg',
        [...planArgs.slice(0, graphAt).filter((a) => a !== '-y'), '-filter_complex', filterGraph, '-map', '[vout]', '-f', 'framemd5', '-'],
        { maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] },
      )
        .toString()
        .split('\n')
        .filter((line) => line !== '' && !line.startsWith('#'))
        .map((line) => line.split(',').slice(-1)[0]!.trim());
    const deduplicated = frameHashes(graph);
    expect(deduplicated).toHaveLength(5 * 60);
    expect(deduplicated).toEqual(frameHashes(everyFrame));
    const raw = execFileSync(
      'ffmpeg',
      ['-hide_banner', '-loglevel', 'error', '-i', ctx.outputPath, '-vf', 'crop=1280:2:0:60,format=gray', '-f', 'rawvideo', '-'],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    /** Sub-pixel x of each white-to-black crossing on row 60 of frame f. */
    const edgesAt = (f: number): number[] => {
      const row = raw.subarray(f * 2560, f * 2560 + 1280);
      const found: number[] = [];
      for (let x = 1; x < 1280; x += 1)
        if (row[x - 1]! >= 128 && row[x]! < 128) found.push(x - 1 + (row[x - 1]! - 128) / (row[x - 1]! - row[x]!));
      return found;
    };
    // The pan goes towards the photo's subject (docs/rendering.md "Framing"): one of the bars, either way.
    expect(shots[0]!.motion.kind).toBe('zoom_in');
    expect(shots[1]!.motion.kind).toMatch(/^pan_(left|right)$/);
    for (const shot of shots.slice(0, 2)) {
      // Steady part of the shot: after the fade or transition in, before the transition or fade out.
      const end = Math.min(shot.start + shot.frames - 32, fadeOutStart - 2);
      const frames = Array.from({ length: end - shot.start - 32 }, (_, i) => shot.start + 32 + i);
      const left = frames.map((f) => edgesAt(f)[0]!);
      const right = frames.map((f) => edgesAt(f)[1]!);
      if (shot.motion.kind === 'zoom_in') {
        // Centred zoom: the bars move apart.
        expect(left[left.length - 1]!).toBeLessThan(left[0]! - 5);
        expect(right[right.length - 1]!).toBeGreaterThan(right[0]! + 5);
      }
      for (const track of [left, right]) {
        const direction = Math.sign(track[track.length - 1]! - track[0]!);
        const steps = track.slice(1).map((x, i) => x - track[i]!);
        expect(Math.min(...steps.map((d) => d * direction))).toBeGreaterThan(-0.05);
        expect(Math.max(...steps.map(Math.abs))).toBeLessThan(2);
        // Within about half a pixel of a straight path (least squares): no shaking.
        const meanI = (track.length - 1) / 2;
        const meanX = track.reduce((a, b) => a + b, 0) / track.length;
        const slope =
          track.reduce((sum, x, i) => sum + (i - meanI) * (x - meanX), 0) / track.reduce((sum, _x, i) => sum + (i - meanI) ** 2, 0);
        const worst = Math.max(...track.map((x, i) => Math.abs(x - (meanX + slope * (i - meanI)))));
        expect(worst).toBeLessThan(0.6);
      }
    }
  });

  it('fails clearly before ffmpeg when no photo is usable', async () => {
    const ctx = renderContext(cacheDir);
    const error = await rejection(render(renderRequest({ photos: [photos.corrupt, photos.truncated], music: 'none' }), ctx));
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toMatch(/None of the 2 photos could be used/);
    expect(error.details.map((d) => d.field)).toEqual(['photos[0]', 'photos[1]']);
    expect(existsSync(ctx.outputPath)).toBe(false);
    expect(readdirSync(ctx.workDir).filter((f) => f.endsWith('.mp4'))).toEqual([]);
  });

  it('cancels a render: ffmpeg is killed at once and no video is left', async () => {
    const ctx = renderContext(cacheDir);
    const request = renderRequest({ photos: [photos.good, photos.second], duration_s: 12 });
    let abortedAt = 0;
    const onProgress = ctx.onProgress;
    ctx.onProgress = (stage, progress) => {
      onProgress(stage, progress);
      if (stage === 'rendering' && progress > 0.3 && abortedAt === 0) {
        abortedAt = Date.now();
        ctx.controller.abort(new Error('canceled by the user'));
      }
    };
    await expect(render(request, ctx)).rejects.toThrow(/canceled by the user/);
    expect(abortedAt).toBeGreaterThan(0);
    expect(Date.now() - abortedAt).toBeLessThan(3000);
    expect(processesMentioning(ctx.workDir)).toEqual([]);
    expect(existsSync(ctx.outputPath)).toBe(false);
    expect(readdirSync(ctx.workDir).filter((f) => f.endsWith('.mp4'))).toEqual([]);
  });

  it('writes a silent AAC track with --music none, and loops a short user audio file to the end', async () => {
    const silent = renderContext(cacheDir);
    await render(renderRequest({ photos: [photos.good], music: 'none', duration_s: 3 }), silent);
    const audio = ffprobe(silent.outputPath).streams.find((s) => s.codec_type === 'audio');
    expect(audio).toMatchObject({ codec_name: 'aac', profile: 'LC', sample_rate: '48000', channels: 2 });
    expect(meanVolume(silent.outputPath, 1, 1)).toBeLessThan(-80);

    const tone = join(mkdtempSync(join(tmpdir(), 'immoreel-audio-')), 'tone.wav');
    execFileSync('ffmpeg', [
      '-hide_banner',
      '-loglevel',
      'error',
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=440:duration=1.2',
      '-ac',
      '1',
      '-ar',
      '44100',
      tone,
    ]);
    const music = renderContext(cacheDir);
    const outcome = await render(renderRequest({ photos: [photos.good], music: tone, duration_s: 4 }), music);
    expect(outcome.result.audio_bitrate_kbps).toBeGreaterThan(150);
    // Still sounding at 2.5 s, after the 1.2 s file ran out: it loops; faded out at the very end.
    expect(meanVolume(music.outputPath, 2.3, 0.5)).toBeGreaterThan(-30);
    expect(meanVolume(music.outputPath, 3.93, 0.06)).toBeLessThan(meanVolume(music.outputPath, 2.3, 0.5) - 6);
  });

  it('reports a missing ffmpeg as DEPENDENCY_MISSING before fetching anything', async () => {
    const ctx = renderContext(cacheDir, { ffmpeg: { ...TEST_FFMPEG, ffmpegPath: '/nonexistent' } });
    const error = await rejection(render(renderRequest({ photos: [photos.good] }), ctx));
    expect(error.code).toBe('DEPENDENCY_MISSING');
    expect(error.exitCode).toBe(1);
    expect(error.message).toMatch(/install/i);
    expect(ctx.stages).toEqual([]);
  });
});

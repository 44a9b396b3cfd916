import { FPS } from '../formats.js';
import type { Motion, Shot, Timeline } from '../storyboard.js';
import { commandArgs, QUIET_OPTIONS, type FfmpegCommandSpec } from './command.js';

/**
 * The ffmpeg plan (docs/architecture.md, pure): prepared files + timeline → the argument list of one ffmpeg
 * run. Only numbers and our own file paths reach the filtergraph: every user text is already
 * drawn into a PNG (cards.ts).
 *
 * Shape of the graph, chosen for speed on small machines (measured in docs/rendering.md):
 * - each shot is cut into parts: the frames it shares with the previous shot (head), its own
 *   frames (body) and those it shares with the next one (tail). Transitions only ever see their
 *   own frames, and `concat` joins bodies and transitions: ffmpeg 5.1's xfade costs ~7 ms on
 *   every frame it passes, even outside its transition, so it is never chained over a whole video;
 * - a photo is decoded once and repeated with `loop` (no per-frame decoding);
 * - a pan is a moving `crop` window (nearly free); a zoom re-scales the slightly larger source
 *   (`scale` with eval=frame, once per size, repeated until the next), then crops: the centre
 *   stays exact and the picture changes size in one-pixel steps, no back-and-forth wobble
 *   (zoompan's integer crop shakes);
 * - cards are small RGBA images overlaid only during their window, fading via their alpha.
 */

export interface PlacedImage {
  file: string;
  x: number;
  y: number;
  width: number;
  height: number;
  /** Rise (pixels) while the card fades in; 0 = no movement. */
  rise?: number;
}

export interface EncoderSettings {
  preset: string;
  /** Extra libx264 options (`-x264-params`), applied over the preset. */
  x264Params?: string;
  crf: number;
  /** Keyframe interval in frames. */
  gop: number;
}

/**
 * x264's ultrafast analysis with the High-profile tools it turns off put back (8x8 transform,
 * CABAC, deblocking). Measured on the 30 s demo, 2 cores (docs/rendering.md): same size and
 * SSIM/PSNR as `superfast` within 0.001 / 0.5 dB, 25 % less encoding time. Pixels move slowly
 * in a listing video, so the finer motion search of the slower presets buys little.
 */
export const DEFAULT_ENCODER: EncoderSettings = { preset: 'ultrafast', x264Params: '8x8dct=1:cabac=1:deblock=1', crf: 21, gop: FPS };

export interface PlanInput {
  timeline: Timeline;
  /** The prepared source image of each shot (same order as timeline.shots), sized as shot.source. */
  shotFiles: string[];
  /** Card images by card id, placed in frame coordinates. */
  cards: ReadonlyMap<string, PlacedImage>;
  brandBug: PlacedImage | null;
  /** The prepared soundtrack (music or silence), already encoded as the output's AAC: copied, not encoded again. */
  audioFile: string;
  output: string;
  threads: number;
  encoder?: EncoderSettings;
}

export interface RenderPlan {
  /** The run for the runner (fluent-ffmpeg's builder). */
  command: FfmpegCommandSpec;
  /** The same run as ffmpeg's argument list (logs, tests, benchmarks). */
  args: string[];
  inputs: string[];
  filterGraph: string;
  durationS: number;
  frames: number;
}

/** Numbers printed into the graph: short, never in exponent notation. */
function n(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`non-finite number in the filtergraph: ${value}`);
  const rounded = Math.round(value * 1e6) / 1e6;
  return Object.is(rounded, -0) ? '0' : String(rounded);
}

/** Colour conversion used for every input: photos and cards meet in BT.709 limited range. */
const TO_YUV = 'scale=out_color_matrix=bt709:out_range=tv';

/** A pan: a crop window moving one whole pixel at a time over the still (nearly free). */
function panFilters(motion: Extract<Motion, { type: 'pan' }>, shot: Shot, offset: number, width: number, height: number): string[] {
  const last = Math.max(1, shot.frames - 1);
  const progress = `((n+${offset})/${last})`;
  const position = `floor((${motion.axis === 'x' ? `iw-${width}` : `ih-${height}`})*(${n(motion.from)}+${n(motion.to - motion.from)}*${progress})+0.5)`;
  const x = motion.axis === 'x' ? `'${position}'` : `'(iw-${width})/2'`;
  const y = motion.axis === 'y' ? `'${position}'` : `'(ih-${height})/2'`;
  return [`crop=${width}:${height}:x=${x}:y=${y}:exact=1`];
}

/**
 * A zoom re-scales the slightly larger still to an even size, then crops its centre: the picture
 * changes size in one-pixel steps on each side, with no back-and-forth. A size holds for several
 * frames (a 10 % zoom over 4 s has 64 sizes for 240 frames), and frames of one size are the same
 * picture, so only the first frame of each size is scaled (`select`) and `fps` repeats it until
 * the next: the same pixels as scaling every frame, for a quarter of the work (docs/rendering.md
 * "Where the time goes"). After `select`, frame numbers no longer count the piece's frames: scale
 * and crop read the frame's place from its timestamp instead (pts = frame number, see stillChain).
 * crop evaluates iw/ih once, from the first frame's size: the centre is recomputed from the same
 * expression as the scale, so it stays exact while the size changes.
 */
function zoomFilters(motion: Extract<Motion, { type: 'zoom' }>, shot: Shot, offset: number, width: number, height: number): string[] {
  const last = Math.max(1, shot.frames - 1);
  const size = (frame: string, side: number): string =>
    `2*trunc(${side}*(${n(motion.from)}+${n(motion.to - motion.from)}*((${frame}+${offset})/${last}))/2+0.5)`;
  const changed = (side: number): string => `not(eq(${size('n', side)},${size('(n-1)', side)}))`;
  const frame = `round(t*${FPS})`;
  const scaledWidth = size(frame, width);
  const scaledHeight = size(frame, height);
  return [
    `select='eq(n,0)+${changed(width)}+${changed(height)}'`,
    `scale=w='${scaledWidth}':h='${scaledHeight}':eval=frame:flags=bilinear`,
    `crop=${width}:${height}:x='(${scaledWidth}-${width})/2':y='(${scaledHeight}-${height})/2':exact=1`,
    `fps=${FPS}`,
  ];
}

interface Part {
  shot: Shot;
  from: number;
  count: number;
  label: string;
}

class Graph {
  readonly chains: string[] = [];
  private counter = 0;
  label(prefix: string): string {
    this.counter += 1;
    return `${prefix}${this.counter}`;
  }
  add(chain: string): void {
    this.chains.push(chain);
  }
}

/** A looped still → `count` frames at 60 fps, timestamps 0..count-1, then `filters`. */
function stillChain(source: string, count: number, filters: string[], out: string): string {
  return `[${source}]loop=loop=${count - 1}:size=1:start=0,settb=1/${FPS},setpts=N,${filters.join(',')}[${out}]`;
}

/** Overlays a card on a part whose first frame is frame `partFrom` of its shot. */
function overlayCard(
  graph: Graph,
  base: string,
  cardInput: number,
  card: PlacedImage,
  from: number,
  to: number,
  fades: { in: number; out: number },
  timelineFps: number,
): string {
  const count = to - from;
  const stream = graph.label('card');
  const fadeInS = fades.in / timelineFps;
  const fadeOutS = fades.out / timelineFps;
  const fadeFilters = [
    ...(fades.in > 0 ? [`fade=t=in:st=${n(from / timelineFps)}:d=${n(fadeInS)}:alpha=1`] : []),
    ...(fades.out > 0 ? [`fade=t=out:st=${n((to - fades.out) / timelineFps)}:d=${n(fadeOutS)}:alpha=1`] : []),
  ];
  graph.add(
    `[${cardInput}:v]${TO_YUV},format=yuva420p,loop=loop=${count - 1}:size=1:start=0,settb=1/${FPS},setpts=N+${from}` +
      `${fadeFilters.map((f) => `,${f}`).join('')}[${stream}]`,
  );
  const out = graph.label('ov');
  const rise = fades.in > 0 ? (card.rise ?? 0) : 0;
  const y =
    rise > 0
      ? `'${card.y}+${rise}*pow(1-min(1,max(0,(t-${n(from / timelineFps)})/${n(Math.max(fadeInS, 1 / timelineFps) * 1.6)})),3)'`
      : String(card.y);
  graph.add(`[${base}][${stream}]overlay=x=${card.x}:y=${y}:eof_action=pass:format=yuv420[${out}]`);
  return out;
}

function transitionChain(
  graph: Graph,
  kind: Shot['transitionIn'],
  tail: string,
  head: string,
  frames: number,
  width: number,
  height: number,
): string {
  const out = graph.label('tr');
  const seconds = n(frames / FPS);
  const eased = `(((n+1)/${frames})*((n+1)/${frames})*(3-2*((n+1)/${frames})))`;
  switch (kind) {
    case 'fade': {
      const faded = graph.label('fi');
      graph.add(`[${head}]format=yuva420p,fade=t=in:st=0:d=${seconds}:alpha=1[${faded}]`);
      graph.add(`[${tail}][${faded}]overlay=x=0:y=0:format=yuv420[${out}]`);
      return out;
    }
    case 'fade_black':
    case 'fade_white': {
      const color = kind === 'fade_black' ? 'black' : 'white';
      const half = Math.floor(frames / 2);
      const a = graph.label('fo');
      const b = graph.label('fi');
      graph.add(`[${tail}]trim=end_frame=${half},fade=t=out:st=0:d=${n(half / FPS)}:color=${color}[${a}]`);
      graph.add(`[${head}]trim=start_frame=${half},setpts=N,fade=t=in:st=0:d=${n((frames - half) / FPS)}:color=${color}[${b}]`);
      graph.add(`[${a}][${b}]concat=n=2:v=1:a=0[${out}]`);
      return out;
    }
    case 'slide_left':
    case 'slide_right':
    case 'slide_up':
    case 'slide_down': {
      const x = kind === 'slide_left' ? `'${width}*(1-${eased})'` : kind === 'slide_right' ? `'-${width}*(1-${eased})'` : '0';
      const y = kind === 'slide_up' ? `'${height}*(1-${eased})'` : kind === 'slide_down' ? `'-${height}*(1-${eased})'` : '0';
      graph.add(`[${tail}][${head}]overlay=x=${x}:y=${y}:format=yuv420[${out}]`);
      return out;
    }
    case 'cut':
      throw new Error('a cut has no transition frames');
    default: {
      const name = kind.slice('xfade:'.length);
      graph.add(`[${tail}][${head}]xfade=transition=${name}:duration=${seconds}:offset=0[${out}]`);
      return out;
    }
  }
}

/**
 * The pieces the video is made of, in order: each shot's body, and before it the transition
 * from the previous shot. A segment of a render is a run of whole elements.
 */
interface Element {
  kind: 'body' | 'transition';
  shot: number;
  frames: number;
}

function partsOf(shots: readonly Shot[]): Part[][] {
  // Parts of every shot: head (shared with the previous shot), body, tail (shared with the next).
  return shots.map((shot, i) => {
    const head = shot.transitionFrames;
    const tail = i + 1 < shots.length ? (shots[i + 1] as Shot).transitionFrames : 0;
    const parts: Part[] = [];
    if (head > 0) parts.push({ shot, from: 0, count: head, label: `h${i}` });
    parts.push({ shot, from: head, count: shot.frames - head - tail, label: `b${i}` });
    if (tail > 0) parts.push({ shot, from: shot.frames - tail, count: tail, label: `t${i}` });
    for (const part of parts) if (part.count < 1) throw new Error(`shot ${i} is too short for its transitions`);
    return parts;
  });
}

function elementsOf(shots: readonly Shot[], partsByShot: readonly Part[][]): Element[] {
  const elements: Element[] = [];
  shots.forEach((shot, i) => {
    if (i > 0 && shot.transitionFrames > 0) elements.push({ kind: 'transition', shot: i, frames: shot.transitionFrames });
    const body = (partsByShot[i] as Part[]).find((p) => p.label === `b${i}`) as Part;
    elements.push({ kind: 'body', shot: i, frames: body.count });
  });
  return elements;
}

/** The labels of the parts an element is drawn from. */
function partLabels(element: Element): string[] {
  return element.kind === 'body' ? [`b${element.shot}`] : [`t${element.shot - 1}`, `h${element.shot}`];
}

interface VideoGraph {
  graph: Graph;
  inputs: string[];
  /** The label of the finished video stream. */
  video: string;
}

/**
 * The video of elements [first, last) of the timeline, whose first frame is frame `startFrame` of
 * the whole video: only the stills, cards and chains those elements use.
 */
function videoGraph(
  input: PlanInput,
  partsByShot: readonly Part[][],
  elements: readonly Element[],
  first: number,
  last: number,
): VideoGraph {
  const { timeline, shotFiles } = input;
  const { width, height, shots } = timeline;
  const startFrame = elements.slice(0, first).reduce((sum, e) => sum + e.frames, 0);
  const frames = elements.slice(first, last).reduce((sum, e) => sum + e.frames, 0);
  const endFrame = startFrame + frames;
  const graph = new Graph();
  const inputs: string[] = [];
  const inputIndex = new Map<string, number>();
  const addInput = (file: string, unique = false): number => {
    if (!unique && inputIndex.has(file)) return inputIndex.get(file) as number;
    inputs.push(file);
    if (!unique) inputIndex.set(file, inputs.length - 1);
    return inputs.length - 1;
  };
  const used = new Set(elements.slice(first, last).flatMap(partLabels));
  const partsUsed = partsByShot.map((parts) => parts.filter((p) => used.has(p.label)));

  // One decoded input per distinct source file, split into as many parts as use it.
  const usesByFile = new Map<string, string[]>();
  shots.forEach((_shot, i) => {
    const parts = partsUsed[i] as Part[];
    if (parts.length === 0) return;
    const file = shotFiles[i] as string;
    addInput(file);
    const uses = usesByFile.get(file) ?? [];
    for (const part of parts) uses.push(`src_${part.label}`);
    usesByFile.set(file, uses);
  });
  for (const [file, uses] of usesByFile) {
    const index = inputIndex.get(file) as number;
    const split = uses.length === 1 ? `null[${uses[0]}]` : `split=${uses.length}${uses.map((u) => `[${u}]`).join('')}`;
    graph.add(`[${index}:v]${TO_YUV},format=yuv420p,setsar=1,${split}`);
  }

  const cardInputs = new Map<string, number>();
  shots.forEach((shot, i) => {
    if (!used.has(`b${i}`)) return;
    for (const card of shot.cards) {
      const placed = input.cards.get(card.id);
      if (placed === undefined) throw new Error(`no image for card ${card.id}`);
      cardInputs.set(card.id, addInput(placed.file, true));
    }
  });
  const bug = timeline.brandBug;
  const bugShown = input.brandBug !== null && bug !== null && bug.from < endFrame && bug.to > startFrame;
  const bugInput = bugShown && input.brandBug !== null ? addInput(input.brandBug.file, true) : null;

  // Every part is its own still loop with the shot's motion offset by the part's first frame, so
  // that nothing is buffered: cutting one rendered shot with split+trim keeps frames queued for
  // the parts not yet consumed (measured: 2.4 GB for a 30 s video instead of ~0.2 GB).
  const rendered = new Map<string, string>();
  for (const parts of partsUsed) {
    for (const part of parts) {
      const { shot } = part;
      const isBody = part.label.startsWith('b');
      let out = isBody && shot.cards.length > 0 ? graph.label('base') : part.label;
      const motion =
        shot.motion.type === 'pan'
          ? panFilters(shot.motion, shot, part.from, width, height)
          : zoomFilters(shot.motion, shot, part.from, width, height);
      graph.add(stillChain(`src_${part.label}`, part.count, [...motion, 'setsar=1'], out));
      if (isBody) {
        // Cards sit inside the body (the storyboard keeps them clear of the transitions).
        for (const card of shot.cards) {
          const from = Math.max(0, card.from - part.from);
          const to = Math.min(part.count, card.to - part.from);
          if (to - from < 2) continue;
          const fade = Math.max(1, Math.min(card.fadeFrames, Math.floor((to - from) / 2)));
          out = overlayCard(
            graph,
            out,
            cardInputs.get(card.id) as number,
            input.cards.get(card.id) as PlacedImage,
            from,
            to,
            { in: fade, out: fade },
            FPS,
          );
        }
      }
      rendered.set(part.label, out);
    }
  }

  // Bodies and transitions, in order.
  const sequence = elements
    .slice(first, last)
    .map((element) =>
      element.kind === 'body'
        ? (rendered.get(`b${element.shot}`) as string)
        : transitionChain(
            graph,
            (shots[element.shot] as Shot).transitionIn,
            rendered.get(`t${element.shot - 1}`) as string,
            rendered.get(`h${element.shot}`) as string,
            element.frames,
            width,
            height,
          ),
    );
  // The video's fade from and to black belong to the segments holding its first and last frames
  // (cuts are never placed inside them: see segmentCuts).
  const fadeIn = startFrame === 0 && timeline.fadeInFrames > 0 ? `,fade=t=in:st=0:d=${n(timeline.fadeInFrames / FPS)}` : '';
  const fadeOut =
    endFrame === timeline.frames && timeline.fadeOutFrames > 0
      ? `,fade=t=out:st=${n((timeline.frames - timeline.fadeOutFrames - startFrame) / FPS)}:d=${n(timeline.fadeOutFrames / FPS)}`
      : '';
  let video = graph.label('cat');
  graph.add(
    `${sequence.map((s) => `[${s}]`).join('')}concat=n=${sequence.length}:v=1:a=0,settb=1/${FPS},setpts=N${fadeIn}${fadeOut}[${video}]`,
  );
  if (bugInput !== null && input.brandBug !== null && bug !== null) {
    // The corner mark spans segments: it fades in only where it starts and out only where it ends.
    const fade = Math.round(0.4 * FPS);
    const from = Math.max(bug.from, startFrame) - startFrame;
    const to = Math.min(bug.to, endFrame) - startFrame;
    const fades = { in: bug.from >= startFrame ? fade : 0, out: bug.to <= endFrame ? fade : 0 };
    video = overlayCard(graph, video, bugInput, { ...input.brandBug, rise: 0 }, from, to, fades, FPS);
  }
  graph.add(`[${video}]format=yuv420p[vout]`);
  return { graph, inputs, video: 'vout' };
}

/** x264 and the stream's colour tags: the same for a whole run and for each segment. */
function videoEncoderOptions(encoder: EncoderSettings, threads: number): string[] {
  return [
    '-c:v',
    'libx264',
    '-preset',
    encoder.preset,
    ...(encoder.x264Params === undefined ? [] : ['-x264-params', encoder.x264Params]),
    '-crf',
    String(encoder.crf),
    '-profile:v',
    'high',
    '-pix_fmt',
    'yuv420p',
    '-r',
    String(FPS),
    '-g',
    String(encoder.gop),
    '-bf',
    '2',
    '-threads',
    String(Math.max(1, Math.floor(threads))),
    '-color_primaries',
    'bt709',
    '-color_trc',
    'bt709',
    '-colorspace',
    'bt709',
    '-color_range',
    'tv',
  ];
}

/**
 * The graph's filters each cost a millisecond or two per frame: slicing them over threads cost more
 * CPU than it saved, and x264's threads already fill the cores (docs/rendering.md "Where the time goes").
 */
const ONE_GRAPH_THREAD: readonly string[] = ['-filter_complex_threads', '1'];

/** A run of the plan's filter graph: its video stream mapped first, then `outputOptions`. */
function graphRun(
  inputs: FfmpegCommandSpec['inputs'],
  graph: { filterGraph: string; video: string },
  outputOptions: string[],
  output: string,
): FfmpegCommandSpec {
  return {
    inputs,
    complexFilter: graph.filterGraph,
    outputOptions: [...QUIET_OPTIONS, ...ONE_GRAPH_THREAD, '-map', `[${graph.video}]`, ...outputOptions],
    output,
  };
}

/** The delivered file: cut at the video's length, `moov` before `mdat` (faststart), MP4. */
function finishedMp4(durationS: number): string[] {
  return ['-t', n(durationS), '-movflags', '+faststart', '-f', 'mp4'];
}

function framedInputs(files: readonly string[]): FfmpegCommandSpec['inputs'] {
  return files.map((file) => ({ file, options: ['-framerate', String(FPS)] }));
}

/** Builds the whole ffmpeg command line for a timeline whose assets are prepared. */
export function buildRenderPlan(input: PlanInput): RenderPlan {
  const { timeline, shotFiles } = input;
  if (shotFiles.length !== timeline.shots.length) throw new Error(`expected ${timeline.shots.length} shot files, got ${shotFiles.length}`);
  const encoder = input.encoder ?? DEFAULT_ENCODER;
  const partsByShot = partsOf(timeline.shots);
  const elements = elementsOf(timeline.shots, partsByShot);
  const { graph, inputs, video } = videoGraph(input, partsByShot, elements, 0, elements.length);

  const durationS = timeline.frames / FPS;
  const audioInput = inputs.length;
  const filterGraph = graph.chains.join(';\n');
  const command = graphRun(
    [...framedInputs(inputs), { file: input.audioFile, options: [] }],
    { filterGraph, video },
    ['-map', `${audioInput}:a`, ...videoEncoderOptions(encoder, input.threads), '-c:a', 'copy', ...finishedMp4(durationS)],
    input.output,
  );
  return { command, args: commandArgs(command), inputs: [...inputs, input.audioFile], filterGraph, durationS, frames: timeline.frames };
}

/**
 * What a frame of an element costs relative to a frame of a pan, measured on 2 cores
 * (docs/rendering.md "Segments"): a zoom re-scales its still every frame, and a transition blends
 * two pictures; both also change every pixel, which x264 pays for.
 */
const ZOOM_FRAME_COST = 1.35;
const TRANSITION_FRAME_COST = 1.25;

function frameCost(shots: readonly Shot[], element: Element): number {
  const motionCost = (shot: Shot): number => (shot.motion.type === 'zoom' ? ZOOM_FRAME_COST : 1);
  const shot = shots[element.shot] as Shot;
  if (element.kind === 'body') return motionCost(shot);
  const previous = shots[element.shot - 1] as Shot;
  return ((motionCost(previous) + motionCost(shot)) / 2) * TRANSITION_FRAME_COST;
}

/** Shortest segment worth its own ffmpeg run: below it the run's start-up outweighs what it saves. */
export const MIN_SEGMENT_FRAMES = 4 * FPS;

/**
 * Where a render is cut into `count` segments: indexes into the element list, each the element a
 * segment starts with, as near as can be to equal lengths. A cut never falls inside the video's
 * fade from or to black; fewer cuts come back when the elements do not allow them.
 */
export function segmentCuts(timeline: Timeline, count: number): number[] {
  const partsByShot = partsOf(timeline.shots);
  const elements = elementsOf(timeline.shots, partsByShot);
  const starts: number[] = [];
  // Work done before each element, in frames weighted by what they cost to draw and encode.
  const workBefore: number[] = [];
  let frame = 0;
  let work = 0;
  for (const element of elements) {
    starts.push(frame);
    workBefore.push(work);
    frame += element.frames;
    work += element.frames * frameCost(timeline.shots, element);
  }
  const cuts: number[] = [];
  for (let k = 1; k < count; k++) {
    const target = (work * k) / count;
    let best = -1;
    for (let e = 1; e < elements.length; e++) {
      const at = starts[e] as number;
      if (at < timeline.fadeInFrames || at > timeline.frames - timeline.fadeOutFrames) continue;
      if (best === -1 || Math.abs((workBefore[e] as number) - target) < Math.abs((workBefore[best] as number) - target)) best = e;
    }
    if (best !== -1) cuts.push(best);
  }
  const unique = [...new Set(cuts)].sort((a, b) => a - b);
  // Every segment keeps MIN_SEGMENT_FRAMES; a cut that leaves less is dropped.
  const kept: number[] = [];
  let previous = 0;
  for (const cut of unique) {
    if (
      (starts[cut] as number) - (starts[previous] as number) >= MIN_SEGMENT_FRAMES &&
      timeline.frames - (starts[cut] as number) >= MIN_SEGMENT_FRAMES
    ) {
      kept.push(cut);
      previous = cut;
    }
  }
  return kept;
}

/**
 * A segment's clocks, in ticks of 1/(256 × FPS) s. The concat demuxer places each segment after the
 * previous one by the previous file's duration as its header states it, in the movie timescale:
 * ffmpeg's default of 1/1000 s rounds a segment of 437 frames (7.28333 s) to 7.284 s, and every
 * frame after the join drifted by that much (a 30 s render came out 30.0003 s long, its average
 * frame rate 59.9993). In the track's own timescale every frame boundary is a whole number of ticks,
 * so the joined file is exactly 60 × its duration frames at 60/1 (docs/rendering.md "Segments").
 */
const SEGMENT_TIMESCALE = 256 * FPS;
const SEGMENT_TIMESCALES: readonly string[] = [
  '-video_track_timescale',
  String(SEGMENT_TIMESCALE),
  '-movie_timescale',
  String(SEGMENT_TIMESCALE),
];

/** A segment run's output: video only, x264 as a whole run, on the exact clocks of SEGMENT_TIMESCALES. */
export function segmentOutputOptions(encoder: EncoderSettings, threads: number): string[] {
  return ['-an', ...videoEncoderOptions(encoder, threads), ...SEGMENT_TIMESCALES, '-f', 'mp4'];
}

/**
 * The join: the concat demuxer over the segments' files (listed in `listText`, written to
 * `listFile` before `mux` runs) plus the soundtrack, copied into the finished MP4.
 */
export function segmentJoin(
  segmentFiles: readonly string[],
  audioFile: string,
  output: string,
  durationS: number,
): { listFile: string; listText: string; mux: FfmpegCommandSpec } {
  const listFile = `${output}.parts.txt`;
  // The concat demuxer's quoting: inside single quotes, a quote is written '\''.
  const listText = segmentFiles.map((file) => `file '${file.replace(/'/g, "'\\''")}'\n`).join('');
  const mux: FfmpegCommandSpec = {
    inputs: [
      { file: listFile, options: ['-f', 'concat', '-safe', '0'] },
      { file: audioFile, options: [] },
    ],
    complexFilter: null,
    outputOptions: [...QUIET_OPTIONS, '-map', '0:v', '-map', '1:a', '-c', 'copy', ...finishedMp4(durationS)],
    output,
  };
  return { listFile, listText, mux };
}

export interface SegmentedPlan {
  /** One video-only run a segment, in order; they run at the same time. */
  segments: RenderPlan[];
  /** The concat demuxer's list of the segments' files: written before `mux` runs. */
  listFile: string;
  listText: string;
  /** Segments and the soundtrack joined into the output, without encoding anything again. */
  mux: FfmpegCommandSpec;
  durationS: number;
  frames: number;
  /** Every file the runs write besides the output (to delete afterwards). */
  scratchFiles: string[];
}

/**
 * A render as `cuts.length + 1` video-only segments encoded at the same time, then joined with the
 * soundtrack (docs/rendering.md "Segments"); with no cut, one segment and the join. The frames are those of `buildRenderPlan`'s graph, cut between elements; each
 * segment starts with a keyframe. One ffmpeg run keeps its filter graph on one thread between
 * encoder calls and leaves a core partly idle; segments fill both.
 */
export function buildSegmentedPlan(input: PlanInput, cuts: readonly number[]): SegmentedPlan {
  const { timeline, shotFiles } = input;
  if (shotFiles.length !== timeline.shots.length) throw new Error(`expected ${timeline.shots.length} shot files, got ${shotFiles.length}`);
  const encoder = input.encoder ?? DEFAULT_ENCODER;
  const partsByShot = partsOf(timeline.shots);
  const elements = elementsOf(timeline.shots, partsByShot);
  const bounds = [0, ...cuts, elements.length];
  const threads = Math.max(1, Math.floor(input.threads / (bounds.length - 1)));
  const segments = bounds.slice(0, -1).map((first, k): RenderPlan => {
    const last = bounds[k + 1] as number;
    if (!(last > first)) throw new Error(`segment cuts must increase: ${cuts.join(', ')}`);
    const { graph, inputs, video } = videoGraph(input, partsByShot, elements, first, last);
    const frames = elements.slice(first, last).reduce((sum, e) => sum + e.frames, 0);
    const filterGraph = graph.chains.join(';\n');
    const command = graphRun(
      framedInputs(inputs),
      { filterGraph, video },
      segmentOutputOptions(encoder, threads),
      `${input.output}.part${k + 1}.mp4`,
    );
    return { command, args: commandArgs(command), inputs, filterGraph, durationS: frames / FPS, frames };
  });
  const durationS = timeline.frames / FPS;
  const { listFile, listText, mux } = segmentJoin(
    segments.map((segment) => segment.command.output),
    input.audioFile,
    input.output,
    durationS,
  );
  return {
    segments,
    listFile,
    listText,
    mux,
    durationS,
    frames: timeline.frames,
    scratchFiles: [...segments.map((segment) => segment.command.output), listFile],
  };
}

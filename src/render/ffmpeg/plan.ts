import { AUDIO_BITRATE_KBPS, AUDIO_RATE, FPS } from '../formats.js';
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
 *   every frame (`scale` with eval=frame), then crops: the centre stays exact and the picture
 *   changes size in one-pixel steps, no back-and-forth wobble (zoompan's integer crop shakes);
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
  /** A prepared audio file of exactly the video's duration (48 kHz stereo), or null for silence. */
  audioFile: string | null;
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

function motionFilters(motion: Motion, shot: Shot, offset: number, width: number, height: number): string[] {
  const last = Math.max(1, shot.frames - 1);
  const progress = `((n+${offset})/${last})`;
  if (motion.type === 'zoom') {
    const scale = `(${n(motion.from)}+${n(motion.to - motion.from)}*${progress})`;
    const scaledWidth = `2*trunc(${width}*${scale}/2+0.5)`;
    const scaledHeight = `2*trunc(${height}*${scale}/2+0.5)`;
    // crop evaluates iw/ih once, from the first frame's size: the centre is recomputed from the
    // same expression as the scale (same n), so it stays exact while the size changes.
    return [
      `scale=w='${scaledWidth}':h='${scaledHeight}':eval=frame:flags=bilinear`,
      `crop=${width}:${height}:x='(${scaledWidth}-${width})/2':y='(${scaledHeight}-${height})/2':exact=1`,
    ];
  }
  const position = `floor((${motion.axis === 'x' ? `iw-${width}` : `ih-${height}`})*(${n(motion.from)}+${n(motion.to - motion.from)}*${progress})+0.5)`;
  const x = motion.axis === 'x' ? `'${position}'` : `'(iw-${width})/2'`;
  const y = motion.axis === 'y' ? `'${position}'` : `'(ih-${height})/2'`;
  return [`crop=${width}:${height}:x=${x}:y=${y}:exact=1`];
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
  fade: number,
  timelineFps: number,
): string {
  const count = to - from;
  const stream = graph.label('card');
  const fadeS = fade / timelineFps;
  const fadeOutStart = (to - fade) / timelineFps;
  graph.add(
    `[${cardInput}:v]${TO_YUV},format=yuva420p,loop=loop=${count - 1}:size=1:start=0,settb=1/${FPS},setpts=N+${from},` +
      `fade=t=in:st=${n(from / timelineFps)}:d=${n(fadeS)}:alpha=1,fade=t=out:st=${n(fadeOutStart)}:d=${n(fadeS)}:alpha=1[${stream}]`,
  );
  const out = graph.label('ov');
  const rise = card.rise ?? 0;
  const y =
    rise > 0
      ? `'${card.y}+${rise}*pow(1-min(1,max(0,(t-${n(from / timelineFps)})/${n(Math.max(fadeS, 1 / timelineFps) * 1.6)})),3)'`
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

/** Builds the whole ffmpeg command line for a timeline whose assets are prepared. */
export function buildRenderPlan(input: PlanInput): RenderPlan {
  const { timeline, shotFiles } = input;
  const { width, height, shots } = timeline;
  if (shotFiles.length !== shots.length) throw new Error(`expected ${shots.length} shot files, got ${shotFiles.length}`);
  const encoder = input.encoder ?? DEFAULT_ENCODER;
  const graph = new Graph();
  const inputs: string[] = [];
  const inputIndex = new Map<string, number>();
  const addInput = (file: string, unique = false): number => {
    if (!unique && inputIndex.has(file)) return inputIndex.get(file) as number;
    inputs.push(file);
    if (!unique) inputIndex.set(file, inputs.length - 1);
    return inputs.length - 1;
  };

  // Parts of every shot: head (shared with the previous shot), body, tail (shared with the next).
  const partsByShot: Part[][] = shots.map((shot, i) => {
    const head = shot.transitionFrames;
    const tail = i + 1 < shots.length ? (shots[i + 1] as Shot).transitionFrames : 0;
    const parts: Part[] = [];
    if (head > 0) parts.push({ shot, from: 0, count: head, label: `h${i}` });
    parts.push({ shot, from: head, count: shot.frames - head - tail, label: `b${i}` });
    if (tail > 0) parts.push({ shot, from: shot.frames - tail, count: tail, label: `t${i}` });
    for (const part of parts) if (part.count < 1) throw new Error(`shot ${i} is too short for its transitions`);
    return parts;
  });

  // One decoded input per distinct source file, split into as many parts as use it.
  const usesByFile = new Map<string, string[]>();
  shots.forEach((_shot, i) => {
    const file = shotFiles[i] as string;
    addInput(file);
    const uses = usesByFile.get(file) ?? [];
    for (const part of partsByShot[i] as Part[]) uses.push(`src_${part.label}`);
    usesByFile.set(file, uses);
  });
  for (const [file, uses] of usesByFile) {
    const index = inputIndex.get(file) as number;
    const split = uses.length === 1 ? `null[${uses[0]}]` : `split=${uses.length}${uses.map((u) => `[${u}]`).join('')}`;
    graph.add(`[${index}:v]${TO_YUV},format=yuv420p,setsar=1,${split}`);
  }

  const cardInputs = new Map<string, number>();
  for (const shot of shots)
    for (const card of shot.cards) {
      const placed = input.cards.get(card.id);
      if (placed === undefined) throw new Error(`no image for card ${card.id}`);
      cardInputs.set(card.id, addInput(placed.file, true));
    }
  const bugInput = input.brandBug !== null && timeline.brandBug !== null ? addInput(input.brandBug.file, true) : null;
  const audioInput = input.audioFile !== null ? addInput(input.audioFile, true) : null;

  // Every part is its own still loop with the shot's motion offset by the part's first frame, so
  // that nothing is buffered: cutting one rendered shot with split+trim keeps frames queued for
  // the parts not yet consumed (measured: 2.4 GB for a 30 s video instead of ~0.2 GB).
  const rendered = new Map<string, string>();
  for (const parts of partsByShot) {
    for (const part of parts) {
      const { shot } = part;
      const filters = [...motionFilters(shot.motion, shot, part.from, width, height), 'setsar=1'];
      const isBody = part.label.startsWith('b');
      let out = isBody && shot.cards.length > 0 ? graph.label('base') : part.label;
      graph.add(stillChain(`src_${part.label}`, part.count, filters, out));
      if (isBody) {
        // Cards sit inside the body (the storyboard keeps them clear of the transitions).
        for (const card of shot.cards) {
          const from = Math.max(0, card.from - part.from);
          const to = Math.min(part.count, card.to - part.from);
          if (to - from < 2) continue;
          const fade = Math.min(card.fadeFrames, Math.floor((to - from) / 2));
          out = overlayCard(
            graph,
            out,
            cardInputs.get(card.id) as number,
            input.cards.get(card.id) as PlacedImage,
            from,
            to,
            Math.max(1, fade),
            FPS,
          );
        }
      }
      rendered.set(part.label, out);
    }
  }

  // Bodies and transitions, in order.
  const sequence: string[] = [];
  shots.forEach((shot, i) => {
    if (i > 0 && shot.transitionFrames > 0) {
      sequence.push(
        transitionChain(
          graph,
          shot.transitionIn,
          rendered.get(`t${i - 1}`) as string,
          rendered.get(`h${i}`) as string,
          shot.transitionFrames,
          width,
          height,
        ),
      );
    }
    sequence.push(rendered.get(`b${i}`) as string);
  });
  const fadeIn = timeline.fadeInFrames > 0 ? `,fade=t=in:st=0:d=${n(timeline.fadeInFrames / FPS)}` : '';
  const fadeOut =
    timeline.fadeOutFrames > 0
      ? `,fade=t=out:st=${n((timeline.frames - timeline.fadeOutFrames) / FPS)}:d=${n(timeline.fadeOutFrames / FPS)}`
      : '';
  let video = graph.label('cat');
  graph.add(
    `${sequence.map((s) => `[${s}]`).join('')}concat=n=${sequence.length}:v=1:a=0,settb=1/${FPS},setpts=N${fadeIn}${fadeOut}[${video}]`,
  );
  if (bugInput !== null && input.brandBug !== null && timeline.brandBug !== null) {
    const bug = timeline.brandBug;
    video = overlayCard(graph, video, bugInput, { ...input.brandBug, rise: 0 }, bug.from, bug.to, Math.round(0.4 * FPS), FPS);
  }
  graph.add(`[${video}]format=yuv420p[vout]`);

  const durationS = timeline.frames / FPS;
  const samples = Math.round(durationS * AUDIO_RATE);
  let audioMap: string;
  if (audioInput === null) {
    graph.add(`anullsrc=r=${AUDIO_RATE}:cl=stereo,atrim=end_sample=${samples}[aout]`);
    audioMap = '[aout]';
  } else {
    audioMap = `${audioInput}:a`;
  }

  const filterGraph = graph.chains.join(';\n');
  const threads = Math.max(1, Math.floor(input.threads));
  const command: FfmpegCommandSpec = {
    inputs: inputs.map((file, index) => ({ file, options: index === audioInput ? [] : ['-framerate', String(FPS)] })),
    complexFilter: filterGraph,
    outputOptions: [
      ...QUIET_OPTIONS,
      // The graph's filters each cost a millisecond or two per frame: slicing them over threads cost
      // more CPU than it saved, and x264's threads already fill the cores (docs/rendering.md "Where the time goes").
      '-filter_complex_threads',
      '1',
      '-map',
      '[vout]',
      '-map',
      audioMap,
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
      String(threads),
      '-color_primaries',
      'bt709',
      '-color_trc',
      'bt709',
      '-colorspace',
      'bt709',
      '-color_range',
      'tv',
      '-c:a',
      'aac',
      '-b:a',
      `${AUDIO_BITRATE_KBPS}k`,
      '-ar',
      String(AUDIO_RATE),
      '-ac',
      '2',
      '-t',
      n(durationS),
      '-movflags',
      '+faststart',
      '-f',
      'mp4',
    ],
    output: input.output,
  };
  return { command, args: commandArgs(command), inputs, filterGraph, durationS, frames: timeline.frames };
}

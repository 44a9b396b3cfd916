/**
 * Generates the music beds shipped in assets/music/ (made for the project, no licence question):
 * one seamless loop per template mood, synthesised sample by sample here, levelled to −16 LUFS
 * with ffmpeg's loudnorm measurement, and encoded to AAC-LC in .m4a.
 *
 * Notes that ring past the end of the loop wrap around to its start, so the loop has no seam.
 * Deterministic: the same script writes the same audio.
 *
 * Run: npx tsx scripts/make-music.ts   (needs ffmpeg)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seededRandom } from './prng.js';

const OUT_DIR = fileURLToPath(new URL('../assets/music/', import.meta.url));
const RATE = 48_000;
const TARGET_LUFS = -16;

const midi = (note: number): number => 440 * 2 ** ((note - 69) / 12);

/** A stereo loop buffer; everything written past the end wraps to the start. */
class Loop {
  readonly left: Float32Array;
  readonly right: Float32Array;
  constructor(readonly length: number) {
    this.left = new Float32Array(length);
    this.right = new Float32Array(length);
  }
  add(start: number, samples: Float32Array, gain: number, pan: number): void {
    const l = gain * Math.cos(((pan + 1) * Math.PI) / 4);
    const r = gain * Math.sin(((pan + 1) * Math.PI) / 4);
    for (let i = 0; i < samples.length; i += 1) {
      const at = (((start + i) % this.length) + this.length) % this.length;
      this.left[at] = (this.left[at] as number) + (samples[i] as number) * l;
      this.right[at] = (this.right[at] as number) + (samples[i] as number) * r;
    }
  }
}

/** Additive tone with harmonics and an attack/decay envelope: keys, bells, pads. */
function tone(
  freq: number,
  seconds: number,
  options: { harmonics: number[]; attack: number; decay: number; detune?: number; vibrato?: number },
): Float32Array {
  const n = Math.round(seconds * RATE);
  const out = new Float32Array(n);
  const detune = options.detune ?? 0;
  for (let i = 0; i < n; i += 1) {
    const t = i / RATE;
    const env = Math.min(1, t / options.attack) * Math.exp(-t / options.decay) * Math.min(1, (n - i) / (0.05 * RATE));
    const vib = options.vibrato === undefined ? 0 : 0.003 * Math.sin(2 * Math.PI * options.vibrato * t);
    let v = 0;
    options.harmonics.forEach((amp, h) => {
      const f = freq * (h + 1) * (1 + vib);
      v += amp * (Math.sin(2 * Math.PI * f * t) + (detune > 0 ? Math.sin(2 * Math.PI * f * (1 + detune) * t) : 0));
    });
    out[i] = v * env;
  }
  return out;
}

/** Karplus–Strong plucked string. */
function pluck(freq: number, seconds: number, random: () => number, damping = 0.996): Float32Array {
  const n = Math.round(seconds * RATE);
  const period = Math.max(2, Math.round(RATE / freq));
  const ring = new Float32Array(period).map(() => random() * 2 - 1);
  // A softer excitation (noise smoothed a few times) gives a rounder, less hissy pluck.
  for (let pass = 0; pass < 3; pass += 1)
    for (let i = 1; i < period; i += 1) ring[i] = 0.5 * ((ring[i] as number) + (ring[i - 1] as number));
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 1) {
    const a = ring[i % period] as number;
    const b = ring[(i + 1) % period] as number;
    ring[i % period] = damping * 0.5 * (a + b);
    out[i] = a * Math.min(1, (n - i) / (0.03 * RATE));
  }
  return out;
}

function kick(): Float32Array {
  const n = Math.round(0.35 * RATE);
  const out = new Float32Array(n);
  let phase = 0;
  for (let i = 0; i < n; i += 1) {
    const t = i / RATE;
    phase += (2 * Math.PI * (48 + 90 * Math.exp(-t / 0.03))) / RATE;
    out[i] = Math.sin(phase) * Math.exp(-t / 0.12);
  }
  return out;
}

function noiseHit(seconds: number, decay: number, random: () => number, brightness: number): Float32Array {
  const n = Math.round(seconds * RATE);
  const out = new Float32Array(n);
  let previous = 0;
  for (let i = 0; i < n; i += 1) {
    const white = random() * 2 - 1;
    // A one-pole high-pass keeps the hiss and drops the rumble.
    const high = white - previous * brightness;
    previous = white;
    out[i] = high * Math.exp(-(i / RATE) / decay);
  }
  return out;
}

/** Feedback delay (ping-pong) and a small Schroeder reverb, computed over two turns of the loop. */
function space(loop: Loop, delaySeconds: number, feedback: number, wet: number): void {
  const n = loop.length;
  const delay = Math.round(delaySeconds * RATE);
  for (const [src, dst] of [
    [loop.left, loop.right],
    [loop.right, loop.left],
  ] as const) {
    const copy = Float32Array.from(src);
    for (let turn = 0; turn < 2; turn += 1) {
      for (let i = 0; i < n; i += 1) {
        const from = (i - delay + n) % n;
        copy[i] = (copy[i] as number) + (copy[from] as number) * feedback * (turn === 0 ? 1 : 0.5);
      }
    }
    for (let i = 0; i < n; i += 1) dst[i] = (dst[i] as number) + ((copy[i] as number) - (src[i] as number)) * wet;
  }
  for (const channel of [loop.left, loop.right]) {
    const combs = [1557, 1617, 1491, 1422].map((d) => ({ d, buf: new Float32Array(d), at: 0 }));
    const dry = Float32Array.from(channel);
    const wetOut = new Float32Array(n);
    for (let turn = 0; turn < 2; turn += 1) {
      for (let i = 0; i < n; i += 1) {
        let sum = 0;
        for (const comb of combs) {
          const y = comb.buf[comb.at] as number;
          comb.buf[comb.at] = (dry[i] as number) + y * 0.78;
          comb.at = (comb.at + 1) % comb.d;
          sum += y;
        }
        if (turn === 1) wetOut[i] = sum / combs.length;
      }
    }
    for (let i = 0; i < n; i += 1) channel[i] = (channel[i] as number) + (wetOut[i] as number) * wet * 0.6;
  }
}

interface Bed {
  name: string;
  bpm: number;
  bars: number;
  compose: (loop: Loop, beat: number, random: () => number) => void;
}

const chord = (root: number, intervals: number[]): number[] => intervals.map((i) => root + i);

const BEDS: Bed[] = [
  {
    name: 'sunny-terrace',
    bpm: 96,
    bars: 16,
    compose(loop, beat, random) {
      // C – G – Am – F, warm electric-piano chords, bass, soft kick and shaker, a pentatonic motif.
      const progression = [chord(60, [0, 4, 7, 11]), chord(55, [0, 4, 7, 14]), chord(57, [0, 3, 7, 10]), chord(53, [0, 4, 7, 11])];
      const roots = [36, 31, 33, 29];
      const keys = { harmonics: [1, 0.35, 0.12, 0.05], attack: 0.008, decay: 0.9, detune: 0.0015 };
      for (let bar = 0; bar < 16; bar += 1) {
        const c = progression[bar % 4] as number[];
        const start = bar * 4 * beat;
        for (const hit of [0, 1.5, 2.5]) {
          for (const note of c) loop.add(Math.round((start + hit * beat) * RATE), tone(midi(note), 1.6, keys), 0.05, (note % 5) / 5 - 0.4);
        }
        loop.add(
          Math.round(start * RATE),
          tone(midi(roots[bar % 4] as number), 1.8, { harmonics: [1, 0.5, 0.2], attack: 0.01, decay: 0.8 }),
          0.16,
          0,
        );
        loop.add(
          Math.round((start + 2 * beat) * RATE),
          tone(midi((roots[bar % 4] as number) + 7), 1.2, { harmonics: [1, 0.4], attack: 0.01, decay: 0.6 }),
          0.1,
          0,
        );
        for (const b of [0, 2]) loop.add(Math.round((start + b * beat) * RATE), kick(), 0.22, 0);
        for (let e = 0; e < 8; e += 1)
          loop.add(Math.round((start + (e * beat) / 2) * RATE), noiseHit(0.08, 0.025, random, 0.9), e % 2 ? 0.016 : 0.009, 0.3);
        if (bar % 2 === 1) {
          const motif = [72, 74, 76, 79, 76];
          motif.forEach((note, i) =>
            loop.add(
              Math.round((start + (i * beat) / 2 + beat) * RATE),
              tone(midi(note), 1.2, { harmonics: [1, 0, 0.2], attack: 0.005, decay: 0.5 }),
              0.045,
              0.35,
            ),
          );
        }
      }
      space(loop, beat * 0.75, 0.3, 0.25);
    },
  },
  {
    name: 'marble-hall',
    bpm: 72,
    bars: 12,
    compose(loop, beat) {
      // Dm9 – Bbmaj7 – Fmaj7 – C(add9), two bars each: slow pads, a low drone and a sparse bell line.
      const progression = [chord(50, [0, 3, 7, 10, 14]), chord(46, [0, 4, 7, 11, 14]), chord(53, [0, 4, 7, 11]), chord(48, [0, 4, 7, 14])];
      const pad = { harmonics: [1, 0.3, 0.15, 0.08, 0.04], attack: 1.4, decay: 6, detune: 0.003, vibrato: 4.5 };
      for (let step = 0; step < 6; step += 1) {
        const c = progression[step % 4] as number[];
        const start = step * 8 * beat;
        for (const note of c) loop.add(Math.round(start * RATE), tone(midi(note), 8 * beat + 1.5, pad), 0.035, (note % 7) / 7 - 0.45);
        loop.add(
          Math.round(start * RATE),
          tone(midi((c[0] as number) - 12), 8 * beat + 1, { harmonics: [1, 0.25], attack: 1, decay: 8 }),
          0.1,
          0,
        );
      }
      const bells = [74, 77, 81, 79, 77, 72, 74, 69];
      bells.forEach((note, i) => {
        const at = (i * 6 + (i % 2 === 0 ? 0 : 1.5)) * beat;
        loop.add(
          Math.round(at * RATE),
          tone(midi(note), 3, { harmonics: [1, 0, 0, 0.25, 0, 0.1], attack: 0.004, decay: 1.1 }),
          0.05,
          i % 2 === 0 ? -0.3 : 0.3,
        );
      });
      space(loop, beat * 1.5, 0.35, 0.4);
    },
  },
  {
    name: 'city-lights',
    bpm: 118,
    bars: 20,
    compose(loop, beat, random) {
      // Am – F – C – G: plucked arpeggios, four-on-the-floor kick, claps on 2 and 4, off-beat hats.
      const progression = [chord(57, [0, 3, 7, 12]), chord(53, [0, 4, 7, 12]), chord(60, [0, 4, 7, 12]), chord(55, [0, 4, 7, 12])];
      const roots = [33, 29, 36, 31];
      for (let bar = 0; bar < 20; bar += 1) {
        const c = progression[bar % 4] as number[];
        const start = bar * 4 * beat;
        for (let s = 0; s < 8; s += 1) {
          const note = (c[[0, 1, 2, 3, 2, 1, 2, 3][s] as number] as number) + (s >= 4 && bar % 2 === 1 ? 12 : 0);
          loop.add(Math.round((start + (s * beat) / 2) * RATE), pluck(midi(note), 0.9, random), 0.2, s % 2 === 0 ? -0.35 : 0.35);
        }
        for (let b = 0; b < 4; b += 1) {
          loop.add(Math.round((start + b * beat) * RATE), kick(), 0.3, 0);
          loop.add(Math.round((start + (b + 0.5) * beat) * RATE), noiseHit(0.06, 0.02, random, 0.95), 0.025, 0.25);
          loop.add(
            Math.round((start + b * beat) * RATE),
            tone(midi(roots[bar % 4] as number), beat * 0.9, { harmonics: [1, 0.6, 0.3], attack: 0.005, decay: 0.25 }),
            0.12,
            0,
          );
        }
        for (const b of [1, 3]) loop.add(Math.round((start + b * beat) * RATE), noiseHit(0.25, 0.06, random, 0.5), 0.045, -0.1);
      }
      space(loop, beat * 0.75, 0.25, 0.2);
    },
  },
];

function wav(loop: Loop): Buffer {
  let peak = 0;
  for (let i = 0; i < loop.length; i += 1) peak = Math.max(peak, Math.abs(loop.left[i] as number), Math.abs(loop.right[i] as number));
  const scale = 0.7 / peak;
  const data = Buffer.alloc(loop.length * 4);
  for (let i = 0; i < loop.length; i += 1) {
    data.writeInt16LE(Math.round(Math.tanh((loop.left[i] as number) * scale) * 32000), i * 4);
    data.writeInt16LE(Math.round(Math.tanh((loop.right[i] as number) * scale) * 32000), i * 4 + 2);
  }
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(2, 22);
  header.writeUInt32LE(RATE, 24);
  header.writeUInt32LE(RATE * 4, 28);
  header.writeUInt16LE(4, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** Integrated loudness (LUFS) as ffmpeg's loudnorm measures it (printed on stderr). */
function measuredLoudness(file: string): number {
  const run = spawnSync(
    'ffmpeg',
    ['-hide_banner', '-nostats', '-i', file, '-af', `loudnorm=I=${TARGET_LUFS}:print_format=json`, '-f', 'null', '-'],
    { encoding: 'utf8' },
  );
  return Number(/"input_i"\s*:\s*"(-?[\d.]+)"/.exec(run.stderr)?.[1]);
}

function main(): void {
  mkdirSync(OUT_DIR, { recursive: true });
  const work = join(tmpdir(), `immoreel-music-${process.pid}`);
  mkdirSync(work, { recursive: true });
  for (const [index, bed] of BEDS.entries()) {
    const beat = 60 / bed.bpm;
    const loop = new Loop(Math.round(bed.bars * 4 * beat * RATE));
    bed.compose(loop, beat, seededRandom(1000 + index));
    const raw = join(work, `${bed.name}.wav`);
    writeFileSync(raw, wav(loop));
    const loudness = measuredLoudness(raw);
    const gain = Number.isFinite(loudness) ? TARGET_LUFS - loudness : 0;
    const out = join(OUT_DIR, `${bed.name}.m4a`);
    execFileSync('ffmpeg', [
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      '-i',
      raw,
      '-af',
      `volume=${gain.toFixed(2)}dB,alimiter=limit=0.89:level=false`,
      '-c:a',
      'aac',
      '-b:a',
      '64k',
      '-ar',
      String(RATE),
      '-ac',
      '2',
      '-movflags',
      '+faststart',
      out,
    ]);
    console.log(
      `${bed.name}.m4a  ${(loop.length / RATE).toFixed(1)} s  gain ${gain.toFixed(1)} dB  ${(statSync(out).size / 1024).toFixed(0)} KB`,
    );
  }
  rmSync(work, { recursive: true, force: true });
}

main();

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { JobStage } from '../../src/core/types.js';
import { openFetch } from '../../src/net/fetch.js';
import type { RenderContext, ValidRenderRequest } from '../../src/render/types.js';
import { demoProperty } from './plan-fixtures.js';
import { TEST_FFMPEG } from './config.js';

/** A scene-like test photo: sky, ground, a building block, so crops and orientation show. */
function scene(width: number, height: number, hue: number): Buffer {
  return Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
  <defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="hsl(${hue},60%,70%)"/><stop offset="1" stop-color="hsl(${hue + 40},40%,35%)"/></linearGradient></defs>
  <rect width="${width}" height="${height}" fill="url(#g)"/>
  <rect x="${width * 0.3}" y="${height * 0.25}" width="${width * 0.4}" height="${height * 0.5}" fill="#f2ede4"/>
  <rect x="0" y="${height * 0.8}" width="${width}" height="${height * 0.2}" fill="#7a6a55"/>
  <circle cx="${width * 0.8}" cy="${height * 0.18}" r="${Math.min(width, height) * 0.08}" fill="#fff6d8"/>
</svg>`);
}

export interface PhotoSet {
  dir: string;
  good: string;
  second: string;
  portrait: string;
  exifRotated: string;
  huge: string;
  tiny: string;
  corrupt: string;
  truncated: string;
}

/** Writes every kind of photo the pipeline must cope with (docs/rendering.md). */
export async function makePhotos(): Promise<PhotoSet> {
  const dir = mkdtempSync(join(tmpdir(), 'immoreel-photos-'));
  const file = (name: string): string => join(dir, name);
  const jpeg = (svg: Buffer): Promise<Buffer> => sharp(svg).jpeg({ quality: 85 }).toBuffer();
  const good = await jpeg(scene(1600, 1067, 200));
  writeFileSync(file('good.jpg'), good);
  writeFileSync(file('second.jpg'), await jpeg(scene(1500, 1000, 30)));
  writeFileSync(file('portrait.jpg'), await jpeg(scene(900, 1350, 120)));
  // Stored 1200x800 and tagged "rotate 90° clockwise to display" (EXIF 6): upright it is 800x1200.
  writeFileSync(
    file('exif-rotated.jpg'),
    await sharp(
      await sharp(scene(800, 1200, 280))
        .png()
        .toBuffer(),
    )
      .rotate(270)
      .withMetadata({ orientation: 6 })
      .jpeg()
      .toBuffer(),
  );
  writeFileSync(
    file('huge.jpg'),
    await sharp(scene(8000, 5334, 90))
      .jpeg({ quality: 70 })
      .toBuffer(),
  );
  writeFileSync(file('tiny.jpg'), await jpeg(scene(120, 80, 10)));
  writeFileSync(file('corrupt.jpg'), Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 251)));
  writeFileSync(file('truncated.jpg'), good.subarray(0, Math.floor(good.length * 0.4)));
  return {
    dir,
    good: file('good.jpg'),
    second: file('second.jpg'),
    portrait: file('portrait.jpg'),
    exifRotated: file('exif-rotated.jpg'),
    huge: file('huge.jpg'),
    tiny: file('tiny.jpg'),
    corrupt: file('corrupt.jpg'),
    truncated: file('truncated.jpg'),
  };
}

/** A validated request as the job layer hands it over (short durations: engine tests bypass the 10 s API minimum). */
export function renderRequest(overrides: Partial<ValidRenderRequest> = {}): ValidRenderRequest {
  // As validation does: a request that names one format renders a pack of that format alone.
  const format = overrides.format ?? overrides.formats?.[0] ?? 'landscape';
  return {
    input: { language: 'fr', target_audience: 'auto' },
    listing: demoProperty(),
    photos: [],
    template: 'classic',
    format,
    formats: [format],
    duration_s: 4,
    language: 'fr',
    music: 'auto',
    branding: { agency_name: 'Atlas Immobilier', agent_name: 'Salma Bennani', phone: '+212 6 00 00 00 00' },
    webhook_url: null,
    metadata: null,
    ...overrides,
  };
}

export interface TestContext extends RenderContext {
  stages: { stage: JobStage; progress: number }[];
  controller: AbortController;
}

export function renderContext(cacheDir: string, overrides: Partial<RenderContext> = {}): TestContext {
  const workDir = mkdtempSync(join(tmpdir(), 'immoreel-job-'));
  mkdirSync(cacheDir, { recursive: true });
  const controller = new AbortController();
  const stages: { stage: JobStage; progress: number }[] = [];
  return {
    workDir,
    outputPath: join(workDir, 'output.mp4'),
    signal: controller.signal,
    ffmpeg: TEST_FFMPEG,
    threads: 2,
    onProgress: (stage, progress) => stages.push({ stage, progress }),
    allowLocalFiles: true,
    fetch: openFetch,
    cacheDir,
    watchdogMs: 120_000,
    ...overrides,
    stages,
    controller,
  };
}

export interface StreamInfo {
  codec_name: string;
  codec_type: string;
  profile?: string;
  width?: number;
  height?: number;
  pix_fmt?: string;
  r_frame_rate?: string;
  sample_rate?: string;
  channels?: number;
  duration?: string;
}

/** ffprobe of a finished video, independent of the engine's own verification. */
export function ffprobe(file: string): { streams: StreamInfo[]; format: { duration: string } } {
  return JSON.parse(
    execFileSync('ffprobe', ['-v', 'error', '-show_streams', '-show_format', '-of', 'json', file], { encoding: 'utf8' }),
  ) as {
    streams: StreamInfo[];
    format: { duration: string };
  };
}

/** Mean volume (dB) of a slice of the video's audio. */
export function meanVolume(file: string, fromS: number, seconds: number): number {
  const run = spawnSync(
    'ffmpeg',
    ['-hide_banner', '-nostats', '-ss', String(fromS), '-t', String(seconds), '-i', file, '-vn', '-af', 'volumedetect', '-f', 'null', '-'],
    { encoding: 'utf8' },
  );
  const value = /mean_volume: (-?[\d.]+|-inf) dB/.exec(run.stderr)?.[1];
  return value === '-inf' ? -Infinity : Number(value ?? NaN);
}

/** Processes whose command line mentions `needle` (Linux /proc). */
export function processesMentioning(needle: string): number[] {
  const found: number[] = [];
  for (const entry of execFileSync('ls', ['/proc'], { encoding: 'utf8' }).split('\n')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes(needle)) found.push(Number(entry));
    } catch {
      // Gone.
    }
  }
  return found;
}

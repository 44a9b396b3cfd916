/**
 * `npm run bench:render`: renders the bundled demo (30 s, 8 photos, landscape, classic) with the
 * real engine and prints wall time, its ratio to the video's duration, peak memory, and the ratio
 * to a plain ffmpeg encode of the same number of 1280x720 frames with the same encoder settings.
 *
 * Targets (2-core machine): render ≤ 0.5 × duration, ≤ 1.5 × plain encode, ≤ 600 MB.
 * Options: --threads N (default: all cores), --runs N (default 2: a cold cache, then a warm one),
 * --template T, --format F, --keep DIR (keep the video there).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, copyFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { analyzeListing } from '../src/analysis/analyze.js';
import { openFetch } from '../src/net/fetch.js';
import { demoBranding, demoListingText, demoPhotos } from '../src/render/demo.js';
import { DEFAULT_ENCODER } from '../src/render/ffmpeg/plan.js';
import { resolveBinaries } from '../src/render/ffmpeg/runner.js';
import { renderListing, validateRenderRequest, type RenderDebug } from '../src/render/index.js';
import { loadConfig } from '../src/config/index.js';
import { shippedFontsConfig } from '../src/render/fonts.js';

/** A script is an entry point: it reads its environment once, as the CLI does (docs/configuration.md). */
const CONFIG = loadConfig({ env: process.env });
process.env.FONTCONFIG_FILE = shippedFontsConfig();

const { values } = parseArgs({
  options: {
    threads: { type: 'string', default: String(availableParallelism()) },
    runs: { type: 'string', default: '2' },
    template: { type: 'string', default: 'classic' },
    format: { type: 'string', default: 'landscape' },
    duration: { type: 'string', default: '30' },
    keep: { type: 'string' },
  },
});
const threads = Number(values.threads);
const DURATION = Number(values.duration);
const PAGE = 4096;

/** RSS in bytes of a process and of all its descendants, from /proc (Linux). */
function treeRss(root: number): { total: number; children: number } {
  const parents = new Map<number, number>();
  const rss = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), Number(fields[1]));
      rss.set(Number(entry), Number(fields[21]) * PAGE);
    } catch {
      // The process ended meanwhile.
    }
  }
  let total = rss.get(root) ?? 0;
  let children = 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    for (const [child, parent] of parents) {
      if (parent === pid) {
        children += rss.get(child) ?? 0;
        total += rss.get(child) ?? 0;
        stack.push(child);
      }
    }
  }
  return { total, children };
}

/** CPU seconds used so far by this process and by its children that have exited (Linux /proc). */
function cpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = 100;
  const children = (Number(fields[13]) + Number(fields[14])) / ticks;
  const own = process.cpuUsage();
  return children + (own.user + own.system) / 1e6;
}

function watchMemory(): { stop: () => { peakTotal: number; peakChildren: number } } {
  let peakTotal = 0;
  let peakChildren = 0;
  const timer = setInterval(() => {
    const { total, children } = treeRss(process.pid);
    peakTotal = Math.max(peakTotal, total);
    peakChildren = Math.max(peakChildren, children);
  }, 50);
  return {
    stop: () => {
      clearInterval(timer);
      return { peakTotal, peakChildren };
    },
  };
}

async function renderOnce(cacheDir: string): Promise<{
  wallS: number;
  cpuS: number;
  memory: { peakTotal: number; peakChildren: number };
  debug: RenderDebug | null;
  file: string;
  size: number;
}> {
  const workDir = mkdtempSync(join(tmpdir(), 'immoreel-bench-'));
  const outputPath = join(workDir, 'demo.mp4');
  const request = validateRenderRequest(
    {
      description: demoListingText(),
      photos: demoPhotos(),
      template: values.template,
      format: values.format as 'landscape',
      duration_s: DURATION,
      branding: demoBranding(),
    },
    'local',
  );
  let debug: RenderDebug | null = null;
  const memory = watchMemory();
  const cpuBefore = cpuSeconds();
  const started = performance.now();
  // Analysis first, as the job layer does it (a few milliseconds for the demo text).
  const listing = request.listing ?? (await analyzeListing(request.input));
  const outcome = await renderListing(
    listing,
    request,
    {
      workDir,
      outputPath,
      signal: new AbortController().signal,
      ffmpeg: CONFIG.ffmpeg,
      threads,
      onProgress: () => {},
      allowLocalFiles: true,
      fetch: openFetch,
      cacheDir,
    },
    { onDebug: (d) => (debug = d) },
  );
  const wallS = (performance.now() - started) / 1000;
  return { wallS, cpuS: cpuSeconds() - cpuBefore, memory: memory.stop(), debug, file: outputPath, size: outcome.result.size_bytes };
}

function plainEncode(frames: number, source: string[]): Promise<{ wallS: number; cpuS: number }> {
  const { ffmpeg } = resolveBinaries(CONFIG.ffmpeg);
  const args = [
    '-hide_banner',
    '-loglevel',
    'error',
    '-nostdin',
    ...source,
    '-frames:v',
    String(frames),
    '-c:v',
    'libx264',
    '-preset',
    DEFAULT_ENCODER.preset,
    ...(DEFAULT_ENCODER.x264Params === undefined ? [] : ['-x264-params', DEFAULT_ENCODER.x264Params]),
    '-crf',
    String(DEFAULT_ENCODER.crf),
    '-profile:v',
    'high',
    '-pix_fmt',
    'yuv420p',
    '-r',
    '60',
    '-g',
    String(DEFAULT_ENCODER.gop),
    '-bf',
    '2',
    '-threads',
    String(threads),
    '-f',
    'mp4',
    '-y',
    join(tmpdir(), `immoreel-plain-${process.pid}.mp4`),
  ];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const cpuBefore = cpuSeconds();
    const child = spawn(ffmpeg, args, { stdio: 'inherit' });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve({ wallS: (performance.now() - started) / 1000, cpuS: cpuSeconds() - cpuBefore })
        : reject(new Error(`plain encode exited ${code}`)),
    );
  });
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

async function main(): Promise<void> {
  const cacheDir = mkdtempSync(join(tmpdir(), 'immoreel-bench-cache-'));
  const frames = DURATION * 60;
  console.log(
    `immoreel bench:render — demo, ${DURATION} s, ${demoPhotos().length} photos, ${values.format}, template ${values.template}, ${threads} thread(s), ${availableParallelism()} core(s)`,
  );
  console.log(
    `encoder: libx264 -preset ${DEFAULT_ENCODER.preset} -x264-params ${DEFAULT_ENCODER.x264Params ?? '(none)'} -crf ${DEFAULT_ENCODER.crf} -g ${DEFAULT_ENCODER.gop} -bf 2, AAC 160 kbps`,
  );
  const results = [];
  for (let run = 0; run < Number(values.runs); run += 1) {
    const result = await renderOnce(cacheDir);
    results.push(result);
    const t = (result.debug as RenderDebug | null)?.timings ?? {};
    console.log(
      `run ${run + 1} (${run === 0 ? 'cold photo cache' : 'warm photo cache'}): ${result.wallS.toFixed(2)} s wall = ${(result.wallS / DURATION).toFixed(2)} × duration, ${result.cpuS.toFixed(1)} CPU-s; ` +
        `peak memory ${mb(result.memory.peakTotal)} (node + ffmpeg), ffmpeg children ${mb(result.memory.peakChildren)}; ${(result.size / 1024 / 1024).toFixed(1)} MB video`,
    );
    console.log(
      `  stages (ms): ${Object.entries(t)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
    if (values.keep !== undefined && run === Number(values.runs) - 1) copyFileSync(result.file, values.keep);
  }
  const plainSynthetic = await plainEncode(frames, ['-f', 'lavfi', '-i', `testsrc2=s=1280x720:r=60`]);
  // A still decoded once and repeated: the encoder's cost on a picture that does not move.
  const plainStill = await plainEncode(frames, [
    '-framerate',
    '60',
    '-i',
    demoPhotos()[1] as string,
    '-vf',
    `scale=1280:720,format=yuv420p,loop=loop=${frames - 1}:size=1,setpts=N`,
  ]);
  // The fairest reference: the rendered video's own frames (same content), decoded and encoded again.
  const plainSame = await plainEncode(frames, ['-i', (results[results.length - 1] as (typeof results)[number]).file, '-an']);
  const best = results.reduce((a, b) => (b.wallS < a.wallS ? b : a));
  const last = results[results.length - 1] as (typeof results)[number];
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(
    `plain encode of ${frames} frames 1280x720 (testsrc2, same encoder settings): ${plainSynthetic.wallS.toFixed(2)} s wall, ${plainSynthetic.cpuS.toFixed(1)} CPU-s`,
  );
  console.log(
    `plain encode of ${frames} frames 1280x720 (one demo photo, not moving):    ${plainStill.wallS.toFixed(2)} s wall, ${plainStill.cpuS.toFixed(1)} CPU-s`,
  );
  console.log(
    `re-encode of the rendered video's own ${frames} frames (decode + encode):  ${plainSame.wallS.toFixed(2)} s wall, ${plainSame.cpuS.toFixed(1)} CPU-s`,
  );
  console.log(`machine load average now: ${load} (other work on the machine inflates every wall time)`);
  console.log('');
  const ok = (pass: boolean): string => (pass ? 'OK' : 'MISSED');
  console.log(
    `render wall time (best run):      ${best.wallS.toFixed(2)} s = ${(best.wallS / DURATION).toFixed(2)} × duration   target ≤ 0.5 × (${(DURATION * 0.5).toFixed(1)} s)  ${ok(best.wallS <= DURATION * 0.5)}`,
  );
  console.log(
    `ratio to plain encode (testsrc2): ${(best.wallS / plainSynthetic.wallS).toFixed(2)} × wall, ${(best.cpuS / plainSynthetic.cpuS).toFixed(2)} × CPU   target ≤ 1.5 × ${ok(best.wallS / plainSynthetic.wallS <= 1.5)}`,
  );
  console.log(
    `ratio to re-encoding its frames:  ${(best.wallS / plainSame.wallS).toFixed(2)} × wall, ${(best.cpuS / plainSame.cpuS).toFixed(2)} × CPU   target ≤ 1.5 × ${ok(best.wallS / plainSame.wallS <= 1.5)}`,
  );
  console.log(
    `ratio to plain encode (still):    ${(best.wallS / plainStill.wallS).toFixed(2)} × wall, ${(best.cpuS / plainStill.cpuS).toFixed(2)} × CPU (a still encodes as skipped blocks: a floor, not a peer)`,
  );
  console.log(
    `peak memory:                      ${mb(last.memory.peakTotal)} (node + ffmpeg; ffmpeg alone ${mb(last.memory.peakChildren)})   target ≤ 600 MB ${ok(last.memory.peakTotal <= 600 * 1024 * 1024)}`,
  );
  rmSync(cacheDir, { recursive: true, force: true });
}

await main();

/**
 * `npm run bench:render` (docs/rendering.md "Where the time goes"): in one run on one machine,
 * - the single render: 30 s, landscape, template classic, the demo listing with its eight photos
 *   enlarged to 3000 x 2000 (a phone's size), each run on an empty photo cache as a new listing's;
 * - the re-encode floor: that render's own output decoded and encoded again with the encoder
 *   settings of its plan (video only), the least any renderer of these frames can take;
 * - the 3-format pack (landscape, portrait, square) in one `renderListing` call;
 * - the pack's own floor: its three outputs decoded and encoded again one after another, each with
 *   its plan's encoder settings on the whole thread budget (a pack has 2.56 × a single render's
 *   pixels, so it is judged against its own floor, not against the single render);
 * run interleaved (single, floor, pack, pack floor, single…) so that the machine's load falls on
 * all alike, and reported as medians with the load average; the targets (single ÷ floor ≤ 1.2 and
 * pack ÷ pack floor ≤ 1.2) are judged on the median of each round's own ratios. Then peak memory (node, and the ffmpeg processes), SSIM of the render
 * against the uncompressed frames of the same plan, and each pack output's run alone on one thread,
 * the least of three (the encoding work a pack cannot share, against a single render's).
 *
 * Options: --runs N (rounds, default 5), --threads N (default: all cores), --duration S (default 30),
 * --keep DIR (keep the last single render and pack there).
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { analyzeListing } from '../src/analysis/analyze.js';
import type { VideoFormat } from '../src/core/types.js';
import { openFetch } from '../src/net/fetch.js';
import { demoBranding, demoListingText, demoPhotos } from '../src/render/demo.js';
import { resolveBinaries } from '../src/render/ffmpeg/runner.js';
import { renderListing, validateRenderRequest, type RenderDebug } from '../src/render/index.js';
import { loadConfig } from '../src/config/index.js';
import { shippedFontsConfig } from '../src/render/fonts.js';
import type { Property } from '../src/core/types.js';

/** A script is an entry point: it reads its environment once, as the CLI does (docs/configuration.md). */
const CONFIG = loadConfig({ env: process.env });
process.env.FONTCONFIG_FILE = shippedFontsConfig();

const { values } = parseArgs({
  options: {
    threads: { type: 'string', default: String(availableParallelism()) },
    runs: { type: 'string', default: '5' },
    duration: { type: 'string', default: '30' },
    keep: { type: 'string' },
  },
});
const threads = Number(values.threads);
const ROUNDS = Number(values.runs);
const DURATION = Number(values.duration);
const PACK: VideoFormat[] = ['landscape', 'portrait', 'square'];
const PAGE = 4096;
const { ffmpeg } = resolveBinaries(CONFIG.ffmpeg);

/** RSS in bytes of this process and, apart, of all its descendants (ffmpeg), from /proc (Linux). */
function treeRss(root: number): { node: number; children: number } {
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
  let children = 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    for (const [child, parent] of parents) {
      if (parent === pid) {
        children += rss.get(child) ?? 0;
        stack.push(child);
      }
    }
  }
  return { node: rss.get(root) ?? 0, children };
}

/** CPU seconds used so far by this process and by its children that have exited (Linux /proc). */
function cpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const children = (Number(fields[13]) + Number(fields[14])) / 100;
  const own = process.cpuUsage();
  return children + (own.user + own.system) / 1e6;
}

interface Peak {
  node: number;
  children: number;
}

function watchMemory(): { stop: () => Peak } {
  const peak: Peak = { node: 0, children: 0 };
  const timer = setInterval(() => {
    const now = treeRss(process.pid);
    peak.node = Math.max(peak.node, now.node);
    peak.children = Math.max(peak.children, now.children);
  }, 50);
  return {
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}

interface Measure {
  wallS: number;
  cpuS: number;
  memory: Peak;
}

async function measured<T>(run: () => Promise<T>): Promise<Measure & { value: T }> {
  const memory = watchMemory();
  const cpuBefore = cpuSeconds();
  const started = performance.now();
  const value = await run();
  return { wallS: (performance.now() - started) / 1000, cpuS: cpuSeconds() - cpuBefore, memory: memory.stop(), value };
}

/** The demo photos at 3000 x 2000 (portrait ones 2000 x 3000), upright. */
async function largePhotos(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const [i, source] of demoPhotos().entries()) {
    const upright = sharp(source).rotate();
    const { data, info } = await upright.toBuffer({ resolveWithObject: true });
    const portrait = info.width < info.height;
    const file = join(dir, `photo-${i + 1}.jpg`);
    await sharp(data)
      .resize(portrait ? 2000 : 3000, portrait ? 3000 : 2000)
      .jpeg({ quality: 90 })
      .toFile(file);
    files.push(file);
  }
  return files;
}

interface Render {
  files: string[];
  debug: RenderDebug;
  workDir: string;
  cacheDir: string;
}

async function render(listing: Property, photos: string[], formats: VideoFormat[]): Promise<Render> {
  const workDir = mkdtempSync(join(tmpdir(), 'immoreel-bench-job-'));
  // A new listing's photos are new: every run starts from an empty cache.
  const cacheDir = mkdtempSync(join(tmpdir(), 'immoreel-bench-cache-'));
  const request = validateRenderRequest(
    { description: demoListingText(), photos, template: 'classic', format: formats[0], branding: demoBranding() },
    'local',
  );
  const outputs = formats.map((format) => ({ format, outputPath: join(workDir, `${format}.mp4`) }));
  let debug: RenderDebug | null = null;
  await renderListing(
    listing,
    // The engine takes any duration; the API's 10 s minimum is not the point here (--duration 3 for a quick check).
    { ...request, duration_s: DURATION, formats },
    {
      workDir,
      outputPath: (outputs[0] as (typeof outputs)[number]).outputPath,
      outputs,
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
  return { files: outputs.map((o) => o.outputPath), debug: debug as unknown as RenderDebug, workDir, cacheDir };
}

function runFfmpeg(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpeg, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(stderr) : reject(new Error(`ffmpeg exited ${code}: ${stderr.slice(-800)}`))));
  });
}

/** The video encoder options of a plan: from `-c:v` to the thread count, inclusive. */
function encoderOptions(args: string[]): string[] {
  const from = args.indexOf('-c:v');
  const to = args.indexOf('-threads', from);
  return args.slice(from, to + 2);
}

/**
 * The floor: the render's own frames decoded and encoded again with its plan's encoder settings;
 * `threads` replaces the plan's thread count (a pack's outputs are re-encoded one after another,
 * each on the whole budget: the least time their encoding can take).
 */
function reencode(video: string, args: string[], output: string, threads?: number): Promise<string> {
  const options = encoderOptions(args);
  if (threads !== undefined) options[options.indexOf('-threads') + 1] = String(threads);
  return runFfmpeg(['-hide_banner', '-nostdin', '-loglevel', 'error', '-i', video, '-an', ...options, '-y', '-f', 'mp4', output]);
}

/**
 * SSIM of `video` against the frames its plan produces before any encoding (lossless, so stricter
 * than a `-qp 0` encode): the plan's graph run again, its output compared frame by frame.
 */
async function ssim(video: string, args: string[]): Promise<string> {
  const graphAt = args.indexOf('-filter_complex');
  const inputs = args.slice(0, args.indexOf('-y'));
  const inputCount = inputs.filter((a) => a === '-i').length;
  let graph = args[graphAt + 1] as string;
  // A silent render's audio chain has no use here.
  if (graph.includes('[aout]')) graph += ';\n[aout]anullsink';
  graph += `;\n[vout]settb=1/60,setpts=N[ref];[${inputCount}:v]settb=1/60,setpts=N[enc];[enc][ref]ssim[q]`;
  const stderr = await runFfmpeg([
    '-hide_banner',
    '-nostdin',
    ...inputs,
    '-i',
    video,
    '-filter_complex',
    graph,
    '-map',
    '[q]',
    '-f',
    'null',
    '-',
  ]);
  const match = /SSIM (Y:.*All:\S+ \([^)]*\))/.exec(stderr);
  if (match === null) throw new Error(`no SSIM in ffmpeg's output: ${stderr.slice(-400)}`);
  return match[1] as string;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};
const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const secs = (xs: number[]): string => xs.map((x) => x.toFixed(2)).join(', ');
const load = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'immoreel-bench-'));
  mkdirSync(join(scratch, 'photos'));
  const photos = await largePhotos(join(scratch, 'photos'));
  const request = validateRenderRequest({ description: demoListingText(), photos }, 'local');
  const listing = await analyzeListing(request.input);
  console.log(
    `immoreel bench:render — ${DURATION} s, ${photos.length} photos of 3000x2000, template classic, ${threads} thread(s), ${availableParallelism()} core(s), ${ROUNDS} interleaved rounds`,
  );
  const loadBefore = load();
  const single: (Measure & { value: Render })[] = [];
  const floor: Measure[] = [];
  const pack: (Measure & { value: Render })[] = [];
  const packFloor: Measure[] = [];
  const cleanup: Render[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const s = await measured(() => render(listing, photos, ['landscape']));
    single.push(s);
    const args = s.value.debug.args;
    const f = await measured(() => reencode(s.value.files[0] as string, args, join(scratch, 'floor.mp4')));
    floor.push(f);
    const p = await measured(() => render(listing, photos, PACK));
    pack.push(p);
    const outputs = p.value.debug.outputs;
    const pf = await measured(async () => {
      for (const [i, output] of outputs.entries()) {
        await reencode(p.value.files[i] as string, output.args, join(scratch, `floor-${output.format}.mp4`), threads);
      }
    });
    packFloor.push(pf);
    const t = s.value.debug.timings;
    console.log(
      `round ${round + 1}: single ${s.wallS.toFixed(2)} s (${s.cpuS.toFixed(1)} CPU-s; ${Object.entries(t)
        .map(([k, v]) => `${k} ${(v / 1000).toFixed(2)}`)
        .join(
          ', ',
        )}), floor ${f.wallS.toFixed(2)} s (${f.cpuS.toFixed(1)} CPU-s), pack ${p.wallS.toFixed(2)} s (${p.cpuS.toFixed(1)} CPU-s), pack floor ${pf.wallS.toFixed(2)} s (${pf.cpuS.toFixed(1)} CPU-s), load ${load()}`,
    );
    // Keep the last round's files (SSIM, --keep); remove the others' now (a 30 s pack is ~25 MB).
    for (const old of cleanup.splice(0)) {
      rmSync(old.workDir, { recursive: true, force: true });
      rmSync(old.cacheDir, { recursive: true, force: true });
    }
    cleanup.push(s.value, p.value);
  }
  const last = single[single.length - 1] as Measure & { value: Render };
  const lastPack = pack[pack.length - 1] as Measure & { value: Render };
  const quality = await ssim(last.value.files[0] as string, last.value.debug.args);
  if (values.keep !== undefined) {
    mkdirSync(values.keep, { recursive: true });
    copyFileSync(last.value.files[0] as string, join(values.keep, 'single-landscape.mp4'));
    for (const [i, file] of lastPack.value.files.entries()) copyFileSync(file, join(values.keep, `pack-${PACK[i]}.mp4`));
  }
  const singleS = median(single.map((m) => m.wallS));
  const floorS = median(floor.map((m) => m.wallS));
  const packS = median(pack.map((m) => m.wallS));
  const packFloorS = median(packFloor.map((m) => m.wallS));
  // The verdicts compare each round's runs with each other: they ran one after another under the
  // same load, while the machine's speed drifts by ±20 % between rounds (docs/rendering.md "Measured").
  const ratioFloor = median(single.map((m, i) => m.wallS / (floor[i] as Measure).wallS));
  const ratioPack = median(pack.map((m, i) => m.wallS / (single[i] as Measure).wallS));
  const ratioPackFloor = median(pack.map((m, i) => m.wallS / (packFloor[i] as Measure).wallS));
  // Each pack output's whole run on one thread, one after another: the encoding a pack cannot share.
  // The least of three interleaved passes, as the machine's speed drifts.
  const alone = lastPack.value.debug.outputs.map((output) => ({ format: output.format, cpuS: Infinity }));
  for (let pass = 0; pass < 3; pass += 1) {
    for (const [i, output] of lastPack.value.debug.outputs.entries()) {
      const args = [...output.args.slice(0, -1), join(scratch, `alone-${output.format}.mp4`)];
      const entry = alone[i] as (typeof alone)[number];
      entry.cpuS = Math.min(entry.cpuS, (await measured(() => runFfmpeg(args))).cpuS);
    }
  }
  const aloneSingle = (alone.find((a) => a.format === 'landscape') as (typeof alone)[number]).cpuS;
  const aloneTotal = alone.reduce((sum, a) => sum + a.cpuS, 0);
  const ok = (pass: boolean): string => (pass ? 'OK' : 'MISSED');
  const ssimAll = Number(/All:(\S+)/.exec(quality)?.[1]);
  console.log('');
  console.log(
    `single render (landscape):  median ${singleS.toFixed(2)} s [${secs(single.map((m) => m.wallS))}], ${median(single.map((m) => m.cpuS)).toFixed(1)} CPU-s`,
  );
  console.log(
    `re-encode floor:            median ${floorS.toFixed(2)} s [${secs(floor.map((m) => m.wallS))}], ${median(floor.map((m) => m.cpuS)).toFixed(1)} CPU-s`,
  );
  console.log(
    `single ÷ floor:             ${ratioFloor.toFixed(2)} × (median of the per-round ratios; ratio of the medians ${(singleS / floorS).toFixed(2)} ×)   target ≤ 1.2 × ${ok(ratioFloor <= 1.2)}`,
  );
  console.log(
    `pack (${PACK.join(', ')}): median ${packS.toFixed(2)} s [${secs(pack.map((m) => m.wallS))}], ${median(pack.map((m) => m.cpuS)).toFixed(1)} CPU-s`,
  );
  console.log(
    `pack floor (its outputs re-encoded one after another): median ${packFloorS.toFixed(2)} s [${secs(packFloor.map((m) => m.wallS))}], ${median(packFloor.map((m) => m.cpuS)).toFixed(1)} CPU-s`,
  );
  console.log(
    `pack ÷ pack floor:          ${ratioPackFloor.toFixed(2)} × (median of the per-round ratios; ratio of the medians ${(packS / packFloorS).toFixed(2)} ×)   target ≤ 1.2 × ${ok(ratioPackFloor <= 1.2)}`,
  );
  console.log(
    `pack ÷ single:              ${ratioPack.toFixed(2)} × (for information, no target: a pack has 2.56 × a single render's pixels)`,
  );
  console.log(
    `each output alone, 1 thread (least of 3): ${alone.map((a) => `${a.format} ${a.cpuS.toFixed(1)}`).join(', ')} CPU-s — the pack's encoding is ${(aloneTotal / aloneSingle).toFixed(2)} × a single render's`,
  );
  console.log(
    `peak memory, single:        node ${mb(Math.max(...single.map((m) => m.memory.node)))}, ffmpeg processes ${mb(Math.max(...single.map((m) => m.memory.children)))}`,
  );
  console.log(
    `peak memory, pack:          node ${mb(Math.max(...pack.map((m) => m.memory.node)))}, ffmpeg processes ${mb(Math.max(...pack.map((m) => m.memory.children)))}`,
  );
  console.log(`SSIM vs the plan's uncompressed frames: ${quality}   target ≥ 0.99 ${ok(ssimAll >= 0.99)}`);
  console.log(`load average: ${loadBefore} before, ${load()} after (1, 5, 15 min; the machine has ${availableParallelism()} cores)`);
  for (const r of cleanup) {
    rmSync(r.workDir, { recursive: true, force: true });
    rmSync(r.cacheDir, { recursive: true, force: true });
  }
  rmSync(scratch, { recursive: true, force: true });
}

await main();

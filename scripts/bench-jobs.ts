/**
 * `npm run bench:jobs` — the job layer under load, with real renders.
 *
 *  1. 30 jobs submitted at once to a pool of 30: wall time, peak memory (this process and every
 *     ffmpeg child, sampled from /proc), all 30 verified.
 *  2. 60 jobs at concurrency 1, 2, 4, 8 and 30: throughput in videos per minute.
 *
 * Flags (to try it quickly): --jobs N (default 60), --levels 1,2,4,8,30, --duration S (default:
 * the shortest the validator accepts), --skip-burst, --skip-throughput.
 */
import { readdirSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { RenderRequest } from '../src/core/requests.js';
import { validateRequest } from '../src/jobs/engine.js';
import { openEmbeddedJobStores } from '../src/records/job-backends.js';
import { JobManager } from '../src/jobs/manager.js';
import { threadBudget } from '../src/jobs/pool.js';
import { LISTING_TEXT, makePhotos } from '../test/helpers/job-photos.js';
import { loadConfig } from '../src/config/index.js';
import { shippedFontsConfig } from '../src/render/fonts.js';

/** A script is an entry point: it reads its environment once, as the CLI does (docs/configuration.md). */
const CONFIG = loadConfig({ env: process.env });
// Renders in this process draw text with the shipped fonts, as in the CLI (src/cli/main.ts).
process.env.FONTCONFIG_FILE = shippedFontsConfig();

const { values: flags } = parseArgs({
  options: {
    jobs: { type: 'string', default: '60' },
    levels: { type: 'string', default: '1,2,4,8,30' },
    duration: { type: 'string' },
    'skip-burst': { type: 'boolean', default: false },
    'skip-throughput': { type: 'boolean', default: false },
  },
});

/** Resident memory of this process and all its descendants (Linux /proc), in bytes. */
function treeRss(root: number = process.pid): number {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]);
      const kb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      rss.set(Number(entry), kb * 1024);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // The process ended while we looked.
    }
  }
  let total = 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    total += rss.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

async function runJobs(
  request: RenderRequest,
  count: number,
  concurrency: number,
): Promise<{ wallMs: number; peakRss: number; succeeded: number; failures: string[] }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'immoreel-bench-'));
  const valid = await validateRequest(request, 'local');
  const stores = openEmbeddedJobStores(dataDir);
  const manager = await JobManager.open({
    ffmpeg: CONFIG.ffmpeg,
    dataDir,
    ...stores,
    closeWith: () => stores.close(),
    concurrency,
    runWorkers: false,
    allowLocalFiles: true,
    pollMs: 100,
  });
  let peakRss = treeRss();
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, treeRss())), 250);
  const started = Date.now();
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) ids.push((await manager.submit(valid, { tenant: 'bench' })).job_id);
  for (const id of ids) manager.work(id);
  const terminal = new Set(['succeeded', 'failed', 'canceled']);
  const stateOf = async (id: string): Promise<string> => (await manager.get(id))!.job.state;
  while ((await Promise.all(ids.map(stateOf))).some((state) => !terminal.has(state))) await new Promise((r) => setTimeout(r, 200));
  const wallMs = Date.now() - started;
  clearInterval(sampler);
  const jobs = await Promise.all(ids.map(async (id) => (await manager.get(id))!.job));
  await manager.close();
  rmSync(dataDir, { recursive: true, force: true });
  return {
    wallMs,
    peakRss,
    succeeded: jobs.filter((j) => j.state === 'succeeded' && j.result !== null).length,
    failures: jobs.filter((j) => j.state !== 'succeeded').map((j) => `${j.job_id}: ${j.error?.code} ${j.error?.message}`),
  };
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'immoreel-bench-photos-'));
  const photos = await makePhotos(work, 2);
  const request: RenderRequest = {
    description: LISTING_TEXT,
    photos,
    music: 'none',
    ...(flags.duration === undefined ? { duration_s: 10 } : { duration_s: Number(flags.duration) }),
  };
  const cores = availableParallelism();
  console.log(`immoreel jobs benchmark — ${cores} logical cores, ${mb(totalmem())} RAM, node ${process.version}`);
  console.log(`each job: ${request.duration_s} s landscape video from a short text and ${photos.length} photos\n`);

  if (!flags['skip-burst']) {
    const burst = await runJobs(request, 30, 30);
    console.log(`30 jobs at once (concurrency 30, ${threadBudget(30)} ffmpeg thread(s) each):`);
    console.log(
      `  wall time ${(burst.wallMs / 1000).toFixed(1)} s, peak memory ${mb(burst.peakRss)} (node + ffmpeg processes), ${burst.succeeded}/30 verified`,
    );
    for (const f of burst.failures) console.log(`  FAILED ${f}`);
    console.log('');
  }

  if (!flags['skip-throughput']) {
    const count = Number(flags.jobs);
    console.log(`${count} jobs per concurrency level:`);
    console.log('  concurrency  threads  wall time   videos/min  peak memory  verified');
    for (const level of flags.levels.split(',').map(Number)) {
      const run = await runJobs(request, count, level);
      console.log(
        `  ${String(level).padStart(11)}  ${String(threadBudget(level)).padStart(7)}  ${`${(run.wallMs / 1000).toFixed(1)} s`.padStart(9)}  ${((count / run.wallMs) * 60_000).toFixed(1).padStart(10)}  ${mb(run.peakRss).padStart(11)}  ${run.succeeded}/${count}`,
      );
      for (const f of run.failures.slice(0, 3)) console.log(`    FAILED ${f}`);
    }
  }
  rmSync(work, { recursive: true, force: true });
}

await main();

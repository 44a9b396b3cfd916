/**
 * Parse time per saved portal page (target: ≤ 20 ms on average).
 *
 *   npm run bench:portals [-- DATA_DIR] [--runs N]     (default ../shared/data, or IMMOREEL_EVAL_DATA)
 *
 * "Parse" is what `analyze --html-file` does to a page: parseListingPage (adapter, scrubbing,
 * the text extractor over the page's own description, the merge). The full analysis (market,
 * audience, angles) is shown beside it. Pages the expectations mark as not a listing are skipped.
 * Each page runs once cold (first call of the process for that portal), then warm-up, then N timed runs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { analyzeListing } from '../src/analysis/analyze.js';
import { parseListingPage } from '../src/analysis/portals/index.js';

const args = process.argv.slice(2);
const runsFlag = args.indexOf('--runs');
const runs = runsFlag >= 0 ? Number(args[runsFlag + 1]) : 30;
const dataDir =
  args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--runs') ??
  process.env.IMMOREEL_EVAL_DATA ??
  fileURLToPath(new URL('../../shared/data/', import.meta.url));
const expectedFile = join(dataDir, 'portals-expected.json');
if (!existsSync(expectedFile)) {
  console.error(`No ${expectedFile}: pass the data directory (npm run bench:portals -- DIR).`);
  process.exit(2);
}
const expectations = JSON.parse(readFileSync(expectedFile, 'utf8')) as Record<string, { url: string; not_a_listing?: boolean }>;

function stats(samples: number[]): { mean: number; p95: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    mean: samples.reduce((a, b) => a + b, 0) / samples.length,
    p95: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))],
  };
}

const ms = (value: number): string => value.toFixed(2).padStart(7);
console.log(`page                   KB   cold ms  parse mean  parse p95  analyze mean   (${runs} runs)`);
const means: number[] = [];
for (const [file, expected] of Object.entries(expectations)) {
  if (expected.not_a_listing) continue;
  const html = readFileSync(join(dataDir, 'portals', file), 'utf8');
  let start = performance.now();
  parseListingPage(html, expected.url);
  const cold = performance.now() - start;
  for (let i = 0; i < 3; i += 1) parseListingPage(html, expected.url);
  const parse: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    start = performance.now();
    parseListingPage(html, expected.url);
    parse.push(performance.now() - start);
  }
  const full: number[] = [];
  for (let i = 0; i < Math.min(runs, 10); i += 1) {
    start = performance.now();
    await analyzeListing({ url: expected.url, html });
    full.push(performance.now() - start);
  }
  const p = stats(parse);
  means.push(p.mean);
  console.log(
    `${file.padEnd(20)} ${String(Math.round(Buffer.byteLength(html) / 1024)).padStart(4)}  ${ms(cold)}    ${ms(p.mean)}    ${ms(p.p95)}      ${ms(stats(full).mean)}`,
  );
}
const average = means.reduce((a, b) => a + b, 0) / means.length;
console.log(
  `\nAverage parse time per saved page: ${average.toFixed(2)} ms over ${means.length} pages (target ≤ 20 ms): ${average <= 20 ? 'OK' : 'OVER TARGET'}`,
);

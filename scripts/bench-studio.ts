/**
 * `npm run bench:studio`: the Studio page's weight (what a first visit downloads, raw and gzipped)
 * and its time to interactive in headless Chromium on loopback — from navigation start to the
 * page's `studio-interactive` mark (session checked, screen shown, every control wired).
 * Cold = browser cache disabled; warm = hashed files from the cache. See docs/studio.md.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { startServer } from '../src/server/start.js';
import { STUDIO_ROOT } from '../src/server/studio/index.js';
import { launchChromium } from '../test/helpers/browser.js';
import { loadConfig } from '../src/config/index.js';
import { shippedFontsConfig } from '../src/render/fonts.js';

/** A script is an entry point: it reads its environment once, as the CLI does (docs/configuration.md). */
const CONFIG = loadConfig({ env: process.env });
// Renders in this process draw text with the shipped fonts, as in the CLI (src/cli/main.ts).
process.env.FONTCONFIG_FILE = shippedFontsConfig();

const RUNS = 7;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const files = readdirSync(STUDIO_ROOT);
let raw = 0;
let gzipped = 0;
console.log('Studio page weight (dist/studio):');
for (const file of files) {
  const bytes = readFileSync(join(STUDIO_ROOT, file));
  const gz = gzipSync(bytes, { level: 9 }).length;
  raw += bytes.length;
  gzipped += gz;
  console.log(`  ${file.padEnd(24)} ${(bytes.length / 1024).toFixed(1).padStart(7)} KB  ${(gz / 1024).toFixed(1).padStart(6)} KB gzipped`);
}
console.log(`  ${'total'.padEnd(24)} ${(raw / 1024).toFixed(1).padStart(7)} KB  ${(gzipped / 1024).toFixed(1).padStart(6)} KB gzipped`);

const dataDir = mkdtempSync(join(tmpdir(), 'immoreel-bench-studio-'));
const server = await startServer({ ffmpeg: CONFIG.ffmpeg, dataDir, host: '127.0.0.1', port: 0, log: false });
const { apiKey } = await server.records.keys.create({ tenant: 'bench' });
const chrome = await launchChromium();
try {
  const page = await chrome.browser.newPage();
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="true"]');
  await page.fill('#api-key', apiKey);
  await page.press('#api-key', 'Enter');
  await page.waitForSelector('#new-view:not([hidden])');
  const cdp = await chrome.browser.newCDPSession(page);
  const measure = async (cold: boolean): Promise<number> => {
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: cold });
    await page.goto(`${server.url}/?lang=fr`);
    await page.waitForSelector('body[data-ready="true"]');
    return page.evaluate(() => performance.getEntriesByName('studio-interactive')[0]!.startTime);
  };
  await measure(false);
  const cold: number[] = [];
  const warm: number[] = [];
  for (let i = 0; i < RUNS; i++) cold.push(await measure(true));
  for (let i = 0; i < RUNS; i++) warm.push(await measure(false));
  console.log(`Time to interactive, signed in, headless Chromium on loopback (median of ${RUNS}):`);
  console.log(`  cold cache  ${median(cold).toFixed(0)} ms   (min ${Math.min(...cold).toFixed(0)}, max ${Math.max(...cold).toFixed(0)})`);
  console.log(`  warm cache  ${median(warm).toFixed(0)} ms   (min ${Math.min(...warm).toFixed(0)}, max ${Math.max(...warm).toFixed(0)})`);
} finally {
  await chrome.close();
  await server.close();
}

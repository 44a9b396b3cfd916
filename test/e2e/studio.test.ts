/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Callbacks passed to page.evaluate run in the page: they need the DOM types.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConsoleMessage, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/core/types.js';
import { axeViolations } from '../helpers/axe.js';
import { launchChromium, type StartedBrowser } from '../helpers/browser.js';
import { probe } from '../helpers/probe.js';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import { bearer, createKey, freshDataDir, startServe, type CreatedKey, type ServeProcess } from '../helpers/serve-process.js';

/*
 * The Studio in a real browser (docs/studio.md, "Tests"): Debian's Chromium driven by
 * playwright-core against the real `immoreel serve` on loopback, one real render checked with
 * the <video> element and the API's checksum. Screenshots land in docs/studio/.
 */

const SHOTS = join(REPO_ROOT, 'docs', 'studio');
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const LISTING_FR =
  'Appartement à vendre à Maarif, Casablanca. 120 m², 3 chambres, 2 salles de bain, terrasse, ascenseur, parking. Prix : 1 850 000 DH.';
const LISTING_AR = 'شقة للبيع في المعاريف بالدار البيضاء، المساحة 120 متر مربع، 3 غرف نوم، حمامان، مصعد وموقف سيارات. الثمن 1350000 درهم.';
/** A sale at 18 500 DH for 110 m²: a price the analysis doubts (168 DH/m²), to be confirmed before any render. */
const LISTING_DOUBTFUL = 'Appartement à vendre à Maârif, Casablanca. 110 m², 3 chambres, 2 salles de bain, ascenseur. Prix : 18 500 DH.';

let server: ServeProcess;
let key: CreatedKey;
let chrome: StartedBrowser;
let photoFiles: string[] = [];
let tinyFile = '';
const consoleProblems: string[] = [];
/** Chromium logs every 4xx answer and aborted request as a console error: only those a test provokes on purpose are allowed. */
const allowedConsoleErrors: RegExp[] = [];

function watch(page: Page): Page {
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() !== 'error' && message.type() !== 'warning') return;
    const text = message.text();
    if (message.type() === 'error' && allowedConsoleErrors.some((pattern) => pattern.test(text))) return;
    consoleProblems.push(`${message.type()}: ${text} (${page.url()})`);
  });
  page.on('pageerror', (error) => consoleProblems.push(`pageerror: ${error.message} (${page.url()})`));
  return page;
}

/** A page on `path`; the draft a previous test left in the browser's storage is dropped first unless `keepDraft`. */
async function newPage(path: string, keepDraft = false): Promise<Page> {
  const page = watch(await chrome.browser.newPage());
  await page.setViewportSize(DESKTOP);
  if (!keepDraft) await page.addInitScript(() => localStorage.removeItem('immoreel.studio.draft'));
  await page.goto(`${server.url}${path}`);
  await page.waitForSelector('body[data-ready="true"]');
  return page;
}

/** The job the page follows, read from its address (`?job=`). */
function jobInAddress(page: Page): string | null {
  return new URL(page.url()).searchParams.get('job');
}

async function api<T>(path: string): Promise<T> {
  const response = await fetch(`${server.url}${path}`, { headers: bearer(key) });
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

async function uploadAsset(file: string): Promise<string> {
  const response = await fetch(`${server.url}/api/v1/assets`, {
    method: 'POST',
    headers: { ...bearer(key), 'content-type': 'image/jpeg' },
    body: readFileSync(file),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { asset: { ref: string } }).asset.ref;
}

async function analyzeText(page: Page, text: string): Promise<void> {
  await page.fill('#listing', text);
  await page.click('#analyze-btn');
  await page.waitForSelector('#analysis:not([hidden]) #facts dt');
}

/** Nothing sticks out sideways at a phone's width (text that cannot wrap included). */
async function expectFitsPhone(page: Page): Promise<void> {
  const wide = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('body *')]
      .filter(
        (el) =>
          el.offsetParent !== null &&
          (el.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5 || el.getBoundingClientRect().left < -0.5),
      )
      .map((el) => `${el.tagName.toLowerCase()}#${el.id}.${el.className}`),
  );
  expect(wide, 'no element wider than a phone').toEqual([]);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, 'no sideways scrolling at phone width').toBeLessThanOrEqual(0);
}

/**
 * Words cut inside (the History's "termin/ée"): every word of the text under `selector` lies on one
 * line, i.e. its text range has one client rectangle. Tokens of 30 characters or more (refs,
 * links, the job id History shows for a job canceled before its listing was read) are left out: they may have to break.
 */
async function brokenWords(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((sel) => {
    const broken: string[] = [];
    for (const root of document.querySelectorAll(sel)) {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
        for (const match of (node.textContent ?? '').matchAll(/\S+/g)) {
          if (match[0].length >= 30) continue;
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          if ([...range.getClientRects()].filter((r) => r.width > 0).length > 1) broken.push(match[0]);
        }
      }
    }
    return broken;
  }, selector);
}

/** Text as read aloud: without the bidi isolates around numbers, no-break spaces as spaces (docs/studio.md "Numbers"). */
const plain = (text: string | null | undefined): string => (text ?? '').replace(/[\u2066\u2069]/g, '').replace(/[\u00a0\u202f]/g, ' ');

/** Signs in with the key when the page shows the sign-in form (a test run alone has no session yet). */
async function ensureSignedIn(page: Page): Promise<void> {
  if (!(await page.isVisible('#signin-view'))) return;
  await page.fill('#api-key', key.api_key);
  await page.press('#api-key', 'Enter');
  await page.waitForSelector('#new-view:not([hidden]), #history-view:not([hidden]), #batch-view:not([hidden])');
}

/**
 * The drawn order of the digit groups of every number under `selector` ("1 350 000"): each
 * group's box measured with a Range. In reading order, every group starts right of the one before
 * it, on the same line; with its groups reversed by the bidi algorithm ("000 350 1") it does not.
 */
async function numbersAsDrawn(page: Page, selector: string): Promise<{ numbers: string[]; misdrawn: string[] }> {
  return page.evaluate((sel) => {
    const numbers: string[] = [];
    const misdrawn: string[] = [];
    for (const root of document.querySelectorAll(sel)) {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
        for (const match of (node.textContent ?? '').matchAll(/\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?!\d)/g)) {
          const boxes = [...match[0].matchAll(/\d+/g)].map((group) => {
            const range = document.createRange();
            range.setStart(node, match.index + group.index);
            range.setEnd(node, match.index + group.index + group[0].length);
            return range.getBoundingClientRect();
          });
          if (boxes.some((box) => box.width === 0)) continue;
          const number = match[0].replace(/\D+/g, ' ');
          numbers.push(number);
          const inOrder = boxes.every(
            (box, i) => i === 0 || (box.left >= boxes[i - 1]!.right - 0.5 && Math.abs(box.top - boxes[i - 1]!.top) < 2),
          );
          if (!inOrder) misdrawn.push(number);
        }
      }
    }
    return { numbers, misdrawn };
  }, selector);
}

/**
 * Render requests answered 503 by the test, their bodies kept: what is checked is what the page
 * sends, with no render started.
 */
async function holdRenders(page: Page): Promise<Record<string, unknown>[]> {
  const bodies: Record<string, unknown>[] = [];
  await page.route('**/api/v1/render-video', async (route) => {
    bodies.push(route.request().postDataJSON() as Record<string, unknown>);
    await route.fulfill({
      status: 503,
      contentType: 'application/json',
      body: '{"ok":false,"error":{"code":"SERVICE_UNAVAILABLE","message":"held by the test"}}',
    });
  });
  allowedConsoleErrors.push(/^Failed to load resource: the server responded with a status of 503 \(Service Unavailable\)$/);
  return bodies;
}

/** Every visible form control has an accessible name (a label, aria-label or aria-labelledby). */
async function expectLabelledControls(page: Page): Promise<void> {
  const unlabelled = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLInputElement>('input, select, textarea')]
      .filter((control) => control.type !== 'hidden' && !control.closest('[hidden]'))
      .filter(
        (control) => (control.labels?.length ?? 0) === 0 && !control.getAttribute('aria-label') && !control.getAttribute('aria-labelledby'),
      )
      .map((control) => control.id || control.name),
  );
  expect(unlabelled).toEqual([]);
}

beforeAll(async () => {
  const dir = freshDataDir();
  const colours = [
    { r: 180, g: 120, b: 80 },
    { r: 60, g: 130, b: 190 },
    { r: 90, g: 160, b: 90 },
  ];
  photoFiles = await Promise.all(
    colours.map(async (background, index) => {
      const file = join(dir, `photo-${index + 1}.jpg`);
      const stripe = await sharp({ create: { width: 400, height: 720, channels: 3, background: { r: 240, g: 240, b: 240 } } })
        .jpeg()
        .toBuffer();
      await sharp({ create: { width: 1280, height: 720, channels: 3, background } })
        .composite([{ input: stripe, left: 200 + index * 300, top: 0 }])
        .jpeg({ quality: 85 })
        .toFile(file);
      return file;
    }),
  );
  // A sound image far too small for a video: the upload accepts it (logos are small), the render cannot use it.
  tinyFile = join(dir, 'tiny.png');
  await sharp({ create: { width: 16, height: 16, channels: 3, background: '#336699' } })
    .png()
    .toFile(tinyFile);

  server = await startServe(freshDataDir());
  key = await createKey(server.dataDir, ['--tenant', 'agence-atlas']);
  chrome = await launchChromium();
  mkdirSync(SHOTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await chrome?.close();
  await server?.stop();
});

describe('the Studio in Chromium', () => {
  it('signs in, analyses, uploads and reorders 3 photos, renders, plays and downloads the video', { timeout: 900_000 }, async () => {
    const page = await newPage('/?lang=fr');
    expect(await page.getAttribute('html', 'dir')).toBe('ltr');
    expect(await page.getAttribute('html', 'lang')).toBe('fr');
    await page.fill('#api-key', key.api_key);
    await page.press('#api-key', 'Enter');
    await page.waitForSelector('#new-view:not([hidden])');
    expect(await page.textContent('#whoami')).toContain('agence-atlas');

    await analyzeText(page, LISTING_FR);
    expect(plain(await page.textContent('#facts'))).toContain('120 m²');
    // One number format on the page, the video cards' own ("1 850 000"): no "1.850.000", no "16.892" that reads as a decimal;
    // each number isolated, its groups and its unit joined by spaces that do not break.
    const shown = await page.evaluate(() =>
      ['#facts', '#market', '#angles', '#buyer'].map((id) => document.querySelector(id)?.textContent ?? '').join(' \n '),
    );
    expect(shown).toContain('\u20661\u202f850\u202f000\u2069\u00a0DH');
    expect(shown.match(/\d{1,3}(?:[., ]\d{3})+(?!\d)/g) ?? []).toEqual([]);
    // Market source and names in the page's words, not the data's keys.
    expect(await page.textContent('#market figcaption')).toMatch(/prix demandés/);
    expect(shown).not.toMatch(/\[[A-Z0-9-]+\]/);
    // Templates and formats are chosen by their look: each template tile shows its still (drawn by the server), each format its frame's shape.
    expect(await page.$$eval('#opt-template label', (labels) => labels.map((l) => l.textContent?.trim()))).toEqual([
      'Classique',
      'Prestige',
      'Réseaux sociaux',
    ]);
    // Drawn by the server on the first request (a second or so each, more on a loaded machine), then cached.
    await page.waitForFunction(
      () => [...document.querySelectorAll<HTMLImageElement>('#opt-template img.still')].every((i) => i.complete && i.naturalWidth === 640),
      null,
      { timeout: 120_000 },
    );
    const shapes = await page.$$eval('#opt-format .shape', (boxes) =>
      boxes.map((b) => Math.round((b.getBoundingClientRect().width / b.getBoundingClientRect().height) * 100) / 100),
    );
    expect(shapes).toEqual([1.78, 0.56, 1]);
    expect(await page.textContent('#facts')).toContain('Appartement');
    const chart = page.locator('#market svg[role="img"]');
    expect(await chart.getAttribute('aria-label')).toMatch(/Q1 .*médiane .*Q3/);
    expect(await page.locator('#market circle.listing').count()).toBe(1);
    expect(await page.locator('#buyer li').count()).toBeGreaterThan(0);
    expect(await page.locator('#angles li').count()).toBeGreaterThan(0);

    await page.setInputFiles('#photo-input', photoFiles);
    await page.waitForFunction(() => document.querySelectorAll('#photo-list li.photo.ready').length === 3, null, { timeout: 60_000 });
    const order = (): Promise<string[]> =>
      page.$$eval('#photo-list li img', (images) => images.map((img) => img.getAttribute('alt') ?? ''));
    expect(await order()).toEqual(['photo-1.jpg', 'photo-2.jpg', 'photo-3.jpg']);
    // Keyboard reorder: the arrow button of photo 1 makes photo 2 the cover, and the focus stays on the moved photo.
    await page.getByRole('button', { name: 'Descendre la photo 1' }).focus();
    await page.keyboard.press('Enter');
    expect(await order()).toEqual(['photo-2.jpg', 'photo-1.jpg', 'photo-3.jpg']);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Descendre la photo 2');
    expect(await page.evaluate(() => document.activeElement?.closest('li')?.querySelector('img')?.getAttribute('alt'))).toBe('photo-1.jpg');
    expect(await page.locator('#photo-list li').first().locator('.badge').textContent()).toBe('Couverture');
    // Mouse reorder: drag the third photo onto the first.
    await page.dragAndDrop('#photo-list li:nth-child(3)', '#photo-list li:nth-child(1)');
    expect(await order()).toEqual(['photo-3.jpg', 'photo-2.jpg', 'photo-1.jpg']);

    await expectLabelledControls(page);
    await page.fill('#opt-duration', '10');
    await page.fill('#brand-agency', 'Agence Atlas');
    await page.fill('#brand-phone', '+212 522 00 00 00');
    // A pack: landscape (ticked at first) and portrait, sent as `formats` in the tiles' order (docs/studio.md "Packs").
    await page.check('#opt-format input[value="portrait"]');
    const sent = page.waitForRequest((r) => r.url().endsWith('/api/v1/render-video') && r.method() === 'POST');
    await page.click('#render-btn');
    const body = (await sent).postDataJSON() as Record<string, unknown>;
    expect(body.formats).toEqual(['landscape', 'portrait']);
    expect(body).not.toHaveProperty('format');
    await page.waitForSelector('#job-panel:not([hidden])');

    // Progress as the agent sees it, sampled until the video is there.
    const seen: number[] = [];
    const states = new Set<string>();
    const etas = new Set<string>();
    const deadline = Date.now() + 840_000;
    while (Date.now() < deadline) {
      seen.push(Number(await page.getAttribute('#job-progress', 'value')));
      states.add((await page.textContent('#job-state')) ?? '');
      etas.add((await page.textContent('#job-eta')) ?? '');
      if (await page.locator('#job-result:not([hidden])').count()) break;
      if ((await page.textContent('#job-error'))?.trim())
        throw new Error(`render failed in the page: ${await page.textContent('#job-error')}`);
      await page.waitForTimeout(250);
    }
    const distinct = [...new Set(seen)];
    expect(distinct.length, `progress values seen: ${distinct.join(', ')}`).toBeGreaterThanOrEqual(3);
    expect(distinct.some((v) => v > 0 && v < 100)).toBe(true);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect([...states].some((s) => s.includes('en cours'))).toBe(true);
    expect(await page.textContent('#job-state')).toContain('terminée');
    expect(
      [...etas].some((text) => /^Temps restant (estimé : \d+ s|: estimation en cours…)$/.test(plain(text))),
      [...etas].join(' | '),
    ).toBe(true);

    const jobId = jobInAddress(page)!;
    expect(jobId).toMatch(/^job_/);
    expect(await page.textContent('#job-id')).toContain(jobId);
    expect(await page.textContent('#job-title')).toBe(await page.textContent('#analysis-heading'));
    const { job } = await api<{ job: JobRecord }>(`/api/v1/jobs/${jobId}`);
    expect(job.state).toBe('succeeded');
    expect(job.metadata).toMatchObject({ studio: { duration_s: 10, template: 'classic', formats: ['landscape', 'portrait'] } });
    expect(job.formats).toEqual(['landscape', 'portrait']);
    const outputs = job.outputs!;
    expect(outputs.map((o) => o.format)).toEqual(['landscape', 'portrait']);
    // Every output listed with its frame, length and weight in the page's words, and its own download link.
    const listed = await page.$$eval('#job-output-list li', (items) =>
      items.map((li) => ({
        format: li.getAttribute('data-format'),
        name: li.querySelector('strong')?.textContent,
        facts: li
          .querySelector('.about > span')
          ?.textContent?.replace(/[\u2066\u2069]/g, '')
          .replace(/[\u00a0\u202f]/g, ' '),
        href: li.querySelector('a')?.getAttribute('href'),
      })),
    );
    // "2,4 Mo": one decimal under 10 MB, in the page's number format.
    const megabytes = (bytes: number): string => `${(bytes / 1_000_000).toFixed(bytes < 10_000_000 ? 1 : 0).replace('.', ',')} Mo`;
    expect(listed).toEqual([
      {
        format: 'landscape',
        name: 'Paysage 16:9',
        facts: `1280 × 720 · ${Math.round(outputs[0]!.duration_s)} s · ${megabytes(outputs[0]!.size_bytes)}`,
        href: `/api/v1/jobs/${jobId}/video?format=landscape`,
      },
      {
        format: 'portrait',
        name: 'Portrait 9:16',
        facts: `720 × 1280 · ${Math.round(outputs[1]!.duration_s)} s · ${megabytes(outputs[1]!.size_bytes)}`,
        href: `/api/v1/jobs/${jobId}/video?format=portrait`,
      },
    ]);

    // The poster: the title card's frame at the output's size, shown by the player before it plays.
    expect(await page.getAttribute('#job-video', 'poster')).toBe(`/api/v1/jobs/${jobId}/poster?format=landscape`);
    expect(await page.getAttribute('#job-output-list li[data-format="landscape"] button', 'aria-pressed')).toBe('true');
    // "Voir" puts the portrait output in the player, with its own poster.
    await page.getByRole('button', { name: 'Voir — Portrait 9:16' }).click();
    expect(await page.getAttribute('#job-output-list li[data-format="portrait"] button', 'aria-pressed')).toBe('true');
    expect(await page.getAttribute('#job-video', 'poster')).toBe(`/api/v1/jobs/${jobId}/poster?format=portrait`);
    expect(await page.getAttribute('#job-video', 'aria-label')).toBe('Vidéo de l’annonce — Portrait 9:16');
    const portrait = await page.evaluate(async () => {
      const element = document.querySelector<HTMLVideoElement>('#job-video')!;
      if (element.videoHeight <= element.videoWidth || element.readyState < 1)
        await new Promise((resolve, reject) => {
          element.addEventListener('loadedmetadata', resolve, { once: true });
          element.addEventListener('error', () => reject(new Error(`video error ${element.error?.code}`)), { once: true });
        });
      return { duration: element.duration, width: element.videoWidth, height: element.videoHeight };
    });
    expect(portrait).toMatchObject({ width: 720, height: 1280 });
    expect(portrait.duration).toBeCloseTo(outputs[1]!.duration_s, 0);
    for (const [format, width, height] of [
      ['landscape', 1280, 720],
      ['portrait', 720, 1280],
    ] as const) {
      const posterAnswer = await fetch(`${server.url}/api/v1/jobs/${jobId}/poster?format=${format}`, { headers: bearer(key) });
      expect(posterAnswer.status).toBe(200);
      expect(posterAnswer.headers.get('content-type')).toBe('image/jpeg');
      const posterFile = join(freshDataDir(), `poster-${format}.jpg`);
      writeFileSync(posterFile, Buffer.from(await posterAnswer.arrayBuffer()));
      expect(await probe(posterFile)).toMatchObject({ videoCodec: 'mjpeg', width, height });
    }
    const other = await createKey(server.dataDir, ['--tenant', 'autre-agence']);
    expect((await fetch(`${server.url}/api/v1/jobs/${jobId}/poster`, { headers: bearer(other) })).status).toBe(403);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Télécharger — Portrait 9:16' }).click(),
    ]);
    // Named by the listing, not by the job id.
    expect(download.suggestedFilename()).toMatch(/^appartement-[a-z0-9-]+-portrait\.mp4$/);
    const bytes = readFileSync(await download.path());
    expect(bytes.length).toBe(outputs[1]!.size_bytes);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(outputs[1]!.sha256);

    await chrome.browser.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await page.click('#job-copy');
    // The poster downloads as a JPEG at the output's size, named by the listing.
    const [posterDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Télécharger l’affiche (JPEG) — Portrait 9:16' }).click(),
    ]);
    expect(posterDownload.suggestedFilename()).toMatch(/^appartement-[a-z0-9-]+-portrait\.jpg$/);
    expect(await probe(await posterDownload.path())).toMatchObject({ videoCodec: 'mjpeg', width: 720, height: 1280 });

    // "Copier le lien" makes a share link of the output shown: a page that opens with no cookie (docs/studio.md "Share links").
    await page.click('#job-copy');
    await expect.poll(() => page.textContent('#copy-status')).toMatch(/^Lien copié : il s’ouvre sans connexion jusqu’au .+\.$/);
    const shared = await page.evaluate(() => navigator.clipboard.readText());
    expect(shared).toMatch(new RegExp(`^${server.url}/s/[A-Za-z0-9_-]{32}$`));
    expect(await page.inputValue('#job-link')).toBe(shared);
    // Opened at another name of the same server (localhost): the browser has no cookie there.
    const outside = shared.replace('127.0.0.1', 'localhost');
    expect(await chrome.browser.cookies(outside)).toEqual([]);
    const client = watch(await chrome.browser.newPage());
    const opened = await client.goto(outside);
    expect(opened?.status()).toBe(200);
    expect(await client.getAttribute('meta[property="og:image"]', 'content')).toBe(`${outside}/poster.jpg`);
    expect(await client.getAttribute('meta[property="og:video"]', 'content')).toBe(`${outside}/video.mp4`);
    expect(await client.getAttribute('meta[property="og:title"]', 'content')).toBe(job.listing!.title);
    const played = await client.evaluate(async () => {
      const video = document.querySelector('video')!;
      video.muted = true;
      await video.play();
      // Playing, once its clock moves: on a loaded machine that may take more than a few hundred milliseconds.
      for (let waited = 0; video.currentTime === 0 && video.error === null && waited < 10_000; waited += 100)
        await new Promise((resolve) => setTimeout(resolve, 100));
      return { time: video.currentTime, width: video.videoWidth, height: video.videoHeight, error: video.error?.code ?? null };
    });
    expect(played).toMatchObject({ width: 720, height: 1280, error: null });
    expect(played.time).toBeGreaterThan(0);
    await client.setViewportSize(PHONE);
    await client.screenshot({ path: join(SHOTS, 'share-phone.png') });
    await client.close();
    // Withdrawn from the Studio: the link opens no more.
    await page.click('#job-unshare');
    await expect.poll(() => page.textContent('#copy-status')).toBe('Lien retiré : il ne s’ouvre plus.');
    expect((await fetch(shared)).status).toBe(404);

    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(SHOTS, 'fr-desktop.png'), fullPage: true });
    await page.setViewportSize(PHONE);
    await page.screenshot({ path: join(SHOTS, 'fr-phone.png'), fullPage: true });
    await expectFitsPhone(page);

    // Re-run from the history: the job's settings come back and the listing is analysed again.
    await page.setViewportSize(DESKTOP);
    await page.click('#nav a[href="#history"]');
    // History shows the video's poster and a download for each finished job.
    const historyRow = page.locator(`#history-rows tr[data-job="${jobId}"]`);
    await expect
      .poll(() => historyRow.locator('img.thumb').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
      .toBe(1280);
    expect(await historyRow.getByRole('link', { name: /^Télécharger — / }).getAttribute('href')).toBe(`/api/v1/jobs/${jobId}/video`);
    await historyRow.getByRole('button', { name: 'Refaire' }).click();
    await page.waitForSelector('#render-form:not([hidden])');
    expect(await page.inputValue('#listing')).toBe(LISTING_FR);
    expect(await page.inputValue('#opt-duration')).toBe('10');
    const ticked = (): Promise<string[]> =>
      page.$$eval('#opt-format input:checked', (boxes) => boxes.map((box) => (box as HTMLInputElement).value));
    expect(await ticked()).toEqual(['landscape', 'portrait']);
    expect(await page.locator('#photo-list li.photo.ready').count()).toBe(3);
    // The photos as this browser uploaded them, not grey boxes.
    expect(await page.$$eval('#photo-list li img', (images) => images.map((img) => img.getAttribute('src')?.slice(0, 15)))).toEqual(
      Array(3).fill('data:image/jpeg'),
    );
    expect(await page.textContent('#rerun-status')).toContain(jobId);

    // The draft keeps the formats ticked (read back after a reload in the test of the draft below).
    const draft = await page.evaluate(() => localStorage.getItem('immoreel.studio.draft'));
    expect((JSON.parse(draft ?? '{}') as { options?: Record<string, string> }).options?.['opt-format']).toBe('landscape,portrait');
    // Branding is remembered; the key is nowhere the page can read.
    await page.setViewportSize(DESKTOP);
    await page.reload();
    await page.waitForSelector('#new-view:not([hidden])');
    expect(await page.inputValue('#brand-agency')).toBe('Agence Atlas');
    const readable = await page.evaluate(
      () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie,
    );
    expect(readable).toContain('Agence Atlas');
    expect(readable).not.toContain(key.api_key);
    await page.close();
  });

  it('shows the Arabic page right to left, mirrored, and analyses Arabic text', async () => {
    const page = await newPage('/?lang=ar');
    expect(await page.getAttribute('html', 'dir')).toBe('rtl');
    expect(await page.getAttribute('html', 'lang')).toBe('ar');
    expect(await page.textContent('#nav a[href="#new"]')).toBe('فيديو جديد');
    // Mirrored: the brand sits on the right, the tools on the left.
    const brand = (await page.locator('.brand').boundingBox())!;
    const tools = (await page.locator('.top-tools').boundingBox())!;
    expect(brand.x).toBeGreaterThan(tools.x);
    await ensureSignedIn(page);
    await analyzeText(page, LISTING_AR);
    expect(await page.textContent('#analysis-title')).toBe('التحليل');
    // Every number drawn with its groups in reading order, wherever it appears: facts, chart, angles, buyer reasons, warnings.
    const drawn = await numbersAsDrawn(page, '#analysis');
    expect(drawn.numbers).toContain('1 350 000');
    expect(drawn.misdrawn).toEqual([]);
    // No Latin-script label left: the page's words, template and music names, the place and the market source are Arabic (names of portals aside).
    const labels = await page.evaluate(() =>
      [
        ...document.querySelectorAll(
          '#new-view dt, #new-view legend, #new-view label, #new-view h2, #new-view h3, #new-view button, #opt-music option, #market figcaption',
        ),
      ]
        .filter((el) => !el.closest('[hidden]'))
        .map((el) =>
          (el.textContent ?? '').replace(/Avito|Yakeey|Mubawab|mouldar|Le360|API|CSV|JPEG|PNG|WebP|Q[13]|Français|English/g, '').trim(),
        )
        .filter((text) => /[A-Za-z]/.test(text)),
    );
    expect(labels).toEqual([]);
    const place = await page.locator('#facts dd[dir="auto"]').first().textContent();
    expect(place).not.toMatch(/[A-Za-z]/);
    expect(await page.textContent('#facts')).toContain('120');
    await page.screenshot({ path: join(SHOTS, 'ar-desktop.png'), fullPage: true });
    await page.setViewportSize(PHONE);
    // On a phone too, where lines are short: no number broken across two lines (its groups share a line) or reversed.
    expect((await numbersAsDrawn(page, '#analysis')).misdrawn).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'ar-phone.png'), fullPage: true });
    await expectFitsPhone(page);
    // Switching language keeps what was typed and lands in the link.
    await page.selectOption('#lang', 'en');
    expect(await page.getAttribute('html', 'dir')).toBe('ltr');
    expect(page.url()).toContain('lang=en');
    expect(await page.inputValue('#listing')).toBe(LISTING_AR);
    expect(await page.textContent('#analysis-title')).toBe('Analysis');
    await page.close();
  });

  it('holds a doubtful price until the agent confirms it, and checks the duration on its field, in French', async () => {
    const page = await newPage('/?lang=fr');
    await ensureSignedIn(page);
    await analyzeText(page, LISTING_DOUBTFUL);
    // The warnings, in French, under the price they concern.
    const priceWarnings = await page.$$eval('#facts dd.fact-warning', (items) => items.map((dd) => dd.textContent ?? ''));
    expect(priceWarnings.join(' ')).toMatch(/ressemble à un loyer mensuel/);
    expect(priceWarnings.join(' ')).not.toMatch(/MAD|looks like/);
    expect(await page.isVisible('#price-check')).toBe(true);
    expect(await page.textContent('#price-confirm-label')).toBe('Je confirme le prix de \u206618\u202f500\u2069\u00a0DH');
    await page.setInputFiles('#photo-input', [photoFiles[0]!]);
    await page.waitForSelector('#photo-list li.photo.ready');
    const bodies = await holdRenders(page);
    // Durations the render would refuse are said under the field, in French, and nothing is sent.
    for (const wrong of ['9', '91', '10.5']) {
      await page.fill('#opt-duration', wrong);
      expect(await page.textContent('#duration-error')).toBe(
        'La durée doit être un nombre entier de secondes, de 10 à 90 (ou vide pour automatique).',
      );
      await page.click('#render-btn');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('opt-duration');
    }
    expect(await page.getAttribute('#opt-duration', 'aria-invalid')).toBe('true');
    await page.fill('#opt-duration', '12');
    expect(await page.textContent('#duration-error')).toBe('');
    // Not without the agent's word on the price.
    await page.click('#render-btn');
    expect(await page.textContent('#render-error')).toBe('Confirmez ou corrigez le prix avant de créer la vidéo.');
    expect(await page.textContent('#price-check-error')).toBe('Confirmez ou corrigez le prix avant de créer la vidéo.');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('price-confirm');
    expect(bodies).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'fr-price-to-confirm.png'), fullPage: true });
    // Confirmed: the render says so.
    await page.check('#price-confirm');
    await page.click('#render-btn');
    await expect.poll(() => bodies.length).toBe(1);
    expect(bodies[0]!.confirmed_facts).toEqual(['price']);
    expect((bodies[0]!.listing as { price_mad: number }).price_mad).toBe(18_500);
    // Corrected: the listing carries the new price (and its price per m²).
    await page.uncheck('#price-confirm');
    await page.fill('#price-fix', '1850000');
    await page.click('#render-btn');
    await expect.poll(() => bodies.length).toBe(2);
    expect(bodies[1]!.confirmed_facts).toEqual(['price']);
    expect(bodies[1]!.listing).toMatchObject({ price_mad: 1_850_000, price_per_m2_mad: 16_818 });
    // In Arabic, the same check in Arabic words, its number in reading order.
    await page.selectOption('#lang', 'ar');
    expect(await page.textContent('#price-check-title')).toBe('ثمن يحتاج إلى تأكيد');
    expect(plain(await page.textContent('#price-confirm-label'))).toBe('أؤكد ثمن 18 500 درهم');
    expect((await numbersAsDrawn(page, '#analysis')).misdrawn).toEqual([]);
    await page.close();
  });

  it(
    'shrinks a photo over the upload limit in the browser, and says which photos the duration leaves out',
    { timeout: 120_000 },
    async () => {
      // Noise does not compress: a PNG over the API's 15 MB.
      const big = join(freshDataDir(), 'grande.png');
      await sharp({
        create: { width: 3000, height: 2400, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 70 } },
      })
        .png({ compressionLevel: 1 })
        .toFile(big);
      expect(readFileSync(big).length).toBeGreaterThan(15 * 1024 * 1024);
      const page = await newPage('/?lang=fr');
      await ensureSignedIn(page);
      await analyzeText(page, LISTING_FR);
      // The storyboard route as contracted (docs/api.md), answered here: the second photo does not fit the duration.
      await page.route('**/api/v1/openapi.json', (route) => route.fulfill({ json: { paths: { '/api/v1/storyboard': { post: {} } } } }));
      const asked: Record<string, unknown>[] = [];
      await page.route('**/api/v1/storyboard', async (route) => {
        const body = route.request().postDataJSON() as { photos: string[] };
        asked.push(body);
        await route.fulfill({
          json: {
            ok: true,
            status: 'success',
            storyboard: { duration_s: 10, photos: body.photos.map((ref, index) => ({ index, ref, shown: index === 0 })), held_back: [] },
          },
        });
      });
      const uploads: { type: string; bytes: number }[] = [];
      page.on('request', (r) => {
        if (r.url().endsWith('/api/v1/assets'))
          uploads.push({ type: r.headers()['content-type'] ?? '', bytes: r.postDataBuffer()?.length ?? 0 });
      });
      await page.fill('#opt-duration', '10');
      await page.setInputFiles('#photo-input', [photoFiles[0]!, big]);
      await page.waitForFunction(() => document.querySelectorAll('#photo-list li.photo.ready').length === 2, null, { timeout: 90_000 });
      const shrunk = uploads.find((u) => u.type === 'image/jpeg' && u.bytes > 100_000 && u.bytes !== readFileSync(photoFiles[0]!).length);
      expect(shrunk, JSON.stringify(uploads)).toBeDefined();
      expect(shrunk!.bytes).toBeLessThanOrEqual(15 * 1024 * 1024);
      await expect
        .poll(() => page.textContent('#photos-left-out'), { timeout: 10_000 })
        .toBe('Photos laissées de côté pour tenir dans la durée : grande.png.');
      expect(asked.at(-1)).toMatchObject({ duration_s: 10 });
      expect(await page.getAttribute('#photo-list li:nth-child(2)', 'class')).toContain('photo-left-out');
      await page.close();
    },
  );

  it(
    'marks the subject of a photo with a click or the keyboard, keeps it across a reload, and sends it as focus',
    { timeout: 120_000 },
    async () => {
      const page = await newPage('/?lang=fr', true);
      await ensureSignedIn(page);
      await page.click('#draft-clear');
      await analyzeText(page, LISTING_FR);
      await page.fill('#opt-duration', '10');
      await page.setInputFiles('#photo-input', [photoFiles[0]!]);
      await page.waitForSelector('#photo-list li.photo.ready');
      const found: string[] = [];
      // A click on the larger view puts the marker where it lands; the slider's value says where, for a screen reader.
      await page.getByRole('button', { name: 'Sujet de la photo 1' }).click();
      await page.waitForSelector('#focus-dialog[open]');
      expect(await page.textContent('#focus-title')).toBe('Le sujet de la photo 1');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('focus-area');
      expect(await page.getAttribute('#focus-area', 'aria-valuetext')).toBe('Pas de sujet marqué : la vidéo le cherche elle-même.');
      await page.waitForFunction(
        () => (document.querySelector<HTMLImageElement>('#focus-image')?.getBoundingClientRect().width ?? 0) > 320,
      );
      const view = (await page.locator('#focus-image').boundingBox())!;
      await page.mouse.click(view.x + view.width * 0.25, view.y + view.height * 0.4);
      expect(plain(await page.getAttribute('#focus-area', 'aria-valuetext'))).toBe('25 % depuis la gauche, 40 % depuis le haut');
      found.push(...(await axeViolations(page, 'subject dialog')));
      await page.screenshot({ path: join(SHOTS, 'fr-photo-subject.png') });
      // The keyboard: an arrow moves it by 5 %, Enter keeps it and gives the focus back to the photo's button.
      await page.keyboard.press('ArrowRight');
      expect(plain(await page.getAttribute('#focus-area', 'aria-valuetext'))).toBe('30 % depuis la gauche, 40 % depuis le haut');
      await page.keyboard.press('Enter');
      await page.waitForSelector('#focus-dialog', { state: 'hidden' });
      expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Sujet de la photo 1 : marqué');
      expect(await page.textContent('#photo-status')).toBe('Sujet de la photo 1 marqué.');
      // Drawn on the thumbnail at that point of the photo (a 16:9 photo: the thumbnail shows all of it).
      const markerAt = (): Promise<{ x: number; y: number } | null> =>
        page.evaluate(() => {
          const marker = document.querySelector('#photo-list li .focus-marker');
          const image = document.querySelector('#photo-list li img');
          if (marker === null || image === null) return null;
          const m = marker.getBoundingClientRect();
          const i = image.getBoundingClientRect();
          return { x: (m.left + m.width / 2 - i.left) / i.width, y: (m.top + m.height / 2 - i.top) / i.height };
        });
      const drawn = (await markerAt())!;
      expect(drawn.x).toBeCloseTo(0.3, 1);
      expect(drawn.y).toBeCloseTo(0.4, 1);
      found.push(...(await axeViolations(page, 'subject marked')));

      // Kept in the draft across a reload, and sent to the storyboard and the render as `photos[].focus`.
      const storyboard = page.waitForRequest((r) => r.url().endsWith('/api/v1/storyboard'), { timeout: 30_000 });
      await page.reload();
      await page.waitForSelector('#photo-list li.photo.ready .focus-marker');
      expect(await page.getByRole('button', { name: 'Sujet de la photo 1 : marqué' }).count()).toBe(1);
      const again = (await markerAt())!;
      expect(again.x).toBeCloseTo(0.3, 1);
      expect(again.y).toBeCloseTo(0.4, 1);
      const focusOf = (body: Record<string, unknown>): { x: number; y: number } | undefined =>
        (body.photos as ({ url: string; focus?: { x: number; y: number } } | string)[]).map((p) =>
          typeof p === 'string' ? undefined : p.focus,
        )[0];
      const asked = (await storyboard).postDataJSON() as Record<string, unknown>;
      expect(focusOf(asked)!.x).toBeCloseTo(0.3, 2);
      expect(focusOf(asked)!.y).toBeCloseTo(0.4, 2);
      const bodies = await holdRenders(page);
      await page.click('#render-btn');
      await expect.poll(() => bodies.length).toBe(1);
      expect(bodies[0]!.photos).toEqual([
        { url: expect.stringMatching(/^asset:ast_/), focus: { x: expect.closeTo(0.3, 2), y: expect.closeTo(0.4, 2) } },
      ]);
      expect((bodies[0]!.metadata as { studio: { photos: unknown[] } }).studio.photos).toEqual(bodies[0]!.photos);

      // In Arabic on a phone: the same dialog in Arabic; Escape leaves the point as it was; "Remove" lets the renderer find it.
      await page.selectOption('#lang', 'ar');
      await page.setViewportSize(PHONE);
      await page.getByRole('button', { name: 'الموضوع في الصورة 1: محدد' }).click();
      await page.waitForSelector('#focus-dialog[open]');
      expect(await page.textContent('#focus-title')).toBe('موضوع الصورة 1');
      expect(plain(await page.getAttribute('#focus-area', 'aria-valuetext'))).toBe('30 % من اليسار، 40 % من الأعلى');
      await expectFitsPhone(page);
      found.push(...(await axeViolations(page, 'subject dialog')));
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Escape');
      await page.waitForSelector('#focus-dialog', { state: 'hidden' });
      const draftFocus = async (): Promise<unknown> =>
        (
          JSON.parse((await page.evaluate(() => localStorage.getItem('immoreel.studio.draft'))) ?? '{}') as {
            photos: { focus?: unknown }[];
          }
        ).photos[0]?.focus;
      expect(await draftFocus()).toEqual({ x: expect.closeTo(0.3, 2), y: expect.closeTo(0.4, 2) });
      await page.getByRole('button', { name: 'الموضوع في الصورة 1: محدد' }).click();
      await page.getByRole('button', { name: 'إزالة الموضوع' }).click();
      await page.waitForSelector('#focus-dialog', { state: 'hidden' });
      expect(await page.locator('#photo-list .focus-marker').count()).toBe(0);
      expect(await draftFocus()).toBeNull();
      await page.click('#render-btn');
      await expect.poll(() => bodies.length).toBe(2);
      expect(bodies[1]!.photos).toEqual([expect.stringMatching(/^asset:ast_/)]);
      expect(found).toEqual([]);
      await page.close();
    },
  );

  it('names the photos a 12 s video leaves out before rendering, in French and in Arabic', { timeout: 120_000 }, async () => {
    // Seven small photos: the storyboard does not fetch them, it counts the shots the duration leaves room for.
    const dir = freshDataDir();
    const seven = await Promise.all(
      Array.from({ length: 7 }, async (_, index) => {
        const file = join(dir, `piece-${index + 1}.jpg`);
        await sharp({ create: { width: 320, height: 180, channels: 3, background: { r: 30 * index, g: 120, b: 200 - 20 * index } } })
          .jpeg()
          .toFile(file);
        return file;
      }),
    );
    const page = await newPage('/?lang=fr');
    await ensureSignedIn(page);
    await analyzeText(page, LISTING_FR);
    await page.fill('#opt-duration', '12');
    await page.setInputFiles('#photo-input', seven);
    await page.waitForFunction(() => document.querySelectorAll('#photo-list li.photo.ready').length === 7, null, { timeout: 60_000 });
    await expect.poll(() => page.textContent('#photos-left-out'), { timeout: 15_000 }).toMatch(/^Photos laissées de côté/);
    // The photos named are those the server's storyboard leaves out of this request, dimmed in the list.
    const refs = await page.evaluate(() =>
      (JSON.parse(localStorage.getItem('immoreel.studio.draft') ?? '{}') as { photos: { ref: string }[] }).photos.map((p) => p.ref),
    );
    const answer = await fetch(`${server.url}/api/v1/storyboard`, {
      method: 'POST',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      body: JSON.stringify({ description: LISTING_FR, photos: refs, duration_s: 12, language: 'fr' }),
    });
    expect(answer.status).toBe(200);
    const { storyboard } = (await answer.json()) as { storyboard: { photos: { index: number; shown: boolean; reason?: string }[] } };
    const leftOut = storyboard.photos.filter((p) => !p.shown);
    expect(leftOut.length).toBeGreaterThan(0);
    expect(leftOut.every((p) => p.reason === 'duration')).toBe(true);
    const names = leftOut.map((p) => `piece-${p.index + 1}.jpg`);
    expect(plain(await page.textContent('#photos-left-out'))).toBe(
      `Photos laissées de côté pour tenir dans la durée : ${names.join(', ')}.`,
    );
    expect(await page.$$eval('#photo-list li.photo-left-out img', (images) => images.map((img) => img.getAttribute('alt')))).toEqual(names);
    const found = await axeViolations(page, 'photos left out');
    await page.selectOption('#lang', 'ar');
    await page.setViewportSize(PHONE);
    await expect
      .poll(() => page.textContent('#photos-left-out'), { timeout: 15_000 })
      .toBe(`صور تُركت جانبًا لتناسب المدة: ${names.join('، ')}.`);
    found.push(...(await axeViolations(page, 'photos left out')));
    expect(found).toEqual([]);
    await page.close();
  });

  it('goes on from the measured rate of a running job after a reload, not from zero', { timeout: 60_000 }, async () => {
    // A job whose progress the test sets (its record answered by the test): what is checked is the page's arithmetic.
    const jobId = 'job_0000000000000000000000eta0';
    let progress = 0.1;
    const page = watch(await chrome.browser.newPage());
    await page.setViewportSize(DESKTOP);
    await page.route(`**/api/v1/jobs/${jobId}`, (route) =>
      route.fulfill({
        headers: { 'retry-after': '1' },
        json: {
          ok: true,
          status: 'success',
          job: {
            job_id: jobId,
            state: 'running',
            stage: 'encoding',
            progress,
            created_at: new Date().toISOString(),
            updated_at: new Date().toISOString(),
            links: { self: `/api/v1/jobs/${jobId}`, video: null },
            listing: { title: 'Appartement à Maarif' },
            format: 'landscape',
            formats: ['landscape'],
            outputs: [],
            error: null,
            photos_left_out: [],
          },
        },
      }),
    );
    await page.goto(`${server.url}/?lang=fr&job=${jobId}#new`);
    await page.waitForSelector('body[data-ready="true"]');
    await ensureSignedIn(page);
    await expect.poll(() => page.textContent('#job-eta')).toBe('Temps restant : estimation en cours…');
    await page.waitForTimeout(2000);
    progress = 0.3;
    await expect.poll(async () => plain(await page.textContent('#job-eta')), { timeout: 10_000 }).toMatch(/^Temps restant estimé : \d+ s$/);
    const start = async (): Promise<{ jobId: string; at: number; progress: number }> =>
      JSON.parse((await page.evaluate(() => localStorage.getItem('immoreel.studio.progress'))) ?? 'null') as {
        jobId: string;
        at: number;
        progress: number;
      };
    const measured = await start();
    expect(measured).toMatchObject({ jobId, progress: 0.1 });

    progress = 0.34;
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    await expect.poll(() => page.textContent('#job-state')).toContain('34');
    // At once an estimate from the first measure (10 % at `at`), not "estimating" again from 34 %.
    const shown = plain(await page.textContent('#job-eta'));
    const now = Date.now();
    expect(shown).toMatch(/^Temps restant estimé : \d+ s$/);
    expect(await start()).toEqual(measured);
    const expected = ((now - measured.at) / 1000 / (0.34 - 0.1)) * (1 - 0.34);
    expect(Math.abs(Number(/(\d+) s$/.exec(shown)![1]) - expected)).toBeLessThanOrEqual(4);
    await page.selectOption('#lang', 'ar');
    expect(plain(await page.textContent('#job-eta'))).toMatch(/^الوقت المتبقي التقديري: /);
    await page.close();
  });

  it('lists the share links of a finished job and withdraws an older one: its page then shows no video', { timeout: 120_000 }, async () => {
    // A job an earlier test rendered.
    const { jobs } = await api<{ jobs: JobRecord[] }>('/api/v1/jobs?limit=50&state=succeeded');
    const done = jobs[0]!;
    await chrome.browser.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    const page = await newPage(`/?lang=fr&job=${done.job_id}#new`);
    await ensureSignedIn(page);
    await page.waitForSelector('#job-result:not([hidden])');
    const made: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      await page.click('#job-copy');
      await expect.poll(() => page.inputValue('#job-link')).not.toBe(made[i - 1] ?? '');
      made.push(await page.inputValue('#job-link'));
    }
    const [older, newer] = made as [string, string];
    const listed = (): Promise<string[]> =>
      page.$$eval('#job-share-list li input', (inputs) => inputs.map((input) => (input as HTMLInputElement).value));
    await expect.poll(async () => (await listed()).slice(0, 2)).toEqual([newer, older]);
    const { shares } = await api<{ shares: { url: string; expires_at: string }[] }>(`/api/v1/shares?job_id=${done.job_id}`);
    expect(shares.map((s) => `${server.url}${s.url}`)).toEqual(await listed());
    // Each with the day it stops working, and a button that says which link it withdraws.
    const olderRow = page.locator('#job-share-list li', { has: page.locator(`input[value="${older}"]`) });
    const n = shares.length - 1;
    expect(plain(await olderRow.locator('span').textContent())).toMatch(/^(Paysage 16:9|Portrait 9:16|Carré 1:1) — jusqu’au .+ 20\d\d$/);
    const withdraw = olderRow.getByRole('button', { name: 'Retirer' });
    expect(await withdraw.getAttribute('aria-label')).toMatch(new RegExp(`^Retirer le lien ${n} \\(jusqu’au .+\\)$`));
    const found = await axeViolations(page, 'share links');
    await withdraw.click();
    await expect.poll(() => page.textContent('#job-shares-status')).toBe(`Lien ${n} retiré : il ne s’ouvre plus.`);
    expect(await listed()).toContain(newer);
    expect(await listed()).not.toContain(older);
    // Opened by a client, with no cookie (another name of this server): no video, and words saying it was withdrawn.
    const client = await chrome.browser.newPage();
    const opened = await client.goto(older.replace('127.0.0.1', 'localhost'));
    expect(opened?.status()).toBe(404);
    expect(await client.locator('video').count()).toBe(0);
    expect(await client.textContent('h1')).toBe(
      'Ce lien ne fonctionne plus : l’agence l’a retiré, ou il a expiré. Demandez-lui un nouveau lien.',
    );
    expect(await client.textContent('p[lang="ar"]')).toContain('سحبته الوكالة');
    await client.close();
    expect((await fetch(newer.replace('127.0.0.1', 'localhost'))).status).toBe(200);
    await page.selectOption('#lang', 'ar');
    await page.setViewportSize(PHONE);
    expect(await page.textContent('#job-shares-title')).toBe('روابط مشاركة هذا الفيديو');
    await expectFitsPhone(page);
    found.push(...(await axeViolations(page, 'share links')));
    expect(found).toEqual([]);
    await page.close();
  });

  it('explains a link that is not a listing, keeping the text', async () => {
    const page = await newPage('/?lang=fr');
    allowedConsoleErrors.push(/^Failed to load resource: the server responded with a status of 400 \(Bad Request\)$/);
    const link = 'https://www.example.com/annonces/villa-42';
    await page.fill('#listing', link);
    await page.click('#analyze-btn');
    await page.waitForSelector('#analyze-error:not(:empty)');
    expect(await page.textContent('#analyze-error')).toContain('n’est pas une annonce Mubawab, Avito, Sarouty ou Yakeey');
    expect(await page.inputValue('#listing')).toBe(link);
    await page.close();
  });

  it('shows why a render failed, in the page language', { timeout: 300_000 }, async () => {
    const page = await newPage('/?lang=en');
    await analyzeText(page, LISTING_FR);
    await page.setInputFiles('#photo-input', [tinyFile]);
    await page.waitForSelector('#photo-list li.photo.ready');
    await page.fill('#opt-duration', '10');
    // The first attempt never reaches the server (the network drops it): the page says so, keeps
    // everything, and the retry carries the same Idempotency-Key, so one click never makes two jobs.
    const keys: string[] = [];
    const bodies: Record<string, unknown>[] = [];
    page.on('request', (r) => {
      if (!r.url().endsWith('/api/v1/render-video')) return;
      keys.push(r.headers()['idempotency-key'] ?? '');
      bodies.push(r.postDataJSON() as Record<string, unknown>);
    });
    allowedConsoleErrors.push(/^Failed to load resource: net::ERR_FAILED$/);
    await page.route('**/api/v1/render-video', (route) => route.abort('failed'), { times: 1 });
    await page.click('#render-btn');
    await page.waitForSelector('#render-error:not(:empty)');
    expect(await page.textContent('#render-error')).toContain('The server does not answer');
    expect(await page.inputValue('#listing')).toBe(LISTING_FR);
    expect(await page.locator('#photo-list li.photo.ready').count()).toBe(1);
    await page.click('#render-btn');
    await page.waitForSelector('#job-error:not(:empty)', { timeout: 240_000 });
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    // One format ticked is sent as `format`, as before packs.
    expect(bodies[1]!.format).toBe('landscape');
    expect(bodies[1]).not.toHaveProperty('formats');
    expect(await page.textContent('#job-error')).toMatch(/^The video could not be made: .+ Change the photos or settings and try again\.$/);
    expect(await page.textContent('#job-state')).toContain('failed');
    await page.close();
  });

  it('comes back to the running job and the draft after a reload', { timeout: 300_000 }, async () => {
    // The draft is kept by the page itself here (no init script clearing it): "New listing" starts over.
    const page = await newPage('/?lang=fr', true);
    await page.click('#draft-clear');
    expect(await page.inputValue('#listing')).toBe('');
    expect(await page.locator('#photo-list li').count()).toBe(0);
    await analyzeText(page, LISTING_FR);
    await page.setInputFiles('#photo-input', photoFiles.slice(0, 2));
    await page.waitForFunction(() => document.querySelectorAll('#photo-list li.photo.ready').length === 2, null, { timeout: 60_000 });
    await page.fill('#opt-duration', '30');
    await page.check('#opt-template input[value="luxury"]');
    await page.check('#opt-format input[value="portrait"]');
    await page.uncheck('#opt-format input[value="landscape"]');
    await page.click('#render-btn');
    await page.waitForSelector('#job-panel:not([hidden])');
    const jobId = jobInAddress(page);
    expect(jobId).toMatch(/^job_/);
    const title = await page.textContent('#analysis-heading');
    // No poster before the video: a 404 that says so.
    const early = await fetch(`${server.url}/api/v1/jobs/${jobId}/poster`, { headers: bearer(key) });
    expect(early.status).toBe(404);
    expect(((await early.json()) as { error: { reason: string } }).error.reason).toBe('video_not_ready');

    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    await expect.poll(() => page.textContent('#job-id')).toContain(jobId!);
    expect(jobInAddress(page)).toBe(jobId);
    expect(await page.textContent('#job-title')).toBe(title);
    expect(await page.textContent('#job-state')).toMatch(/en attente|en cours|terminée/);
    expect(await page.inputValue('#listing')).toBe(LISTING_FR);
    expect(await page.isVisible('#analysis')).toBe(true);
    expect(await page.textContent('#analysis-heading')).toBe(title);
    expect(await page.inputValue('#opt-duration')).toBe('30');
    expect(await page.isChecked('#opt-template input[value="luxury"]')).toBe(true);
    expect(await page.$$eval('#opt-format input:checked', (boxes) => boxes.map((box) => (box as HTMLInputElement).value))).toEqual([
      'portrait',
    ]);
    expect(await page.locator('#photo-list li.photo.ready').count()).toBe(2);
    expect(await page.$$eval('#photo-list li img', (images) => images.map((img) => img.getAttribute('alt')))).toEqual([
      'photo-1.jpg',
      'photo-2.jpg',
    ]);
    // The thumbnails are kept with the draft: the photos are seen, not grey boxes.
    const drawn = await page.$$eval('#photo-list li img', (images) =>
      images.map((img) => (img as HTMLImageElement).naturalWidth > 0 && (img as HTMLImageElement).src.startsWith('data:image/jpeg')),
    );
    expect(drawn).toEqual([true, true]);
    await page.screenshot({ path: join(SHOTS, 'fr-reloaded-job.png'), fullPage: true });

    // History opens a job by that same address.
    await page.click('#nav a[href="#history"]');
    const open = page.locator(`#history-rows tr[data-job="${jobId}"] a`, { hasText: 'Ouvrir' });
    expect(await open.getAttribute('href')).toContain(`job=${jobId}`);
    const other = await newPage(`/?lang=fr&job=${jobId}#new`);
    await expect.poll(() => other.textContent('#job-id')).toContain(jobId!);
    await other.close();

    await page.click('#nav a[href="#new"]');
    if (await page.isVisible('#job-cancel')) await page.click('#job-cancel');
    await page.close();
  });

  it('asks for a photo before the click when the listing has none', async () => {
    const page = await newPage('/?lang=fr');
    await analyzeText(page, LISTING_FR);
    expect(await page.isVisible('#photos-needed')).toBe(true);
    expect(await page.textContent('#photos-needed')).toContain('Ajoutez au moins une photo');
    // A hint, not yet an error: the agent has not had a chance to add a photo.
    expect(await page.getAttribute('#photos-needed', 'class')).toBe('hint');
    expect(await page.getAttribute('#photo-input', 'aria-invalid')).toBeNull();
    let renders = 0;
    page.on('request', (r) => {
      if (r.url().endsWith('/api/v1/render-video')) renders++;
    });
    await page.click('#render-btn');
    expect(await page.textContent('#render-error')).toContain('Ajoutez au moins une photo');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('photo-input');
    expect(await page.getAttribute('#photos-needed', 'class')).toBe('error');
    expect(await page.getAttribute('#photo-input', 'aria-invalid')).toBe('true');
    expect(renders).toBe(0);
    await page.screenshot({ path: join(SHOTS, 'fr-no-photo.png'), fullPage: true });
    // One photo later, the hint is gone.
    await page.setInputFiles('#photo-input', [photoFiles[0]!]);
    await page.waitForSelector('#photo-list li.photo.ready');
    expect(await page.isVisible('#photos-needed')).toBe(false);
    expect(await page.getAttribute('#photo-input', 'aria-invalid')).toBeNull();
    // No format ticked: said under the tiles at once, and the click sends nothing.
    await page.uncheck('#opt-format input[value="landscape"]');
    expect(await page.textContent('#formats-needed')).toBe('Choisissez au moins un format.');
    expect(await page.isVisible('#formats-needed')).toBe(true);
    expect(await page.getAttribute('#opt-format input[value="square"]', 'aria-invalid')).toBe('true');
    await page.click('#render-btn');
    expect(await page.textContent('#render-error')).toBe('Choisissez au moins un format.');
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.value)).toBe('landscape');
    expect(renders).toBe(0);
    await page.check('#opt-format input[value="square"]');
    expect(await page.isVisible('#formats-needed')).toBe(false);
    await page.close();
  });

  it('waits for photos still uploading, and says so', { timeout: 120_000 }, async () => {
    const page = await newPage('/?lang=fr');
    await analyzeText(page, LISTING_FR);
    // Each upload held 3 s on its way to the server: the click lands while it is pending.
    await page.route('**/api/v1/assets', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 3000));
      await route.continue();
    });
    let renders = 0;
    page.on('request', (r) => {
      if (r.url().endsWith('/api/v1/render-video')) renders++;
    });
    await page.setInputFiles('#photo-input', [photoFiles[0]!]);
    await page.waitForSelector('#photo-list li.photo.uploading');
    await page.click('#render-btn');
    expect(await page.textContent('#render-status')).toContain('Envoi des photos en cours');
    expect(renders).toBe(0);
    await page.waitForSelector('#job-panel:not([hidden])', { timeout: 60_000 });
    expect(renders).toBe(1);
    expect(await page.textContent('#render-status')).toBe('');
    if (await page.isVisible('#job-cancel')) await page.click('#job-cancel');
    await page.close();
  });

  it('names each file that is not a readable image, and keeps it out of the photos', async () => {
    const page = await newPage('/?lang=fr');
    await analyzeText(page, LISTING_FR);
    await page.setInputFiles('#photo-input', [
      { name: 'doc.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n') },
      { name: 'cassée.jpg', mimeType: 'image/jpeg', buffer: Buffer.from('not a jpeg at all') },
      { name: 'photo-1.jpg', mimeType: 'image/jpeg', buffer: readFileSync(photoFiles[0]!) },
    ]);
    await page.waitForSelector('#photo-list li.photo.ready');
    const problems = await page.$$eval('#photo-problems li', (items) => items.map((li) => li.textContent));
    expect(problems).toEqual([
      'doc.pdf n’est pas une image. Choisissez une photo JPEG, PNG, WebP ou HEIC.',
      'cassée.jpg n’est pas une image lisible. Choisissez une autre photo.',
    ]);
    expect(await page.$$eval('#photo-list li img', (images) => images.map((img) => img.getAttribute('alt')))).toEqual(['photo-1.jpg']);
    expect(await page.locator('#photo-list li').first().locator('.badge').textContent()).toBe('Couverture');
    await page.screenshot({ path: join(SHOTS, 'fr-not-an-image.png'), fullPage: true });
    await page.close();
  });

  it('runs a CSV batch, follows every row, cancels one from the history and downloads the failed rows', { timeout: 300_000 }, async () => {
    const tiny = await uploadAsset(tinyFile);
    const good = await Promise.all(photoFiles.map(uploadAsset));
    // As French Excel saves it: semicolons, Windows-1252, CRLF; one row a pack (the `formats` column, docs/studio.md "Packs").
    const csv = [
      'id;description;photos;language;duration_s;formats',
      `broken-photo;"${LISTING_FR}";${tiny};fr;10;`,
      `bad-language;"${LISTING_FR}";;xx;10;`,
      `to-cancel;"${LISTING_FR}";${good.join('|')};fr;30;portrait|square`,
      // A photo from the agent's computer, named by its file name and dropped with the CSV (docs/studio.md "Batch").
      `from-computer;"${LISTING_FR}";a.jpg;fr;10;`,
    ].join('\r\n');
    const page = await newPage('/?lang=fr#batch');
    await ensureSignedIn(page);
    const sent: Record<string, unknown>[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/api/v1/render-video')) sent.push(r.postDataJSON() as Record<string, unknown>);
    });
    await page.setInputFiles('#batch-input', [
      { name: 'lot.csv', mimeType: 'text/csv', buffer: Buffer.from(csv, 'latin1') },
      { name: 'a.jpg', mimeType: 'image/jpeg', buffer: readFileSync(photoFiles[1]!) },
    ]);
    await page.waitForSelector('#batch-rows tr[data-row="to-cancel"]');
    const rowText = (id: string): Promise<string> => page.locator(`#batch-rows tr[data-row="${id}"]`).innerText();
    await expect.poll(() => rowText('bad-language'), { timeout: 30_000 }).toContain('échouée');
    expect(await rowText('bad-language')).toContain('language');
    await expect.poll(() => rowText('to-cancel'), { timeout: 30_000 }).toMatch(/en attente|en cours/);

    // The history, filtered, then the cancel of the running row.
    await page.click('#nav a[href="#history"]');
    await page.waitForSelector('#history-rows tr');
    // Readable on a phone: one card per job, no word cut inside; and no word cut on a desktop either.
    expect(await brokenWords(page, '#history-rows')).toEqual([]);
    await page.setViewportSize(PHONE);
    expect(await page.$eval('#history-rows tr', (tr) => getComputedStyle(tr).display)).toBe('block');
    expect(await brokenWords(page, '#history-rows')).toEqual([]);
    await expectFitsPhone(page);
    await page.screenshot({ path: join(SHOTS, 'fr-history-phone.png'), fullPage: true });
    await page.setViewportSize(DESKTOP);
    const { jobs } = await api<{ jobs: JobRecord[] }>('/api/v1/jobs?limit=50');
    const toCancel = jobs.find((j) => (j.metadata as { batch_row_id?: string } | null)?.batch_row_id === 'to-cancel')!;
    expect(toCancel.formats).toEqual(['portrait', 'square']);
    await page.selectOption('#history-filter', 'failed');
    // The filtered list replaces the whole list once its answer arrives: wait for that, not for any row.
    const shownStates = () => page.$$eval('#history-rows td.state', (cells) => cells.map((c) => c.className));
    await expect
      .poll(
        async () => {
          const states = await shownStates();
          return states.length > 0 && states.every((state) => state.includes('failed'));
        },
        { timeout: 15_000 },
      )
      .toBe(true);
    await page.selectOption('#history-filter', '');
    await page.locator(`#history-rows tr[data-job="${toCancel.job_id}"]`).getByRole('button', { name: 'Annuler' }).click();
    await expect.poll(() => page.locator(`#history-rows tr[data-job="${toCancel.job_id}"] td.state`).innerText()).toBe('annulée');

    await page.click('#nav a[href="#batch"]');
    await expect.poll(() => page.textContent('#batch-summary'), { timeout: 240_000 }).toBe('4 sur 4 terminées, 3 en échec.');
    // The row naming a.jpg was sent with the uploaded photo's ref, and rendered.
    const fromComputer = sent.find((body) => (body.metadata as { batch_row_id?: string } | undefined)?.batch_row_id === 'from-computer');
    expect(fromComputer?.photos).toEqual([expect.stringMatching(/^asset:ast_/)]);
    expect(await rowText('from-computer')).toContain('terminée');
    // Kept across a reload: the rows, their states and their downloads.
    await page.reload();
    await page.waitForSelector('#batch-rows tr[data-row="from-computer"]');
    expect(await page.textContent('#batch-summary')).toBe('4 sur 4 terminées, 3 en échec.');
    const [rowVideo] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Télécharger — from-computer' }).click(),
    ]);
    expect(rowVideo.suggestedFilename()).toBe('from-computer.mp4');
    expect(await probe(await rowVideo.path())).toMatchObject({ width: 1280, height: 720 });
    expect(await rowText('broken-photo')).toContain('échouée');
    await page.setViewportSize(PHONE);
    expect(await brokenWords(page, '#batch-rows')).toEqual([]);
    await expectFitsPhone(page);
    await page.screenshot({ path: join(SHOTS, 'fr-batch-phone.png'), fullPage: true });
    await page.setViewportSize(DESKTOP);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#batch-failed')]);
    // For French Excel: semicolons and a byte order mark.
    const failedCsv = readFileSync(await download.path(), 'utf8');
    expect(failedCsv.startsWith('\ufeff')).toBe(true);
    const lines = failedCsv.slice(1).trim().split(/\r\n/);
    expect(lines[0]).toBe('id;description;photos;language;duration_s;formats;error_code;error_message');
    expect(lines.slice(1).map((l) => l.split(';')[0])).toEqual(['broken-photo', 'bad-language', 'to-cancel']);
    expect(failedCsv).toContain('BAD_REQUEST');
    expect(failedCsv).toContain('CANCELED');
    await page.close();
  });

  it('signs in once through the link `immoreel studio` prints', { timeout: 120_000 }, async () => {
    const dataDir = freshDataDir();
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/immoreel.js'), '--data-dir', dataDir, '--json', 'studio', '--no-browser'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        let err = '';
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) resolve(out.split('\n')[0]!);
        });
        child.on('exit', (code) => reject(new Error(`studio exited with ${code}: ${err}`)));
      });
      const started = JSON.parse(line) as { url: string; login_url: string };
      expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const page = watch(await chrome.browser.newPage());
      await page.goto(started.login_url);
      await page.waitForSelector('#new-view:not([hidden])');
      expect(new URL(page.url()).pathname).toBe('/');
      // The CLI's own tenant is no name the agent chose: the page says they are signed in, not "studio".
      expect(await page.textContent('#whoami')).toBe('Signed in to this Studio');
      // A link for another device, asked by the signed-in page: it works once too (docs/studio.md "From a phone or another device").
      await page.click('#device-link');
      await page.waitForSelector('#device-url:not([hidden])');
      const deviceUrl = await page.inputValue('#device-url');
      expect(deviceUrl).toMatch(new RegExp(`^${started.url}/studio/login\\?token=[\\w-]{32}$`));
      expect(await page.textContent('#device-help')).toContain('immoreel studio --lan');
      // The link works once.
      const again = watch(await chrome.browser.newPage());
      await again.context().clearCookies();
      await again.goto(started.login_url);
      await again.waitForSelector('#signin-view:not([hidden])');
      expect(await again.textContent('#signin-error')).toContain('already used');
      await again.context().clearCookies();
      await again.goto(deviceUrl);
      await again.waitForSelector('#new-view:not([hidden])');
      await again.context().clearCookies();
      await again.goto(deviceUrl);
      await again.waitForSelector('#signin-view:not([hidden])');
      await page.close();
      await again.close();
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    // Stopping the Studio revoked the key its link carried.
    const listed = await runCli(['--data-dir', dataDir, 'keys', 'list', '--json']);
    const { keys } = JSON.parse(listed.stdout) as { keys: { tenant: string; revoked_at: string | null }[] };
    expect(keys.filter((k) => k.tenant === 'studio').map((k) => k.revoked_at === null)).toEqual([false]);
  });

  it(
    'has no accessibility violation (axe-core) on any screen, in three languages, on a desktop and a phone',
    { timeout: 300_000 },
    async () => {
      const { jobs } = await api<{ jobs: JobRecord[] }>('/api/v1/jobs?limit=50&state=succeeded');
      const done = jobs[0]!;
      const found: string[] = [];
      const check = async (page: Page, screen: string): Promise<void> => {
        for (const lang of ['fr', 'en', 'ar']) {
          await page.selectOption('#lang', lang);
          found.push(...(await axeViolations(page, screen)));
        }
      };
      for (const viewport of [{ width: 1280, height: 800 }, PHONE]) {
        await chrome.browser.clearCookies();
        const page = watch(await chrome.browser.newPage());
        await page.setViewportSize(viewport);
        await page.addInitScript(() => localStorage.removeItem('immoreel.studio.draft'));
        await page.goto(`${server.url}/?lang=fr`);
        await page.waitForSelector('body[data-ready="true"] #signin-view:not([hidden])');
        await check(page, 'sign-in');
        await page.fill('#api-key', key.api_key);
        await page.press('#api-key', 'Enter');
        await page.waitForSelector('#new-view:not([hidden])');
        await page.selectOption('#lang', 'fr');
        await check(page, 'new video');
        await analyzeText(page, LISTING_FR);
        await page.setInputFiles('#photo-input', [photoFiles[0]!]);
        await page.waitForSelector('#photo-list li.photo.ready');
        await page.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>('img.still')].every((i) => i.complete));
        await check(page, 'analysis, photos, options and branding');
        // Errors on their fields: a doubtful price not confirmed, a duration out of range, a file that is not a photo.
        await page.selectOption('#lang', 'fr');
        await analyzeText(page, LISTING_DOUBTFUL);
        await page.fill('#opt-duration', '9');
        await page.setInputFiles('#photo-input', [{ name: 'doc.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n') }]);
        await page.waitForSelector('#photo-problems:not([hidden])');
        await page.click('#render-btn');
        await page.fill('#opt-duration', '12');
        await page.click('#render-btn');
        await page.waitForSelector('#price-check-error:not(:empty)');
        await page.fill('#opt-duration', '9');
        await check(page, 'errors');
        await page.goto(`${server.url}/?lang=fr&job=${done.job_id}#new`);
        await page.waitForSelector('#job-result:not([hidden])');
        await check(page, 'job panel');
        await page.click('#nav a[href="#history"]');
        await page.waitForSelector('#history-rows tr');
        await check(page, 'history');
        await page.click('#nav a[href="#batch"]');
        await page.setInputFiles('#batch-input', {
          name: 'lot.csv',
          mimeType: 'text/csv',
          buffer: Buffer.from(`id,description,language\nbad-language,"${LISTING_FR}",xx\n`),
        });
        await page.waitForSelector('#batch-rows tr[data-row="bad-language"]');
        await check(page, 'batch');
        await page.close();
      }
      expect(found).toEqual([]);
    },
  );

  it('logged no console error on any page', () => {
    expect(consoleProblems).toEqual([]);
  });
});

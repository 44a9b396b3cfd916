/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Callbacks passed to page.evaluate run in the page: they need the DOM types.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import type { ConsoleMessage, Page } from 'playwright-core';
import QRCode from 'qrcode';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/core/types.js';
import { axeViolations } from '../helpers/axe.js';
import { launchChromium, type StartedBrowser } from '../helpers/browser.js';
import { assertBuiltCliIsFresh, BIN, runCli } from '../helpers/cli.js';
import { inTerminal } from '../helpers/pty.js';

/*
 * `immoreel studio --lan` as another device meets it (docs/studio.md "From a phone or another
 * device"): the real process listening on every interface, reached at this machine's network
 * address; its links, one-time, one session per device; the QR codes it draws on a terminal; and
 * the batch's logo files dropped with the CSV (docs/studio.md "Batch").
 */

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const LISTING_FR =
  'Appartement à vendre à Maarif, Casablanca. 120 m², 3 chambres, 2 salles de bain, terrasse, ascenseur, parking. Prix : 1 850 000 DH.';
const LINK = /http:\/\/[\d.]+:\d+\/studio\/login\?token=[\w-]+/;
/** A line of a QR code as the CLI draws it: half blocks, or the white and black background codes. */
// eslint-disable-next-line no-control-regex -- colour codes start with ESC
const CODE_LINE = /[\u2580-\u259f]|\u001b\[4[07]m/;

/** This machine's IPv4 addresses beyond loopback: where a phone on its network reaches it. */
function lanAddresses(): string[] {
  const addresses = Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((address) => address.family === 'IPv4' && !address.internal)
    .map((address) => address.address);
  if (addresses.length === 0)
    throw new Error(
      'This machine has no IPv4 network address beyond loopback (os.networkInterfaces()), so no other device could reach `immoreel studio --lan` and this test cannot check it: connect the machine to a network.',
    );
  return addresses;
}

interface Studio {
  child: ChildProcess;
  dataDir: string;
  stdout: string;
  loginUrl: string;
  deviceLinks: string[];
}

/** `immoreel studio --lan` with its stdout piped, as a script or a log would read it; resolves once it says how to stop it. */
async function startStudio(dataDir: string): Promise<Studio> {
  assertBuiltCliIsFresh();
  const child = spawn(process.execPath, [BIN, '--data-dir', dataDir, 'studio', '--lan', '--no-browser', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`studio did not start in 60 s:\n${stdout}\n${stderr}`)), 60_000);
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('Press Ctrl-C to stop.')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`studio exited with ${code}:\n${stderr}`));
    });
  });
  const links = [...stdout.matchAll(new RegExp(LINK.source, 'g'))].map((m) => m[0]);
  return {
    child,
    dataDir,
    stdout,
    loginUrl: links.find((link) => new URL(link).hostname === '127.0.0.1')!,
    deviceLinks: links.filter((link) => new URL(link).hostname !== '127.0.0.1'),
  };
}

/** The cookie a sign-in answer sets, as `name=value`. */
function sessionCookie(response: Response): string | null {
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith('immoreel_session=') && !c.startsWith('immoreel_session=;'));
  return cookie === undefined ? null : cookie.split(';')[0]!;
}

async function liveSessions(dataDir: string): Promise<{ session_id: string; tenant: string }[]> {
  const listed = await runCli(['--data-dir', dataDir, 'keys', 'sessions', '--json']);
  expect(listed.code, listed.stderr).toBe(0);
  return (JSON.parse(listed.stdout) as { sessions: { session_id: string; tenant: string }[] }).sessions;
}

/**
 * The QR code drawn under a link, read back as a camera sees it: node-qrcode's small terminal
 * renderer draws two modules per character (`▀ ▄ █` and space) in foreground and background colours;
 * each character's top and bottom halves are replayed with the colour codes before it. Returns the
 * modules inside the white border (true = black), or throws when the drawing is not a bordered square.
 */
function modulesDrawn(lines: string[]): boolean[][] {
  type Colour = 'black' | 'white' | null;
  const pixels: Colour[][] = [];
  for (const line of lines) {
    let fg: Colour = null;
    let bg: Colour = null;
    const top: Colour[] = [];
    const bottom: Colour[] = [];
    // eslint-disable-next-line no-control-regex -- colour codes start with ESC
    for (const token of line.matchAll(/\u001b\[([\d;]*)m|[^\u001b]/g)) {
      if (token[1] !== undefined) {
        for (const code of token[1].split(';')) {
          if (code === '0' || code === '') fg = bg = null;
          else if (code === '30') fg = 'black';
          else if (code === '37') fg = 'white';
          else if (code === '40') bg = 'black';
          else if (code === '47') bg = 'white';
        }
        continue;
      }
      const char = token[0];
      const halves: [Colour, Colour] =
        char === '█' ? [fg, fg] : char === '▀' ? [fg, bg] : char === '▄' ? [bg, fg] : char === ' ' ? [bg, bg] : [null, null];
      top.push(halves[0]);
      bottom.push(halves[1]);
    }
    pixels.push(top, bottom);
  }
  const rows = pixels.map((row, y) => ({ y, xs: row.flatMap((c, x) => (c === null ? [] : [x])) })).filter((r) => r.xs.length > 0);
  const y0 = rows[0]!.y;
  const y1 = rows.at(-1)!.y;
  const x0 = Math.min(...rows.flatMap((r) => r.xs));
  const x1 = Math.max(...rows.flatMap((r) => r.xs));
  const square = Array.from({ length: y1 - y0 + 1 }, (_, dy) =>
    Array.from({ length: x1 - x0 + 1 }, (_, dx) => pixels[y0 + dy]![x0 + dx] ?? null),
  );
  expect(square.length, 'the code is square').toBe(square[0]!.length);
  const ring = square.flatMap((row, y) => row.filter((_, x) => y === 0 || x === 0 || y === square.length - 1 || x === row.length - 1));
  expect(new Set(ring), 'a white border all round').toEqual(new Set(['white']));
  return square.slice(1, -1).map((row) => row.slice(1, -1).map((c) => c === 'black'));
}

/** The library's own modules for `text` (error correction M, as the CLI draws it). */
function modulesOf(text: string): boolean[][] {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  return Array.from({ length: modules.size }, (_, y) => Array.from({ length: modules.size }, (_, x) => modules.get(y, x) === 1));
}

const plain = (text: string): string => stripVTControlCharacters(text);

let studio: Studio;
let chrome: StartedBrowser;
let work: string;
const consoleProblems: string[] = [];

function watch(page: Page): Page {
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error' || message.type() === 'warning')
      consoleProblems.push(`${message.type()}: ${message.text()} (${page.url()})`);
  });
  page.on('pageerror', (error) => consoleProblems.push(`pageerror: ${error.message} (${page.url()})`));
  return page;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'immoreel-devices-'));
  [studio, chrome] = await Promise.all([startStudio(join(work, 'data')), launchChromium()]);
}, 120_000);

afterAll(async () => {
  await chrome?.close();
  if (studio?.child.exitCode === null) {
    const exited = new Promise((resolve) => studio.child.once('exit', resolve));
    studio.child.kill('SIGTERM');
    await exited;
  }
  rmSync(work, { recursive: true, force: true });
});

describe('immoreel studio --lan', () => {
  it('prints one sign-in link for another device, at each network address, and no QR code when piped', () => {
    const addresses = lanAddresses();
    const port = new URL(studio.loginUrl).port;
    expect(studio.deviceLinks.map((link) => new URL(link).hostname).sort()).toEqual([...addresses].sort());
    expect(studio.deviceLinks.every((link) => new URL(link).port === port)).toBe(true);
    // One link per device: the same one-time token at each address, not this machine's.
    const tokens = new Set(studio.deviceLinks.map((link) => new URL(link).searchParams.get('token')));
    expect(tokens.size).toBe(1);
    expect([...tokens][0]).toMatch(/^[\w-]{32}$/);
    expect(tokens.has(new URL(studio.loginUrl).searchParams.get('token'))).toBe(false);
    // Piped: the links alone, no colour codes, no half blocks; no Enter to press without a keyboard.
    // eslint-disable-next-line no-control-regex -- colour codes start with ESC
    expect(studio.stdout).not.toMatch(/\u001b\[|[\u2580-\u259f]/);
    expect(studio.stdout).not.toContain('Press Enter');
  });

  it(
    'signs a phone in over the network address, once per link, each device its own session (Chromium at 390×844, axe-core)',
    { timeout: 120_000 },
    async () => {
      const [address] = lanAddresses();
      const phoneLink = studio.deviceLinks.find((link) => new URL(link).hostname === address)!;
      const page = watch(await chrome.browser.newPage());
      await page.setViewportSize(PHONE);
      await page.goto(phoneLink);
      await page.waitForSelector('body[data-ready="true"] #new-view:not([hidden])');
      // Reached beyond loopback: the page was served at the network address, and signed in.
      expect(new URL(page.url()).host).toBe(`${address}:${new URL(phoneLink).port}`);
      expect(new URL(page.url()).pathname).toBe('/');
      expect(await axeViolations(page, 'signed in over the network')).toEqual([]);

      // A second device: a link the signed-in page asks for, at the network address too.
      await page.click('#device-link');
      await page.waitForSelector('#device-url:not([hidden])');
      const secondLink = await page.inputValue('#device-url');
      expect(new URL(secondLink).hostname).toBe(address);
      const first = await fetch(secondLink, { redirect: 'manual' });
      expect(first.status).toBe(303);
      expect(first.headers.get('location')).toBe('/');
      const secondCookie = sessionCookie(first);
      expect(secondCookie).not.toBeNull();
      const phoneCookie = (await chrome.browser.cookies(page.url())).find((c) => c.name === 'immoreel_session')!;
      expect(secondCookie).not.toBe(`immoreel_session=${phoneCookie.value}`);
      // Used once, a link signs nobody else in.
      const again = await fetch(secondLink, { redirect: 'manual' });
      expect(again.status).toBe(303);
      expect(again.headers.get('location')).toBe('/?signin=link_used');
      expect(sessionCookie(again)).toBeNull();

      // Two sessions, one per device: ending the second leaves the phone signed in.
      const sessions = await liveSessions(studio.dataDir);
      expect(sessions.map((s) => s.tenant)).toEqual(['studio', 'studio']);
      expect(new Set(sessions.map((s) => s.session_id)).size).toBe(2);
      const signOut = await fetch(new URL('/studio/session', secondLink), { method: 'DELETE', headers: { cookie: secondCookie! } });
      expect(signOut.status).toBe(200);
      expect(await liveSessions(studio.dataDir)).toHaveLength(1);
      await page.reload();
      await page.waitForSelector('body[data-ready="true"] #new-view:not([hidden])');

      // The phone's link again, from a browser without the session: the sign-in page says it was used.
      await chrome.browser.clearCookies();
      await page.goto(phoneLink);
      await page.waitForSelector('body[data-ready="true"] #signin-view:not([hidden])');
      expect(await page.textContent('#signin-error')).toContain('This sign-in link was already used');
      expect(await axeViolations(page, 'link already used')).toEqual([]);
      await page.close();
    },
  );

  it('draws each device link as a QR code on a terminal, 80 columns wide, that reads as the link', { timeout: 120_000 }, () => {
    const addresses = lanAddresses();
    // Enter asks for one more device's link; Ctrl-C once it is printed.
    const result = inTerminal(
      [process.execPath, BIN, '--data-dir', join(work, 'tty-data'), 'studio', '--lan', '--no-browser', '--port', '0'],
      work,
      'Ctrl-C to stop[\\s\\S]*one more device',
      90,
      ['Ctrl-C to stop', '\r'],
      80,
    );
    const lines = result.output.split(/\r?\n/);
    expect(plain(result.output)).toContain('Stopping the Studio');
    // Every line but the links' fits 80 columns (a link is as long as its address makes it: ≈ 80 characters, indented by 2).
    const widths = lines.filter((line) => !LINK.test(plain(line))).map((line) => plain(line).length);
    expect(Math.max(...widths), 'fits a terminal 80 columns wide').toBeLessThanOrEqual(80);
    // Each device link (two per address: the first one, and the one Enter asked for) has its code under it; this machine's link has none.
    const drawn: string[] = [];
    lines.forEach((line, index) => {
      const link = plain(line).match(LINK)?.[0];
      if (link === undefined) return;
      const codeLines: string[] = [];
      for (let next = index + 2; next < lines.length && CODE_LINE.test(lines[next]!); next++) codeLines.push(lines[next]!);
      if (new URL(link).hostname === '127.0.0.1') {
        expect(codeLines, 'no code for the link of this machine').toEqual([]);
        return;
      }
      expect(modulesDrawn(codeLines), `the code under ${link}`).toEqual(modulesOf(link));
      expect(codeLines.length, 'two rows of modules a line: 20 lines at most').toBeLessThanOrEqual(20);
      drawn.push(link);
    });
    expect(drawn.map((link) => new URL(link).hostname).sort()).toEqual([...addresses, ...addresses].sort());
    expect(new Set(drawn.map((link) => new URL(link).searchParams.get('token'))).size, 'a fresh token for the second device').toBe(2);
  });

  it('runs a batch whose logo column names a file dropped with the CSV, and names a logo that was not', { timeout: 180_000 }, async () => {
    const photo = await sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 60, g: 130, b: 190 } } })
      .jpeg({ quality: 80 })
      .toBuffer();
    const logo = await sharp({ create: { width: 240, height: 90, channels: 4, background: { r: 200, g: 40, b: 40, alpha: 0.9 } } })
      .png()
      .toBuffer();
    const csv = [
      'id,description,photos,logo,format,duration_s',
      `with-logo,"${LISTING_FR}",a.jpg,Logo.png,square,10`,
      `logo-not-dropped,"${LISTING_FR}",a.jpg,absent.png,square,10`,
    ].join('\n');
    const page = watch(await chrome.browser.newPage());
    await page.setViewportSize(DESKTOP);
    await chrome.browser.clearCookies();
    // This machine's own link: the one the Studio opens in its browser.
    await page.goto(studio.loginUrl);
    await page.waitForSelector('body[data-ready="true"] #new-view:not([hidden])');
    await page.goto(new URL('/?lang=fr#batch', page.url()).href);
    await page.waitForSelector('#batch-view:not([hidden])');
    const sent: Record<string, unknown>[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/api/v1/render-video')) sent.push(r.postDataJSON() as Record<string, unknown>);
    });
    await page.setInputFiles('#batch-input', [
      { name: 'lot.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) },
      { name: 'a.jpg', mimeType: 'image/jpeg', buffer: photo },
      // Named `Logo.png` in the CSV: file names match without regard to case.
      { name: 'logo.png', mimeType: 'image/png', buffer: logo },
    ]);
    const rowText = (id: string): Promise<string> => page.locator(`#batch-rows tr[data-row="${id}"]`).innerText();
    await page.waitForSelector('#batch-rows tr[data-row="logo-not-dropped"]');
    await expect
      .poll(() => rowText('logo-not-dropped'), { timeout: 30_000 })
      .toContain('Le logo absent.png n’a pas été déposé avec le CSV.');
    await expect.poll(() => page.textContent('#batch-summary'), { timeout: 150_000 }).toBe('2 sur 2 terminées, 1 en échec.');
    expect(await rowText('with-logo')).toContain('terminée');
    // Only the row with its files was sent: its photo and its logo as the refs of their uploads.
    expect(sent.map((body) => (body.metadata as { batch_row_id: string }).batch_row_id)).toEqual(['with-logo']);
    const body = sent[0]!;
    expect(body.photos).toEqual([expect.stringMatching(/^asset:ast_/)]);
    expect(body.branding).toEqual({ logo_url: expect.stringMatching(/^asset:ast_/) });
    expect((body.branding as { logo_url: string }).logo_url).not.toBe((body.photos as string[])[0]);
    const job = await page.evaluate(async () => {
      const { jobs } = (await (await fetch('/api/v1/jobs?limit=10')).json()) as { jobs: JobRecord[] };
      return jobs.find((j) => (j.metadata as { batch_row_id?: string } | null)?.batch_row_id === 'with-logo') ?? null;
    });
    expect(job?.state).toBe('succeeded');
    expect(job?.outputs?.[0]).toMatchObject({ width: 720, height: 720, format: 'square' });
    await page.close();
  });

  it('logged no console error on any page', () => {
    expect(consoleProblems).toEqual([]);
  });
});

import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

/**
 * Debian's Chromium, driven by playwright-core (docs/studio.md, "Tests"). Installed by
 * scripts/install-system-deps.sh; IMMOREEL_CHROMIUM points elsewhere. A browser that cannot start
 * is an error with its reason, never a skipped test.
 */
export const CHROMIUM_PATH = process.env.IMMOREEL_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface StartedBrowser {
  browser: BrowserContext;
  close(): Promise<void>;
}

/** A fresh profile each time: no cookies, storage or cache carried between runs. */
export async function launchChromium(): Promise<StartedBrowser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM_PATH}: run scripts/install-system-deps.sh (apt-get install chromium) or set IMMOREEL_CHROMIUM.`,
    );
  }
  const profile = mkdtempSync(join(tmpdir(), 'immoreel-chromium-'));
  let browser: BrowserContext;
  try {
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      acceptDownloads: true,
      timeout: 60_000,
    });
  } catch (error) {
    throw new Error(`Chromium (${CHROMIUM_PATH}) could not start: ${(error as Error).message}`);
  }
  return { browser, close: () => browser.close() };
}

export type { Browser };

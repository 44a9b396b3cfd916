/// <reference lib="dom" />
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { REPO_ROOT } from './cli.js';

let axeSource: string | null = null;

/**
 * axe-core's violations on the page as it is now (docs/studio.md "Tests"), each named with the
 * screen, the page's language and width. Evaluated through the DevTools protocol: the page's CSP
 * (script-src 'self') refuses an injected <script>.
 */
export async function axeViolations(page: Page, screen: string): Promise<string[]> {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
  axeSource ??= readFileSync(join(REPO_ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
  if ((await page.evaluate(() => typeof (window as { axe?: unknown }).axe)) === 'undefined') await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(context: Document): Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }> };
      }
    ).axe;
    const result = await axe.run(document);
    return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  const lang = await page.getAttribute('html', 'lang');
  return violations.map((v) => `${screen} ${lang} ${page.viewportSize()?.width}px — ${v}`);
}

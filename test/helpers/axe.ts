/// <reference lib="dom" />
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { REPO_ROOT } from './cli.js';

/*
 * axe-core on a Studio page (docs/studio.md "Tests"). Evaluated through the DevTools protocol: the
 * page's CSP (script-src 'self') refuses an injected <script>, which is the point of the CSP.
 */

let axeSource: string | null = null;

/** axe-core's violations on the page as it is now (WCAG 2.x A/AA and best practices), as `rule: targets`. */
export async function axeViolations(page: Page): Promise<string[]> {
  axeSource ??= readFileSync(join(REPO_ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
  if ((await page.evaluate(() => typeof (window as { axe?: unknown }).axe)) === 'undefined') await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(context: Document): Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }> };
      }
    ).axe;
    const result = await axe.run(document);
    return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

import { spawnSync } from 'node:child_process';

/**
 * Reading the Prometheus text of a metrics port (docs/operations.md "Metrics") in tests: one
 * sample's value, and `promtool check metrics` over the whole text. promtool is a system
 * dependency of the test suite; without it the check fails, naming what to install.
 */

/** The value of the sample `name{labels}` (labels as written, e.g. `state="succeeded"`), or undefined. */
export function sample(text: string, name: string, labels = ''): number | undefined {
  const wanted = labels === '' ? name : `${name}{${labels}}`;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    if (line.slice(0, space) === wanted) return Number(line.slice(space + 1));
  }
  return undefined;
}

/**
 * prom-client's default process metrics name three gauges `nodejs_active_*_total`, which promtool's
 * lint flags; they are prom-client's names, not ours (docs/operations.md "Metrics"), and are let through.
 */
const PROM_CLIENT_NAMES = /^nodejs_active_(handles|requests|resources)_total non-counter metrics should not have "_total" suffix$/;

/** promtool's complaints about `text` ('' when it has none); throws when promtool cannot be run. */
export function promtoolProblems(text: string): string {
  const checked = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8', timeout: 30_000 });
  if (checked.error !== undefined) {
    throw new Error(
      `promtool could not be run (${checked.error.message}): install Prometheus's promtool (Debian/Ubuntu: apt-get install prometheus) so the metrics text can be checked.`,
    );
  }
  if (checked.status === 0) return '';
  if (checked.status === null) return `promtool was stopped (${String(checked.signal)})`;
  const problems = `${checked.stdout}${checked.stderr}`
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !PROM_CLIENT_NAMES.test(line));
  // A non-zero exit with nothing left to say was only about those three names.
  return problems.join('\n');
}

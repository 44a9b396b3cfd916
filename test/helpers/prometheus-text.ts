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
  return `${checked.stdout}${checked.stderr}`.trim() || `promtool exited with ${checked.status} and said nothing`;
}

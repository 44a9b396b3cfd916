import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Four projects (docs/architecture.md, "Tests"), one per folder of test/, and `slow` across them:
 * - `unit`: test/unit, no service, no render, no browser, no built CLI: the edit loop
 *   (`npm run test:unit`, under a minute);
 * - `integration`: test/integration, PostgreSQL and S3 started by the tests, job stores shared by
 *   several processes, the server against real services;
 * - `e2e`: test/e2e, the built CLI (`bin/immoreel.js` runs dist/), a real `immoreel serve`, the
 *   Studio in Chromium;
 * - `slow`: every `*.slow.test.ts`, wherever it mirrors src/: the tests that render real videos.
 * `npm test` runs them all. `npm run test:unit` adds `--no-isolate --maxWorkers=2` (package.json):
 * the unit files share two processes instead of starting one each, which is most of their time.
 */
const SLOW = 'test/**/*.slow.test.ts';
const notSlow = [...configDefaults.exclude, SLOW];

export default defineConfig({
  test: {
    // Renders and CLI spawns are real processes: give them room on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], exclude: notSlow } },
      { extends: true, test: { name: 'integration', include: ['test/integration/**/*.test.ts'], exclude: notSlow } },
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], exclude: notSlow } },
      { extends: true, test: { name: 'slow', include: [SLOW] } },
    ],
  },
});

import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Two projects (docs/architecture.md, "Tests"): `slow` holds the files that render real videos
 * (`*.slow.test.ts`), `fast` everything else. `npm run test:fast` is the edit loop; `npm test`
 * runs both.
 */
const SLOW = 'test/**/*.slow.test.ts';

export default defineConfig({
  test: {
    // Renders and CLI spawns are real processes: give them room on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, SLOW] } },
      { extends: true, test: { name: 'slow', include: [SLOW] } },
    ],
  },
});

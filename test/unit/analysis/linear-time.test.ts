import { describe, expect, it } from 'vitest';
import { ENTRY_POINTS, PATHOLOGICAL } from '../../../scripts/adversarial.js';

/**
 * Analysis time grows linearly with the input (docs/security.md): 8× the text costs less than
 * 16× the time, on every pathological input and through every entry point. A ratio, not a time
 * limit, so a busy machine does not fail it; a super-linear pattern (64× for quadratic) does.
 */

/**
 * The least CPU time (user + system) this process spent in one of `runs` calls, in ms. Not wall
 * time: on a busy machine (other processes, or the other unit tests' process) a call can wait
 * for a core longer than it computes, and only the computing grows with the input.
 */
async function fastestMs(run: () => Promise<unknown>, runs: number): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < runs; i += 1) {
    const start = process.cpuUsage();
    await run();
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

const SMALL = 6_000;
const LARGE = SMALL * 8;
/** Below this, timings are mostly noise: a 1 ms small case must not demand a 16 ms large one. */
const FLOOR_MS = 3;

describe('analysis time is linear in the input', () => {
  for (const entry of ENTRY_POINTS) {
    it(`through ${entry.name}: 8× the input costs < 16× the time`, async () => {
      const slow: string[] = [];
      for (const input of PATHOLOGICAL) {
        const small = input.make(SMALL);
        const large = input.make(LARGE);
        await entry.run(small); // warm-up: compiled code, caches
        let ratio = Infinity;
        // A noisy machine can spoil one measurement; a super-linear pattern fails every one.
        for (let attempt = 0; attempt < 3 && ratio >= 16; attempt += 1) {
          const smallMs = Math.max(FLOOR_MS, await fastestMs(() => entry.run(small), 3));
          const largeMs = await fastestMs(() => entry.run(large), 3);
          ratio = largeMs / smallMs;
        }
        if (ratio >= 16) slow.push(`${input.name}: ${ratio.toFixed(1)}×`);
      }
      expect(slow).toEqual([]);
    }, 180_000);
  }
});

import { describe, expect, it } from 'vitest';
import { JOB_STATES } from '../../../src/core/types.js';
import { parseAge } from '../../../src/jobs/age.js';
import { assertJobId, isJobId, newJobId } from '../../../src/core/job-ids.js';
import { assertTransition, canTransition, IllegalTransitionError, isTerminal } from '../../../src/core/job-state.js';

describe('job ids', () => {
  it('are job_ + 26 base32 characters and sort in creation order, even within one millisecond', () => {
    const ids = Array.from({ length: 500 }, () => newJobId());
    for (const id of ids) expect(id).toMatch(/^job_[0-9a-hjkmnp-tv-z]{26}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    // The first 10 characters are the creation time in milliseconds.
    const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';
    const time = [...ids.at(-1)!.slice(4, 14)].reduce((t, c) => t * 32 + alphabet.indexOf(c), 0);
    expect(Math.abs(time - Date.now())).toBeLessThan(5000);
  });

  it('rejects anything else before it reaches SQL or the file system', () => {
    for (const bad of [
      '../../etc/passwd',
      'job_',
      'JOB_01JABCDEFGHJKMNPQRSTVWXYZ0',
      "job_01' OR 1=1 --",
      `job_${'a'.repeat(27)}`,
      'job_0123456789abcdefghijklmnop',
    ]) {
      expect(isJobId(bad)).toBe(false);
      expect(() => assertJobId(bad)).toThrow(/is not a job id/);
    }
    expect(() => assertJobId(42)).toThrow(/is not a job id/);
  });
});

describe('state machine', () => {
  it("allows exactly the edges of docs/jobs.md plus the re-queue of a dead worker's job", () => {
    const allowed = JOB_STATES.flatMap((from) => JOB_STATES.filter((to) => canTransition(from, to)).map((to) => `${from}→${to}`));
    expect(allowed.sort()).toEqual(
      ['queued→canceled', 'queued→running', 'running→canceled', 'running→failed', 'running→queued', 'running→succeeded'].sort(),
    );
  });

  it('never lets a terminal state change, and says which edge was illegal', () => {
    for (const from of ['succeeded', 'failed', 'canceled'] as const) {
      expect(isTerminal(from)).toBe(true);
      for (const to of JOB_STATES) expect(() => assertTransition('job_x', from, to)).toThrow(IllegalTransitionError);
    }
    expect(() => assertTransition('job_x', 'canceled', 'succeeded')).toThrow(
      'Illegal job state transition canceled → succeeded for job_x.',
    );
    expect(() => assertTransition('job_x', 'queued', 'succeeded')).toThrow(IllegalTransitionError);
  });
});

describe('parseAge', () => {
  it('reads purge ages and explains bad ones', () => {
    expect(parseAge('30d')).toBe(30 * 86_400_000);
    expect(parseAge('12h')).toBe(12 * 3_600_000);
    expect(parseAge('0s')).toBe(0);
    expect(() => parseAge('30 days')).toThrow(/e\.g\. 30d/);
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { FetchStage } from '../../../src/jobs/fetch-stage.js';

/* The fetch stage's places against colluding tenants (docs/scaling.md "Fairness"). */

function never(): Promise<void> {
  return new Promise(() => undefined);
}

describe('the fetch stage', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sets slow fetches aside, so that four colluding tenants no longer fill its places', async () => {
    vi.useFakeTimers();
    const stage = new FetchStage(2, 10_000, 64);
    let freed = 0;
    stage.onSlow = () => (freed += 1);
    // Four tenants, two slow jobs each: the 8 places of a pool of 4 render slots.
    for (const tenant of ['a', 'b', 'c', 'd']) {
      for (let i = 0; i < 2; i++) {
        stage.hold(tenant);
        void stage.run(tenant, never);
      }
    }
    expect(stage.size).toBe(8);
    expect(stage.fullTenants().sort()).toEqual(['a', 'b', 'c', 'd']);
    await vi.advanceTimersByTimeAsync(10_000);
    // Still counted in each tenant's share, but no longer in the places another tenant needs.
    expect({ size: stage.size, slow: stage.slowCount, freed }).toEqual({ size: 0, slow: 8, freed: 8 });
    expect(stage.fullTenants().sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('gives the place back when a slow fetch ends, and sets aside no more than its cap', async () => {
    vi.useFakeTimers();
    const stage = new FetchStage(2, 1000, 1);
    let finish = (): void => undefined;
    const release = stage.hold('a');
    const first = stage.run('a', () => new Promise<void>((resolve) => (finish = resolve)));
    stage.hold('b');
    void stage.run('b', never);
    await vi.advanceTimersByTimeAsync(1000);
    expect({ size: stage.size, slow: stage.slowCount }).toEqual({ size: 1, slow: 1 });
    finish();
    await first;
    release();
    expect({ size: stage.size, slow: stage.slowCount }).toEqual({ size: 1, slow: 0 });
  });
});

describe('a job that ran out of its fetch budget', () => {
  it('carries reason fetch_budget_exceeded in its error, from its stored code and message', async () => {
    const { fetchBudgetError } = await import('../../../src/jobs/fetch-stage.js');
    const { jobErrorReason } = await import('../../../src/core/job-errors.js');
    const failure = fetchBudgetError(120_000, ['https://slow.example/a.jpg']);
    expect(failure.reason).toBe('fetch_budget_exceeded');
    // What the job row keeps is the code and the message: the reason is known from them.
    expect(jobErrorReason(failure.code, failure.message)).toBe('fetch_budget_exceeded');
    expect(jobErrorReason('UPSTREAM_ERROR', 'The portal could not be fetched.')).toBeUndefined();
    expect(jobErrorReason('RENDER_FAILED', failure.message)).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.js';
import { waitForBackends } from '../../../src/records/startup-wait.js';

/** The start-up wait's rules (docs/operations.md "Start-up") on a fake clock: what is waited for, and for how long. */

function clock() {
  let now = 0;
  const slept: number[] = [];
  return {
    now: () => now,
    sleep: (ms: number) => {
      slept.push(ms);
      now += ms;
      return Promise.resolve();
    },
    slept,
  };
}

const refused = (): AppError =>
  new AppError('SERVICE_UNAVAILABLE', 'PostgreSQL is unreachable at postgres://u:***@db:5432/x (ECONNREFUSED): check the host.', {
    reason: 'database_unreachable',
    cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
  });

describe('waitForBackends', () => {
  it('tries again while the database is not reachable yet, saying why, and returns once it is', async () => {
    const time = clock();
    const notes: string[] = [];
    let tries = 0;
    const opened = await waitForBackends(
      () => {
        tries += 1;
        if (tries < 3) return Promise.reject(refused());
        return Promise.resolve('backends');
      },
      { budgetMs: 120_000, note: (m) => notes.push(m), ...time },
    );
    expect(opened).toBe('backends');
    expect(notes).toHaveLength(2);
    expect(notes[0]).toMatch(/^database not reachable yet \(connection refused\); retrying in (0\.\d|1) s \(waited 0 s of 120 s\)$/);
    // Backoff with jitter: about 1 s, then about 2 s.
    expect(time.slept[0]).toBeGreaterThanOrEqual(750);
    expect(time.slept[1]).toBeGreaterThanOrEqual(1500);
  });

  it('waits for a PostgreSQL that is still starting up (57P03), a raw driver error', async () => {
    const time = clock();
    const notes: string[] = [];
    let tries = 0;
    await waitForBackends(
      () => {
        tries += 1;
        return tries < 2
          ? Promise.reject(Object.assign(new Error('the database system is starting up'), { code: '57P03' }))
          : Promise.resolve(1);
      },
      { budgetMs: 60_000, note: (m) => notes.push(m), ...time },
    );
    expect(notes[0]).toMatch(/^database not reachable yet \(the server is starting up\)/);
  });

  it('gives up at the end of the budget with exit 6, saying how long it waited', async () => {
    const time = clock();
    const error = (await waitForBackends(() => Promise.reject(refused()), { budgetMs: 30_000, note: () => undefined, ...time }).catch(
      (e: unknown) => e,
    )) as AppError;
    expect(error.exitCode).toBe(6);
    expect(error.reason).toBe('database_unreachable');
    expect(error.message).toMatch(
      /check the host\. Gave up after waiting 30 s for it \(--startup-wait \/ IMMOREEL_STARTUP_WAIT_SECONDS, now 30 s\)\.$/,
    );
    expect(time.now()).toBe(30_000);
  });

  it('fails at once with a budget of 0, and on anything waiting cannot cure', async () => {
    const time = clock();
    const once = await waitForBackends(() => Promise.reject(refused()), { budgetMs: 0, note: () => undefined, ...time }).catch(
      (e: unknown) => e,
    );
    expect((once as AppError).message).not.toContain('Gave up');
    const credentials = new AppError('UNAUTHORIZED', 'PostgreSQL refused the credentials.', { reason: 'database_credentials' });
    const refusedAtOnce = await waitForBackends(() => Promise.reject(credentials), {
      budgetMs: 120_000,
      note: () => undefined,
      ...time,
    }).catch((e: unknown) => e);
    expect(refusedAtOnce).toBe(credentials);
    expect(time.slept).toEqual([]);
  });
});

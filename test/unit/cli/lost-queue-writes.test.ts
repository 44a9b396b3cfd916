import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** A worker or API node outlives a queue write lost to a database outage, and nothing else (docs/operations.md "Outages"). */

const SCRIPT = fileURLToPath(new URL('../../helpers/unhandled-rejection.ts', import.meta.url));
const run = (kind: string): ReturnType<typeof spawnSync> =>
  spawnSync(process.execPath, ['--import', 'tsx', SCRIPT, kind], { encoding: 'utf8', timeout: 30_000 });

describe('an unhandled rejection', () => {
  it('from a database outage is reported and the process carries on', () => {
    const result = run('outage');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('ALIVE');
    expect(result.stderr).toContain('a queue write was lost while the database was unavailable');
  });

  it('of any other kind still ends the process with the error', () => {
    const result = run('bug');
    expect(result.status).not.toBe(0);
    expect(result.stdout).not.toContain('ALIVE');
    expect(result.stderr).toContain('a bug nobody handled');
  });
});

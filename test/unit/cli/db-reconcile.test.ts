import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parsePeriod } from '../../../src/cli/commands/db.js';
import { main } from '../../../src/cli/run.js';
import { newJobId } from '../../../src/core/job-ids.js';
import { periodOf } from '../../../src/records/quota.js';
import { openSqliteRecordStore } from '../../../src/records/sqlite/index.js';
import { validateRenderRequest } from '../../../src/render/render-rules.js';

/** `immoreel db reconcile` (docs/operations.md "Reconcile the books") on the data directory's SQLite file. */

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function reconcile(dataDir: string, ...args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  const code = await main(['node', 'immoreel', 'db', 'reconcile', '--data-dir', dataDir, '--json', ...args], {});
  vi.restoreAllMocks();
  return { code, out };
}

describe('db reconcile', () => {
  it('reports no difference when every unit is on a job, and exits 1 naming a unit charged without one', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'immoreel-reconcile-'));
    dirs.push(dataDir);
    const period = periodOf(Date.now());
    const store = openSqliteRecordStore(dataDir);
    try {
      await store.jobs.insert({
        jobId: newJobId(),
        tenant: 'acme',
        request: validateRenderRequest({ description: 'Villa 300 m² à Marrakech', photos: ['https://cdn.example.com/a.jpg'] }, 'server'),
        inputHash: 'h'.repeat(64),
        allowLocalFiles: false,
        linkBase: '/api/v1',
        charge: { keyId: 'key_a', period, route: 'render_video', units: 2, limit: 10 },
      });
      // Analyses are charged with their answers, not on jobs: not part of the comparison.
      await store.usage.charge({ keyId: 'key_a', period, route: 'analyze', units: 1, limit: 10 });
    } finally {
      await store.close();
    }
    const balanced = await reconcile(dataDir);
    expect(balanced.code).toBe(0);
    expect(JSON.parse(balanced.out)).toMatchObject({ ok: true, period, keys: [{ key_id: 'key_a', used: 2, charged: 2, difference: 0 }] });

    const again = openSqliteRecordStore(dataDir);
    await again.usage.charge({ keyId: 'key_a', period, route: 'render_video', units: 1, limit: 10 });
    await again.close();
    const differing = await reconcile(dataDir, '--period', 'all');
    expect(differing.code).toBe(1);
    const envelope = JSON.parse(differing.out) as { ok: boolean; error: { reason: string; details: { field: string; message: string }[] } };
    expect(envelope).toMatchObject({ ok: false, error: { reason: 'books_differ' } });
    expect(envelope.error.details).toEqual([{ field: `key_a ${period}`, message: 'quota used 3, units on jobs 2 (difference 1)' }]);
  });

  it('reads --period as YYYY-MM or all, and says what it takes otherwise', () => {
    const now = Date.UTC(2026, 10, 28);
    expect(parsePeriod(undefined, now)).toBe('2026-11');
    expect(parsePeriod('2026-02', now)).toBe('2026-02');
    expect(parsePeriod('all', now)).toBeNull();
    expect(() => parsePeriod('2026-13', now)).toThrow(/YYYY-MM/);
    expect(() => parsePeriod('November', now)).toThrow(/YYYY-MM/);
  });
});

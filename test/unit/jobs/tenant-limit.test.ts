import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { openRecordStore, type RecordStore } from '../../../src/records/index.js';
import { checkTenantLimit as check } from '../../helpers/tenant-limit.js';

/**
 * At most 30 renders of one tenant run at once across every worker (docs/jobs.md "Worker pool"):
 * a claim passes over a tenant that has 30 running, on both backends, however many claim at once.
 */

describe('the limit of running renders per tenant', () => {
  it('holds on SQLite', async () => {
    const store: RecordStore = await openRecordStore({ dataDir: mkdtempSync(join(tmpdir(), 'immoreel-limit-')) });
    try {
      await check(store.jobs);
    } finally {
      await store.close();
    }
  });
});

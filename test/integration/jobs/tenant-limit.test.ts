import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { JobRecords } from '../../../src/records/job-rows.js';
import { openRecordStore, type RecordStore } from '../../../src/records/index.js';
import { startPostgres, type PostgresServer } from '../../helpers/services.js';
import { checkTenantLimit as check } from '../../helpers/tenant-limit.js';

/**
 * At most 30 renders of one tenant run at once across every worker (docs/jobs.md "Worker pool"):
 * a claim passes over a tenant that has 30 running, on both backends, however many claim at once.
 */

let postgres: PostgresServer;
beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);
afterAll(async () => {
  await postgres?.stop();
});

describe('the limit of running renders per tenant', () => {
  it('holds on PostgreSQL across concurrent claimers', async () => {
    const databaseUrl = await postgres.createDatabase();
    const stores = await Promise.all(
      [0, 1].map(() => openRecordStore({ databaseUrl, dataDir: mkdtempSync(join(tmpdir(), 'immoreel-limit-')) })),
    );
    try {
      // Two nodes' connection pools claiming alternately.
      const [a, b] = stores as [RecordStore, RecordStore];
      let turn = 0;
      const both: JobRecords = {
        ...a.jobs,
        insert: (j) => a.jobs.insert(j),
        count: (t, s) => a.jobs.count(t, s),
        transition: (id, to, patch, guard) => a.jobs.transition(id, to, patch, guard),
        claimNext: (owner, lease, only) => ((turn += 1) % 2 === 0 ? a.jobs : b.jobs).claimNext(owner, lease, only),
      };
      await check(both);
    } finally {
      for (const store of stores) await store.close();
    }
  });
});

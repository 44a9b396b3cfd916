import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newJobId } from '../../../src/core/job-ids.js';
import { openDatabase } from '../../../src/records/sqlite/driver.js';
import { openSqliteRecordStore } from '../../../src/records/sqlite/index.js';
import { validateRenderRequest } from '../../../src/render/render-rules.js';

/** The migration that puts each job's quota charge on the job (docs/operations.md "Reconcile the books"). */

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('jobs migration 3 on a data directory written before it', () => {
  it('moves the charge of a job still open from server_job_charges onto the job', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'immoreel-charge-migration-'));
    dirs.push(dataDir);
    const jobId = newJobId();
    const store = openSqliteRecordStore(dataDir);
    await store.jobs.insert({
      jobId,
      tenant: 'acme',
      request: validateRenderRequest({ description: 'Villa 300 m² à Marrakech', photos: ['https://cdn.example.com/a.jpg'] }, 'server'),
      inputHash: 'h'.repeat(64),
      allowLocalFiles: false,
      linkBase: '/api/v1',
    });
    await store.close();
    // The file as the version before wrote it: no charge columns, the open charge in its own table.
    const db = openDatabase(dataDir);
    db.exec(`
      DROP INDEX jobs_by_charge;
      ALTER TABLE jobs DROP COLUMN units;
      ALTER TABLE jobs DROP COLUMN charge_key_id;
      ALTER TABLE jobs DROP COLUMN charge_period;
      ALTER TABLE jobs DROP COLUMN refunded_at;
      UPDATE schema_migrations SET version = 2 WHERE component = 'jobs';
    `);
    db.prepare('INSERT INTO server_job_charges (job_id, key_id, period, route) VALUES (?, ?, ?, ?)').run(
      jobId,
      'key_x',
      '2026-11',
      'render_video',
    );
    db.close();

    const migrated = openSqliteRecordStore(dataDir);
    try {
      expect(await migrated.jobs.row(jobId)).toMatchObject({
        units: 1,
        charge_key_id: 'key_x',
        charge_period: '2026-11',
        refunded_at: null,
      });
      const check = openDatabase(dataDir);
      expect(check.prepare('SELECT COUNT(*) AS n FROM server_job_charges').get()).toEqual({ n: 0 });
      check.close();
    } finally {
      await migrated.close();
    }
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresRecordStore, type PostgresRecordStore } from '../../../src/records/postgres/index.js';
import { withTransaction } from '../../../src/records/postgres/connection.js';
import { outageOf } from '../../../src/records/outage.js';
import { openSqliteRecordStore } from '../../../src/records/sqlite/index.js';
import { describeRecordStoreContract, describeRecordStoresAgree, now, type OpenRecordStore } from '../../helpers/record-store-contract.js';
import { startPostgres, type PostgresServer } from '../../helpers/services.js';

/**
 * The record store contract on PostgreSQL (test/unit/records runs it on SQLite), then both
 * backends side by side: the same history gives the same answers.
 */

let postgres: PostgresServer;
let root: string;

beforeAll(async () => {
  postgres = await startPostgres();
  root = await mkdtemp(join(tmpdir(), 'immoreel-records-'));
});

afterAll(async () => {
  await postgres?.stop();
  if (root !== undefined) await rm(root, { recursive: true, force: true });
});

let counter = 0;
const sqlite: [string, OpenRecordStore] = ['SQLite', async () => openSqliteRecordStore(join(root, `sqlite-${(counter += 1)}`), { now })];
const postgresql: [string, OpenRecordStore] = [
  'PostgreSQL',
  async () => openPostgresRecordStore(await postgres.createDatabase(), { dataDir: join(root, `pg-${(counter += 1)}`), now }),
];

describeRecordStoreContract([postgresql]);
describeRecordStoresAgree([sqlite, postgresql]);

describe('a PostgreSQL connection lost inside a transaction', () => {
  it('fails that transaction with an outage error and ends no process', async () => {
    const store = await openPostgresRecordStore(await postgres.createDatabase(), { dataDir: join(root, `pg-${(counter += 1)}`), now });
    const pool = (store as PostgresRecordStore).pool;
    try {
      const failure = await withTransaction(pool, async (client) => {
        const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        // The server ends this connection while the client sits idle in its transaction, as
        // `pg_ctl stop -m fast` does: node-postgres emits 'error' on the checked-out client.
        await pool.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
        await new Promise((resolve) => setTimeout(resolve, 300));
        await client.query('SELECT 1');
      }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(outageOf(failure)).toBe('database');
      // The broken connection went away with its transaction: the pool serves the next one.
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1);
    } finally {
      await store.close();
    }
  });
});

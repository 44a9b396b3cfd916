import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { openPostgresRecordStore } from '../../../src/records/postgres/index.js';
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

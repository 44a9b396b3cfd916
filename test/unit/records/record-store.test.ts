import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { openSqliteRecordStore } from '../../../src/records/sqlite/index.js';
import { describeRecordStoreContract, now } from '../../helpers/record-store-contract.js';

/** The record store contract on SQLite; test/integration/records runs it on PostgreSQL. */

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'immoreel-records-'));
});

afterAll(async () => {
  if (root !== undefined) await rm(root, { recursive: true, force: true });
});

let counter = 0;
describeRecordStoreContract([['SQLite', async () => openSqliteRecordStore(join(root, `sqlite-${(counter += 1)}`), { now })]]);

import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, openSqlite, SQLITE_DRIVER, sqliteDatabaseClass, sqliteDriverFor } from '../../../src/records/sqlite/driver.js';

// The SQLite driver per Node major (docs/dependencies.md "SQLite on Node 20, 22 and 24").
const require = createRequire(import.meta.url);
const nodeMajor = Number(process.versions.node.split('.')[0]);

/**
 * The collector, as `node --expose-gc` would give it (vitest's workers run without the flag): a
 * context created after the V8 flag is set gets the `gc` global.
 */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('SQLite driver', () => {
  it('is better-sqlite3 11 below Node 24 and better-sqlite3 13 (Node-API) from Node 24 on', () => {
    expect(sqliteDriverFor('20.19.0')).toBe('better-sqlite3');
    expect(sqliteDriverFor('22.12.0')).toBe('better-sqlite3');
    expect(sqliteDriverFor('22.22.1')).toBe('better-sqlite3');
    expect(sqliteDriverFor('24.0.0')).toBe('better-sqlite3-napi');
    expect(sqliteDriverFor('25.2.1')).toBe('better-sqlite3-napi');
  });

  it('the running Node loads the driver meant for it, and only that one', () => {
    const expected = nodeMajor >= 24 ? 'better-sqlite3-napi' : 'better-sqlite3';
    expect(SQLITE_DRIVER).toBe(expected);
    // The class db.ts hands out is the module of that package (one module cache per process).
    expect(sqliteDatabaseClass()).toBe(require(expected));
    const { version } = require(`${expected}/package.json`) as { version: string };
    expect(Number(version.split('.')[0])).toBe(nodeMajor >= 24 ? 13 : 11);
  });

  it('a database opened, written, garbage-collected under load and closed keeps every row', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'immoreel-sqlite-driver-'));
    dirs.push(dataDir);
    const gc = collector();
    const db = openDatabase(dataDir);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, label TEXT NOT NULL)');
    const insertMany = db.transaction((from: number) => {
      // A new statement per row, dropped at once: the garbage collector frees them while the
      // database is open, where better-sqlite3 11 aborts the process on Node 24.
      for (let i = from; i < from + 250; i += 1) {
        db.prepare('INSERT INTO t (n, label) VALUES (@n, @label)').run({ n: Number.MAX_SAFE_INTEGER - i, label: `row ${i}` });
      }
    });
    for (let round = 0; round < 40; round += 1) {
      insertMany.immediate(round * 250);
      expect(db.prepare('SELECT count(*) AS c FROM t').get()).toEqual({ c: (round + 1) * 250 });
      gc();
    }
    const last = db.prepare('SELECT id, n, label FROM t WHERE id = (SELECT max(id) FROM t)').get();
    // Integers come back as JavaScript numbers, exact up to 2^53 - 1.
    expect(last).toEqual({ id: 10_000, n: Number.MAX_SAFE_INTEGER - 9_999, label: 'row 9999' });
    const info = db.prepare('INSERT INTO t (n, label) VALUES (?, ?)').run(1, 'one more');
    expect(info).toEqual({ changes: 1, lastInsertRowid: 10_001 });
    gc();
    db.close();
    expect(db.open).toBe(false);
    gc();

    const again = openSqlite(join(dataDir, 'immoreel.db'), { readonly: true, fileMustExist: true });
    try {
      expect(again.prepare('SELECT count(*) AS c, sum(n = 1) AS ones FROM t').get()).toEqual({ c: 10_001, ones: 1 });
      expect(again.prepare('SELECT label FROM t ORDER BY id').all().slice(0, 2)).toEqual([{ label: 'row 0' }, { label: 'row 1' }]);
    } finally {
      again.close();
    }
  });
});

import { chmodSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { PRIVATE_FILE_MODE, securePrivateDir } from '../../core/paths.js';

export type Db = Database.Database;

/**
 * The npm package that provides SQLite on a given Node (docs/dependencies.md "SQLite on Node 20,
 * 22 and 24"): better-sqlite3 11, built from source for the running Node, on Node 20 and 22;
 * better-sqlite3 13 (Node-API, prebuilt, installed under the alias `better-sqlite3-napi`) from
 * Node 24 on, where 11 aborts the process when the garbage collector frees a statement. 13
 * cannot serve Node 20 (no Node-API 10: it crashes on the first `new Database`) nor Node 22
 * before 22.14, so the line is drawn at the major version.
 */
export type SqliteDriver = 'better-sqlite3' | 'better-sqlite3-napi';

/** The first Node major on which better-sqlite3 13 is used (see {@link SqliteDriver}). */
export const NAPI_DRIVER_FROM_NODE_MAJOR = 24;

/** The driver for a Node version such as `process.versions.node` ("24.1.0"). Pure. */
export function sqliteDriverFor(nodeVersion: string): SqliteDriver {
  const major = Number.parseInt(nodeVersion, 10);
  return major >= NAPI_DRIVER_FROM_NODE_MAJOR ? 'better-sqlite3-napi' : 'better-sqlite3';
}

/** The driver this process uses. */
export const SQLITE_DRIVER: SqliteDriver = sqliteDriverFor(process.versions.node);

let loaded: typeof Database | undefined;

/**
 * The `Database` class of this process's driver, loaded on first use (commands that never open
 * the store never load a native addon). Both majors have the API we use — prepare, run/get/all,
 * exec, transaction().immediate(), pragma, open, close, named `@param`s, integers as numbers —
 * so one TypeScript type (@types/better-sqlite3) describes both. Every SQLite handle in the
 * project is made here: nothing else imports a driver.
 */
export function sqliteDatabaseClass(): typeof Database {
  // createRequire: both packages are CommonJS, and the choice is made at run time. The cast is
  // the one place where the alias is given the typings of the package it aliases.
  loaded ??= createRequire(import.meta.url)(SQLITE_DRIVER) as typeof Database;
  return loaded;
}

/** Opens a SQLite database file through this process's driver (see {@link sqliteDatabaseClass}). */
export function openSqlite(file: string, options?: Database.Options): Db {
  const SqliteDatabase = sqliteDatabaseClass();
  return new SqliteDatabase(file, options);
}

/**
 * Opens (creating if needed) the SQLite store of a data directory, in WAL mode. The directory is
 * private (0700) and the database file 0600 before WAL mode is set: SQLite gives its WAL and
 * shared-memory files the database file's mode (docs/security.md).
 */
export function openDatabase(dataDir: string): Db {
  const tightened = securePrivateDir(dataDir);
  // Said only when the directory itself was open to others (a data directory from an older
  // version, or made by hand). Inside a private directory, files that renders write with the
  // default umask (ffmpeg's and the image library's outputs) are out of other users' reach
  // already: they are tightened without a word, or every render would be followed by a notice.
  if (tightened.includes(dataDir)) {
    process.emitWarning(
      `${tightened.length} file(s) and folder(s) in ${dataDir} were readable by other users of this machine; they are now private to you (folders 0700, files 0600).`,
      { type: 'Notice', code: 'IMMOREEL_DATA_DIR_TIGHTENED' },
    );
  }
  const file = join(dataDir, 'immoreel.db');
  const db = openSqlite(file);
  // Private before WAL mode creates the -wal and -shm files, which take the database's mode. By
  // path, not through a file descriptor: closing any descriptor of the file would drop the
  // POSIX locks SQLite holds on it in this process (another connection may have it open).
  chmodSync(file, PRIVATE_FILE_MODE);
  db.pragma('journal_mode = WAL');
  // Several CLI processes may share one data directory (cron + a manual run): wait for locks.
  db.pragma('busy_timeout = 10000');
  db.pragma('foreign_keys = ON');
  db.pragma('synchronous = NORMAL');
  return db;
}

/** One schema change: applied once, in order, inside a transaction. */
export type Migration = (db: Db) => void;

/**
 * Applies the migrations of one component (`jobs`, `server`, …) not yet applied. Each component
 * keeps its own version, so the job store and the server's tables evolve independently.
 */
export function migrate(db: Db, component: string, migrations: Migration[]): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (component TEXT PRIMARY KEY, version INTEGER NOT NULL)');
  const apply = db.transaction(() => {
    const row = db.prepare('SELECT version FROM schema_migrations WHERE component = ?').get(component) as { version: number } | undefined;
    const current = row?.version ?? 0;
    for (let v = current; v < migrations.length; v += 1) migrations[v]!(db);
    if (migrations.length > current) {
      db.prepare(
        'INSERT INTO schema_migrations (component, version) VALUES (?, ?) ON CONFLICT(component) DO UPDATE SET version = excluded.version',
      ).run(component, migrations.length);
    }
  });
  // IMMEDIATE: two processes starting at once must not both apply the same migration.
  apply.immediate();
}

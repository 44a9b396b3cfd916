import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { PRIVATE_FILE_MODE, securePrivateDir } from '../core/paths.js';

export type Db = Database.Database;

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
  const db = new Database(file);
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

/**
 * What differs between the two SQL backends (docs/scaling.md "Record store"), named once so the
 * tables in ./tables.ts are written once for both. Everything not listed here is written the same
 * way in SQLite and PostgreSQL.
 */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /** A 64-bit integer: millisecond times, byte sizes. SQLite's INTEGER already holds 64 bits. */
  readonly int64: string;
  /** A double-precision float. */
  readonly float: string;
}

export const SQLITE_DIALECT: Dialect = { name: 'sqlite', int64: 'INTEGER', float: 'REAL' };
export const POSTGRES_DIALECT: Dialect = { name: 'postgres', int64: 'BIGINT', float: 'DOUBLE PRECISION' };

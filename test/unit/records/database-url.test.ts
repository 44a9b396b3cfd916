import { describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../../src/records/index.js';

describe('database URL', () => {
  it('means SQLite when unset, PostgreSQL for postgres:// and postgresql://', () => {
    expect(parseDatabaseUrl(undefined)).toEqual({ kind: 'sqlite' });
    expect(parseDatabaseUrl('  ')).toEqual({ kind: 'sqlite' });
    expect(parseDatabaseUrl('postgres://u:p@db.internal:5432/immoreel')).toEqual({
      kind: 'postgres',
      url: 'postgres://u:p@db.internal:5432/immoreel',
    });
    expect(parseDatabaseUrl('postgresql://db/immoreel?sslmode=require').kind).toBe('postgres');
  });

  it('refuses other schemes and malformed URLs with what to write instead, never echoing a password', () => {
    expect(() => parseDatabaseUrl('mysql://u:p@h/db')).toThrow(/Unsupported database URL "mysql:\/\/…": use postgres:\/\//);
    expect(() => parseDatabaseUrl('/var/lib/immoreel.db')).toThrow(/leave --database-url unset/);
    let message = '';
    try {
      parseDatabaseUrl('postgres://user:hunter2@/');
    } catch (error) {
      message = (error as Error).message;
      expect(error).toMatchObject({ exitCode: 2, reason: 'database_url_invalid' });
    }
    expect(message).toMatch(/Invalid database URL/);
    expect(message).not.toContain('hunter2');
  });
});

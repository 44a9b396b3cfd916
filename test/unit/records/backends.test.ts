import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.js';
import { migrationProblem, planBackends, type BackendOptions } from '../../../src/records/backends.js';
import { redactUrl } from '../../../src/records/postgres/connection.js';

/** The configuration rules of docs/scaling.md "Configuration", decided without touching the network. */

const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'immoreel-plan-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function refusal(options: BackendOptions): AppError {
  try {
    planBackends(options);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('the configuration was accepted');
}

const PG = 'postgres://immoreel:hunter2-secret@db.internal:5432/immoreel';

describe('planBackends', () => {
  it('keeps the embedded default: SQLite and files in the data directory, nothing to say', () => {
    const dir = dataDir();
    const plan = planBackends({ dataDir: dir, env: {} });
    expect(plan.database).toEqual({ kind: 'sqlite' });
    expect(plan.storage).toEqual({ kind: 'local', dir });
    expect(plan.warnings).toEqual([]);
  });

  it('refuses PostgreSQL without a storage URL: a data directory is not shared between machines (exit 2)', () => {
    const error = refusal({ dataDir: dataDir(), databaseUrl: PG, env: {} });
    expect(error.exitCode).toBe(2);
    expect(error.reason).toBe('storage_url_required');
    expect(error.message).toContain('--storage-url');
    expect(error.message).toContain('s3://BUCKET/PREFIX');
    expect(error.message).not.toContain('hunter2');
  });

  it('accepts PostgreSQL with a directory named on purpose, and warns that every machine must mount it', () => {
    const plan = planBackends({ dataDir: dataDir(), databaseUrl: PG, storageUrl: 'file:///mnt/shared/immoreel', env: {} });
    expect(plan.storage).toEqual({ kind: 'local', dir: '/mnt/shared/immoreel' });
    expect(plan.warnings.join('\n')).toMatch(/every immoreel serve and worker .* must see this same directory/);
    expect(plan.databaseLabel).toBe('PostgreSQL postgres://immoreel:***@db.internal:5432/immoreel');
  });

  it('says the SQLite file of the data directory is not used with PostgreSQL', () => {
    const dir = dataDir();
    writeFileSync(join(dir, 'immoreel.db'), '');
    const plan = planBackends({ dataDir: dir, databaseUrl: PG, storageUrl: 's3://videos', env: { AWS_REGION: 'eu-west-3' } });
    expect(plan.warnings.join('\n')).toContain('immoreel.db');
    expect(plan.warnings.join('\n')).toContain('nothing in it is copied');
  });

  it('refuses SQLite settings on a PostgreSQL URL', () => {
    const error = refusal({ dataDir: dataDir(), databaseUrl: `${PG}?journal_mode=WAL&sslmode=require`, storageUrl: 's3://videos' });
    expect(error.exitCode).toBe(2);
    expect(error.reason).toBe('sqlite_setting_with_postgres');
    expect(error.message).toContain('journal_mode');
    expect(error.message).toContain('SQLite setting (journal_mode)');
    expect(error.message).not.toContain('hunter2');
  });

  it.each(['sqlite:///var/lib/immoreel/immoreel.db', 'file:/data/immoreel.db', '/data/immoreel.db'])(
    'refuses an SQLite file as --database-url (%s) and points at --data-dir',
    (url) => {
      const error = refusal({ dataDir: dataDir(), databaseUrl: url });
      expect(error.exitCode).toBe(2);
      expect(error.message).toContain('--data-dir');
    },
  );

  it('refuses an S3 endpoint that is not a URL, naming the variable', () => {
    const error = refusal({ dataDir: dataDir(), storageUrl: 's3://videos', env: { AWS_ENDPOINT_URL_S3: 'minio:9000' } });
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain('AWS_ENDPOINT_URL_S3');
  });

  it('refuses half an S3 key pair (exit 4) and never prints the half it has', () => {
    const error = refusal({ dataDir: dataDir(), storageUrl: 's3://videos', env: { AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI-secret' } });
    expect(error.exitCode).toBe(4);
    expect(error.message).toContain('AWS_ACCESS_KEY_ID');
    expect(error.message).not.toContain('wJalrXUtnFEMI');
  });

  it('accepts S3 without keys in the environment (profiles, instance roles) and names the endpoint', () => {
    const plan = planBackends({
      dataDir: dataDir(),
      storageUrl: 's3://videos/prod',
      env: { AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9000' },
    });
    expect(plan.storage).toEqual({ kind: 's3', bucket: 'videos', prefix: 'prod' });
    expect(plan.storageLabel).toBe('s3://videos/prod at http://127.0.0.1:9000/');
  });
});

describe('redactUrl', () => {
  it('hides passwords in the user part and in the query', () => {
    const redacted = redactUrl('postgres://u:p%40ss@h/db?sslpassword=k3y&password=s3cret&sslmode=require');
    expect(redacted).not.toMatch(/p%40ss|k3y|s3cret/);
    expect(redacted).toContain('sslmode=require');
  });
});

describe('migrationProblem', () => {
  it('refuses a schema behind this version unless pending is allowed, and always one ahead of it', () => {
    expect(migrationProblem([{ component: 'jobs', applied: 3, available: 3 }])).toBeNull();
    expect(migrationProblem([{ component: 'jobs', applied: 1, available: 3 }])?.reason).toBe('database_migrations_pending');
    expect(migrationProblem([{ component: 'jobs', applied: 1, available: 3 }], true)).toBeNull();
    const newer = migrationProblem([{ component: 'server', applied: 4, available: 2 }], true);
    expect(newer?.reason).toBe('database_schema_newer');
    expect(newer?.message).toContain('upgrade immoreel');
  });
});

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pgDriver from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PgClient = pgDriver.Client;
import { REPO_ROOT, assertBuiltCliIsFresh, runCli, type CliResult } from '../../helpers/cli.js';
import { freePort, startPostgres, startS3, type PostgresServer, type S3Server } from '../../helpers/services.js';

/**
 * Configuration and operations through the built CLI (`node bin/immoreel.js`), against a real
 * PostgreSQL (password authentication) and a real S3 server (s3rver): every bad configuration of
 * docs/scaling.md "Configuration" gives its message and exit code, and no password or secret key
 * ever reaches stdout or stderr.
 */

const PASSWORD = 'Pg-pass-9f3c1e7a';
const WRONG_PASSWORD = 'Wrong-pass-77ab02';
const WRONG_SECRET = 'Wrong-secret-5e8d41';

let pg: PostgresServer;
let s3: S3Server;
let dataDir: string;

beforeAll(async () => {
  // Started on loopback by the test; if either cannot start, the test fails with the reason.
  [pg, s3] = await Promise.all([startPostgres({ password: PASSWORD }), startS3('immoreel-cli')]);
  dataDir = mkdtempSync(join(tmpdir(), 'immoreel-backends-'));
}, 120_000);

afterAll(async () => {
  await Promise.all([pg?.stop(), s3?.stop()]);
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
});

/** The CLI with this test's data directory and only the environment given (no stray AWS_* or IMMOREEL_*). */
async function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const result = await runCli(['--data-dir', dataDir, ...args], { env, timeoutMs: 90_000 });
  const all = result.stdout + result.stderr;
  for (const secret of [PASSWORD, WRONG_PASSWORD, WRONG_SECRET, encodeURIComponent(PASSWORD)]) expect(all).not.toContain(secret);
  return result;
}

function urlOf(database: string, password = PASSWORD, port = pg.port): string {
  return `postgres://postgres:${password}@127.0.0.1:${port}/${database}`;
}

async function newDatabase(): Promise<string> {
  const url = await pg.createDatabase();
  return new URL(url).pathname.slice(1);
}

describe('bad configuration: message and exit code before anything starts', () => {
  it('an unreachable database (a closed port) exits 6 and names host and port', async () => {
    const port = await freePort();
    const result = await cli(['db', 'status', '--database-url', urlOf('postgres', PASSWORD, port)]);
    expect(result.code).toBe(6);
    expect(result.stderr).toContain(`PostgreSQL is unreachable at postgres://postgres:***@127.0.0.1:${port}/postgres`);
  });

  it('a wrong password exits 4', async () => {
    const result = await cli(['db', 'migrate', '--database-url', urlOf('postgres', WRONG_PASSWORD)]);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('PostgreSQL refused the credentials');
    expect(result.stderr).toContain('check the user name and password');
  });

  it('a database that does not exist exits 2 and says to create it', async () => {
    const result = await cli(['db', 'status'], { IMMOREEL_DATABASE_URL: urlOf('no_such_db') });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/The database in postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/no_such_db does not exist: create it/);
  });

  it('malformed and unsupported database URLs exit 2 with what to write', async () => {
    const bad = await cli(['db', 'status', '--database-url', `postgres://postgres:${PASSWORD}@127.0.0.1:99999/db`]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('write postgres://USER:PASSWORD@HOST:PORT/DATABASE');
    const mysql = await cli(['db', 'status', '--database-url', `mysql://root:${PASSWORD}@127.0.0.1/db`]);
    expect(mysql.code).toBe(2);
    expect(mysql.stderr).toContain('Unsupported database URL');
    const sqlite = await cli(['keys', 'list', '--database-url', 'sqlite:///var/lib/immoreel.db']);
    expect(sqlite.code).toBe(2);
    expect(sqlite.stderr).toContain('Leave --database-url unset and choose the directory with --data-dir');
  });

  it('TLS asked of a server without it exits 2 and names sslmode', async () => {
    const result = await cli(['db', 'status', '--database-url', `${urlOf('postgres')}?sslmode=require`]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('could not agree on TLS');
    expect(result.stderr).toContain('sslmode');
  });

  it('SQLite settings on a postgres:// URL exit 2', async () => {
    const result = await cli(['db', 'status', '--database-url', `${urlOf('postgres')}?journal_mode=WAL`]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('carries SQLite setting (journal_mode)');
  });

  it('PostgreSQL records with no storage URL are refused for a command that serves (exit 2), and nothing listens', async () => {
    const result = await cli(['serve', '--port', '0', '--database-url', urlOf(await newDatabase())]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('photos and videos must be where every API node and worker can read them');
    expect(result.stderr).not.toContain('listening');
  });

  it('a missing bucket exits 2, naming the bucket', async () => {
    const result = await cli(['worker', '--until-idle', '--storage-url', 's3://no-such-bucket/videos'], s3.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('The bucket no-such-bucket does not exist');
  });

  it('wrong S3 credentials exit 4, and the secret is never printed', async () => {
    const result = await cli(['worker', '--until-idle', '--storage-url', `s3://${s3.bucket}`], {
      ...s3.env,
      // s3rver checks the key id; a right id with a wrong secret is answered 500 there, unlike AWS (see test/integration/blobs).
      AWS_ACCESS_KEY_ID: 'WRONGKEYID',
      AWS_SECRET_ACCESS_KEY: WRONG_SECRET,
    });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('The storage refused our credentials');
  });

  it('an unreachable S3 endpoint is waited for (docs/operations.md "Start-up"), then exits 6', async () => {
    const port = await freePort();
    const result = await cli(['worker', '--until-idle', '--storage-url', `s3://${s3.bucket}`], {
      ...s3.env,
      AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${port}`,
      IMMOREEL_STARTUP_WAIT_SECONDS: '2',
    });
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(/warning: storage not reachable yet \([^)]+\); retrying in [\d.]+ s \(waited \d s of 2 s\)/);
    expect(result.stderr).toContain('The storage endpoint is unreachable');
    expect(result.stderr).toContain('Gave up after waiting 2 s for it (--startup-wait / IMMOREEL_STARTUP_WAIT_SECONDS, now 2 s).');
  });

  it('a malformed storage URL exits 2', async () => {
    const result = await cli(['worker', '--until-idle', '--storage-url', 's3://Bad_Bucket/x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is not a valid S3 bucket name');
  });

  it('--database-url with --base-url is refused (it would be ignored)', async () => {
    const result = await cli(['--base-url', 'http://127.0.0.1:9', 'jobs', 'list', '--database-url', urlOf('postgres')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--database-url configures this machine');
  });
});

describe('db migrate and db status', () => {
  it('status shows pending versions, migrate applies them, a second migrate does nothing', async () => {
    const env = { IMMOREEL_DATABASE_URL: urlOf(await newDatabase()) };
    const before = await cli(['db', 'status', '--json'], env);
    expect(before.code).toBe(0);
    const beforeJson = JSON.parse(before.stdout) as {
      backend: string;
      up_to_date: boolean;
      components: { component: string; applied: number; pending: number[] }[];
    };
    expect(beforeJson.backend).toBe('postgres');
    expect(beforeJson.up_to_date).toBe(false);
    expect(beforeJson.components.map((c) => c.component)).toEqual(['jobs', 'server', 'pgboss']);
    for (const c of beforeJson.components) {
      expect(c.applied).toBe(0);
      expect(c.pending.length).toBeGreaterThan(0);
    }

    const first = await cli(['db', 'migrate'], env);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/applied jobs 1/);
    expect(first.stdout).toContain('pgboss');

    const second = await cli(['db', 'migrate', '--json'], env);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ ok: true, applied: [] });

    const after = await cli(['db', 'status'], env);
    expect(after.code).toBe(0);
    expect(after.stdout).toMatch(/jobs\s+version (\d+) of \1\s+up to date/);
    expect(after.stdout).toMatch(/server\s+version (\d+) of \1\s+up to date/);
    expect(after.stdout).toMatch(/pgboss\s+version (\d+) of \1\s+up to date/);
  });

  it('several db migrate at once on one database are safe: all succeed and the schema is applied once', async () => {
    const env = { IMMOREEL_DATABASE_URL: urlOf(await newDatabase()) };
    const runs = await Promise.all([1, 2, 3, 4].map(() => cli(['db', 'migrate', '--json'], env)));
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    // Each version is reported applied by exactly one of them; the others found nothing to do.
    const reports = runs.map((run) => JSON.parse(run.stdout) as { applied: { component: string; from: number; to: number }[] });
    for (const component of ['jobs', 'server', 'pgboss']) {
      const claims = reports.flatMap((report) => report.applied.filter((change) => change.component === component));
      expect(claims, component).toHaveLength(1);
      expect(claims[0]!.from, component).toBe(0);
    }
    expect(reports.filter((report) => report.applied.length === 0).length).toBeGreaterThanOrEqual(1);
    const status = JSON.parse((await cli(['db', 'status', '--json'], env)).stdout) as { up_to_date: boolean };
    expect(status.up_to_date).toBe(true);
  });

  it('a role without CREATE on schema public is told the grant that works on PostgreSQL 15', async () => {
    const database = await newDatabase();
    const admin = new PgClient({ connectionString: urlOf(database) });
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE weak LOGIN PASSWORD '${PASSWORD}'`);
      await admin.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`);
    } finally {
      await admin.end();
    }
    const result = await cli(['db', 'migrate', '--database-url', `postgres://weak:${PASSWORD}@127.0.0.1:${pg.port}/${database}`]);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('GRANT CREATE ON SCHEMA public TO');
  });

  it('works on the embedded SQLite file too, and status never creates it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'immoreel-sqlite-db-'));
    try {
      const before = await runCli(['--data-dir', dir, 'db', 'status', '--json']);
      expect(before.code).toBe(0);
      const json = JSON.parse(before.stdout) as { backend: string; components: { component: string; applied: number }[] };
      expect(json.backend).toBe('sqlite');
      expect(json.components.map((c) => [c.component, c.applied])).toEqual([
        ['jobs', 0],
        ['server', 0],
      ]);
      const migrated = await runCli(['--data-dir', dir, 'db', 'migrate']);
      expect(migrated.code).toBe(0);
      expect(migrated.stdout).toContain('applied jobs 1');
      const again = await runCli(['--data-dir', dir, 'db', 'migrate']);
      expect(again.stdout).toContain('nothing to migrate');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('keys on PostgreSQL', () => {
  it('keys create and list go to the database named by --database-url', async () => {
    const url = urlOf(await newDatabase());
    const created = await cli(['keys', 'create', '--tenant', 'acme', '--json', '--database-url', url]);
    expect(created.code, created.stderr).toBe(0);
    const listed = await cli(['keys', 'list', '--json'], { IMMOREEL_DATABASE_URL: url });
    expect(JSON.parse(listed.stdout).keys.map((k: { tenant: string }) => k.tenant)).toEqual(['acme']);
    // The data directory's own SQLite file has none.
    const local = await cli(['keys', 'list', '--json']);
    expect(JSON.parse(local.stdout).keys).toEqual([]);
  });
});

describe('doctor', () => {
  it('checks the database and the bucket when they are configured', async () => {
    const env = { ...s3.env, IMMOREEL_DATABASE_URL: urlOf(await newDatabase()), IMMOREEL_STORAGE_URL: `s3://${s3.bucket}/doctor-test` };
    const result = await cli(['doctor', '--json'], env);
    const checks = (JSON.parse(result.stdout) as { checks: { name: string; ok: boolean; detail: string }[] }).checks;
    const byName = new Map(checks.map((c) => [c.name, c]));
    expect(byName.get('database')).toMatchObject({ ok: true });
    expect(byName.get('migrations')?.detail).toContain('pending');
    expect(byName.get('storage')).toMatchObject({ ok: true });
    expect(byName.get('storage write')).toMatchObject({ ok: true, detail: 'a probe object was written, read back and deleted' });
  });

  it('says once, in doctor, what the AWS SDK would print on every run; --quiet commands on S3 print nothing on stderr', async () => {
    const env = { ...s3.env, IMMOREEL_DATABASE_URL: urlOf(await newDatabase()), IMMOREEL_STORAGE_URL: `s3://${s3.bucket}/quiet-test` };
    // The data directory holds an SQLite file, which PostgreSQL leaves unused: a note, silenced by --quiet.
    expect((await cli(['keys', 'list'])).code).toBe(0);
    expect(existsSync(join(dataDir, 'immoreel.db'))).toBe(true);
    const noted = await cli(['--json', 'jobs', 'list'], env);
    expect(noted.stderr).toMatch(/not used/);
    const listed = await cli(['--quiet', '--json', 'jobs', 'list'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toBe('');
    const checked = await cli(['doctor', '--json'], env);
    const node = (JSON.parse(checked.stdout) as { checks: { name: string; detail: string }[] }).checks.find((c) => c.name === 'node');
    expect(node?.detail).toContain(`Node ${process.version}`);
    if (Number(process.versions.node.split('.')[0]) < 22) expect(node?.detail).toMatch(/AWS SDK releases after January 2027 need Node 22/);
  });

  it('reports a wrong password and a missing bucket as failed checks (exit 1), secrets hidden', async () => {
    const env = { ...s3.env, AWS_ACCESS_KEY_ID: 'WRONGKEYID', AWS_SECRET_ACCESS_KEY: WRONG_SECRET };
    const result = await cli(['doctor', '--database-url', urlOf('postgres', WRONG_PASSWORD), '--storage-url', 's3://no-such-bucket'], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/✘ database\s+PostgreSQL refused the credentials/);
    expect(result.stdout).toMatch(/✘ storage\s+/);
    expect(result.stderr).toContain('checks failed');
  });
});

describe('a good configuration', () => {
  it('serve opens, checks and migrates both before listening, and logs them without the password', async () => {
    assertBuiltCliIsFresh();
    const env = {
      ...process.env,
      ...s3.env,
      IMMOREEL_DATABASE_URL: urlOf(await newDatabase()),
      IMMOREEL_STORAGE_URL: `s3://${s3.bucket}/serve`,
    };
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/immoreel.js'), '--data-dir', dataDir, 'serve', '--port', '0'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 60_000);
      const poll = setInterval(() => {
        if (output.includes('"event":"listening"')) {
          clearInterval(poll);
          clearTimeout(timer);
          resolve();
        }
      }, 100);
      void exited.then((code) => {
        clearInterval(poll);
        clearTimeout(timer);
        reject(new Error(`serve exited with ${String(code)}:\n${output}`));
      });
    });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toMatch(
      /records: PostgreSQL postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/\w+; blobs: s3:\/\/immoreel-cli\/serve at http:\/\/127\.0\.0\.1:\d+/,
    );
    expect(output).not.toContain(PASSWORD);
    // s3rver's key id and secret are both "S3RVER": neither is ever printed.
    expect(output).not.toContain(s3.secretAccessKey);
    // Migrated at start: status finds nothing pending.
    const status = JSON.parse((await cli(['db', 'status', '--json'], { IMMOREEL_DATABASE_URL: env.IMMOREEL_DATABASE_URL })).stdout) as {
      components: { component: string; pending: number[] }[];
    };
    expect(status.components.filter((c) => c.component !== 'pgboss').every((c) => c.pending.length === 0)).toBe(true);
  }, 90_000);

  it('worker names what it uses and warns that a directory must be shared by every machine', async () => {
    const shared = mkdtempSync(join(tmpdir(), 'immoreel-shared-'));
    try {
      const result = await cli(['worker', '--until-idle', '--storage-url', `file://${shared}`], {
        IMMOREEL_DATABASE_URL: urlOf(await newDatabase()),
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain(`Photos and videos are kept in the directory ${shared}`);
      expect(result.stderr).toContain('must see this same directory');
      expect(result.stderr).toMatch(/Records and blobs: records: PostgreSQL postgres:\/\/postgres:\*\*\*@/);
    } finally {
      rmSync(shared, { recursive: true, force: true });
    }
  });
});

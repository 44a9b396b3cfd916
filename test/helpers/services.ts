import { spawn, type ChildProcess } from 'node:child_process';
import { chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { appendFileSync, existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/**
 * Real services for tests, started on loopback in a temporary directory and torn down after
 * (docs/scaling.md "Tests"). A service that cannot start throws with the reason — tests that need
 * it fail, they never skip.
 */

/** Runs a command to its end; rejects with its output when it exits non-zero. */
function run(command: string, args: string[], options: { env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', (error) => reject(new Error(`could not run ${command}: ${error.message}`)));
    child.on('close', (code) => {
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')} exited with ${String(code)}:\n${output.trim()}`));
    });
  });
}

/** A port the kernel just handed out on 127.0.0.1 (free now; the service binds it next). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL
// ---------------------------------------------------------------------------------------------

export const MIN_POSTGRES_MAJOR = 15;

/**
 * The directory of `initdb`/`pg_ctl`: `IMMOREEL_PG_BINDIR` if set, else the newest
 * `/usr/lib/postgresql/<major>/bin` (Debian's layout: its `postgresql` package does not put them
 * on PATH), else PATH.
 */
export function postgresBinDir(): string {
  const fromEnv = process.env.IMMOREEL_PG_BINDIR;
  if (fromEnv !== undefined && fromEnv !== '') {
    if (!existsSync(join(fromEnv, 'initdb'))) throw new Error(`IMMOREEL_PG_BINDIR=${fromEnv} holds no initdb.`);
    return fromEnv;
  }
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root)
        .map(Number)
        .filter((m) => Number.isInteger(m) && existsSync(join(root, String(m), 'bin', 'initdb')))
        .sort((a, b) => b - a)
    : [];
  if (majors.length > 0) {
    if (majors[0]! < MIN_POSTGRES_MAJOR) {
      throw new Error(
        `PostgreSQL ${majors[0]} is installed, the tests need ${MIN_POSTGRES_MAJOR} or newer: run scripts/install-system-deps.sh.`,
      );
    }
    return join(root, String(majors[0]), 'bin');
  }
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir !== '' && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  throw new Error('PostgreSQL is not installed (no initdb found): run scripts/install-system-deps.sh, or set IMMOREEL_PG_BINDIR.');
}

export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` (trust authentication on loopback). */
  url: string;
  port: number;
  /** A fresh, empty database on this server; returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Stops the server as an operator's restart does (fast shutdown: connections are cut); the data stays. */
  halt(): Promise<void>;
  /** Starts it again on the same port with the same data. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

let databaseCounter = 0;

/**
 * Starts a throw-away PostgreSQL cluster: `initdb` into a temporary directory, `pg_ctl start` on
 * a free loopback port with its Unix socket in that directory, fsync off (tests need speed, not
 * durability). The server refuses to run as root, so as root both run as the `postgres` user.
 */
export async function startPostgres(options: { password?: string } = {}): Promise<PostgresServer> {
  const bin = postgresBinDir();
  const asRoot = userInfo().uid === 0;
  const dir = await mkdtemp(join(tmpdir(), 'immoreel-pg-'));
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  const as = (command: string, args: string[]): Promise<string> =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, command), ...args]) : run(join(bin, command), args);
  let started = false;
  // With a password: TCP connections must present it (SCRAM), as on a production server; the Unix socket stays trusted.
  const pwfile = join(dir, 'password');
  const auth =
    options.password === undefined ? ['--auth=trust'] : ['--auth-local=trust', '--auth-host=scram-sha-256', `--pwfile=${pwfile}`];
  try {
    if (options.password !== undefined) await writeFile(pwfile, `${options.password}\n`, { mode: 0o600 });
    if (asRoot) {
      const pgUser = await run('id', ['-u', 'postgres']).catch(() => {
        throw new Error(
          "Running as root, but there is no `postgres` user to run PostgreSQL as: install Debian's postgresql package (scripts/install-system-deps.sh).",
        );
      });
      const gid = Number((await run('id', ['-g', 'postgres'])).trim());
      await chown(dir, Number(pgUser.trim()), gid);
      if (options.password !== undefined) await chown(pwfile, Number(pgUser.trim()), gid);
    }
    await as('initdb', ['-D', dataDir, '-U', 'postgres', ...auth, '--encoding=UTF8', '--no-locale', '--no-sync']);
    const port = await freePort();
    const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
    const pgStart = (): Promise<string> =>
      as('pg_ctl', ['start', '-D', dataDir, '-l', logFile, '-w', '-t', '30', '-o', serverOptions]).catch(async (error: unknown) => {
        const log = await readFile(logFile, 'utf8').catch(() => '');
        throw new Error(`PostgreSQL did not start: ${(error as Error).message}\n${log.trim().split('\n').slice(-10).join('\n')}`);
      });
    await pgStart();
    started = true;
    const user = options.password === undefined ? 'postgres' : `postgres:${encodeURIComponent(options.password)}`;
    const url = `postgres://${user}@127.0.0.1:${port}/postgres`;
    return {
      url,
      port,
      async createDatabase(name) {
        databaseCounter += 1;
        const database = name ?? `test_${process.pid}_${databaseCounter}`;
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          // CREATE DATABASE cannot run inside a transaction block: one statement per query.
          await client.query(`CREATE DATABASE "${database.replace(/"/g, '')}"`);
        } finally {
          await client.end();
        }
        return `postgres://${user}@127.0.0.1:${port}/${database}`;
      },
      async halt() {
        await as('pg_ctl', ['stop', '-D', dataDir, '-m', 'fast', '-w']);
      },
      async resume() {
        await pgStart();
      },
      async stop() {
        await as('pg_ctl', ['stop', '-D', dataDir, '-m', 'immediate', '-w']).catch(() => undefined);
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    if (started) await as('pg_ctl', ['stop', '-D', dataDir, '-m', 'immediate', '-w']).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// S3 (s3rver)
// ---------------------------------------------------------------------------------------------

const S3RVER_BIN = fileURLToPath(new URL('../../node_modules/s3rver/bin/s3rver.js', import.meta.url));

export interface S3Server {
  /** `http://127.0.0.1:PORT` — what `AWS_ENDPOINT_URL_S3` is set to. */
  endpoint: string;
  bucket: string;
  /** s3rver accepts exactly these credentials (its built-in account). */
  accessKeyId: string;
  secretAccessKey: string;
  /** The AWS_* variables that point the SDK (or a spawned CLI) at this server. */
  env: Record<string, string>;
  /** Stops the server (connections refused from then on); the bucket's files stay. */
  halt(): Promise<void>;
  /** Starts it again on the same port with the same files. */
  resume(): Promise<void>;
  /** Freezes the server (SIGSTOP): the kernel still accepts connections, nothing answers them. */
  freeze(): void;
  /** Lets a frozen server run again (SIGCONT). */
  thaw(): void;
  stop(): Promise<void>;
}

/**
 * Starts `s3rver` (an S3-protocol server storing files on disk, from the npm registry) as a child
 * process on a free loopback port, with `bucket` created; it speaks the same protocol the service
 * uses against AWS S3, MinIO or R2 in production.
 */
/** One s3rver process on `port` (0: any free port) serving `dir`; resolves with the process and its port. */
async function spawnS3rver(dir: string, bucket: string, port: number): Promise<{ child: ChildProcess; port: number }> {
  // IMMOREEL_TEST_S3_LOG=FILE keeps s3rver's request log and errors there (docs/scaling.md "Tests").
  const log = process.env.IMMOREEL_TEST_S3_LOG || undefined;
  const child: ChildProcess = spawn(
    process.execPath,
    [
      // s3rver signs continuation tokens with DES, which OpenSSL 3 keeps in its legacy provider:
      // without it every truncated listing (more keys than MaxKeys) answers 500.
      '--openssl-legacy-provider',
      S3RVER_BIN,
      ...['-d', dir, '-a', '127.0.0.1', '-p', String(port), '--no-vhost-buckets', '--configure-bucket', bucket],
      ...(log === undefined ? ['--silent'] : []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  if (log !== undefined) {
    const append = (chunk: Buffer): void => appendFileSync(log, chunk);
    child.stdout!.on('data', append);
    child.stderr!.on('data', append);
  }
  let output = '';
  const listening = await new Promise<number>((resolve, reject) => {
    // Generous: on a loaded 2-core machine Node alone can take 15 s to start s3rver (a restart mid-test too).
    const timer = setTimeout(() => reject(new Error(`s3rver did not start within 45 s:\n${output}`)), 45_000);
    const onData = (d: Buffer): void => {
      output += d.toString();
      const match = /listening on [\d.]+:(\d+)/.exec(output);
      if (match !== null) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`s3rver could not be spawned: ${error.message}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`s3rver exited with ${String(code)} before listening:\n${output}`));
    });
  }).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  return { child, port: listening };
}

async function endS3rver(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/**
 * Starts `s3rver` (an S3-protocol server storing files on disk, from the npm registry) as a child
 * process on a free loopback port, with `bucket` created; it speaks the same protocol the service
 * uses against AWS S3, MinIO or R2 in production.
 */
export async function startS3(bucket = 'immoreel-test'): Promise<S3Server> {
  if (!existsSync(S3RVER_BIN)) throw new Error('s3rver is not installed: run `npm ci` (it is a devDependency).');
  const dir = await mkdtemp(join(tmpdir(), 'immoreel-s3-'));
  let child: ChildProcess;
  let port: number;
  try {
    ({ child, port } = await spawnS3rver(dir, bucket, 0));
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const endpoint = `http://127.0.0.1:${port}`;
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  return {
    endpoint,
    bucket,
    ...credentials,
    env: {
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_REGION: 'us-east-1',
    },
    async halt() {
      await endS3rver(child);
    },
    async resume() {
      ({ child } = await spawnS3rver(dir, bucket, port));
    },
    freeze() {
      child.kill('SIGSTOP');
    },
    thaw() {
      child.kill('SIGCONT');
    },
    async stop() {
      // A frozen server would not see its SIGTERM.
      child.kill('SIGCONT');
      await endS3rver(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

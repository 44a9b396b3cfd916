import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { Webhook } from 'standardwebhooks';
import type { S3Server } from './services.js';

/**
 * A several-machine immoreel on one machine, for the multi-process test and `npm run bench:scale`
 * (docs/scaling.md "Tests"): `immoreel serve` and `immoreel worker` processes of the built CLI,
 * each in its own process group so that a kill takes its ffmpeg renders along (a machine that
 * dies loses its renders too), a webhook receiver that checks signatures, and a bucket listing
 * that does not go through the project's own BlobStore.
 */

export const BIN = fileURLToPath(new URL('../../bin/immoreel.js', import.meta.url));
const run = promisify(execFile);

export interface ClusterProcess {
  /** `api-a`, `worker-2`, … (named in failure messages). */
  name: string;
  pid: number;
  child: ChildProcess;
  /** Everything it wrote to stderr so far (JSON log lines and messages). */
  stderr(): string;
  /** Everything it wrote to stdout so far. */
  stdout(): string;
  /** Resolves when it has exited (code, or the signal that ended it). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** True once it has exited. */
  hasExited(): boolean;
  /** Sends `signal` to its whole process group (it and the ffmpeg processes it started). */
  signalGroup(signal: NodeJS.Signals): void;
}

export interface SpawnOptions {
  env?: Record<string, string | undefined>;
  /** Resolve only once stderr matches this (e.g. the `listening` log line of `serve`). */
  readyWhen?: RegExp;
  readyTimeoutMs?: number;
}

/**
 * Every process the test started, so that teardown stops them all and can prove none is left
 * (no orphan ffmpeg either: each process leads its own group and the group is what is checked).
 */
export class ProcessSet {
  private readonly processes: ClusterProcess[] = [];
  /** Exits nobody asked for (a crash, a refused flag): the test fails on them with the output. */
  private readonly expected = new Set<number>();

  all(): readonly ClusterProcess[] {
    return this.processes;
  }

  /** `node bin/immoreel.js …args` in a new process group. */
  spawn(name: string, args: string[], options: SpawnOptions = {}): Promise<ClusterProcess> {
    return this.spawnCommand(name, process.execPath, [BIN, ...args], options);
  }

  /** Any command in a new process group (the harness's own tests use small scripts). */
  async spawnCommand(name: string, command: string, args: string[], options: SpawnOptions = {}): Promise<ClusterProcess> {
    const child = spawn(command, args, {
      env: { ...process.env, NO_COLOR: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    if (child.pid === undefined) {
      const error = await new Promise<Error>((resolve) => child.once('error', resolve));
      throw new Error(`${name} could not be spawned: ${error.message}`);
    }
    let stderr = '';
    let stdout = '';
    let exitedFlag = false;
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => {
        exitedFlag = true;
        resolve({ code, signal });
      }),
    );
    const pid = child.pid;
    const retired = this.retired;
    void exited.then(() => this.retireWhenEmpty(pid));
    const proc: ClusterProcess = {
      name,
      pid,
      child,
      stderr: () => stderr,
      stdout: () => stdout,
      exited,
      hasExited: () => exitedFlag,
      signalGroup(signal) {
        // A group that emptied may have had its id given to someone else's process since.
        if (retired.has(pid)) return;
        try {
          process.kill(-pid, signal);
        } catch (error) {
          // ESRCH: the group is already gone, which is what the signal was for.
          if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
        }
      },
    };
    this.processes.push(proc);
    if (options.readyWhen !== undefined) {
      const ready = options.readyWhen;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${name} was not ready within ${options.readyTimeoutMs ?? 60_000} ms:\n${stderr}`)),
          options.readyTimeoutMs ?? 60_000,
        );
        const check = (): void => {
          if (ready.test(stderr)) {
            clearTimeout(timer);
            child.stderr!.off('data', check);
            resolve();
          }
        };
        child.stderr!.on('data', check);
        check();
        void exited.then(({ code, signal }) => {
          clearTimeout(timer);
          reject(new Error(`${name} exited (${code ?? signal}) before it was ready:\n${stderr}`));
        });
      });
    }
    return proc;
  }

  /**
   * Process groups that are known empty. This machine's pid_max may be small (32768), so a group
   * id can be reused by another user's process minutes after our group emptied: such a group is
   * never signalled or reported again. A group with a member left (an orphaned ffmpeg) keeps its
   * id reserved by the kernel, so signalling it stays safe.
   */
  private readonly retired = new Set<number>();

  private async retireWhenEmpty(pgid: number): Promise<void> {
    // Children killed with their leader take a moment to go.
    for (let i = 0; i < 20; i += 1) {
      if ((await groupCommands(pgid)).length === 0) {
        this.retired.add(pgid);
        return;
      }
      await sleep(100);
    }
  }

  /** Marks an exit as intended (a stop or a kill the test makes), so it is not reported as a crash. */
  expectExit(proc: ClusterProcess): void {
    this.expected.add(proc.pid);
  }

  /** Processes that exited although nobody stopped them, with their output (for the failure message). */
  crashed(): string[] {
    return this.processes
      .filter((p) => p.hasExited() && !this.expected.has(p.pid))
      .map((p) => `${p.name} (pid ${p.pid}) exited unexpectedly:\n${p.stderr().trim().split('\n').slice(-20).join('\n')}`);
  }

  /** Throws when a process crashed: a wait would otherwise run into its timeout with no reason. */
  assertNoneCrashed(): void {
    const crashed = this.crashed();
    if (crashed.length > 0) throw new Error(crashed.join('\n\n'));
  }

  /**
   * SIGTERM to every group still running, up to `graceMs` for them to exit, then SIGKILL to the
   * groups that are still there (their processes and ffmpeg children).
   */
  async stopAll(graceMs = 15_000): Promise<void> {
    const running = this.processes.filter((p) => !p.hasExited());
    for (const p of running) {
      this.expected.add(p.pid);
      p.signalGroup('SIGTERM');
    }
    const deadline = new Promise((resolve) => setTimeout(resolve, graceMs).unref());
    await Promise.race([Promise.all(running.map((p) => p.exited)), deadline]);
    for (const p of this.processes) p.signalGroup('SIGKILL');
    await Promise.all(running.map((p) => p.exited));
    // The groups may hold children (ffmpeg) that outlive their leader by a moment after SIGKILL.
    for (let i = 0; i < 50 && (await this.leftovers()).length > 0; i += 1) await sleep(100);
  }

  /** Processes still alive in any group this set started (`pid comm`), e.g. an orphaned ffmpeg. */
  async leftovers(): Promise<string[]> {
    const groups = new Set(this.processes.map((p) => p.pid).filter((pid) => !this.retired.has(pid)));
    if (groups.size === 0) return [];
    const { stdout } = await run('ps', ['-eo', 'pid=,pgid=,stat=,comm=']);
    return stdout
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter(([pid, pgid, stat]) => pid !== undefined && groups.has(Number(pgid)) && !stat?.startsWith('Z'))
      .map(([pid, , , comm]) => `${pid} ${comm ?? ''}`);
  }
}

/** The processes of a group, by command name (e.g. to see that a worker is running ffmpeg). */
export async function groupCommands(pgid: number): Promise<string[]> {
  const { stdout } = await run('ps', ['-eo', 'pgid=,comm=']);
  return stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([group]) => Number(group) === pgid)
    .map(([, comm]) => comm ?? '');
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every `everyMs` until it returns a value other than undefined; throws after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  options: { timeoutMs: number; everyMs?: number; processes?: ProcessSet },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    options.processes?.assertNoneCrashed();
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${what}`);
    await sleep(options.everyMs ?? 500);
  }
}

// ---------------------------------------------------------------------------------------------
// Webhooks
// ---------------------------------------------------------------------------------------------

export interface ReceivedEvent {
  /** `webhook-id`: stable across retries of one event (docs/api.md "Webhooks"). */
  messageId: string;
  type: string;
  jobId: string;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:PORT/hooks` */
  url: string;
  /** Events whose signature verified with the tenant's secret, in arrival order. */
  events: ReceivedEvent[];
  /** Deliveries refused: a bad signature or an unreadable body (each with the reason). */
  rejected: string[];
  close(): Promise<void>;
}

/** An HTTP receiver on loopback that verifies each delivery's Standard Webhooks signature. */
export async function startWebhookReceiver(secret: () => string): Promise<WebhookReceiver> {
  const events: ReceivedEvent[] = [];
  const rejected: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        const headers = {
          'webhook-id': String(request.headers['webhook-id'] ?? ''),
          'webhook-timestamp': String(request.headers['webhook-timestamp'] ?? ''),
          'webhook-signature': String(request.headers['webhook-signature'] ?? ''),
        };
        const payload = new Webhook(secret()).verify(body, headers) as { type: string; data: { job_id: string } };
        events.push({ messageId: headers['webhook-id'], type: payload.type, jobId: payload.data.job_id });
        response.writeHead(204).end();
      } catch (error) {
        rejected.push(`${(error as Error).message}: ${body.slice(0, 200)}`);
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    events,
    rejected,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// The bucket, seen directly
// ---------------------------------------------------------------------------------------------

export interface BucketObject {
  key: string;
  size: number;
}

/** Every object under `prefix` in the bucket, listed with the AWS SDK against the S3 server. */
export async function listBucket(s3: S3Server, prefix: string): Promise<BucketObject[]> {
  const client = new S3Client({
    endpoint: s3.endpoint,
    region: s3.env.AWS_REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });
  try {
    const objects: BucketObject[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const item of page.Contents ?? []) objects.push({ key: item.Key ?? '', size: item.Size ?? 0 });
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    return objects;
  } finally {
    client.destroy();
  }
}

/** The video objects (`…/jobs/<job_id>/output*.mp4`, docs/scaling.md "Topology") per job id. */
export function videosByJob(objects: BucketObject[]): Map<string, BucketObject[]> {
  const byJob = new Map<string, BucketObject[]>();
  for (const object of objects) {
    const match = /(?:^|\/)jobs\/(job_[0-9a-z]+)\/[^/]*\.mp4$/i.exec(object.key);
    if (match === null) continue;
    const list = byJob.get(match[1]!) ?? [];
    list.push(object);
    byJob.set(match[1]!, list);
  }
  return byJob;
}

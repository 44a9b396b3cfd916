import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRenderBatch } from '../../src/jobs/render-batch.js';
import { RemoteService } from '../../src/client/remote-service.js';
import type { JobRecord } from '../../src/core/types.js';
import { assertBuiltCliIsFresh, runCli, type CliResult } from '../helpers/cli.js';
import { expectPlayable720p60, probe } from '../helpers/probe.js';
import { LISTING_TEXT, makePhotos } from '../helpers/job-photos.js';
import { closedPort } from '../helpers/fake-server.js';
import { createKey, freshDataDir, type CreatedKey } from '../helpers/serve-process.js';

/*
 * renders in remote mode against the real `immoreel serve` (real engine, real ffmpeg):
 * render with wait and download, a job followed with `jobs wait` then `jobs download`, and a
 * server killed while the CLI polls (exit 6, clear message, the job still there after restart).
 */

const BIN = fileURLToPath(new URL('../../bin/immoreel.js', import.meta.url));
const RENDER_TIMEOUT = 15 * 60_000;

interface DetachedServer {
  url: string;
  child: ChildProcess;
  /** Kills the server and everything it started (its ffmpeg renders), like a power cut. */
  killHard(): Promise<void>;
  stop(): Promise<void>;
}

/** `immoreel serve` in its own process group, so that a hard kill takes its renders along. */
async function startServer(dataDir: string, port: number): Promise<DetachedServer> {
  const child = spawn(process.execPath, [BIN, '--data-dir', dataDir, 'serve', '--port', String(port), '--concurrency', '1'], {
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${stderr}`)), 30_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /"event":"listening","url":"([^"]+)"/.exec(stderr);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    void exited.then(() => reject(new Error(`serve exited:\n${stderr}`)));
  });
  return {
    url,
    child,
    async killHard() {
      process.kill(-child.pid!, 'SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM');
      await exited;
    },
  };
}

let work: string;
let dataDir: string;
let configDir: string;
let port: number;
let server: DetachedServer;
let key: CreatedKey;
let photos: string[];

function cli(args: string[], timeoutMs = RENDER_TIMEOUT): Promise<CliResult> {
  return runCli(['--profile', 'acme', ...args], {
    timeoutMs,
    // A killed server is waited for this long (docs/remote.md "Outages"), not the default two minutes.
    env: {
      IMMOREEL_CONFIG_DIR: configDir,
      IMMOREEL_API_KEY: undefined,
      IMMOREEL_BASE_URL: undefined,
      IMMOREEL_PROFILE: undefined,
      IMMOREEL_REMOTE_WAIT_SECONDS: '3',
    },
  });
}

/** Queues a render through the client library itself (local photo files are uploaded as assets). */
async function queueRender(): Promise<JobRecord> {
  const service = new RemoteService({ baseUrl: server.url, apiKey: key.api_key });
  try {
    return await service.renderVideo({ description: LISTING_TEXT, photos, music: 'none', duration_s: 10 });
  } finally {
    await service.close();
  }
}

async function jobNow(jobId: string): Promise<JobRecord> {
  const service = new RemoteService({ baseUrl: server.url, apiKey: key.api_key, retries: 0 });
  try {
    return await service.getJob(jobId);
  } finally {
    await service.close();
  }
}

const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

beforeAll(async () => {
  // A stale build fails every test here with that reason (they spawn bin/immoreel.js, which runs dist/).
  assertBuiltCliIsFresh();
  work = mkdtempSync(join(tmpdir(), 'immoreel-remote-render-'));
  configDir = join(work, 'config');
  dataDir = freshDataDir();
  photos = await makePhotos(join(work, 'photos'), 2, 800, 600);
  key = await createKey(dataDir, ['--tenant', 'acme']);
  port = await closedPort();
  server = await startServer(dataDir, port);
  const login = await runCli(['auth', 'login', '--base-url', server.url, '--profile', 'acme', '--api-key-stdin'], {
    input: key.api_key,
    env: { IMMOREEL_CONFIG_DIR: configDir },
  });
  if (login.code !== 0) throw new Error(`login failed: ${login.stderr}`);
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

describe('remote renders', () => {
  it('a job followed with `jobs wait`, then `jobs download` gives the verified video', { timeout: RENDER_TIMEOUT }, async () => {
    const queued = await queueRender();
    expect(queued.state).toBe('queued');
    const waited = await cli(['jobs', 'wait', queued.job_id, '--json']);
    expect(waited.stderr).toBe('');
    expect(waited.code).toBe(0);
    const job = (JSON.parse(waited.stdout) as { job: JobRecord }).job;
    expect(job.state).toBe('succeeded');

    const out = join(work, 'downloaded.mp4');
    const download = await cli(['jobs', 'download', job.job_id, '--out', out, '--poster', '--json']);
    expect(download.code).toBe(0);
    const poster = join(work, 'downloaded-poster.jpg');
    expect(JSON.parse(download.stdout)).toMatchObject({ ok: true, path: out, size_bytes: job.result!.size_bytes, poster });
    // The poster over HTTP: the title card's frame at the video's size.
    expect(await probe(poster)).toMatchObject({ videoCodec: 'mjpeg', width: 1280, height: 720 });
    expect(sha256(out)).toBe(job.result!.sha256.replace(/^sha256:/, ''));
    expect(existsSync(`${out}.part`)).toBe(false);
    expect(expectPlayable720p60(await probe(out))).toEqual([]);
  });

  it(
    '`render --profile P --photos … --out` waits and downloads the same MP4 contract as local mode',
    { timeout: RENDER_TIMEOUT },
    async () => {
      const out = join(work, 'render.mp4');
      const result = await cli([
        'render',
        '--description',
        LISTING_TEXT,
        '--photos',
        photos.join(','),
        '--duration',
        '10',
        '--music',
        'none',
        '--out',
        out,
      ]);
      expect(result.stderr).not.toContain('error');
      expect(result.code).toBe(0);
      expect(expectPlayable720p60(await probe(out))).toEqual([]);
    },
  );

  it('`render --profile P --demo --out x.mp4` (the issue’s must-show)', { timeout: RENDER_TIMEOUT }, async () => {
    const out = join(work, 'demo.mp4');
    const result = await cli(['render', '--demo', '--duration', '10', '--out', out]);
    expect(result.code).toBe(0);
    expect(expectPlayable720p60(await probe(out))).toEqual([]);
  });

  it('`render --no-wait` prints the job at once; `jobs wait` follows it to the end', { timeout: RENDER_TIMEOUT }, async () => {
    const started = await cli([
      'render',
      '--description',
      LISTING_TEXT,
      '--photos',
      photos.join(','),
      '--duration',
      '10',
      '--music',
      'none',
      '--no-wait',
      '--json',
    ]);
    expect(started.code).toBe(0);
    const queued = (JSON.parse(started.stdout) as { job: JobRecord }).job;
    expect(['queued', 'running']).toContain(queued.state);
    const waited = await cli(['jobs', 'wait', queued.job_id]);
    expect(waited.code).toBe(0);
  });

  it('a CSV batch run twice against the server renders each row once (derived Idempotency-Keys)', { timeout: RENDER_TIMEOUT }, async () => {
    const dir = join(work, 'batch');
    const csv = join(work, 'batch.csv');
    writeFileSync(
      csv,
      `id,description,photos\nvilla-1,"${LISTING_TEXT}",${photos[0]}\nvilla-2,"${LISTING_TEXT} Vue sur parc.",${photos.join('|')}\n`,
    );
    const runOnce = async (): Promise<{ id: string; job: JobRecord }[]> => {
      const records: { id: string; job?: JobRecord }[] = [];
      const service = new RemoteService({ baseUrl: server.url, apiKey: key.api_key, assetCacheFile: join(configDir, 'asset-cache.json') });
      try {
        await runRenderBatch(
          service,
          { csv, outDir: dir, resume: false, concurrency: 4, defaults: { music: 'none', duration_s: 10 } },
          { onRecord: (record) => records.push(record) },
        );
      } finally {
        await service.close();
      }
      return records.map((r) => ({ id: r.id, job: r.job as JobRecord }));
    };
    const before = (await cli(['jobs', 'list', '--limit', '100', '--json'], 60_000)).stdout;
    const countBefore = (JSON.parse(before) as { jobs: JobRecord[] }).jobs.length;
    const first = await runOnce();
    const second = await runOnce();
    expect(first.map((r) => r.job.state)).toEqual(['succeeded', 'succeeded']);
    const idsOf = (rows: { id: string; job: JobRecord }[]): Record<string, string> =>
      Object.fromEntries(rows.map((r) => [r.id, r.job.job_id]));
    expect(idsOf(second)).toEqual(idsOf(first));
    const after = JSON.parse((await cli(['jobs', 'list', '--limit', '100', '--json'], 60_000)).stdout) as { jobs: JobRecord[] };
    expect(after.jobs.length - countBefore).toBe(2);
    for (const row of second) expect(expectPlayable720p60(await probe(join(dir, `${row.id}.mp4`)))).toEqual([]);
  });

  it(
    'a server killed while the CLI polls: exit 6 with a clear message, and the job is still there after restart',
    { timeout: RENDER_TIMEOUT },
    async () => {
      const queued = await queueRender();
      const waiting = cli(['jobs', 'wait', queued.job_id]);
      // Kill it in the middle of the render, not before.
      const deadline = Date.now() + RENDER_TIMEOUT / 2;
      for (;;) {
        const job = await jobNow(queued.job_id);
        if (job.state === 'running' && job.stage === 'rendering') break;
        if (job.state !== 'queued' && job.state !== 'running') throw new Error(`job ended before the kill: ${JSON.stringify(job)}`);
        if (Date.now() > deadline) throw new Error('the job never started rendering');
        await new Promise((r) => setTimeout(r, 300));
      }
      await server.killHard();
      const lost = await waiting;
      expect(lost.code).toBe(6);
      expect(lost.stderr).toContain(`Lost contact with the immoreel server at ${server.url} while waiting for job ${queued.job_id}`);
      expect(lost.stderr).toContain(`immoreel jobs wait ${queued.job_id}`);

      server = await startServer(dataDir, port);
      const shown = await cli(['jobs', 'show', queued.job_id, '--json'], 60_000);
      expect(shown.code).toBe(0);
      expect((JSON.parse(shown.stdout) as { job: JobRecord }).job.job_id).toBe(queued.job_id);
      // Nothing lost: the restarted server takes the job up again and finishes it.
      const finished = await cli(['jobs', 'wait', queued.job_id, '--json']);
      expect(finished.code).toBe(0);
      const job = (JSON.parse(finished.stdout) as { job: JobRecord }).job;
      expect(job.state).toBe('succeeded');
      expect(job.attempts).toBeGreaterThanOrEqual(2);
    },
  );
});

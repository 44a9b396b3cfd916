import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { LocalService } from '../../src/service/local-service.js';
import { runCli } from '../helpers/cli.js';
import { fakeEngine, fakeRequest } from '../helpers/fake-engine.js';
import { TEST_FFMPEG } from '../helpers/config.js';

/*
 * The `jobs` commands as a user runs them (built CLI, real store). The jobs themselves are made
 * in-process with a stand-in engine: these tests are about the commands and their JSON shapes,
 * the real renders are in test/integration/jobs.
 */

let dataDir: string;
let succeeded: string;
let failed: string;
let queued: string;
let service: LocalService;

const cli = (...args: string[]) => runCli(['--data-dir', dataDir, ...args]);

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'immoreel-jobs-cli-'));
  const ok = new LocalService({ ffmpeg: TEST_FFMPEG, dataDir, engine: fakeEngine({ ms: 10 }), pollMs: 10 });
  succeeded = (await (await ok.jobs()).submit(fakeRequest({ metadata: { crm: 7 } }), { tenant: 'local' })).job_id;
  await ok.waitForJob(succeeded);
  await ok.close();
  const bad = new LocalService({
    ffmpeg: TEST_FFMPEG,
    dataDir,
    engine: fakeEngine({ ms: 10, fail: new AppError('BAD_REQUEST', 'None of the 2 photos could be read: photo-1.jpg is not an image.') }),
    pollMs: 10,
  });
  failed = (await (await bad.jobs()).submit(fakeRequest(), { tenant: 'local' })).job_id;
  await bad.waitForJob(failed);
  await bad.close();
  service = new LocalService({ ffmpeg: TEST_FFMPEG, dataDir, engine: fakeEngine() });
  queued = (await (await service.jobs()).submit(fakeRequest(), { tenant: 'local' })).job_id;
});

afterAll(async () => {
  await service.close();
});

describe('immoreel jobs', () => {
  it('list --json prints the HTTP API body { ok, status, jobs, next_cursor }, newest first', async () => {
    const result = await cli('jobs', 'list', '--json');
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout);
    expect(body).toEqual({ ok: true, status: 'success', jobs: (await service.listJobs()).jobs, next_cursor: null });
    expect(body.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([queued, failed, succeeded]);
    const page = JSON.parse((await cli('jobs', 'list', '--json', '--limit', '2')).stdout);
    expect(page.next_cursor).toBe(failed);
    const rest = JSON.parse((await cli('jobs', 'list', '--json', '--cursor', page.next_cursor)).stdout);
    expect(rest.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([succeeded]);
    const onlyFailed = JSON.parse((await cli('jobs', 'list', '--json', '--state', 'failed')).stdout);
    expect(onlyFailed.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([failed]);
  });

  it('list without --json prints a table', async () => {
    const result = await cli('jobs', 'list');
    expect(result.stdout).toMatch(/^JOB\s+STATE\s+CREATED\s+TEMPLATE\s+LISTING/);
    expect(result.stdout).toContain(`${succeeded}  succeeded`);
  });

  it('show --json prints { ok, status, job } with the record of docs/jobs.md', async () => {
    const result = await cli('jobs', 'show', succeeded, '--json');
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout);
    expect(body).toEqual({ ok: true, status: 'success', job: await service.getJob(succeeded) });
    expect(Object.keys(body.job)).toEqual([
      'job_id',
      'state',
      'stage',
      'progress',
      'attempts',
      'created_at',
      'updated_at',
      'started_at',
      'finished_at',
      'template',
      'format',
      'formats',
      'language',
      'listing',
      'held_back',
      'result',
      'outputs',
      'error',
      'warnings',
      'photos_left_out',
      'metadata',
      'links',
    ]);
    expect(body.job.metadata).toEqual({ crm: 7 });
  });

  it('refuses a malformed id (exit 2) and reports an unknown one', async () => {
    const bad = await cli('jobs', 'show', '../etc/passwd');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/is not a job id/);
    const unknown = await cli('jobs', 'show', 'job_00000000000000000000000000', '--json');
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout).error.code).toBe('NOT_FOUND');
  });

  it("wait exits 0 with the job when it succeeded, and with the job error's own code when it failed", async () => {
    const ok = await cli('jobs', 'wait', succeeded, '--json');
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).job.state).toBe('succeeded');
    const ko = await cli('jobs', 'wait', failed, '--json');
    // Unreadable photos are bad input found inside the job: exit 2, the real code and the job id.
    expect(ko.code).toBe(2);
    const body = JSON.parse(ko.stdout);
    expect(body).toMatchObject({ ok: false, status: 'error', error: { code: 'BAD_REQUEST', job_id: failed } });
    expect(body.error.message).toContain('None of the 2 photos could be read');
  });

  it('download copies the verified video', async () => {
    const out = join(dataDir, 'video.mp4');
    const result = await cli('jobs', 'download', succeeded, '--out', out, '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, status: 'success', job_id: succeeded, path: out });
    expect(readFileSync(out)).toEqual(readFileSync(join(dataDir, 'jobs', succeeded, 'output.mp4')));
    const intoDir = JSON.parse((await cli('jobs', 'download', succeeded, '--out', dataDir, '--json')).stdout);
    expect(intoDir.path).toBe(join(dataDir, `${succeeded}.mp4`));
    expect(readFileSync(intoDir.path).length).toBe(intoDir.size_bytes);
    const none = await cli('jobs', 'download', failed, '--out', out);
    expect(none.code).toBe(7);
    // An existing file is never overwritten without --force.
    const again = await cli('jobs', 'download', succeeded, '--out', out);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already exists: pass --force/);
    expect((await cli('jobs', 'download', succeeded, '--out', out, '--force')).code).toBe(0);
  });

  it('cancel cancels a queued job and leaves a finished one unchanged', async () => {
    const result = await cli('jobs', 'cancel', queued, '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).job.state).toBe('canceled');
    const again = await cli('jobs', 'cancel', succeeded, '--json');
    expect(JSON.parse(again.stdout).job.state).toBe('succeeded');
    expect(again.stderr).toMatch(/already succeeded; nothing to cancel/);
  });

  it("purge removes finished jobs' files and keeps their records, marked expired", async () => {
    const result = await cli('jobs', 'purge', '--older-than', '0s', '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, status: 'success', purged_jobs: 3 });
    // It names the store it emptied, so a shell pointed at the wrong one is noticed.
    expect((JSON.parse(result.stdout) as { store: string }).store).toBe(
      `records: SQLite ${join(dataDir, 'immoreel.db')}; blobs: ${dataDir}`,
    );
    const job = JSON.parse((await cli('jobs', 'show', succeeded, '--json')).stdout).job;
    expect(job.state).toBe('succeeded');
    expect(job.result.expired_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(job.links.video).toBeNull();
    const gone = await cli('jobs', 'download', succeeded, '--out', join(dataDir, 'again.mp4'));
    expect(gone.code).toBe(2);
    expect(gone.stderr).toMatch(/removed by `immoreel jobs purge`/);
    const badAge = await cli('jobs', 'purge', '--older-than', 'a month');
    expect(badAge.code).toBe(2);
  });

  it('worker --until-idle exits at once when nothing is queued, and refuses a bad --concurrency', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'immoreel-idle-'));
    const idle = await runCli(['--data-dir', empty, 'worker', '--until-idle']);
    expect(idle.code).toBe(0);
    expect(idle.stderr).toMatch(/render\(s\) at once, up to \d+ ffmpeg thread\(s\) each/);
    expect(idle.stderr).toMatch(/Queue drained/);
    const bad = await runCli(['--data-dir', empty, 'worker', '--concurrency', '31']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/from 1 to 30/);
  });
});

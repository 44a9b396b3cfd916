import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../src/core/types.js';
import { runCli, type CliResult } from '../../helpers/cli.js';
import { closedPort, envelope, sendJson, startFake, type FakeServer } from '../../helpers/fake-server.js';

/*
 * The built CLI in remote mode against a loopback API that is having an outage (docs/remote.md
 * "Outages"): 503 with Retry-After while its database is down, then answers again. The render is
 * submitted once under one Idempotency-Key, the waits are on stderr, and a server that stays away
 * ends in exit 6 once IMMOREEL_REMOTE_WAIT_SECONDS is used up.
 */

const JOB_ID = 'job_01jd9x3m6k8b2q4r5s7t9v0w1y';
const KEY = 'imk_test_key_000000000000000000';

let configDir: string;
let fake: FakeServer | null = null;

beforeAll(() => {
  configDir = mkdtempSync(join(tmpdir(), 'immoreel-outage-conf-'));
});
afterAll(() => rmSync(configDir, { recursive: true, force: true }));
afterEach(async () => {
  await fake?.close();
  fake = null;
});

function job(state: JobRecord['state']): JobRecord {
  return {
    job_id: JOB_ID,
    state,
    stage: state === 'running' ? 'rendering' : null,
    progress: state === 'succeeded' ? 1 : 0,
    attempts: 1,
    held_back: [],
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: new Date().toISOString(),
    started_at: null,
    finished_at: null,
    template: 'classic',
    format: 'landscape',
    formats: ['landscape'],
    language: 'fr',
    listing: null,
    result: null,
    outputs: null,
    error: null,
    warnings: [],
    metadata: null,
    links: { self: `/api/v1/jobs/${JOB_ID}`, video: null, cancel: null },
  };
}

const DOWN = envelope('SERVICE_UNAVAILABLE', "The service's database is unavailable for a moment; retry in 1 s.", {
  reason: 'database_unavailable',
});

function cli(args: string[], url: string, env: Record<string, string> = {}): Promise<CliResult> {
  return runCli(args, {
    timeoutMs: 60_000,
    env: { IMMOREEL_CONFIG_DIR: configDir, IMMOREEL_BASE_URL: url, IMMOREEL_API_KEY: KEY, IMMOREEL_PROFILE: undefined, ...env },
  });
}

describe('remote mode during an outage of the server', () => {
  it('a render submitted during a database outage: waits as Retry-After says, sends one key, queues one job', async () => {
    fake = await startFake((request, res, index) => {
      if (request.url !== '/api/v1/render-video') return sendJson(res, 404, envelope('NOT_FOUND', `No route ${request.url}.`));
      if (index < 2) return sendJson(res, 503, DOWN, { 'retry-after': '1' });
      return sendJson(res, 202, { ok: true, status: 'success', job: job('queued') }, { location: `/api/v1/jobs/${JOB_ID}` });
    });
    const result = await cli(
      ['render', '--description', 'Villa 300 m² à Anfa, Casablanca', '--photos', 'https://photos.example.com/a.jpg', '--no-wait', '--json'],
      fake.url,
    );
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { job: JobRecord }).job.job_id).toBe(JOB_ID);
    const waits = result.stderr.split('\n').filter((line) => line.includes('is unavailable'));
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBe(
      `warning: the immoreel server at ${fake.url} is unavailable (its database is unavailable); retrying in 1 s (waited 0 s of 120 s)`,
    );
    const posts = fake.requests.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(3);
    // One key and one body for every try: the server can only ever make one job of them.
    expect(new Set(posts.map((r) => r.headers['idempotency-key'])).size).toBe(1);
    expect(new Set(posts.map((r) => r.body.toString())).size).toBe(1);
    expect(posts[1]!.at - posts[0]!.at).toBeGreaterThanOrEqual(1000);
  });

  it('a wait for a job across an outage: the polls wait it out and the job is reported when it ends', async () => {
    let polls = 0;
    fake = await startFake((_request, res) => {
      polls += 1;
      if (polls <= 2) return sendJson(res, 503, DOWN, { 'retry-after': '1' });
      return sendJson(res, 200, { ok: true, status: 'success', job: job('succeeded') });
    });
    const result = await cli(['jobs', 'wait', JOB_ID, '--json'], fake.url);
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { job: JobRecord }).job.state).toBe('succeeded');
    expect(result.stderr).toContain('is unavailable (its database is unavailable); retrying in 1 s (waited 0 s of 120 s)');
  });

  it('a server that stays unavailable: exit 6 once IMMOREEL_REMOTE_WAIT_SECONDS is used up, saying how long it waited', async () => {
    fake = await startFake((_request, res) => sendJson(res, 503, DOWN, { 'retry-after': '1' }));
    const started = Date.now();
    const result = await cli(['jobs', 'show', JOB_ID], fake.url, { IMMOREEL_REMOTE_WAIT_SECONDS: '3' });
    expect(result.code).toBe(6);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    expect(result.stderr).toMatch(
      /error: The service's database is unavailable for a moment; retry in 1 s\. \(request_id \w+\) Gave up after waiting [23] s \(IMMOREEL_REMOTE_WAIT_SECONDS=3\)\./,
    );
    expect(result.stderr).not.toContain('bug in immoreel');
  });

  it('a server that refuses connections: the same wait, then exit 6', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const result = await cli(['jobs', 'show', JOB_ID], url, { IMMOREEL_REMOTE_WAIT_SECONDS: '2' });
    expect(result.code).toBe(6);
    expect(result.stderr).toContain(`warning: the immoreel server at ${url} is unavailable (connection refused); retrying in`);
    expect(result.stderr).toMatch(/Cannot reach the immoreel server at \S+ \(connection refused\)\..* Gave up after waiting [12] s/);
  });
});

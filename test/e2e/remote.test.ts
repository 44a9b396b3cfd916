import { openJobManager } from '../helpers/job-manager.js';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort } from '../helpers/fake-server.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { createKey, freshDataDir, startServe, type CreatedKey, type ServeProcess } from '../helpers/serve-process.js';
import { fakeRequest } from '../helpers/fake-engine.js';
import { TEST_FFMPEG } from '../helpers/config.js';

/*
 * the real CLI against a real `immoreel serve` on loopback. Login and profiles, analyze
 * (same output as local mode), a 100-row CSV batch at the default analyze rate with no 429, and
 * every error class of the contract mapped to its exit code (docs/cli.md).
 */

const RATE_WINDOW_MS = 3000;
const DESCRIPTION = 'Appartement 120 m² à Maarif, Casablanca, 3 chambres, terrasse, ascenseur, 1 850 000 DH';

let server: ServeProcess;
let strict: ServeProcess;
let configDir: string;
let keys: Record<'acme' | 'batch' | 'beta' | 'readOnly' | 'oneShot', CreatedKey>;
let strictKey: CreatedKey;

/** The CLI with its own config directory and none of the caller's remote-mode variables. */
function cli(
  args: string[],
  options: { env?: Record<string, string | undefined>; input?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return runCli(args, {
    input: options.input,
    timeoutMs: options.timeoutMs,
    env: {
      IMMOREEL_CONFIG_DIR: configDir,
      IMMOREEL_API_KEY: undefined,
      IMMOREEL_BASE_URL: undefined,
      IMMOREEL_PROFILE: undefined,
      ...options.env,
    },
  });
}

function withKey(key: CreatedKey, url: string = server.url): { env: Record<string, string> } {
  return { env: { IMMOREEL_API_KEY: key.api_key, IMMOREEL_BASE_URL: url } };
}

beforeAll(async () => {
  configDir = mkdtempSync(join(tmpdir(), 'immoreel-remote-conf-'));
  const dataDir = freshDataDir();
  keys = {
    acme: await createKey(dataDir, ['--tenant', 'acme']),
    batch: await createKey(dataDir, ['--tenant', 'batchco']),
    beta: await createKey(dataDir, ['--tenant', 'beta', '--preview']),
    readOnly: await createKey(dataDir, ['--tenant', 'acme', '--scopes', 'preview:read']),
    oneShot: await createKey(dataDir, ['--tenant', 'acme', '--monthly-quota', '1']),
  };
  server = await startServe(dataDir, ['--rate-window-ms', String(RATE_WINDOW_MS)]);
  // A server whose analyze limit is one per ten minutes: the second call must be refused.
  const strictDir = freshDataDir();
  strictKey = await createKey(strictDir, ['--tenant', 'strict']);
  strict = await startServe(strictDir, ['--analyze-rate', '1', '--rate-window-ms', '600000']);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await strict?.stop();
});

describe('auth login / status / logout', () => {
  it('checks the key with the server, saves it 0600, and never prints it', async () => {
    const login = await cli(['auth', 'login', '--base-url', server.url, '--profile', 'acme', '--api-key-stdin', '--json'], {
      input: `${keys.acme.api_key}\n`,
    });
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    const saved = JSON.parse(login.stdout) as {
      profile: { name: string; masked_key: string; scopes: string[]; tenant: string };
      config_path: string;
    };
    expect(saved.profile).toMatchObject({ name: 'acme', tenant: 'acme', scopes: keys.acme.scopes });
    expect(saved.profile.masked_key).toBe(`imk_****${keys.acme.api_key.slice(-4)}`);
    expect(login.stdout).not.toContain(keys.acme.api_key);
    expect(statSync(join(configDir, 'profiles.json')).mode & 0o777).toBe(0o600);

    const status = await cli(['auth', 'status']);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(server.url);
    expect(status.stdout).toContain('preview:read, preview:dispatch, billing:read');
    expect(status.stdout).toMatch(/quota\s+\d+ of 100000 requests used/);
    expect(status.stdout + status.stderr).not.toContain(keys.acme.api_key);
  });

  it('takes the key from IMMOREEL_API_KEY too, and refuses it as a flag value', async () => {
    const viaEnv = await cli(['auth', 'login', '--base-url', server.url, '--profile', 'beta'], {
      env: { IMMOREEL_API_KEY: keys.beta.api_key },
    });
    expect(viaEnv.code).toBe(0);
    expect(viaEnv.stdout).toContain('preview:read, preview:dispatch');
    const asFlag = await cli(['auth', 'login', '--base-url', server.url, '--api-key', keys.beta.api_key]);
    expect(asFlag.code).toBe(2);
    expect(asFlag.stderr).toContain('Never pass an API key as a flag value');
  });

  it('saves nothing when the server refuses the key (exit 4)', async () => {
    const bad = await cli(['auth', 'login', '--base-url', server.url, '--profile', 'wrong', '--api-key-stdin'], {
      input: 'imk_not_a_real_key_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    });
    expect(bad.code).toBe(4);
    expect(bad.stderr).toMatch(/Invalid API key.*request_id req_/);
    const status = await cli(['auth', 'status', '--json']);
    const names = (JSON.parse(status.stdout) as { profiles: { name: string }[] }).profiles.map((p) => p.name);
    expect(names).not.toContain('wrong');
  });

  it('logs out of one profile only', async () => {
    await cli(['auth', 'login', '--base-url', server.url, '--profile', 'temp', '--api-key-stdin'], { input: keys.acme.api_key });
    const logout = await cli(['auth', 'logout', '--profile', 'temp']);
    expect(logout.code).toBe(0);
    const status = JSON.parse((await cli(['auth', 'status', '--json'])).stdout) as { profiles: { name: string; valid: boolean }[] };
    expect(status.profiles.map((p) => p.name)).toEqual(['acme', 'beta']);
    expect(status.profiles.every((p) => p.valid)).toBe(true);
    expect((await cli(['auth', 'logout', '--profile', 'temp'])).code).toBe(2);
  });
});

describe('analyze against the server', () => {
  it('prints exactly what local mode prints', async () => {
    const remote = await cli(['--profile', 'acme', 'analyze', '--description', DESCRIPTION, '--json']);
    expect(remote.code).toBe(0);
    const local = await cli(['--data-dir', freshDataDir(), 'analyze', '--description', DESCRIPTION, '--json']);
    expect(local.code).toBe(0);
    expect(JSON.parse(remote.stdout)).toEqual(JSON.parse(local.stdout));
    expect((JSON.parse(remote.stdout) as { property: { price_mad: number } }).property.price_mad).toBe(1_850_000);

    const text = await cli(['--profile', 'acme', 'analyze', '--description', DESCRIPTION]);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe((await cli(['--data-dir', freshDataDir(), 'analyze', '--description', DESCRIPTION])).stdout);
  });

  it('runs a 100-row CSV batch at the default rate (60 per window) with zero 429s', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'immoreel-remote-csv-'));
    const csv = join(dir, 'listings.csv');
    const rows = Array.from(
      { length: 100 },
      (_, i) => `row-${i + 1},"Appartement ${60 + i} m² à Maarif, ${1 + (i % 4)} chambres, ${900_000 + i * 10_000} DH"`,
    );
    writeFileSync(csv, `id,description\n${rows.join('\n')}\n`);
    const before = server.logs.length;
    const started = Date.now();
    const batch = await cli(['analyze', '--csv', csv, '--json'], { ...withKey(keys.batch), timeoutMs: 110_000 });
    const elapsed = Date.now() - started;
    expect(batch.stderr).not.toContain('error');
    expect(batch.code).toBe(0);
    const lines = batch.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; ok: boolean });
    expect(lines).toHaveLength(100);
    expect(lines.every((l) => l.ok)).toBe(true);
    const analyzeLogs = server.logs.slice(before).filter((l) => l.route === '/api/v1/analyze' && l.key_id === keys.batch.key_id);
    expect(analyzeLogs.filter((l) => l.status === 429)).toEqual([]);
    expect(analyzeLogs.filter((l) => l.status === 200)).toHaveLength(100);
    // 100 requests at 60 per window cannot all fit in one window: the client did pace.
    expect(elapsed).toBeGreaterThanOrEqual(RATE_WINDOW_MS);
  });
});

describe('every error class of the contract, mapped to its exit code', () => {
  it('401 UNAUTHORIZED → exit 4, with the server message and request id', async () => {
    const result = await cli(['analyze', '--description', DESCRIPTION], {
      env: { IMMOREEL_API_KEY: 'imk_revoked_or_unknown_key_aaaaaaaaaaaaaaaaaaaaaaaa', IMMOREEL_BASE_URL: server.url },
    });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/error: Invalid API key: it is unknown or was revoked\..*\(request_id req_[a-z0-9]+\)/);
  });

  it('403 QUOTA_EXCEEDED for a route the key lacks the scope of → exit 4 (permission)', async () => {
    const result = await cli(['analyze', '--description', DESCRIPTION], withKey(keys.readOnly));
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('needs the preview:dispatch scope');
  });

  it('403 INSUFFICIENT_SCOPE on another tenant’s job → exit 4', async () => {
    const manager = await openJobManager({ ffmpeg: TEST_FFMPEG, dataDir: server.dataDir, runWorkers: false, linkBase: '/api/v1' });
    let jobId: string;
    try {
      jobId = (await manager.submit(fakeRequest({ input: { description: DESCRIPTION } }), { tenant: 'acme' })).job_id;
    } finally {
      await manager.close({ drainMs: 0 });
    }
    const own = await cli(['--profile', 'acme', 'jobs', 'show', jobId, '--json']);
    expect(own.code).toBe(0);
    const other = await cli(['--profile', 'beta', 'jobs', 'show', jobId, '--json']);
    expect(other.code).toBe(4);
    const printed = JSON.parse(other.stdout) as { ok: boolean; error: { code: string; request_id: string } };
    expect(printed).toMatchObject({ ok: false, error: { code: 'INSUFFICIENT_SCOPE' } });
    expect(printed.error.request_id).toMatch(/^req_/);
  });

  it('403 QUOTA_EXCEEDED when the monthly quota is used up → exit 5', async () => {
    expect((await cli(['analyze', '--description', DESCRIPTION], withKey(keys.oneShot))).code).toBe(0);
    const second = await cli(['analyze', '--description', DESCRIPTION], withKey(keys.oneShot));
    expect(second.code).toBe(5);
    expect(second.stderr).toMatch(/Monthly quota of 1 requests used up/);
  });

  it('429 RATE_LIMIT_EXCEEDED that lasts longer than the client waits → exit 5', async () => {
    expect((await cli(['analyze', '--description', DESCRIPTION], withKey(strictKey, strict.url))).code).toBe(0);
    const started = Date.now();
    const refused = await cli(['analyze', '--description', DESCRIPTION], withKey(strictKey, strict.url));
    expect(refused.code).toBe(5);
    expect(refused.stderr).toMatch(
      /Rate limit of 1 analyze requests per 600 s exceeded: retry in \d+ s\..*request_id req_.*Gave up: the server asks to wait \d+ s/,
    );
    // Reported at once, not after sitting out ten minutes.
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('400 BAD_REQUEST → exit 2, with the server’s reason', async () => {
    const result = await cli(['--profile', 'acme', 'analyze', '--url', 'https://example.com/annonce/123', '--json']);
    expect(result.code).toBe(2);
    const printed = JSON.parse(result.stdout) as { error: { code: string; reason: string; request_id: string } };
    expect(printed.error).toMatchObject({ code: 'BAD_REQUEST', reason: 'unsupported_url' });
  });

  it('404 NOT_FOUND → exit 2', async () => {
    const result = await cli(['--profile', 'acme', 'jobs', 'show', 'job_00000000000000000000000000']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/No job job_00000000000000000000000000.*request_id/);
  });

  it('server down → waits IMMOREEL_REMOTE_WAIT_SECONDS, saying so, then exit 6 with a clear message', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const result = await cli(['analyze', '--description', DESCRIPTION], {
      env: { ...withKey(keys.acme, url).env, IMMOREEL_REMOTE_WAIT_SECONDS: '2' },
    });
    expect(result.code).toBe(6);
    expect(result.stderr).toContain(`warning: the immoreel server at ${url} is unavailable (connection refused); retrying in`);
    expect(result.stderr).toContain(`Cannot reach the immoreel server at ${url} (connection refused)`);
    expect(result.stderr).toMatch(/Gave up after waiting [12] s \(IMMOREEL_REMOTE_WAIT_SECONDS=2\)\./);
  });

  it('--base-url with two profiles saved for it asks which one (exit 2)', async () => {
    const result = await cli(['--base-url', server.url, 'analyze', '--description', DESCRIPTION]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`Several profiles are saved for ${server.url} (acme, beta): choose one with --profile.`);
  });

  it('a profile that does not exist → exit 4 naming the login command', async () => {
    const result = await cli(['--profile', 'nope', 'analyze', '--description', DESCRIPTION]);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('immoreel auth login --base-url URL --profile nope');
    expect(readFileSync(join(configDir, 'profiles.json'), 'utf8')).not.toContain('nope');
  });
});

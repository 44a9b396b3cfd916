import type { Command } from 'commander';
import { AppError, badRequest, toAppError } from '../../core/errors.js';
import { HttpClient } from '../../client/http.js';
import {
  DEFAULT_PROFILE,
  assertProfileName,
  maskApiKey,
  normalizeBaseUrl,
  ProfileStore,
  assertKeyTransport,
  sendsKeyInClear,
  type ProfileRecord,
} from '../../client/profiles.js';
import { contextFor, type CommandContext } from '../command-context.js';

/*
 * `immoreel auth login | status | logout` (docs/cli.md): profiles for remote mode. The key is read
 * from standard input (--api-key-stdin) or IMMOREEL_API_KEY — never from a flag value, which would
 * end up in shell history and `ps` — checked with GET /api/v1/me, and saved in a 0600 file.
 */

interface MeAnswer {
  key?: { key_id?: string; tenant?: string; scopes?: string[]; plan?: string };
  quota?: { period?: string; used?: number; limit?: number; remaining?: number; resets_at?: string };
}

/** Reads the key typed at a terminal without echoing it. */
function readHiddenLine(prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    process.stderr.write(prompt);
    let value = '';
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    const finish = (error?: Error): void => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.removeListener('data', onData);
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    function onData(chunk: string): void {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish();
        if (ch === '\u0003') return finish(badRequest('Login canceled.'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    }
    stdin.on('data', onData);
  });
}

async function readKeyFromStdin(): Promise<string> {
  if (process.stdin.isTTY) return readHiddenLine('API key (input hidden): ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  // The first non-empty line: `echo KEY |` and files ending in a newline both work.
  return (
    Buffer.concat(chunks)
      .toString('utf8')
      .split(/\r?\n/)
      .find((line) => line.trim() !== '') ?? ''
  ).trim();
}

function checkKeyShape(key: string, source: string): string {
  if (key === '') throw badRequest(`The API key from ${source} is empty.`, { details: [{ field: 'api_key', message: 'is empty' }] });
  if (/\s/.test(key))
    throw badRequest(`The API key from ${source} contains spaces: give the key alone.`, {
      details: [{ field: 'api_key', message: 'contains whitespace' }],
    });
  return key;
}

async function fetchMe(baseUrl: string, apiKey: string): Promise<MeAnswer> {
  // Checking a key just typed: a server that is not there is more likely a wrong URL than an outage.
  const http = new HttpClient({ baseUrl, apiKey, retries: 1, outageWaitMs: 0 });
  try {
    return (await http.json<MeAnswer>({ method: 'GET', path: '/api/v1/me', route: 'GET /api/v1/me', retryable: true })).body;
  } finally {
    await http.close();
  }
}

interface ProfileView {
  name: string;
  base_url: string;
  masked_key: string;
  key_source: 'profile' | 'environment';
  key_id: string | null;
  tenant: string | null;
  plan: string | null;
  scopes: string[];
  valid: boolean | null;
  quota: MeAnswer['quota'] | null;
  error: { code: string; message: string } | null;
}

function viewOf(
  name: string,
  profile: Pick<ProfileRecord, 'base_url' | 'api_key' | 'key_id' | 'tenant' | 'plan' | 'scopes'>,
  source: ProfileView['key_source'],
): ProfileView {
  return {
    name,
    base_url: profile.base_url,
    masked_key: maskApiKey(profile.api_key),
    key_source: source,
    key_id: profile.key_id,
    tenant: profile.tenant,
    plan: profile.plan,
    scopes: profile.scopes,
    valid: null,
    quota: null,
    error: null,
  };
}

function formatView(view: ProfileView, ctx: CommandContext): string {
  const s = ctx.output.style;
  const mark =
    view.valid === true
      ? s.green('✓ valid')
      : view.valid === false
        ? s.red(`✗ ${view.error?.message ?? 'invalid'}`)
        : s.gray('not checked');
  const lines = [`${s.bold(view.name)}  ${view.base_url}  ${mark}`];
  const who = [view.key_id, view.tenant === null ? null : `tenant ${view.tenant}`, view.plan === null ? null : `${view.plan} plan`].filter(
    (x) => x !== null,
  );
  lines.push(
    `  key     ${view.masked_key}${who.length > 0 ? ` (${who.join(', ')})` : ''}${view.key_source === 'environment' ? ' from IMMOREEL_API_KEY' : ''}`,
  );
  lines.push(`  scopes  ${view.scopes.length > 0 ? view.scopes.join(', ') : '-'}`);
  const q = view.quota;
  if (q !== null && q !== undefined && q.used !== undefined && q.limit !== undefined) {
    lines.push(
      `  quota   ${q.used} of ${q.limit} requests used in ${q.period ?? 'this period'}${q.resets_at ? ` (resets ${q.resets_at})` : ''}`,
    );
  }
  return lines.join('\n');
}

/** `auth login`. */
export async function login(flags: { apiKeyStdin?: boolean; apiKey?: string }, command: Command): Promise<void> {
  const ctx = contextFor(command);
  if (flags.apiKey !== undefined) {
    throw badRequest(
      'Never pass an API key as a flag value: it ends up in shell history and in `ps`. Use --api-key-stdin (e.g. `< key.txt`) or IMMOREEL_API_KEY.',
      {
        reason: 'key_on_command_line',
      },
    );
  }
  const rawUrl = ctx.config.baseUrl;
  if (rawUrl === undefined || rawUrl === '') {
    throw badRequest('auth login needs the server address: --base-url URL (or IMMOREEL_BASE_URL).', {
      details: [{ field: 'base-url', message: 'is required' }],
    });
  }
  const baseUrl = normalizeBaseUrl(rawUrl);
  const name = assertProfileName(ctx.config.profile ?? DEFAULT_PROFILE);
  let apiKey: string;
  if (flags.apiKeyStdin === true) apiKey = checkKeyShape(await readKeyFromStdin(), 'standard input');
  else if (ctx.config.apiKey !== undefined) apiKey = checkKeyShape(ctx.config.apiKey, 'IMMOREEL_API_KEY');
  else {
    throw badRequest(
      'No API key given: pipe it with --api-key-stdin (`immoreel auth login --base-url URL --api-key-stdin < key.txt`) or set IMMOREEL_API_KEY.',
      {
        details: [{ field: 'api-key', message: 'missing' }],
      },
    );
  }
  assertKeyTransport(baseUrl, ctx.config.insecure);
  if (sendsKeyInClear(baseUrl)) ctx.output.warn(`${baseUrl} is plain http: the API key travels unencrypted over the network; use https.`);

  const progress = ctx.output.progress(`Checking the key with ${baseUrl}…`);
  const me = await fetchMe(baseUrl, apiKey).finally(() => progress.stop());
  const store = new ProfileStore(ctx.config.configDir);
  const profile: ProfileRecord = {
    base_url: baseUrl,
    api_key: apiKey,
    key_id: me.key?.key_id ?? null,
    tenant: me.key?.tenant ?? null,
    scopes: Array.isArray(me.key?.scopes) ? me.key.scopes : [],
    plan: me.key?.plan ?? null,
    saved_at: new Date().toISOString(),
  };
  store.save(name, profile);
  const view = { ...viewOf(name, profile, 'profile'), valid: true, quota: me.quota ?? null };
  if (ctx.output.json) {
    ctx.output.data({ ok: true, status: 'success', profile: view, config_path: store.path });
    return;
  }
  ctx.output.text(formatView(view, ctx));
  ctx.output.info(`Saved profile "${name}" in ${store.path}. Use it with --profile ${name} (or --base-url ${baseUrl}).`);
}

/** `auth status`. */
export async function status(_flags: unknown, command: Command): Promise<void> {
  const ctx = contextFor(command);
  const store = new ProfileStore(ctx.config.configDir);
  const only = ctx.config.profile;
  const views: { view: ProfileView; apiKey: string }[] = [];
  for (const { name, profile } of store.list()) {
    if (only === undefined || only === name) views.push({ view: viewOf(name, profile, 'profile'), apiKey: profile.api_key });
  }
  const envKey = ctx.config.apiKey;
  const envUrl = ctx.config.baseUrl;
  if (envKey !== undefined && envKey !== '' && envUrl !== undefined && envUrl !== '' && only === undefined) {
    const baseUrl = normalizeBaseUrl(envUrl);
    views.unshift({
      view: viewOf(
        '(environment)',
        { base_url: baseUrl, api_key: envKey, key_id: null, tenant: null, plan: null, scopes: [] },
        'environment',
      ),
      apiKey: envKey,
    });
  }
  if (views.length === 0) {
    throw new AppError(
      'UNAUTHORIZED',
      only !== undefined
        ? `No profile "${only}" in ${store.path}. Log in with: immoreel auth login --base-url URL --profile ${only} --api-key-stdin`
        : `Not logged in to any immoreel server (no profiles in ${store.path}). Log in with: immoreel auth login --base-url URL --api-key-stdin`,
      { reason: 'no_profile' },
    );
  }
  const failures: AppError[] = [];
  await Promise.all(
    views.map(async ({ view, apiKey }) => {
      try {
        const me = await fetchMe(view.base_url, apiKey);
        view.valid = true;
        view.key_id = me.key?.key_id ?? view.key_id;
        view.tenant = me.key?.tenant ?? view.tenant;
        view.plan = me.key?.plan ?? view.plan;
        view.scopes = me.key?.scopes ?? view.scopes;
        view.quota = me.quota ?? null;
      } catch (error) {
        const appError = toAppError(error);
        failures.push(appError);
        view.valid = false;
        view.error = { code: appError.code, message: appError.message };
      }
    }),
  );
  // One profile asked for and it does not work: that is the command's outcome (exit 4, 6…).
  if (views.length === 1 && failures.length === 1) throw failures[0]!;
  const mode = store.fileMode();
  if (ctx.output.json) {
    ctx.output.data({
      ok: true,
      status: 'success',
      config_path: store.path,
      file_mode: mode === null ? null : `0${mode.toString(8)}`,
      profiles: views.map((v) => v.view),
    });
    return;
  }
  ctx.output.text(views.map((v) => formatView(v.view, ctx)).join('\n\n'));
  if (mode !== null) ctx.output.info(`Profiles file: ${store.path} (mode 0${mode.toString(8)})`);
}

/** `auth logout`. */
export async function logout(flags: { all?: boolean }, command: Command): Promise<void> {
  const ctx = contextFor(command);
  const store = new ProfileStore(ctx.config.configDir);
  const names = flags.all === true ? store.list().map((p) => p.name) : [ctx.config.profile ?? DEFAULT_PROFILE];
  const removed: string[] = [];
  for (const name of names) {
    const profile = store.get(name);
    if (profile === null) {
      const known = store.list().map((p) => p.name);
      throw badRequest(`No profile "${name}" to log out of${known.length > 0 ? ` (profiles: ${known.join(', ')})` : ''}.`, {
        reason: 'no_profile',
      });
    }
    store.remove(name);
    removed.push(name);
  }
  if (ctx.output.json) {
    ctx.output.data({ ok: true, status: 'success', removed, config_path: store.path });
    return;
  }
  ctx.output.text(
    removed.length === 0 ? 'No profiles to remove.' : `Removed profile${removed.length === 1 ? '' : 's'} ${removed.join(', ')}.`,
  );
  if (removed.length > 0)
    ctx.output.info('The key itself still works on the server; if it leaked, revoke it there with `immoreel keys revoke KEY_ID`.');
}

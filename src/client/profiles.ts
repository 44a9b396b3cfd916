import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Conf from 'conf';
import { AppError, badRequest } from '../core/errors.js';

/**
 * Saved server profiles (docs/cli.md): base URL, API key, and what the server said about the key at
 * login, in `<config dir>/profiles.json`, written with conf. The file holds secrets, so it is kept
 * at mode 0600 inside a 0700 directory: conf writes 0666 by default (docs/remote.md),
 * so the file is chmod'ed after every write and whenever it is loaded (the Stripe CLI's approach,
 * docs/remote.md), which also repairs a file created by hand or by another tool.
 *
 * Config directory: `Config.configDir` (IMMOREEL_CONFIG_DIR, else ~/.config/immoreel on Linux;
 * docs/configuration.md), given by the entry point.
 */

export interface ProfileRecord {
  base_url: string;
  api_key: string;
  key_id: string | null;
  tenant: string | null;
  scopes: string[];
  plan: string | null;
  saved_at: string;
}

interface ProfilesFile {
  profiles?: Record<string, ProfileRecord>;
}

export const DEFAULT_PROFILE = 'default';
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

export function assertProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw badRequest(`Invalid profile name ${JSON.stringify(name)}: use 1–64 letters, digits, "-" or "_".`, {
      details: [{ field: 'profile', message: 'letters, digits, - and _ only' }],
    });
  }
  return name;
}

/**
 * An API key as it may be shown: its prefix (`imk_`), stars, and the last four characters —
 * enough to tell two keys apart, not enough to use one.
 */
export function maskApiKey(key: string): string {
  const prefix = /^[A-Za-z]{2,8}_/.exec(key)?.[0] ?? '';
  const rest = key.slice(prefix.length);
  if (rest.length < 12) return `${prefix}****`;
  return `${prefix}****${rest.slice(-4)}`;
}

/** `http://host:8080/`, `http://host:8080/api/v1` → `http://host:8080` (a path prefix of a proxy is kept). */
export function normalizeBaseUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw badRequest(
      `${JSON.stringify(input)} is not a URL: give the server's address, e.g. https://immoreel.example.com or http://127.0.0.1:8080.`,
      {
        details: [{ field: 'base-url', message: 'must be an http(s) URL' }],
      },
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw badRequest(`The server address must be http:// or https://, not ${url.protocol}`, {
      details: [{ field: 'base-url', message: 'must be an http(s) URL' }],
    });
  }
  if (url.username !== '' || url.password !== '') {
    throw badRequest('Put no credentials in the server address: the API key goes in IMMOREEL_API_KEY or `auth login --api-key-stdin`.', {
      details: [{ field: 'base-url', message: 'must not contain a user or password' }],
    });
  }
  const path = url.pathname.replace(/(?<!\/)\/+$/, '').replace(/\/api\/v1$/, '');
  return `${url.origin}${path}`;
}

/** True when an http:// URL would send the key in clear over a network (loopback is fine). */
export function sendsKeyInClear(baseUrl: string): boolean {
  const url = new URL(baseUrl);
  if (url.protocol !== 'http:') return false;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return !(host === 'localhost' || host === '::1' || /^127\./.test(host));
}

/**
 * The API key is never sent in clear over a network unless the user says so: plain http:// to a
 * host other than this machine is refused without `--insecure`, as `gh` and `stripe` do
 * (docs/security.md). With it, the caller warns.
 */
export function assertKeyTransport(baseUrl: string, insecure: boolean | undefined): void {
  if (!sendsKeyInClear(baseUrl) || insecure === true) return;
  throw badRequest(
    `Refusing to send the API key unencrypted to ${baseUrl}: it is plain http:// to another machine. ` +
      'Use the https:// address of the server, or pass --insecure if you accept that anyone on the network can read the key.',
    { reason: 'insecure_transport', details: [{ field: 'base-url', message: 'plain http to a non-loopback host' }] },
  );
}

function fileError(path: string, error: unknown): AppError {
  const code = (error as NodeJS.ErrnoException).code;
  if (error instanceof SyntaxError) {
    return badRequest(`The profiles file ${path} is not valid JSON: fix it, or delete it and log in again.`, {
      reason: 'invalid_profiles_file',
    });
  }
  if (code === 'EACCES' || code === 'EPERM') {
    return badRequest(
      `Cannot use the profiles file ${path}: permission denied. Check its owner, or set IMMOREEL_CONFIG_DIR to a folder of yours.`,
      {
        reason: 'profiles_file_permission',
      },
    );
  }
  return badRequest(`Cannot use the profiles file ${path}: ${(error as Error).message}`, { reason: 'profiles_file' });
}

export class ProfileStore {
  readonly dir: string;
  readonly path: string;
  private conf: Conf<ProfilesFile> | null = null;

  constructor(dir: string) {
    this.dir = dir;
    this.path = join(dir, 'profiles.json');
  }

  /** conf, opened on first use; an existing file is brought back to 0600 first. */
  private store(): Conf<ProfilesFile> {
    if (this.conf === null) {
      try {
        if (existsSync(this.path)) chmodSync(this.path, FILE_MODE);
        this.conf = new Conf<ProfilesFile>({
          cwd: this.dir,
          configName: 'profiles',
          projectName: 'immoreel',
          projectSuffix: '',
          configFileMode: FILE_MODE,
          clearInvalidConfig: false,
        });
      } catch (error) {
        throw fileError(this.path, error);
      }
    }
    return this.conf;
  }

  private all(): Record<string, ProfileRecord> {
    if (!existsSync(this.path)) return {};
    const profiles = this.store().get('profiles');
    return typeof profiles === 'object' && profiles !== null ? profiles : {};
  }

  private writeAll(profiles: Record<string, ProfileRecord>): void {
    try {
      mkdirSync(this.dir, { recursive: true, mode: DIR_MODE });
      // Set as one value: conf reads dots in keys as paths, and names are ours to keep whole.
      this.store().set('profiles', profiles);
      chmodSync(this.path, FILE_MODE);
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw fileError(this.path, error);
    }
  }

  list(): { name: string; profile: ProfileRecord }[] {
    return Object.entries(this.all())
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, profile]) => ({ name, profile }));
  }

  get(name: string): ProfileRecord | null {
    return this.all()[name] ?? null;
  }

  save(name: string, profile: ProfileRecord): void {
    this.writeAll({ ...this.all(), [assertProfileName(name)]: profile });
  }

  /** Removes a profile; false when there was none of that name. */
  remove(name: string): boolean {
    const profiles = this.all();
    if (!(name in profiles)) return false;
    delete profiles[name];
    this.writeAll(profiles);
    return true;
  }

  /** The profile file's permission bits (e.g. 0o600), or null when there is no file. */
  fileMode(): number | null {
    try {
      return statSync(this.path).mode & 0o777;
    } catch {
      return null;
    }
  }
}

/** Where remote mode sends requests and with which key, after flags, env and profiles. */
export interface RemoteTarget {
  baseUrl: string;
  apiKey: string;
  /** The profile used, if any (null when everything came from flags and env). */
  profile: string | null;
  /** Where the key came from, for `auth status` and messages. */
  keySource: 'environment' | 'profile';
}

/** What the configuration says of remote mode (a `Config` is one). */
export interface RemoteSelection {
  profile?: string;
  /** --base-url, else IMMOREEL_BASE_URL. */
  baseUrl?: string;
  /** IMMOREEL_API_KEY: wins over a profile's key. */
  apiKey?: string;
  /** Accept plain http:// to a non-loopback host (`--insecure`). */
  insecure?: boolean;
}

/**
 * Precedence (docs/remote.md "Which server and which key"):
 * base URL: --base-url > IMMOREEL_BASE_URL > the profile's; API key: IMMOREEL_API_KEY > the
 * profile's. The profile is --profile (IMMOREEL_PROFILE); without one, the profile saved for the
 * chosen base URL (`default` first), so `--base-url URL` works after `auth login --base-url URL`.
 */
export function resolveRemoteTarget(selection: RemoteSelection, store: ProfileStore): RemoteTarget {
  const envKey = selection.apiKey !== undefined && selection.apiKey.trim() !== '' ? selection.apiKey.trim() : undefined;
  const explicitUrl = selection.baseUrl !== undefined && selection.baseUrl.trim() !== '' ? selection.baseUrl : undefined;

  let profileName: string | null = null;
  let profile: ProfileRecord | null = null;
  if (selection.profile !== undefined && selection.profile !== '') {
    profileName = assertProfileName(selection.profile);
    profile = store.get(profileName);
    if (profile === null && !(envKey !== undefined && explicitUrl !== undefined)) {
      const known = store.list().map((p) => p.name);
      throw new AppError(
        'UNAUTHORIZED',
        `No profile "${profileName}" in ${store.path}${known.length > 0 ? ` (profiles: ${known.join(', ')})` : ''}. Log in first: immoreel auth login --base-url URL --profile ${profileName} --api-key-stdin`,
        { reason: 'no_profile' },
      );
    }
  }
  const baseUrl = normalizeBaseUrl(explicitUrl ?? profile?.base_url ?? '');
  if (profile === null && selection.profile === undefined) {
    const matching = store.list().filter((p) => normalizeBaseUrl(p.profile.base_url) === baseUrl);
    const chosen = matching.find((p) => p.name === DEFAULT_PROFILE) ?? (matching.length === 1 ? matching[0] : undefined);
    if (chosen !== undefined) {
      profileName = chosen.name;
      profile = chosen.profile;
    } else if (matching.length > 1 && envKey === undefined) {
      throw badRequest(
        `Several profiles are saved for ${baseUrl} (${matching.map((p) => p.name).join(', ')}): choose one with --profile.`,
        {
          reason: 'ambiguous_profile',
        },
      );
    }
  }
  const apiKey = envKey ?? profile?.api_key;
  if (apiKey === undefined || apiKey === '') {
    throw new AppError(
      'UNAUTHORIZED',
      `No API key for ${baseUrl}: log in with \`immoreel auth login --base-url ${baseUrl} --api-key-stdin\`, or set IMMOREEL_API_KEY.`,
      { reason: 'no_api_key' },
    );
  }
  return { baseUrl, apiKey, profile: profileName, keySource: envKey !== undefined ? 'environment' : 'profile' };
}

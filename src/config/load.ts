import { homedir as osHomedir } from 'node:os';
import { join, win32 } from 'node:path';
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { AppError, badRequest } from '../core/errors.js';
import { wantsColor, type Environment } from './environment.js';
import {
  ConfigSchema,
  HOST_NAME_PATTERN,
  JobTimingSettingsSchema,
  SessionSettingsSchema,
  type Config,
  type ProxySettings,
  type Source,
} from './config-schema.js';

export type { Environment } from './environment.js';

/** The parsed command-line flags that are configuration (docs/configuration.md "Flags"); commander's names. */
export interface ConfigFlags {
  dataDir?: string;
  databaseUrl?: string;
  storageUrl?: string;
  profile?: string;
  baseUrl?: string;
  insecure?: boolean;
  /** false with `--no-color`. */
  color?: boolean;
  /** `serve`/`worker --allow-loopback-fetch`. */
  allowLoopbackFetch?: boolean;
  /** `serve`/`worker --metrics-port`, `--metrics-host` (as typed). */
  metricsPort?: string;
  metricsHost?: string;
  /** `serve`/`worker --startup-wait <seconds>`, as typed. */
  startupWait?: string;
  /** `serve --trust-proxy`. */
  trustProxy?: boolean;
  /** `serve --public-host` (repeatable, or comma-separated). */
  publicHost?: string[];
}

export interface LoadConfigInput {
  env: Environment;
  flags?: ConfigFlags;
  /** For the default directories (default: this process's platform). */
  platform?: NodeJS.Platform;
}

/** The value of a variable, or undefined when it is unset or blank (blank means "not set" everywhere). */
function given(env: Environment, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** A value fit for an error message: no `user:password@`, no more than 80 characters. */
function shown(value: string): string {
  return JSON.stringify(value.replace(/\/\/[^@/\s]*@/, '//***@').slice(0, 80));
}

function invalid(name: string, form: string, value: string): AppError {
  return badRequest(`${name} must be ${form} (got ${shown(value)}).`, {
    reason: 'invalid_setting',
    details: [{ field: name, message: `must be ${form}` }],
  });
}

/** The form an integer schema accepts, in words, from its own bounds. */
function integerForm(schema: TSchema, unit: string): string {
  return `a whole number${unit === '' ? '' : ` of ${unit}`} from ${String(schema.minimum)} to ${String(schema.maximum)}`;
}

function integerSetting(env: Environment, name: string, schema: TSchema, unit: string, fallback: number, flag?: FlagValue): number {
  const typed = flag?.value === undefined || flag.value.trim() === '' ? undefined : flag.value;
  const text = typed ?? given(env, name);
  if (text === undefined) return fallback;
  const value = /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!Value.Check(schema, value)) throw invalid(typed === undefined ? name : flag!.name, integerForm(schema, unit), text);
  return value;
}

/** A flag that overrides a variable: its name for messages, and the value typed (undefined when not typed). */
interface FlagValue {
  name: string;
  value: string | undefined;
}

/** Default of `--startup-wait`: two minutes covers a database or storage restarting beside us (docs/operations.md "Start-up"). */
export const DEFAULT_STARTUP_WAIT_S = 120;
/** Default of `IMMOREEL_REMOTE_WAIT_SECONDS` (docs/remote.md "Outages"). */
export const DEFAULT_REMOTE_WAIT_S = 120;

const EUR_FORM = 'a number of dirhams per euro greater than 0 and at most 1000, such as 10.8';

function eurToMad(env: Environment): number | undefined {
  const text = given(env, 'IMMOREEL_EUR_TO_MAD');
  if (text === undefined) return undefined;
  const value = /^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!Value.Check(ConfigSchema.properties.eurToMad, value)) throw invalid('IMMOREEL_EUR_TO_MAD', EUR_FORM, text);
  return value;
}

const TRUE_WORDS = ['1', 'true', 'yes', 'on'];
const FALSE_WORDS = ['0', 'false', 'no', 'off'];

function booleanSetting(env: Environment, name: string): boolean {
  const text = given(env, name);
  if (text === undefined) return false;
  const word = text.trim().toLowerCase();
  if (TRUE_WORDS.includes(word)) return true;
  if (FALSE_WORDS.includes(word)) return false;
  throw invalid(name, `one of ${TRUE_WORDS.join(', ')} (on) or ${FALSE_WORDS.join(', ')} (off)`, text);
}

const HOST_NAME = new RegExp(HOST_NAME_PATTERN);

/**
 * `--public-host` values (else `IMMOREEL_PUBLIC_HOST`), comma-separated or repeated: host names
 * as a browser sends them in `Host`, lower-cased, without scheme or port.
 */
function publicHosts(flag: string[] | undefined, env: Environment): string[] {
  const fromFlag = flag?.flatMap((value) => value.split(',')).filter((value) => value.trim() !== '');
  const name = fromFlag !== undefined && fromFlag.length > 0 ? '--public-host' : 'IMMOREEL_PUBLIC_HOST';
  const values = name === '--public-host' ? fromFlag! : (given(env, name)?.split(',') ?? []).filter((value) => value.trim() !== '');
  return [
    ...new Set(
      values.map((value) => {
        const host = value.trim().toLowerCase();
        if (!HOST_NAME.test(host) || host.length > 253)
          throw invalid(name, 'host names without scheme or port, separated by commas, such as studio.example.com', value);
        return host;
      }),
    ),
  ];
}

/** HTTPS_PROXY or https_proxy (the upper-case name first, as curl reads them), checked to be an http(s) URL. */
function proxyUrl(env: Environment, name: string): string | undefined {
  const upper = given(env, name);
  const variable = upper === undefined ? name.toLowerCase() : name;
  const text = (upper ?? given(env, variable))?.trim();
  if (text === undefined) return undefined;
  let protocol = '';
  try {
    protocol = new URL(text).protocol;
  } catch {
    protocol = '';
  }
  if (protocol !== 'http:' && protocol !== 'https:')
    throw invalid(variable, 'an http:// or https:// URL such as http://proxy.example:3128', text);
  return text;
}

function proxySettings(env: Environment): ProxySettings {
  const noProxy = (given(env, 'NO_PROXY') ?? given(env, 'no_proxy'))?.trim();
  const httpProxy = proxyUrl(env, 'HTTP_PROXY');
  const httpsProxy = proxyUrl(env, 'HTTPS_PROXY');
  return {
    ...(httpProxy === undefined ? {} : { httpProxy }),
    ...(httpsProxy === undefined ? {} : { httpsProxy }),
    ...(noProxy === undefined ? {} : { noProxy }),
  };
}

/** The home directory the environment names, else the account's. */
function homeOf(env: Environment): string {
  return given(env, 'HOME') ?? given(env, 'USERPROFILE') ?? osHomedir();
}

/**
 * The platform's data and config directories of immoreel, as env-paths names them (docs/jobs.md,
 * docs/remote.md), computed from the environment given rather than the process's own.
 */
export function defaultDirectories(env: Environment, platform: NodeJS.Platform = process.platform): { data: string; config: string } {
  const home = homeOf(env);
  if (platform === 'darwin') {
    return { data: join(home, 'Library', 'Application Support', 'immoreel'), config: join(home, 'Library', 'Preferences', 'immoreel') };
  }
  if (platform === 'win32') {
    const local = given(env, 'LOCALAPPDATA') ?? win32.join(home, 'AppData', 'Local');
    const roaming = given(env, 'APPDATA') ?? win32.join(home, 'AppData', 'Roaming');
    return { data: win32.join(local, 'immoreel', 'Data'), config: win32.join(roaming, 'immoreel', 'Config') };
  }
  return {
    data: join(given(env, 'XDG_DATA_HOME') ?? join(home, '.local', 'share'), 'immoreel'),
    config: join(given(env, 'XDG_CONFIG_HOME') ?? join(home, '.config'), 'immoreel'),
  };
}

/** A flag's value, else the variable's, else none; with where it came from. URLs and keys are trimmed. */
function chosen(flag: string | undefined, env: Environment, name: string, trim: boolean): { value?: string; source: Source } {
  const clean = (text: string | undefined): string | undefined => {
    if (text === undefined || text.trim() === '') return undefined;
    return trim ? text.trim() : text;
  };
  const fromFlag = clean(flag);
  if (fromFlag !== undefined) return { value: fromFlag, source: 'flag' };
  const fromEnv = clean(env[name]);
  if (fromEnv !== undefined) return { value: fromEnv, source: 'env' };
  return { source: 'default' };
}

/** `--metrics-port` / `IMMOREEL_METRICS_PORT`, checked; the error names the one that was given. */
function metricsPort(flag: string | undefined, env: Environment): number | undefined {
  const { value, source } = chosen(flag, env, 'IMMOREEL_METRICS_PORT', true);
  if (value === undefined) return undefined;
  const port = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  const schema = ConfigSchema.properties.metricsPort;
  if (!Value.Check(schema, port)) {
    throw invalid(
      source === 'flag' ? '--metrics-port' : 'IMMOREEL_METRICS_PORT',
      `a port number from ${String(schema.minimum)} to ${String(schema.maximum)}`,
      value,
    );
  }
  return port;
}

function awsVariables(env: Environment): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] => entry[0].startsWith('AWS_') && entry[1] !== undefined && entry[1].trim() !== '',
    ),
  );
}

/**
 * Reads the configuration of a run from the environment and the parsed flags it is given (flags
 * win), checks every value, and returns it whole. Pure: the caller passes `process.env`; nothing
 * here reads it. A bad value is a BAD_REQUEST (exit 2) naming the variable and the form it takes.
 * docs/configuration.md lists every setting.
 */
export function loadConfig(input: LoadConfigInput): Config {
  const { env } = input;
  const flags = input.flags ?? {};
  const directories = defaultDirectories(env, input.platform);
  const dataDir = chosen(flags.dataDir, env, 'IMMOREEL_DATA_DIR', false);
  const databaseUrl = chosen(flags.databaseUrl, env, 'IMMOREEL_DATABASE_URL', true);
  const storageUrl = chosen(flags.storageUrl, env, 'IMMOREEL_STORAGE_URL', true);
  const profile = chosen(flags.profile, env, 'IMMOREEL_PROFILE', true);
  const baseUrl = chosen(flags.baseUrl, env, 'IMMOREEL_BASE_URL', true);
  const apiKey = given(env, 'IMMOREEL_API_KEY')?.trim();
  const configDir = given(env, 'IMMOREEL_CONFIG_DIR');
  const rate = eurToMad(env);
  const ffmpegPath = given(env, 'FFMPEG_PATH');
  const ffprobePath = given(env, 'FFPROBE_PATH');
  const timings = JobTimingSettingsSchema.properties;
  const metrics = { port: metricsPort(flags.metricsPort, env), host: chosen(flags.metricsHost, env, 'IMMOREEL_METRICS_HOST', true).value };
  const sessionTimes = SessionSettingsSchema.properties;
  const config: Config = {
    dataDir: dataDir.value ?? directories.data,
    configDir: configDir ?? directories.config,
    ...(databaseUrl.value === undefined ? {} : { databaseUrl: databaseUrl.value }),
    ...(storageUrl.value === undefined ? {} : { storageUrl: storageUrl.value }),
    ...(profile.value === undefined ? {} : { profile: profile.value }),
    ...(baseUrl.value === undefined ? {} : { baseUrl: baseUrl.value }),
    ...(apiKey === undefined ? {} : { apiKey }),
    insecure: flags.insecure === true,
    allowLoopbackFetch: flags.allowLoopbackFetch === true || booleanSetting(env, 'IMMOREEL_ALLOW_LOOPBACK_FETCH'),
    ...(metrics.port === undefined ? {} : { metricsPort: metrics.port }),
    metricsHost: metrics.host ?? '127.0.0.1',
    trustProxy: flags.trustProxy === true || booleanSetting(env, 'IMMOREEL_TRUST_PROXY'),
    publicHosts: publicHosts(flags.publicHost, env),
    sessions: {
      idleSeconds: integerSetting(env, 'IMMOREEL_SESSION_IDLE_SECONDS', sessionTimes.idleSeconds, 'seconds', 2 * 3600),
      maxSeconds: integerSetting(env, 'IMMOREEL_SESSION_MAX_SECONDS', sessionTimes.maxSeconds, 'seconds', 12 * 3600),
    },
    color: wantsColor(env, flags.color),
    ...(rate === undefined ? {} : { eurToMad: rate }),
    ffmpeg: {
      ...(ffmpegPath === undefined ? {} : { ffmpegPath }),
      ...(ffprobePath === undefined ? {} : { ffprobePath }),
      searchPath: env.PATH ?? '',
    },
    proxy: proxySettings(env),
    aws: awsVariables(env),
    jobs: {
      leaseSeconds: integerSetting(env, 'IMMOREEL_LEASE_SECONDS', timings.leaseSeconds, 'seconds', 60),
      renderExpirySeconds: integerSetting(env, 'IMMOREEL_RENDER_EXPIRY_SECONDS', timings.renderExpirySeconds, 'seconds', 900),
      retryDelaySeconds: integerSetting(env, 'IMMOREEL_RETRY_DELAY_SECONDS', timings.retryDelaySeconds, 'seconds', 10),
      fetchBudgetSeconds: integerSetting(env, 'IMMOREEL_FETCH_BUDGET_SECONDS', timings.fetchBudgetSeconds, 'seconds', 120),
      scratchMinFreeMb: integerSetting(env, 'IMMOREEL_SCRATCH_MIN_FREE_MB', timings.scratchMinFreeMb, 'megabytes', 256),
    },
    startupWaitSeconds: integerSetting(
      env,
      'IMMOREEL_STARTUP_WAIT_SECONDS',
      ConfigSchema.properties.startupWaitSeconds,
      'seconds',
      DEFAULT_STARTUP_WAIT_S,
      { name: '--startup-wait', value: flags.startupWait },
    ),
    remoteWaitSeconds: integerSetting(
      env,
      'IMMOREEL_REMOTE_WAIT_SECONDS',
      ConfigSchema.properties.remoteWaitSeconds,
      'seconds',
      DEFAULT_REMOTE_WAIT_S,
    ),
    display: given(env, 'DISPLAY') !== undefined || given(env, 'WAYLAND_DISPLAY') !== undefined,
    sources: {
      dataDir: dataDir.source,
      databaseUrl: databaseUrl.source,
      storageUrl: storageUrl.source,
      profile: profile.source,
      baseUrl: baseUrl.source,
    },
  };
  // Every value above was checked on its own; this guards the whole against a field added without its check.
  const problem = Value.Errors(ConfigSchema, config).First();
  if (problem !== undefined) {
    throw new AppError('INTERNAL_SERVER_ERROR', `The configuration's ${problem.path} is not valid: ${problem.message}.`);
  }
  return config;
}

import { describe, expect, it } from 'vitest';
import { defaultDirectories, loadConfig, type Environment } from '../../../src/config/index.js';
import { AppError } from '../../../src/core/errors.js';

/** The AppError a configuration is refused with. */
function refusal(env: Environment, flags = {}): AppError {
  try {
    loadConfig({ env, flags, platform: 'linux' });
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(env)} to be refused`);
}

describe('loadConfig', () => {
  it('gives every default from an empty environment', () => {
    const config = loadConfig({ env: { HOME: '/home/ada' }, platform: 'linux' });
    expect(config).toEqual({
      dataDir: '/home/ada/.local/share/immoreel',
      configDir: '/home/ada/.config/immoreel',
      insecure: false,
      allowLoopbackFetch: false,
      metricsHost: '127.0.0.1',
      trustProxy: false,
      publicHosts: [],
      sessions: { idleSeconds: 7200, maxSeconds: 43200 },
      color: true,
      ffmpeg: { searchPath: '' },
      proxy: {},
      aws: {},
      jobs: { leaseSeconds: 60, renderExpirySeconds: 900, retryDelaySeconds: 10, fetchBudgetSeconds: 120, scratchMinFreeMb: 256 },
      startupWaitSeconds: 120,
      remoteWaitSeconds: 120,
      display: false,
      sources: { dataDir: 'default', databaseUrl: 'default', storageUrl: 'default', profile: 'default', baseUrl: 'default' },
    });
  });

  it('reads every variable it knows', () => {
    const config = loadConfig({
      env: {
        HOME: '/home/ada',
        PATH: '/usr/bin:/bin',
        IMMOREEL_DATA_DIR: '/srv/immoreel',
        IMMOREEL_CONFIG_DIR: '/etc/immoreel',
        IMMOREEL_DATABASE_URL: ' postgres://u:pw@db/immoreel ',
        IMMOREEL_STORAGE_URL: 's3://videos/prod',
        IMMOREEL_PROFILE: 'prod',
        IMMOREEL_BASE_URL: 'https://api.example.com',
        IMMOREEL_API_KEY: ' imk_key_0123456789abcdef ',
        IMMOREEL_EUR_TO_MAD: '10.95',
        IMMOREEL_LEASE_SECONDS: '2',
        IMMOREEL_RENDER_EXPIRY_SECONDS: '30',
        IMMOREEL_RETRY_DELAY_SECONDS: '1',
        IMMOREEL_FETCH_BUDGET_SECONDS: '45',
        IMMOREEL_SCRATCH_MIN_FREE_MB: '64',
        IMMOREEL_ALLOW_LOOPBACK_FETCH: '1',
        IMMOREEL_METRICS_PORT: '9464',
        IMMOREEL_METRICS_HOST: '0.0.0.0',
        IMMOREEL_STARTUP_WAIT_SECONDS: '0',
        IMMOREEL_REMOTE_WAIT_SECONDS: '15',
        IMMOREEL_TRUST_PROXY: 'yes',
        IMMOREEL_PUBLIC_HOST: 'Studio.Example.com, 192.0.2.7,[2001:db8::1]',
        IMMOREEL_SESSION_IDLE_SECONDS: '600',
        IMMOREEL_SESSION_MAX_SECONDS: '3600',
        FFMPEG_PATH: '/opt/ffmpeg/bin/ffmpeg',
        FFPROBE_PATH: '/opt/ffmpeg/bin/ffprobe',
        HTTPS_PROXY: 'http://proxy.example:3128',
        no_proxy: 'localhost,.internal',
        NO_COLOR: '1',
        WAYLAND_DISPLAY: 'wayland-0',
        AWS_REGION: 'eu-west-3',
        AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9000',
        AWS_SESSION_TOKEN: '',
      },
      platform: 'linux',
    });
    expect(config).toMatchObject({
      dataDir: '/srv/immoreel',
      configDir: '/etc/immoreel',
      databaseUrl: 'postgres://u:pw@db/immoreel',
      storageUrl: 's3://videos/prod',
      profile: 'prod',
      baseUrl: 'https://api.example.com',
      apiKey: 'imk_key_0123456789abcdef',
      eurToMad: 10.95,
      jobs: { leaseSeconds: 2, renderExpirySeconds: 30, retryDelaySeconds: 1, fetchBudgetSeconds: 45, scratchMinFreeMb: 64 },
      allowLoopbackFetch: true,
      metricsPort: 9464,
      metricsHost: '0.0.0.0',
      startupWaitSeconds: 0,
      remoteWaitSeconds: 15,
      trustProxy: true,
      publicHosts: ['studio.example.com', '192.0.2.7', '[2001:db8::1]'],
      sessions: { idleSeconds: 600, maxSeconds: 3600 },
      ffmpeg: { ffmpegPath: '/opt/ffmpeg/bin/ffmpeg', ffprobePath: '/opt/ffmpeg/bin/ffprobe', searchPath: '/usr/bin:/bin' },
      proxy: { httpsProxy: 'http://proxy.example:3128', noProxy: 'localhost,.internal' },
      color: false,
      display: true,
      // Blank variables count as unset.
      aws: { AWS_REGION: 'eu-west-3', AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9000' },
      sources: { dataDir: 'env', databaseUrl: 'env', storageUrl: 'env', profile: 'env', baseUrl: 'env' },
    });
  });

  it('lets flags override the environment, and says which came from where', () => {
    const config = loadConfig({
      env: { IMMOREEL_DATA_DIR: '/from/env', IMMOREEL_DATABASE_URL: 'postgres://env/db', IMMOREEL_BASE_URL: 'https://env.example.com' },
      flags: {
        dataDir: '/from/flag',
        baseUrl: 'https://flag.example.com',
        color: false,
        insecure: true,
        allowLoopbackFetch: true,
        metricsPort: '0',
        trustProxy: true,
        publicHost: ['a.example', 'b.example,c.example'],
      },
    });
    expect(config.metricsPort).toBe(0);
    expect(config.trustProxy).toBe(true);
    expect(config.publicHosts).toEqual(['a.example', 'b.example', 'c.example']);
    expect(config.dataDir).toBe('/from/flag');
    expect(config.baseUrl).toBe('https://flag.example.com');
    expect(config.databaseUrl).toBe('postgres://env/db');
    expect(config.sources).toMatchObject({ dataDir: 'flag', baseUrl: 'flag', databaseUrl: 'env', storageUrl: 'default' });
    expect([config.color, config.insecure, config.allowLoopbackFetch]).toEqual([false, true, true]);
  });

  it('takes --startup-wait over IMMOREEL_STARTUP_WAIT_SECONDS, and names the flag when its value is wrong', () => {
    expect(loadConfig({ env: { IMMOREEL_STARTUP_WAIT_SECONDS: '30' }, flags: { startupWait: '5' } }).startupWaitSeconds).toBe(5);
    expect(loadConfig({ env: { IMMOREEL_STARTUP_WAIT_SECONDS: '30' } }).startupWaitSeconds).toBe(30);
    expect(() => loadConfig({ env: {}, flags: { startupWait: '2m' } })).toThrow(
      '--startup-wait must be a whole number of seconds from 0 to 3600 (got "2m").',
    );
  });

  it('treats blank values as unset', () => {
    const config = loadConfig({
      env: { HOME: '/h', IMMOREEL_DATA_DIR: '', IMMOREEL_BASE_URL: '  ', NO_COLOR: '' },
      flags: { dataDir: '' },
      platform: 'linux',
    });
    expect(config.dataDir).toBe('/h/.local/share/immoreel');
    expect(config.baseUrl).toBeUndefined();
    expect(config.color).toBe(true);
  });

  it.each([
    ['IMMOREEL_LEASE_SECONDS', 'abc', 'a whole number of seconds from 1 to 86400'],
    ['IMMOREEL_LEASE_SECONDS', '0', 'a whole number of seconds from 1 to 86400'],
    ['IMMOREEL_RENDER_EXPIRY_SECONDS', '90000', 'a whole number of seconds from 1 to 86400'],
    ['IMMOREEL_RETRY_DELAY_SECONDS', '1.5', 'a whole number of seconds from 1 to 86400'],
    ['IMMOREEL_STARTUP_WAIT_SECONDS', '-1', 'a whole number of seconds from 0 to 3600'],
    ['IMMOREEL_REMOTE_WAIT_SECONDS', '7200', 'a whole number of seconds from 0 to 3600'],
    ['IMMOREEL_FETCH_BUDGET_SECONDS', '0', 'a whole number of seconds from 1 to 86400'],
    ['IMMOREEL_EUR_TO_MAD', 'ten', 'a number of dirhams per euro greater than 0 and at most 1000, such as 10.8'],
    ['IMMOREEL_EUR_TO_MAD', '0', 'a number of dirhams per euro greater than 0 and at most 1000, such as 10.8'],
    ['IMMOREEL_EUR_TO_MAD', '-3', 'a number of dirhams per euro greater than 0 and at most 1000, such as 10.8'],
    ['IMMOREEL_ALLOW_LOOPBACK_FETCH', 'maybe', 'one of 1, true, yes, on (on) or 0, false, no, off (off)'],
    ['IMMOREEL_METRICS_PORT', '65536', 'a port number from 0 to 65535'],
    ['IMMOREEL_TRUST_PROXY', 'maybe', 'one of 1, true, yes, on (on) or 0, false, no, off (off)'],
    [
      'IMMOREEL_PUBLIC_HOST',
      'https://studio.example.com',
      'host names without scheme or port, separated by commas, such as studio.example.com',
    ],
    [
      'IMMOREEL_PUBLIC_HOST',
      'studio.example.com:8443',
      'host names without scheme or port, separated by commas, such as studio.example.com',
    ],
    ['IMMOREEL_SESSION_IDLE_SECONDS', '30', 'a whole number of seconds from 60 to 2592000'],
    ['IMMOREEL_SESSION_MAX_SECONDS', '12h', 'a whole number of seconds from 60 to 2592000'],
    ['HTTPS_PROXY', 'proxy.example:3128', 'an http:// or https:// URL such as http://proxy.example:3128'],
    ['http_proxy', 'socks5://proxy:1080', 'an http:// or https:// URL such as http://proxy.example:3128'],
  ])('refuses %s=%s, naming the variable and the form (exit 2)', (name, value, form) => {
    const error = refusal({ [name]: value });
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.exitCode).toBe(2);
    expect(error.reason).toBe('invalid_setting');
    expect(error.message).toBe(`${name} must be ${form} (got ${JSON.stringify(value)}).`);
    expect(error.details).toEqual([{ field: name, message: `must be ${form}` }]);
  });

  it('names --metrics-port when the flag was the bad value', () => {
    const error = refusal({ IMMOREEL_METRICS_PORT: '9464' }, { metricsPort: 'http' });
    expect(error.message).toBe('--metrics-port must be a port number from 0 to 65535 (got "http").');
  });

  it('never repeats a password given in a refused value', () => {
    const error = refusal({ HTTPS_PROXY: 'ftp://user:s3cret@proxy.example' });
    expect(error.message).toContain('HTTPS_PROXY');
    expect(error.message).not.toContain('s3cret');
  });

  it('is pure: the process environment plays no part', () => {
    const before = { ...process.env };
    const config = loadConfig({ env: { HOME: '/nowhere' }, platform: 'linux' });
    expect(config.dataDir).toBe('/nowhere/.local/share/immoreel');
    expect(config.ffmpeg.searchPath).toBe('');
    expect(process.env).toEqual(before);
  });

  it('names the platform directories as env-paths does', () => {
    expect(defaultDirectories({ HOME: '/Users/ada' }, 'darwin')).toEqual({
      data: '/Users/ada/Library/Application Support/immoreel',
      config: '/Users/ada/Library/Preferences/immoreel',
    });
    expect(defaultDirectories({ HOME: '/h', XDG_DATA_HOME: '/xdg/data', XDG_CONFIG_HOME: '/xdg/config' }, 'linux')).toEqual({
      data: '/xdg/data/immoreel',
      config: '/xdg/config/immoreel',
    });
    expect(defaultDirectories({ USERPROFILE: 'C:\\Users\\ada', LOCALAPPDATA: 'C:\\Users\\ada\\AppData\\Local' }, 'win32').data).toBe(
      'C:\\Users\\ada\\AppData\\Local\\immoreel\\Data',
    );
  });
});

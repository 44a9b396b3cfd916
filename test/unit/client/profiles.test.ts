import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.js';
import {
  maskApiKey,
  normalizeBaseUrl,
  ProfileStore,
  resolveRemoteTarget,
  sendsKeyInClear,
  type ProfileRecord,
} from '../../../src/client/profiles.js';
import { loadConfig } from '../../../src/config/index.js';

const KEY = 'imk_zg5QRlb2LfXWJx_R343dTM9umP-eUksM-YSud4jmNHc';

function profile(baseUrl: string, apiKey = KEY): ProfileRecord {
  return {
    base_url: baseUrl,
    api_key: apiKey,
    key_id: 'key_1',
    tenant: 'acme',
    scopes: ['preview:read'],
    plan: 'standard',
    saved_at: '2026-01-01T00:00:00Z',
  };
}

function freshStore(): ProfileStore {
  return new ProfileStore(join(mkdtempSync(join(tmpdir(), 'immoreel-conf-')), 'nested', 'immoreel'));
}

const mode = (path: string): number => statSync(path).mode & 0o777;

describe('ProfileStore', () => {
  it('writes the profiles file 0600 in a 0700 directory, and keeps it so after every write', () => {
    const store = freshStore();
    store.save('default', profile('http://127.0.0.1:8080'));
    expect(mode(store.path)).toBe(0o600);
    expect(mode(store.dir)).toBe(0o700);
    store.save('prod', profile('https://api.example.com'));
    expect(mode(store.path)).toBe(0o600);
    expect(store.list().map((p) => p.name)).toEqual(['default', 'prod']);
    expect(store.get('prod')?.base_url).toBe('https://api.example.com');
  });

  it('brings a file left world-readable back to 0600 when it is loaded', () => {
    const store = freshStore();
    store.save('default', profile('http://127.0.0.1:8080'));
    chmodSync(store.path, 0o644);
    expect(new ProfileStore(store.dir).get('default')?.api_key).toBe(KEY);
    expect(mode(store.path)).toBe(0o600);
  });

  it('removes one profile and leaves the others', () => {
    const store = freshStore();
    store.save('a', profile('http://127.0.0.1:1'));
    store.save('b', profile('http://127.0.0.1:2'));
    expect(store.remove('a')).toBe(true);
    expect(store.remove('a')).toBe(false);
    expect(store.list().map((p) => p.name)).toEqual(['b']);
    expect(JSON.parse(readFileSync(store.path, 'utf8'))).toEqual({ profiles: { b: profile('http://127.0.0.1:2') } });
  });

  it('reports a damaged file clearly instead of wiping it', () => {
    const store = freshStore();
    store.save('a', profile('http://127.0.0.1:1'));
    writeFileSync(store.path, '{ not json');
    expect(() => new ProfileStore(store.dir).list()).toThrow(/is not valid JSON: fix it, or delete it/);
  });

  it('refuses profile names that are not plain words', () => {
    expect(() => freshStore().save('../etc', profile('http://x'))).toThrow(AppError);
  });
});

describe('key masking and URLs', () => {
  it('shows the prefix and the last four characters only', () => {
    expect(maskApiKey(KEY)).toBe('imk_****mNHc');
    expect(maskApiKey('short')).toBe('****');
    expect(maskApiKey(KEY)).not.toContain(KEY.slice(4, 12));
  });

  it('normalises base URLs and refuses other schemes and credentials', () => {
    expect(normalizeBaseUrl('http://127.0.0.1:8080/')).toBe('http://127.0.0.1:8080');
    expect(normalizeBaseUrl('https://x.example/immoreel/api/v1/')).toBe('https://x.example/immoreel');
    expect(() => normalizeBaseUrl('ftp://x')).toThrow(/http:\/\/ or https:\/\//);
    expect(() => normalizeBaseUrl('https://user:pw@x.example')).toThrow(/no credentials/);
    expect(() => normalizeBaseUrl('not a url')).toThrow(/is not a URL/);
  });

  it('flags plain http beyond loopback', () => {
    expect(sendsKeyInClear('http://127.0.0.1:8080')).toBe(false);
    expect(sendsKeyInClear('http://[::1]:8080')).toBe(false);
    expect(sendsKeyInClear('http://immoreel.lan:8080')).toBe(true);
    expect(sendsKeyInClear('https://immoreel.example')).toBe(false);
  });
});

describe('resolveRemoteTarget: flags, then env, then profiles', () => {
  const store = freshStore();
  store.save('default', profile('http://127.0.0.1:8080', 'imk_default_key_aaaaaaaaaaaa'));
  store.save('prod', profile('https://api.example.com', 'imk_prod_key_bbbbbbbbbbbbbbb'));

  it('uses the named profile', () => {
    expect(resolveRemoteTarget({ profile: 'prod' }, store)).toEqual({
      baseUrl: 'https://api.example.com',
      apiKey: 'imk_prod_key_bbbbbbbbbbbbbbb',
      profile: 'prod',
      keySource: 'profile',
    });
  });

  it('finds the profile saved for a --base-url', () => {
    expect(resolveRemoteTarget({ baseUrl: 'https://api.example.com/' }, store).apiKey).toBe('imk_prod_key_bbbbbbbbbbbbbbb');
  });

  it('lets IMMOREEL_API_KEY and IMMOREEL_BASE_URL override profiles (cron)', () => {
    const env = { IMMOREEL_API_KEY: 'imk_env_key_cccccccccccccccc', IMMOREEL_BASE_URL: 'http://10.0.0.5:8080' };
    // What the entry point hands down: flags and environment read into the configuration.
    const target = (flags: { profile?: string; baseUrl?: string }, vars: Record<string, string>): ReturnType<typeof resolveRemoteTarget> =>
      resolveRemoteTarget(loadConfig({ env: vars, flags }), store);
    expect(target({}, env)).toEqual({
      baseUrl: 'http://10.0.0.5:8080',
      apiKey: 'imk_env_key_cccccccccccccccc',
      profile: null,
      keySource: 'environment',
    });
    expect(target({ profile: 'prod' }, { IMMOREEL_API_KEY: 'imk_env_key_cccccccccccccccc' })).toMatchObject({
      baseUrl: 'https://api.example.com',
      apiKey: 'imk_env_key_cccccccccccccccc',
    });
    // A flag beats the environment.
    expect(target({ baseUrl: 'http://127.0.0.1:9999' }, env).baseUrl).toBe('http://127.0.0.1:9999');
  });

  it('says how to log in when there is no key, exit 4', () => {
    const error = (() => {
      try {
        resolveRemoteTarget({ baseUrl: 'http://127.0.0.1:7777' }, store);
      } catch (e) {
        return e as AppError;
      }
      throw new Error('expected an error');
    })();
    expect(error.exitCode).toBe(4);
    expect(error.message).toContain('immoreel auth login --base-url http://127.0.0.1:7777 --api-key-stdin');
    expect(() => resolveRemoteTarget({ profile: 'nope' }, store)).toThrow(/No profile "nope".*profiles: default, prod/);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openServerStore, type ServerStore } from '../../../src/records/sqlite/server-records.js';
import { resolveScopes } from '../../../src/records/api-keys.js';

let dataDir: string;
let store: ServerStore;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'immoreel-keys-'));
  store = openServerStore(dataDir);
});
afterEach(() => {
  store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('API keys', () => {
  it('gives preview keys exactly the two preview scopes and standard keys all three unless narrowed', () => {
    expect(resolveScopes(true, undefined)).toEqual(['preview:read', 'preview:dispatch']);
    expect(resolveScopes(false, undefined)).toEqual(['preview:read', 'preview:dispatch', 'billing:read']);
    expect(resolveScopes(false, ['billing:read', 'preview:read'])).toEqual(['preview:read', 'billing:read']);
    expect(() => resolveScopes(true, ['preview:read', 'billing:read'])).toThrow(/exactly/);
    expect(() => resolveScopes(false, ['admin'])).toThrow(/Unknown scope admin/);
  });

  it('creates random keys, one webhook secret per tenant, and authenticates only active ones', () => {
    const a = store.keys.create({ tenant: 'acme' });
    const b = store.keys.create({ tenant: 'acme', preview: true });
    expect(a.apiKey).not.toBe(b.apiKey);
    expect(a.apiKey).toMatch(/^imk_[A-Za-z0-9_-]{43}$/);
    expect(a.webhookSecret).toBe(b.webhookSecret);
    expect(a.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(store.keys.create({ tenant: 'other' }).webhookSecret).not.toBe(a.webhookSecret);
    expect(store.keys.authenticate(a.apiKey)?.key_id).toBe(a.record.key_id);
    expect(store.keys.authenticate(`${a.apiKey.slice(0, -1)}${a.apiKey.endsWith('A') ? 'B' : 'A'}`)).toBeNull();
    store.keys.revoke(a.record.key_id);
    expect(store.keys.authenticate(a.apiKey)).toBeNull();
    expect(b.record.masked_key).toBe(`imk_${b.apiKey.slice(4, 8)}…${b.apiKey.slice(-4)}`);
    expect(() => store.keys.create({ tenant: '../etc' })).toThrow(/Invalid tenant/);
    expect(() => store.keys.revoke('key_nope')).toThrow(/No API key/);
  });
});

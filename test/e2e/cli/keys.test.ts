import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteRecordStore } from '../../../src/records/sqlite/index.js';
import { runCli } from '../../helpers/cli.js';

/** `immoreel keys` as the built CLI runs it; the key store itself is tested in test/unit/server/keys.test.ts. */

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'immoreel-keys-'));
});
afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

describe('API keys', () => {
  it('refuses bad `keys create` flags as usage errors (exit 2)', async () => {
    const badScope = await runCli(['--data-dir', dataDir, 'keys', 'create', '--tenant', 'acme', '--scopes', 'root']);
    expect(badScope.code).toBe(2);
    expect(badScope.stderr).toMatch(/Unknown scope root/);
    const badQuota = await runCli(['--data-dir', dataDir, 'keys', 'create', '--tenant', 'acme', '--monthly-quota', '-5']);
    expect(badQuota.code).toBe(2);
    expect(badQuota.stderr).toMatch(/--monthly-quota/);
    const missing = await runCli(['--data-dir', dataDir, 'keys', 'revoke', 'key_unknown']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/keys list/);
  });

  it('names the records it writes the key to, and revokes it there', async () => {
    const where = `records: SQLite ${join(dataDir, 'immoreel.db')}`;
    const created = await runCli(['--data-dir', dataDir, 'keys', 'create', '--tenant', 'acme']);
    expect(created.code).toBe(0);
    expect(created.stderr).toContain(`Created in ${where}.`);
    const keyId = /^key_id\s+(\S+)$/m.exec(created.stdout)?.[1];
    const revoked = await runCli(['--data-dir', dataDir, 'keys', 'revoke', String(keyId), '--json']);
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ key_id: keyId, store: where });
  });
});

describe('Studio sessions', () => {
  it('lists the open sessions and ends one by id, naming the store acted on', async () => {
    const records = openSqliteRecordStore(dataDir);
    const { record: key } = await records.keys.create({ tenant: 'acme' });
    const lifetime = { idleMs: 3600_000, maxMs: 7200_000 };
    const opened = await records.sessions.create(key, lifetime);
    await records.sessions.create(key, lifetime);
    const store = `SQLite ${join(dataDir, 'immoreel.db')}`;

    const listed = await runCli(['--data-dir', dataDir, '--json', 'keys', 'sessions']);
    expect(listed.code, listed.stderr).toBe(0);
    const body = JSON.parse(listed.stdout) as { store: string; sessions: { session_id: string; key_id: string }[] };
    expect(body.store).toBe(store);
    expect(body.sessions.map((s) => s.key_id)).toEqual([key.key_id, key.key_id]);
    expect(listed.stdout).not.toContain(opened.token);

    const ended = await runCli(['--data-dir', dataDir, 'keys', 'revoke-session', opened.session.session_id]);
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stderr).toContain(`Ended Studio session ${opened.session.session_id} (key ${key.key_id}, tenant acme) in ${store}.`);
    expect(await records.sessions.authenticate(opened.token, lifetime)).toBeNull();
    const table = await runCli(['--data-dir', dataDir, 'keys', 'sessions', '--tenant', 'acme']);
    expect(table.stderr).toContain(`Studio sessions in ${store}:`);
    expect(table.stdout.trim().split('\n')).toHaveLength(2);
    await records.close();
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
});

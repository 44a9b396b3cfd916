import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { AppError } from '../../../src/core/errors.js';
import { openService } from '../../../src/service/open-service.js';

/** Remote mode never sends the key in clear to another machine unless --insecure says so (docs/security.md). */

let configDir: string;
beforeEach(() => {
  configDir = mkdtempSync(join(tmpdir(), 'immoreel-insecure-'));
});
afterEach(() => {
  rmSync(configDir, { recursive: true, force: true });
});

/** Opens the service the way the CLI does: flags and environment read into one configuration. */
async function refusal(flags: { baseUrl: string; insecure?: boolean }): Promise<AppError | null> {
  const env = { IMMOREEL_CONFIG_DIR: configDir, IMMOREEL_API_KEY: 'imr_test_0123456789abcdefghijklmnopqrstuv' };
  try {
    const service = await openService(loadConfig({ env, flags }));
    await service.close();
    return null;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
}

describe('remote mode over plain http', () => {
  it('refuses a non-loopback http:// server, saying how to proceed', async () => {
    const error = await refusal({ baseUrl: 'http://192.0.2.10:8080' });
    expect(error?.code).toBe('BAD_REQUEST');
    expect(error?.reason).toBe('insecure_transport');
    expect(error?.message).toMatch(/--insecure/);
    expect(error?.message).toMatch(/https:\/\//);
  });

  it('goes ahead with --insecure, over https, and on loopback', async () => {
    expect(await refusal({ baseUrl: 'http://192.0.2.10:8080', insecure: true })).toBeNull();
    expect(await refusal({ baseUrl: 'https://api.example.com' })).toBeNull();
    expect(await refusal({ baseUrl: 'http://127.0.0.1:8080' })).toBeNull();
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.js';
import { openService } from '../../../src/service/open.js';

/** Remote mode never sends the key in clear to another machine unless --insecure says so (docs/security.md). */

let configDir: string;
const saved = { ...process.env };
beforeEach(() => {
  configDir = mkdtempSync(join(tmpdir(), 'immoreel-insecure-'));
  process.env.IMMOREEL_CONFIG_DIR = configDir;
  process.env.IMMOREEL_API_KEY = 'imr_test_0123456789abcdefghijklmnopqrstuv';
  delete process.env.IMMOREEL_BASE_URL;
});
afterEach(() => {
  // Restored in place: a plain object assigned to process.env would no longer reach native code
  // (fontconfig reads FONTCONFIG_FILE, docs/rendering.md "Text (cards.ts)"), and unit files share processes.
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
  rmSync(configDir, { recursive: true, force: true });
});

async function refusal(selection: Parameters<typeof openService>[0]): Promise<AppError | null> {
  try {
    const service = await openService({ ...selection, quiet: true } as Parameters<typeof openService>[0]);
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

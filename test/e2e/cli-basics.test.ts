import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

describe('immoreel CLI conventions', () => {
  it('prints its version and help with examples and exit codes', async () => {
    const version = await runCli(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const help = await runCli(['analyze', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Examples:');
    const top = await runCli(['--help']);
    expect(top.stdout).toContain('Exit codes:');
  });

  it('says it made a data directory private in one plain line, and says nothing after a render', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'immoreel-notice-'));
    try {
      chmodSync(dataDir, 0o755);
      const loose = await runCli(['jobs', 'list', '--data-dir', dataDir]);
      expect(loose.code, loose.stderr).toBe(0);
      expect(loose.stderr).toMatch(/^notice: \d+ file\(s\) and folder\(s\) in .* are now private to you/m);
      expect(loose.stderr).not.toMatch(/\(node:\d+\)|--trace-warnings/);
      // What a render leaves with the default umask inside the (now private) directory.
      mkdirSync(join(dataDir, 'cache', 'render', 'shots'), { recursive: true, mode: 0o755 });
      closeSync(openSync(join(dataDir, 'cache', 'render', 'shots', 'a.jpg'), 'w', 0o644));
      const after = await runCli(['jobs', 'list', '--data-dir', dataDir]);
      expect(after.code, after.stderr).toBe(0);
      expect(after.stderr).toBe('');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses an unknown option as a usage error (exit 2)', async () => {
    const result = await runCli(['analyze', '--no-such-flag']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown option/);
  });

  it('refuses an unknown language naming the allowed values (exit 2)', async () => {
    const result = await runCli(['analyze', '--language', 'de', '--description', 'Villa à Marrakech']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/fr, en, ar/);
  });

  it('refuses an empty description with a JSON error envelope under --json', async () => {
    const result = await runCli(['analyze', '--json', '--description', '   ']);
    expect(result.code).toBe(2);
    const body = JSON.parse(result.stdout) as { ok: boolean; error: { code: string; details: { field: string }[] } };
    expect(body.ok).toBe(false);
    expect(body.error.code).toBe('BAD_REQUEST');
    expect(body.error.details[0]?.field).toBe('description');
  });

  it('refuses a missing input, naming the flags to use', async () => {
    const result = await runCli(['analyze']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--description/);
  });
});

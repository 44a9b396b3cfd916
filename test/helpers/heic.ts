import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real HEIC (HEVC in a HEIF container) of a PNG, made by libheif's `heif-enc` (Debian's
 * libheif-examples, installed by scripts/install-system-deps.sh): the files iPhones write. A test
 * that needs one fails when the tool is missing.
 */
export function heifEncode(png: Buffer, options: { quality?: number } = {}): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'immoreel-heic-'));
  try {
    writeFileSync(join(dir, 'in.png'), png);
    execFileSync('heif-enc', ['-q', String(options.quality ?? 80), '-o', join(dir, 'out.heic'), join(dir, 'in.png')], { stdio: 'pipe' });
    return readFileSync(join(dir, 'out.heic'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

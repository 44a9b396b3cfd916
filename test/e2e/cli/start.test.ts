import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SQLITE_DRIVER } from '../../../src/records/sqlite/driver.js';
import { REPO_ROOT } from '../../helpers/cli.js';

const BIN = fileURLToPath(new URL('../../../bin/immoreel.js', import.meta.url));
const RECORDER = fileURLToPath(new URL('../../helpers/record-loads.mjs', import.meta.url));

/** The packages and native addons a CLI run loads, as the recorder reports them. */
function loadsOf(args: string[]): { packages: Set<string>; native: string[]; code: number | null } {
  const run = spawnSync(process.execPath, ['--import', RECORDER, BIN, ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  const lines = run.stderr.split('\n');
  const packages = new Set(
    lines
      .filter((l) => l.startsWith('LOAD '))
      .map((l) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(l)?.[1])
      .filter((p): p is string => p !== undefined),
  );
  return { packages, native: lines.filter((l) => l.startsWith('DLOPEN ')), code: run.status };
}

describe('CLI start-up', () => {
  it('`--help` loads no native module, no HTTP client, no parser and no store', () => {
    const help = loadsOf(['--help']);
    expect(help.code).toBe(0);
    expect(help.native).toEqual([]);
    // The recorder saw the CLI's own argument parser, so an empty list below is not a silent recorder.
    expect([...help.packages]).toContain('commander');
    for (const heavy of [
      'better-sqlite3',
      'better-sqlite3-napi',
      'undici',
      'cheerio',
      'conf',
      'csv-parse',
      'sharp',
      'fastify',
      'fluent-ffmpeg',
      'ora',
    ]) {
      expect([...help.packages], heavy).not.toContain(heavy);
    }
  });

  it('a subcommand help loads only commander too', () => {
    const help = loadsOf(['render', '--help']);
    expect(help.code).toBe(0);
    expect(help.native).toEqual([]);
    expect([...help.packages]).toEqual(['commander']);
  });

  it('the recorder sees the native SQLite addon when a command needs the store', () => {
    // Proves the check above can fail: `jobs list` opens the job store, through the driver chosen
    // for this Node (better-sqlite3 13's addon is `prebuilds/<platform>.node`, 11's `better_sqlite3.node`).
    const list = loadsOf([
      '--data-dir',
      fileURLToPath(new URL('../../../node_modules/.cache/immoreel-start-test', import.meta.url)),
      'jobs',
      'list',
    ]);
    expect(list.native.join('\n')).toContain(`node_modules/${SQLITE_DRIVER}/`);
  });
});

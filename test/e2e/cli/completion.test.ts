import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';

/* `immoreel completion`: the bash script completes commands, subcommands and their options. */

const dir = mkdtempSync(join(tmpdir(), 'immoreel-completion-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What bash offers after typing `words` (the last one is being completed). */
function complete(script: string, words: string[]): string[] {
  const probe = `source "${script}"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _immoreel; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return execFileSync('bash', ['-c', probe], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l !== '');
}

describe('immoreel completion', () => {
  it('bash completes commands, subcommands and options, global flags anywhere', async () => {
    const result = await runCli(['completion', 'bash']);
    expect(result.code).toBe(0);
    const script = join(dir, 'immoreel.bash');
    writeFileSync(script, result.stdout);
    expect(complete(script, ['immoreel', 're'])).toEqual(['render']);
    expect(complete(script, ['immoreel', 'jobs', 'd'])).toEqual(['download']);
    expect(complete(script, ['immoreel', '--json', 'jobs', 'download', 'job_x', '--fo'])).toEqual(['--force', '--format']);
    expect(complete(script, ['immoreel', 'render', '--out-'])).toEqual(['--out-dir']);
    expect(complete(script, ['immoreel', 'analyze', '--data-'])).toEqual(['--data-dir']);
    expect(complete(script, ['immoreel', 'keys', 'list', '--datab'])).toEqual(['--database-url']);
    expect(complete(script, ['immoreel', 'worker', '--sto'])).toEqual(['--storage-url']);
    expect(complete(script, ['immoreel', 'db', 'm'])).toEqual(['migrate']);
  });

  it('writes fish and zsh scripts, and refuses another shell (exit 2)', async () => {
    expect((await runCli(['completion', 'fish'])).stdout).toMatch(/complete -c immoreel -n '__fish_seen_subcommand_from jobs' -a download/);
    expect((await runCli(['completion', 'zsh'])).stdout).toMatch(/bashcompinit/);
    expect((await runCli(['completion', 'tcsh'])).code).toBe(2);
  });
});

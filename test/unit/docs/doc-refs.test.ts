import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const CHECKER = join(REPO, 'scripts/check-doc-refs.mjs');

/** A scratch tree with the given files (path → text). */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'immoreel-doc-refs-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function check(root: string): { status: number | null; stderr: string } {
  const run = spawnSync(process.execPath, [CHECKER, root], { encoding: 'utf8' });
  return { status: run.status, stderr: run.stderr };
}

const JOBS_DOC = ['# Jobs', '', '## Crash safety', '', '## Measured (`npm run bench:jobs`)', '', '## Dispatch: pg-boss', ''].join('\n');

describe('scripts/check-doc-refs.mjs (npm run lint)', () => {
  it('passes when every file and section named exists, in each form the repository uses', () => {
    const root = tree({
      'docs/jobs.md': JOBS_DOC,
      'src/jobs/pool.ts': [
        '// Crash recovery (docs/jobs.md "Crash safety"), figures in docs/jobs.md, "Measured",',
        '// the queue in docs/jobs.md ("Dispatch"), and a quote that wraps: docs/jobs.md "Crash',
        '// safety". The RFC 9110 §13.1.2 kind of section is not ours and is allowed.',
        'export const x = 1;',
      ].join('\n'),
      'README.md': 'See docs/jobs.md and [the jobs page](docs/jobs.md).\n',
    });
    expect(check(root)).toEqual({ status: 0, stderr: '' });
  });

  it('fails naming file:line and the missing heading, the missing file, and a citation of DESIGN', () => {
    const root = tree({
      'docs/jobs.md': JOBS_DOC,
      'src/jobs/pool.ts': [
        '// ok: docs/jobs.md "Crash safety"',
        '// Retries (docs/jobs.md "Retries"): case counts too: docs/jobs.md "crash safety".',
      ].join('\n'),
      'src/core/requests.ts': '/** Video length bounds (docs/video.md). */\n',
      'src/server/schemas.ts': "export const d = 'A render job (DESIGN §4).';\n",
      'docs/api.md': '# API\n\nSee [jobs](jobs.md) and [gone](gone.md).\n',
    });
    const { status, stderr } = check(root);
    expect(status).toBe(1);
    expect(stderr).toContain('src/jobs/pool.ts:2: docs/jobs.md has no heading "Retries"');
    expect(stderr).toContain('src/jobs/pool.ts:2: docs/jobs.md has no heading "crash safety"');
    expect(stderr).toContain('src/core/requests.ts:1: docs/video.md does not exist');
    expect(stderr).toContain('src/server/schemas.ts:1: cites DESIGN');
    expect(stderr).toContain('docs/api.md:3: the link to gone.md names no file');
    expect(stderr).not.toContain('pool.ts:1');
    expect(stderr).not.toContain('jobs.md names no file');
  });

  it('finds nothing untrue in this repository', () => {
    expect(check(REPO)).toEqual({ status: 0, stderr: '' });
  });
});

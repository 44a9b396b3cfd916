import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Child processes that die with this one (docs/rendering.md "ffmpeg dies with its worker"). A
 * worker killed with SIGKILL runs no handler, and ffmpeg ignores SIGPIPE, so its renders would run
 * on, parentless, until they end. On Linux, util-linux's `setpriv --pdeathsig KILL` asks the kernel
 * to kill the process when its parent dies, and `exec`s the program in place (same pid, so a
 * cancel's kill still reaches ffmpeg itself). fluent-ffmpeg takes one path to run, so the path
 * given to it is a two-line script, `exec setpriv --pdeathsig KILL -- <ffmpeg> "$@"`, written once
 * per binary in a private directory of this process and removed when it exits. Where setpriv is
 * absent (macOS, Windows, a minimal image), the binary is run as it is.
 */

const SETPRIV_PATHS = ['/usr/bin/setpriv', '/bin/setpriv'];

let setpriv: string | null | undefined;
let scriptDir: string | null = null;
const scripts = new Map<string, string>();

/** setpriv with --pdeathsig, if this machine has it (asked once). */
function findSetpriv(): string | null {
  if (setpriv !== undefined) return setpriv;
  setpriv = null;
  if (process.platform !== 'linux') return setpriv;
  for (const candidate of SETPRIV_PATHS) {
    if (!existsSync(candidate)) continue;
    // Older util-linux (before 2.33) has no --pdeathsig: tried once on `true`.
    const tried = spawnSync(candidate, ['--pdeathsig', 'KILL', '--', 'true'], { stdio: 'ignore', timeout: 5_000 });
    if (tried.status === 0) {
      setpriv = candidate;
      break;
    }
  }
  return setpriv;
}

const quoted = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/** The path to run `binary` by so that it dies with this process; `binary` itself where that cannot be had. */
export function tiedToThisProcess(binary: string): string {
  const known = scripts.get(binary);
  if (known !== undefined) return known;
  const tool = findSetpriv();
  if (tool === null) return binary;
  try {
    if (scriptDir === null) {
      // mkdtemp makes the directory 0700: nobody else can swap the script we run.
      const dir = mkdtempSync(join(tmpdir(), 'immoreel-ffmpeg-'));
      scriptDir = dir;
      process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    }
    const script = join(scriptDir, `run-${scripts.size}.sh`);
    writeFileSync(script, `#!/bin/sh\nexec ${quoted(tool)} --pdeathsig KILL -- ${quoted(binary)} "$@"\n`, { mode: 0o700 });
    chmodSync(script, 0o700);
    scripts.set(binary, script);
    return script;
  } catch {
    // A temporary directory that cannot be written is no reason to refuse a render: run untied.
    scripts.set(binary, binary);
    return binary;
  }
}

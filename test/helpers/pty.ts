import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/*
 * A command run in a pseudo-terminal, as a user at a keyboard runs it (docs/cli.md "Terminal
 * tests"): test/helpers/pty-run.py uses python3's pty module (standard library).
 */

const PTY_RUN = fileURLToPath(new URL('./pty-run.py', import.meta.url));

export interface PtyResult {
  code: number | null;
  signal: number | null;
  output: string;
}

/**
 * Runs `argv` in a terminal `columns` wide; types Ctrl-C once `interruptAfter` matches the output,
 * and `typeAfter[1]` once `typeAfter[0]` does.
 */
export function inTerminal(
  argv: string[],
  cwd: string,
  interruptAfter: string | null = null,
  timeoutS = 180,
  typeAfter: [string, string] | null = null,
  columns = 100,
): PtyResult {
  const spec = {
    argv,
    cwd,
    // What a terminal emulator gives a user's shell: a TERM, and none of the variables of a CI run
    // (with CI set, chalk and ora turn colours and live progress off).
    env: {
      TERM: 'xterm-256color',
      NO_COLOR: null,
      FORCE_COLOR: null,
      CI: null,
      CONTINUOUS_INTEGRATION: null,
      BUILD_NUMBER: null,
      RUN_ID: null,
    },
    interrupt_after: interruptAfter,
    type_after: typeAfter,
    timeout_s: timeoutS,
    columns,
  };
  const out = execFileSync('python3', [PTY_RUN, JSON.stringify(spec)], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: (timeoutS + 30) * 1000,
  });
  return JSON.parse(out) as PtyResult;
}

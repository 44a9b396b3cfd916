import { CommanderError } from 'commander';
import { wantsColor, type Environment } from '../config/environment.js';
import type { AppError } from '../core/errors.js';
import { bindEnvironment } from './program-environment.js';
import { interruptedExitCode, wasInterrupted } from './interrupt.js';
import { buildProgram } from './program.js';

/*
 * The CLI's run: the only place that sets the exit code (docs/cli.md, "Exit codes").
 * Commands return or throw; everything thrown becomes one `error:` line (and the JSON envelope
 * with --json). No stack trace reaches the terminal: an unexpected error writes its trace to a
 * file and names it. This module loads only commander and the command definitions, so `--help`
 * stays fast; the output module and each command's code are loaded when needed.
 */

/** Usage errors found by commander itself (unknown option, bad choice…). */
const EXIT_USAGE = 2;

function wantsJson(argv: string[]): boolean {
  return argv.includes('--json');
}

async function report(error: AppError, argv: string[], env: Environment): Promise<void> {
  const { Output } = await import('./output.js');
  // Not the configuration: the error may be that it could not be read.
  const output = new Output({ json: wantsJson(argv), quiet: false, color: wantsColor(env, !argv.includes('--no-color')) });
  // One line: after a batch's NDJSON rows the error envelope must be one more NDJSON record.
  if (output.json) output.record({ ok: false, status: 'error', error: error.toJSON() });
  output.error(error.message);
  for (const detail of error.details) {
    if (!error.message.includes(detail.message)) output.error(`  ${detail.field}: ${detail.message}`);
  }
}

/** `head` closed the pipe: the reader has what it wanted, which is success (docs/cli.md). */
export function endQuietlyOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}

/**
 * Runs the CLI on `argv` (process.argv form) in the environment `env` (the process's, from
 * ./main.ts) and returns the exit code; never exits itself. Every command reads its flags and
 * this environment once, into one checked configuration (./context.ts, docs/configuration.md).
 */
export async function main(argv: string[], env: Environment): Promise<number> {
  const program = buildProgram();
  bindEnvironment(program, env);
  try {
    await program.parseAsync(argv);
    return wasInterrupted() ? interruptedExitCode() : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are exits with code 0; everything else commander rejects is usage.
      return error.exitCode === 0 ? 0 : EXIT_USAGE;
    }
    const { cliError } = await import('./errors.js');
    const appError = await cliError(error);
    if (wasInterrupted()) return interruptedExitCode();
    await report(appError, argv, env);
    return appError.exitCode;
  }
}

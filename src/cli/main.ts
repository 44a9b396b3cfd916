import { CommanderError } from 'commander';
import { toAppError, type AppError } from '../core/errors.js';
import { Output } from './output.js';
import { buildProgram } from './program.js';

/** Exit codes of docs/cli.md that do not come from an AppError. */
const EXIT_USAGE = 2;

function wantsJson(argv: string[]): boolean {
  return argv.includes('--json');
}

function report(error: AppError, argv: string[]): void {
  const output = new Output({ json: wantsJson(argv), quiet: false, color: !argv.includes('--no-color') });
  if (output.json) {
    output.data({ ok: false, status: 'error', error: error.toJSON() });
  }
  output.error(error.message);
  for (const detail of error.details) {
    if (!error.message.includes(detail.message)) output.error(`  ${detail.field}: ${detail.message}`);
  }
  if (error.code === 'INTERNAL_SERVER_ERROR') {
    const cause = error.cause instanceof Error ? error.cause.stack ?? error.cause.message : String(error.cause);
    output.error(`This is a bug in immoreel. Please report it with the command you ran.\n${cause}`);
  }
}

/** The only place that sets the exit code (docs/cli.md). Commands return or throw. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are exits with code 0; everything else commander rejects is usage.
      return error.exitCode === 0 ? 0 : EXIT_USAGE;
    }
    const appError = toAppError(error);
    report(appError, argv);
    return appError.exitCode;
  }
}

const code = await main(process.argv);
// Let stdout drain before exiting so piped JSON is never cut off.
process.exitCode = code;

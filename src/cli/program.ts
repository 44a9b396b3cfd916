import { packageVersion } from '../core/files.js';
import { Command, Option } from 'commander';
import { analyzeCommand } from './commands/analyze.js';
import { doctorCommand } from './commands/doctor.js';
import { renderCommand } from './commands/render.js';
import { templatesCommand } from './commands/templates.js';
import { authCommand } from './commands/auth.js';
import { keysCommand } from './commands/keys.js';
import { serveCommand } from './commands/serve.js';
import { studioCommand } from './commands/studio.js';
import { jobsCommand } from './commands/jobs.js';
import { workerCommand } from './commands/worker.js';

export const EXIT_CODES_HELP = `
Exit codes:
  0  ok                      4  authentication or permission
  1  unexpected error        5  rate limit or quota
  2  invalid input or usage  6  service or portal unreachable
  3  some batch rows failed  7  render job failed`;

/** The commander tree. Commands only parse their options and call one function. */
export function buildProgram(): Command {
  const program = new Command('immoreel')
    .description('Analyze Moroccan property listings and render marketing videos.')
    .version(packageVersion(), '-V, --version')
    .option('--json', 'machine output on stdout: one JSON document (NDJSON for batches)')
    .option('-q, --quiet', 'no messages or progress on stderr (errors still shown)')
    .option('--no-color', 'no colours (NO_COLOR is honoured too)')
    .addOption(new Option('--profile <name>', 'use a saved remote server profile').env('IMMOREEL_PROFILE'))
    .addOption(new Option('--base-url <url>', 'run against an immoreel server (remote mode)'))
    .addOption(new Option('--data-dir <dir>', 'local data directory (jobs, cache)').env('IMMOREEL_DATA_DIR'))
    .option('--insecure', 'allow remote mode over plain http:// to another machine (the API key travels unencrypted)')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .addHelpText('after', EXIT_CODES_HELP);

  program.addCommand(analyzeCommand());
  program.addCommand(renderCommand());
  program.addCommand(templatesCommand());
  program.addCommand(doctorCommand());
  program.addCommand(serveCommand());
  program.addCommand(studioCommand());
  program.addCommand(keysCommand());
  program.addCommand(jobsCommand());
  program.addCommand(workerCommand());
  program.addCommand(authCommand());
  // Usage errors anywhere in the tree must reach main() as exceptions (exit 2), never exit(1).
  const overrideAll = (command: Command): void => {
    command.exitOverride();
    command.commands.forEach(overrideAll);
  };
  overrideAll(program);
  return program;
}

import { Command } from 'commander';
import { packageVersion } from '../core/files.js';
import { analyzeCommand } from './definitions/analyze.js';
import { doctorCommand } from './definitions/doctor.js';
import { renderCommand } from './definitions/render.js';
import { templatesCommand } from './definitions/templates.js';
import { authCommand } from './definitions/auth.js';
import { completionCommand } from './definitions/completion.js';
import { dbCommand } from './definitions/db.js';
import { keysCommand } from './definitions/keys.js';
import { serveCommand } from './definitions/serve.js';
import { studioCommand } from './definitions/studio.js';
import { jobsCommand } from './definitions/jobs.js';
import { workerCommand } from './definitions/worker.js';

export const EXIT_CODES_HELP = `
Exit codes:
  0  ok                      4  authentication or permission
  1  unexpected error        5  rate limit or quota
  2  invalid input or usage  6  service or portal unreachable
  3  some batch rows failed  7  render job failed
130  interrupted (Ctrl-C): the running job was canceled
See docs/cli.md for the situations behind each code.`;

/**
 * The commander tree: every command, option and help text, loaded without any command's code.
 * Each definition in ./definitions/ imports its command module only when the command runs, so
 * `--help` loads neither SQLite, the HTTP client nor the parsers (docs/cli.md, "Start-up").
 * A new command is one definition file and one `addCommand` line below.
 */
export function buildProgram(): Command {
  const program = new Command('immoreel')
    .description('Analyze Moroccan property listings and render marketing videos.')
    .version(packageVersion(), '-V, --version')
    .option('--json', 'machine output on stdout: one JSON document (NDJSON for batches)')
    .option('-q, --quiet', 'no messages or progress on stderr (errors still shown)')
    .option('--no-color', 'no colours (NO_COLOR is honoured too)')
    // Each flag's variable is read with the rest of the environment, once, by loadConfig
    // (docs/configuration.md): commander sees only what was typed, so a flag wins over its variable.
    .option('--profile <name>', 'use a saved remote server profile (env: IMMOREEL_PROFILE)')
    .option('--base-url <url>', 'run against an immoreel server (remote mode) (env: IMMOREEL_BASE_URL)')
    .option('--data-dir <dir>', 'data directory: jobs and cache, or only scratch space with --database-url (env: IMMOREEL_DATA_DIR)')
    .option(
      '--database-url <url>',
      'records in PostgreSQL (postgres://USER:PASSWORD@HOST/DB) instead of the data directory (env: IMMOREEL_DATABASE_URL)',
    )
    .option(
      '--storage-url <url>',
      'photos and videos in s3://BUCKET/PREFIX (or file:///DIR) instead of the data directory (env: IMMOREEL_STORAGE_URL)',
    )
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
  program.addCommand(dbCommand());
  program.addCommand(authCommand());
  program.addCommand(completionCommand());
  // Usage errors anywhere in the tree must reach main() as exceptions (exit 2), never exit(1).
  // Every subcommand's help lists the global flags too.
  const overrideAll = (command: Command): void => {
    command.exitOverride().configureHelp({ showGlobalOptions: true });
    command.commands.forEach(overrideAll);
  };
  overrideAll(program);
  return program;
}

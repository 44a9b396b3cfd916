import { Command, Option } from 'commander';
import { lazy } from './lazy.js';

const EXAMPLES = `
Examples:
  $ immoreel auth login --base-url https://immoreel.example.com --api-key-stdin < key.txt
  $ IMMOREEL_API_KEY=imk_… immoreel auth login --base-url http://127.0.0.1:8080 --profile local
  $ immoreel auth status --json
  $ immoreel --profile local analyze --description "Villa 300 m² avec piscine, Marrakech"
  $ immoreel auth logout --profile local

Profiles live in $IMMOREEL_CONFIG_DIR/profiles.json (default ~/.config/immoreel/profiles.json,
mode 0600). IMMOREEL_API_KEY and IMMOREEL_BASE_URL override any profile (cron, CI).`;

export function authCommand(): Command {
  const auth = new Command('auth')
    .description('Log in to immoreel servers (remote mode) and manage saved profiles.')
    .addHelpText('after', EXAMPLES);

  auth
    .command('login')
    .description('Check an API key against a server (GET /api/v1/me) and save it as a profile.')
    .option('--api-key-stdin', 'read the API key from standard input (hidden prompt on a terminal)')
    .addOption(new Option('--api-key <key>', 'refused: keys on the command line leak into shell history').hideHelp())
    .addHelpText(
      'after',
      '\nThe server comes from --base-url (or IMMOREEL_BASE_URL); the profile name from --profile (default "default").\nThe key comes from --api-key-stdin or IMMOREEL_API_KEY.',
    )
    .action(lazy(async () => (await import('../commands/auth.js')).login));

  auth
    .command('status')
    .description('List saved profiles (keys masked) and check each with the server: scopes and quota use.')
    .action(lazy(async () => (await import('../commands/auth.js')).status));

  auth
    .command('logout')
    .description('Remove a saved profile (--profile, default "default"). The key stays valid on the server.')
    .option('--all', 'remove every saved profile')
    .action(lazy(async () => (await import('../commands/auth.js')).logout));

  for (const sub of auth.commands) sub.exitOverride().showHelpAfterError('(run with --help for usage)');
  return auth;
}

import { Command } from 'commander';
import { lazy } from './lazy.js';
import { SCOPES } from '../../server/api-limits.js';

const EXAMPLES = `
Examples:
  $ immoreel keys create --tenant acme                      # standard key: all scopes, 100000 requests/month
  $ immoreel keys create --tenant sandbox --preview --json  # preview key (preview:read, preview:dispatch)
  $ immoreel keys create --tenant crm --scopes preview:read --monthly-quota 5000
  $ immoreel keys list
  $ immoreel keys revoke key_0123456789abcdef
  $ immoreel keys sessions                                   # Studio sign-ins still open
  $ immoreel keys revoke-session ses_0123456789abcdef

Keys live in the server's data directory (--data-dir / IMMOREEL_DATA_DIR): run these on the
machine that runs \`immoreel serve\`, or anywhere with the same --database-url (PostgreSQL).
A revoked key is refused from the next request on, and its Studio sessions end with it.`;

export function keysCommand(): Command {
  const keys = new Command('keys')
    .description("Manage the API keys of `immoreel serve` (on the server's data directory).")
    .addHelpText('after', EXAMPLES);

  keys
    .command('create')
    .description('Create an API key for a tenant; the key is printed once and only its hash is stored.')
    .requiredOption('--tenant <tenant>', 'the tenant (customer account) the key acts for')
    .option('--preview', 'a sandbox preview key: exactly preview:read and preview:dispatch, 1000 requests/month')
    .option('--scopes <list>', `comma-separated scopes among ${SCOPES.join(', ')} (default: all for standard keys)`)
    .option('--monthly-quota <n>', 'billable requests (analyses + renders) per calendar month')
    .action(lazy(async () => (await import('../commands/keys.js')).createKey));

  keys
    .command('list')
    .description("List keys: ids, tenants, scopes, this month's usage and masked keys.")
    .action(lazy(async () => (await import('../commands/keys.js')).listKeys));

  keys
    .command('revoke')
    .description('Revoke a key: it is refused (401) from the next request on.')
    .argument('<key_id>', 'the key id shown by `keys create` / `keys list`')
    .action(lazy(async () => (await import('../commands/keys.js')).revokeKey));

  keys
    .command('sessions')
    .description('List open Studio sign-ins (sessions): ids, keys, tenants, last use, when they end.')
    .option('--tenant <tenant>', 'only the sessions of this tenant')
    .action(lazy(async () => (await import('../commands/keys.js')).listSessions));

  keys
    .command('revoke-session')
    .description('End a Studio session: its cookie is refused (401) from the next request on. The key stays valid.')
    .argument('<session_id>', 'the session id shown by `keys sessions`')
    .action(lazy(async () => (await import('../commands/keys.js')).revokeSession));

  for (const sub of keys.commands) sub.exitOverride();
  return keys;
}

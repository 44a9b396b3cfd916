import type { Config } from '../config/config-schema.js';

/** Quotes a shell word only when it needs it. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * A database URL fit to print: without its password (node-postgres then reads PGPASSWORD or
 * ~/.pgpass), and nothing at all for a URL it cannot read.
 */
function printableDatabaseUrl(url: string): string | null {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    for (const name of ['password', 'sslpassword']) parsed.searchParams.delete(name);
    return parsed.href;
  } catch {
    return null;
  }
}

/**
 * A follow-up command to print for the user (`immoreel jobs wait ID`), keeping the global flags
 * that select where the jobs are: --data-dir, --database-url (without its password), --storage-url,
 * --profile and --base-url (docs/cli.md, "Hints"). Only values typed as flags are repeated: what
 * came from the environment, the next command sees too.
 */
export function followUp(
  config: Pick<Config, 'sources' | 'dataDir' | 'databaseUrl' | 'storageUrl' | 'profile' | 'baseUrl'>,
  ...args: string[]
): string {
  const words = ['immoreel'];
  const typed = (key: keyof Config['sources'], value: string | undefined): value is string =>
    config.sources[key] === 'flag' && value !== undefined;
  if (typed('dataDir', config.dataDir)) words.push('--data-dir', config.dataDir);
  const database = typed('databaseUrl', config.databaseUrl) ? printableDatabaseUrl(config.databaseUrl) : null;
  if (database !== null) words.push('--database-url', database);
  if (typed('storageUrl', config.storageUrl)) words.push('--storage-url', config.storageUrl);
  if (typed('profile', config.profile)) words.push('--profile', config.profile);
  if (typed('baseUrl', config.baseUrl)) words.push('--base-url', config.baseUrl);
  return [...words, ...args].map(shellWord).join(' ');
}

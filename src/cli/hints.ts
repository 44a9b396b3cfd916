import type { GlobalOptions } from './command-context.js';

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
 * --profile and --base-url (docs/cli.md, "Hints").
 */
export function followUp(globals: GlobalOptions, ...args: string[]): string {
  const words = ['immoreel'];
  if (globals.dataDir !== undefined && globals.dataDir !== '' && globals.dataDir !== process.env.IMMOREEL_DATA_DIR)
    words.push('--data-dir', globals.dataDir);
  const database =
    globals.databaseUrl === undefined || globals.databaseUrl === process.env.IMMOREEL_DATABASE_URL
      ? null
      : printableDatabaseUrl(globals.databaseUrl);
  if (database !== null) words.push('--database-url', database);
  if (globals.storageUrl !== undefined && globals.storageUrl !== '' && globals.storageUrl !== process.env.IMMOREEL_STORAGE_URL)
    words.push('--storage-url', globals.storageUrl);
  if (globals.profile !== undefined && globals.profile !== process.env.IMMOREEL_PROFILE) words.push('--profile', globals.profile);
  if (globals.baseUrl !== undefined && globals.baseUrl !== '' && globals.baseUrl !== process.env.IMMOREEL_BASE_URL)
    words.push('--base-url', globals.baseUrl);
  return [...words, ...args].map(shellWord).join(' ');
}

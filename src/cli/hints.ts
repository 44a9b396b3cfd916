import type { GlobalOptions } from './context.js';

/** Quotes a shell word only when it needs it. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * A follow-up command to print for the user (`immoreel jobs wait ID`), keeping the global flags
 * that select where the jobs are: --data-dir, --profile and --base-url (docs/cli.md, "Hints").
 */
export function followUp(globals: GlobalOptions, ...args: string[]): string {
  const words = ['immoreel'];
  if (globals.dataDir !== undefined && globals.dataDir !== '' && globals.dataDir !== process.env.IMMOREEL_DATA_DIR)
    words.push('--data-dir', globals.dataDir);
  if (globals.profile !== undefined && globals.profile !== process.env.IMMOREEL_PROFILE) words.push('--profile', globals.profile);
  if (globals.baseUrl !== undefined && globals.baseUrl !== '' && globals.baseUrl !== process.env.IMMOREEL_BASE_URL)
    words.push('--base-url', globals.baseUrl);
  return [...words, ...args].map(shellWord).join(' ');
}

/** An environment as a process is given it (`process.env` at the entry points, a plain object in tests). */
export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * Colours wanted: not turned off by `--no-color` (false) nor by a non-empty NO_COLOR (no-color.org).
 * Apart from ./load.ts so that the CLI's error report, which may follow a configuration that could
 * not be read, decides it without loading the schema.
 */
export function wantsColor(env: Environment, flag: boolean | undefined): boolean {
  return flag !== false && (env.NO_COLOR ?? '') === '';
}

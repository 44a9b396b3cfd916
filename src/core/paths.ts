import envPaths from 'env-paths';

/** The data directory (docs/jobs.md): --data-dir, then IMMOREEL_DATA_DIR, then ~/.local/share/immoreel. */
export function resolveDataDir(flag?: string): string {
  if (flag !== undefined && flag !== '') return flag;
  const fromEnv = process.env.IMMOREEL_DATA_DIR;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  return envPaths('immoreel', { suffix: '' }).data;
}

import type { Backends } from './backends.js';

/**
 * Where jobs are kept, as `--database-url` / `--storage-url` name it (docs/scaling.md
 * "Configuration"): `openBackends` (checked, migrated, clear errors) when either is set; null for
 * the embedded default (both unset), where the job layer opens the data directory's SQLite file
 * and files itself, exactly as before. Loaded lazily so that commands on the embedded default
 * never load pg, pg-boss or the AWS SDK.
 */
export type JobBackends = Backends;

export async function openJobBackends(options: {
  dataDir: string;
  databaseUrl?: string;
  storageUrl?: string;
  /** The AWS_* variables of the configuration (an s3:// storage URL). */
  aws?: Readonly<Record<string, string>>;
  /** Where notes on a working but risky configuration go (default: a process notice). */
  warn?: (message: string) => void;
}): Promise<JobBackends | null> {
  const databaseUrl = options.databaseUrl?.trim() || undefined;
  const storageUrl = options.storageUrl?.trim() || undefined;
  if (databaseUrl === undefined && storageUrl === undefined) return null;
  const { openBackends } = await import('./backends.js');
  return openBackends({ dataDir: options.dataDir, databaseUrl, storageUrl, env: options.aws, warn: options.warn });
}

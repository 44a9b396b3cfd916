/**
 * "Remote or local?" — decided here and nowhere else (docs/cli.md, "Local and remote mode").
 * A saved profile or a base URL (--profile/--base-url, or IMMOREEL_PROFILE/IMMOREEL_BASE_URL, as
 * the configuration read them: docs/configuration.md) selects a remote immoreel server; otherwise
 * everything runs in this process on the local data directory.
 */
export interface ServiceSelection {
  profile?: string;
  baseUrl?: string;
  dataDir?: string;
  /** Local mode: records in PostgreSQL (`--database-url`), blobs in S3 (`--storage-url`); docs/scaling.md "Configuration". */
  databaseUrl?: string;
  storageUrl?: string;
  /** Accept plain http:// to a non-loopback server (`--insecure`): the API key travels unencrypted. */
  insecure?: boolean;
}

export type ServiceMode = 'local' | 'remote';

export function serviceMode(selection: ServiceSelection): ServiceMode {
  const baseUrl = selection.baseUrl?.trim() ?? '';
  return selection.profile !== undefined || baseUrl !== '' ? 'remote' : 'local';
}

import type { Command } from 'commander';
import { badRequest } from '../core/errors.js';
import { resolveDataDir } from '../core/paths.js';
import type { Service } from '../core/service.js';
import type { Backends } from '../records/backends.js';
import type { JobStores } from '../records/job-backends.js';
import { serviceMode, type ServiceMode } from '../service/mode.js';
import { Output } from './output.js';

/** Options every command accepts (docs/cli.md), read with commander's optsWithGlobals(). */
export interface GlobalOptions {
  json?: boolean;
  quiet?: boolean;
  color?: boolean;
  profile?: string;
  baseUrl?: string;
  dataDir?: string;
  /** `--database-url` / `IMMOREEL_DATABASE_URL` (docs/scaling.md "Configuration"). */
  databaseUrl?: string;
  /** `--storage-url` / `IMMOREEL_STORAGE_URL`. */
  storageUrl?: string;
  /** Remote mode over plain http:// to a non-loopback host, accepted knowingly. */
  insecure?: boolean;
}

export interface CommandContext {
  output: Output;
  globals: GlobalOptions;
  /** Local or remote, as the globals select (the one decision: src/service/mode.ts). */
  mode: ServiceMode;
  /** Opens the local or remote Service as the globals select; the caller closes it. */
  openService(options?: { concurrency?: number }): Promise<Service>;
  /**
   * Where records and blobs are (`--data-dir`, `--database-url`, `--storage-url`, each flag then
   * environment), for `openBackends` and the constructors that take its options. Refuses the two
   * URL flags typed on the command line in remote mode: the server has its own configuration.
   */
  backendOptions(): BackendSelection;
  /**
   * With `--database-url` or `--storage-url`: both stores opened, checked and migrated (a bad
   * configuration stops the command here, before anything starts, with its exit code); null for
   * the embedded default, which the commands open as they always did.
   */
  openConfiguredBackends(): Promise<Backends | null>;
  /** The job records and video store the job layer is given: the configured ones, or the data directory's. */
  openJobStores(): Promise<JobStores>;
}

export interface BackendSelection {
  dataDir: string;
  databaseUrl?: string;
  storageUrl?: string;
  warn: (message: string) => void;
}

/** `--database-url`/`--storage-url` typed with `--profile`/`--base-url` would be ignored: refused (docs/cli.md "Conflicting flags"). */
function refuseBackendFlagsInRemoteMode(command: Command): void {
  for (const [key, flag] of [
    ['databaseUrl', '--database-url'],
    ['storageUrl', '--storage-url'],
  ] as const) {
    if (command.getOptionValueSourceWithGlobals(key) === 'cli') {
      throw badRequest(
        `${flag} configures this machine's own records and files; with --profile or --base-url the remote server uses its own. Drop ${flag}, or drop --profile/--base-url to work locally.`,
        { reason: 'conflicting_flags' },
      );
    }
  }
}

export function contextFor(command: Command): CommandContext {
  const globals = command.optsWithGlobals<GlobalOptions>();
  const output = new Output({
    json: Boolean(globals.json),
    quiet: Boolean(globals.quiet),
    // `render --color #RRGGBB` is the agency colour: only the global --no-color (false) turns colours off.
    color: globals.color !== false,
  });
  const backendOptions = (): BackendSelection => {
    if (serviceMode(globals) === 'remote') refuseBackendFlagsInRemoteMode(command);
    const given = (value: string | undefined): string | undefined =>
      value === undefined || value.trim() === '' ? undefined : value.trim();
    return {
      dataDir: resolveDataDir(globals.dataDir),
      databaseUrl: given(globals.databaseUrl),
      storageUrl: given(globals.storageUrl),
      warn: (message) => output.warn(message),
    };
  };
  return {
    output,
    globals,
    mode: serviceMode(globals),
    async openService(options = {}) {
      if (serviceMode(globals) === 'remote') refuseBackendFlagsInRemoteMode(command);
      // Lazy: the remote client and the job store are only loaded by the commands that need them.
      const { openService } = await import('../service/open-service.js');
      return openService({ ...globals, ...options, warn: (message) => output.warn(message) });
    },
    backendOptions,
    async openConfiguredBackends() {
      const options = backendOptions();
      if (options.databaseUrl === undefined && options.storageUrl === undefined) return null;
      const { openBackends } = await import('../records/backends.js');
      return openBackends(options);
    },
    async openJobStores() {
      const { openJobStores } = await import('../records/job-backends.js');
      return openJobStores(backendOptions());
    },
  };
}

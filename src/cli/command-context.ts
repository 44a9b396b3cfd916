import { join } from 'node:path';
import type { Command } from 'commander';
import type { Environment } from '../config/environment.js';
import { loadConfig } from '../config/load.js';
import type { Config } from '../config/config-schema.js';
import { AppError, badRequest } from '../core/errors.js';
import { redactSecrets } from '../core/redact.js';
import type { Service } from '../core/service.js';
import type { Backends } from '../records/backends.js';
import type { JobStores } from '../records/job-backends.js';
// Types and one pure test only: the stores themselves are loaded when a command opens them.
import { namesSharedBackends } from '../records/open-backends.js';
import type { RecordStore } from '../records/types.js';
import { serviceMode, type ServiceMode, type ServiceSelection } from '../service/mode.js';
import { environmentOf } from './program-environment.js';
import { Output } from './output.js';

/**
 * Options every command accepts (docs/cli.md), read with commander's optsWithGlobals(): only what
 * was typed. The environment's values come in through `CommandContext.config`.
 */
export interface GlobalOptions extends ServiceSelection {
  json?: boolean;
  quiet?: boolean;
  color?: boolean;
}

export interface CommandContext {
  output: Output;
  /** The flags typed; `config` has what they select, the environment's values included. */
  globals: GlobalOptions;
  /** The run's configuration: flags and environment, read once and checked (docs/configuration.md). */
  config: Config;
  /** The environment the CLI was started with, for the processes it starts. */
  environment: Environment;
  /** Local or remote, as the configuration selects (the one decision: src/service/mode.ts). */
  mode: ServiceMode;
  /** Opens the local or remote Service as the configuration selects; the caller closes it. */
  openService(options?: { concurrency?: number }): Promise<Service>;
  /**
   * Where records and blobs are (`--data-dir`, `--database-url`, `--storage-url`, each flag then
   * environment), for `openBackends` and the constructors that take its options. Refuses the two
   * URL flags typed on the command line in remote mode: the server has its own configuration.
   */
  backendOptions(): BackendSelection;
  /**
   * Both stores, through `openBackends` (src/records/open-backends.ts): with `--database-url` or
   * `--storage-url` opened, checked and migrated (a bad configuration stops the command here,
   * before anything starts, with its exit code), and a database or storage not reachable yet is
   * waited for, up to `--startup-wait` (docs/operations.md "Start-up"), each wait announced
   * through `note` (default: a warning on stderr); otherwise the data directory's own.
   */
  openBackends(options?: { note?: (message: string) => void }): Promise<Backends>;
  /** The record store alone (`keys`, `db`, the Studio's sign-in key), through the same `openBackends`. */
  openRecords(): Promise<RecordStore>;
  /** Whether `--database-url` or `--storage-url` names stores of their own (not the data directory's). */
  namesSharedBackends(): boolean;
  /** The job records and video store the job layer is given: the configured ones, or the data directory's. */
  openJobStores(): Promise<JobStores>;
  /**
   * The records a local command changes, as `records: SQLite …/immoreel.db` or `records:
   * PostgreSQL postgres://user:***@host/db`: every command that changes or deletes data names the
   * store it acts on (docs/cli.md "Database and storage"), so a forgotten variable is noticed.
   */
  recordsLabel(): string;
}

export interface BackendSelection {
  dataDir: string;
  databaseUrl?: string;
  storageUrl?: string;
  /** The AWS_* variables of the configuration, for an s3:// storage URL. */
  env: Readonly<Record<string, string>>;
  warn: (message: string) => void;
}

/** `--database-url`/`--storage-url` typed with `--profile`/`--base-url` would be ignored: refused (docs/cli.md "Conflicting flags"). */
function refuseBackendFlagsInRemoteMode(config: Config): void {
  for (const [key, flag] of [
    ['databaseUrl', '--database-url'],
    ['storageUrl', '--storage-url'],
  ] as const) {
    if (config.sources[key] === 'flag') {
      throw badRequest(
        `${flag} configures this machine's own records and files; with --profile or --base-url the remote server uses its own. Drop ${flag}, or drop --profile/--base-url to work locally.`,
        { reason: 'conflicting_flags' },
      );
    }
  }
}

export function contextFor(command: Command): CommandContext {
  const globals = command.optsWithGlobals<
    GlobalOptions & {
      allowLoopbackFetch?: boolean;
      metricsPort?: string;
      metricsHost?: string;
      startupWait?: string;
      trustProxy?: boolean;
      publicHost?: string[];
    }
  >();
  const environment = environmentOf(command);
  if (environment === null) throw new AppError('INTERNAL_SERVER_ERROR', 'The command was run without its environment (see ./run.ts main).');
  const config = loadConfig({ env: environment, flags: globals });
  const output = new Output({
    json: Boolean(globals.json),
    quiet: Boolean(globals.quiet),
    // `render --color #RRGGBB` is the agency colour: only the global --no-color (false) turns colours off.
    color: config.color,
  });
  const mode = serviceMode(config);
  const backendOptions = (): BackendSelection => {
    if (mode === 'remote') refuseBackendFlagsInRemoteMode(config);
    return {
      dataDir: config.dataDir,
      databaseUrl: config.databaseUrl,
      storageUrl: config.storageUrl,
      env: config.aws,
      warn: (message) => output.warn(message),
    };
  };
  return {
    output,
    globals,
    config,
    environment,
    mode,
    async openService(options = {}) {
      if (mode === 'remote') refuseBackendFlagsInRemoteMode(config);
      // Lazy: the remote client and the job store are only loaded by the commands that need them.
      const { openService } = await import('../service/open-service.js');
      return openService(config, { ...options, warn: (message) => output.warn(message) });
    },
    backendOptions,
    async openBackends({ note = (message: string) => output.warn(message) } = {}) {
      const options = backendOptions();
      const { openBackends } = await import('../records/open-backends.js');
      if (!namesSharedBackends(options)) return openBackends(options);
      const { waitForBackends } = await import('../records/startup-wait.js');
      return waitForBackends(() => openBackends(options), { budgetMs: config.startupWaitSeconds * 1000, note });
    },
    async openRecords() {
      const { openBackends } = await import('../records/open-backends.js');
      return openBackends(backendOptions(), { only: 'records' });
    },
    namesSharedBackends: () => namesSharedBackends(backendOptions()),
    recordsLabel() {
      const { dataDir, databaseUrl } = backendOptions();
      return databaseUrl === undefined
        ? `records: SQLite ${join(dataDir, 'immoreel.db')}`
        : `records: PostgreSQL ${redactSecrets(databaseUrl)}`;
    },
    async openJobStores() {
      const { openJobStores } = await import('../records/job-backends.js');
      return openJobStores(backendOptions());
    },
  };
}

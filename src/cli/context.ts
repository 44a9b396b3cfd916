import type { Command } from 'commander';
import type { Service } from '../core/service.js';
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
  /** Remote mode over plain http:// to a non-loopback host, accepted knowingly. */
  insecure?: boolean;
  /** `--database-url` / `IMMOREEL_DATABASE_URL` and `--storage-url` / `IMMOREEL_STORAGE_URL` (docs/scaling.md). */
  databaseUrl?: string;
  storageUrl?: string;
}

/** The backends the globals name: the flags when given, else the environment (docs/scaling.md "Configuration"). */
export function backendUrls(globals: GlobalOptions): { databaseUrl?: string; storageUrl?: string } {
  return {
    databaseUrl: globals.databaseUrl ?? process.env.IMMOREEL_DATABASE_URL,
    storageUrl: globals.storageUrl ?? process.env.IMMOREEL_STORAGE_URL,
  };
}

export interface CommandContext {
  output: Output;
  globals: GlobalOptions;
  /** Local or remote, as the globals select (the one decision: src/service/mode.ts). */
  mode: ServiceMode;
  /** Opens the local or remote Service as the globals select; the caller closes it. */
  openService(options?: { concurrency?: number }): Promise<Service>;
}

export function contextFor(command: Command): CommandContext {
  const globals = command.optsWithGlobals<GlobalOptions>();
  const output = new Output({
    json: Boolean(globals.json),
    quiet: Boolean(globals.quiet),
    // `render --color #RRGGBB` is the agency colour: only the global --no-color (false) turns colours off.
    color: globals.color !== false,
  });
  return {
    output,
    globals,
    mode: serviceMode(globals),
    async openService(options = {}) {
      // Lazy: the remote client and the job store are only loaded by the commands that need them.
      const { openService } = await import('../service/open.js');
      return openService({ ...globals, ...backendUrls(globals), ...options, warn: (message) => output.warn(message) });
    },
  };
}

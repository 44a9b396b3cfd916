import type { Config } from '../config/config-schema.js';
import type { Service } from '../core/service.js';
import { serviceMode } from './mode.js';

export type { ServiceSelection } from './mode.js';

export interface OpenServiceOptions {
  /** Local mode: renders at once in this process (batches set it from --concurrency). */
  concurrency?: number;
  /** Where warnings about the connection go (remote mode: a plain-http server, for instance). */
  warn?: (message: string) => void;
}

/**
 * Local mode unless the configuration's profile or base URL selects a remote server (./mode.ts).
 * The configuration was read by the entry point (docs/configuration.md); each mode takes what it needs.
 */
export async function openService(config: Config, options: OpenServiceOptions = {}): Promise<Service> {
  if (serviceMode(config) === 'remote') {
    const { openRemoteService } = await import('../client/open-remote.js');
    return openRemoteService({
      configDir: config.configDir,
      ...(config.profile === undefined ? {} : { profile: config.profile }),
      ...(config.baseUrl === undefined ? {} : { baseUrl: config.baseUrl }),
      ...(config.apiKey === undefined ? {} : { apiKey: config.apiKey }),
      insecure: config.insecure,
      outageWaitMs: config.remoteWaitSeconds * 1000,
      ...(options.warn === undefined ? {} : { warn: options.warn }),
    });
  }
  const { LocalService } = await import('./local-service.js');
  // databaseUrl/storageUrl: LocalService opens them with openJobStores (src/records/job-backends.ts).
  return new LocalService({
    dataDir: config.dataDir,
    ffmpeg: config.ffmpeg,
    proxy: config.proxy,
    timings: config.jobs,
    aws: config.aws,
    ...(config.eurToMad === undefined ? {} : { eurToMad: config.eurToMad }),
    ...(config.databaseUrl === undefined ? {} : { databaseUrl: config.databaseUrl }),
    ...(config.storageUrl === undefined ? {} : { storageUrl: config.storageUrl }),
    concurrency: options.concurrency,
    warn: options.warn,
  });
}

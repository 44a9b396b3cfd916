import type { Service } from '../core/service.js';
import { serviceMode, type ServiceSelection } from './mode.js';

export type { ServiceSelection } from './mode.js';

export interface OpenServiceOptions extends ServiceSelection {
  /** Local mode: renders at once in this process (batches set it from --concurrency). */
  concurrency?: number;
  /** Local mode: PostgreSQL and object storage instead of the data directory (docs/scaling.md). */
  databaseUrl?: string;
  storageUrl?: string;
  /** Where warnings about the connection go (remote mode: a plain-http server, for instance). */
  warn?: (message: string) => void;
}

/** Local mode unless a profile or base URL selects a remote server (./mode.ts). */
export async function openService(options: OpenServiceOptions): Promise<Service> {
  if (serviceMode(options) === 'remote') {
    const { openRemoteService } = await import('../client/open-remote.js');
    return openRemoteService(options);
  }
  const { LocalService } = await import('./local-service.js');
  // databaseUrl/storageUrl: LocalService opens them with openBackends (src/records/backends.ts).
  const backends = { databaseUrl: options.databaseUrl, storageUrl: options.storageUrl };
  return new LocalService({ dataDir: options.dataDir, concurrency: options.concurrency, warn: options.warn, ...backends });
}

import type { Service } from '../core/types.js';
import { LocalService } from './local.js';

export interface ServiceSelection {
  profile?: string;
  baseUrl?: string;
  dataDir?: string;
  insecure?: boolean;
}

/** Local mode unless a profile or base URL selects a remote server (docs/cli.md). */
export async function openService(selection: ServiceSelection): Promise<Service> {
  const baseUrl = selection.baseUrl ?? process.env.IMMOREEL_BASE_URL;
  if (selection.profile !== undefined || (baseUrl !== undefined && baseUrl !== '')) {
    const { openRemoteService } = await import('../client/open.js');
    return openRemoteService(selection);
  }
  return new LocalService({ dataDir: selection.dataDir });
}

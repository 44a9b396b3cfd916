import { AppError } from '../core/errors.js';
import type { Service } from '../core/types.js';
import { LocalService } from './local.js';

export interface ServiceSelection {
  profile?: string;
  baseUrl?: string;
  dataDir?: string;
}

/** Local mode unless a profile or base URL selects a remote server (DESIGN §6). */
export async function openService(selection: ServiceSelection): Promise<Service> {
  const baseUrl = selection.baseUrl ?? process.env.IMMOREEL_BASE_URL;
  if (selection.profile !== undefined || (baseUrl !== undefined && baseUrl !== '')) {
    throw new AppError('SERVICE_UNAVAILABLE', 'Remote mode (--profile / --base-url) is not available in this version yet.');
  }
  return new LocalService({ dataDir: selection.dataDir });
}

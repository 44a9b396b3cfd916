import { join } from 'node:path';
import { Output } from '../cli/output.js';
import { assertKeyTransport, ProfileStore, resolveRemoteTarget, sendsKeyInClear, type RemoteSelection } from './profiles.js';
import { RemoteService } from './remote-service.js';

export interface RemoteOpenOptions extends RemoteSelection {
  /** The CLI's globals, when present: warnings respect --quiet and --no-color. */
  quiet?: boolean;
  color?: boolean;
}

/**
 * Remote mode's entry point (called by src/service/open.ts when --profile, --base-url or
 * IMMOREEL_BASE_URL select it): resolves server and key from flags, env and saved profiles.
 */
export async function openRemoteService(selection: RemoteOpenOptions): Promise<RemoteService> {
  const store = new ProfileStore();
  const target = resolveRemoteTarget(selection, store);
  const output = new Output({ json: false, quiet: selection.quiet === true, color: selection.color !== false });
  assertKeyTransport(target.baseUrl, selection.insecure);
  if (sendsKeyInClear(target.baseUrl)) {
    output.warn(`${target.baseUrl} is plain http: the API key travels unencrypted over the network; use https.`);
  }
  return new RemoteService({
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    warn: (message) => output.warn(message),
    assetCacheFile: join(store.dir, 'asset-cache.json'),
  });
}

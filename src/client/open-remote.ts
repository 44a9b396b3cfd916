import { join } from 'node:path';
import { assertKeyTransport, ProfileStore, resolveRemoteTarget, sendsKeyInClear, type RemoteSelection } from './profiles.js';
import { RemoteService } from './remote-service.js';

export interface RemoteOpenOptions extends RemoteSelection {
  /** Where saved profiles are (`Config.configDir`). */
  configDir: string;
  /** Where warnings go (the CLI passes its own output, so they follow --quiet and --no-color). */
  warn?: (message: string) => void;
  /** How long a request waits out a server that is down (`IMMOREEL_REMOTE_WAIT_SECONDS`, docs/remote.md "Outages"). */
  outageWaitMs?: number;
}

/**
 * Remote mode's entry point (called by src/service/open-service.ts when --profile, --base-url or
 * IMMOREEL_BASE_URL select it): resolves server and key from flags, env and saved profiles.
 */
export async function openRemoteService(selection: RemoteOpenOptions): Promise<RemoteService> {
  const store = new ProfileStore(selection.configDir);
  const target = resolveRemoteTarget(selection, store);
  const warn = selection.warn ?? ((message: string) => process.stderr.write(`warning: ${message}\n`));
  assertKeyTransport(target.baseUrl, selection.insecure);
  if (sendsKeyInClear(target.baseUrl)) {
    warn(`${target.baseUrl} is plain http: the API key travels unencrypted over the network; use https.`);
  }
  return new RemoteService({
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    warn,
    ...(selection.outageWaitMs === undefined ? {} : { outageWaitMs: selection.outageWaitMs }),
    assetCacheFile: join(store.dir, 'asset-cache.json'),
  });
}

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import type { RecordStore } from '../../records/types.js';
import { contextFor } from '../command-context.js';
import { serverSettings, wholeNumber } from './serve.js';

export interface StudioFlags {
  port: string;
  tenant: string;
  browser: boolean;
  concurrency?: string;
}

/** Opens the link in the desktop's browser when there is one (`display`: a graphical session); silently does nothing otherwise. */
function openBrowser(url: string, display: boolean): boolean {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : display
          ? ['xdg-open', [url]]
          : [null, []];
  if (command === null) return false;
  const child = spawn(command, args as string[], { stdio: 'ignore', detached: true });
  child.on('error', () => undefined);
  child.unref();
  return true;
}

/** `studio`: the service on 127.0.0.1 with the Studio page and a one-time sign-in link. */
export async function studio(flags: StudioFlags, command: Command): Promise<void> {
  const ctx = contextFor(command);
  const { dataDir } = ctx.config;
  const concurrency = flags.concurrency === undefined ? undefined : wholeNumber(flags.concurrency, '--concurrency', 1, 30);
  const port = wholeNumber(flags.port, '--port', 0, 65535);
  // Loaded here: fastify and the job layer are only needed by the commands that serve.
  const { startServer } = await import('../../server/start.js');
  const { databaseUrl, storageUrl } = ctx.backendOptions();
  const withKeys = async <T>(work: (keys: RecordStore['keys']) => Promise<T>): Promise<T> => {
    const records = await ctx.openRecords();
    try {
      return await work(records.keys);
    } finally {
      await records.close();
    }
  };
  const created = await withKeys((keys) => keys.create({ tenant: flags.tenant }));
  const token = randomBytes(24).toString('base64url');
  const server = await startServer({
    ...{ databaseUrl, storageUrl },
    ...serverSettings(ctx.config),
    dataDir,
    host: '127.0.0.1',
    port,
    concurrency,
    studioLogin: { token, apiKey: created.apiKey },
    log: { stream: process.stderr, level: 'warn', process: 'studio' },
  }).catch(async (error: unknown) => {
    await withKeys((keys) => keys.revoke(created.record.key_id));
    throw error;
  });
  // Listened for before the link is printed: a signal sent on reading it must revoke the key and stop.
  const stopped = new Promise<void>((resolve, reject) => {
    const stop = (): void => {
      ctx.output.info('Stopping the Studio…');
      server.records.keys
        .revoke(created.record.key_id)
        .then(() => server.close({ drainMs: 5000 }))
        .then(resolve, reject);
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  const loginUrl = `${server.url}/studio/login?token=${token}`;
  if (ctx.output.json) ctx.output.record({ event: 'listening', url: server.url, login_url: loginUrl, tenant: flags.tenant });
  else
    ctx.output.text(`immoreel Studio is running. Open this link to sign in (it works once):\n\n    ${loginUrl}\n\nPress Ctrl-C to stop.`);
  if (flags.browser && openBrowser(loginUrl, ctx.config.display)) ctx.output.info('Opening the link in your browser…');
  await stopped;
}

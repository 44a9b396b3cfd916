import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Command } from 'commander';
import { resolveDataDir } from '../../core/paths.js';
import { contextFor } from '../context.js';
import { wholeNumber } from './serve.js';

const EXAMPLES = `
Examples:
  $ immoreel studio                     # prints a one-time sign-in link and opens it in the browser
  $ immoreel studio --port 8765 --no-browser

Like Jupyter: the service listens on 127.0.0.1 only, and the link signs the browser in once
(the key it carries lives in an HttpOnly cookie). The key is created for --tenant on start and
revoked on stop (Ctrl-C). The page's history shows that tenant's jobs.`;

interface StudioFlags {
  port: string;
  tenant: string;
  browser: boolean;
  concurrency?: string;
}

/** Opens the link in the desktop's browser when there is one; silently does nothing otherwise. */
function openBrowser(url: string): boolean {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : process.env.DISPLAY || process.env.WAYLAND_DISPLAY
          ? ['xdg-open', [url]]
          : [null, []];
  if (command === null) return false;
  const child = spawn(command, args as string[], { stdio: 'ignore', detached: true });
  child.on('error', () => undefined);
  child.unref();
  return true;
}

export function studioCommand(): Command {
  return new Command('studio')
    .description('Open the Studio web page on this machine (127.0.0.1) with a one-time sign-in link.')
    .option('--port <port>', 'port to listen on (0 = any free port)', '0')
    .option('--tenant <name>', 'tenant whose jobs the Studio shows', 'studio')
    .option('--no-browser', 'print the link without opening a browser')
    .option('--concurrency <n>', 'renders at once (default: min(30, CPU cores))')
    .addHelpText('after', EXAMPLES)
    .action(async (flags: StudioFlags, command: Command) => {
      const ctx = contextFor(command);
      const dataDir = resolveDataDir(ctx.globals.dataDir);
      const concurrency = flags.concurrency === undefined ? undefined : wholeNumber(flags.concurrency, '--concurrency', 1, 30);
      const port = wholeNumber(flags.port, '--port', 0, 65535);
      // Loaded here: fastify and the job layer are only needed by the commands that serve.
      const { openServerStore } = await import('../../server/store.js');
      const { startServer } = await import('../../server/start.js');
      const keyStore = openServerStore(dataDir);
      let created;
      try {
        created = keyStore.keys.create({ tenant: flags.tenant });
      } finally {
        keyStore.close();
      }
      const token = randomBytes(24).toString('base64url');
      const server = await startServer({
        dataDir,
        host: '127.0.0.1',
        port,
        concurrency,
        studioLogin: { token, apiKey: created.apiKey },
        log: { stream: process.stderr, level: 'warn' },
      }).catch((error: unknown) => {
        const store = openServerStore(dataDir);
        store.keys.revoke(created.record.key_id);
        store.close();
        throw error;
      });
      const loginUrl = `${server.url}/studio/login?token=${token}`;
      if (ctx.output.json) ctx.output.record({ event: 'listening', url: server.url, login_url: loginUrl, tenant: flags.tenant });
      else ctx.output.text(`immoreel Studio is running. Open this link to sign in (it works once):\n\n    ${loginUrl}\n\nPress Ctrl-C to stop.`);
      if (flags.browser && openBrowser(loginUrl)) ctx.output.info('Opening the link in your browser…');
      await new Promise<void>((resolve, reject) => {
        const stop = (): void => {
          ctx.output.info('Stopping the Studio…');
          server.store.keys.revoke(created.record.key_id);
          server.close({ drainMs: 5000 }).then(resolve, reject);
        };
        process.once('SIGTERM', stop);
        process.once('SIGINT', stop);
      });
    });
}

import { spawn } from 'node:child_process';
import { networkInterfaces } from 'node:os';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import type { RecordStore } from '../../records/types.js';
import { contextFor } from '../command-context.js';
import type { Output } from '../output.js';
import { terminalQr } from '../terminal-qr.js';
import { serverSettings, wholeNumber } from './serve.js';

export interface StudioFlags {
  port: string;
  tenant: string;
  browser: boolean;
  concurrency?: string;
  lan?: boolean;
}

/** The machine's IPv4 addresses on its networks (not loopback): where a phone on the same Wi-Fi reaches it. */
function lanAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((address) => address.family === 'IPv4' && !address.internal)
    .map((address) => address.address);
}

const MORE_DEVICES = 'Press Enter for a link for one more device.';
/** Links and codes are indented by two spaces: a device link (≈ 80 characters) then still fits 80 columns at most addresses. */
const INDENT = '  ';

/**
 * Device links, each under its QR code when stdout is a terminal in colour that is wide enough for
 * it (docs/studio.md "From a phone or another device"); piped, or with NO_COLOR, the links alone.
 */
async function printDeviceLinks(output: Output, links: string[]): Promise<void> {
  const columns = process.stdout.columns ?? 80;
  // `style` has colours only on a terminal and without NO_COLOR / --no-color: the code is drawn in black and white colours.
  const drawCodes = output.style.level > 0;
  for (const link of links) {
    const code = drawCodes ? await terminalQr(link) : null;
    if (code === null) output.text(`${INDENT}${link}\n\n`);
    else if (INDENT.length + code.width > columns)
      output.text(`${INDENT}${link}\n\n${INDENT}(a terminal ${INDENT.length + code.width} columns wide shows its QR code)\n\n`);
    else output.text(`${INDENT}${link}\n\n${code.lines.map((line) => `${INDENT}${line}`).join('\n')}\n\n`);
  }
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
  const { newLoginToken } = await import('../../server/studio/session.js');
  const deviceHosts = flags.lan === true ? lanAddresses() : [];
  const login = { apiKey: created.apiKey, tokens: new Set<string>(), deviceHosts };
  const token = newLoginToken(login);
  const server = await startServer({
    ...{ databaseUrl, storageUrl },
    ...serverSettings(ctx.config),
    dataDir,
    // --lan: every interface, so a phone on the same network reaches it (docs/studio.md "From a phone or another device").
    host: flags.lan === true ? '0.0.0.0' : '127.0.0.1',
    port,
    concurrency,
    studioLogin: login,
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
  const listeningPort = new URL(server.url).port;
  const local = server.url.replace('0.0.0.0', '127.0.0.1');
  const loginUrl = `${local}/studio/login?token=${token}`;
  /** One more one-time link, at each address another device reaches. */
  const deviceLinks = (): string[] => {
    const fresh = newLoginToken(login);
    return deviceHosts.map((host) => `http://${host}:${listeningPort}/studio/login?token=${fresh}`);
  };
  if (ctx.output.json) {
    ctx.output.record({
      event: 'listening',
      url: local,
      login_url: loginUrl,
      tenant: flags.tenant,
      ...(flags.lan === true ? { device_login_urls: deviceLinks() } : {}),
    });
  } else {
    ctx.output.text(`immoreel Studio is running. Open this link to sign in (it works once):\n\n${INDENT}${loginUrl}\n\n`);
    if (flags.lan === true) {
      const links = deviceLinks();
      if (links.length === 0) ctx.output.text('No network address found for another device: is this machine on a network?\n');
      else {
        // One token at each of the machine's addresses: whichever the device reaches signs it in, and spends the others.
        const which = links.length === 1 ? 'this link\nor' : 'one of these links\n(at an address it reaches) or';
        ctx.output.text(
          `On a phone or another device on the same network, open ${which} scan its code with the camera (it works once):\n\n`,
        );
        await printDeviceLinks(ctx.output, links);
      }
      // Each Enter prints a fresh one-time link: one per device, none reusable.
      if (process.stdin.isTTY && links.length > 0) {
        ctx.output.text(MORE_DEVICES);
        const lines = createInterface({ input: process.stdin });
        lines.on('line', () => {
          printDeviceLinks(ctx.output, deviceLinks()).then(
            () => ctx.output.text(MORE_DEVICES),
            (error: unknown) => ctx.output.warn(`could not print a device link: ${(error as Error).message}`),
          );
        });
        process.once('SIGINT', () => lines.close());
        process.once('SIGTERM', () => lines.close());
      }
    }
    ctx.output.text('Press Ctrl-C to stop.');
  }
  if (flags.browser && openBrowser(loginUrl, ctx.config.display)) ctx.output.info('Opening the link in your browser…');
  await stopped;
}

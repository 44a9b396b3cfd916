import { readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Two photo hosts on loopback for the fairness tests (docs/security.md "Tenants and fairness"):
 * `slow` answers 200 and then sends one byte per second of a body that never ends in time (the
 * outside tester's hostile host); `fast` serves the given JPEG at once.
 */
export interface PhotoHosts {
  slowUrl: (name: string) => string;
  fastUrl: (name: string) => string;
  /** Requests the slow host has received. */
  slowHits: () => number;
  close: () => Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function startPhotoHosts(jpegFile: string): Promise<PhotoHosts> {
  const jpeg = readFileSync(jpegFile);
  const trickles = new Set<NodeJS.Timeout>();
  let hits = 0;
  const slow = createServer((_req, res: ServerResponse) => {
    hits += 1;
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': String(1_000_000) });
    const timer = setInterval(() => res.write(Buffer.from([0xff])), 1000);
    trickles.add(timer);
    res.on('close', () => {
      clearInterval(timer);
      trickles.delete(timer);
    });
  });
  const fast = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg));
  const slowBase = await listen(slow);
  const fastBase = await listen(fast);
  return {
    slowUrl: (name) => `${slowBase}/${name}`,
    fastUrl: (name) => `${fastBase}/${name}`,
    slowHits: () => hits,
    close: async () => {
      for (const timer of trickles) clearInterval(timer);
      for (const server of [slow, fast]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}

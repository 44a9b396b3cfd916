import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type RunningServer, type StartOptions } from '../../src/server/start.js';
import { TEST_FFMPEG } from './config.js';

/** A real server on loopback over a fresh data directory, with one standard key. */
export interface SecureServer {
  server: RunningServer;
  url: string;
  dataDir: string;
  auth: Record<string, string>;
  keyId: string;
  post(
    path: string,
    body: unknown,
    headers?: Record<string, string>,
  ): Promise<{
    status: number;
    json: Record<string, unknown> & {
      error?: { code: string; reason?: string; message: string; details: { field: string; message: string }[] };
    };
  }>;
  close(): Promise<void>;
}

export async function startSecureServer(options: Partial<StartOptions> & { monthlyQuota?: number } = {}): Promise<SecureServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'immoreel-sec-'));
  const server = await startServer({ ffmpeg: TEST_FFMPEG, host: '127.0.0.1', port: 0, log: false, ...options, dataDir });
  const created = await server.records.keys.create({ tenant: 'acme', monthlyQuota: options.monthlyQuota });
  const auth = { authorization: `Bearer ${created.apiKey}` };
  const url = server.url;
  return {
    server,
    url,
    dataDir,
    auth,
    keyId: created.record.key_id,
    async post(path, body, headers = {}) {
      const response = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth, ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      return { status: response.status, json: (await response.json()) as never };
    },
    async close() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

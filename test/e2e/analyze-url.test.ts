import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/cli.js';

// Spawns the built CLI (npm test builds first). Saved pages come from test/fixtures/portals;
// live fetching goes through a loopback HTTP proxy (HTTP_PROXY) that serves those fixtures.

const FIXTURES = join(REPO_ROOT, 'test/fixtures/portals');
const AVITO_URL = 'https://www.avito.ma/fr/maarif/appartements/Appartement_3_chambres_à_vendre_à_Maarif_51234567.htm';
const PHONE_DIGITS = '661234567';

interface Analysis {
  ok: boolean;
  property: Record<string, unknown> & { source: Record<string, unknown>; warnings: { code: string }[]; photos: string[] };
}
interface ErrorEnvelope {
  ok: false;
  error: { code: string; reason?: string; message: string };
}

let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'immoreel-e2e-url-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { env: { IMMOREEL_DATA_DIR: dataDir, ...env } });

describe('immoreel analyze --url … --html-file (saved page, nothing fetched)', () => {
  it('analyzes an Avito page saved from the browser', async () => {
    const result = await cli(['analyze', '--url', AVITO_URL, '--html-file', join(FIXTURES, 'avito-next-data.html'), '--json']);
    expect(result.code, result.stderr).toBe(0);
    const body = JSON.parse(result.stdout) as Analysis;
    expect(body.ok).toBe(true);
    expect(body.property).toMatchObject({
      title: 'Appartement 3 chambres à vendre à Maarif',
      city: 'Casablanca',
      district: 'Maârif',
      price_mad: 1_350_000,
      surface_m2: 98,
      bedrooms: 3,
      floor: 4,
      source: { kind: 'html', portal: 'avito', listing_id: '51234567' },
    });
    expect(result.stdout + result.stderr).not.toContain(PHONE_DIGITS);
    expect(result.stdout + result.stderr).not.toContain('Agence Atlas Immo');
  });

  it('finds the portal from the page itself when no URL is given', async () => {
    const result = await cli(['analyze', '--html-file', join(FIXTURES, 'yakeey-page.html'), '--json']);
    expect(result.code, result.stderr).toBe(0);
    const body = JSON.parse(result.stdout) as Analysis;
    expect(body.property).toMatchObject({ city: 'Rabat', district: 'Souissi', price_mad: 6_500_000, surface_m2: 320 });
    expect(body.property.source).toMatchObject({ portal: 'yakeey', listing_id: 'RA004321' });
  });

  it('merges --description with the page and warns about what contradicts it', async () => {
    const result = await cli([
      'analyze',
      '--html-file',
      join(FIXTURES, 'mubawab-jsonld-fr.html'),
      '--description',
      'Villa de 6 chambres avec cheminée.',
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const body = JSON.parse(result.stdout) as Analysis;
    expect(body.property.bedrooms).toBe(4);
    expect(body.property.feature_keys).toContain('fireplace');
    expect(body.property.warnings.map((w) => w.code)).toContain('CONTRADICTION');
  });

  it('refuses a search page with exit 2 and names the supported portals', async () => {
    const result = await cli([
      'analyze',
      '--url',
      'https://www.mubawab.ma/fr/sc/appartements-a-vendre:p:2',
      '--html-file',
      join(FIXTURES, 'mubawab-search.html'),
      '--json',
    ]);
    expect(result.code).toBe(2);
    const body = JSON.parse(result.stdout) as ErrorEnvelope;
    expect(body.error).toMatchObject({ code: 'BAD_REQUEST', reason: 'unsupported_url' });
    expect(result.stderr).toMatch(/search results page on Mubawab, not a single listing/);
    expect(result.stderr).toMatch(/Mubawab \(mubawab\.ma\), Avito \(avito\.ma\), Sarouty \(sarouty\.ma\), Yakeey \(yakeey\.com\)/);
  });

  it('refuses a URL on another site with exit 2', async () => {
    const result = await cli(['analyze', '--url', 'https://www.example.com/annonce/42']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/not on a supported portal/);
  });
});

/**
 * An HTTP proxy on 127.0.0.1: CONNECT tunnels land in a local server that plays the portals,
 * routing by Host header and path to the fixture pages.
 */
function portalProxy(): { server: Server; requests: IncomingMessage[] } {
  const requests: IncomingMessage[] = [];
  const portals = createServer((req, res) => {
    requests.push(req);
    const host = req.headers.host ?? '';
    const path = decodeURIComponent(req.url ?? '');
    if (host.startsWith('www.avito.ma') && path.endsWith('_51234567.htm')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(readFileSync(join(FIXTURES, 'avito-next-data.html')));
    } else if (host.startsWith('yakeey.com') && path.endsWith('-RA004321')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(readFileSync(join(FIXTURES, 'yakeey-page.html')));
    } else {
      res.writeHead(404).end('Not found');
    }
  });
  const server = createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (_req: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) socket.unshift(head);
    portals.emit('connection', socket);
  });
  return { server, requests };
}

describe('immoreel analyze --csv with a url column (live fetch through a proxy)', () => {
  let proxy: ReturnType<typeof portalProxy>;
  let proxyUrl: string;
  beforeAll(async () => {
    proxy = portalProxy();
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    proxy.server.closeAllConnections();
    await new Promise<void>((resolve) => proxy.server.close(() => resolve()));
  });

  it('analyzes each row, keeps going past a removed listing and a search page, and lists the failures', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'immoreel-e2e-csv-'));
    const csv = join(dir, 'listings.csv');
    writeFileSync(
      csv,
      [
        'id,url',
        'avito,http://www.avito.ma/fr/maarif/appartements/Appartement_3_chambres_a_vendre_a_Maarif_51234567.htm',
        'yakeey,http://yakeey.com/fr-ma/acheter-villa-rabat-souissi-RA004321',
        'gone,http://www.avito.ma/fr/maarif/appartements/Appartement_vendu_51230000.htm',
        'search,https://www.mubawab.ma/fr/sc/appartements-a-vendre:p:2',
        '',
      ].join('\n'),
    );
    const result = await cli(['analyze', '--csv', csv, '--json'], { HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl, NO_PROXY: '' });
    expect(result.code, result.stderr).toBe(3);
    // One NDJSON line per row (the envelope every --json command uses, plus the row id), then the batch's own error envelope (exit 3).
    const lines = result.stdout
      .split('\n')
      .filter((line) => line.startsWith('{"ok":') && line.includes('"id":'))
      .map((line) => JSON.parse(line) as { id: string; ok: boolean; property?: Analysis['property']; error?: ErrorEnvelope['error'] });
    expect(lines).toHaveLength(4);
    const byId = new Map(lines.map((line) => [line.id, line]));
    expect(byId.get('avito')?.property).toMatchObject({
      city: 'Casablanca',
      price_mad: 1_350_000,
      source: { kind: 'url', portal: 'avito' },
    });
    expect(byId.get('yakeey')?.property).toMatchObject({ city: 'Rabat', price_mad: 6_500_000 });
    expect(byId.get('gone')?.error).toMatchObject({ code: 'UPSTREAM_ERROR', reason: 'listing_removed' });
    expect(byId.get('gone')?.error?.message).toMatch(/removed/);
    expect(byId.get('search')?.error).toMatchObject({ code: 'BAD_REQUEST', reason: 'unsupported_url' });
    expect(readFileSync(join(dir, 'listings.failed.csv'), 'utf8')).toMatch(/gone,.*\n.*search,|search,.*\n.*gone,/s);
    // The search row never reached the network; the three others did, with a browser's headers.
    expect(proxy.requests).toHaveLength(3);
    expect(proxy.requests.every((req) => /Mozilla\/5\.0/.test(req.headers['user-agent'] ?? ''))).toBe(true);
    expect(result.stdout).not.toContain(PHONE_DIGITS);
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes a portal address without https:// as the argument or as --description: it fetches that link', async () => {
    // https:// is what gets added, and this proxy plays the portals over plain HTTP: the fetch is
    // refused at TLS, which shows the text was read as the link (the analysis and its
    // URL_SCHEME_ADDED warning are checked with a mocked portal in test/unit/analysis/portals).
    const bare = 'www.avito.ma/fr/maarif/appartements/Appartement_3_chambres_a_vendre_a_Maarif_51234567.htm';
    const env = { HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl, NO_PROXY: '' };
    for (const args of [[bare], ['--description', bare]]) {
      const result = await cli(['analyze', ...args, '--json'], env);
      expect(result.code).not.toBe(0);
      expect(`${result.stdout}${result.stderr}`).toContain('Could not reach www.avito.ma');
      expect(`${result.stdout}${result.stderr}`).not.toMatch(/unrecognisable_text|Nothing recognisable/);
    }
  });
});

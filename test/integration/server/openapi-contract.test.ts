import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { dereference } from '@readme/openapi-parser';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import openapiTS, { astToString } from 'openapi-typescript';
import sharp from 'sharp';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../../src/server/start.js';
import { REPO_ROOT } from '../../helpers/cli.js';
import { fakeRenderEngine } from '../../helpers/server-harness.js';
import { TEST_FFMPEG } from '../../helpers/config.js';

/**
 * The contract as a third party sees it: a client generated from the served OpenAPI document
 * type-checks a small integration, which then runs against a real server on loopback; every
 * answer's body and declared headers are validated against the document, and a real webhook
 * delivery against its `webhooks` section and the `standardwebhooks` library.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- walking an OpenAPI document

interface Exchange {
  method: string;
  url: URL;
  status: number;
  headers: Headers;
  body: string;
  contentType: string;
}

type RunIntegration = (
  baseUrl: string,
  apiKey: string,
  photo: Uint8Array,
  fetchImpl: typeof fetch,
  webhookUrl: string,
) => Promise<{
  analyzedTitle: string;
  jobId: string;
  replayed: string | null;
  notModifiedPolls: number;
  firstBytes: Uint8Array;
  listed: string[];
  canceledState: string;
}>;

/** Headers of ours a client may rely on: when one is sent, the document must declare it. */
const API_HEADERS = [
  'etag',
  'retry-after',
  'ratelimit',
  'ratelimit-policy',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'location',
  'idempotent-replayed',
  'content-range',
  'accept-ranges',
  'content-disposition',
  'last-modified',
  'www-authenticate',
  'x-request-id',
  'x-api-version',
];

describe('API v1 contract, as a generated client sees it', () => {
  let dir: string;
  let server: RunningServer;
  let receiver: Server;
  const deliveries: { headers: IncomingHttpHeaders; body: string }[] = [];
  let documentText: string;
  let documentHeaders: Headers;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'immoreel-contract-'));
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        deliveries.push({ headers: request.headers, body });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    server = await startServer({
      ffmpeg: TEST_FFMPEG,
      dataDir: dir,
      host: '127.0.0.1',
      port: 0,
      engine: fakeRenderEngine(4096, 12),
      allowLoopbackFetch: true,
      log: false,
      webhookPollMs: 50,
    });
    const served = await fetch(`${server.url}/api/v1/openapi.json`);
    expect(served.status).toBe(200);
    documentText = await served.text();
    documentHeaders = served.headers;
  });

  afterAll(async () => {
    await server?.close();
    receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('generates a client that type-checks the integration, runs it, and every answer matches the document', async () => {
    const document = JSON.parse(documentText) as Json;
    // 1. Generate the client types from the served document, then type-check the integration.
    const generatedDir = join(REPO_ROOT, 'test/helpers/openapi-integration/generated');
    mkdirSync(generatedDir, { recursive: true });
    writeFileSync(join(generatedDir, 'api.d.ts'), astToString(await openapiTS(structuredClone(document) as never)));
    const tsc = spawnSync(
      process.execPath,
      [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(REPO_ROOT, 'test/helpers/openapi-integration/tsconfig.json')],
      { encoding: 'utf8' },
    );
    expect(tsc.status, `${tsc.stdout}${tsc.stderr}`).toBe(0);

    // 2. Run it against the real server, recording every exchange.
    const exchanges: Exchange[] = [];
    const recordingFetch: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      const response = await fetch(request);
      const body = await response.clone().arrayBuffer();
      const contentType = response.headers.get('content-type') ?? '';
      exchanges.push({
        method: request.method,
        url: new URL(request.url),
        status: response.status,
        headers: response.headers,
        body: contentType.includes('json') ? Buffer.from(body).toString('utf8') : '',
        contentType,
      });
      return response;
    };
    const created = await server.records.keys.create({ tenant: 'portal' });
    const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3a6ea5' } })
      .png()
      .toBuffer();
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/immoreel`;
    const modulePath = pathToFileURL(join(REPO_ROOT, 'test/helpers/openapi-integration/integration.ts')).href;
    // Loaded by path: the project's type check does not see it (its types exist only once generated).
    const { runIntegration } = (await import(/* @vite-ignore */ modulePath)) as { runIntegration: RunIntegration };
    const result = await runIntegration(server.url, created.apiKey, new Uint8Array(photo), recordingFetch, receiverUrl);

    expect(result.analyzedTitle.length).toBeGreaterThan(0);
    expect(result.replayed).toBe('true');
    expect(result.notModifiedPolls).toBeGreaterThan(0);
    expect(result.firstBytes.length).toBe(100);
    expect(result.listed).toContain(result.jobId);
    expect(result.canceledState).toBe('canceled');

    // 3. Every answer against the document: body schema, declared headers, no undeclared header of ours.
    const resolved = (await dereference(structuredClone(document) as never)) as unknown as Json;
    const ajv = addFormats.default(new Ajv2020.default({ strict: false, allErrors: true }));
    const operationOf = (method: string, path: string): Json => {
      for (const [template, item] of Object.entries(resolved.paths as Json)) {
        const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
        if (pattern.test(path) && item[method.toLowerCase()]) return item[method.toLowerCase()] as Json;
      }
      throw new Error(`${method} ${path} is not in the document`);
    };
    const statuses = new Set<string>();
    expect(exchanges.length).toBeGreaterThanOrEqual(10);
    for (const exchange of [
      ...exchanges,
      {
        method: 'GET',
        url: new URL(`${server.url}/api/v1/openapi.json`),
        status: 200,
        headers: documentHeaders,
        body: documentText,
        contentType: 'application/json',
      },
    ]) {
      const where = `${exchange.method} ${exchange.url.pathname} → ${exchange.status}`;
      const declared = operationOf(exchange.method, exchange.url.pathname).responses[String(exchange.status)] as Json | undefined;
      expect(declared, `${where} is not a documented answer`).toBeDefined();
      statuses.add(`${exchange.method} ${exchange.status}`);
      const media = Object.entries((declared!.content ?? {}) as Json).find(([type]) =>
        exchange.contentType.startsWith(type.split(';')[0]!),
      );
      if (exchange.body !== '') {
        expect(media, `${where}: ${exchange.contentType} is not a documented content type`).toBeDefined();
        const validate = ajv.compile(media![1].schema as object);
        expect(validate(JSON.parse(exchange.body)), `${where}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      }
      const headers = Object.fromEntries(
        Object.entries((declared!.headers ?? {}) as Json).map(([name, spec]) => [name.toLowerCase(), spec as Json]),
      );
      for (const [name, spec] of Object.entries(headers)) {
        const value = exchange.headers.get(name);
        if (value === null) continue;
        const schema = spec.schema as Json;
        const typed = schema.type === 'integer' || schema.type === 'number' ? Number(value) : value;
        const validate = ajv.compile(schema);
        expect(validate(typed), `${where}: header ${name}: ${value} (${ajv.errorsText(validate.errors)})`).toBe(true);
      }
      for (const name of API_HEADERS) {
        if (exchange.headers.get(name) !== null) expect(headers, `${where}: sends ${name} without declaring it`).toHaveProperty(name);
      }
    }
    // The integration went through the answers that matter: created, replayed, polled, 304, ranged.
    for (const expected of ['POST 200', 'POST 201', 'POST 202', 'GET 200', 'GET 304', 'GET 206']) expect(statuses).toContain(expected);
  }, 120_000);

  it('delivers a webhook that matches the document and verifies with the standardwebhooks library', async () => {
    for (let i = 0; i < 200 && deliveries.length === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(deliveries.length, 'no webhook delivered').toBeGreaterThan(0);
    const delivery = deliveries[0]!;
    const document = (await dereference(JSON.parse(documentText) as never)) as unknown as Json;
    const hook = document.webhooks.jobFinished.post as Json;
    const ajv = addFormats.default(new Ajv2020.default({ strict: false, allErrors: true }));
    const validateBody = ajv.compile(hook.requestBody.content['application/json'].schema as object);
    const event = JSON.parse(delivery.body) as { type: string; data: { job_id: string; metadata: unknown } };
    expect(validateBody(event), ajv.errorsText(validateBody.errors)).toBe(true);
    expect(event.type).toBe('job.succeeded');
    expect(event.data.metadata).toEqual({ crm_id: 'A-42', tags: ['contract'] });
    for (const parameter of hook.parameters as Json[]) {
      const value = delivery.headers[String(parameter.name)];
      if (parameter.required) expect(value, `webhook header ${parameter.name}`).toBeDefined();
      const validate = ajv.compile(parameter.schema as object);
      expect(validate(value), `webhook header ${parameter.name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
    const secret = await server.records.keys.webhookSecret('portal');
    expect(secret).toMatch(/^whsec_/);
    const verified = new Webhook(secret!).verify(delivery.body, delivery.headers as Record<string, string>);
    expect(verified).toEqual(event);
    // A tampered body is refused by the same library.
    expect(() => new Webhook(secret!).verify(delivery.body.replace('A-42', 'A-43'), delivery.headers as Record<string, string>)).toThrow();
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { analyzeCheckedListing, analyzeListing } from '../../src/analysis/analyze.js';
import type { RenderRequest } from '../../src/core/requests.js';
import { JobManager, type RenderEngine } from '../../src/jobs/manager.js';
import type { ValidRenderRequest } from '../../src/render/types.js';
import type { Metrics } from '../../src/core/metrics.js';
import { buildApp, type ServerDeps } from '../../src/server/app.js';
import type { ServerLimits } from '../../src/server/api-limits.js';
import { resolveAsset } from '../../src/records/assets.js';
import { LocalBlobStore } from '../../src/blobs/index.js';
import { openSqliteRecordStore, type RecordStore } from '../../src/records/index.js';
import { openServerStore, type ServerStore } from '../../src/records/sqlite/server-records.js';
import { TEST_FFMPEG } from './config.js';

export interface Harness {
  app: FastifyInstance;
  /** The same SQLite tables read synchronously, for assertions. */
  store: ServerStore;
  /** What the app is given. */
  records: RecordStore;
  blobs: LocalBlobStore;
  jobs: JobManager;
  dataDir: string;
  logs: string[];
  key(options?: { tenant?: string; preview?: boolean; scopes?: string[]; monthlyQuota?: number }): {
    apiKey: string;
    keyId: string;
    auth: Record<string, string>;
  };
  close(): Promise<void>;
}

export interface HarnessOptions {
  limits?: Partial<ServerLimits>;
  engine?: RenderEngine;
  now?: () => number;
  validateRender?: (request: RenderRequest) => ValidRenderRequest | Promise<ValidRenderRequest>;
  analyze?: ServerDeps['analyze'];
  runWorkers?: boolean;
  corsOrigins?: string[];
  allowLoopbackFetch?: boolean;
  /** What the app and its job pool report to (docs/operations.md "Metrics"); default none. */
  metrics?: Metrics;
  /** The Studio's host names and session lifetime (docs/studio.md). */
  studio?: ServerDeps['studio'];
  trustProxy?: boolean;
}

/** The poster the fake engines draw: a JPEG's first and last bytes around a marker. */
export const FAKE_POSTER = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.from('fake poster'), Buffer.from([0xff, 0xd9])]);

/** A finished-looking render that writes `bytes` bytes where the video belongs (API tests only; e2e renders for real). */
export function fakeRenderEngine(bytes: number, durationS = 10): RenderEngine {
  return async (request, ctx) => {
    const { writeFile } = await import('node:fs/promises');
    ctx.onProgress('rendering', 0.5);
    const targets = ctx.outputs ?? [{ format: request.format, outputPath: ctx.outputPath, posterPath: ctx.posterPath }];
    const outputs = [];
    for (const [index, target] of targets.entries()) {
      // Each output its own bytes (and size), so a test sees which one a route served.
      await writeFile(target.outputPath, Buffer.alloc(bytes + index, 7));
      // A poster's bytes (the route serves what the engine drew; tests with real renders check the JPEG).
      if (target.posterPath !== undefined) await writeFile(target.posterPath, FAKE_POSTER);
      outputs.push({
        format: target.format,
        result: {
          width: 1280,
          height: 720,
          fps: 60,
          duration_s: durationS,
          size_bytes: bytes + index,
          video_codec: 'h264',
          audio_codec: 'aac',
          audio_bitrate_kbps: 160,
          sha256: (index === 0 ? 'ab' : `c${index}`).repeat(32),
        },
      });
    }
    const listing = request.listing ?? (await analyzeListing(request.input));
    return { result: outputs[0]!.result, outputs, listing, warnings: [] };
  };
}

export const fileEngine: RenderEngine = fakeRenderEngine(1000);

export async function makeHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'immoreel-server-'));
  const store = openServerStore(dataDir, { now: options.now });
  const records = openSqliteRecordStore(dataDir, { now: options.now });
  const blobs = new LocalBlobStore(dataDir);
  const jobs = await JobManager.open({
    ffmpeg: TEST_FFMPEG,
    dataDir,
    records,
    blobs,
    concurrency: 2,
    engine: options.engine ?? fileEngine,
    runWorkers: options.runWorkers ?? true,
    resolveAsset: (tenant, assetId, scratchDir) => resolveAsset({ records, blobs }, tenant, assetId, scratchDir),
    allowLocalFiles: false,
    linkBase: '/api/v1',
    pollMs: 20,
    metrics: options.metrics,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(
        ...chunk
          .toString()
          .split('\n')
          .filter((l) => l !== ''),
      );
      done();
    },
  });
  const app = buildApp({
    records,
    blobs,
    jobs,
    analyze: options.analyze ?? ((checked, signal) => analyzeCheckedListing(checked, { signal })),
    validateRender:
      options.validateRender ?? (async (request) => (await import('../../src/render/index.js')).validateRenderRequest(request, 'server')),
    limits: options.limits,
    now: options.now,
    log: { stream: sink, level: 'info' },
    corsOrigins: options.corsOrigins,
    allowLoopbackFetch: options.allowLoopbackFetch,
    metrics: options.metrics,
    studio: options.studio,
    trustProxy: options.trustProxy,
  });
  return {
    app,
    store,
    records,
    blobs,
    jobs,
    dataDir,
    logs,
    key(keyOptions = {}) {
      const created = store.keys.create({
        tenant: keyOptions.tenant ?? 'acme',
        preview: keyOptions.preview,
        scopes: keyOptions.scopes,
        monthlyQuota: keyOptions.monthlyQuota,
      });
      return { apiKey: created.apiKey, keyId: created.record.key_id, auth: { authorization: `Bearer ${created.apiKey}` } };
    },
    async close() {
      await app.close();
      await jobs.close();
      await records.close();
      store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const LISTING_TEXT =
  'Appartement à vendre à Maarif, Casablanca. 120 m², 3 chambres, 2 salles de bain, terrasse, ascenseur, parking. Prix : 1 850 000 DH.';

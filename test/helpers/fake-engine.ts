import { createHash } from 'node:crypto';
import { rename, writeFile } from 'node:fs/promises';
import type { Property } from '../../src/core/types.js';
import type { RenderEngine } from '../../src/jobs/engine.js';
import type { RenderContext, ValidRenderRequest } from '../../src/render/types.js';

/**
 * A stand-in for the render engine, for state-machine edge cases only (the must-show
 * tests use the real engine). It honours the contract: progress, abort, temp file then rename.
 */
export function fakeRequest(overrides: Partial<ValidRenderRequest> = {}): ValidRenderRequest {
  return {
    input: { description: 'Appartement 80 m² à Maarif, 2 chambres, 950 000 DH' },
    listing: null,
    photos: [],
    template: 'classic',
    format: 'landscape',
    formats: ['landscape'],
    duration_s: 10,
    language: 'fr',
    music: 'none',
    branding: {},
    webhook_url: null,
    metadata: null,
    ...overrides,
  };
}

export function fakeProperty(title = 'Appartement test'): Property {
  return {
    title,
    city: 'Casablanca',
    district: 'Maarif',
    price_mad: 950000,
    currency: 'MAD',
    features: [],
    marketing_angles: [],
    transaction: 'sale',
    property_type: 'apartment',
    surface_m2: 80,
    surface_total_m2: null,
    rooms: null,
    bedrooms: 2,
    bathrooms: null,
    toilets: null,
    floor: null,
    metro_area: 'Grand Casablanca',
    offers: [{ transaction: 'sale', price_mad: 950000, period: null }],
    feature_keys: [],
    price_per_m2_mad: 11875,
    price_original: null,
    market: null,
    target_buyer: { primary: 'family', segments: [], demographics: { household: '', age_range: '', budget_mad: null, financing: '' } },
    photos: [],
    source: { kind: 'text', portal: null, listing_id: null, url: null },
    language: 'fr',
    warnings: [],
    provenance: {},
  };
}

export interface FakeEngineOptions {
  /** How long a render takes. */
  ms?: number;
  /** Throw this instead of producing a video. */
  fail?: Error;
  /** Ignore the abort signal (a hung engine, for the watchdog). */
  ignoreAbort?: boolean;
  /** Called with each context (to inspect threads, workDir…). */
  seen?: RenderContext[];
}

export function fakeEngine(options: FakeEngineOptions = {}): RenderEngine {
  return async (request, ctx) => {
    options.seen?.push(ctx);
    if (ctx.signal.aborted && !options.ignoreAbort) throw ctx.signal.reason;
    ctx.onProgress('preparing', 0.1);
    const steps = 5;
    for (let i = 1; i <= steps; i += 1) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, (options.ms ?? 100) / steps);
        if (!options.ignoreAbort) {
          ctx.signal.addEventListener(
            'abort',
            () => {
              clearTimeout(timer);
              reject(ctx.signal.reason);
            },
            { once: true },
          );
        }
      });
      ctx.onProgress('rendering', i / steps);
    }
    if (options.fail) throw options.fail;
    const targets = ctx.outputs ?? [{ format: request.format, outputPath: ctx.outputPath, posterPath: ctx.posterPath }];
    const outputs = [];
    for (const target of targets) {
      const bytes = Buffer.from(`not really a ${target.format} mp4, but the job layer only moves bytes`);
      const temp = `${target.outputPath}.tmp`;
      await writeFile(temp, bytes);
      await rename(temp, target.outputPath);
      // The poster the real pipeline draws beside the video (docs/api.md "The poster"), as bytes.
      if (target.posterPath !== undefined) await writeFile(target.posterPath, Buffer.from('not really a jpeg'));
      outputs.push({
        format: target.format,
        result: {
          width: 1280,
          height: 720,
          fps: 60,
          duration_s: 10,
          size_bytes: bytes.length,
          video_codec: 'h264',
          audio_codec: 'aac',
          audio_bitrate_kbps: 160,
          sha256: createHash('sha256').update(bytes).digest('hex'),
        },
      });
    }
    return { result: outputs[0]!.result, outputs, listing: fakeProperty(), warnings: [] };
  };
}

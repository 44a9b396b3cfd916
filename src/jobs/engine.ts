import type { RenderRequest } from '../core/requests.js';
import type { RenderContext, RenderOutcome, ValidRenderRequest } from '../render/types.js';

/** What the worker pool runs for one job: the real engine, or a fake one in unit tests. */
export type RenderEngine = (request: ValidRenderRequest, ctx: RenderContext) => Promise<RenderOutcome>;

/**
 * The real engine: analysis first (a listing given with the request is used as it is), then the
 * renderer with the resulting `Property`. Both are loaded on first use so that `jobs list` never
 * pays for cheerio, ffmpeg or sharp imports. Both reach the network through `ctx.fetch`, the port
 * the pool chose for this job (docs/architecture.md).
 */
export const defaultEngine: RenderEngine = async (request, ctx) => {
  const listing = request.listing ?? (await analyzeInput(request, ctx));
  const { renderListing } = await import('../render/index.js');
  const video = await renderListing(listing, request, ctx);
  return { result: video.result, outputs: video.outputs, listing, warnings: [...listing.warnings, ...video.warnings] };
};

async function analyzeInput(request: ValidRenderRequest, ctx: RenderContext): Promise<RenderOutcome['listing']> {
  ctx.onProgress('fetching_assets', 0);
  // The server analyses in its worker-thread pool (docs/security.md); elsewhere, in this thread.
  if (ctx.analyze !== undefined) return ctx.analyze(request.input, ctx.signal);
  const { analyzeListing } = await import('../analysis/analyze.js');
  return analyzeListing(request.input, {
    signal: ctx.signal,
    fetch: ctx.fetch,
    ...(ctx.eurToMad === undefined ? {} : { eurToMad: ctx.eurToMad }),
  });
}

export async function validateRequest(request: RenderRequest, mode: 'local' | 'server'): Promise<ValidRenderRequest> {
  const { validateRenderRequest } = await import('../render/index.js');
  return validateRenderRequest(request, mode);
}

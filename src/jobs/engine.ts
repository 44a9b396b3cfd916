import type { RenderRequest } from '../core/types.js';
import type { RenderContext, RenderOutcome, ValidRenderRequest } from '../render/types.js';

/** What the worker pool runs for one job: the real engine, or a fake one in unit tests. */
export type RenderEngine = (request: ValidRenderRequest, ctx: RenderContext) => Promise<RenderOutcome>;

/** The real render engine, loaded on first use so that `jobs list` never pays for ffmpeg/sharp imports. */
export const defaultEngine: RenderEngine = async (request, ctx) => {
  const { renderListing } = await import('../render/index.js');
  return renderListing(request, ctx);
};

export async function validateRequest(request: RenderRequest, mode: 'local' | 'server'): Promise<ValidRenderRequest> {
  const { validateRenderRequest } = await import('../render/index.js');
  return validateRenderRequest(request, mode);
}

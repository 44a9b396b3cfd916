/**
 * The renderer: the job layer calls `validateRenderRequest` before queueing and, once the listing
 * is analysed, `renderListing` to run a job; the CLI's `templates` and `doctor` commands use the
 * rest. See docs/architecture.md.
 */
export { validateRenderRequest } from './render-rules.js';
export { renderListing, type EngineOptions, type RenderDebug } from './pipeline.js';
export { listTemplates, loadTemplate, type Template } from './templates.js';
export type { OutputTarget, RenderContext, RenderedVideo, RenderOutcome, RenderSpec, ValidRenderRequest } from './types.js';

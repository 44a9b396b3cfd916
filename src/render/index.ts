/**
 * The render engine (issue 4): the job layer calls `validateRenderRequest` before queueing and
 * `renderListing` to run a job; the CLI's `templates` and `doctor` commands use the rest.
 */
export { validateRenderRequest } from './validate.js';
export { renderListing, type EngineOptions, type RenderDebug } from './pipeline.js';
export { listTemplates, loadTemplate, type Template } from './templates.js';
export type { RenderContext, RenderOutcome, ValidRenderRequest } from './types.js';

import type { ErrorDetail } from './errors.js';
import { AnalyzeRequestSchema, checkRequest, type AnalyzeRequest, type InputRule } from './requests.js';
import type { AudienceRequest, ConfirmableFact, Language } from './types.js';

export { AUDIENCE_CHOICES, MAX_DESCRIPTION_CHARS, MAX_HTML_BYTES } from './requests.js';

/**
 * The rules of an analysis request that its schema (requests.ts) cannot say, one function each
 * (docs/api.md "One schema per input"). Types, enums and lengths are the schema's alone.
 */

/** Said when a request names no listing at all: the field is `url`, the first a caller would give. */
export const MISSING_LISTING = 'is missing: give a listing url, a saved page (html) or a description';

/** A given text is read for features: blank, there is nothing to read (analysis and render alike). */
export function descriptionIsNotBlank(request: { description?: string }): ErrorDetail | undefined {
  if (request.description !== undefined && request.description.trim() === '')
    return { field: 'description', message: 'is empty: paste the listing text (title and description)' };
  return undefined;
}

/** Something to analyse: a page (url or html) or a text (given, even if refused for its form). */
export function needsAListingInput(request: AnalyzeRequest, _context: undefined, refused: ReadonlySet<string>): ErrorDetail | undefined {
  if (['url', 'html', 'description'].some((key) => refused.has(key))) return undefined;
  if (!request.url?.trim() && !request.html && request.description === undefined) return { field: 'url', message: MISSING_LISTING };
  return undefined;
}

export const ANALYZE_RULES: readonly InputRule<AnalyzeRequest>[] = [descriptionIsNotBlank, needsAListingInput];

export interface ValidAnalyzeRequest {
  url: string | null;
  html: string | null;
  description: string | null;
  language: Language;
  target_audience: AudienceRequest;
  /** Facts the caller confirms although the analysis doubts them (docs/analysis.md "Held back"). */
  confirmed_facts: ConfirmableFact[];
}

/**
 * Checks an analysis request from any front door (CLI flags, CSV row, HTTP body, a large body in
 * an analysis worker): its schema and its rules, every problem at once, each with its field.
 */
export function validateAnalyzeRequest(input: unknown): ValidAnalyzeRequest {
  const request = checkRequest(AnalyzeRequestSchema, ANALYZE_RULES, input, undefined);
  return {
    url: request.url?.trim() || null,
    html: request.html || null,
    description: request.description ?? null,
    language: request.language ?? 'fr',
    target_audience: request.target_audience ?? 'auto',
    confirmed_facts: [...new Set(request.confirmed_facts ?? [])],
  };
}

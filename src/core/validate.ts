import { badRequest, type ErrorDetail } from './errors.js';
import {
  AnalyzeRequestSchema,
  AUDIENCE_CHOICES,
  checkInput,
  invalidInput,
  MAX_DESCRIPTION_CHARS,
  MAX_HTML_BYTES,
  type AnalyzeRequest,
} from './requests.js';
import { LANGUAGES, type AudienceRequest, type Language } from './types.js';

export { AUDIENCE_CHOICES, MAX_DESCRIPTION_CHARS, MAX_HTML_BYTES } from './requests.js';

export function parseLanguage(value: unknown, field = 'language'): Language {
  if (value === undefined || value === null || value === '') return 'fr';
  if (typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value.toLowerCase())) {
    return value.toLowerCase() as Language;
  }
  throw badRequest(`Unknown ${field} ${JSON.stringify(value)}: use one of ${LANGUAGES.join(', ')}.`, {
    reason: 'invalid_field',
    details: [{ field, message: `must be one of ${LANGUAGES.join(', ')}` }],
  });
}

export function parseAudience(value: unknown, field = 'target_audience'): AudienceRequest {
  if (value === undefined || value === null || value === '') return 'auto';
  if (typeof value === 'string' && (AUDIENCE_CHOICES as readonly string[]).includes(value.toLowerCase())) {
    return value.toLowerCase() as AudienceRequest;
  }
  throw badRequest(`Unknown ${field} ${JSON.stringify(value)}: use one of ${AUDIENCE_CHOICES.join(', ')}.`, {
    reason: 'invalid_field',
    details: [{ field, message: `must be one of ${AUDIENCE_CHOICES.join(', ')}` }],
  });
}

/** Said when a request names no listing at all: the field is `url`, the first a caller would give. */
export const MISSING_LISTING = 'is missing: give a listing url, a saved page (html) or a description';

export interface ValidAnalyzeRequest {
  url: string | null;
  html: string | null;
  description: string | null;
  language: Language;
  target_audience: AudienceRequest;
}

/**
 * Checks an analysis request from any front door (CLI flags, CSV row, HTTP body) and reports
 * every problem at once, each with its field.
 */
export function validateAnalyzeRequest(input: AnalyzeRequest): ValidAnalyzeRequest {
  const request = checkInput(AnalyzeRequestSchema, input);
  const details: ErrorDetail[] = [];
  const text = (field: keyof AnalyzeRequest): string | null => {
    const value = request[field];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'string') {
      details.push({ field, message: 'must be a string' });
      return null;
    }
    return value;
  };
  const url = text('url')?.trim() || null;
  const html = text('html') || null;
  let description = text('description');
  if (description !== null && description.trim() === '') {
    details.push({ field: 'description', message: 'is empty: paste the listing text (title and description)' });
    description = null;
  }
  if (description !== null && description.length > MAX_DESCRIPTION_CHARS) {
    details.push({ field: 'description', message: `is longer than ${MAX_DESCRIPTION_CHARS} characters` });
  }
  if (html !== null && Buffer.byteLength(html) > MAX_HTML_BYTES) {
    details.push({ field: 'html', message: `is larger than ${MAX_HTML_BYTES / 1024 / 1024} MB` });
  }
  if (url === null && html === null && description === null && details.length === 0) {
    details.push({ field: 'url', message: MISSING_LISTING });
  }
  let language: Language = 'fr';
  let audience: AudienceRequest = 'auto';
  try {
    language = parseLanguage(request.language);
  } catch {
    details.push({ field: 'language', message: `must be one of ${LANGUAGES.join(', ')}` });
  }
  try {
    audience = parseAudience(request.target_audience);
  } catch {
    details.push({ field: 'target_audience', message: `must be one of ${AUDIENCE_CHOICES.join(', ')}` });
  }
  if (details.length > 0) throw invalidInput('analysis request', details);
  return { url, html, description, language, target_audience: audience };
}

import { AppError, badRequest } from '../core/errors.js';

/** A whole-number flag (`--concurrency 4`) within bounds, or a usage error naming the flag. */
export function parseCount(value: string, flag: string, min: number, max: number = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `from ${min} to ${max}`;
    throw badRequest(`${flag} must be a whole number ${range}, not ${JSON.stringify(value)}.`, {
      details: [{ field: flag.replace(/^--/, ''), message: `must be a whole number ${range}` }],
    });
  }
  return n;
}

/** Request fields as the flags `render` takes for them, so errors name what the user typed. */
const RENDER_FLAG_OF: Record<string, string> = {
  'branding.primary_color': '--color',
  'branding.agency_name': '--agency',
  'branding.agent_name': '--agent',
  'branding.logo_url': '--logo',
  'branding.phone': '--phone',
  'branding.email': '--email',
  duration_s: '--duration',
  target_audience: '--audience',
  html: '--html-file',
};

/**
 * The same error for the person at the terminal, with request field names replaced by the flags
 * that set them; its JSON (--json) stays the request's, identical to the HTTP API's answer.
 */
class FlagNamedError extends AppError {
  constructor(
    private readonly original: AppError,
    message: string,
  ) {
    super(original.code, message, { reason: original.reason, details: original.details, cause: original });
  }

  override toJSON(): ReturnType<AppError['toJSON']> {
    return this.original.toJSON();
  }
}

export function withFlagNames(error: unknown): unknown {
  if (!(error instanceof AppError) || error.code !== 'BAD_REQUEST') return error;
  const renamed = Object.entries(RENDER_FLAG_OF).reduce(
    (text, [field, flag]) => text.replace(new RegExp(`(?<![\\w.-])${field.replace('.', '\\.')}(?![\\w])`, 'g'), flag),
    error.message,
  );
  return new FlagNamedError(error, renamed);
}

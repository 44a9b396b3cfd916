import { JOB_STATES, VIDEO_FORMATS } from '../../core/types.js';
import { PropertySchema } from '../../core/property-schema.js';
import type { JsonSchema } from './common.js';

/**
 * Request bodies and query strings of API v1. The bodies are the inputs' one schema
 * (core/requests.ts), shared with the CLI and CSV rows.
 */

export { AnalyzeRequestSchema as AnalyzeBodySchema, RenderRequestSchema as RenderBodySchema } from '../../core/requests.js';

export const AnalyzeResponseSchema: JsonSchema = {
  type: 'object',
  required: ['ok', 'status', 'property'],
  properties: { ok: { const: true }, status: { const: 'success' }, property: PropertySchema },
};

export const JobListQuerySchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    state: { type: 'string', enum: [...JOB_STATES] },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    cursor: { type: 'string', minLength: 1, maxLength: 200, description: 'The `next_cursor` of the previous page.' },
  },
};

/** `?format=` of the video and poster routes (docs/api.md "Video packs"). */
export const OutputQuerySchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    format: {
      type: 'string',
      enum: [...VIDEO_FORMATS],
      description:
        'Which output of the job: one of its `formats` (another is a 404 `format_not_rendered`). Default: the primary, `formats[0]`.',
    },
  },
};

export const UsageQuerySchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    period: { type: 'string', pattern: '^\\d{4}-(0[1-9]|1[0-2])$', description: 'Month as YYYY-MM (UTC); default: the current month.' },
  },
};

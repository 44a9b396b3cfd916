import { JOB_STATES, VIDEO_FORMATS } from '../../core/types.js';
import { PropertySchema } from '../../core/property-schema.js';
import type { JsonSchema } from './common.js';

/**
 * Request bodies and query strings of API v1. The bodies are the inputs' one schema
 * (core/requests.ts), shared with the CLI and CSV rows.
 */

export { AnalyzeRequestSchema as AnalyzeBodySchema, RenderRequestSchema as RenderBodySchema } from '../../core/requests.js';

/** The answer of POST /api/v1/storyboard (docs/api.md "Photos shown and left out"). */
export const StoryboardResponseSchema: JsonSchema = {
  type: 'object',
  required: ['ok', 'status', 'storyboard'],
  properties: {
    ok: { const: true },
    status: { const: 'success' },
    storyboard: {
      type: 'object',
      required: ['duration_s', 'photos', 'held_back'],
      properties: {
        duration_s: { type: 'number', description: "The video's length: the request's, or the template's default." },
        photos: {
          type: 'array',
          description: 'Every photo given (or, with none given, the listing page’s), in order.',
          items: {
            type: 'object',
            required: ['index', 'ref', 'shown'],
            properties: {
              index: { type: 'integer', minimum: 0, description: '0-based, in the photos given.' },
              ref: { type: 'string', description: 'The photo as given.' },
              shown: { type: 'boolean' },
              reason: {
                type: 'string',
                enum: ['duration', 'limit'],
                description:
                  'Why it is left out: the video is too short for it (`duration`), or it is past the most photos a render takes (`limit`).',
              },
            },
          },
        },
        held_back: {
          type: 'array',
          description: 'The listing facts held back from the video until confirmed (`confirmed_facts`), as in the analysis.',
          items: { type: 'object', additionalProperties: true },
        },
      },
    },
  },
};

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

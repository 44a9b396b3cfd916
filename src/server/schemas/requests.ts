import { AUDIENCES, JOB_STATES, LANGUAGES, VIDEO_FORMATS } from '../../core/types.js';
import { MAX_DESCRIPTION_CHARS, MAX_HTML_BYTES } from '../../core/validate.js';
import { MAX_METADATA_BYTES, MAX_PHOTOS } from '../../render/validate.js';
import { PropertySchema, type JsonSchema } from './common.js';

/**
 * Request bodies and query strings of API v1. Structural rules live here (types, enums, unknown
 * fields, lengths); rules across fields (at least one input; `listing` not with other inputs)
 * are checked by the engine's own validators, which serve the CLI too.
 */

const LISTING_INPUTS: Record<string, JsonSchema> = {
  url: { type: 'string', minLength: 1, maxLength: 2048, description: 'A listing page on Mubawab, Avito, Sarouty or Yakeey.' },
  html: { type: 'string', maxLength: MAX_HTML_BYTES, description: 'The listing page as saved by a browser; then nothing is fetched.' },
  description: { type: 'string', maxLength: MAX_DESCRIPTION_CHARS, description: 'Raw listing text (French, English, Arabic, Darija).' },
  language: { type: 'string', enum: [...LANGUAGES], default: 'fr', description: 'Language of labels, features and angles.' },
  target_audience: {
    type: 'string',
    enum: ['auto', ...AUDIENCES],
    default: 'auto',
    description: 'Buyer profile the angles aim at; `auto` infers it.',
  },
};

export const AnalyzeBodySchema: JsonSchema = {
  type: 'object',
  description: 'Give `url`, `html` or `description` (at least one). `url` and `description` may be combined: page numbers win, the text adds features.',
  additionalProperties: false,
  properties: LISTING_INPUTS,
};

export const AnalyzeResponseSchema: JsonSchema = {
  type: 'object',
  required: ['ok', 'status', 'property'],
  properties: { ok: { const: true }, status: { const: 'success' }, property: PropertySchema },
};

const httpUrl = (description: string): JsonSchema => ({ type: 'string', minLength: 1, maxLength: 2048, description });

export const RenderBodySchema: JsonSchema = {
  type: 'object',
  description:
    'Give `url`, `html` or `description` (analysed when the job runs), or `listing` (an analysis `property`) to skip analysis; not `listing` together with the others.',
  additionalProperties: false,
  properties: {
    ...LISTING_INPUTS,
    listing: { type: 'object', description: 'A `property` object as returned by POST /api/v1/analyze.' },
    photos: {
      type: 'array',
      maxItems: MAX_PHOTOS,
      items: { type: 'string', minLength: 1, maxLength: 2048 },
      description: 'Photo URLs (public http/https) or `asset:<asset_id>` from POST /api/v1/assets. Default: the listing page\'s photos.',
    },
    template: { type: 'string', minLength: 1, maxLength: 64, description: 'classic (default), luxury, social, …' },
    format: { type: 'string', enum: [...VIDEO_FORMATS], default: 'landscape' },
    duration_s: { type: 'number', minimum: 10, maximum: 90, description: 'Default: the template\'s.' },
    music: { type: 'string', minLength: 1, maxLength: 64, description: '`auto`, `none` or a bundled track name.' },
    branding: {
      type: 'object',
      additionalProperties: false,
      properties: {
        agency_name: { type: 'string', maxLength: 120 },
        agent_name: { type: 'string', maxLength: 120 },
        phone: { type: 'string', maxLength: 40 },
        email: { type: 'string', maxLength: 254 },
        logo_url: httpUrl('Logo URL (public http/https) or `asset:<asset_id>`.'),
        primary_color: { type: 'string', pattern: '^#[0-9a-fA-F]{6}$' },
        unbranded: { type: 'boolean' },
      },
    },
    webhook_url: httpUrl('Receives the job record, signed (Standard Webhooks), when the job ends. Public http(s) only.'),
    metadata: { type: 'object', description: `Your own data (at most ${MAX_METADATA_BYTES} bytes as JSON), echoed in the job and its webhook.` },
  },
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

export const UsageQuerySchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    period: { type: 'string', pattern: '^\\d{4}-(0[1-9]|1[0-2])$', description: 'Month as YYYY-MM (UTC); default: the current month.' },
  },
};

import { ERROR_CODES } from '../../core/errors.js';
import {
  AUDIENCES,
  FEATURE_KEYS,
  JOB_STAGES,
  JOB_STATES,
  LANGUAGES,
  PROPERTY_TYPES,
  PROVENANCE_FIELDS,
  TRANSACTIONS,
  VIDEO_FORMATS,
} from '../../core/types.js';

/**
 * JSON Schemas shared by several routes. They are plain objects written in the subset common to
 * JSON Schema draft-07 (what the request validator runs) and 2020-12 (what OpenAPI 3.1 uses).
 * The OpenAPI generator turns every object registered in `COMPONENTS` into a `$ref`, by identity.
 */

export type JsonSchema = Record<string, unknown>;

const nullable = (type: string): JsonSchema => ({ type: [type, 'null'] });
const stringArray: JsonSchema = { type: 'array', items: { type: 'string' } };

export const ErrorDetailSchema: JsonSchema = {
  type: 'object',
  required: ['field', 'message'],
  properties: {
    field: { type: 'string', description: 'The field, header or part of the request at fault, e.g. `language`, `photos[2]`, `Idempotency-Key`.' },
    message: { type: 'string' },
  },
};

export const ErrorEnvelopeSchema: JsonSchema = {
  type: 'object',
  description: 'Every failure of API v1 has this shape (DESIGN §5). `code` is stable; `reason` says which of several causes applies.',
  required: ['ok', 'status', 'error'],
  properties: {
    ok: { const: false },
    status: { const: 'error' },
    error: {
      type: 'object',
      required: ['code', 'message', 'details', 'request_id'],
      properties: {
        code: { type: 'string', enum: Object.keys(ERROR_CODES) },
        message: { type: 'string' },
        reason: {
          type: 'string',
          description:
            'e.g. invalid_request, invalid_json, unsupported_media_type, unsupported_url, idempotency_key_reused, missing_key, invalid_key, ' +
            'billing_scope, other_tenant, route_not_permitted, monthly_quota, analyze_rate, render_rate, job_reads_rate, concurrent_renders, queued_jobs, endpoint_retired',
        },
        details: { type: 'array', items: ErrorDetailSchema },
        request_id: { type: 'string' },
        successor: { type: 'string', description: 'Retired routes (410) only: the route to use instead.' },
      },
    },
  },
};

const PROVENANCE_SOURCES = ['structured_data', 'page_text', 'description'];

export const WarningSchema: JsonSchema = {
  type: 'object',
  required: ['code', 'message'],
  properties: {
    code: { type: 'string' },
    message: { type: 'string' },
    values: {
      type: 'array',
      description: 'CONTRADICTION only: each source\'s value with the words it was read from.',
      items: {
        type: 'object',
        properties: { source: { type: 'string', enum: PROVENANCE_SOURCES }, value: { type: 'string' }, excerpt: nullable('string') },
      },
    },
  },
};

const FieldProvenanceSchema: JsonSchema = {
  type: 'object',
  required: ['source', 'excerpt', 'confidence'],
  properties: {
    source: { type: 'string', enum: PROVENANCE_SOURCES },
    excerpt: { type: 'string', maxLength: 120, description: 'The words the value was read from, verbatim; for page data, "field: value".' },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
  },
};

export const MarketSchema: JsonSchema = {
  type: ['object', 'null'],
  properties: {
    area: { type: 'string' },
    area_level: { type: 'string', enum: ['district', 'city', 'metro_area'], description: 'metro_area: a commune compared with its metro area\'s figures.' },
    median_price_per_m2_mad: { type: 'number' },
    q1_price_per_m2_mad: nullable('number'),
    q3_price_per_m2_mad: nullable('number'),
    sample_size: nullable('integer'),
    as_of: { type: 'string' },
    source: { type: 'string' },
    position: { type: ['string', 'null'], enum: ['below', 'in_line', 'above', null] },
    delta_pct: nullable('number'),
    confidence: { type: 'string', enum: ['high', 'medium', 'low'] },
  },
};

export const PropertySchema: JsonSchema = {
  type: 'object',
  description: 'The analysed listing (DESIGN §2.2). The first seven fields are the contract\'s; unknown facts are null, never guessed.',
  required: ['title', 'city', 'district', 'price_mad', 'currency', 'features', 'marketing_angles'],
  properties: {
    title: { type: 'string' },
    city: nullable('string'),
    district: nullable('string'),
    price_mad: { type: ['integer', 'null'], description: 'Always MAD; a rent is per month.' },
    currency: { const: 'MAD' },
    features: { ...stringArray, description: 'Feature labels in `language`.' },
    marketing_angles: { ...stringArray, description: '3–6 sentences in `language`.' },
    transaction: { type: ['string', 'null'], enum: [...TRANSACTIONS, null] },
    property_type: { type: ['string', 'null'], enum: [...PROPERTY_TYPES, null] },
    surface_m2: nullable('number'),
    surface_total_m2: nullable('number'),
    rooms: nullable('integer'),
    bedrooms: nullable('integer'),
    bathrooms: { type: ['integer', 'null'], description: 'Rooms with a shower or a bath.' },
    toilets: { type: ['integer', 'null'], description: 'WC counted apart from bathrooms.' },
    floor: nullable('integer'),
    metro_area: { type: ['string', 'null'], description: 'The metropolitan area of the city (commune), e.g. Grand Casablanca.' },
    offers: {
      type: 'array',
      description: 'Every deal offered, the main one first (the same as transaction / price_mad); two for a DUAL_OFFER listing.',
      items: {
        type: 'object',
        required: ['transaction', 'price_mad', 'period'],
        properties: {
          transaction: { type: 'string', enum: [...TRANSACTIONS] },
          price_mad: nullable('integer'),
          period: { type: ['string', 'null'], enum: ['month', null] },
        },
      },
    },
    feature_keys: { type: 'array', items: { type: 'string', enum: [...FEATURE_KEYS] } },
    price_per_m2_mad: nullable('number'),
    price_original: { type: ['object', 'null'], properties: { amount: { type: 'number' }, currency: { type: 'string' } } },
    market: MarketSchema,
    target_buyer: {
      type: 'object',
      properties: {
        primary: { type: 'string', enum: [...AUDIENCES] },
        segments: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              key: { type: 'string', enum: [...AUDIENCES] },
              label: { type: 'string' },
              score: { type: 'number' },
              reasons: stringArray,
            },
          },
        },
        demographics: {
          type: 'object',
          properties: {
            household: { type: 'string' },
            age_range: { type: 'string' },
            budget_mad: { type: ['array', 'null'], items: { type: 'number' } },
            financing: { type: 'string' },
          },
        },
      },
    },
    photos: stringArray,
    source: {
      type: 'object',
      properties: {
        kind: { type: 'string', enum: ['url', 'html', 'text'] },
        portal: { type: ['string', 'null'], enum: ['mubawab', 'avito', 'sarouty', 'yakeey', null] },
        listing_id: nullable('string'),
        url: nullable('string'),
      },
    },
    language: { type: 'string', enum: [...LANGUAGES] },
    warnings: { type: 'array', items: WarningSchema },
    provenance: {
      type: 'object',
      description: 'Where each extracted field came from, keyed by field name.',
      properties: Object.fromEntries(PROVENANCE_FIELDS.map((field) => [field, FieldProvenanceSchema])),
    },
  },
};

export const VideoResultSchema: JsonSchema = {
  type: ['object', 'null'],
  description: 'Only when succeeded: what ffprobe verified about the MP4.',
  properties: {
    video_url: { type: 'string' },
    width: { type: 'integer' },
    height: { type: 'integer' },
    fps: { type: 'number' },
    duration_s: { type: 'number' },
    size_bytes: { type: 'integer' },
    video_codec: { type: 'string' },
    audio_codec: { type: 'string' },
    audio_bitrate_kbps: { type: 'number' },
    sha256: { type: 'string' },
  },
};

export const JobSchema: JsonSchema = {
  type: 'object',
  description: 'A render job (DESIGN §4). States: queued → running → succeeded | failed | canceled (queued → canceled too); terminal states never change.',
  required: ['job_id', 'state', 'stage', 'progress', 'created_at', 'updated_at', 'links'],
  properties: {
    job_id: { type: 'string', pattern: '^job_[0-9a-hjkmnp-tv-z]{26}$' },
    state: { type: 'string', enum: [...JOB_STATES] },
    stage: { type: ['string', 'null'], enum: [...JOB_STAGES, null] },
    progress: { type: 'number', minimum: 0, maximum: 1 },
    attempts: { type: 'integer' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    started_at: { type: ['string', 'null'], format: 'date-time' },
    finished_at: { type: ['string', 'null'], format: 'date-time' },
    template: { type: 'string' },
    format: { type: 'string', enum: [...VIDEO_FORMATS] },
    language: { type: 'string', enum: [...LANGUAGES] },
    listing: {
      type: ['object', 'null'],
      properties: { title: { type: 'string' }, city: nullable('string'), district: nullable('string'), price_mad: nullable('integer') },
    },
    result: VideoResultSchema,
    error: { type: ['object', 'null'], properties: { code: { type: 'string' }, message: { type: 'string' } } },
    warnings: { type: 'array', items: WarningSchema },
    metadata: { type: ['object', 'null'] },
    links: {
      type: 'object',
      properties: { self: { type: 'string' }, video: nullable('string'), cancel: nullable('string') },
    },
  },
};

export const JobEnvelopeSchema: JsonSchema = {
  type: 'object',
  required: ['ok', 'status', 'job'],
  properties: { ok: { const: true }, status: { const: 'success' }, job: JobSchema },
};

export const JobIdParamsSchema: JsonSchema = {
  type: 'object',
  required: ['job_id'],
  additionalProperties: false,
  properties: {
    job_id: { type: 'string', maxLength: 64, description: '`job_` and 26 lowercase base32 characters. Anything else is a 400 before storage is touched.' },
  },
};

export const IdempotencyHeadersSchema: JsonSchema = {
  type: 'object',
  properties: {
    'idempotency-key': {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x21-\\x7e]+$',
      description: 'Any 1–255 printable ASCII characters (a UUID is a good choice). Kept 24 h per API key.',
    },
  },
};

/** Named schemas of the OpenAPI document, found by identity wherever they are used. */
export const COMPONENTS: Record<string, JsonSchema> = {
  ErrorEnvelope: ErrorEnvelopeSchema,
  ErrorDetail: ErrorDetailSchema,
  Warning: WarningSchema,
  Property: PropertySchema,
  MarketComparison: MarketSchema,
  VideoResult: VideoResultSchema,
  Job: JobSchema,
  JobEnvelope: JobEnvelopeSchema,
};

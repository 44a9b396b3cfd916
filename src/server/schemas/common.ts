import { ERROR_CODES } from '../../core/errors.js';
import { JOB_STAGES, JOB_STATES, LANGUAGES, VIDEO_FORMATS } from '../../core/types.js';

/**
 * JSON Schemas shared by several routes. They are plain objects written in the subset common to
 * JSON Schema draft-07 (what the request validator runs) and 2020-12 (what OpenAPI 3.1 uses).
 * The OpenAPI generator turns every object registered in `COMPONENTS` into a `$ref`, by identity.
 */

export type JsonSchema = Record<string, unknown>;

export { HeldBackSchema, MarketSchema, PropertySchema, WarningSchema } from '../../core/property-schema.js';
import { HeldBackSchema, MarketSchema, PropertySchema, WarningSchema } from '../../core/property-schema.js';
import { BrandingSchema } from '../../core/requests.js';

const nullable = (type: string): JsonSchema => ({ type: [type, 'null'] });

export const ErrorDetailSchema: JsonSchema = {
  type: 'object',
  required: ['field', 'message'],
  properties: {
    field: {
      type: 'string',
      description: 'The field, header or part of the request at fault, e.g. `language`, `photos[2]`, `Idempotency-Key`.',
    },
    message: { type: 'string' },
  },
};

export const ErrorEnvelopeSchema: JsonSchema = {
  type: 'object',
  description: 'Every failure of API v1 has this shape (docs/api.md). `code` is stable; `reason` says which of several causes applies.',
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
            'Which of several causes applies. Values: ' +
            'invalid_request, invalid_json, invalid_field, invalid_job_id, invalid_content_length, invalid_image, invalid_webhook_url, unsupported_media_type, unsupported_url, ' +
            'body_too_large, too_large, bad_url, bad_request, idempotency_key_reused, unknown_asset, range_not_satisfiable, ' +
            'missing_key, malformed_header, invalid_key, billing_scope, other_tenant, route_not_permitted, monthly_quota, ' +
            'analyze_rate, render_rate, job_reads_rate, account_rate, concurrent_renders, queued_jobs, decode_queue_full, ' +
            'unknown_job, video_not_ready, no_video, no_poster, format_not_rendered, unknown_route, method_not_allowed, endpoint_retired, ' +
            'listing_removed, unrecognisable_text, forbidden_address, too_many_redirects, shutting_down, store_unavailable, database_unavailable, storage_unavailable, not_ready.',
        },
        details: { type: 'array', items: ErrorDetailSchema },
        request_id: { type: 'string' },
        successor: { type: 'string', description: 'Retired routes (410) only: the route to use instead.' },
        resets_at: {
          type: 'string',
          format: 'date-time',
          description: 'QUOTA_EXCEEDED (`monthly_quota`) only: when the monthly quota starts again.',
        },
        checks: {
          type: 'object',
          description: 'SERVICE_UNAVAILABLE (`not_ready`, GET /ready) only: each dependency, `ok` or `failing`.',
          properties: {
            database: { type: 'string', enum: ['ok', 'failing'] },
            storage: { type: 'string', enum: ['ok', 'failing'] },
            queue: { type: 'string', enum: ['ok', 'failing'] },
          },
        },
      },
    },
  },
};

/** What ffprobe verified about an MP4: the same fields in a job's `result` and in each of its `outputs`. */
const VERIFIED_VIDEO_PROPERTIES = {
  width: { type: 'integer' },
  height: { type: 'integer' },
  fps: { type: 'number' },
  duration_s: { type: 'number' },
  size_bytes: { type: 'integer' },
  video_codec: { type: 'string' },
  audio_codec: { type: 'string' },
  audio_bitrate_kbps: { type: 'number' },
  sha256: { type: 'string' },
} as const;

export const VideoResultSchema: JsonSchema = {
  type: ['object', 'null'],
  description: 'Only when succeeded: what ffprobe verified about the MP4.',
  properties: {
    video_url: { type: 'string' },
    ...VERIFIED_VIDEO_PROPERTIES,
  },
};

/** One output of a job (docs/api.md "Video packs"): its verified properties, format and links. */
export const JobOutputSchema: JsonSchema = {
  type: 'object',
  required: ['format', 'video_url', 'poster_url', 'width', 'height', 'fps', 'duration_s', 'size_bytes', 'sha256'],
  properties: {
    format: { type: 'string', enum: [...VIDEO_FORMATS] },
    video_url: { type: 'string', description: 'GET /api/v1/jobs/{job_id}/video?format=<format>.' },
    poster_url: {
      type: ['string', 'null'],
      description: 'GET /api/v1/jobs/{job_id}/poster?format=<format>; null when no poster was drawn or the files were purged.',
    },
    ...VERIFIED_VIDEO_PROPERTIES,
    expired_at: { type: 'string', format: 'date-time', description: 'Set once retention removed the files.' },
  },
};

export const JobSchema: JsonSchema = {
  type: 'object',
  description:
    'A render job. States: queued → running → succeeded | failed | canceled (queued → canceled too); terminal states never change.',
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
    format: { type: 'string', enum: [...VIDEO_FORMATS], description: "The primary output's format: `formats[0]`." },
    formats: {
      type: 'array',
      items: { type: 'string', enum: [...VIDEO_FORMATS] },
      description: 'Every format the job renders, in request order (one for a plain request).',
    },
    language: { type: 'string', enum: [...LANGUAGES] },
    listing: {
      type: ['object', 'null'],
      properties: { title: { type: 'string' }, city: nullable('string'), district: nullable('string'), price_mad: nullable('integer') },
    },
    result: VideoResultSchema,
    outputs: {
      type: ['array', 'null'],
      items: JobOutputSchema,
      description: 'Only when succeeded: every output, in `formats` order (`result` is the first).',
    },
    error: {
      type: ['object', 'null'],
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        reason: { type: 'string', description: 'When known: `fetch_budget_exceeded` (docs/scaling.md "Fairness").' },
      },
    },
    warnings: { type: 'array', items: WarningSchema },
    held_back: {
      type: 'array',
      items: HeldBackSchema,
      description: 'Facts the analysis held back as doubtful (docs/api.md "Held back"); empty when none.',
    },
    metadata: { type: ['object', 'null'], additionalProperties: true, description: 'The `metadata` given at submission, as given.' },
    units: {
      type: 'integer',
      description: 'Quota units the job was charged: one per output, a pack of three formats three (docs/api.md "Monthly quota").',
    },
    links: {
      type: 'object',
      properties: { self: { type: 'string' }, video: nullable('string'), cancel: nullable('string') },
    },
  },
};

/** The body of a webhook delivery (Standard Webhooks): the job as it ended. */
export const WebhookEventSchema: JsonSchema = {
  type: 'object',
  required: ['type', 'timestamp', 'data'],
  properties: {
    type: { type: 'string', enum: ['job.succeeded', 'job.failed', 'job.canceled'] },
    timestamp: { type: 'string', format: 'date-time' },
    data: JobSchema,
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
    job_id: {
      type: 'string',
      maxLength: 64,
      description: '`job_` and 26 lowercase base32 characters. Anything else is a 400 before storage is touched.',
    },
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
  JobOutput: JobOutputSchema,
  Job: JobSchema,
  JobEnvelope: JobEnvelopeSchema,
  WebhookEvent: WebhookEventSchema,
  Branding: BrandingSchema,
};

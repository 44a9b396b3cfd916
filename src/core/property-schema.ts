import { Type } from '@sinclair/typebox';
import { AUDIENCES, FEATURE_KEYS, LANGUAGES, PROPERTY_TYPES, PROVENANCE_FIELDS, TRANSACTIONS, type Property } from './types.js';

/**
 * The analysed listing as JSON Schema: the answer of analysis, and the `listing` a render request
 * may carry instead of a url (one object, so the OpenAPI document names it `Property` both times).
 */

const nullable = (type: string) => ({ type: [type, 'null'] });
const stringArray = { type: 'array', items: { type: 'string' } };

const PROVENANCE_SOURCES = ['structured_data', 'page_text', 'description'];

export const WarningSchema = {
  type: 'object',
  required: ['code', 'message'],
  properties: {
    code: { type: 'string' },
    message: { type: 'string' },
    values: {
      type: 'array',
      description: "CONTRADICTION only: each source's value with the words it was read from.",
      items: {
        type: 'object',
        properties: { source: { type: 'string', enum: PROVENANCE_SOURCES }, value: { type: 'string' }, excerpt: nullable('string') },
      },
    },
  },
};

const FieldProvenanceSchema = {
  type: 'object',
  required: ['source', 'excerpt', 'confidence'],
  properties: {
    source: { type: 'string', enum: PROVENANCE_SOURCES },
    excerpt: { type: 'string', maxLength: 120, description: 'The words the value was read from, verbatim; for page data, "field: value".' },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
  },
};

export const MarketSchema = {
  type: ['object', 'null'],
  properties: {
    area: { type: 'string' },
    area_level: {
      type: 'string',
      enum: ['district', 'city', 'metro_area'],
      description: "metro_area: a commune compared with its metro area's figures.",
    },
    median_price_per_m2_mad: { type: 'number' },
    q1_price_per_m2_mad: nullable('number'),
    q3_price_per_m2_mad: nullable('number'),
    sample_size: nullable('integer'),
    as_of: { type: 'string' },
    source: { type: 'string', description: "Internal id and description of the figures' source, stable for machines." },
    source_label: { type: 'string', description: "The source as shown to readers: its name and the figures' month, in `language`." },
    position: { type: ['string', 'null'], enum: ['below', 'in_line', 'above', null] },
    delta_pct: nullable('number'),
    confidence: { type: 'string', enum: ['high', 'medium', 'low'] },
  },
};

export const PropertySchema = Type.Unsafe<Property>({
  type: 'object',
  description: "The analysed listing (docs/api.md). The first seven fields are the contract's; unknown facts are null, never guessed.",
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
});

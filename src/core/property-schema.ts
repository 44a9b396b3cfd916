import { Type } from '@sinclair/typebox';
import { MAX_LISTING_ITEM_CHARS, MAX_LISTING_LIST_ITEMS, MAX_LISTING_TITLE_CHARS } from './limits.js';
import {
  AUDIENCES,
  CONFIRMABLE_FACTS,
  WARNING_FIELDS,
  FEATURE_KEYS,
  LANGUAGES,
  PROPERTY_TYPES,
  PROVENANCE_FIELDS,
  TRANSACTIONS,
  type Property,
} from './types.js';

/**
 * The analysed listing as JSON Schema: the answer of analysis, and the `listing` a render request
 * may carry instead of a url (one object, so the OpenAPI document names it `Property` both times).
 */

const nullable = (type: string) => ({ type: [type, 'null'] });
const stringArray = { type: 'array', items: { type: 'string' } };
/** Prices, surfaces and counts are never negative. */
const count = (type: string) => ({ type: [type, 'null'], minimum: 0 });

const PROVENANCE_SOURCES = ['structured_data', 'page_text', 'description'];

/** A photo given to a render that is not in its video (docs/api.md "Photos shown and left out"). */
export const PhotoLeftOutSchema = {
  type: 'object',
  required: ['index', 'ref', 'reason', 'message'],
  properties: {
    index: { type: 'integer', minimum: 0, description: '0-based, in the photos given.' },
    ref: { type: 'string', description: 'The photo as given.' },
    reason: { type: 'string', enum: ['duration', 'limit', 'unreadable', 'unreachable', 'duplicate', 'too_small'] },
    message: { type: 'string', description: "Why, in the request's language." },
  },
};

export const WarningSchema = {
  type: 'object',
  required: ['code', 'message'],
  properties: {
    photo: { ...PhotoLeftOutSchema, description: 'PHOTO_DROPPED, PHOTO_DUPLICATE and PHOTO_LEFT_OUT: the photo not shown.' },
    code: { type: 'string' },
    message: { type: 'string' },
    field: { type: 'string', enum: [...WARNING_FIELDS], description: 'The fact the warning is about, when it concerns one.' },
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

/** A fact held back as doubtful (docs/analysis.md "Held back"). */
export const HeldBackSchema = {
  type: 'object',
  required: ['field', 'code', 'message'],
  properties: {
    field: { type: 'string', enum: [...CONFIRMABLE_FACTS] },
    code: { type: 'string', description: 'PRICE_IMPLAUSIBLE or SURFACE_IMPLAUSIBLE.' },
    message: { type: 'string', description: 'Why, in `language`, naming the field.' },
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
    position_withheld: {
      type: 'string',
      description: 'Present when `position` is null because the price or surface is held back: why, in `language`.',
    },
    delta_pct: nullable('number'),
    confidence: { type: 'string', enum: ['high', 'medium', 'low'] },
  },
};

/** The fields the schema requires: the contract's seven. */
type ContractField = 'title' | 'city' | 'district' | 'price_mad' | 'currency' | 'features' | 'marketing_angles';

/**
 * What a value that passes `PropertySchema` is known to hold: the contract's fields, and any other
 * field with its type. Nested objects that the schema does not require whole (market, target
 * buyer, source) may be partial; a reader checks the fields it needs.
 */
export type PropertyInput = Pick<Property, ContractField> &
  Partial<Omit<Property, ContractField | 'market' | 'target_buyer' | 'source'>> & {
    market?: Partial<NonNullable<Property['market']>> | null;
    target_buyer?: Partial<Property['target_buyer']>;
    source?: Partial<Property['source']>;
  };

export const PropertySchema = Type.Unsafe<PropertyInput>({
  type: 'object',
  description: "The analysed listing (docs/api.md). The first seven fields are the contract's; unknown facts are null, never guessed.",
  required: ['title', 'city', 'district', 'price_mad', 'currency', 'features', 'marketing_angles'],
  properties: {
    title: { type: 'string' },
    city: nullable('string'),
    district: nullable('string'),
    price_mad: { type: ['integer', 'null'], minimum: 0, description: 'Always MAD; a rent is per month.' },
    currency: { const: 'MAD' },
    features: { ...stringArray, description: 'Feature labels in `language`.' },
    marketing_angles: { ...stringArray, description: '3–6 sentences in `language`.' },
    transaction: { type: ['string', 'null'], enum: [...TRANSACTIONS, null] },
    property_type: { type: ['string', 'null'], enum: [...PROPERTY_TYPES, null] },
    surface_m2: count('number'),
    surface_total_m2: count('number'),
    rooms: count('integer'),
    bedrooms: count('integer'),
    bathrooms: { ...count('integer'), description: 'Rooms with a shower or a bath.' },
    toilets: { ...count('integer'), description: 'WC counted apart from bathrooms.' },
    floor: { type: ['integer', 'null'], minimum: -10, description: 'Negative below ground.' },
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
    price_per_m2_mad: count('number'),
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
    held_back: {
      type: 'array',
      items: HeldBackSchema,
      description:
        'Facts held back as doubtful: no market position, angle, yield or price card is built on them until confirmed (`confirmed_facts`).',
    },
    provenance: {
      type: 'object',
      description: 'Where each extracted field came from, keyed by field name.',
      properties: Object.fromEntries(PROVENANCE_FIELDS.map((field) => [field, FieldProvenanceSchema])),
    },
  },
});

const listedTexts = { maxItems: MAX_LISTING_LIST_ITEMS, items: { maxLength: MAX_LISTING_ITEM_CHARS } };

/**
 * The sizes a `listing` given to a render may have, on top of its types (`PropertySchema`): what
 * an analysis answers is not bounded by these (a portal title may be longer), but a listing sent
 * in is drawn on the video and echoed in the job (docs/api.md "One schema per input"). Types
 * are stated once, in `PropertySchema`: here only sizes, which apply to values of that type.
 */
export const ListingLimitsSchema = Type.Unsafe<PropertyInput>({
  properties: {
    title: { maxLength: MAX_LISTING_TITLE_CHARS },
    features: listedTexts,
    marketing_angles: listedTexts,
    feature_keys: { maxItems: MAX_LISTING_LIST_ITEMS },
    photos: listedTexts,
  },
});

/**
 * Domain types shared by analysis, rendering, jobs, the server and the CLI.
 * Field names are snake_case because they are the wire format of the API (docs/analysis.md, docs/jobs.md).
 */

export const LANGUAGES = ['fr', 'en', 'ar'] as const;
export type Language = (typeof LANGUAGES)[number];

export const AUDIENCES = ['family', 'young_couple', 'investor', 'mre', 'expat', 'retiree', 'luxury', 'student'] as const;
export type Audience = (typeof AUDIENCES)[number];
/** What a caller may ask for: a fixed audience, or `auto` to infer it. */
export type AudienceRequest = Audience | 'auto';
export const AUDIENCE_CHOICES = ['auto', ...AUDIENCES] as const;

export const TRANSACTIONS = ['sale', 'rent'] as const;
export type Transaction = (typeof TRANSACTIONS)[number];

export const PROPERTY_TYPES = [
  'apartment',
  'studio',
  'duplex',
  'penthouse',
  'villa',
  'house',
  'riad',
  'land',
  'office',
  'commercial',
  'farm',
  'building',
] as const;
export type PropertyType = (typeof PROPERTY_TYPES)[number];

export const FEATURE_KEYS = [
  'pool',
  'garden',
  'terrace',
  'balcony',
  'elevator',
  'parking',
  'garage',
  'air_conditioning',
  'heating',
  'equipped_kitchen',
  'furnished',
  'concierge',
  'security',
  'gated_community',
  'sea_view',
  'mountain_view',
  'moroccan_lounge',
  'double_glazing',
  'armored_door',
  'storage',
  'fireplace',
  'duplex',
  'title_deed',
  'new_build',
  'near_beach',
  'near_tram',
  'near_schools',
] as const;
export type FeatureKey = (typeof FEATURE_KEYS)[number];

/** The facts a warning may name in `field` (docs/analysis.md "Warnings"). */
export const WARNING_FIELDS = [
  'price',
  'surface',
  'transaction',
  'property_type',
  'rooms',
  'bedrooms',
  'bathrooms',
  'floor',
  'city',
  'district',
] as const;
export type WarningField = (typeof WARNING_FIELDS)[number];

export interface Warning {
  /** Stable, upper snake case, e.g. PRICE_PER_M2_IMPLAUSIBLE, KEY_MONEY_SCHEME, CONTRADICTION, DUAL_OFFER. */
  code: string;
  message: string;
  /**
   * The fact the warning is about, when it concerns one (docs/analysis.md "Warnings"); a price or
   * surface doubted by a plausibility check is held back until confirmed ("Held back").
   */
  field?: WarningField;
  /** CONTRADICTION only: each source's value with the words it was read from. */
  values?: WarningValue[];
  /** A photo given that is not in the video (PHOTO_DROPPED, PHOTO_DUPLICATE, PHOTO_LEFT_OUT): the job's `photos_left_out` entry. */
  photo?: PhotoLeftOut;
}

/**
 * A photo given to a render that is not in its video (docs/api.md "Photos shown and left out"):
 * `reason` is `duration` (no room in the video's length), `limit` (past the most photos a render
 * takes), `unreadable`, `unreachable`, `duplicate` or `too_small`; `message` in the request's language.
 */
export interface PhotoLeftOut {
  /** 0-based, in the photos given. */
  index: number;
  /** As given (a URL, `asset:<id>`, or a local file's name). */
  ref: string;
  reason: 'duration' | 'limit' | 'unreadable' | 'unreachable' | 'duplicate' | 'too_small';
  message: string;
}

/** Facts a caller may confirm when the analysis doubts them (docs/analysis.md "Held back"). */
export const CONFIRMABLE_FACTS = ['price', 'surface'] as const;
export type ConfirmableFact = (typeof CONFIRMABLE_FACTS)[number];

/**
 * A fact the analysis doubts and holds back (docs/analysis.md "Held back"): no market position,
 * angle, yield or price card is built on it until the caller confirms it (`confirmed_facts`).
 */
export interface HeldBackFact {
  field: ConfirmableFact;
  /** PRICE_IMPLAUSIBLE or SURFACE_IMPLAUSIBLE. */
  code: string;
  /** Why, in the request's language, naming the field. */
  message: string;
}

export interface WarningValue {
  source: ProvenanceSource;
  value: string;
  /** Verbatim, at most 120 characters; null when the source did not say where. */
  excerpt: string | null;
}

export type PortalName = 'mubawab' | 'avito' | 'sarouty' | 'yakeey';

export interface ListingSource {
  kind: 'url' | 'html' | 'text';
  portal: PortalName | null;
  listing_id: string | null;
  url: string | null;
}

export interface PriceOriginal {
  amount: number;
  currency: string;
}

/** One deal a listing offers: a listing "à vendre ou à louer" offers two (docs/analysis-text.md "Dual offers"). */
export interface Offer {
  transaction: Transaction;
  /** Always MAD; null when the text names the deal without its price. */
  price_mad: number | null;
  /** `month` for a rent (prices are monthly), null for a sale. */
  period: 'month' | null;
}

/** Where a fact came from: the page's structured fields, the page's own text, or the description passed in. */
export type ProvenanceSource = 'structured_data' | 'page_text' | 'description';

export interface FieldProvenance {
  source: ProvenanceSource;
  /** The words the value was read from, verbatim (at most 120 characters); for structured data, the field and its value. */
  excerpt: string;
  /** 0–1: how sure the reading is (docs/analysis.md "Provenance"). */
  confidence: number;
}

export const PROVENANCE_FIELDS = [
  'transaction',
  'property_type',
  'price_mad',
  'surface_m2',
  'surface_total_m2',
  'rooms',
  'bedrooms',
  'bathrooms',
  'toilets',
  'floor',
  'city',
  'district',
] as const;
export type ProvenanceField = (typeof PROVENANCE_FIELDS)[number];
export type Provenance = Partial<Record<ProvenanceField, FieldProvenance>>;

/**
 * Facts about one listing as read from a page and/or a text, before enrichment.
 * Every field is null when the source does not state it: never guessed.
 */
export interface ListingFacts {
  title: string | null;
  transaction: Transaction | null;
  property_type: PropertyType | null;
  /** Always MAD; a rent is per month. */
  price_mad: number | null;
  price_original: PriceOriginal | null;
  surface_m2: number | null;
  surface_total_m2: number | null;
  rooms: number | null;
  bedrooms: number | null;
  bathrooms: number | null;
  /** WC / toilets counted apart from bathrooms. */
  toilets: number | null;
  /** 0 = ground floor (RDC); negative = basement. */
  floor: number | null;
  city: string | null;
  district: string | null;
  /** Every deal offered, the main one first (same as transaction / price_mad); empty when none is stated. */
  offers: Offer[];
  feature_keys: FeatureKey[];
  photos: string[];
  /** Where each extracted field came from. */
  provenance: Provenance;
  /** The free text the facts came from (title + description), kept for angles; never output. */
  description: string | null;
  warnings: Warning[];
}

export type MarketPosition = 'below' | 'in_line' | 'above';

export interface MarketComparison {
  area: string;
  /**
   * Which figures were used: the listing's district, its city (commune), or — for a commune
   * without figures of its own — its metro area's (docs/analysis.md "Price per m², position, delta, confidence").
   */
  area_level: 'district' | 'city' | 'metro_area';
  median_price_per_m2_mad: number;
  q1_price_per_m2_mad: number | null;
  q3_price_per_m2_mad: number | null;
  sample_size: number | null;
  as_of: string;
  /** The source's internal id and description, for machines and the docs ("[DS-EARTHY] …"). */
  source: string;
  /** The source as a reader is told it, in the analysis language, with the figures' month (docs/api.md). */
  source_label: string;
  position: MarketPosition | null;
  /** Present when `position` is null because the price or surface is held back: why, in the analysis language. */
  position_withheld?: string;
  delta_pct: number | null;
  confidence: 'high' | 'medium' | 'low';
}

export interface AudienceSegment {
  key: Audience;
  label: string;
  score: number;
  reasons: string[];
}

export interface TargetBuyer {
  primary: Audience;
  segments: AudienceSegment[];
  demographics: {
    household: string;
    age_range: string;
    budget_mad: [number, number] | null;
    financing: string;
  };
}

/** The `property` object of an analysis (docs/analysis.md). The first eight fields are the contract's. */
export interface Property {
  title: string;
  city: string | null;
  district: string | null;
  price_mad: number | null;
  currency: 'MAD';
  features: string[];
  marketing_angles: string[];

  transaction: Transaction | null;
  property_type: PropertyType | null;
  surface_m2: number | null;
  surface_total_m2: number | null;
  rooms: number | null;
  bedrooms: number | null;
  bathrooms: number | null;
  toilets: number | null;
  floor: number | null;
  /** The metropolitan area a commune belongs to ("Grand Casablanca" for Bouskoura), else null. */
  metro_area: string | null;
  offers: Offer[];
  feature_keys: FeatureKey[];
  price_per_m2_mad: number | null;
  price_original: PriceOriginal | null;
  market: MarketComparison | null;
  target_buyer: TargetBuyer;
  photos: string[];
  source: ListingSource;
  language: Language;
  warnings: Warning[];
  /**
   * Facts held back as doubtful (docs/analysis.md "Held back"): every analysis answer has it (empty
   * when none); a listing sent in without it has none.
   */
  held_back?: HeldBackFact[];
  provenance: Provenance;
}

export interface AnalyzeResponse {
  ok: true;
  status: 'success';
  property: Property;
}

export const VIDEO_FORMATS = ['landscape', 'portrait', 'square'] as const;
export type VideoFormat = (typeof VIDEO_FORMATS)[number];

export const JOB_STATES = ['queued', 'running', 'succeeded', 'failed', 'canceled'] as const;
export type JobState = (typeof JOB_STATES)[number];
export const JOB_STAGES = ['fetching_assets', 'preparing', 'rendering', 'verifying'] as const;
export type JobStage = (typeof JOB_STAGES)[number];

/** What ffprobe verified about a finished video. */
export interface VideoResult {
  video_url: string;
  width: number;
  height: number;
  fps: number;
  duration_s: number;
  size_bytes: number;
  video_codec: string;
  audio_codec: string;
  audio_bitrate_kbps: number;
  sha256: string;
  /** Set once retention (`immoreel jobs purge`) removed the video; the other fields stay as verified. */
  expired_at?: string;
}

/**
 * One video of a job (docs/jobs.md "Outputs"): what ffprobe verified, its format, and where its
 * poster is (null when none was drawn, or the files were purged).
 */
export type JobOutput = VideoResult & { format: VideoFormat; poster_url: string | null };

/** The job record of docs/jobs.md, as returned by GET /api/v1/jobs/{job_id} and `immoreel jobs show`. */
export interface JobRecord {
  /** Quota units the job was charged (one per output), for a job made with an API key; absent otherwise. */
  units?: number;
  job_id: string;
  state: JobState;
  stage: JobStage | null;
  progress: number;
  attempts: number;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
  template: string;
  /** The primary output's format: `formats[0]`. */
  format: VideoFormat;
  /** Every format the job renders, in request order (one for a plain request). */
  formats: VideoFormat[];
  language: Language;
  listing: { title: string; city: string | null; district: string | null; price_mad: number | null } | null;
  /** Facts the analysis held back (docs/analysis.md "Held back"); empty when none, or before analysis. */
  held_back: HeldBackFact[];
  /** The primary output (`outputs[0]` without its format and poster), as before packs. */
  result: VideoResult | null;
  /** Every output, in `formats` order; null until the job succeeded. */
  outputs: JobOutput[] | null;
  /** `reason` when one is known, e.g. `fetch_budget_exceeded` (src/core/job-errors.ts). */
  error: { code: string; message: string; reason?: string } | null;
  warnings: Warning[];
  /** The photos given that are not in the video, with why (empty when every one is shown). */
  photos_left_out: PhotoLeftOut[];
  metadata: Record<string, unknown> | null;
  links: { self: string; video: string | null; cancel: string | null };
}

export interface JobList {
  jobs: JobRecord[];
  next_cursor: string | null;
}

export interface ListJobsOptions {
  state?: JobState;
  limit?: number;
  cursor?: string;
}

export interface WaitOptions {
  /** Called whenever the job record changes while waiting. */
  onUpdate?: (job: JobRecord) => void;
  timeoutMs?: number;
  signal?: AbortSignal;
}

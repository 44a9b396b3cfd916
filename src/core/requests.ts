import { Type, type Static, type TSchema } from '@sinclair/typebox';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { badRequest, type ErrorDetail } from './errors.js';
import { MAX_DESCRIPTION_CHARS, MAX_HTML_BYTES, MAX_METADATA_BYTES } from './limits.js';
import { PropertySchema } from './property-schema.js';
import { AUDIENCE_CHOICES, CONFIRMABLE_FACTS, LANGUAGES, VIDEO_FORMATS } from './types.js';

/**
 * The one definition of each input (docs/api.md "One schema per input"): `AnalyzeRequest` and
 * `RenderRequest` are TypeBox schemas, so the same objects give the TypeScript types, the HTTP
 * routes' validation (fastify's TypeBox type provider), the check run for CLI flags and CSV rows
 * (`checkInput`), and the OpenAPI document. Every limit on an input is a constant of this module
 * or of `limits.ts` (sizes and depths of free-form parts, shared with the page parsers).
 */

export { MAX_DESCRIPTION_CHARS, MAX_HTML_BYTES, MAX_METADATA_BYTES };
export const MAX_URL_CHARS = 2048;
export const MAX_PHOTOS = 40;
/** Video length bounds (docs/rendering.md "Decisions where the design is silent"): shorter cannot show a listing, longer loses viewers. */
export const MIN_DURATION_S = 10;
export const MAX_DURATION_S = 90;
/** Branding texts are drawn on a 1280-pixel end card: longer names do not fit. */
export const MAX_NAME_CHARS = 80;
export const MAX_PHONE_CHARS = 30;
export const MAX_EMAIL_CHARS = 254;
export const MAX_TEMPLATE_NAME_CHARS = 64;

export { AUDIENCE_CHOICES };

const listingInputs = {
  url: Type.String({ minLength: 1, maxLength: MAX_URL_CHARS, description: 'A listing page on Mubawab, Avito, Sarouty or Yakeey.' }),
  html: Type.String({
    maxLength: MAX_HTML_BYTES,
    'x-size': `${MAX_HTML_BYTES / 1024 / 1024} MB`,
    description: 'The listing page as saved by a browser; then nothing is fetched.',
  }),
  description: Type.String({ maxLength: MAX_DESCRIPTION_CHARS, description: 'Raw listing text (French, English, Arabic, Darija).' }),
  language: Type.Optional(
    Type.Union(
      LANGUAGES.map((l) => Type.Literal(l)),
      { default: 'fr', description: 'Language of labels, features and angles.' },
    ),
  ),
  target_audience: Type.Optional(
    Type.Union(
      AUDIENCE_CHOICES.map((a) => Type.Literal(a)),
      { default: 'auto', description: 'Buyer profile the angles aim at; `auto` infers it.' },
    ),
  ),
  confirmed_facts: Type.Optional(
    Type.Array(Type.Union(CONFIRMABLE_FACTS.map((f) => Type.Literal(f))), {
      maxItems: CONFIRMABLE_FACTS.length,
      uniqueItems: true,
      description:
        'Facts the caller confirms although the analysis doubts them (docs/analysis.md "Held back"): a confirmed price is used for the market position, angles and the price card.',
    }),
  ),
};

export const AnalyzeRequestSchema = Type.Object(
  {
    url: Type.Optional(listingInputs.url),
    html: Type.Optional(listingInputs.html),
    description: Type.Optional(listingInputs.description),
    language: listingInputs.language,
    target_audience: listingInputs.target_audience,
    confirmed_facts: listingInputs.confirmed_facts,
  },
  {
    title: 'analysis request',
    additionalProperties: false,
    description:
      'Give `url`, `html` or `description` (at least one). `url` and `description` may be combined: page numbers win, the text adds features.',
  },
);
export type AnalyzeRequest = Static<typeof AnalyzeRequestSchema>;

const imageRef = (description: string) => Type.String({ minLength: 1, maxLength: MAX_URL_CHARS, description });

/** Where a photo's subject is (docs/rendering.md "Framing"): fractions of the upright photo, 0,0 its top left. */
export const FocusSchema = Type.Object(
  {
    x: Type.Number({ minimum: 0, maximum: 1, description: 'From the left edge (0) to the right edge (1).' }),
    y: Type.Number({ minimum: 0, maximum: 1, description: 'From the top (0) to the bottom (1).' }),
  },
  { additionalProperties: false, description: "The photo's subject: every crop and camera movement keeps it in frame." },
);

/** A photo of a render request: its reference alone, or with its subject (docs/api.md "Photos shown and left out"). */
export const PhotoItemSchema = Type.Union([
  imageRef('http(s) URL, `asset:<id>`, or (CLI only) a file path.'),
  Type.Object(
    { url: imageRef('http(s) URL, `asset:<id>`, or (CLI only) a file path.'), focus: Type.Optional(FocusSchema) },
    { additionalProperties: false },
  ),
]);
export type PhotoItem = Static<typeof PhotoItemSchema>;

export const BrandingSchema = Type.Object(
  {
    agency_name: Type.Optional(Type.String({ maxLength: MAX_NAME_CHARS })),
    agent_name: Type.Optional(Type.String({ maxLength: MAX_NAME_CHARS })),
    phone: Type.Optional(Type.String({ maxLength: MAX_PHONE_CHARS, description: 'Digits, spaces, + ( ) . - (e.g. +212 6 12 34 56 78).' })),
    email: Type.Optional(Type.String({ maxLength: MAX_EMAIL_CHARS })),
    logo_url: Type.Optional(imageRef('Logo URL (public http/https) or `asset:<asset_id>`.')),
    primary_color: Type.Optional(Type.String({ maxLength: 16, description: 'A colour like #1A73E8.' })),
    unbranded: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type Branding = Static<typeof BrandingSchema>;

export const RenderRequestSchema = Type.Object(
  {
    ...{
      url: Type.Optional(listingInputs.url),
      html: Type.Optional(listingInputs.html),
      description: Type.Optional(listingInputs.description),
      language: listingInputs.language,
      target_audience: listingInputs.target_audience,
      confirmed_facts: listingInputs.confirmed_facts,
    },
    listing: Type.Optional(PropertySchema),
    photos: Type.Optional(
      Type.Array(PhotoItemSchema, {
        maxItems: MAX_PHOTOS,
        description:
          "Photo URLs (public http/https) or `asset:<asset_id>` from POST /api/v1/assets, each a string or `{ url, focus }` with the photo's subject. Default: the listing page's photos.",
      }),
    ),
    template: Type.Optional(
      Type.String({ minLength: 1, maxLength: MAX_TEMPLATE_NAME_CHARS, description: 'classic (default), luxury, social, …' }),
    ),
    format: Type.Optional(
      Type.Union(
        VIDEO_FORMATS.map((f) => Type.Literal(f)),
        { default: 'landscape', description: 'One video in this format. Not together with `formats`.' },
      ),
    ),
    formats: Type.Optional(
      Type.Array(Type.Union(VIDEO_FORMATS.map((f) => Type.Literal(f))), {
        minItems: 1,
        maxItems: VIDEO_FORMATS.length,
        description:
          'A video pack (docs/api.md "Video packs"): one video per format, each distinct, from one job; one quota unit per format. ' +
          'The first is the primary output (`result`, the plain video and poster routes). Not together with `format`.',
      }),
    ),
    duration_s: Type.Optional(
      Type.Number({ minimum: MIN_DURATION_S, maximum: MAX_DURATION_S, 'x-unit': 'seconds', description: "Default: the template's." }),
    ),
    music: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_URL_CHARS, description: '`auto`, `none` or a bundled track name.' })),
    branding: Type.Optional(BrandingSchema),
    webhook_url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_URL_CHARS,
        description: 'Receives the job record, signed (Standard Webhooks), when the job ends. Public http(s) only.',
      }),
    ),
    metadata: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: `Your own data (at most ${MAX_METADATA_BYTES} bytes as JSON), echoed in the job and its webhook.`,
      }),
    ),
  },
  {
    title: 'render request',
    additionalProperties: false,
    description:
      'Give `url`, `html` or `description` (analysed when the job runs), or `listing` (an analysis `property`) to skip analysis; not `listing` together with the others.',
  },
);

export type RenderRequest = Static<typeof RenderRequestSchema>;

// ---------------------------------------------------------------------------------------------
// The one check: schema errors → `details` with the same field names and messages everywhere.

interface AjvLikeError {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
  parentSchema?: Record<string, unknown>;
}

const HEADER_NAMES: Record<string, string> = { 'idempotency-key': 'Idempotency-Key', 'content-type': 'Content-Type' };

/** `/branding/phone` → `branding.phone`; array indexes as `photos[2]`. */
function fieldOf(context: string | undefined, error: AjvLikeError): string {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required' && typeof error.params.missingProperty === 'string') segments.push(error.params.missingProperty);
  if (error.keyword === 'additionalProperties' && typeof error.params.additionalProperty === 'string')
    segments.push(error.params.additionalProperty);
  let field = '';
  for (const segment of segments) field += /^\d+$/.test(segment) ? `[${segment}]` : field === '' ? segment : `.${segment}`;
  // A refused member's name is the caller's text: an answer quotes at most MAX_FIELD_CHARS of it.
  if (field.length > MAX_FIELD_CHARS) field = `${field.slice(0, MAX_FIELD_CHARS)}…`;
  if (context === 'headers') return HEADER_NAMES[field.toLowerCase()] ?? field;
  return field === '' ? (context === 'body' || context === undefined ? 'body' : context) : field;
}

/** JSON Schema's type names as a reader says them: `must be a number or null`. */
const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  null: 'null',
};

function messageOf(error: AjvLikeError): string {
  const schema = error.parentSchema ?? {};
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not an accepted field';
    case 'enum':
      return `must be one of ${(error.params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `must be ${String(error.params.allowedValue)}`;
    case 'type':
      return `must be ${String(error.params.type)
        .split(',')
        .map((type) => TYPE_NAMES[type] ?? type)
        .join(' or ')}`;
    case 'maxLength':
      // A page's limit reads better as a size than as millions of characters.
      if (typeof schema['x-size'] === 'string') return `is larger than ${schema['x-size']}`;
      return `is longer than ${String(error.params.limit)} characters`;
    case 'minLength':
      return error.params.limit === 1 ? 'must not be empty' : `is shorter than ${String(error.params.limit)} characters`;
    case 'maxItems':
      return `has more than ${String(error.params.limit)} entries`;
    case 'minItems':
      if (error.params.limit === 1) {
        // A list of choices says which: `formats must list at least one of landscape, portrait, square`.
        const choices = (schema.items as { anyOf?: { const?: unknown }[] } | undefined)?.anyOf?.map((m) => m.const);
        return choices !== undefined && choices.every((c) => c !== undefined)
          ? `must list at least one of ${choices.map(String).join(', ')}`
          : 'must not be empty';
      }
      return `has fewer than ${String(error.params.limit)} entries`;
    case 'minimum':
    case 'maximum':
      if (typeof schema.minimum === 'number' && typeof schema.maximum === 'number') {
        const unit = typeof schema['x-unit'] === 'string' ? ` of ${schema['x-unit']}` : '';
        return `must be a number${unit} from ${schema.minimum} to ${schema.maximum}`;
      }
      return `must be ${error.keyword === 'minimum' ? '≥' : '≤'} ${String(error.params.limit)}`;
    default:
      return error.message ?? 'is invalid';
  }
}

/** The `details` of a schema validation failure: one entry per field and message, each once. */
export function validationDetails(errors: readonly AjvLikeError[], context?: string): ErrorDetail[] {
  // At most one more than an answer lists: enough to say that more were found (`invalidInput`).
  // A union of literals fails once per member and once as `anyOf`: say it once, as an enum.
  // Where an `anyOf` failed, found once: one pass over the errors, not one per error (a 64 KB
  // list of wrong items gives ~100 000 errors; docs/security.md "Bounded validation").
  const anyOfPaths = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  // For a union of types: the shapes refused at each place, and the places (with every place above
  // them) where a value met a problem of its own inside a member's shape. One pass each.
  const typesAt = new Map<string, string[]>();
  const innerProblemAt = new Set<string>();
  for (const e of errors) {
    if (e.keyword === 'type') typesAt.set(e.instancePath, [...(typesAt.get(e.instancePath) ?? []), `a ${String(e.params.type)}`]);
    else if (e.keyword !== 'anyOf') {
      for (let path = e.instancePath; ; path = path.slice(0, path.lastIndexOf('/'))) {
        innerProblemAt.add(path);
        if (path === '') break;
      }
    }
  }
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  const push = (detail: ErrorDetail): void => {
    const key = `${detail.field}\u0000${detail.message}`;
    if (seen.has(key)) return;
    seen.add(key);
    details.push(detail);
  };
  for (const error of errors) {
    if (details.length > MAX_ERROR_DETAILS) break;
    if (error.keyword === 'if' || error.keyword === 'oneOf') continue;
    const parent = error.parentSchema;
    const members = Array.isArray(parent?.anyOf) ? (parent.anyOf as Record<string, unknown>[]) : null;
    if (error.keyword === 'anyOf' && members !== null && members.every((m) => 'const' in m)) {
      push({ field: fieldOf(context, error), message: `must be one of ${members.map((m) => String(m.const)).join(', ')}` });
      continue;
    }
    // A union of types (a photo: a string or an object): the value's own problem when it took the
    // shape of a member (`photos[0].focus.x`), else one message naming the shapes it may have.
    if (error.keyword === 'anyOf') {
      const types = typesAt.get(error.instancePath) ?? [];
      if (!innerProblemAt.has(error.instancePath))
        push({ field: fieldOf(context, error), message: types.length > 0 ? `must be ${types.join(' or ')}` : 'is invalid' });
      continue;
    }
    if (error.keyword === 'type' && anyOfPaths.has(error.instancePath)) continue;
    // Members of a literal union: the `anyOf` entry above already said it.
    if (error.keyword === 'const' && anyOfPaths.has(error.instancePath)) continue;
    push({ field: fieldOf(context, error), message: messageOf(error) });
  }
  return details;
}

/** Problems an error answer lists at most; it says how many more there are (docs/security.md "Bounded validation"). */
export const MAX_ERROR_DETAILS = 20;
/** Longest field name an error answer quotes (a refused member's name is the caller's text). */
export const MAX_FIELD_CHARS = 120;
/** Unknown members of a closed object that are checked (and reported) before the rest are left unread. */
const MAX_UNKNOWN_MEMBERS_CHECKED = MAX_ERROR_DETAILS + 1;

type SchemaNode = Record<string, unknown>;
const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * What the validator reads of `value` to list its problems: the same value, except that a list
 * longer than its `maxItems` (or, without one, than an answer lists) is cut to `maxItems + 1` entries and a closed object's unknown members to the first
 * few. The answer is unchanged (the list is still too long, the first unknown members are still
 * named), but a 64 KB `{"formats":[1,1,…]}` costs the validator four entries, not 32 000: every
 * input costs at most a bounded multiple of what its schema allows (docs/security.md "Bounded
 * validation"). Copies only what it cuts; follows `properties` and `items` only.
 */
export function clipForValidation(schema: object, value: unknown): unknown {
  const node = schema as SchemaNode;
  if (Array.isArray(value)) {
    // A list without a `maxItems`: its first entries, enough to fill an answer (`inputProblems`
    // falls back to the first problem when those are all good).
    const minItems = typeof node.minItems === 'number' ? node.minItems : 0;
    const maxItems = typeof node.maxItems === 'number' ? node.maxItems : Math.max(minItems, MAX_ERROR_DETAILS);
    const items = isPlainObject(node.items) ? node.items : null;
    let list: unknown[] = value.length > maxItems + 1 ? value.slice(0, maxItems + 1) : value;
    if (items !== null && (items.properties !== undefined || items.items !== undefined)) {
      let copied = list !== value;
      for (let i = 0; i < list.length; i++) {
        const clipped = clipForValidation(items, list[i]);
        if (clipped === list[i]) continue;
        if (!copied) {
          list = [...list];
          copied = true;
        }
        list[i] = clipped;
      }
    }
    return list;
  }
  if (!isPlainObject(value) || !isPlainObject(node.properties)) return value;
  const properties = node.properties as Record<string, object>;
  const closed = node.additionalProperties === false;
  // Built only once something is cut: the known members, and the first unknown ones.
  let result: Record<string, unknown> | null = null;
  let unknown = 0;
  const keys = Object.keys(value);
  for (const [at, key] of keys.entries()) {
    const member = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (member === undefined) unknown += 1;
    const clipped = member === undefined ? value[key] : clipForValidation(member, value[key]);
    const cut = member === undefined && closed && unknown > MAX_UNKNOWN_MEMBERS_CHECKED;
    if (result === null && (cut || clipped !== value[key])) {
      result = {};
      for (const earlier of keys.slice(0, at)) result[earlier] = value[earlier];
    }
    if (result !== null && !cut) result[key] = clipped;
  }
  return result ?? value;
}

/**
 * The one validator of inputs. Bodies: strict (no coercion, unknown fields refused, every error
 * reported). Query strings and path parameters arrive as text, so numbers there are coerced.
 */
// `unicode: false`: string lengths are JavaScript lengths (UTF-16 units), read in constant time. Ajv's
// default counts code points by walking the string, ~20–60 ms for a 5 MB page on the server's event
// loop (docs/security.md); an emoji counts 2 towards a limit, which no real input comes near.
const strictAjv = addFormats.default(
  new Ajv.default({ allErrors: true, verbose: true, coerceTypes: false, useDefaults: false, strict: false, unicode: false, logger: false }),
);
const lenientAjv = addFormats.default(
  new Ajv.default({ allErrors: true, verbose: true, coerceTypes: true, useDefaults: false, strict: false, unicode: false, logger: false }),
);
// The first problem only, in one pass that stops there: whether a body conforms, found without
// collecting an error per wrong entry (docs/security.md "Bounded validation").
const firstProblemAjv = addFormats.default(
  new Ajv.default({
    allErrors: false,
    verbose: true,
    coerceTypes: false,
    useDefaults: false,
    strict: false,
    unicode: false,
    logger: false,
  }),
);
const compiled = new WeakMap<object, ValidateFunction>();
const compiledFirst = new WeakMap<object, ValidateFunction>();

function firstProblemValidator(schema: object): ValidateFunction {
  let validate = compiledFirst.get(schema);
  if (validate === undefined) {
    validate = firstProblemAjv.compile(schema);
    compiledFirst.set(schema, validate);
  }
  return validate;
}

export function compileInputSchema(schema: object, part: 'body' | 'text'): ValidateFunction {
  if (part === 'text') return lenientAjv.compile(schema);
  let validate = compiled.get(schema);
  if (validate === undefined) {
    validate = strictAjv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** The error every front door gives for an input that fails its schema: code, fields, message alike. */
export function invalidInput(subject: string, details: ErrorDetail[]) {
  // The answer's size is bounded whatever the body (docs/security.md "Bounded validation"): the
  // first MAX_ERROR_DETAILS problems, and whether there are more.
  const listed = details.slice(0, MAX_ERROR_DETAILS);
  const summary = listed.map((d) => `${d.field} ${d.message}`).join('; ');
  const tail = details.length > listed.length ? '; more problems not listed (fix these first)' : '';
  return badRequest(`Invalid ${subject}: ${summary}${tail}.`, { reason: 'invalid_request', details: listed });
}

/**
 * Every field of `value` that breaks `schema` (empty when it conforms). Undefined members are absent.
 * `within` names the part of a request `value` is (`listing`): its fields are then `listing.title`.
 */
export function inputProblems(schema: TSchema | object, value: unknown, within?: string): ErrorDetail[] {
  // Whether it conforms: one pass over the whole value that stops at the first problem.
  const first = firstProblemValidator(schema);
  if (first(value)) return [];
  // Every problem, collected on the clipped value: at most a bounded multiple of what the schema
  // allows, whatever the size of the body. Should the clipped value hide the problems (they lie
  // past the entries kept), the first problem is the answer.
  const validate = compileInputSchema(schema, 'body');
  const errors = validate(clipForValidation(schema, value)) ? first.errors : validate.errors;
  const details = validationDetails((errors ?? []) as ErrorObject[] as AjvLikeError[], within ?? 'body');
  if (within === undefined) return details;
  return details.map((d) => ({
    ...d,
    field: d.field === within ? within : d.field.startsWith('[') ? `${within}${d.field}` : `${within}.${d.field}`,
  }));
}

/** Throws BAD_REQUEST naming every field of `value` that breaks `schema`. */
export function checkInput<S extends TSchema>(schema: S, value: unknown): Static<S> {
  const details = inputProblems(schema, value);
  if (details.length > 0) throw invalidInput(typeof schema.title === 'string' ? schema.title : 'request', details);
  return value as Static<S>;
}

// ---------------------------------------------------------------------------------------------
// What a schema cannot say: rules between fields, and facts known only at run time (templates and
// tracks installed, local paths in local mode). Each rule is one named function beside its input's
// schema; a validator runs its schema first and its rules, in order, on what the schema accepted.

/**
 * One rule of an input (docs/api.md "One schema per input"): the problems it finds, or nothing.
 * `refused` names the top-level members the caller gave but the schema refused, left out of
 * `input`: a rule on what was given counts them as given.
 */
export type InputRule<T, C = undefined> = (input: T, context: C, refused: ReadonlySet<string>) => ErrorDetail | ErrorDetail[] | undefined;

const NONE_REFUSED: ReadonlySet<string> = new Set();

/** Every problem `rules` find in `input`, in the rules' order. */
export function ruleProblems<T, C>(rules: readonly InputRule<T, C>[], input: T, context: C, refused = NONE_REFUSED): ErrorDetail[] {
  return rules.flatMap((rule) => rule(input, context, refused) ?? []);
}

/**
 * The part of an object `value` its schema accepted: every member with a schema problem left out,
 * so that the rules can read the rest with its types. A problem inside an optional-only object
 * (`branding.phone`) leaves out that member only; inside a list (`photos[1]`), that entry only,
 * as a hole that iteration skips, so the other entries keep their index; anywhere else, the whole
 * top-level member. Null when `value` is not an object at all.
 */
function acceptedPart(schema: TSchema, value: unknown, problems: readonly ErrorDetail[]): Record<string, unknown> | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const accepted: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  const members = (schema.properties ?? {}) as Record<string, TSchema>;
  // Lists are copied once, not once per problem: a problem per entry stays linear.
  const copiedLists = new Set<string>();
  for (const { field } of problems) {
    const [, key, index, inner] = /^([^.[]+)(?:\[(\d+)\]$|\.([^.[]+)$)?/.exec(field) ?? [];
    if (key === undefined || !(key in accepted)) continue;
    const current = accepted[key];
    const required = members[key]?.required;
    if (index !== undefined && Array.isArray(current)) {
      const copy = copiedLists.has(key) ? (current as unknown[]) : [...(current as unknown[])];
      copiedLists.add(key);
      delete copy[Number(index)];
      accepted[key] = copy;
    } else if (
      inner !== undefined &&
      current !== null &&
      typeof current === 'object' &&
      !Array.isArray(current) &&
      !Array.isArray(required)
    ) {
      const { [inner]: _refused, ...rest } = current as Record<string, unknown>;
      accepted[key] = rest;
    } else delete accepted[key];
  }
  return accepted;
}

/** `inner` is `outer` or a part of it (`branding.phone` of `branding`, `photos[1]` of `photos`). */
const isPartOf = (inner: string, outer: string): boolean =>
  inner === outer || inner.startsWith(`${outer}.`) || inner.startsWith(`${outer}[`);

/**
 * The check every front door runs on an input: its schema, then its rules, in order, on the part
 * the schema accepted; a rule's problem about a field the schema already refused is not said
 * twice. Throws one BAD_REQUEST naming every problem at once; returns the input, typed.
 */
export function checkRequest<S extends TSchema, C>(
  schema: S,
  rules: readonly InputRule<Static<S>, C>[],
  value: unknown,
  context: C,
): Static<S> {
  const schemaProblems = inputProblems(schema, value);
  if (schemaProblems.length === 0) {
    const problems = ruleProblems(rules, value as Static<S>, context);
    if (problems.length > 0) throw invalidInput(typeof schema.title === 'string' ? schema.title : 'request', problems);
    return value as Static<S>;
  }
  const subject = typeof schema.title === 'string' ? schema.title : 'request';
  // More problems than an answer lists: the rules would only add to what is not said.
  if (schemaProblems.length > MAX_ERROR_DETAILS) throw invalidInput(subject, schemaProblems);
  const accepted = acceptedPart(schema, value, schemaProblems);
  // What the schema accepted passes it: checked again (lists without their holes) rather than
  // assumed, so that a rule never reads a wrong type.
  const compact = (part: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(part).map(([key, member]) => [key, Array.isArray(member) ? member.filter(() => true) : member]));
  const readable = accepted !== null && inputProblems(schema, compact(accepted)).length === 0 ? (accepted as Static<S>) : null;
  const flagged = (field: string): boolean => schemaProblems.some((p) => isPartOf(field, p.field) || isPartOf(p.field, field));
  const refused = new Set(accepted === null ? [] : Object.keys(value as object).filter((key) => !(key in accepted)));
  const ruled = readable === null ? [] : ruleProblems(rules, readable, context, refused).filter((d) => !flagged(d.field));
  throw invalidInput(subject, [...schemaProblems, ...ruled]);
}

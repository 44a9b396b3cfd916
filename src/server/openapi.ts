import { API_VERSION } from './api-limits.js';
import type { RouteSpec } from './route-spec.js';
import { RATE_HEADERS } from './routes/common.js';
import { COMPONENTS, type JsonSchema } from './schemas/common.js';
import { IMAGE_FORMATS } from '../core/images.js';

/**
 * The OpenAPI 3.1 document of API v1, generated from the route declarations that fastify
 * validates with. Shared schemas become `#/components/schemas/…` references by object identity.
 */

type Json = unknown;

const componentNameOf = new Map<object, string>(Object.entries(COMPONENTS).map(([name, schema]) => [schema, name]));
// TypeBox's `Optional` copies a schema shallowly: the copy shares its `properties` object.
const componentByProperties = new Map<unknown, string>(
  Object.entries(COMPONENTS)
    .filter(([, schema]) => typeof schema.properties === 'object')
    .map(([name, schema]) => [schema.properties, name]),
);

/** Copies a schema, replacing every registered component (except `self`) by a `$ref`. */
function withRefs(value: Json, self?: object): Json {
  if (Array.isArray(value)) return value.map((item) => withRefs(item));
  if (value === null || typeof value !== 'object') return value;
  const properties = (value as { properties?: unknown }).properties;
  const name =
    componentNameOf.get(value) ?? (properties === undefined || value === self ? undefined : componentByProperties.get(properties));
  if (name !== undefined && value !== self) return { $ref: `#/components/schemas/${name}` };
  return Object.fromEntries(Object.entries(value as Record<string, Json>).map(([key, inner]) => [key, withRefs(inner)]));
}

function headerName(lower: string): string {
  return lower
    .split('-')
    .map((part) => (part === '' ? part : part[0]!.toUpperCase() + part.slice(1)))
    .join('-');
}

function parametersOf(spec: RouteSpec): Json[] {
  const out: Json[] = [];
  const add = (schema: JsonSchema | undefined, location: 'path' | 'query' | 'header'): void => {
    if (schema === undefined) return;
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const required = (schema.required ?? []) as string[];
    for (const [name, property] of Object.entries(properties)) {
      const { description, ...rest } = property;
      out.push({
        name: location === 'header' ? headerName(name) : name,
        in: location,
        required: location === 'path' || required.includes(name),
        ...(typeof description === 'string' ? { description } : {}),
        schema: withRefs(rest),
      });
    }
  };
  add(spec.params, 'path');
  add(spec.querystring, 'query');
  add(spec.headers, 'header');
  return out;
}

const COMMON_HEADERS = {
  'X-Request-Id': { description: "This request's id (also in error bodies and server logs).", schema: { type: 'string' } },
  'X-API-Version': { description: 'Always 1.0.0 for API v1.', schema: { type: 'string' } },
};

/** Images accepted as uploads (POST /assets): the body is the file itself. */
const IMAGE_TYPES = IMAGE_FORMATS.map((format) => format.mime);

function requestBodyOf(spec: RouteSpec): Json {
  if (spec.bodyContentType === 'image/*') {
    const binary = (type: string) => ({ schema: { type: 'string', format: 'binary', contentMediaType: type } });
    return { required: true, content: Object.fromEntries(IMAGE_TYPES.map((type) => [type, binary(type)])) };
  }
  return { required: true, content: { [spec.bodyContentType ?? 'application/json']: { schema: withRefs(spec.body) } } };
}

function operationOf(spec: RouteSpec): Json {
  const responses: Record<string, Json> = {};
  // Every answer of a rate-limited route (errors after the check included) carries its budget.
  const rateHeaders = spec.access.policy === null ? {} : RATE_HEADERS;
  for (const [status, response] of Object.entries(spec.responses)) {
    responses[status] = {
      description: response.description,
      headers: { ...COMMON_HEADERS, ...rateHeaders, ...(response.headers ?? {}) },
      ...(response.schema ? { content: { [response.contentType ?? 'application/json']: { schema: withRefs(response.schema) } } } : {}),
    };
  }
  const parameters = parametersOf(spec);
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: [spec.tag],
    ...(spec.deprecated ? { deprecated: true } : {}),
    security: spec.access.scope === null ? [] : [{ bearerAuth: [spec.access.scope] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(spec.body || spec.bodyContentType ? { requestBody: requestBodyOf(spec) } : {}),
    responses,
  };
}

/** HEAD of a GET route: the same answers without their bodies. */
function headOperationOf(spec: RouteSpec, head: NonNullable<RouteSpec['head']>): Json {
  const get = operationOf(spec) as Record<string, Json>;
  const responses = Object.fromEntries(
    Object.entries(get.responses as Record<string, Record<string, Json>>).map(([status, response]) => {
      const { content: _content, ...rest } = response;
      return [status, rest];
    }),
  );
  return { ...get, operationId: head.operationId, summary: head.summary, responses };
}

/** The signed POST a job's `webhook_url` receives when the job ends (Standard Webhooks). */
const WEBHOOKS = {
  jobFinished: {
    post: {
      operationId: 'jobFinishedWebhook',
      summary: 'A render job ended (succeeded, failed or canceled)',
      description:
        'Sent to the `webhook_url` of a render request when its job reaches a terminal state. Signed as Standard Webhooks specify: ' +
        "verify `webhook-signature` with the tenant's webhook secret (`whsec_…`, from `immoreel keys create`) over `webhook-id.webhook-timestamp.body`, " +
        'e.g. with the `standardwebhooks` library. Answer 2xx within 15 s; other answers are retried with backoff (`webhook-id` stays the same).',
      tags: ['webhooks'],
      // We call you: the signature, not an API key, authenticates the call.
      security: [],
      parameters: [
        {
          name: 'webhook-id',
          in: 'header',
          required: true,
          description: 'The delivery id, the same on every retry: deduplicate on it.',
          schema: { type: 'string' },
        },
        {
          name: 'webhook-timestamp',
          in: 'header',
          required: true,
          description: 'Unix seconds when this attempt was signed.',
          schema: { type: 'string', pattern: '^[0-9]+$' },
        },
        {
          name: 'webhook-signature',
          in: 'header',
          required: true,
          description: '`v1,<base64 HMAC-SHA256>`.',
          schema: { type: 'string', pattern: '^v1,' },
        },
      ],
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookEvent' } } } },
      responses: {
        '200': { description: 'Received: any 2xx ends the delivery.' },
        '410': { description: 'Gone: the receiver wants no more deliveries for this job (not retried).' },
      },
    },
  },
};

export function buildOpenApiDocument(specs: readonly RouteSpec[]): Record<string, Json> {
  const paths: Record<string, Record<string, Json>> = {};
  for (const spec of specs) {
    const path = spec.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    paths[path] = {
      ...(paths[path] ?? {}),
      [spec.method.toLowerCase()]: operationOf(spec),
      ...(spec.head ? { head: headOperationOf(spec, spec.head) } : {}),
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'immoreel API',
      version: API_VERSION,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      description:
        'Analyzes Moroccan property listings and renders marketing videos (MP4 1280x720, 60 fps, AAC 160 kbps) as asynchronous jobs. ' +
        'Authenticate with `Authorization: Bearer <API_KEY>`. Every failure has the error envelope `{ ok: false, status: "error", error: { code, message, reason?, details, request_id } }`.',
    },
    servers: [{ url: '/' }],
    tags: [
      { name: 'analysis', description: 'Listing analysis: features, price per m², market position, buyer profile, angles.' },
      { name: 'render', description: 'Start video renders (asynchronous jobs).' },
      { name: 'jobs', description: 'Follow, list and cancel render jobs; download their videos.' },
      { name: 'shares', description: 'Public links to a finished video, opened without a key (docs/api.md "Share links").' },
      { name: 'assets', description: 'Upload photos and logos to use in renders (kept 24 h).' },
      { name: 'account', description: 'The calling key, its limits and its usage.' },
      { name: 'service', description: 'Health and this document.' },
      { name: 'retired', description: 'v0.9 routes, retired 2026-10-01: every method answers 410 Gone.' },
      { name: 'webhooks', description: 'What your `webhook_url` receives.' },
    ],
    paths,
    webhooks: WEBHOOKS,
    components: {
      schemas: Object.fromEntries(Object.entries(COMPONENTS).map(([name, schema]) => [name, withRefs(schema, schema)])),
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key from `immoreel keys create`. Scopes: preview:read, preview:dispatch, billing:read.',
        },
      },
    },
  };
}

import { API_VERSION } from './config.js';
import type { RouteSpec } from './route-spec.js';
import { COMPONENTS, type JsonSchema } from './schemas/common.js';

/**
 * The OpenAPI 3.1 document of API v1, generated from the route declarations that fastify
 * validates with. Shared schemas become `#/components/schemas/…` references by object identity.
 */

type Json = unknown;

const componentNameOf = new Map<object, string>(Object.entries(COMPONENTS).map(([name, schema]) => [schema, name]));

/** Copies a schema, replacing every registered component (except `self`) by a `$ref`. */
function withRefs(value: Json, self?: object): Json {
  if (Array.isArray(value)) return value.map((item) => withRefs(item));
  if (value === null || typeof value !== 'object') return value;
  const name = componentNameOf.get(value);
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
  'X-Request-Id': { description: 'This request\'s id (also in error bodies and server logs).', schema: { type: 'string' } },
  'X-API-Version': { description: 'Always 1.0.0 for API v1.', schema: { type: 'string' } },
};

function operationOf(spec: RouteSpec): Json {
  const responses: Record<string, Json> = {};
  for (const [status, response] of Object.entries(spec.responses)) {
    responses[status] = {
      description: response.description,
      headers: { ...COMMON_HEADERS, ...(response.headers ?? {}) },
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
    ...(spec.body || spec.bodyContentType
      ? {
          requestBody: {
            required: true,
            content: { [spec.bodyContentType ?? 'application/json']: { schema: spec.body ? withRefs(spec.body) : { type: 'string', contentEncoding: 'binary' } } },
          },
        }
      : {}),
    responses,
  };
}

export function buildOpenApiDocument(specs: readonly RouteSpec[]): Record<string, Json> {
  const paths: Record<string, Record<string, Json>> = {};
  for (const spec of specs) {
    const path = spec.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    paths[path] = { ...(paths[path] ?? {}), [spec.method.toLowerCase()]: operationOf(spec) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'immoreel API',
      version: API_VERSION,
      description:
        'Analyzes Moroccan property listings and renders marketing videos (MP4 1280x720, 60 fps, AAC 160 kbps) as asynchronous jobs. ' +
        'Authenticate with `Authorization: Bearer <API_KEY>`. Every failure has the error envelope `{ ok: false, status: "error", error: { code, message, reason?, details, request_id } }`.',
    },
    servers: [{ url: '/' }],
    tags: [
      { name: 'analysis' },
      { name: 'render' },
      { name: 'jobs' },
      { name: 'assets' },
      { name: 'account' },
      { name: 'service' },
      { name: 'retired', description: 'v0.9 routes, retired 2026-10-01: 410 Gone.' },
    ],
    paths,
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

import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../request-context.js';
import { MALFORMED_URL } from './common.js';
import { API_PREFIX } from '../api-limits.js';
import { buildOpenApiDocument } from '../openapi.js';

export function openapiRoutes(app: FastifyInstance, ctx: ServerContext): void {
  let document: string | null = null;
  ctx.registry.add(
    app,
    {
      method: 'GET',
      url: `${API_PREFIX}/openapi.json`,
      operationId: 'getOpenApi',
      summary: 'This document: OpenAPI 3.1, generated from the schemas that validate requests',
      tag: 'service',
      access: { scope: null, policy: null, billable: null },
      responses: {
        '200': { description: 'The OpenAPI document.', schema: { type: 'object', additionalProperties: true } },
        ...MALFORMED_URL,
      },
    },
    async (_request, reply) => {
      // Built on first use: by then every route (plugins included) has registered its declaration.
      document ??= JSON.stringify(buildOpenApiDocument(ctx.registry.specs));
      return reply.type('application/json; charset=utf-8').send(document);
    },
  );
}

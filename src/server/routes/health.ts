import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../request-context.js';
import { API_PREFIX } from '../api-limits.js';
import { ErrorEnvelopeSchema } from '../schemas/common.js';
import { checkReadiness, healthBody, notReadyError, readyBody } from '../readiness.js';
import { MALFORMED_URL } from './common.js';

export function healthRoutes(app: FastifyInstance, ctx: ServerContext): void {
  ctx.registry.add(
    app,
    {
      method: 'GET',
      url: `${API_PREFIX}/health`,
      operationId: 'getHealth',
      summary: 'Liveness: the process answers (no authentication)',
      tag: 'service',
      access: { scope: null, policy: null, billable: null },
      responses: {
        '200': {
          description: 'The process is up. It says nothing of the database or the storage: that is GET /api/v1/ready.',
          schema: {
            type: 'object',
            properties: {
              ok: { const: true },
              status: { const: 'success' },
              service: { const: 'immoreel' },
              api_version: { type: 'string' },
              uptime_s: { type: 'integer' },
            },
          },
        },
        ...MALFORMED_URL,
      },
    },
    async () => healthBody(ctx.now() - ctx.startedAt),
  );
  ctx.registry.add(
    app,
    {
      method: 'GET',
      url: `${API_PREFIX}/ready`,
      operationId: 'getReady',
      summary: 'Readiness: the database, the storage and the render queue answer (no authentication)',
      tag: 'service',
      access: { scope: null, policy: null, billable: null },
      responses: {
        '200': {
          description: 'Every dependency answered within 2 s: send traffic here.',
          schema: {
            type: 'object',
            properties: {
              ok: { const: true },
              status: { const: 'success' },
              checks: CHECKS_SCHEMA,
            },
          },
        },
        ...MALFORMED_URL,
        '503': {
          description: 'SERVICE_UNAVAILABLE (`not_ready`): `details` and `checks` name the dependency that does not answer; `Retry-After`.',
          schema: ErrorEnvelopeSchema,
        },
      },
    },
    async () => {
      const readiness = await checkReadiness(ctx.deps);
      if (!readiness.ready) {
        // A probe that finds a dependency down begins its outage as a request would (one line, one count).
        const { database, storage, queue } = readiness.checks;
        if (database === 'failing' || queue === 'failing') ctx.outages.report('database', new Error('the readiness probe failed'));
        if (storage === 'failing') ctx.outages.report('storage', new Error('the readiness probe failed'));
        throw notReadyError(readiness);
      }
      return readyBody(readiness);
    },
  );
}

const CHECKS_SCHEMA = {
  type: 'object',
  properties: {
    database: { type: 'string', enum: ['ok', 'failing'] },
    storage: { type: 'string', enum: ['ok', 'failing'] },
    queue: { type: 'string', enum: ['ok', 'failing'] },
  },
} as const;

import type { FastifyInstance } from 'fastify';
import { AppError } from '../../core/errors.js';
import type { ServerContext } from '../request-context.js';
import { API_PREFIX, API_VERSION } from '../api-limits.js';
import { ErrorEnvelopeSchema } from '../schemas/common.js';
import { withExtras } from '../errors.js';
import { checkReadiness } from '../readiness.js';
import { OUTAGE_RETRY_AFTER_S } from '../../records/outage.js';
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
    async () => ({
      ok: true,
      status: 'success',
      service: 'immoreel',
      api_version: API_VERSION,
      uptime_s: Math.floor((ctx.now() - ctx.startedAt) / 1000),
    }),
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
        const failing = Object.entries(readiness.checks)
          .filter(([, state]) => state !== 'ok')
          .map(([name]) => name);
        throw withExtras(
          new AppError(
            'SERVICE_UNAVAILABLE',
            `Not ready: the ${failing.join(', the ')} ${failing.length === 1 ? 'does' : 'do'} not answer.`,
            {
              reason: 'not_ready',
              retryAfterS: OUTAGE_RETRY_AFTER_S,
              details: failing.map((field) => ({ field, message: 'does not answer' })),
            },
          ),
          { checks: readiness.checks },
        );
      }
      return { ok: true, status: 'success', checks: readiness.checks };
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

import type { FastifyInstance } from 'fastify';
import { AppError } from '../../core/errors.js';
import type { ServerContext } from '../request-context.js';
import { API_PREFIX, API_VERSION } from '../api-limits.js';
import { ErrorEnvelopeSchema } from '../schemas/common.js';
import { MALFORMED_URL } from './common.js';

export function healthRoutes(app: FastifyInstance, ctx: ServerContext): void {
  ctx.registry.add(
    app,
    {
      method: 'GET',
      url: `${API_PREFIX}/health`,
      operationId: 'getHealth',
      summary: 'Liveness and store check (no authentication)',
      tag: 'service',
      access: { scope: null, policy: null, billable: null },
      responses: {
        '200': {
          description: 'The service is up and its store answers.',
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
        '503': { description: 'SERVICE_UNAVAILABLE: the store does not answer.', schema: ErrorEnvelopeSchema },
      },
    },
    async () => {
      try {
        await ctx.deps.records.ping();
      } catch (error) {
        throw new AppError('SERVICE_UNAVAILABLE', 'The job store does not answer.', { reason: 'store_unavailable', cause: error });
      }
      return {
        ok: true,
        status: 'success',
        service: 'immoreel',
        api_version: API_VERSION,
        uptime_s: Math.floor((ctx.now() - ctx.startedAt) / 1000),
      };
    },
  );
}

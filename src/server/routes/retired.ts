import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.js';
import type { ServerContext } from '../request-context.js';
import { API_PREFIX } from '../api-limits.js';
import { sendError, withExtras, withHeaders } from '../errors.js';
import { ErrorEnvelopeSchema } from '../schemas/common.js';

/**
 * The v0.9 routes, retired as of 2026-10-01 (docs/api.md): 410 Gone, answered without
 * authentication, naming the successor in the body and in `Link: <…>; rel="successor-version"`
 * (RFC 5829), with the retirement date in `Sunset` (RFC 8594, an HTTP-date).
 */
const SUNSET = new Date(Date.UTC(2026, 9, 1)).toUTCString();

const RETIRED = [
  {
    method: 'POST' as const,
    url: `${API_PREFIX}/campaigns/generate`,
    openapiUrl: `${API_PREFIX}/campaigns/generate`,
    successor: `${API_PREFIX}/render-video`,
    successorRoute: `POST ${API_PREFIX}/render-video`,
    operationId: 'retiredCampaignsGenerate',
  },
  {
    method: 'GET' as const,
    url: `${API_PREFIX}/tasks/:id`,
    openapiUrl: `${API_PREFIX}/tasks/{id}`,
    successor: `${API_PREFIX}/jobs/{job_id}`,
    successorRoute: `GET ${API_PREFIX}/jobs/{job_id}`,
    operationId: 'retiredTasksGet',
  },
];

export function retiredRoutes(app: FastifyInstance, ctx: ServerContext): void {
  for (const route of RETIRED) {
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      const gone = new AppError(
        'GONE',
        `${request.method} ${route.openapiUrl} was retired with API v0.9 on 2026-10-01: use ${route.successorRoute} instead.`,
        { reason: 'endpoint_retired' },
      );
      withHeaders(gone, { Link: `<${route.successor}>; rel="successor-version"`, Sunset: SUNSET });
      return sendError(request, reply, withExtras(gone, { successor: route.successorRoute }));
    };
    ctx.registry.add(
      app,
      {
        method: route.method,
        url: route.url,
        operationId: route.operationId,
        summary: `Retired (v0.9): use ${route.successorRoute}`,
        description: `Every method on this path (GET, HEAD, POST, PUT, PATCH, DELETE) answers 410 Gone, naming the method called and the successor.`,
        tag: 'retired',
        deprecated: true,
        answersFromHeaders: true,
        access: { scope: null, policy: null, billable: null },
        ...(route.url.includes(':id')
          ? { params: { type: 'object', properties: { id: { type: 'string', description: 'Any v0.9 task id.' } } } }
          : {}),
        responses: {
          '410': {
            description: 'GONE, without authentication: the body names the successor.',
            schema: ErrorEnvelopeSchema,
            headers: {
              Link: { description: '`<successor>; rel="successor-version"`', schema: { type: 'string' } },
              Sunset: { description: 'Retirement date (HTTP-date).', schema: { type: 'string' } },
            },
          },
        },
      },
      handler,
    );
    // Any other method on a retired path is just as gone (documented in the route's description).
    const others = (['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).filter((m) => m !== route.method);
    app.route({ method: [...others], url: route.url, onRequest: handler, handler });
  }
}

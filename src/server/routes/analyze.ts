import type { FastifyInstance } from 'fastify';
import type { AnalyzeResponse } from '../../core/types.js';
import { API_PREFIX } from '../config.js';
import type { ServerContext } from '../context.js';
import { IdempotencyHeadersSchema, ErrorEnvelopeSchema } from '../schemas/common.js';
import { AnalyzeBodySchema, AnalyzeResponseSchema } from '../schemas/requests.js';
import { abortOnDisconnect, AUTH_ERRORS, caller, idempotencyKeyOf, RATE_HEADERS, REPLAYED_HEADER } from './common.js';

export function analyzeRoutes(app: FastifyInstance, ctx: ServerContext): void {
  ctx.registry.add(
    app,
    {
      method: 'POST',
      url: `${API_PREFIX}/analyze`,
      operationId: 'analyzeListing',
      summary: 'Analyze a listing URL, saved page or raw text',
      description:
        'Returns features, price per m², market position, target buyer profile and marketing angles. ' +
        'Rate limit: 60 requests per minute per key by default (the contract states 100 and 60; 60 satisfies both). ' +
        'Counted against the monthly quota. `Idempotency-Key` replays the first answer for 24 h.',
      tag: 'analysis',
      access: { scope: 'preview:dispatch', policy: 'analyze', billable: 'analyze' },
      body: AnalyzeBodySchema,
      bodyLimit: ctx.limits.jsonBodyLimitBytes,
      headers: IdempotencyHeadersSchema,
      responses: {
        '200': { description: 'The analysis.', schema: AnalyzeResponseSchema, headers: { ...RATE_HEADERS, ...REPLAYED_HEADER } },
        ...AUTH_ERRORS,
        '413': { description: 'PAYLOAD_TOO_LARGE: body over the limit.', schema: ErrorEnvelopeSchema },
        '502': { description: 'UPSTREAM_ERROR: the portal could not be fetched.', schema: ErrorEnvelopeSchema },
      },
    },
    async (request, reply) => {
      const auth = caller(request);
      const body = request.body;
      const compute = async () => {
        const property = await ctx.deps.analyze(body, abortOnDisconnect(reply));
        const answer: AnalyzeResponse = { ok: true, status: 'success', property };
        // Serialized once by the route's response schema, so a replay sends the very same bytes.
        const json = String(reply.serialize(answer));
        return { value: json, store: { statusCode: 200, body: json, jobId: null } };
      };
      const idempotencyKey = idempotencyKeyOf(request);
      const json = 'application/json; charset=utf-8';
      if (idempotencyKey === null) return reply.type(json).send((await compute()).value);
      const outcome = await ctx.deps.records.idempotency.run(auth.key.key_id, idempotencyKey, 'POST /analyze', body, compute);
      if (!outcome.replayed) return reply.type(json).send(outcome.value);
      auth.refund = true;
      return reply.code(outcome.stored.statusCode).header('Idempotent-Replayed', 'true').type(json).send(outcome.stored.body);
    },
  );
}

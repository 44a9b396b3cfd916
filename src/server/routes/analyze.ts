import type { FastifyInstance } from 'fastify';
import { RawJsonBody } from '../../core/json-body.js';
import { validateAnalyzeRequest } from '../../core/analyze-rules.js';
import type { AnalyzeResponse } from '../../core/types.js';
import { API_PREFIX } from '../api-limits.js';
import { charging } from '../auth.js';
import type { ServerContext } from '../request-context.js';
import { IdempotencyHeadersSchema, ErrorEnvelopeSchema } from '../schemas/common.js';
import { AnalyzeBodySchema, AnalyzeResponseSchema } from '../schemas/api-bodies.js';
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
        'Rate limit: 60 requests per minute per key by default (the server sets it: `immoreel serve --analyze-rate`). ' +
        'Counted against the monthly quota. `Idempotency-Key` replays the first answer for 24 h.',
      tag: 'analysis',
      access: { scope: 'preview:dispatch', policy: 'analyze', billable: 'analyze' },
      body: AnalyzeBodySchema,
      bodyCheckedByHandler: true,
      bodyLimit: ctx.limits.jsonBodyLimitBytes,
      // A 5 MB page is parsed and checked in an analysis worker, not here (docs/security.md "Measured").
      largeBodyOffThread: ctx.deps.analyzeJson !== undefined,
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
      // A large body arrives unparsed (`largeBodyOffThread`): a worker checks it, with the schema's answers.
      const received: unknown = request.body;
      const offThread = received instanceof RawJsonBody ? ctx.deps.analyzeJson : undefined;
      let raw = received instanceof RawJsonBody ? received : null;
      const body = request.body;
      // Checked here, schema and rules together, before the idempotency hash reads it (bodyCheckedByHandler),
      // and only here: the analysis takes the checked request. A large body, by the worker that parses it.
      const checked = raw === null ? validateAnalyzeRequest(body) : null;
      const compute = async () => {
        const signal = abortOnDisconnect(reply);
        const property =
          raw !== null && offThread !== undefined
            ? await offThread.analyze(raw, signal)
            : await ctx.deps.analyze(checked ?? validateAnalyzeRequest(body), signal);
        const answer: AnalyzeResponse = { ok: true, status: 'success', property };
        // Serialized once by the route's response schema, so a replay sends the very same bytes.
        const json = String(reply.serialize(answer));
        return { value: json, store: { statusCode: 200, body: json, jobId: null } };
      };
      const idempotencyKey = idempotencyKeyOf(request);
      const json = 'application/json; charset=utf-8';
      // The unit is charged as the answer goes out (with its stored copy when there is a key, in one
      // transaction): an analysis that fails, or whose charge cannot be written, costs nothing.
      const charge = auth.charge;
      if (idempotencyKey === null) {
        const { value } = await compute();
        if (charge !== null) await charging(charge, () => ctx.deps.records.usage.charge(charge));
        return reply.type(json).send(value);
      }
      let fingerprinted: unknown = body;
      if (raw !== null && offThread !== undefined) {
        const checked = await offThread.fingerprint(raw, 'POST /analyze', abortOnDisconnect(reply));
        raw = checked.body;
        fingerprinted = checked.fingerprint;
      }
      const outcome = await charging(charge, () =>
        ctx.deps.records.idempotency.run(auth.key.key_id, idempotencyKey, 'POST /analyze', fingerprinted, compute, charge),
      );
      if (!outcome.replayed) return reply.type(json).send(outcome.value);
      return reply.code(outcome.stored.statusCode).header('Idempotent-Replayed', 'true').type(json).send(outcome.stored.body);
    },
  );
}

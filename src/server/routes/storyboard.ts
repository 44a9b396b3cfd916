import type { FastifyInstance } from 'fastify';
import { validateAnalyzeRequest } from '../../core/analyze-rules.js';
import { RawJsonBody } from '../../core/json-body.js';
import { previewStoryboard } from '../../render/photo-notes.js';
import { API_PREFIX } from '../api-limits.js';
import type { ServerContext } from '../request-context.js';
import { ErrorEnvelopeSchema } from '../schemas/common.js';
import { RenderBodySchema, StoryboardResponseSchema } from '../schemas/api-bodies.js';
import { abortOnDisconnect, AUTH_ERRORS, RATE_HEADERS } from './common.js';

/**
 * `POST /api/v1/storyboard` (docs/api.md "Photos shown and left out"): the body of a render, no job
 * and no charge; which of its photos the video will show, and which it leaves out and why, so that
 * a client can say so before the render is started.
 */
export function storyboardRoutes(app: FastifyInstance, ctx: ServerContext): void {
  ctx.registry.add(
    app,
    {
      method: 'POST',
      url: `${API_PREFIX}/storyboard`,
      operationId: 'previewStoryboard',
      summary: 'Say which photos a render will show and which it leaves out, before rendering',
      description:
        'Takes the body of POST /api/v1/render-video; starts no job and is not counted against the quota. ' +
        'The listing is analysed as for a render (unless `listing` is given): rate-limited like POST /api/v1/analyze. ' +
        'Photos are not fetched: one that turns out unreadable or a duplicate is only known when the render decodes it (the job’s `photos_left_out`).',
      tag: 'render',
      access: { scope: 'preview:dispatch', policy: 'analyze', billable: null },
      body: RenderBodySchema,
      bodyCheckedByHandler: true,
      bodyLimit: ctx.limits.jsonBodyLimitBytes,
      // A large body is parsed and checked in a thread, as for a render (docs/security.md "Measured").
      largeBodyOffThread: ctx.deps.renderJson !== undefined,
      responses: {
        '200': { description: 'The photos shown and left out.', schema: StoryboardResponseSchema, headers: { ...RATE_HEADERS } },
        ...AUTH_ERRORS,
        '413': { description: 'PAYLOAD_TOO_LARGE: body over the limit.', schema: ErrorEnvelopeSchema },
        '502': { description: 'UPSTREAM_ERROR: the portal could not be fetched.', schema: ErrorEnvelopeSchema },
      },
    },
    async (request, reply) => {
      const received: unknown = request.body;
      const valid =
        received instanceof RawJsonBody && ctx.deps.renderJson !== undefined
          ? (await ctx.deps.renderJson.check(received, 'POST /storyboard', abortOnDisconnect(reply))).request
          : await ctx.deps.validateRender(received);
      const listing = valid.listing ?? (await ctx.deps.analyze(validateAnalyzeRequest(valid.input), abortOnDisconnect(reply)));
      const storyboard = previewStoryboard(listing, valid);
      // The facts held back until confirmed (docs/api.md), when the analysis names them.
      const heldBack = (listing as { held_back?: unknown[] }).held_back ?? [];
      return reply.send({ ok: true, status: 'success', storyboard: { ...storyboard, held_back: heldBack } });
    },
  );
}

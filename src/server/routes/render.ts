import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError, badRequest, type ErrorDetail } from '../../core/errors.js';
import { assertPublicHost, ForbiddenAddressError } from '../../net/address-guard.js';
import type { ValidRenderRequest } from '../../render/types.js';
import { findAsset } from '../../records/assets.js';
import type { ServerContext } from '../request-context.js';
import type { AuthContext } from '../auth.js';
import { charging } from '../auth.js';
import { fingerprint } from '../../records/idempotency.js';
import { renderUnits } from '../../records/quota.js';
import { API_PREFIX } from '../api-limits.js';
import { ErrorEnvelopeSchema, IdempotencyHeadersSchema, JobEnvelopeSchema } from '../schemas/common.js';
import { RenderBodySchema } from '../schemas/api-bodies.js';
import { abortOnDisconnect, AUTH_ERRORS, caller, idempotencyKeyOf, RATE_HEADERS, REPLAYED_HEADER } from './common.js';
import { RawJsonBody } from '../../core/json-body.js';
import type { PreparedRequest } from '../../records/job-rows.js';

/** When a tenant is at its job limit, a slot usually frees within a render's length. */
const BUSY_RETRY_AFTER_S = 30;

function assetIdOf(reference: string): string | null {
  return reference.startsWith('asset:') ? reference.slice('asset:'.length) : null;
}

/** Asset references must name the caller's own, unexpired uploads: say so now, not when the job fails. */
async function checkAssets(ctx: ServerContext, tenant: string, request: ValidRenderRequest): Promise<void> {
  const details: ErrorDetail[] = [];
  const check = async (reference: string | undefined, field: string): Promise<void> => {
    const assetId = reference === undefined ? null : assetIdOf(reference);
    if (assetId === null) return;
    try {
      await findAsset(ctx.deps, tenant, assetId, field);
    } catch (error) {
      if (error instanceof AppError) details.push(...error.details);
      else throw error;
    }
  };
  for (const [index, photo] of request.photos.entries()) await check(photo, `photos[${index}]`);
  await check(request.branding.logo_url, 'branding.logo_url');
  if (details.length > 0) {
    throw badRequest(
      'Unknown or expired assets (assets are kept 24 h and are private to the tenant that uploaded them): upload them again with POST /api/v1/assets.',
      {
        reason: 'unknown_asset',
        details,
      },
    );
  }
}

/** The webhook target gets the full check (DNS included) at delivery; refuse the obvious now. */
function checkWebhookUrl(ctx: ServerContext, url: string | null): void {
  if (url === null) return;
  const invalid = (message: string): AppError =>
    badRequest(`webhook_url ${message}.`, { reason: 'invalid_webhook_url', details: [{ field: 'webhook_url', message }] });
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid('is not a valid URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw invalid('must be an http(s) URL');
  try {
    assertPublicHost(parsed, { allowLoopback: ctx.deps.allowLoopbackFetch === true });
  } catch (error) {
    if (error instanceof ForbiddenAddressError) throw invalid(`points to a ${error.kind} address; only public addresses are called`);
    throw error;
  }
}

function tooBusy(message: string, reason: string): AppError {
  return new AppError('RATE_LIMIT_EXCEEDED', message, { reason, retryAfterS: BUSY_RETRY_AFTER_S });
}

/**
 * At most N videos in flight for a preview tenant (a pack counts one per output: it costs what
 * that many renders do), and at most M jobs waiting for any tenant (docs/api.md).
 */
async function checkJobLimits(ctx: ServerContext, auth: AuthContext, outputs: number): Promise<void> {
  const { tenant, plan } = auth.key;
  if (plan === 'preview') {
    const active = await ctx.deps.jobs.countJobs(tenant, ['queued', 'running'], 'outputs');
    if (active + outputs > ctx.limits.previewConcurrentRenders) {
      throw tooBusy(
        `Preview tenants may have at most ${ctx.limits.previewConcurrentRenders} videos queued or rendering at once (a pack counts one per format); ` +
          `${active} are, and this request adds ${outputs}. Retry when one finishes.`,
        'concurrent_renders',
      );
    }
  }
  const queued = await ctx.deps.jobs.countJobs(tenant, ['queued']);
  if (queued >= ctx.limits.maxQueuedJobs) {
    throw tooBusy(
      `At most ${ctx.limits.maxQueuedJobs} jobs may wait in the queue per tenant; ${queued} are. Retry when some have started.`,
      'queued_jobs',
    );
  }
}

/** The answer of a replayed render: 202 with the key's job as it is now. */
async function replayJob(ctx: ServerContext, reply: FastifyReply, jobId: string | null): Promise<FastifyReply> {
  const found = jobId === null ? null : await ctx.deps.jobs.get(jobId);
  if (found === null) throw new AppError('INTERNAL_SERVER_ERROR', `Idempotent job ${String(jobId)} is missing from the store.`);
  return reply
    .code(202)
    .header('Idempotent-Replayed', 'true')
    .header('Location', found.job.links.self)
    .send({ ok: true, status: 'success', job: found.job });
}

export function renderRoutes(app: FastifyInstance, ctx: ServerContext): void {
  ctx.registry.add(
    app,
    {
      method: 'POST',
      url: `${API_PREFIX}/render-video`,
      operationId: 'renderVideo',
      summary: 'Start a render job (replaces the retired POST /api/v1/campaigns/generate)',
      description:
        'Answers 202 with the job and its `Location`; poll GET /api/v1/jobs/{job_id} (honour `Retry-After`) or give a `webhook_url`. ' +
        'Rate limit: 30 per minute per key. Preview tenants: at most 30 jobs queued or running; any tenant: at most 100 queued. ' +
        '`Idempotency-Key`: a retry with the same key and body returns the same job.',
      tag: 'render',
      access: { scope: 'preview:dispatch', policy: 'render', billable: 'render_video' },
      body: RenderBodySchema,
      bodyCheckedByHandler: true,
      bodyLimit: ctx.limits.jsonBodyLimitBytes,
      // A 6 MB body is parsed and checked in a thread, not here (docs/security.md "Measured").
      largeBodyOffThread: ctx.deps.renderJson !== undefined,
      headers: IdempotencyHeadersSchema,
      responses: {
        '202': {
          description: 'The job, queued.',
          schema: JobEnvelopeSchema,
          headers: {
            Location: { description: 'The job: /api/v1/jobs/{job_id}.', schema: { type: 'string' } },
            ...RATE_HEADERS,
            ...REPLAYED_HEADER,
          },
        },
        ...AUTH_ERRORS,
        '413': { description: 'PAYLOAD_TOO_LARGE: body over the limit.', schema: ErrorEnvelopeSchema },
      },
    },
    async (request, reply) => {
      const auth = caller(request);
      const tenant = auth.key.tenant;
      // Unchecked until validateRender: the schema and the rules answer together (bodyCheckedByHandler).
      const received: unknown = request.body;
      // The request's rules before anything else reads the body (the idempotency hash included):
      // the free-form parts' depth and size are among them, and the answer is the CLI's. A large
      // body arrives unparsed (`largeBodyOffThread`): a thread parses and checks it (docs/security.md "Measured").
      let body: unknown = received;
      let valid: ValidRenderRequest;
      let prepared: PreparedRequest | undefined;
      if (received instanceof RawJsonBody && ctx.deps.renderJson !== undefined) {
        const checked = await ctx.deps.renderJson.check(received, 'POST /render-video', abortOnDisconnect(reply));
        valid = checked.request;
        prepared = checked.prepared;
        body = checked.fingerprint;
      } else {
        valid = await ctx.deps.validateRender(body);
      }
      const route = 'POST /render-video';
      const idempotencyKey = idempotencyKeyOf(request);
      if (idempotencyKey !== null) {
        // A retry of a request that made its job gets that job, as it is now: a client retrying late
        // learns its progress at once. Looked up before the checks, which the job passed already.
        const stored = await ctx.deps.records.idempotency.find(auth.key.key_id, idempotencyKey, route, body);
        if (stored !== null) return replayJob(ctx, reply, stored.jobId);
      }
      await checkAssets(ctx, tenant, valid);
      checkWebhookUrl(ctx, valid.webhook_url);
      await checkJobLimits(ctx, auth, valid.formats.length);
      // The job, its charge, its webhook row and its stored answer: one transaction (docs/operations.md "Exactly once").
      // Should the job end before the webhook is sent, the job-end duties' sweep still sends it (src/server/job-end.ts).
      const charge = auth.charge === null ? null : { ...auth.charge, units: renderUnits(valid) };
      const submitted = await charging(charge, () =>
        ctx.deps.jobs.submitOnce(valid, {
          tenant,
          ...(prepared === undefined ? {} : { prepared }),
          ...(charge === null ? {} : { charge }),
          ...(idempotencyKey === null
            ? {}
            : { idempotency: { keyId: auth.key.key_id, key: idempotencyKey, route, fingerprint: fingerprint(route, body) } }),
          webhookUrl: valid.webhook_url,
        }),
      );
      // Another request with this key made the job while this one was checked: the same answer as a replay.
      if (submitted.replayed) reply.header('Idempotent-Replayed', 'true');
      const job = submitted.job;
      return reply.code(202).header('Location', job.links.self).send({ ok: true, status: 'success', job });
    },
  );
}

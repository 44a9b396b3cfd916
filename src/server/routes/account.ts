import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../request-context.js';
import { API_PREFIX, PLANS, SCOPES } from '../api-limits.js';
import { periodOf, periodResetAt } from '../../records/quota.js';
import { UNITS_PER_ANALYSIS, UNITS_PER_OUTPUT } from '../../records/pack-price.js';
import { UsageQuerySchema } from '../schemas/api-bodies.js';
import { AUTH_ERRORS, caller } from './common.js';

const QuotaSchema = {
  type: 'object',
  properties: {
    period: { type: 'string', description: 'YYYY-MM, UTC.' },
    used: { type: 'integer' },
    limit: { type: 'integer' },
    remaining: { type: 'integer' },
    resets_at: { type: 'string', format: 'date-time' },
  },
};

export function accountRoutes(app: FastifyInstance, ctx: ServerContext): void {
  ctx.registry.add(
    app,
    {
      method: 'GET',
      url: `${API_PREFIX}/me`,
      operationId: 'getMe',
      summary: 'The calling key: id, tenant, scopes, plan, quota use and rate limits',
      tag: 'account',
      access: { scope: 'preview:read', policy: 'account', billable: null },
      responses: {
        '200': {
          description: 'The key.',
          schema: {
            type: 'object',
            properties: {
              ok: { const: true },
              status: { const: 'success' },
              key: {
                type: 'object',
                properties: {
                  key_id: { type: 'string' },
                  tenant: { type: 'string' },
                  scopes: { type: 'array', items: { type: 'string', enum: [...SCOPES] } },
                  plan: { type: 'string', enum: [...PLANS] },
                  created_at: { type: 'string', format: 'date-time' },
                },
              },
              quota: QuotaSchema,
              units: {
                type: 'object',
                description: 'What each billable request costs in quota units (docs/api.md "Monthly quota").',
                properties: {
                  analyze: { type: 'integer', description: 'Units per analysis.' },
                  render_video_per_output: {
                    type: 'integer',
                    description: 'Units per video of a render job: a pack of three formats costs three.',
                  },
                },
              },
              limits: { type: 'object', additionalProperties: { type: 'integer' } },
            },
          },
        },
        ...AUTH_ERRORS,
      },
    },
    async (request) => {
      const { key } = caller(request);
      const windowS = Math.round(ctx.limits.windowMs / 1000);
      return {
        ok: true,
        status: 'success',
        key: { key_id: key.key_id, tenant: key.tenant, scopes: key.scopes, plan: key.plan, created_at: key.created_at },
        quota: await ctx.deps.records.usage.state(key.key_id, key.monthly_quota),
        units: { analyze: UNITS_PER_ANALYSIS, render_video_per_output: UNITS_PER_OUTPUT },
        limits: {
          window_s: windowS,
          analyze_per_window: ctx.limits.analyzePerWindow,
          render_per_window: ctx.limits.renderPerWindow,
          job_reads_per_window: ctx.limits.jobReadsPerWindow,
          ...(key.plan === 'preview' ? { concurrent_renders: ctx.limits.previewConcurrentRenders } : {}),
          queued_jobs: ctx.limits.maxQueuedJobs,
        },
      };
    },
  );

  ctx.registry.add(
    app,
    {
      method: 'GET',
      url: `${API_PREFIX}/usage`,
      operationId: 'getUsage',
      summary: "Billing: the tenant's billable requests per key for a month",
      description: 'Needs the billing:read scope; preview keys get 403 INSUFFICIENT_SCOPE.',
      tag: 'account',
      access: { scope: 'billing:read', policy: 'account', billable: null },
      querystring: UsageQuerySchema,
      responses: {
        '200': {
          description: 'Usage of every key of the tenant.',
          schema: {
            type: 'object',
            properties: {
              ok: { const: true },
              status: { const: 'success' },
              usage: {
                type: 'object',
                properties: {
                  tenant: { type: 'string' },
                  period: { type: 'string' },
                  resets_at: { type: 'string', format: 'date-time' },
                  totals: { type: 'object', properties: { analyze: { type: 'integer' }, render_video: { type: 'integer' } } },
                  keys: {
                    type: 'array',
                    items: {
                      type: 'object',
                      properties: {
                        key_id: { type: 'string' },
                        masked_key: { type: 'string' },
                        plan: { type: 'string' },
                        monthly_quota: { type: 'integer' },
                        revoked: { type: 'boolean' },
                        analyze: { type: 'integer' },
                        render_video: { type: 'integer' },
                      },
                    },
                  },
                },
              },
            },
          },
        },
        ...AUTH_ERRORS,
      },
    },
    async (request) => {
      const { key } = caller(request);
      const { period = periodOf(ctx.now()) } = request.query as { period?: string };
      const keys = await ctx.deps.records.keys.listForTenant(key.tenant);
      const rows = await ctx.deps.records.usage.byKey(
        keys.map((k) => k.key_id),
        period,
      );
      const count = (keyId: string | null, route: string): number =>
        rows.filter((r) => (keyId === null || r.key_id === keyId) && r.route === route).reduce((sum, r) => sum + r.count, 0);
      const [year, month] = period.split('-').map(Number) as [number, number];
      return {
        ok: true,
        status: 'success',
        usage: {
          tenant: key.tenant,
          period,
          resets_at: periodResetAt(Date.UTC(year, month - 1, 1)),
          totals: { analyze: count(null, 'analyze'), render_video: count(null, 'render_video') },
          keys: keys.map((k) => ({
            key_id: k.key_id,
            masked_key: k.masked_key,
            plan: k.plan,
            monthly_quota: k.monthly_quota,
            revoked: k.revoked_at !== null,
            analyze: count(k.key_id, 'analyze'),
            render_video: count(k.key_id, 'render_video'),
          })),
        },
      };
    },
  );
}

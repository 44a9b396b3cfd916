import type { FastifyInstance } from 'fastify';
import { badRequest } from '../../core/errors.js';
import { saveAsset } from '../../records/assets.js';
import { receiveBody } from '../body-chunks.js';
import { bodyCaller } from '../body-budget.js';
import type { ServerContext } from '../request-context.js';
import { API_PREFIX } from '../api-limits.js';
import { ErrorEnvelopeSchema } from '../schemas/common.js';
import { AUTH_ERRORS, caller } from './common.js';
import { IMAGE_FORMATS } from '../../core/images.js';

const IMAGE_TYPE = /^image\/[a-z0-9.+-]+$/i;

const AssetSchema = {
  type: 'object',
  required: ['asset_id', 'ref', 'expires_at'],
  properties: {
    asset_id: { type: 'string' },
    ref: { type: 'string', description: 'Put this in `photos` or `branding.logo_url`: `asset:<asset_id>`.' },
    content_type: { type: 'string' },
    format: { type: 'string' },
    width: { type: 'integer' },
    height: { type: 'integer' },
    size_bytes: { type: 'integer' },
    sha256: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    expires_at: { type: 'string', format: 'date-time' },
  },
};

export function assetRoutes(app: FastifyInstance, ctx: ServerContext): void {
  // Raw image bodies are accepted on this route only: the parser lives in this plugin's scope.
  // (A failure while adding it rejects ready()/listen().)
  void app.register(async (scope) => {
    // Read as every body is: inflated up to the limit only, held against the process's budget (../body-budget.ts).
    scope.addContentTypeParser(IMAGE_TYPE, (request, payload, done) => {
      request.bodyHold ??= ctx.bodyBudget.holdFor(bodyCaller(request));
      receiveBody(
        request.headers,
        payload,
        request.routeOptions.bodyLimit,
        (error, received) => done(error, received === undefined ? undefined : Buffer.concat(received.chunks, received.length)),
        request.raw,
        request.bodyHold,
      );
    });
    ctx.registry.add(
      scope,
      {
        method: 'POST',
        url: `${API_PREFIX}/assets`,
        operationId: 'uploadAsset',
        summary: 'Upload one photo or logo',
        description:
          `The raw image is the body (Content-Type ${IMAGE_FORMATS.map((format) => format.mime).join(', ')}; at most 15 MB). ` +
          'The asset is private to your tenant and kept 24 h; use its `ref` (`asset:<asset_id>`) in `photos` or `branding.logo_url`.',
        tag: 'assets',
        access: { scope: 'preview:dispatch', policy: 'account', billable: null },
        bodyContentType: 'image/*',
        bodyLimit: ctx.limits.assetBodyLimitBytes,
        responses: {
          '201': {
            description: 'The stored asset.',
            schema: {
              type: 'object',
              required: ['ok', 'status', 'asset'],
              properties: { ok: { const: true }, status: { const: 'success' }, asset: AssetSchema },
            },
          },
          ...AUTH_ERRORS,
          '413': { description: 'PAYLOAD_TOO_LARGE: over 15 MB.', schema: ErrorEnvelopeSchema },
        },
      },
      async (request, reply) => {
        const contentType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
        if (!IMAGE_TYPE.test(contentType) || !Buffer.isBuffer(request.body)) {
          throw badRequest('Send the image itself as the body, with an image/* Content-Type (e.g. image/jpeg).', {
            reason: 'unsupported_media_type',
            details: [{ field: 'Content-Type', message: 'must be image/*' }],
          });
        }
        const asset = await saveAsset(
          { records: ctx.deps.records, blobs: ctx.deps.blobs, now: ctx.now },
          caller(request).key.tenant,
          request.body,
          contentType,
          // An API client is told to come back when the decode queue is full (docs/security.md).
          { refuseWhenBusy: true },
        );
        return reply.code(201).send({ ok: true, status: 'success', asset });
      },
    );
  });
}

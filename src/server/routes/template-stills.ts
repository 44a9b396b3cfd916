import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../core/errors.js';
import { LANGUAGES, type Language } from '../../core/types.js';
import { listTemplates, templateExists } from '../../render/templates.js';
import type { ServerContext } from '../request-context.js';
import { API_PREFIX } from '../api-limits.js';
import { notModified } from '../http-range.js';
import { ErrorEnvelopeSchema } from '../schemas/common.js';
import { AUTH_ERRORS, RATE_HEADERS } from './common.js';

/**
 * `GET /api/v1/templates/{name}/still`: what a template looks like, for pickers (the Studio's;
 * docs/studio.md "Templates and formats"). Drawn by the renderer on the first request for a
 * template and language, then served from `<data dir>/cache/stills`.
 */
export function templateStillRoutes(app: FastifyInstance, ctx: ServerContext): void {
  // Without a data directory (tests), a private directory of this process's own.
  let cacheDir = ctx.deps.stillsDir;
  const stillsDir = (): string => (cacheDir ??= mkdtempSync(join(tmpdir(), 'immoreel-stills-')));
  const names = listTemplates();

  ctx.registry.add(
    app,
    {
      method: 'GET',
      url: `${API_PREFIX}/templates/:name/still`,
      operationId: 'getTemplateStill',
      summary: "A template's look: its title card over a photo of the bundled demo listing (JPEG, 640×360)",
      description:
        "Drawn by the renderer itself the first time it is asked for (a second or two), then cached; `language` is the title card's " +
        '(default `fr`). `If-None-Match` with its `ETag` answers 304.',
      tag: 'render',
      access: { scope: 'preview:read', policy: 'account', billable: null },
      params: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: { name: { type: 'string', maxLength: 64, description: `A template: ${names.map((n) => `\`${n}\``).join(', ')}.` } },
      },
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: { language: { type: 'string', enum: [...LANGUAGES], description: "The title card's language (default `fr`)." } },
      },
      headers: {
        type: 'object',
        properties: { 'if-none-match': { type: 'string', description: 'The `ETag` of the still you hold.' } },
      },
      responses: {
        '200': {
          description: 'The still.',
          contentType: 'image/jpeg',
          schema: { type: 'string', format: 'binary', contentMediaType: 'image/jpeg' },
          headers: { ETag: { description: "The still's version.", schema: { type: 'string' } }, ...RATE_HEADERS },
        },
        '304': { description: 'Not Modified: `If-None-Match` names this still.' },
        ...AUTH_ERRORS,
        '404': { description: 'NOT_FOUND: no such template (`reason: unknown_template`).', schema: ErrorEnvelopeSchema },
      },
    },
    async (request, reply) => {
      const { name } = request.params as { name: string };
      const language = ((request.query as { language?: Language }).language ?? 'fr') as Language;
      if (!/^[a-z0-9][a-z0-9_-]*$/.test(name) || !templateExists(name)) {
        throw new AppError('NOT_FOUND', `No template ${JSON.stringify(name.slice(0, 64))}: use one of ${names.join(', ')}.`, {
          reason: 'unknown_template',
        });
      }
      // The renderer (sharp, Pango) is loaded when a still is first asked for, not at start.
      const { templateStill } = await import('../../render/template-still.js');
      const still = await templateStill(name, language, stillsDir());
      const etag = `"${createHash('sha256').update(still).digest('base64url').slice(0, 27)}"`;
      reply.header('Content-Type', 'image/jpeg').header('ETag', etag).header('Cache-Control', 'private, max-age=86400');
      if (notModified(request.headers['if-none-match'], etag)) return reply.code(304).send();
      return reply.send(still);
    },
  );
}

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.js';
import { VIDEO_FORMATS, type JobRecord, type VideoFormat } from '../../core/types.js';
import {
  DEFAULT_SHARE_DAYS,
  MAX_SHARE_DAYS,
  prepareShare,
  shareRowToRecord,
  SHARE_TOKEN_PATTERN,
  unknownShareError,
} from '../../records/shares.js';
import type { ShareRow } from '../../records/shares.js';
import type { ServerContext } from '../request-context.js';
import { API_PREFIX } from '../api-limits.js';
import { withHeaders } from '../errors.js';
import { rateLimitHeaders } from '../rate-limit-headers.js';
import { ErrorEnvelopeSchema, JobIdParamsSchema } from '../schemas/common.js';
import { AUTH_ERRORS, caller, RATE_HEADERS } from './common.js';
import { sendPoster, sendVideo } from './jobs.js';

/**
 * Share links (docs/api.md "Share links"): create, list and revoke them with a key (or the
 * Studio's session); `/s/{token}` is a public page with the video, its poster and the Open Graph
 * and Twitter tags that make WhatsApp or Facebook show a preview. No cookie or key is read there:
 * the token alone opens one job's video, until it expires or is revoked.
 */

/** Page, video and poster reads of share links, per client address and window (docs/api.md "Share links"). */
export const SHARE_VIEWS_PER_WINDOW = 120;

const ShareSchema = {
  type: 'object',
  required: ['id', 'job_id', 'format', 'url', 'created_at', 'expires_at'],
  properties: {
    id: { type: 'string', description: '`shr_` + 16 base32 characters: the name to revoke it by.' },
    job_id: { type: 'string' },
    format: { type: ['string', 'null'], description: "The pack's output shown; null: the job's primary." },
    url: { type: 'string', description: 'The public page, relative to the server: `/s/<token>`.' },
    created_at: { type: 'string', format: 'date-time' },
    expires_at: { type: 'string', format: 'date-time' },
  },
};

const ShareEnvelopeSchema = {
  type: 'object',
  required: ['ok', 'status', 'share'],
  properties: { ok: { const: true }, status: { const: 'success' }, share: ShareSchema },
};

/** The largest body of a new share link: `{"format":"landscape","expires_in_days":30}` is 45 bytes. */
export const SHARE_BODY_LIMIT_BYTES = 4 * 1024;

const CreateShareBodySchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: {
    format: { type: 'string', enum: [...VIDEO_FORMATS], description: "Which output of a pack the page shows; default the job's primary." },
    expires_in_days: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_SHARE_DAYS,
      description: `Days the link works; default ${DEFAULT_SHARE_DAYS}.`,
    },
  },
};

const ShareIdParamsSchema = {
  type: 'object',
  required: ['share_id'],
  additionalProperties: false,
  properties: { share_id: { type: 'string', maxLength: 64 } },
};

const ShareListQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    job_id: { type: 'string', maxLength: 64, description: "Only this job's links (the Studio's job panel lists them so)." },
  },
};

const TokenParamsSchema = {
  type: 'object',
  required: ['token'],
  additionalProperties: false,
  properties: { token: { type: 'string', maxLength: 64 } },
};

export function shareRoutes(app: FastifyInstance, ctx: ServerContext): void {
  ctx.registry.add(
    app,
    {
      method: 'POST',
      url: `${API_PREFIX}/jobs/:job_id/shares`,
      operationId: 'createShare',
      summary: "A public link to a succeeded job's video",
      description:
        'Anyone with the link opens a page with the video and its poster, without a key, until it expires (30 days by default) or is revoked. ' +
        'The page carries Open Graph and Twitter tags (og:title, og:image = the poster, og:video).',
      tag: 'shares',
      access: { scope: 'preview:read', policy: 'account', billable: null },
      params: JobIdParamsSchema,
      body: CreateShareBodySchema,
      bodyLimit: SHARE_BODY_LIMIT_BYTES,
      responses: {
        '201': { description: 'The link.', schema: ShareEnvelopeSchema, headers: RATE_HEADERS },
        ...AUTH_ERRORS,
        '404': {
          description: 'NOT_FOUND: no such job in your tenant (`unknown_job`), or it has no video to share (`video_not_ready`).',
          schema: ErrorEnvelopeSchema,
        },
      },
    },
    async (request, reply) => {
      const { key } = caller(request);
      const { job_id: jobId } = request.params as { job_id: string };
      const body = (request.body ?? {}) as { format?: VideoFormat; expires_in_days?: number };
      const found = await ctx.deps.jobs.get(jobId);
      if (found === null || found.tenant !== key.tenant) throw new AppError('NOT_FOUND', `No job ${jobId}.`, { reason: 'unknown_job' });
      if (found.job.state !== 'succeeded') {
        throw new AppError('NOT_FOUND', `Job ${jobId} is ${found.job.state}: only a succeeded job's video can be shared.`, {
          reason: 'video_not_ready',
        });
      }
      if (body.format !== undefined && !found.job.formats.includes(body.format)) {
        throw new AppError('BAD_REQUEST', `Job ${jobId} has no ${body.format} video: use one of ${found.job.formats.join(', ')}.`, {
          reason: 'format_not_rendered',
          details: [{ field: 'format', message: `must be one of ${found.job.formats.join(', ')}` }],
        });
      }
      const row = prepareShare(
        { tenant: key.tenant, jobId, format: body.format ?? null, days: body.expires_in_days ?? DEFAULT_SHARE_DAYS },
        ctx.now(),
      );
      await ctx.deps.records.shares.insert(row);
      return reply.code(201).send({ ok: true, status: 'success', share: shareRowToRecord(row) });
    },
  );

  ctx.registry.add(
    app,
    {
      method: 'GET',
      url: `${API_PREFIX}/shares`,
      operationId: 'listShares',
      summary: "The tenant's live share links, newest first",
      description: '`job_id` keeps one job’s links only (an unknown job: an empty list).',
      tag: 'shares',
      access: { scope: 'preview:read', policy: 'account', billable: null },
      querystring: ShareListQuerySchema,
      responses: {
        '200': {
          description: 'Links that have neither expired nor been revoked.',
          schema: {
            type: 'object',
            required: ['ok', 'status', 'shares'],
            properties: { ok: { const: true }, status: { const: 'success' }, shares: { type: 'array', items: ShareSchema } },
          },
          headers: RATE_HEADERS,
        },
        ...AUTH_ERRORS,
      },
    },
    async (request) => {
      const { job_id: jobId } = request.query as { job_id?: string };
      const rows = await ctx.deps.records.shares.list(caller(request).key.tenant, jobId);
      return { ok: true, status: 'success', shares: rows.map(shareRowToRecord) };
    },
  );

  ctx.registry.add(
    app,
    {
      method: 'DELETE',
      url: `${API_PREFIX}/shares/:share_id`,
      operationId: 'revokeShare',
      summary: 'Revoke a share link: its page answers 404 at once',
      tag: 'shares',
      access: { scope: 'preview:read', policy: 'account', billable: null },
      params: ShareIdParamsSchema,
      responses: {
        '200': { description: 'The link revoked.', schema: ShareEnvelopeSchema, headers: RATE_HEADERS },
        ...AUTH_ERRORS,
        '404': { description: 'NOT_FOUND: no live link of that id for this tenant (`unknown_share`).', schema: ErrorEnvelopeSchema },
      },
    },
    async (request) => {
      const { share_id: shareId } = request.params as { share_id: string };
      const row = await ctx.deps.records.shares.revoke(caller(request).key.tenant, shareId);
      if (row === null) throw unknownShareError(shareId);
      return { ok: true, status: 'success', share: shareRowToRecord(row) };
    },
  );

  /** The live share of the token and its job; rate-limited per client address. */
  async function sharedJob(request: FastifyRequest, reply: FastifyReply): Promise<{ share: ShareRow; job: JobRecord }> {
    const policy = { name: 'share_views', limit: SHARE_VIEWS_PER_WINDOW, windowMs: ctx.limits.windowMs };
    const decision = await ctx.deps.records.rateLimits.take(policy, `ip:${request.ip}`);
    for (const [name, value] of Object.entries(rateLimitHeaders(policy, decision))) reply.header(name, value);
    if (!decision.allowed) {
      throw withHeaders(
        new AppError('RATE_LIMIT_EXCEEDED', `Too many requests for shared videos: retry in ${decision.retryAfterS} s.`, {
          reason: 'share_views_rate',
          retryAfterS: decision.retryAfterS,
        }),
        {},
      );
    }
    const { token } = request.params as { token: string };
    const share = SHARE_TOKEN_PATTERN.test(token) ? await ctx.deps.records.shares.findByToken(token) : null;
    const found = share === null ? null : await ctx.deps.jobs.get(share.job_id);
    if (share === null || found === null || found.tenant !== share.tenant || found.job.state !== 'succeeded') {
      throw new AppError('NOT_FOUND', 'This link does not work: it was revoked, it has expired, or the video was deleted.', {
        reason: 'unknown_share',
      });
    }
    return { share, job: found.job };
  }

  function sharedOutput(share: ShareRow, job: JobRecord): { format: VideoFormat; primary: boolean } {
    const format = (share.format ?? job.formats[0] ?? job.format) as VideoFormat;
    return { format, primary: format === (job.formats[0] ?? job.format) };
  }

  app.get('/s/:token', { schema: { params: TokenParamsSchema } }, async (request, reply) => {
    let shared: { share: ShareRow; job: JobRecord };
    try {
      shared = await sharedJob(request, reply);
    } catch (error) {
      const status = error instanceof AppError && error.code === 'RATE_LIMIT_EXCEEDED' ? 429 : 404;
      if (!(error instanceof AppError)) throw error;
      return sendPage(reply.code(status), sharePageGone(status));
    }
    const base = `${request.protocol}://${request.host}`;
    return sendPage(reply, sharePage(shared.job, sharedOutput(shared.share, shared.job).format, `${base}${request.url.split('?')[0]!}`));
  });
  app.get('/s/:token/video.mp4', { schema: { params: TokenParamsSchema } }, async (request, reply) => {
    const { share, job } = await sharedJob(request, reply);
    return sendVideo(ctx, request, reply, job, sharedOutput(share, job));
  });
  app.get('/s/:token/poster.jpg', { schema: { params: TokenParamsSchema } }, async (request, reply) => {
    const { share, job } = await sharedJob(request, reply);
    return sendPoster(ctx, request, reply, job, sharedOutput(share, job));
  });
}

/** The share page's own policy: its inline style, its video and poster, nothing else. */
const SHARE_PAGE_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; media-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function sendPage(reply: FastifyReply, html: string): FastifyReply {
  return reply
    .header('Content-Security-Policy', SHARE_PAGE_POLICY)
    .header('Cache-Control', 'no-store')
    .header('X-Robots-Tag', 'noindex')
    .type('text/html; charset=utf-8')
    .send(html);
}

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const SIZES: Record<string, [number, number]> = { landscape: [1280, 720], portrait: [720, 1280], square: [720, 720] };

const WORDS = {
  fr: {
    video: 'Vidéo de l’annonce',
    gone: 'Ce lien ne fonctionne plus : l’agence l’a retiré, ou il a expiré. Demandez-lui un nouveau lien.',
    busy: 'Trop de demandes : réessayez dans une minute.',
  },
  en: {
    video: 'Listing video',
    gone: 'This link no longer works: the agency withdrew it, or it has expired. Ask them for a new link.',
    busy: 'Too many requests: try again in a minute.',
  },
  ar: {
    video: 'فيديو الإعلان',
    gone: 'هذا الرابط لم يعد صالحًا: سحبته الوكالة أو انتهت صلاحيته. اطلب منها رابطًا جديدًا.',
    busy: 'طلبات كثيرة: أعد المحاولة بعد دقيقة.',
  },
} as const;

const STYLE =
  'body{margin:0;font-family:system-ui,sans-serif;background:#111;color:#f5f5f5;display:flex;flex-direction:column;align-items:center;gap:1rem;padding:1rem}' +
  'h1{font-size:1.25rem;margin:.5rem 0;text-align:center}video{max-width:min(100%,960px);max-height:80vh;background:#000}p{color:#ccc}';

/** The public page of a share link (docs/api.md "Share links"): the video, its poster, and the preview tags of chat apps. */
export function sharePage(job: JobRecord, format: string, pageUrl: string): string {
  const language = job.language === 'ar' || job.language === 'en' ? job.language : 'fr';
  const title = escapeHtml(job.listing?.title ?? WORDS[language].video);
  const output = job.outputs?.find((o) => o.format === format);
  const [width, height] = output === undefined ? (SIZES[format] ?? [1280, 720]) : [output.width, output.height];
  const video = escapeHtml(`${pageUrl}/video.mp4`);
  const poster = escapeHtml(`${pageUrl}/poster.jpg`);
  const place = [job.listing?.district, job.listing?.city].filter((v) => v !== null && v !== undefined).join(', ');
  const description = escapeHtml(place === '' ? WORDS[language].video : `${WORDS[language].video} — ${place}`);
  return `<!doctype html>
<html lang="${language}" dir="${language === 'ar' ? 'rtl' : 'ltr'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${title}</title>
<meta name="description" content="${description}">
<meta property="og:type" content="video.other">
<meta property="og:title" content="${title}">
<meta property="og:description" content="${description}">
<meta property="og:url" content="${escapeHtml(pageUrl)}">
<meta property="og:image" content="${poster}">
<meta property="og:image:type" content="image/jpeg">
<meta property="og:image:width" content="${width}">
<meta property="og:image:height" content="${height}">
<meta property="og:video" content="${video}">
<meta property="og:video:type" content="video/mp4">
<meta property="og:video:width" content="${width}">
<meta property="og:video:height" content="${height}">
<meta name="twitter:card" content="summary_large_image">
<meta name="twitter:title" content="${title}">
<meta name="twitter:description" content="${description}">
<meta name="twitter:image" content="${poster}">
<style>${STYLE}</style>
</head>
<body>
<main>
<h1 dir="auto">${title}</h1>
<video src="${video}" poster="${poster}" width="${width}" height="${height}" controls playsinline preload="metadata" aria-label="${escapeHtml(WORDS[language].video)}"></video>
</main>
</body>
</html>
`;
}

function sharePageGone(status: number): string {
  const words = WORDS.fr;
  return `<!doctype html>
<html lang="fr">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><title>immoreel</title><style>${STYLE}</style></head>
<body><main><h1>${escapeHtml(status === 429 ? words.busy : words.gone)}</h1>
<p lang="en">${escapeHtml(status === 429 ? WORDS.en.busy : WORDS.en.gone)}</p>
<p lang="ar" dir="rtl">${escapeHtml(status === 429 ? WORDS.ar.busy : WORDS.ar.gone)}</p></main></body>
</html>
`;
}

import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.js';
import type { JobRecord, ListJobsOptions, VideoFormat } from '../../core/types.js';
import type { ServerContext } from '../request-context.js';
import { API_PREFIX } from '../api-limits.js';
import { envelope, withHeaders } from '../errors.js';
import { notModified, parseRange, rangeStillValid } from '../http-range.js';
import { createHash } from 'node:crypto';
import { ErrorEnvelopeSchema, JobEnvelopeSchema, JobIdParamsSchema, JobSchema } from '../schemas/common.js';
import { JobListQuerySchema, OutputQuerySchema } from '../schemas/api-bodies.js';
import { posterKey } from '../../blobs/object-keys.js';
import { AUTH_ERRORS, caller, RATE_HEADERS } from './common.js';

const ETAG_HEADER = {
  ETag: { description: "This representation's version: send it back in `If-None-Match`.", schema: { type: 'string' } },
};
const VIDEO_HEADERS = {
  ...ETAG_HEADER,
  'Accept-Ranges': { description: 'Always `bytes`.', schema: { type: 'string' } },
  'Content-Disposition': {
    description: '`attachment; filename="<job_id>.mp4"`; another output than the primary: `<job_id>-<format>.mp4`.',
    schema: { type: 'string' },
  },
  'Last-Modified': { description: 'When the MP4 was written (HTTP-date); usable in `If-Range`.', schema: { type: 'string' } },
  'Content-Length': { description: 'Bytes in this answer.', schema: { type: 'integer' } },
  ...RATE_HEADERS,
};

/**
 * HEAD answers the headers of the GET without reading the blob; an empty stream (not an empty
 * payload, for which fastify would write `Content-Length: 0`) keeps the video's `Content-Length`.
 */
const noBody = (): Readable => Readable.from([]);

/** How soon to poll again (Retry-After on job reads, docs/api.md). */
const POLL_AFTER_S: Partial<Record<JobRecord['state'], number>> = { queued: 5, running: 2 };

const NOT_FOUND = { description: 'NOT_FOUND: no such job.', schema: ErrorEnvelopeSchema };

/** The job if it exists and belongs to the caller's tenant; another tenant's job is a 403 (docs/api.md). */
async function ownJob(ctx: ServerContext, request: FastifyRequest): Promise<JobRecord> {
  const { job_id: jobId } = request.params as { job_id: string };
  const found = await ctx.deps.jobs.get(jobId);
  if (found === null) throw new AppError('NOT_FOUND', `No job ${jobId}.`, { reason: 'unknown_job' });
  if (found.tenant !== caller(request).key.tenant) {
    throw withHeaders(
      new AppError('INSUFFICIENT_SCOPE', "This job belongs to another tenant: keys only reach their own tenant's jobs and videos.", {
        reason: 'other_tenant',
      }),
      { 'WWW-Authenticate': 'Bearer realm="immoreel", error="insufficient_scope"' },
    );
  }
  return found.job;
}

/**
 * The output `?format=` names (docs/api.md "Video packs"): absent, the primary; a format the job
 * does not render is a 404 that names the ones it does.
 */
function outputOf(job: JobRecord, request: FastifyRequest, what: 'video' | 'poster'): { format: VideoFormat; primary: boolean } {
  const { format } = request.query as { format?: VideoFormat };
  if (format === undefined) return { format: job.formats[0] ?? job.format, primary: true };
  const index = job.formats.indexOf(format);
  if (index < 0) {
    throw new AppError(
      'NOT_FOUND',
      `Job ${job.job_id} was rendered in ${job.formats.join(', ')}, so it has no ${format} ${what}: ask for format=${job.formats.join(' or format=')}.`,
      { reason: 'format_not_rendered', details: [{ field: 'format', message: `must be one of ${job.formats.join(', ')}` }] },
    );
  }
  return { format, primary: index === 0 };
}

function pollHint(reply: FastifyReply, job: JobRecord): void {
  const after = POLL_AFTER_S[job.state];
  if (after !== undefined) reply.header('Retry-After', String(after));
}

export function jobRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const readAccess = { scope: 'preview:read', policy: 'job_reads', billable: null } as const;

  ctx.registry.add(
    app,
    {
      method: 'GET',
      url: `${API_PREFIX}/jobs/:job_id`,
      operationId: 'getJob',
      summary: 'A render job (replaces the retired GET /api/v1/tasks/{id})',
      description:
        'While the job is queued or running, `Retry-After` says when to poll again. Job reads: 120 per minute per key. ' +
        'Send the last `ETag` in `If-None-Match` to get a bodiless 304 while nothing changed.',
      headers: {
        type: 'object',
        properties: { 'if-none-match': { type: 'string', description: 'An `ETag` of this job from an earlier read.' } },
      },
      tag: 'jobs',
      access: readAccess,
      params: JobIdParamsSchema,
      responses: {
        '200': {
          description: 'The job, whatever its state (a failed job is a 200 with `error`).',
          schema: JobEnvelopeSchema,
          headers: {
            'Retry-After': { description: 'Seconds before polling again (queued or running jobs).', schema: { type: 'integer' } },
            ...ETAG_HEADER,
            ...RATE_HEADERS,
          },
        },
        '304': {
          description: 'Not Modified: `If-None-Match` names the current version; the job has not changed.',
          headers: {
            'Retry-After': { description: 'Seconds before polling again (queued or running jobs).', schema: { type: 'integer' } },
            ...ETAG_HEADER,
            ...RATE_HEADERS,
          },
        },
        ...AUTH_ERRORS,
        '404': NOT_FOUND,
      },
    },
    async (request, reply) => {
      const job = await ownJob(ctx, request);
      pollHint(reply, job);
      const body = { ok: true, status: 'success', job };
      // The job's own representation names its version: polling with If-None-Match costs no body.
      const etag = `"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 27)}"`;
      reply.header('ETag', etag).header('Cache-Control', 'private, no-cache');
      if (notModified(request.headers['if-none-match'], etag)) return reply.code(304).send();
      return body;
    },
  );

  ctx.registry.add(
    app,
    {
      method: 'GET',
      url: `${API_PREFIX}/jobs`,
      operationId: 'listJobs',
      summary: "The caller's tenant's jobs, newest first, paginated",
      tag: 'jobs',
      access: readAccess,
      querystring: JobListQuerySchema,
      responses: {
        '200': {
          description: 'One page of jobs; pass `next_cursor` as `cursor` for the next (null on the last page).',
          schema: {
            type: 'object',
            required: ['ok', 'status', 'jobs', 'next_cursor'],
            properties: {
              ok: { const: true },
              status: { const: 'success' },
              jobs: { type: 'array', items: JobSchema },
              next_cursor: { type: ['string', 'null'] },
            },
          },
          headers: RATE_HEADERS,
        },
        ...AUTH_ERRORS,
      },
    },
    async (request) => {
      const query = request.query as ListJobsOptions;
      const page = await ctx.deps.jobs.list(caller(request).key.tenant, {
        state: query.state,
        limit: query.limit ?? 20,
        cursor: query.cursor,
      });
      return { ok: true, status: 'success', jobs: page.jobs, next_cursor: page.next_cursor };
    },
  );

  ctx.registry.add(
    app,
    {
      method: 'POST',
      url: `${API_PREFIX}/jobs/:job_id/cancel`,
      operationId: 'cancelJob',
      summary: 'Cancel a queued or running job',
      description:
        'A running render is stopped. A job already finished is returned unchanged. No body is needed (an empty body with `Content-Type: application/json` is accepted).',
      tag: 'jobs',
      access: { scope: 'preview:dispatch', policy: 'account', billable: null },
      params: JobIdParamsSchema,
      responses: {
        '200': { description: 'The job after cancellation.', schema: JobEnvelopeSchema, headers: RATE_HEADERS },
        ...AUTH_ERRORS,
        '404': NOT_FOUND,
      },
    },
    async (request) => {
      const job = await ownJob(ctx, request);
      return { ok: true, status: 'success', job: await ctx.deps.jobs.cancel(job.job_id) };
    },
  );

  ctx.registry.add(
    app,
    {
      method: 'GET',
      url: `${API_PREFIX}/jobs/:job_id/video`,
      operationId: 'downloadVideo',
      summary: 'The MP4 of a succeeded job (Range requests supported)',
      description:
        'Supports `Range` (one range), `If-Range` (an `ETag` or the `Last-Modified` date; a stale one gets the whole file) and `If-None-Match` (304). ' +
        'HEAD answers the same headers without the body. A pack (docs/api.md "Video packs"): `format` picks the output; without it, the primary.',
      tag: 'jobs',
      access: readAccess,
      params: JobIdParamsSchema,
      querystring: OutputQuerySchema,
      headers: {
        type: 'object',
        properties: {
          range: { type: 'string', description: 'One byte range, e.g. `bytes=0-1048575` or `bytes=-500`.' },
          'if-range': { type: 'string', description: 'The `ETag` or `Last-Modified` of the partial copy you hold.' },
          'if-none-match': { type: 'string', description: 'The `ETag` of the copy you hold.' },
        },
      },
      head: { operationId: 'headVideo', summary: 'The headers of the MP4 (size, ETag, Last-Modified) without the body' },
      responses: {
        '200': {
          description: 'The whole MP4.',
          contentType: 'video/mp4',
          schema: { type: 'string', format: 'binary', contentMediaType: 'video/mp4' },
          headers: VIDEO_HEADERS,
        },
        '206': {
          description: 'The requested byte range.',
          contentType: 'video/mp4',
          schema: { type: 'string', format: 'binary', contentMediaType: 'video/mp4' },
          headers: { 'Content-Range': { description: 'bytes start-end/size', schema: { type: 'string' } }, ...VIDEO_HEADERS },
        },
        '304': { description: 'Not Modified: `If-None-Match` names this video.', headers: { ...ETAG_HEADER, ...RATE_HEADERS } },
        ...AUTH_ERRORS,
        '404': {
          description:
            "NOT_FOUND: no such job, or its video is not ready (`reason: video_not_ready`) or was purged; or `format` is not one of the job's `formats` (`format_not_rendered`).",
          schema: ErrorEnvelopeSchema,
        },
        '416': { description: 'The range starts past the end of the file (`Content-Range: bytes */size`).', schema: ErrorEnvelopeSchema },
      },
    },
    async (request, reply) => {
      const job = await ownJob(ctx, request);
      return sendVideo(ctx, request, reply, job, outputOf(job, request, 'video'));
    },
  );

  ctx.registry.add(
    app,
    {
      method: 'GET',
      url: `${API_PREFIX}/jobs/:job_id/poster`,
      operationId: 'getPoster',
      summary: "A JPEG of the video's title card, at the video's size",
      description:
        'Drawn from the verified video when the render succeeds (docs/api.md "The poster"); use it as the `poster` of a `<video>` or as a preview. ' +
        '`format` picks a pack\'s output (docs/api.md "Video packs"); without it, the primary\'s. `If-None-Match` with its `ETag` answers 304.',
      tag: 'jobs',
      access: readAccess,
      params: JobIdParamsSchema,
      querystring: OutputQuerySchema,
      headers: {
        type: 'object',
        properties: { 'if-none-match': { type: 'string', description: 'The `ETag` of the poster you hold.' } },
      },
      responses: {
        '200': {
          description: 'The poster.',
          contentType: 'image/jpeg',
          schema: { type: 'string', format: 'binary', contentMediaType: 'image/jpeg' },
          headers: {
            ...ETAG_HEADER,
            'Content-Length': { description: 'Bytes in this answer.', schema: { type: 'integer' } },
            ...RATE_HEADERS,
          },
        },
        '304': { description: 'Not Modified: `If-None-Match` names this poster.', headers: { ...ETAG_HEADER, ...RATE_HEADERS } },
        ...AUTH_ERRORS,
        '404': {
          description:
            'NOT_FOUND: no such job; its video is not ready (`reason: video_not_ready`); it has no poster (`no_poster`: failed, canceled, purged, ' +
            "or rendered before posters existed); or `format` is not one of the job's `formats` (`format_not_rendered`).",
          schema: ErrorEnvelopeSchema,
        },
      },
    },
    async (request, reply) => {
      const job = await ownJob(ctx, request);
      return sendPoster(ctx, request, reply, job, outputOf(job, request, 'poster'));
    },
  );
}

/**
 * The 404 for a job's file that is not in the blob store: not ready yet while the job is queued or
 * running (with when to ask again), or gone (`STATE` in `gone` is replaced by the job's state).
 */
function fileMissing(job: JobRecord, says: { pending: string; gone: string; reason: string }): AppError {
  const pending = job.state === 'queued' || job.state === 'running';
  if (pending) {
    return new AppError('NOT_FOUND', `Job ${job.job_id} is ${job.state}: ${says.pending}`, {
      reason: 'video_not_ready',
      retryAfterS: POLL_AFTER_S[job.state],
    });
  }
  return new AppError('NOT_FOUND', `Job ${job.job_id} ${says.gone.replace('STATE', job.state)}`, { reason: says.reason });
}

/**
 * A job's MP4, streamed through this node from the blob store (Range, If-Range, If-None-Match):
 * the API's download and a share link's page (./shares.ts) serve it alike.
 */
export async function sendVideo(
  ctx: ServerContext,
  request: FastifyRequest,
  reply: FastifyReply,
  job: JobRecord,
  output: { format: VideoFormat; primary: boolean },
): Promise<FastifyReply> {
  // Streamed through this node from the blob store (data directory or bucket), so any node
  // serves any job's video with the same headers (docs/scaling.md "Downloads").
  const key = await ctx.deps.jobs.videoKey(job.job_id, output.format);
  const info = key === null ? null : await ctx.deps.blobs.head(key);
  if (key === null || info === null) {
    throw fileMissing(job, {
      pending: 'its video is not ready yet.',
      gone: 'has no video (state STATE, or the file was purged).',
      reason: 'no_video',
    });
  }
  const size = info.size;
  const lastModified = info.lastModified.toUTCString();
  reply
    .header('Accept-Ranges', 'bytes')
    .header('Content-Type', 'video/mp4')
    // A tenant's own video, or one shared by its link: never kept by a shared cache.
    .header('Cache-Control', 'private, max-age=3600')
    .header('Content-Disposition', `attachment; filename="${job.job_id}${output.primary ? '' : `-${output.format}`}.mp4"`)
    .header('Last-Modified', lastModified);
  const sha256 = output.primary ? job.result?.sha256 : job.outputs?.find((o) => o.format === output.format)?.sha256;
  const etag = sha256 ? `"${sha256}"` : null;
  if (etag !== null) reply.header('ETag', etag);
  if (etag !== null && notModified(request.headers['if-none-match'], etag)) return reply.code(304).send();
  const rangeHeader = rangeStillValid(request.headers['if-range'] as string | undefined, etag, lastModified)
    ? request.headers.range
    : undefined;
  const range = parseRange(rangeHeader, size);
  if (range.kind === 'unsatisfiable') {
    const problem = new AppError('BAD_REQUEST', `The requested range is outside the video (${size} bytes).`, {
      reason: 'range_not_satisfiable',
      details: [{ field: 'Range', message: `must start below ${size}` }],
    });
    return reply
      .code(416)
      .header('Content-Range', `bytes */${size}`)
      .type('application/json; charset=utf-8')
      .send(envelope(problem, request.id));
  }
  if (range.kind === 'partial') {
    reply
      .code(206)
      .header('Content-Range', `bytes ${range.start}-${range.end}/${size}`)
      .header('Content-Length', String(range.end - range.start + 1));
    if (request.method === 'HEAD') return reply.send(noBody());
    return reply.send((await ctx.deps.blobs.get(key, { start: range.start, end: range.end })).body);
  }
  reply.header('Content-Length', String(size));
  if (request.method === 'HEAD') return reply.send(noBody());
  return reply.send((await ctx.deps.blobs.get(key)).body);
}

/** A job's poster (docs/api.md "The poster"), for the API and for share links alike. */
export async function sendPoster(
  ctx: ServerContext,
  request: FastifyRequest,
  reply: FastifyReply,
  job: JobRecord,
  output: { format: VideoFormat; primary: boolean },
): Promise<FastifyReply> {
  // Next to its video in the blob store, named after the attempt that won (docs/api.md "The poster").
  const video = await ctx.deps.jobs.videoKey(job.job_id, output.format);
  const key = video === null ? null : posterKey(video);
  const info = key === null ? null : await ctx.deps.blobs.head(key);
  if (key === null || info === null) {
    throw fileMissing(job, {
      pending: 'its poster is drawn when the video is ready.',
      gone: 'has no poster (state STATE, its files were purged, or it was rendered before posters existed).',
      reason: 'no_poster',
    });
  }
  reply.header('Content-Type', 'image/jpeg').header('ETag', info.etag).header('Cache-Control', 'private, max-age=3600');
  if (notModified(request.headers['if-none-match'], info.etag)) return reply.code(304).send();
  reply.header('Content-Length', String(info.size));
  return reply.send((await ctx.deps.blobs.get(key)).body);
}

import { compileErrors, dereference, validate } from '@readme/openapi-parser';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterEach, describe, expect, it } from 'vitest';
import { makeHarness, type Harness } from '../../helpers/server-harness.js';

let h: Harness;
afterEach(async () => h?.close());

type Doc = {
  openapi: string;
  paths: Record<
    string,
    Record<string, { security?: unknown[]; requestBody?: { content: Record<string, { schema: object }> }; deprecated?: boolean }>
  >;
  components: { schemas: Record<string, object> };
};

async function fetchDocument(): Promise<Doc> {
  h = await makeHarness();
  const res = await h.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toContain('application/json');
  return JSON.parse(res.body) as Doc;
}

describe('GET /api/v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const doc = await fetchDocument();
    expect(doc.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
  });

  it('lists every route of API v1, retired ones marked deprecated', async () => {
    const doc = await fetchDocument();
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      [
        'POST /api/v1/analyze',
        'POST /api/v1/render-video',
        'GET /api/v1/jobs/{job_id}',
        'GET /api/v1/jobs',
        'POST /api/v1/jobs/{job_id}/cancel',
        'GET /api/v1/jobs/{job_id}/video',
        'HEAD /api/v1/jobs/{job_id}/video',
        'GET /api/v1/jobs/{job_id}/poster',
        'GET /api/v1/templates/{name}/still',
        'POST /api/v1/assets',
        'GET /api/v1/me',
        'GET /api/v1/usage',
        'GET /api/v1/health',
        'GET /api/v1/ready',
        'GET /api/v1/openapi.json',
        'POST /api/v1/campaigns/generate',
        'GET /api/v1/tasks/{id}',
        'POST /api/v1/jobs/{job_id}/shares',
        'GET /api/v1/shares',
        'DELETE /api/v1/shares/{share_id}',
      ].sort(),
    );
    expect(doc.paths['/api/v1/campaigns/generate']!.post!.deprecated).toBe(true);
    expect(doc.paths['/api/v1/usage']!.get!.security).toEqual([{ bearerAuth: ['billing:read'] }]);
    expect(doc.paths['/api/v1/health']!.get!.security).toEqual([]);
    expect(doc.paths['/api/v1/ready']!.get!.security).toEqual([]);
  });

  it('declares what generated clients need: $ref listings, free-form metadata, binary uploads, real headers', async () => {
    const doc = (await fetchDocument()) as unknown as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- walking a JSON document
    const render = doc.paths['/api/v1/render-video'].post;
    const body = render.requestBody.content['application/json'].schema.properties;
    expect(body.listing).toEqual({ $ref: '#/components/schemas/Property' });
    expect(body.branding).toEqual({ $ref: '#/components/schemas/Branding' });
    expect(body.metadata.type).toBe('object');
    expect(body.metadata.additionalProperties ?? body.metadata.patternProperties).toBeTruthy();
    expect(body.duration_s).toMatchObject({ minimum: 10, maximum: 90 });
    expect(doc.components.schemas.Branding.properties.agency_name.maxLength).toBe(80);
    expect(render.responses['202'].headers).toHaveProperty('Idempotent-Replayed');
    expect(render.responses['429'].headers).toHaveProperty('Retry-After');
    expect(render.responses['429'].headers).toHaveProperty('RateLimit-Policy');
    expect(render.responses['401'].headers).toHaveProperty('WWW-Authenticate');
    const upload = doc.paths['/api/v1/assets'].post.requestBody.content;
    expect(upload['image/jpeg'].schema).toMatchObject({ type: 'string', format: 'binary' });
    const video = doc.paths['/api/v1/jobs/{job_id}/video'];
    for (const header of ['ETag', 'Accept-Ranges', 'Content-Disposition', 'Last-Modified'])
      expect(video.get.responses['200'].headers).toHaveProperty(header);
    expect(video.get.responses).toHaveProperty('304');
    expect(video.head.operationId).toBe('headVideo');
    expect(doc.paths['/api/v1/jobs/{job_id}'].get.responses['200'].headers).toHaveProperty('ETag');
    expect(doc.components.schemas.ErrorEnvelope.properties.error.properties).toHaveProperty('resets_at');
    expect(doc.components.schemas.Job.properties.metadata.additionalProperties).toBe(true);
    expect(doc.webhooks.jobFinished.post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/WebhookEvent',
    });
  });

  it('resolves every $ref, and its schemas are valid JSON Schema 2020-12', async () => {
    const doc = await fetchDocument();
    const resolved = (await dereference(structuredClone(doc) as never)) as unknown as Doc;
    expect(JSON.stringify(resolved)).not.toContain('"$ref"');
    const ajv = addFormats.default(new Ajv2020.default({ strict: false }));
    for (const [name, schema] of Object.entries(resolved.components.schemas)) {
      expect(() => ajv.compile(schema), name).not.toThrow();
    }
    const analyzeBody = resolved.paths['/api/v1/analyze']!.post!.requestBody!.content['application/json']!.schema;
    const check = ajv.compile(analyzeBody);
    expect(check({ description: 'Villa', language: 'en' })).toBe(true);
    expect(check({ description: 'Villa', colour: 'red' })).toBe(false);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { makeHarness, type Harness } from '../../helpers/server-harness.js';

let h: Harness;
afterEach(async () => h?.close());

interface Envelope {
  ok: boolean;
  status: string;
  error: {
    code: string;
    message: string;
    reason?: string;
    details: { field: string; message: string }[];
    request_id: string;
    successor?: string;
  };
}

const parse = (body: string): Envelope => JSON.parse(body) as Envelope;

describe('API v1 basics', () => {
  it('stamps X-Request-Id and X-API-Version on every answer, and echoes a sane caller request id', async () => {
    h = await makeHarness();
    const health = await h.app.inject({ method: 'GET', url: '/api/v1/health' });
    expect(health.statusCode).toBe(200);
    expect(health.headers['x-api-version']).toBe('1.0.0');
    expect(health.headers['x-request-id']).toMatch(/^req_/);
    const traced = await h.app.inject({ method: 'GET', url: '/api/v1/nope', headers: { 'x-request-id': 'trace-12345678' } });
    expect(traced.statusCode).toBe(404);
    expect(traced.headers['x-request-id']).toBe('trace-12345678');
    expect(parse(traced.body).error).toMatchObject({ code: 'NOT_FOUND', request_id: 'trace-12345678' });
    const garbage = await h.app.inject({ method: 'GET', url: '/api/v1/health', headers: { 'x-request-id': 'bad id with spaces' } });
    expect(garbage.headers['x-request-id']).toMatch(/^req_/);
  });

  it('answers the retired v0.9 routes with 410, the successor, Link and Sunset, without a key', async () => {
    h = await makeHarness();
    const campaigns = await h.app.inject({ method: 'POST', url: '/api/v1/campaigns/generate', payload: { anything: 1 } });
    expect(campaigns.statusCode).toBe(410);
    expect(campaigns.headers.link).toBe('</api/v1/render-video>; rel="successor-version"');
    expect(new Date(String(campaigns.headers.sunset)).toISOString()).toBe('2026-10-01T00:00:00.000Z');
    const body = parse(campaigns.body);
    expect(body).toMatchObject({
      ok: false,
      status: 'error',
      error: { code: 'GONE', reason: 'endpoint_retired', successor: 'POST /api/v1/render-video' },
    });
    expect(body.error.message).toContain('/api/v1/render-video');
    const tasks = await h.app.inject({ method: 'GET', url: '/api/v1/tasks/123' });
    expect(tasks.statusCode).toBe(410);
    expect(tasks.headers.link).toBe('</api/v1/jobs/{job_id}>; rel="successor-version"');
    expect(parse(tasks.body).error.successor).toBe('GET /api/v1/jobs/{job_id}');
  });

  it('refuses invalid analyze bodies with 400 and the fields at fault', async () => {
    h = await makeHarness();
    const { auth } = h.key();
    const post = (payload: string, contentType = 'application/json') =>
      h.app.inject({ method: 'POST', url: '/api/v1/analyze', headers: { ...auth, 'content-type': contentType }, payload });
    const cases: [string, string, string][] = [
      ['{"description":"x","colour":"red"}', 'colour', 'is not an accepted field'],
      ['{"description":42}', 'description', 'must be a string'],
      ['{"description":"Villa","language":"de"}', 'language', 'must be one of fr, en, ar'],
      ['{"description":"Villa","target_audience":"aliens"}', 'target_audience', 'must be one of auto, family'],
      ['{}', 'url', 'give a listing url'],
      ['{"description":"   "}', 'description', 'is empty'],
      ['[1,2]', 'body', 'must be an object'],
      ['{"description": "Villa",', 'body', 'is not valid JSON'],
    ];
    for (const [payload, field, message] of cases) {
      const res = await post(payload);
      expect(res.statusCode, payload).toBe(400);
      const body = parse(res.body);
      expect(body.error.code).toBe('BAD_REQUEST');
      const detail = body.error.details.find((d) => d.field === field);
      expect(detail, `${payload} → ${res.body}`).toBeDefined();
      expect(detail!.message).toContain(message);
    }
    const wrongType = await post('description=Villa', 'application/x-www-form-urlencoded');
    expect(wrongType.statusCode).toBe(400);
    expect(parse(wrongType.body).error).toMatchObject({ reason: 'unsupported_media_type', details: [{ field: 'Content-Type' }] });
    const text = await post('Villa à Marrakech', 'text/plain');
    expect(parse(text.body).error.reason).toBe('unsupported_media_type');
  });

  it('reports every problem of a body at once', async () => {
    h = await makeHarness();
    const { auth } = h.key();
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/v1/analyze',
      headers: auth,
      payload: { description: 1, language: 'xx', extra: true },
    });
    expect(res.statusCode).toBe(400);
    expect(
      parse(res.body)
        .error.details.map((d) => d.field)
        .sort(),
    ).toEqual(['description', 'extra', 'language']);
  });

  it('refuses a body over the limit with 413', async () => {
    h = await makeHarness({ limits: { jsonBodyLimitBytes: 10_000 } });
    const { auth } = h.key();
    const res = await h.app.inject({ method: 'POST', url: '/api/v1/analyze', headers: auth, payload: { description: 'x'.repeat(20_000) } });
    expect(res.statusCode).toBe(413);
    expect(parse(res.body).error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: [{ field: 'body' }] });
  });

  it('refuses malformed job ids before touching storage, path traversal included', async () => {
    h = await makeHarness();
    const { auth } = h.key();
    for (const id of ['..%2F..%2Fetc%2Fpasswd', 'job_../../x', 'job_ABC', '%00', 'job_' + 'a'.repeat(80)]) {
      const res = await h.app.inject({ method: 'GET', url: `/api/v1/jobs/${id}`, headers: auth });
      expect(res.statusCode, id).toBe(400);
      expect(parse(res.body).error.details[0]!.field).toBe('job_id');
    }
    const unknown = await h.app.inject({ method: 'GET', url: '/api/v1/jobs/job_01jabcdefghjkmnpqrstvwxyz0', headers: auth });
    expect(unknown.statusCode).toBe(404);
    expect(parse(unknown.body).error.code).toBe('NOT_FOUND');
  });

  it('keeps 5xx answers generic and puts the cause in the log only', async () => {
    h = await makeHarness({
      analyze: async () => {
        throw new Error('disk /var/secret/path exploded');
      },
    });
    const { auth, apiKey } = h.key();
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/v1/analyze',
      headers: auth,
      payload: { description: 'Villa 300 m² à Marrakech' },
    });
    expect(res.statusCode).toBe(500);
    const body = parse(res.body);
    expect(body.error.code).toBe('INTERNAL_SERVER_ERROR');
    expect(res.body).not.toContain('/var/secret');
    expect(body.error.request_id).toBe(res.headers['x-request-id']);
    const logged = h.logs.join('\n');
    expect(logged).toContain('disk /var/secret/path exploded');
    expect(logged).toContain(body.error.request_id);
    expect(logged).not.toContain(apiKey);
    expect(logged).not.toContain('Villa 300');
  });

  it('logs one JSON line per request with id, route, status and latency, never keys or bodies', async () => {
    h = await makeHarness();
    const { auth, apiKey } = h.key();
    await h.app.inject({
      method: 'POST',
      url: '/api/v1/analyze',
      headers: auth,
      payload: { description: 'secret-body-marker', language: 'zz' },
    });
    const lines = h.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
    const access = lines.find((l) => l.msg === 'request');
    expect(access).toMatchObject({ route: '/api/v1/analyze', status: 400, method: 'POST' });
    expect(typeof access!.latency_ms).toBe('number');
    expect(String(access!.request_id)).toMatch(/^req_/);
    expect(h.logs.join('\n')).not.toContain(apiKey);
    expect(h.logs.join('\n')).not.toContain('secret-body-marker');
  });
});

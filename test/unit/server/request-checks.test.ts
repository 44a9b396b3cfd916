import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppError, type AppError } from '../../../src/core/errors.js';
import { validateAnalyzeRequest } from '../../../src/core/analyze-rules.js';
import { validateRenderRequest } from '../../../src/render/render-rules.js';
import { makeHarness, type Harness } from '../../helpers/server-harness.js';

/**
 * A request with problems of both kinds (the schema's and the rules'): HTTP answers what the
 * validator the CLI and CSV rows run answers, every problem at once (docs/api.md "One schema per input").
 */

function refusal(check: () => unknown): AppError {
  try {
    check();
  } catch (error) {
    if (isAppError(error)) return error;
    throw error;
  }
  throw new Error('expected a BAD_REQUEST');
}

interface ErrorBody {
  code: string;
  message: string;
  reason?: string;
  details: { field: string; message: string }[];
}

describe('schema and rules answer together, at every front door', () => {
  let h: Harness;
  let auth: Record<string, string>;
  beforeAll(async () => {
    h = await makeHarness({ runWorkers: false });
    auth = h.key().auth;
  });
  afterAll(async () => h?.close());

  const post = async (url: string, body: unknown): Promise<{ status: number; error: ErrorBody }> => {
    const res = await h.app.inject({
      method: 'POST',
      url,
      headers: { ...auth, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
    return { status: res.statusCode, error: (JSON.parse(res.body) as { error: ErrorBody }).error };
  };

  it('render: a bad duration (schema) and an unknown template and colour (rules) in one answer', async () => {
    const body = {
      description: 'Villa à Marrakech',
      photos: ['https://cdn.example.com/a.jpg', 42],
      duration_s: 5,
      template: 'fancy',
      branding: { primary_color: 'red', slogan: 'hi' },
    };
    const http = await post('/api/v1/render-video', body);
    expect(http.status).toBe(400);
    expect(http.error.details.map((d) => d.field)).toEqual([
      'photos[1]',
      'duration_s',
      'branding.slogan',
      'template',
      'branding.primary_color',
    ]);
    const local = refusal(() => validateRenderRequest(body, 'server'));
    expect({ code: http.error.code, message: http.error.message, reason: http.error.reason, details: http.error.details }).toEqual({
      code: local.code,
      message: local.message,
      reason: local.reason,
      details: local.details,
    });
  });

  it("render: a metadata too deep is refused with the validator's words, before anything reads it", async () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 40; i += 1) deep = { deep };
    const http = await post('/api/v1/render-video', { description: 'Villa', photos: ['https://cdn.example.com/a.jpg'], metadata: deep });
    expect(http.status).toBe(400);
    expect(http.error.message).toMatch(/^Invalid render request: metadata is nested more than 16 levels deep\.$/);
  });

  it('a body that is not an object is named as the body, on both routes', async () => {
    for (const url of ['/api/v1/render-video', '/api/v1/analyze'])
      for (const body of [null, 'villa', [1]]) {
        const http = await post(url, body);
        expect(http.status, `${url} ${JSON.stringify(body)}`).toBe(400);
        expect(http.error.details).toEqual([{ field: 'body', message: 'must be an object' }]);
      }
  });

  it('analyze: a bad language (schema) and a blank description (rule) in one answer', async () => {
    const body = { description: '   ', language: 'de' };
    const http = await post('/api/v1/analyze', body);
    expect(http.status).toBe(400);
    expect(http.error.details).toEqual([
      { field: 'language', message: 'must be one of fr, en, ar' },
      { field: 'description', message: 'is empty: paste the listing text (title and description)' },
    ]);
    expect(http.error.message).toBe(refusal(() => validateAnalyzeRequest(body)).message);
  });
});

describe('POST /api/v1/analyze is checked once, at the route', () => {
  it('hands the analysis the request the route checked, defaults filled, not the raw body to check again', async () => {
    const given: unknown[] = [];
    const h = await makeHarness({
      runWorkers: false,
      analyze: (checked) => {
        given.push(checked);
        return Promise.reject(new Error('stop after the check'));
      },
    });
    try {
      const body = { description: 'Villa 300 m² à Marrakech', confirmed_facts: ['price'] };
      const res = await h.app.inject({ method: 'POST', url: '/api/v1/analyze', headers: h.key().auth, payload: body });
      expect(res.statusCode, res.body).toBe(500);
      expect(given).toEqual([validateAnalyzeRequest(body)]);
      expect(given[0]).toMatchObject({ url: null, language: 'fr', target_audience: 'auto', confirmed_facts: ['price'] });
    } finally {
      await h.close();
    }
  });
});

describe('validateAnalyzeRequest', () => {
  it('names an empty request by its first input, but not one whose input was refused for its form', () => {
    expect(refusal(() => validateAnalyzeRequest({})).details).toEqual([
      { field: 'url', message: 'is missing: give a listing url, a saved page (html) or a description' },
    ]);
    expect(refusal(() => validateAnalyzeRequest({ url: '   ' })).details.map((d) => d.field)).toEqual(['url']);
    expect(refusal(() => validateAnalyzeRequest({ description: 42 })).details).toEqual([
      { field: 'description', message: 'must be a string' },
    ]);
  });

  it('fills the defaults and trims the url', () => {
    expect(validateAnalyzeRequest({ url: ' https://www.mubawab.ma/fr/a/1/x ' })).toEqual({
      url: 'https://www.mubawab.ma/fr/a/1/x',
      html: null,
      description: null,
      language: 'fr',
      target_audience: 'auto',
      confirmed_facts: [],
    });
  });
});

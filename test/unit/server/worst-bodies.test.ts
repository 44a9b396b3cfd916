import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../../src/server/api-limits.js';
import { MAX_ERROR_DETAILS } from '../../../src/core/requests.js';
import { makeHarness, type Harness } from '../../helpers/server-harness.js';

/**
 * Every JSON body route, sent the worst-shaped body its size limit lets through (docs/security.md
 * "Bounded validation"): lists of wrong entries far past their `maxItems`, thousands of unknown
 * members, one enormous member name. Each gets its 400 with a bounded answer. The time these
 * take is measured by `npm run bench:adversarial`, not here.
 */

/** The routes that read a JSON body, and the lists each body has (the worst shape fills one with `1`s). */
const JSON_ROUTES: Record<string, { lists: string[] }> = {
  'POST /api/v1/analyze': { lists: [] },
  'POST /api/v1/render-video': { lists: ['formats', 'photos', 'listing.features'] },
};

/** The largest answer a refused body may get, whatever its shape. */
const MAX_ANSWER_BYTES = 8 * 1024;

/** `{"a":{"b":[1,1,…]}}` of about `size` bytes. */
function listOfOnes(path: string, size: number): string {
  const names = path.split('.');
  const open = names.map((name) => `{"${name}":`).join('');
  const close = '}'.repeat(names.length);
  const count = Math.floor((size - open.length - close.length - 2) / 2);
  return `${open}[${'1,'.repeat(count - 1)}1]${close}`;
}

/** `{"k0":1,"k1":1,…}` of about `size` bytes. */
function unknownMembers(size: number): string {
  const parts: string[] = [];
  let length = 2;
  for (let i = 0; length < size - 24; i++) {
    const part = `"k${i}":1`;
    parts.push(part);
    length += part.length + 1;
  }
  return `{${parts.join(',')}}`;
}

const worstBodies = (lists: string[], size: number): Record<string, string> => ({
  ...Object.fromEntries(lists.map((list) => [`a list of wrong entries (${list})`, listOfOnes(list, size)])),
  'unknown members': unknownMembers(size),
  'one enormous member name': `{"${'a'.repeat(size - 8)}":1}`,
});

describe('the worst-shaped body of each route gets a bounded answer', () => {
  let h: Harness;
  let auth: Record<string, string>;
  beforeAll(async () => {
    h = await makeHarness({ runWorkers: false });
    auth = h.key().auth;
  });
  afterAll(async () => h?.close());

  it('lists every route that reads a JSON body', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    const paths = (res.json() as { paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>> }).paths;
    const jsonRoutes = Object.entries(paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => operation.requestBody?.content['application/json'] !== undefined)
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(jsonRoutes.sort()).toEqual(Object.keys(JSON_ROUTES).sort());
  });

  for (const [route, { lists }] of Object.entries(JSON_ROUTES)) {
    const [method, url] = route.split(' ') as ['POST', string];
    // Just under the route's limit, and the 64 KB that a thread would take instead of the event loop.
    for (const size of [64 * 1024 - 64, DEFAULT_LIMITS.jsonBodyLimitBytes - 64]) {
      for (const [shape, body] of Object.entries(worstBodies(lists, size))) {
        it(`${route}, ${shape}, ${Math.round(body.length / 1024)} KB: 400 with a bounded answer`, async () => {
          const res = await h.app.inject({ method, url, headers: { ...auth, 'content-type': 'application/json' }, payload: body });
          expect(res.statusCode).toBe(400);
          expect(res.body.length).toBeLessThan(MAX_ANSWER_BYTES);
          const error = (res.json() as { error: { reason: string; details: unknown[] } }).error;
          expect(error.reason).toBe('invalid_request');
          expect(error.details.length).toBeGreaterThan(0);
          expect(error.details.length).toBeLessThanOrEqual(MAX_ERROR_DETAILS);
        });
      }
    }
  }
});

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnalysisPool } from '../../../src/analysis/worker-pool.js';
import { AppError } from '../../../src/core/errors.js';
import { makeHarness, type Harness } from '../../helpers/server-harness.js';

/**
 * A description that is only a link (docs/portals.md "Links without a scheme") is recognised before
 * any analysis thread runs: a portal's listing is fetched like a `url` (here the portals' servers are
 * a stub that answers 502, as an unreachable portal would), anything else gets a clear 4xx. No
 * link-like description ends in a 5xx of ours. fast-check prints the seed and the counterexample.
 */

const HOSTS = ['avito.ma', 'mubawab.ma', 'sarouty.ma', 'yakeey.com', 'example.com', 'avito.ma.evil.test', 'm.avito.ma'];
const PATHS = [
  '/fr/casablanca/appartements/appartement_a_vendre_55393976.htm',
  '/fr/a/8418668/appartement-a-vendre-maarif',
  '/fr/a/',
  '/fr/sc/appartements-a-vendre',
  '/',
  '',
  '/ar/الدار_البيضاء/شقق/x_55393976.htm',
  '/fr/maroc/appartements-a-vendre?page=2#top',
];

const linkArb = fc
  .record({
    scheme: fc.constantFrom('', 'https://', 'http://', 'HTTPS://', 'ftp://'),
    www: fc.boolean(),
    host: fc.constantFrom(...HOSTS),
    path: fc.constantFrom(...PATHS),
    tail: fc.string({ maxLength: 12 }),
    pad: fc.constantFrom('', ' ', '\n', '  \t'),
  })
  .map(({ scheme, www, host, path, tail, pad }) => `${pad}${scheme}${www ? 'www.' : ''}${host}${path}${tail}${pad}`);

let harness: Harness;
let pool: AnalysisPool;
const fetched: string[] = [];

beforeAll(async () => {
  pool = new AnalysisPool({ threads: 1 });
  harness = await makeHarness({
    runWorkers: false,
    analyze: (checked, signal) =>
      pool.analyzeChecked(checked, {
        signal,
        fetchPage: (url) => {
          fetched.push(url);
          return Promise.reject(new AppError('UPSTREAM_ERROR', `The portal could not be reached (${url}).`, { reason: 'stub' }));
        },
      }),
  });
}, 60_000);

afterAll(async () => {
  await harness?.close();
  await pool?.close();
});

describe('a description that is only a link (property-based)', () => {
  it('is fetched like a url, or refused with a 4xx, on /analyze: never a 500', async () => {
    const { auth } = harness.key();
    await fc.assert(
      fc.asyncProperty(linkArb, async (description) => {
        const response = await harness.app.inject({ method: 'POST', url: '/api/v1/analyze', headers: auth, payload: { description } });
        expect(
          response.statusCode === 502 || (response.statusCode >= 200 && response.statusCode < 500),
          `${response.statusCode} ${response.body}`,
        ).toBe(true);
      }),
      { numRuns: 60 },
    );
  }, 120_000);

  it('fetches a portal listing given as a bare description (no scheme, www. or not), through the server', async () => {
    const { auth } = harness.key();
    fetched.length = 0;
    const status = async (description: string): Promise<number> =>
      (await harness.app.inject({ method: 'POST', url: '/api/v1/analyze', headers: auth, payload: { description } })).statusCode;
    expect(await status('www.avito.ma/fr/casablanca/appartements/appartement_a_vendre_55393976.htm')).toBe(502);
    expect(fetched).toEqual(['www.avito.ma/fr/casablanca/appartements/appartement_a_vendre_55393976.htm']);
    expect(await status('mubawab.ma/fr/a/8418668/appartement-a-vendre-maarif')).toBe(502);
  });

  it('queues or refuses a render of a link-only description with a 4xx: never a 5xx', async () => {
    const { auth } = harness.key();
    await fc.assert(
      fc.asyncProperty(linkArb, async (description) => {
        const response = await harness.app.inject({
          method: 'POST',
          url: '/api/v1/render-video',
          headers: auth,
          payload: { description, photos: ['https://photos.example.com/1.jpg'] },
        });
        expect(response.statusCode < 500, `${response.statusCode} ${response.body}`).toBe(true);
      }),
      { numRuns: 30 },
    );
  }, 120_000);
});

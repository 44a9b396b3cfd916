import { MockAgent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { analyzeListing } from '../../../../src/analysis/analyze.js';
import { fetchListingPage, parseListingPage } from '../../../../src/analysis/portals/index.js';
import { AppError } from '../../../../src/core/errors.js';
import { expectNothingPrivate, fixture } from '../../../helpers/portal-fixtures.js';

// The portals' servers are mocked with undici's MockAgent: no test touches the internet.

const AVITO_URL = 'https://www.avito.ma/fr/maarif/appartements/Appartement_3_chambres_à_vendre_à_Maarif_51234567.htm';
const MUBAWAB_URL = 'https://www.mubawab.ma/fr/a/7654321/villa-avec-piscine-à-vendre-à-hivernage';
const SAROUTY_URL = 'https://www.sarouty.ma/fr/acheter/casablanca/appartement-vue-mer-903380/';
const HTML = { headers: { 'content-type': 'text/html; charset=utf-8' } };

let agent: MockAgent;
let previous: Dispatcher;

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  previous = getGlobalDispatcher();
});
afterEach(async () => {
  setGlobalDispatcher(previous);
  await agent.close();
});

const endsWith = (suffix: string) => (path: string) => path.endsWith(suffix);
/** Direct calls: the mock agent, no pacing, short backoffs. */
const fast = () => ({ http: { dispatcher: agent, paceMs: 0, retryBaseMs: 1 } });

async function failure(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('analyze --url (in process, portal mocked)', () => {
  it('fetches the page with browser headers and analyzes it', async () => {
    setGlobalDispatcher(agent);
    agent
      .get('https://www.avito.ma')
      .intercept({ path: endsWith('_51234567.htm'), method: 'GET', headers: { 'user-agent': /Mozilla\/5\.0/, 'accept-language': /fr-MA/ } })
      .reply(200, fixture('avito-next-data.html'), HTML);
    const property = await analyzeListing({ url: AVITO_URL });
    expect(property).toMatchObject({
      title: 'Appartement 3 chambres à vendre à Maarif',
      city: 'Casablanca',
      district: 'Maârif',
      price_mad: 1_350_000,
      currency: 'MAD',
      bedrooms: 3,
      surface_m2: 98,
      source: { kind: 'url', portal: 'avito', listing_id: '51234567' },
    });
    expect(property.photos).toHaveLength(4);
    expectNothingPrivate(property, ['0661234567', 'Agence Atlas Immo']);
  });

  it('merges a description given with the URL: page numbers win, the text adds features, contradictions are warned', async () => {
    setGlobalDispatcher(agent);
    agent
      .get('https://www.mubawab.ma')
      .intercept({ path: endsWith('hivernage'), method: 'GET' })
      .reply(200, fixture('mubawab-jsonld-fr.html'), HTML);
    const property = await analyzeListing({ url: MUBAWAB_URL, description: 'Villa de 5 chambres avec cheminée et double vitrage.' });
    expect(property.bedrooms).toBe(4);
    expect(property.feature_keys).toEqual(expect.arrayContaining(['pool', 'garden', 'fireplace', 'double_glazing']));
    expect(property.warnings).toContainEqual(
      // The request's language (French by default): "Chambres : les champs … disent 4 mais la description dit 5".
      expect.objectContaining({
        code: 'CONTRADICTION',
        field: 'bedrooms',
        message: expect.stringMatching(/^Chambres : .* disent 4 .* dit 5/),
      }),
    );
  });

  it('reads a description that is only a portal address without https:// as that link, and warns that the scheme was added', async () => {
    setGlobalDispatcher(agent);
    agent
      .get('https://www.avito.ma')
      .intercept({ path: endsWith('_51234567.htm'), method: 'GET' })
      .reply(200, fixture('avito-next-data.html'), HTML);
    const bare = AVITO_URL.replace(/^https:\/\//, '');
    const property = await analyzeListing({ description: ` ${bare}\n`, language: 'en' });
    expect(property).toMatchObject({ title: 'Appartement 3 chambres à vendre à Maarif', source: { kind: 'url', listing_id: '51234567' } });
    expect(property.warnings[0]).toEqual({
      code: 'URL_SCHEME_ADDED',
      message: `${bare} was read as the link ${AVITO_URL}: https:// was added. Paste links with their https:// to be sure they are read as links.`,
    });
  });

  it('warns the same way for a url field given without its scheme', async () => {
    setGlobalDispatcher(agent);
    agent
      .get('https://www.avito.ma')
      .intercept({ path: endsWith('_51234567.htm'), method: 'GET' })
      .reply(200, fixture('avito-next-data.html'), HTML);
    const property = await analyzeListing({ url: AVITO_URL.replace(/^https:\/\//, '') });
    expect(property.warnings.map((w) => w.code)).toContain('URL_SCHEME_ADDED');
    // In the request's language (French by default).
    expect(property.warnings.find((w) => w.code === 'URL_SCHEME_ADDED')?.message).toMatch(/a été lu comme le lien/);
  });

  it('refuses a search URL before fetching anything', async () => {
    setGlobalDispatcher(agent);
    const error = await failure(analyzeListing({ url: 'https://www.mubawab.ma/fr/sc/appartements-a-vendre:p:2' }));
    expect(error).toMatchObject({ code: 'BAD_REQUEST', reason: 'unsupported_url', exitCode: 2 });
    agent.assertNoPendingInterceptors();
  });
});

describe('fetchListingPage: portal failures say what happened', () => {
  it.each([404, 410])('HTTP %s: the listing was removed (UPSTREAM_ERROR, exit 6)', async (status) => {
    agent
      .get('https://www.avito.ma')
      .intercept({ path: endsWith('.htm') })
      .reply(status, 'gone');
    const error = await failure(fetchListingPage(AVITO_URL, fast()));
    expect(error).toMatchObject({ code: 'UPSTREAM_ERROR', reason: 'listing_removed', exitCode: 6, httpStatus: 502 });
    expect(error.message).toMatch(new RegExp(`This Avito listing was removed: Avito answers HTTP ${status}`));
  });

  it('a listing redirected to the similar-ads page was removed', async () => {
    const pool = agent.get('https://www.mubawab.ma');
    pool.intercept({ path: endsWith('hivernage') }).reply(301, '', { headers: { location: '/fr/sd/villas-similaires-marrakech' } });
    pool.intercept({ path: '/fr/sd/villas-similaires-marrakech' }).reply(200, '<html><body>Annonces similaires</body></html>', HTML);
    const error = await failure(fetchListingPage(MUBAWAB_URL, fast()));
    expect(error.reason).toBe('listing_removed');
    expect(error.message).toMatch(/Mubawab now redirects it to a page of similar listings/);
  });

  it('HTTP 403: blocked, with the way out (save the page, --html-file)', async () => {
    agent
      .get('https://www.avito.ma')
      .intercept({ path: endsWith('.htm') })
      .reply(403, 'denied');
    const error = await failure(fetchListingPage(AVITO_URL, fast()));
    expect(error).toMatchObject({ code: 'UPSTREAM_ERROR', reason: 'blocked' });
    expect(error.message).toMatch(/Avito refused to serve .* \(HTTP 403\).*--html-file/);
  });

  it('HTTP 503 is retried, and reported when it persists', async () => {
    const pool = agent.get('https://www.avito.ma');
    pool
      .intercept({ path: endsWith('.htm') })
      .reply(503, 'busy')
      .times(3);
    const error = await failure(fetchListingPage(AVITO_URL, fast()));
    expect(error).toMatchObject({ code: 'UPSTREAM_ERROR', reason: 'upstream_status' });
    expect(error.message).toMatch(/Avito is failing \(HTTP 503, after retries\)/);
    agent.assertNoPendingInterceptors();
  });

  it('a transient 503 then the page: the retry succeeds', async () => {
    const pool = agent.get('https://www.avito.ma');
    pool.intercept({ path: endsWith('.htm') }).reply(503, 'busy');
    pool.intercept({ path: endsWith('.htm') }).reply(200, fixture('avito-next-data.html'), HTML);
    const html = await fetchListingPage(AVITO_URL, fast());
    expect(parseListingPage(html, AVITO_URL).facts.price_mad).toBe(1_350_000);
  });

  it('HTTP 429 with a long Retry-After: rate limited, with the wait', async () => {
    agent
      .get('https://www.avito.ma')
      .intercept({ path: endsWith('.htm') })
      .reply(429, 'slow down', { headers: { 'retry-after': '120' } });
    const error = await failure(fetchListingPage(AVITO_URL, fast()));
    expect(error).toMatchObject({ code: 'UPSTREAM_ERROR', reason: 'rate_limited', retryAfterS: 120 });
    expect(error.message).toMatch(/limiting requests \(HTTP 429\); it asks to wait 120 s/);
  });

  it('a network failure is retried, then reported', async () => {
    agent
      .get('https://www.avito.ma')
      .intercept({ path: endsWith('.htm') })
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))
      .times(3);
    const error = await failure(fetchListingPage(AVITO_URL, fast()));
    expect(error).toMatchObject({ code: 'UPSTREAM_ERROR', reason: 'network_error' });
    expect(error.message).toMatch(/Could not reach www\.avito\.ma: the connection was closed unexpectedly \(3 attempts\)/);
  });

  it('a portal that does not answer in time is a timeout', async () => {
    agent
      .get('https://www.avito.ma')
      .intercept({ path: endsWith('.htm') })
      .reply(200, 'late')
      .delay(400);
    const error = await failure(fetchListingPage(AVITO_URL, { http: { dispatcher: agent, paceMs: 0, retries: 0, totalTimeoutMs: 100 } }));
    expect(error).toMatchObject({ code: 'UPSTREAM_ERROR', reason: 'timeout' });
    expect(error.message).toMatch(/Could not reach www\.avito\.ma: the response took longer than 0\.1 s/);
  });
});

describe('fetchListingPage: Sarouty through its public API', () => {
  it('reads the listing from the API, asking for JSON', async () => {
    agent
      .get('https://b2c-be-prod.api.sarouty.ma')
      .intercept({ path: '/api/properties/903380', headers: { accept: /application\/json/ } })
      .reply(200, fixture('sarouty-api-property.json'), { headers: { 'content-type': 'application/json' } });
    const text = await fetchListingPage(SAROUTY_URL, fast());
    const { facts, source } = parseListingPage(text, SAROUTY_URL);
    expect(source).toMatchObject({ portal: 'sarouty', listing_id: '903380' });
    expect(facts).toMatchObject({ price_mad: 3_200_000, city: 'Casablanca', district: 'Ain Diab', bedrooms: 3 });
  });

  it('falls back on the page when the API fails, and recognises the "not available" page', async () => {
    agent.get('https://b2c-be-prod.api.sarouty.ma').intercept({ path: '/api/properties/903380' }).reply(500, 'oops').times(3);
    agent
      .get('https://www.sarouty.ma')
      .intercept({ path: '/fr/acheter/casablanca/appartement-vue-mer-903380/' })
      .reply(200, fixture('sarouty-removed.html'), HTML);
    const error = await failure(fetchListingPage(SAROUTY_URL, fast()));
    expect(error.reason).toBe('listing_removed');
    expect(error.message).toMatch(/Sarouty shows its "not available" page/);
  });

  it('an API 404 and a page 404 say the listing was removed', async () => {
    agent.get('https://b2c-be-prod.api.sarouty.ma').intercept({ path: '/api/properties/903380' }).reply(404, '{"status":"error"}');
    agent
      .get('https://www.sarouty.ma')
      .intercept({ path: endsWith('903380/') })
      .reply(404, 'not found');
    expect((await failure(fetchListingPage(SAROUTY_URL, fast()))).reason).toBe('listing_removed');
  });
});

describe('fetchListingPage: an API answer without the property', () => {
  it('tries the listing page next', async () => {
    agent
      .get('https://b2c-be-prod.api.sarouty.ma')
      .intercept({ path: '/api/properties/903380' })
      .reply(200, '{"status":"error","message":"Property not found"}');
    agent
      .get('https://www.sarouty.ma')
      .intercept({ path: endsWith('903380/') })
      .reply(404, 'not found');
    const error = await failure(fetchListingPage(SAROUTY_URL, fast()));
    expect(error.reason).toBe('listing_removed');
    agent.assertNoPendingInterceptors();
  });
});

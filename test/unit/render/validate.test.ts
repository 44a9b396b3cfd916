import { describe, expect, it } from 'vitest';
import { isAppError, type AppError } from '../../../src/core/errors.js';
import type { RenderRequest } from '../../../src/core/requests.js';
import { validateRenderRequest } from '../../../src/render/render-rules.js';
import { demoProperty } from '../../helpers/plan-fixtures.js';

function refusal(request: unknown, mode: 'local' | 'server' = 'local'): AppError {
  try {
    validateRenderRequest(request as RenderRequest, mode);
  } catch (error) {
    if (isAppError(error)) return error;
    throw error;
  }
  throw new Error('expected a BAD_REQUEST');
}

const fields = (error: AppError): string[] => error.details.map((d) => d.field);

describe('validateRenderRequest', () => {
  it('refuses up front a render that cannot have photos', () => {
    expect(refusal({ description: 'Villa 300 m² à Marrakech, 4 500 000 DH' }).details).toEqual([
      { field: 'photos', message: expect.stringMatching(/a description has none/) },
    ]);
    const contract = { city: null, district: null, currency: 'MAD', price_mad: null, features: [], marketing_angles: [] };
    expect(fields(refusal({ listing: { ...contract, title: 'Villa', photos: [] } }))).toEqual(['photos']);
  });

  it('accepts a description that is only a portal address: the page has the photos', () => {
    const valid = validateRenderRequest({ description: 'www.avito.ma/fr/casablanca/appartements/Appartement_55393976.htm' }, 'local');
    expect(valid.photos).toEqual([]);
    expect(valid.input.description).toBe('www.avito.ma/fr/casablanca/appartements/Appartement_55393976.htm');
  });

  it('takes photos with their subject ({ url, focus }) beside plain ones, and refuses a focus outside the photo', () => {
    const valid = validateRenderRequest(
      {
        description: 'Appartement 120 m² à Maarif, 1 850 000 DH',
        photos: ['https://cdn.example.com/a.jpg', { url: 'https://cdn.example.com/b.jpg', focus: { x: 0.15, y: 0.5 } }],
      },
      'server',
    );
    expect(valid.photos).toEqual(['https://cdn.example.com/a.jpg', 'https://cdn.example.com/b.jpg']);
    expect(valid.photo_focus).toEqual([null, { x: 0.15, y: 0.5 }]);
    expect(validateRenderRequest({ description: 'Villa', photos: ['https://cdn.example.com/a.jpg'] }, 'server')).not.toHaveProperty(
      'photo_focus',
    );
    const error = refusal(
      { description: 'Villa', photos: [{ url: 'https://cdn.example.com/a.jpg', focus: { x: 1.5, y: 0.5 } }] },
      'server',
    );
    expect(fields(error).every((field) => field.startsWith('photos[0]'))).toBe(true);
  });

  it('fills the defaults of a minimal request', () => {
    const valid = validateRenderRequest(
      { description: 'Appartement 120 m² à Maarif, 1 850 000 DH', photos: ['https://cdn.example.com/a.jpg'] },
      'local',
    );
    expect(valid).toMatchObject({
      template: 'classic',
      format: 'landscape',
      duration_s: null,
      language: 'fr',
      music: 'auto',
      photos: ['https://cdn.example.com/a.jpg'],
      listing: null,
      webhook_url: null,
      metadata: null,
    });
    expect(valid.input).toEqual({ description: 'Appartement 120 m² à Maarif, 1 850 000 DH', language: 'fr', target_audience: 'auto' });
  });

  it('reports every bad field at once, each by name', () => {
    const error = refusal({
      description: 'Villa',
      template: 'fancy',
      format: 'vertical',
      duration_s: 5,
      language: 'de',
      target_audience: 'aliens',
      music: 'jazz',
      photos: ['ftp://example.com/a.jpg', 42],
      branding: { primary_color: 'red', email: 'not-an-email', phone: 'call me', unbranded: 'yes', logo_url: 'ftp://x', slogan: 'hi' },
      webhook_url: 'javascript:alert(1)',
      metadata: { blob: 'x'.repeat(5000) },
      colour: 'blue',
    });
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.exitCode).toBe(2);
    expect(fields(error).sort()).toEqual(
      [
        'colour',
        'language',
        'target_audience',
        'photos[0]',
        'photos[1]',
        'template',
        'format',
        'duration_s',
        'music',
        'branding.slogan',
        'branding.phone',
        'branding.email',
        'branding.logo_url',
        'branding.primary_color',
        'branding.unbranded',
        'webhook_url',
        'metadata',
      ].sort(),
    );
    expect(error.message).toMatch(/duration_s must be a number of seconds from 10 to 90/);
    expect(error.message).toMatch(/template must be one of classic, luxury, social/);
  });

  it('needs exactly one kind of listing input: a listing object alone, or url/html/description', () => {
    expect(fields(refusal({ template: 'classic' }))).toEqual(['url']);
    expect(fields(refusal({ listing: demoProperty(), description: 'Villa à Marrakech' }))).toEqual(['listing']);
    const combined = validateRenderRequest(
      { url: 'https://www.mubawab.ma/fr/a/8418668/appartement-a-vendre', description: 'Terrasse 15 m²' },
      'local',
    );
    expect(combined.input.url).toContain('mubawab.ma');
    expect(combined.input.description).toBe('Terrasse 15 m²');
    expect(fields(refusal({ url: 'https://www.example.com/villa' }))).toEqual(['url']);
  });

  it('checks a listing object field by field and keeps what it needs', () => {
    const valid = validateRenderRequest(
      {
        listing: {
          title: 'Villa',
          city: 'Marrakech',
          district: null,
          currency: 'MAD',
          price_mad: 4_500_000,
          features: ['Piscine'],
          marketing_angles: [],
          photos: ['https://cdn.example.com/villa.jpg'],
        },
      } as unknown as RenderRequest,
      'local',
    );
    expect(valid.listing).toMatchObject({
      title: 'Villa',
      city: 'Marrakech',
      price_mad: 4_500_000,
      surface_m2: null,
      feature_keys: [],
      currency: 'MAD',
    });
    const contract = { city: null, district: null, currency: 'MAD', features: [], marketing_angles: [] };
    const error = refusal({ listing: { ...contract, title: 3, price_mad: -1, feature_keys: ['jacuzzi'], transaction: 'swap' } });
    expect(fields(error).sort()).toEqual(['listing.feature_keys[0]', 'listing.price_mad', 'listing.title', 'listing.transaction']);
    // The listing is an analysis `Property`: its contract fields are required.
    expect(fields(refusal({ listing: { title: 'Villa' }, photos: ['https://cdn.example.com/villa.jpg'] })).sort()).toEqual([
      'listing.city',
      'listing.currency',
      'listing.district',
      'listing.features',
      'listing.marketing_angles',
      'listing.price_mad',
    ]);
  });

  it('checks a listing against the Property schema, each problem naming its path', () => {
    const contract = { title: 'Villa', city: null, district: null, currency: 'MAD', price_mad: null, features: [], marketing_angles: [] };
    const error = refusal({
      listing: {
        ...contract,
        surface_m2: 'big',
        rooms: 2.5,
        floor: -11,
        market: { median_price_per_m2_mad: 'high' },
        target_buyer: { primary: 'aliens' },
      },
      photos: ['https://cdn.example.com/villa.jpg'],
    });
    expect(error.details).toEqual([
      { field: 'listing.surface_m2', message: 'must be a number or null' },
      { field: 'listing.rooms', message: 'must be a whole number or null' },
      { field: 'listing.floor', message: 'must be ≥ -10' },
      { field: 'listing.market.median_price_per_m2_mad', message: 'must be a number' },
      { field: 'listing.target_buyer.primary', message: expect.stringMatching(/^must be one of family, /) },
    ]);
    expect(error.message).toMatch(/^Invalid render request: listing\.surface_m2 must be a number or null; /);
    // A listing refused for its form was still given: no "url is missing" beside it.
    expect(refusal({ listing: 'villa' }).details).toEqual([{ field: 'listing', message: 'must be an object' }]);
  });

  it('holds a listing sent in to the sizes it is drawn at', () => {
    const contract = { city: null, district: null, currency: 'MAD', price_mad: null, marketing_angles: ['x'.repeat(401)] };
    const error = refusal({
      listing: { ...contract, title: 'T'.repeat(201), features: Array.from({ length: 61 }, () => 'Piscine'), photos: ['ftp://cdn/a.jpg'] },
    });
    expect(error.details).toEqual([
      { field: 'listing.title', message: 'is longer than 200 characters' },
      { field: 'listing.features', message: 'has more than 60 entries' },
      { field: 'listing.marketing_angles[0]', message: 'is longer than 400 characters' },
      { field: 'listing.photos', message: 'has "ftp://cdn/a.jpg", which is not an http(s) URL' },
    ]);
  });

  it('keeps the parts of a listing the renderer reads only when they carry their key field', () => {
    const listing = {
      title: '  Villa   avec piscine ',
      city: ' Marrakech ',
      district: '',
      currency: 'MAD',
      price_mad: 4_500_000,
      features: ['Piscine'],
      marketing_angles: [],
      photos: ['https://cdn.example.com/villa.jpg'],
      market: { area: 'Marrakech' },
      target_buyer: { segments: [] },
      language: 'en',
    };
    const valid = validateRenderRequest({ listing } as unknown as RenderRequest, 'server');
    expect(valid.listing).toMatchObject({
      title: 'Villa avec piscine',
      city: 'Marrakech',
      district: null,
      market: null,
      target_buyer: { primary: 'family' },
      source: { kind: 'text' },
      language: 'en',
    });
  });

  it('refuses a blank description, and names an empty request by its first input', () => {
    expect(refusal({ description: '   ', photos: ['https://cdn.example.com/a.jpg'] }).details).toEqual([
      { field: 'description', message: 'is empty: paste the listing text (title and description)' },
    ]);
    expect(refusal({}).details).toEqual([
      { field: 'url', message: expect.stringMatching(/^is missing: give a listing url, .* or listing \(an analysis property\)$/) },
    ]);
    // A description refused for its type was given: the schema's problem alone.
    expect(refusal({ description: 42 }).details).toEqual([{ field: 'description', message: 'must be a string' }]);
  });

  it('lets local mode use file paths, made absolute, and refuses them on the server', () => {
    const local = validateRenderRequest(
      {
        description: 'Villa à Marrakech',
        photos: ['photos/a.jpg', 'https://cdn.example.com/b.jpg', 'asset:ast_01'],
        music: 'song.mp3',
        branding: { logo_url: 'logo.png' },
      },
      'local',
    );
    expect(local.photos[0]).toBe(`${process.cwd()}/photos/a.jpg`);
    expect(local.photos.slice(1)).toEqual(['https://cdn.example.com/b.jpg', 'asset:ast_01']);
    expect(local.music).toBe(`${process.cwd()}/song.mp3`);
    expect(local.branding.logo_url).toBe(`${process.cwd()}/logo.png`);
    const server = refusal(
      { description: 'Villa à Marrakech', photos: ['/etc/passwd'], music: '/tmp/song.mp3', branding: { logo_url: 'logo.png' } },
      'server',
    );
    expect(fields(server).sort()).toEqual(['branding.logo_url', 'music', 'photos[0]']);
  });

  it('accepts bundled music names, branding in range, and metadata up to 4 KB', () => {
    const valid = validateRenderRequest(
      {
        description: 'Villa à Marrakech',
        photos: ['https://cdn.example.com/villa.jpg'],
        music: 'marble-hall',
        branding: {
          agency_name: '  Atlas   Immobilier ',
          phone: '+212 6 00 00 00 00',
          email: 'salma@atlas.example',
          primary_color: '#1f6fb2',
          unbranded: false,
        },
        metadata: { crm_id: 'A-42', tags: ['villa'] },
        webhook_url: 'https://crm.example.com/hooks/immoreel',
        duration_s: 45,
      },
      'server',
    );
    expect(valid.music).toBe('marble-hall');
    expect(valid.branding).toEqual({
      agency_name: 'Atlas Immobilier',
      phone: '+212 6 00 00 00 00',
      email: 'salma@atlas.example',
      primary_color: '#1F6FB2',
      unbranded: false,
    });
    expect(valid.metadata).toEqual({ crm_id: 'A-42', tags: ['villa'] });
    expect(valid.duration_s).toBe(45);
  });
});

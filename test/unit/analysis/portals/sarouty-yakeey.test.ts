import { describe, expect, it } from 'vitest';
import { isAppError } from '../../../../src/core/errors.js';
import { parseListingPage } from '../../../../src/analysis/portals/index.js';
import { expectNothingPrivate, fixture } from '../../../helpers/portal-fixtures.js';

describe('Sarouty API JSON', () => {
  const url = 'https://www.sarouty.ma/fr/acheter/casablanca/appartement-vue-mer-903380/';
  const { facts, source } = parseListingPage(fixture('sarouty-api-property.json'), url);

  it('reads the property object of the detail response', () => {
    expect(source).toMatchObject({ portal: 'sarouty', listing_id: '903380', url });
    expect(facts.title).toBe('Appartement vue mer à vendre à Ain Diab');
    expect(facts.transaction).toBe('sale');
    expect(facts.property_type).toBe('apartment');
    expect(facts.price_mad).toBe(3_200_000);
    expect(facts.surface_m2).toBe(145);
    expect(facts.bedrooms).toBe(3);
    expect(facts.bathrooms).toBe(2);
    expect(facts.floor).toBe(6);
  });

  it('names the city from its slug and the location as district', () => {
    expect(facts.city).toBe('Casablanca');
    expect(facts.district).toBe('Ain Diab');
  });

  it('turns the HTML description into text and scrubs the agent', () => {
    expect(facts.description).toContain('Bel appartement de 145 m² au 6e étage avec vue sur mer.\n3 chambres');
    expectNothingPrivate({ facts, source }, ['0612345678', '+212522987654', '212612345678', 'Karim Tazi', 'Corniche Realty']);
  });

  it('lists the photos once each', () => {
    expect(facts.photos).toEqual([1, 2].map((n) => `https://media.sarouty.ma/properties/903380/photo-${n}.jpg`));
  });

  it('reads a list-shaped rental response (data nested twice, monthly price)', () => {
    const rent = parseListingPage(fixture('sarouty-api-rent.json'), 'https://www.sarouty.ma/en/rent/rabat/villa-for-rent-831965/').facts;
    expect(rent).toMatchObject({
      transaction: 'rent',
      property_type: 'villa',
      price_mad: 35_000,
      bedrooms: 5,
      city: 'Rabat',
      district: 'Souissi',
    });
    expect(rent.feature_keys).toEqual(['furnished']);
  });

  it('turns a yearly rent into a monthly one, and says so', () => {
    const yearly = fixture('sarouty-api-rent.json').replace(
      '"price": 35000, "price_type": "monthly"',
      '"price": 420000, "price_type": "yearly"',
    );
    const rent = parseListingPage(yearly, 'https://www.sarouty.ma/property-details/?listing_id=831965').facts;
    expect(rent.price_mad).toBe(35_000);
    expect(rent.warnings.map((w) => w.code)).toContain('RENT_PERIOD_CONVERTED');
  });

  it('says a saved "not available" page is a removed listing', () => {
    let error: unknown;
    try {
      parseListingPage(fixture('sarouty-removed.html'), null);
    } catch (caught) {
      error = caught;
    }
    expect(isAppError(error) && error.reason).toBe('listing_removed');
    expect(isAppError(error) && error.message).toMatch(/no longer available/);
  });
});

describe('Yakeey page data (Next.js flight payload)', () => {
  const { facts, source } = parseListingPage(fixture('yakeey-page.html'), null);

  it('finds the listing from the canonical link', () => {
    expect(source).toMatchObject({ portal: 'yakeey', listing_id: 'RA004321' });
    expect(source.url).toContain('RA004321');
  });

  it('reads the property object split across chunks, with its references resolved', () => {
    expect(facts.transaction).toBe('sale');
    expect(facts.property_type).toBe('villa');
    expect(facts.bedrooms).toBe(4);
    expect(facts.bathrooms).toBe(3);
    expect(facts.city).toBe('Rabat');
    expect(facts.district).toBe('Souissi');
    expect(facts.description).toContain('Résidence fermée avec gardiennage.');
  });

  it('takes the price, not the fees or the estimated total listed after it', () => {
    expect(facts.price_mad).toBe(6_500_000);
  });

  it('tells living from total surface', () => {
    expect(facts.surface_m2).toBe(320);
    expect(facts.surface_total_m2).toBe(400);
  });

  it('maps the amenity flags and the gated residence', () => {
    expect(facts.feature_keys).toEqual([
      'terrace',
      'garden',
      'pool',
      'parking',
      'garage',
      'security',
      'air_conditioning',
      'fireplace',
      'equipped_kitchen',
      'gated_community',
    ]);
  });

  it('puts the main photo first, then gallery order', () => {
    expect(facts.photos).toEqual([333, 222, 111, 444].map((n) => `https://media.yakeey.com/ra004321/image_${n}.jpg`));
  });

  it('never lets the agent out', () => {
    expectNothingPrivate({ facts, source }, ['Salma Kettani', '212661234567', 'salma.kettani@example.ma']);
  });

  it('falls back on the rendered page when the flight payload is missing', () => {
    const html = fixture('yakeey-page.html').replace(/<script>self\.__next_f\.push\(\[1[\s\S]*?<\/script>/g, '');
    const fallback = parseListingPage(html, null).facts;
    expect(fallback).toMatchObject({
      price_mad: 6_500_000,
      bedrooms: 4,
      bathrooms: 3,
      surface_m2: 320,
      surface_total_m2: 400,
      transaction: 'sale',
      property_type: 'villa',
    });
  });
});

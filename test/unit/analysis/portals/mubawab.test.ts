import { describe, expect, it } from 'vitest';
import { isAppError } from '../../../../src/core/errors.js';
import { parseListingPage } from '../../../../src/analysis/portals/index.js';
import { DEFAULT_EUR_TO_MAD } from '../../../../src/analysis/portals/values.js';
import { expectNothingPrivate, fixture } from '../../../helpers/portal-fixtures.js';
import { loadConfig } from '../../../../src/config/index.js';

const withoutJsonLd = (html: string): string => html.replace(/<script type="application\/ld\+json">[\s\S]*?<\/script>/, '');

describe('Mubawab JSON-LD page (FR)', () => {
  const { facts, source } = parseListingPage(fixture('mubawab-jsonld-fr.html'), null);

  it('reads the JSON-LD: title, price, pièces vs chambres, bathrooms, surface, city', () => {
    expect(source).toMatchObject({ portal: 'mubawab', listing_id: '7654321' });
    expect(facts.title).toBe('Villa avec piscine à vendre à Hivernage');
    expect(facts.price_mad).toBe(4_500_000);
    expect(facts.rooms).toBe(7);
    expect(facts.bedrooms).toBe(4);
    expect(facts.bathrooms).toBe(3);
    expect(facts.surface_m2).toBe(320);
    expect(facts.city).toBe('Marrakech');
  });

  it('takes the property type from "Type de bien", not from the JSON-LD @type (always Apartment)', () => {
    expect(facts.property_type).toBe('villa');
  });

  it('reads what the JSON-LD lacks from the DOM: district, sale, plot surface, amenities', () => {
    expect(facts.district).toBe('Hivernage');
    expect(facts.transaction).toBe('sale');
    expect(facts.surface_total_m2).toBe(800);
    // "Gardiennage 24h/24" is an unknown label: its doorman icon says concierge. The satellite dish has no key.
    expect(facts.feature_keys).toEqual(['pool', 'garden', 'garage', 'mountain_view', 'concierge']);
  });

  it('lists the photos in order, each once', () => {
    expect(facts.photos).toEqual([1, 2, 3].map((n) => `https://www.mubawab-media.com/ad/7/654/321F/h/villa_${n}.avif`));
  });

  it('scrubs the agency name and phone from the description', () => {
    expectNothingPrivate({ facts, source }, ['Marrakech Prestige Immobilier', '+212 6 12 34 56 78', '+212612345678']);
    expect(facts.description).toContain('villa de 320 m²');
  });
});

describe('Mubawab EUR listing with a "decreased by" amount (EN)', () => {
  it('converts EUR into price_mad and keeps the original', () => {
    const { facts } = parseListingPage(fixture('mubawab-eur-decreased.html'), null);
    expect(facts.price_original).toEqual({ amount: 85_000, currency: 'EUR' });
    expect(facts.price_mad).toBe(Math.round(85_000 * DEFAULT_EUR_TO_MAD));
  });

  it('uses the configured EUR rate', () => {
    const { eurToMad } = loadConfig({ env: { IMMOREEL_EUR_TO_MAD: '11' } });
    expect(parseListingPage(fixture('mubawab-eur-decreased.html'), null, { eurToMad }).facts.price_mad).toBe(935_000);
  });

  it('reads the English vocabulary: Pieces = rooms, Rooms = bedrooms', () => {
    const { facts } = parseListingPage(fixture('mubawab-eur-decreased.html'), null);
    expect(facts.rooms).toBe(3);
    expect(facts.bedrooms).toBe(2);
    expect(facts.bathrooms).toBe(1);
    expect(facts.floor).toBe(5);
    expect(facts.city).toBe('Tanger');
    expect(facts.district).toBe('Malabata');
    expect(facts.feature_keys).toEqual(['sea_view', 'elevator', 'terrace', 'security']);
  });

  it('without JSON-LD, reads the DOM price and never merges the nested decrease into it', () => {
    const { facts } = parseListingPage(
      withoutJsonLd(fixture('mubawab-eur-decreased.html')),
      'https://www.mubawab.ma/en/a/7012345/apartment-for-sale-malabata',
    );
    expect(facts.price_original).toEqual({ amount: 85_000, currency: 'EUR' });
    expect(facts.price_mad).toBe(Math.round(85_000 * DEFAULT_EUR_TO_MAD));
    // The icon blocks give the same figures as the JSON-LD did.
    expect([facts.surface_m2, facts.rooms, facts.bedrooms, facts.bathrooms]).toEqual([78, 3, 2, 1]);
    expect(facts.title).toBe('Apartment for sale Malabata');
    expect(facts.city).toBe('Tanger');
  });
});

describe('Mubawab rental without price, DOM only (FR)', () => {
  const { facts, source } = parseListingPage(fixture('mubawab-rent-no-price.html'), null);

  it('reads "Prix à consulter" as no price and the rental from the title', () => {
    expect(facts.price_mad).toBeNull();
    expect(facts.price_original).toBeNull();
    expect(facts.transaction).toBe('rent');
  });

  it('reads the icon blocks, with a surface split over lines', () => {
    expect(facts.surface_m2).toBe(85);
    expect(facts.rooms).toBe(3);
    expect(facts.bedrooms).toBe(2);
    expect(facts.bathrooms).toBe(1);
    expect(facts.floor).toBe(2);
    expect(facts.property_type).toBe('apartment');
  });

  it('reads "<district> à <city>" and the slider photos (full size, in order)', () => {
    expect(facts.city).toBe('Casablanca');
    expect(facts.district).toBe('Les Princesses');
    expect(facts.photos).toEqual(
      ['salon_1', 'chambre_2', 'cuisine_3'].map((n) => `https://www.mubawab-media.com/ad/8/057/263F/h/${n}.avif`),
    );
    expect(facts.feature_keys).toEqual(['furnished', 'elevator', 'air_conditioning', 'equipped_kitchen']);
    expect(source.listing_id).toBe('8057263');
  });
});

describe('Mubawab search page', () => {
  function refusal(html: string, url: string | null): unknown {
    try {
      parseListingPage(html, url);
    } catch (error) {
      return error;
    }
    return null;
  }

  it('is refused by its URL', () => {
    const error = refusal(fixture('mubawab-search.html'), 'https://www.mubawab.ma/fr/sc/appartements-a-vendre:p:2');
    expect(isAppError(error) && error.reason).toBe('unsupported_url');
  });

  it('is refused by its canonical link, even given with a listing URL', () => {
    const error = refusal(fixture('mubawab-search.html'), 'https://www.mubawab.ma/fr/a/7222222/appartement-neuf');
    expect(isAppError(error) && error.message).toMatch(/search results page on Mubawab/);
  });

  it('is refused by its cards when it has no canonical link', () => {
    const html = fixture('mubawab-search.html').replace(/<link rel="canonical"[^>]*>/, '');
    const error = refusal(html, 'https://www.mubawab.ma/fr/a/7222222/appartement-neuf');
    expect(isAppError(error) && error.code).toBe('BAD_REQUEST');
    expect(isAppError(error) && error.message).toMatch(/search results page \(3 cards\)/);
  });
});

import { describe, expect, it } from 'vitest';
import { parseListingPage } from '../../../../src/analysis/portals/index.js';
import { expectNothingPrivate, fixture } from '../../../helpers/portal-fixtures.js';

const SALE_URL = 'https://www.avito.ma/fr/maarif/appartements/Appartement_3_chambres_à_vendre_à_Maarif_51234567.htm';

function nextData(html: string): { json: Record<string, unknown>; replace: (data: unknown) => string } {
  const match = /(<script id="__NEXT_DATA__" type="application\/json">)([\s\S]*?)(<\/script>)/.exec(html);
  if (!match) throw new Error('fixture without __NEXT_DATA__');
  return {
    json: JSON.parse(match[2]) as Record<string, unknown>,
    replace: (data) => html.replace(match[0], `${match[1]}${JSON.stringify(data)}${match[3]}`),
  };
}

describe('Avito __NEXT_DATA__ page', () => {
  const { facts, source } = parseListingPage(fixture('avito-next-data.html'), SALE_URL);

  it('reads the ad object: title, sale, type from the category, price', () => {
    expect(facts.title).toBe('Appartement 3 chambres à vendre à Maarif');
    expect(facts.transaction).toBe('sale');
    expect(facts.property_type).toBe('apartment');
    // The old price (1 450 000) and the discount are not the price.
    expect(facts.price_mad).toBe(1_350_000);
    expect(facts.price_original).toBeNull();
  });

  it('uses Avito vocabulary: Chambres are bedrooms, living vs total surface, no total rooms', () => {
    expect(facts.bedrooms).toBe(3);
    expect(facts.rooms).toBeNull();
    expect(facts.bathrooms).toBe(2);
    expect(facts.surface_m2).toBe(98);
    expect(facts.surface_total_m2).toBe(110);
    expect(facts.floor).toBe(4);
  });

  it('takes the city from the ad and the sector as district, not the URL segment', () => {
    expect(facts.city).toBe('Casablanca');
    expect(facts.district).toBe('Maârif');
  });

  it('maps amenity params to canonical keys, unknown keys by their label', () => {
    expect(facts.feature_keys).toEqual(['elevator', 'balcony', 'concierge', 'equipped_kitchen', 'parking', 'double_glazing']);
  });

  it('lists full-HD photos in order, each once', () => {
    expect(facts.photos).toEqual([1, 2, 3, 4].map((n) => `https://content.avito.ma/classifieds/images/2000000${n}?t=full_hd`));
  });

  it('names the listing', () => {
    expect(source).toMatchObject({ portal: 'avito', listing_id: '51234567' });
    expect(source.url).toContain('51234567.htm');
  });

  it('never lets the seller phone or name out, even from the description', () => {
    expectNothingPrivate({ facts, source }, ['0661234567', '06 61 23 45 67', '+212 661-234567', 'Agence Atlas Immo']);
    expect(facts.description).toContain('appartement lumineux de 98 m²');
  });

  it('finds the ad by its shape when it moves out of componentProps (Apollo cache copy only)', () => {
    const page = nextData(fixture('avito-next-data.html'));
    const props = (page.json.props as { pageProps: Record<string, Record<string, unknown>> }).pageProps;
    const ad = (props.componentProps.adInfo as { ad: unknown }).ad;
    props.componentProps = { adInfo: null };
    props.apolloState = { ROOT_QUERY: { 'getPublishedAd({"listId":51234567})': { __typename: 'PublishedAd', ad } } };
    const moved = parseListingPage(page.replace(page.json), SALE_URL);
    expect(moved.facts).toEqual(facts);
  });

  it('refuses an ad outside real estate', () => {
    const page = nextData(fixture('avito-next-data.html'));
    const ad = (page.json as { props: { pageProps: { componentProps: { adInfo: { ad: Record<string, unknown> } } } } }).props.pageProps
      .componentProps.adInfo.ad;
    ad.vertical = 'Véhicules';
    ad.category = {
      name: 'Vélos',
      parent: { name: 'Sports et loisirs', parent: { name: 'Loisirs et divertissement' } },
      parentsNames: ['Sports et loisirs', 'Vélos'],
    };
    expect(() => parseListingPage(page.replace(page.json), SALE_URL)).toThrow(/not in real estate/);
  });
});

describe('Avito rental with an Arabic title and no price', () => {
  const { facts, source } = parseListingPage(fixture('avito-arabic-rent.html'), null);

  it('finds the listing from the canonical link', () => {
    expect(source).toMatchObject({ portal: 'avito', listing_id: '51234999' });
  });

  it('keeps the Arabic title and reads the rental', () => {
    expect(facts.title).toBe('شقة مفروشة للكراء قرب المحطة');
    expect(facts.transaction).toBe('rent');
    expect(facts.price_mad).toBeNull();
    expect(facts.floor).toBe(0);
    expect(facts.bedrooms).toBe(2);
  });

  it('restores a shouted city with the gazetteer and drops the "Toute la ville" placeholder', () => {
    expect(facts.city).toBe('Kénitra');
    expect(facts.district).toBeNull();
  });

  it('skips amenities whose value is 0', () => {
    expect(facts.feature_keys).toEqual(['furnished', 'equipped_kitchen']);
  });

  it('scrubs a phone number written in Arabic-Indic digits', () => {
    expectNothingPrivate(facts, ['٠٦٦١٢٣٤٥٦٧', '0661234567', 'Youssef El Amrani']);
  });
});

describe('Avito page without __NEXT_DATA__ (DOM fallback)', () => {
  const { facts, source } = parseListingPage(fixture('avito-dom-only.html'), null);

  it('reads stable hooks: og:title category and city, h1, label/value pairs', () => {
    expect(source).toMatchObject({ portal: 'avito', listing_id: '52345678' });
    expect(facts.title).toBe('Villa avec piscine à vendre à Dar Bouazza');
    expect(facts.property_type).toBe('villa');
    expect(facts.transaction).toBe('sale');
    expect(facts.city).toBe('Dar Bouazza');
    expect(facts.district).toBe('Tamaris');
    expect(facts.surface_m2).toBe(350);
    expect(facts.surface_total_m2).toBe(600);
    expect(facts.bedrooms).toBe(4);
    expect(facts.bathrooms).toBe(3);
    expect(facts.floor).toBe(0);
  });

  it('reads a price written with narrow no-break spaces', () => {
    expect(facts.price_mad).toBe(4_800_000);
  });

  it('reads amenities from the page but not from the navigation bar', () => {
    expect(facts.feature_keys).toEqual(['pool', 'garden', 'garage', 'security']);
  });

  it('upgrades og:image photos to full HD, each once', () => {
    expect(facts.photos).toEqual([
      'https://content.avito.ma/classifieds/images/40000001?t=full_hd',
      'https://content.avito.ma/classifieds/images/40000002?t=full_hd',
    ]);
  });

  it('drops the "Voir plus" cut of the visible description', () => {
    expect(facts.description).not.toMatch(/Voir plus/);
  });
});

describe('a saved page and a URL of different listings', () => {
  it('is refused, naming both ids', () => {
    const otherUrl = 'https://www.avito.ma/fr/maarif/appartements/Autre_annonce_59999999.htm';
    expect(() => parseListingPage(fixture('avito-next-data.html'), otherUrl)).toThrow(/listing 51234567 but the URL is listing 59999999/);
  });
});

describe('Avito page whose meta tags use named HTML entities (&eacute;, &agrave;, &hellip;…)', () => {
  const { facts } = parseListingPage(fixture('avito-named-entities.html'), null);

  it('decodes every entity of the og:title and og:description: no "&eacute;" reaches the listing', () => {
    expect(facts.title).toBe('Villa rénovée à vendre à Anfa');
    expect(facts.description).toContain(
      'Très belle villa rénovée de 420 m²… Façade en pierre, poêle à bois, jardin arboré & piscine, 5 chambres. Proche écoles.',
    );
    expect(JSON.stringify(facts)).not.toMatch(/&[a-z]+;/i);
  });

  it('still reads the facts around them', () => {
    expect(facts.property_type).toBe('villa');
    expect(facts.transaction).toBe('sale');
    expect(facts.bedrooms).toBe(5);
    expect(facts.surface_m2).toBe(420);
  });
});

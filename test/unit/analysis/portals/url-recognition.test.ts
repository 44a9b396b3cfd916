import { describe, expect, it } from 'vitest';
import { isAppError } from '../../../../src/core/errors.js';
import { portalLink, recognizeUrl, requireListingUrl } from '../../../../src/analysis/portals/index.js';

// URL shapes from docs/portals.md (§1–§4): listings with their ids, and pages that are not listings.

const LISTINGS: [string, string, string, 'sale' | 'rent' | null][] = [
  // Mubawab: /{lang}/a/{id}/{slug}, premium /pa/, fr/en/ar, no www, mobile host, no scheme.
  ['https://www.mubawab.ma/en/a/8418668/house-for-sale-sefrou', 'mubawab', '8418668', 'sale'],
  ['https://www.mubawab.ma/fr/a/8057263/superbe-appart-vide-à-louer-aux-princesses', 'mubawab', '8057263', 'rent'],
  ['https://www.mubawab.ma/ar/a/8418668/%D9%85%D9%86%D8%B2%D9%84-%D9%84%D9%84%D8%A8%D9%8A%D8%B9', 'mubawab', '8418668', 'sale'],
  ['https://www.mubawab.ma/fr/pa/7123456/appartement-de-luxe-anfa', 'mubawab', '7123456', null],
  ['http://mubawab.ma/fr/a/8418668/', 'mubawab', '8418668', null],
  ['https://m.mubawab.ma/fr/a/8418668/maison', 'mubawab', '8418668', null],
  ['www.mubawab.ma/fr/a/8418668/maison-a-vendre', 'mubawab', '8418668', 'sale'],
  ['https://WWW.MUBAWAB.MA/fr/a/8418668/x?utm_source=whatsapp#photos', 'mubawab', '8418668', null],
  // Avito: {area}/{category}/{Title}_{listId}.htm, Arabic slugs, percent-encoded, mobile alternate.
  [
    'https://www.avito.ma/fr/2_mars/appartements/Appartement_Spacieux_à_vendre_147_m²_à_Casablanca__55393976.htm',
    'avito',
    '55393976',
    'sale',
  ],
  [
    'https://www.avito.ma/fr/skikina/appartements/Appartement_%C3%A0_vendre_105_m%C2%B2_%C3%A0_Temara_55562047.htm',
    'avito',
    '55562047',
    'sale',
  ],
  ['https://www.avito.ma/fr/autre_secteur/appartements/شقة_بواجهتين_بالقرب_من_ديكاتلون_فمنزل_R2__55576138.htm', 'avito', '55576138', null],
  ['https://www.avito.ma/ar/agdal/شقق/شقة_للكراء_54123456.htm', 'avito', '54123456', 'rent'],
  ['https://www.avito.ma/fr/tamaris/villas_et_riads/Villa_avec_piscine_52345678.htm', 'avito', '52345678', null],
  ['https://www.avito.ma/fr/bouskoura/terrains_et_fermes/Terrain_titré_50123456.htm', 'avito', '50123456', null],
  ['https://www.avito.ma/fr/gauthier/bureaux/Bureau_à_louer_Gauthier_53123456.htm', 'avito', '53123456', 'rent'],
  ['https://m.avito.ma/ad?id=55576138', 'avito', '55576138', null],
  ['avito.ma/fr/khemisset/appartements/Appartement_à_vendre_1_m²_à_Khemisset_55576049.htm', 'avito', '55576049', 'sale'],
  // Sarouty: every listing form ends in a numeric id (ids from the sitemap-enumerator tests).
  ['https://www.sarouty.ma/fr/acheter/casablanca/appartement-a-vendre-maarif-903380/', 'sarouty', '903380', 'sale'],
  ['https://www.sarouty.ma/en/buy/casablanca/apartment-for-sale-893792/', 'sarouty', '893792', 'sale'],
  ['https://www.sarouty.ma/en/rent/rabat/villa-for-rent-souissi-831965/', 'sarouty', '831965', 'rent'],
  ['https://www.sarouty.ma/ar/للبيع/شقة-في-الدار-البيضاء-894039/', 'sarouty', '894039', 'sale'],
  ['https://www.sarouty.ma/property-details/?listing_id=875823', 'sarouty', '875823', null],
  ['https://www.sarouty.ma/en/property-details/?listing_id=875823', 'sarouty', '875823', null],
  ['https://www.sarouty.ma/ar/plp/شقة-للبيع-875823.html', 'sarouty', '875823', 'sale'],
  ['https://www.sarouty.ma/property/903380/', 'sarouty', '903380', null],
  ['https://b2c-be-prod.api.sarouty.ma/api/properties/903380', 'sarouty', '903380', null],
  // Yakeey: /fr-ma/acheter-{type}-{city}-{district}-{REF}, with or without location, other locales.
  ['https://yakeey.com/fr-ma/acheter-appartement-casablanca-maarif-extension-CA001118', 'yakeey', 'CA001118', 'sale'],
  ['https://yakeey.com/fr-ma/acheter-appartement-II063966', 'yakeey', 'II063966', 'sale'],
  ['https://yakeey.com/fr-ma/acheter-appartement-casablanca-bourgogne-(sidi-belyout)-CA002544', 'yakeey', 'CA002544', 'sale'],
  ['https://yakeey.com/ar-ma/acheter-appartement-casablanca-bourgogne-(sidi-belyout)-CA002544', 'yakeey', 'CA002544', 'sale'],
  ['https://www.yakeey.com/fr-ma/louer-appartement-rabat-agdal-RA001234', 'yakeey', 'RA001234', 'rent'],
  ['https://yakeey.com/buy/property-detail/CA002544?utm_source=media24', 'yakeey', 'CA002544', 'sale'],
];

const NOT_LISTINGS: [string, string, RegExp][] = [
  ['https://www.mubawab.ma/en/cc/real-estate-for-rent', 'mubawab', /search/],
  ['https://www.mubawab.ma/fr/sc/appartements-a-vendre:p:2', 'mubawab', /search/],
  ['https://www.mubawab.ma/fr/sc/appartements-a-vendre:pr:0-1100000:o:n', 'mubawab', /search/],
  ['https://www.mubawab.ma/fr/st/casablanca/appartements-a-vendre', 'mubawab', /search/],
  ['https://www.mubawab.ma/fr/ct/casablanca/immobilier-a-vendre', 'mubawab', /search/],
  ['https://www.mubawab.ma/fr/cd/casablanca/maarif/appartements-a-vendre', 'mubawab', /search/],
  ['https://www.mubawab.ma/fr/p/12345/residence-les-jardins', 'mubawab', /project/],
  ['https://www.mubawab.ma/fr/b/4321/marrakech-prestige-immobilier', 'mubawab', /agency/],
  ['https://www.mubawab.ma/fr/sd/appartements-similaires', 'mubawab', /similar/],
  ['https://www.mubawab.ma/', 'mubawab', /home/],
  ['https://www.avito.ma/fr/maroc/appartements-à_vendre?o=2', 'avito', /search or category/],
  ['https://www.avito.ma/fr/casablanca/appartements-à_louer', 'avito', /search or category/],
  ['https://www.avito.ma/fr/maroc/maisons_et_villas-à_vendre', 'avito', /search or category/],
  ['https://www.avito.ma/fr/boutique/key-safe?id=6629', 'avito', /shop/],
  ['https://immoneuf.avito.ma/fr/unite/CASA-A12', 'avito', /Immoneuf/],
  ['https://www.avito.ma/', 'avito', /home/],
  ['https://www.sarouty.ma/en/buy/casablanca/apartments-for-sale/', 'sarouty', /category/],
  ['https://www.sarouty.ma/fr/recherche?c=1&l=35&ob=mr&page=2', 'sarouty', /search/],
  ['https://www.sarouty.ma/louer/dar-bouazza/villas-a-louer.html', 'sarouty', /category/],
  ['https://www.sarouty.ma/trouver-une-agence/?page=2', 'sarouty', /agency/],
  ['https://yakeey.com/fr-ma/achat/appartement/maroc?page=2', 'yakeey', /search/],
  ['https://yakeey.com/fr-ma', 'yakeey', /home/],
  ['https://yakeey.com/fr-ma/immobilier-neuf/casablanca', 'yakeey', /programme/],
];

describe('listing URLs of the four portals', () => {
  it.each(LISTINGS)('%s is a %s listing with id %s', (url, portal, id, transaction) => {
    const verdict = recognizeUrl(url);
    expect(verdict).toMatchObject({ kind: 'listing', portal, listingId: id, transactionHint: transaction });
    expect(requireListingUrl(url).listingId).toBe(id);
  });
});

describe('portal pages that are not one listing', () => {
  it.each(NOT_LISTINGS)('%s is refused', (url, portal, what) => {
    const verdict = recognizeUrl(url);
    expect(verdict?.kind).toBe('not_listing');
    expect(verdict?.portal).toBe(portal);
    let caught: unknown;
    try {
      requireListingUrl(url);
    } catch (error) {
      caught = error;
    }
    expect(isAppError(caught)).toBe(true);
    if (!isAppError(caught)) return;
    expect(caught.code).toBe('BAD_REQUEST');
    expect(caught.reason).toBe('unsupported_url');
    expect(caught.exitCode).toBe(2);
    expect(caught.message).toMatch(what);
    expect(caught.message).toMatch(/Mubawab.*Avito.*Sarouty.*Yakeey/);
  });
});

describe('other addresses', () => {
  it.each([
    'https://www.example.com/annonce/123',
    'https://www.logic-immo.ma/detail-vente/123.htm',
    'https://www.mubawab.tn/fr/a/8418668/maison',
    'https://avito.ma.example.com/fr/x_55393976.htm',
  ])('%s is not on a supported portal', (url) => {
    expect(recognizeUrl(url)).toBeNull();
    expect(() => requireListingUrl(url)).toThrow(
      /not on a supported portal.*Mubawab \(mubawab\.ma\), Avito \(avito\.ma\), Sarouty \(sarouty\.ma\), Yakeey \(yakeey\.com\)/,
    );
  });

  it.each(['not a url', 'ftp://www.avito.ma/fr/x_55393976.htm', 'javascript:alert(1)'])('%s is refused as not a web address', (url) => {
    expect(() => requireListingUrl(url)).toThrow(/not a web address/);
  });
});

describe('portalLink: an address given as a listing, with or without its scheme', () => {
  it.each([
    ['www.avito.ma/fr/casablanca/appartements/Appartement_123_55393976.htm', true],
    ['mubawab.ma/fr/a/8418668/maison-a-vendre', true],
    ['  https://www.sarouty.ma/fr/acheter/casablanca/appartement-a-vendre-maarif-903380/\n', false],
    ['http://mubawab.ma/fr/a/8418668/', false],
    // A portal page that is not a listing is still a link: the caller then says it is not a listing.
    ['www.mubawab.ma/fr/sc/appartements-a-vendre', true],
  ])('%s is a portal link (scheme added: %s)', (text, schemeAdded) => {
    const link = portalLink(text);
    expect(link).toEqual({ url: schemeAdded ? `https://${text.trim()}` : text.trim(), schemeAdded });
    expect(recognizeUrl(link!.url)).not.toBeNull();
  });

  it.each([
    'Appartement à vendre à Maarif, 120 m², 1 850 000 DH',
    'Voir www.avito.ma/fr/casablanca/appartements/Appartement_55393976.htm pour les photos',
    'www.example.com/annonce/123',
    'avito',
    '',
  ])('%j is not a portal link', (text) => {
    expect(portalLink(text)).toBeNull();
  });
});

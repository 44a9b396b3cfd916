import { describe, expect, it } from 'vitest';
import { analyzeListing } from '../../../src/analysis/analyze.js';
import { emptyFacts } from '../../../src/analysis/facts.js';
import { mergeFacts } from '../../../src/analysis/merge.js';
import { parseListingPage } from '../../../src/analysis/portals/index.js';
import { extractFacts } from '../../../src/analysis/text/extract.js';
import { LANGUAGES, type Language, type ListingFacts, type Warning, type WarningField } from '../../../src/core/types.js';
import { fixture } from '../../helpers/portal-fixtures.js';

/**
 * Every warning the extractor, the merge and the portal readers raise speaks the request's
 * language and names its field (docs/analysis.md "Warnings"). One row per warning: how to raise
 * it in a language, the field it names, and words each language's message must hold.
 */

const facts = (values: Partial<ListingFacts>): ListingFacts => ({ ...emptyFacts(), ...values });
const ARABIC = /[\u0600-\u06ff]/;

interface Row {
  name: string;
  code: string;
  field: WarningField | undefined;
  raise: (language: Language) => readonly Warning[];
  says: Readonly<Record<Language, RegExp>>;
}

const yearlyRent = (): string =>
  fixture('sarouty-api-rent.json').replace('"price": 35000, "price_type": "monthly"', '"price": 420000, "price_type": "yearly"');

const ROWS: readonly Row[] = [
  {
    name: 'a sale and a rent offered together',
    code: 'DUAL_OFFER',
    field: 'transaction',
    raise: (language) =>
      extractFacts('À vendre ou à louer : bureau 80 m² à Gauthier, vente 1 200 000 DH, location 9 000 DH/mois', { language }).warnings,
    says: {
      en: /both for sale at 1 200 000 MAD and for rent at 9 000 MAD a month; the analysis uses the first/,
      fr: /à la fois à vendre à 1 200 000 DH et à louer à 9 000 DH par mois ; l’analyse retient la première/,
      ar: /للبيع بـ1 200 000 درهم وللكراء بـ9 000 درهم في الشهر/,
    },
  },
  {
    name: 'a surface after an amenity',
    code: 'SURFACE_UNCERTAIN',
    field: 'surface',
    raise: (language) => extractFacts('Appartement à vendre avec piscine 120 m² à Casablanca, prix 1 500 000 DH', { language }).warnings,
    says: { en: /name of an amenity/, fr: /nom d’un équipement/, ar: /اسم مرفق/ },
  },
  {
    name: 'premises told by levels',
    code: 'SURFACE_UNCERTAIN',
    field: 'surface',
    raise: (language) =>
      extractFacts('Local commercial à louer à Casablanca, 80 m² avec mezzanine 30 m², 12 000 DH/mois', { language }).warnings,
    says: { en: /described by levels/, fr: /décrit par niveaux/, ar: /يوصف المحل بطوابقه/ },
  },
  {
    name: 'a district of several cities',
    code: 'PLACE_AMBIGUOUS',
    field: 'city',
    raise: (language) => extractFacts('Appartement à vendre à Hay Mohammadi', { language }).warnings,
    says: {
      en: /^"Hay Mohammadi" is a district of several cities \(Casablanca and Agadir\)/,
      fr: /^« Hay Mohammadi » est un quartier de plusieurs villes \(Casablanca et Agadir\)/,
      ar: /^«Hay Mohammadi» حي في عدة مدن \(Casablanca وAgadir\)/,
    },
  },
  {
    name: 'key money',
    code: 'KEY_MONEY_SCHEME',
    field: 'price',
    raise: (language) => extractFacts('saroute appartement Centre ville casa 280 000 dh', { language }).warnings,
    says: { en: /sarout \(key money\).*not comparable/, fr: /sarout \(pas-de-porte\).*pas comparable/, ar: /الساروت.*غير قابل للمقارنة/ },
  },
  {
    name: 'two prices in one text',
    code: 'CONTRADICTION',
    field: 'price',
    raise: (language) => extractFacts('Appartement à vendre 1 200 000 DH\nPrix: 1 350 000 DH', { language }).warnings,
    says: {
      en: /different prices: 1 200 000 MAD and 1 350 000 MAD\. Check/,
      fr: /des prix différents : 1 200 000 DH et 1 350 000 DH\. Vérifiez/,
      ar: /أثمنة مختلفة: 1 200 000 درهم و1 350 000 درهم/,
    },
  },
  {
    name: 'two surfaces in one text',
    code: 'CONTRADICTION',
    field: 'surface',
    raise: (language) => extractFacts('Appartement de 120 m²\nsuperficie : 90 m²', { language }).warnings,
    says: {
      en: /different surfaces: 120 m² and 90 m²/,
      fr: /des surfaces différentes : 120 m² et 90 m²/,
      ar: /مساحات مختلفة: 120 م² و90 م²/,
    },
  },
  {
    name: 'two bedroom counts in one text',
    code: 'CONTRADICTION',
    field: 'bedrooms',
    raise: (language) => extractFacts('Appartement 3 chambres à Marrakech\n2 chambres, salon, cuisine. 700.000 DH', { language }).warnings,
    says: { en: /different bedroom counts: 3 and 2/, fr: /des nombres de chambres différents : 3 et 2/, ar: /لغرف النوم: 3 و2/ },
  },
  {
    name: 'a page price and a text price',
    code: 'CONTRADICTION',
    field: 'price',
    raise: (language) => mergeFacts(facts({ price_mad: 1_950_000 }), facts({ price_mad: 2_100_000 }), language).warnings,
    says: {
      en: /^Price: the listing's fields say 1 950 000 MAD but its text says 2 100 000 MAD; the fields' value is kept\.$/,
      fr: /^Prix : les champs de l’annonce disent 1 950 000 DH mais son texte dit 2 100 000 DH ; la valeur des champs est retenue\.$/,
      ar: /^الثمن: تقول حقول الإعلان 1 950 000 درهم لكن يقول نصه 2 100 000 درهم؛ تُعتمد قيمة الحقول\.$/,
    },
  },
  {
    name: 'a page surface and a text surface',
    code: 'CONTRADICTION',
    field: 'surface',
    raise: (language) => mergeFacts(facts({ surface_m2: 147 }), facts({ surface_m2: 120 }), language).warnings,
    says: { en: /^Surface: .* 147 m² but .* 120 m²/, fr: /^Surface : .* 147 m² mais .* 120 m²/, ar: /^المساحة: .* 147 م² لكن .* 120 م²/ },
  },
  {
    name: 'a page floor and a text floor',
    code: 'CONTRADICTION',
    field: 'floor',
    raise: (language) => mergeFacts(facts({ floor: 0 }), facts({ floor: 2 }), language).warnings,
    says: {
      en: /^Floor: .* the ground floor \(0\) but .* floor 2/,
      fr: /^Étage : .* le rez-de-chaussée \(0\) mais .* l’étage 2/,
      ar: /^الطابق: .* الطابق الأرضي \(0\) لكن .* الطابق 2/,
    },
  },
  {
    name: 'a page deal and a text deal',
    code: 'CONTRADICTION',
    field: 'transaction',
    raise: (language) => mergeFacts(facts({ transaction: 'sale' }), facts({ transaction: 'rent' }), language).warnings,
    says: {
      en: /^Transaction: .* for sale but .* for rent/,
      fr: /^Transaction : .* à vendre mais .* à louer/,
      ar: /^المعاملة: .* للبيع لكن .* للكراء/,
    },
  },
  {
    name: 'a page type and a text type',
    code: 'CONTRADICTION',
    field: 'property_type',
    raise: (language) => mergeFacts(facts({ property_type: 'villa' }), facts({ property_type: 'apartment' }), language).warnings,
    says: {
      en: /^Property type: .* Villa but .* Apartment/,
      fr: /^Type de bien : .* Villa mais .* Appartement/,
      ar: /^نوع العقار: .* لكن .* شقة/,
    },
  },
  {
    name: 'page and text room counts',
    code: 'CONTRADICTION',
    field: 'bathrooms',
    raise: (language) => mergeFacts(facts({ bathrooms: 1 }), facts({ bathrooms: 2 }), language).warnings,
    says: { en: /^Bathrooms: .* 1 but .* 2/, fr: /^Salles de bain : .* 1 mais .* 2/, ar: /^الحمامات: .* 1 لكن .* 2/ },
  },
  {
    name: 'a yearly rent on a portal page',
    code: 'RENT_PERIOD_CONVERTED',
    field: 'price',
    raise: (language) =>
      parseListingPage(yearlyRent(), 'https://www.sarouty.ma/property-details/?listing_id=831965', { language }).facts.warnings,
    says: { en: /stated per year; it was divided by 12/, fr: /indiqué à l’année ; il a été divisé par 12/, ar: /مذكور سنويا؛ قُسم على 12/ },
  },
];

describe('extractor, merge and portal warnings in the request language, naming their field', () => {
  const table = ROWS.flatMap((row) => LANGUAGES.map((language) => ({ ...row, language })));

  it.each(table)('$code ($name) in $language', ({ code, field, raise, says, language }) => {
    const warning = raise(language).find((w) => w.code === code && w.field === field);
    expect(warning, `no ${code} naming ${String(field)}`).toBeDefined();
    const message = warning?.message ?? '';
    expect(message).toMatch(says[language]);
    // The words around the values are the language's own: Arabic only in Arabic.
    if (language === 'ar') expect(message).toMatch(ARABIC);
    else expect(message).not.toMatch(ARABIC);
  });

  it.each(ROWS)('$code ($name) says something different in each language', ({ code, field, raise }) => {
    const messages = LANGUAGES.map((language) => raise(language).find((w) => w.code === code && w.field === field)?.message);
    expect(new Set(messages).size).toBe(LANGUAGES.length);
  });

  it('speaks English when no language is asked (the extractor on its own)', () => {
    expect(extractFacts('Appartement à vendre à Hay Mohammadi').warnings[0]?.message).toMatch(/is a district of several cities/);
    expect(mergeFacts(facts({ floor: 1 }), facts({ floor: 3 })).warnings[0]?.message).toMatch(/^Floor: /);
  });
});

describe('the analysis answer', () => {
  it('carries the extractor warnings in the request language, with their field', async () => {
    for (const language of LANGUAGES) {
      const property = await analyzeListing({ description: 'saroute appartement Centre ville casa 280 000 dh', language });
      const keyMoney = property.warnings.find((w) => w.code === 'KEY_MONEY_SCHEME');
      expect(keyMoney?.field).toBe('price');
      expect(keyMoney?.message).toMatch(language === 'ar' ? /الساروت/ : language === 'fr' ? /L’annonce mentionne/ : /The listing mentions/);
    }
  });

  it('holds a price back only for a plausibility doubt, not for a warning that merely names it', async () => {
    const contradicted = await analyzeListing({ description: 'Appartement à vendre 1 200 000 DH\nPrix: 1 350 000 DH', language: 'fr' });
    expect(contradicted.warnings).toContainEqual(expect.objectContaining({ code: 'CONTRADICTION', field: 'price' }));
    expect(contradicted.held_back).toEqual([]);
    const keyMoney = await analyzeListing({ description: 'saroute appartement Centre ville casa 280 000 dh', language: 'fr' });
    expect(keyMoney.held_back).toEqual([]);
    const implausible = await analyzeListing({ description: 'Appartement à vendre à Casablanca, 80 m², prix 12 000 DH', language: 'fr' });
    expect(implausible.held_back?.map((fact) => fact.field)).toEqual(['price']);
  });
});

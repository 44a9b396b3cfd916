import { describe, expect, it } from 'vitest';
import { FEATURE_LABELS } from '../../../src/analysis/labels.js';
import { impliedGrossYield } from '../../../src/analysis/market/compare.js';
import { buildProperty } from '../../../src/analysis/property.js';
import {
  AUDIENCES,
  FEATURE_KEYS,
  LANGUAGES,
  type AudienceRequest,
  type FeatureKey,
  type Language,
  type ListingFacts,
  type Property,
} from '../../../src/core/types.js';
import { demoFacts, listing, TEXT_SOURCE } from '../../helpers/property-fixtures.js';

const analyse = (facts: ListingFacts, language: Language = 'fr', audience: AudienceRequest = 'auto'): Property =>
  buildProperty(facts, TEXT_SOURCE, { language, audience });

/** Words that would claim a feature, beyond its labels, in the three languages. */
const CLAIMS: Partial<Record<FeatureKey, string[]>> = {
  pool: ['piscine', 'pool', 'مسبح'],
  garden: ['jardin', 'garden', 'حديقة'],
  terrace: ['terrasse', 'terrace', 'تراس'],
  balcony: ['balcon', 'balcony', 'شرفة'],
  elevator: ['ascenseur', 'elevator', 'lift', 'مصعد'],
  parking: ['parking', 'موقف'],
  garage: ['garage', 'مرآب'],
  air_conditioning: ['climatisation', 'climatisé', 'air conditioning', 'تكييف'],
  heating: ['chauffage', 'heating', 'تدفئة'],
  equipped_kitchen: ['cuisine', 'kitchen', 'مطبخ'],
  furnished: ['meublé', 'furnished', 'turnkey', 'clé en main', 'مفروش'],
  concierge: ['concierge', 'gardien', 'حارس'],
  security: ['sécurité', 'sécurisé', 'security', 'secure', 'حراسة'],
  gated_community: ['résidence fermée', 'gated', 'إقامة مغلقة'],
  sea_view: ['vue sur mer', 'sea view', 'البحر', 'océan', 'ocean'],
  mountain_view: ['montagne', 'mountain', 'الجبل'],
  title_deed: ['titre foncier', 'titré', 'title deed', 'محفظ', 'رسم عقاري'],
  new_build: ['neuf', 'neuve', 'new build', 'جديد'],
  near_beach: ['plage', 'beach', 'الشاطئ'],
  near_tram: ['tram', 'الترامواي'],
  near_schools: ['école', 'school', 'المدارس'],
};

function claimsOf(key: FeatureKey): string[] {
  return [...new Set([...(CLAIMS[key] ?? []), ...LANGUAGES.map((l) => FEATURE_LABELS[key][l])].map((t) => t.toLowerCase()))];
}

/** Whole-word match for Latin terms; substring for Arabic (prefixes such as و / ب / ال attach to words). */
function mentions(text: string, term: string): boolean {
  const lower = text.toLowerCase();
  if (/[\u0600-\u06ff]/.test(term)) return lower.includes(term);
  const escaped = term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\p{L}])${escaped}(?![\\p{L}])`, 'u').test(lower);
}

/** Every number written in a sentence, read the way the language writes it. */
function numbersIn(text: string, language: Language): number[] {
  const pattern = language === 'en' ? /\d{1,3}(?:,\d{3})*(?:\.\d+)?/g : /\d{1,3}(?: \d{3})*(?:,\d+)?/g;
  return (text.match(pattern) ?? []).map((n) => Number(language === 'en' ? n.replace(/,/g, '') : n.replace(/ /g, '').replace(',', '.')));
}

/** The numbers an angle may state: the listing's own, its market comparison and the housing-aid figures. */
function groundedNumbers(facts: ListingFacts, p: Property): Set<number> {
  const allowed = new Set<number>([70_000, 100_000]);
  const add = (v: number | null | undefined) => {
    if (v !== null && v !== undefined) allowed.add(Math.abs(v));
  };
  [p.price_mad, p.surface_m2, p.surface_total_m2, p.rooms, p.bedrooms, p.bathrooms, p.floor, p.price_per_m2_mad].forEach(add);
  if (p.market !== null)
    [p.market.median_price_per_m2_mad, p.market.q1_price_per_m2_mad, p.market.q3_price_per_m2_mad, p.market.delta_pct].forEach(add);
  add(impliedGrossYield(facts, p.price_per_m2_mad)?.pct);
  if (p.property_type === 'studio' || (p.bedrooms !== null && p.bedrooms <= 1)) allowed.add(1);
  return allowed;
}

const SCENARIOS: Record<string, ListingFacts> = {
  demo: demoFacts(),
  'demo below Q1': demoFacts({ price_mad: 1_500_000 }),
  'furnished studio for rent': listing({
    transaction: 'rent',
    property_type: 'studio',
    price_mad: 5_000,
    surface_m2: 32,
    city: 'Rabat',
    district: 'Agdal',
    feature_keys: ['furnished', 'near_tram'],
  }),
  'studio for sale': listing({
    transaction: 'sale',
    property_type: 'studio',
    price_mad: 600_000,
    surface_m2: 30,
    city: 'Casablanca',
    district: 'Gauthier',
    feature_keys: ['furnished', 'equipped_kitchen'],
  }),
  'villa without pool': listing({
    transaction: 'sale',
    property_type: 'villa',
    price_mad: 7_500_000,
    surface_m2: 450,
    bedrooms: 5,
    bathrooms: 4,
    city: 'Casablanca',
    district: 'CIL',
    feature_keys: ['garden', 'garage', 'security'],
  }),
  'cheap flat': listing({
    transaction: 'sale',
    property_type: 'apartment',
    price_mad: 280_000,
    surface_m2: 55,
    bedrooms: 2,
    city: 'Had Soualem',
    feature_keys: ['new_build'],
  }),
  'beach flat': listing({
    transaction: 'sale',
    property_type: 'apartment',
    price_mad: 950_000,
    surface_m2: 85,
    bedrooms: 2,
    floor: 0,
    city: 'Agadir',
    feature_keys: ['sea_view', 'near_beach', 'pool', 'title_deed'],
  }),
  'only a city': listing({ city: 'Fès' }),
  'only a price': listing({ price_mad: 1_200_000, transaction: 'sale' }),
};

describe('marketing angles', () => {
  it('writes 3 to 6 sentences in the output language for every audience', () => {
    for (const [name, facts] of Object.entries(SCENARIOS)) {
      for (const language of LANGUAGES) {
        for (const audience of ['auto', ...AUDIENCES] as AudienceRequest[]) {
          const angles = analyse(facts, language, audience).marketing_angles;
          const where = `${name}/${language}/${audience}`;
          expect(angles.length, where).toBeGreaterThanOrEqual(3);
          expect(angles.length, where).toBeLessThanOrEqual(6);
          expect(new Set(angles).size, where).toBe(angles.length);
          for (const sentence of angles) {
            if (language === 'ar') expect(sentence, where).toMatch(/[\u0600-\u06ff]/);
            else expect(sentence, where).not.toMatch(/[\u0600-\u06ff]/);
          }
        }
      }
    }
  });

  it('never mentions a feature the listing does not state, in any language', () => {
    let checked = 0;
    for (const [name, facts] of Object.entries(SCENARIOS)) {
      const absent = FEATURE_KEYS.filter((k) => !facts.feature_keys.includes(k) && k !== 'duplex');
      for (const language of LANGUAGES) {
        for (const audience of ['auto', ...AUDIENCES] as AudienceRequest[]) {
          const text = analyse(facts, language, audience).marketing_angles.join(' ');
          for (const key of absent) {
            for (const term of claimsOf(key)) {
              expect(mentions(text, term), `${name}/${language}/${audience} mentions ${key} ("${term}"): ${text}`).toBe(false);
              checked += 1;
            }
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(10_000);
  });

  it('says nothing of a pool when the listing has none, in fr, en and ar', () => {
    for (const language of LANGUAGES) {
      const text = analyse(demoFacts(), language, 'luxury').marketing_angles.join(' ');
      expect(text).not.toMatch(/piscine|pool|مسبح/i);
      const withPool = analyse(
        demoFacts({ feature_keys: [...demoFacts().feature_keys, 'pool'] }),
        language,
        'luxury',
      ).marketing_angles.join(' ');
      expect(withPool).toMatch(/piscine|pool|مسبح/i);
    }
  });

  it('states no number that is not in the listing or its market comparison', () => {
    for (const [name, facts] of Object.entries(SCENARIOS)) {
      for (const language of LANGUAGES) {
        for (const audience of ['auto', ...AUDIENCES] as AudienceRequest[]) {
          const property = analyse(facts, language, audience);
          const allowed = groundedNumbers(facts, property);
          for (const sentence of property.marketing_angles) {
            for (const n of numbersIn(sentence, language)) {
              expect(allowed.has(n), `${name}/${language}/${audience}: ${n} in "${sentence}"`).toBe(true);
            }
          }
        }
      }
    }
  });

  it('states the market position against the district median', () => {
    expect(analyse(demoFacts(), 'fr').marketing_angles).toContain(
      'Prix au m² de 15 417 DH, 8,7 % sous la médiane de Maârif (16 892 DH/m²), dans la norme du marché.',
    );
    expect(analyse(demoFacts(), 'en').marketing_angles).toContain(
      'Price per m² of 15,417 MAD, 8.7% below the Maârif median (16,892 MAD/m²), in line with the market.',
    );
    expect(analyse(demoFacts(), 'ar').marketing_angles.join(' ')).toContain('أقل بـ8,7% من الوسيط في المعاريف');
    const bargain = analyse(demoFacts({ price_mad: 1_500_000 }), 'fr').marketing_angles.join(' ');
    expect(bargain).toContain('26 % sous la médiane');
    expect(bargain).toContain('opportunité');
  });

  it('drops the market angle for key-money schemes and doubtful prices', () => {
    const sarout = analyse(demoFacts({ price_mad: 400_000, warnings: [{ code: 'KEY_MONEY_SCHEME', message: 'sarout' }] }), 'fr');
    expect(sarout.marketing_angles.join(' ')).not.toMatch(/médiane|opportunité|aide directe/);
    const typo = analyse(demoFacts({ price_mad: 185_000 }), 'fr');
    expect(typo.warnings.map((w) => w.code)).toContain('PRICE_PER_M2_IMPLAUSIBLE');
    expect(typo.marketing_angles.join(' ')).not.toMatch(/médiane|opportunité/);
  });

  it('aims the angles at the audience', () => {
    const family = analyse(demoFacts(), 'fr', 'family').marketing_angles;
    const investor = analyse(demoFacts(), 'fr', 'investor').marketing_angles;
    expect(family[1]).toBe('3 chambres et 2 salles de bain : idéal pour une famille.');
    expect(investor[1]).toBe('Idéal pour un investissement locatif : rendement brut estimé à 8,8 % aux loyers médians de Maârif.');
    expect(family).not.toEqual(investor);
    const couple = analyse(SCENARIOS['cheap flat'] as ListingFacts, 'fr', 'young_couple').marketing_angles;
    expect(couple[1]).toBe('À 280 000 DH, l’acheteur peut prétendre à l’aide directe au logement (100 000 DH, sous conditions).');
  });

  it('falls back to true generic sentences when the listing says little', () => {
    expect(analyse(listing({ city: 'Fès' }), 'fr').marketing_angles).toEqual([
      'Bien immobilier à Fès.',
      'Contactez-nous pour plus d’informations ou une visite.',
      'Visite sur rendez-vous.',
    ]);
    expect(analyse(listing({ price_mad: 1_200_000, transaction: 'sale' }), 'en').marketing_angles).toEqual([
      'Property for sale.',
      'Price: 1,200,000 MAD.',
      'Contact us for details or a viewing.',
    ]);
  });

  it('is deterministic', () => {
    for (const facts of Object.values(SCENARIOS)) {
      expect(analyse(facts, 'ar', 'auto')).toEqual(analyse(facts, 'ar', 'auto'));
    }
  });
});

import {
  AUDIENCES,
  type Audience,
  type AudienceRequest,
  type AudienceSegment,
  type FeatureKey,
  type Language,
  type ListingFacts,
  type MarketComparison,
  type PropertyType,
  type TargetBuyer,
} from '../core/types.js';
import {
  AUDIENCE_LABELS,
  bedroomsLabel,
  featureLabel,
  floorPhrase,
  formatMad,
  formatNumber,
  formatPercent,
  formatSurface,
  inSentence,
  joinList,
  propertyTypeLabel,
} from './labels.js';
import { pricingSurface, type ImpliedYield } from './market/compare.js';
import { cityKey, districtKeys, placeLabel } from './market/place-keys.js';

/**
 * Buyer profile (docs/analysis.md): a score in 0..1 for each of the 8 audiences from the listing
 * traits of docs/analysis.md, with the reasons that led there, and the demographics of
 * the primary audience. Scores combine signal weights as independent evidence
 * (1 − Π(1 − w)), then apply penalties for traits that rule an audience out.
 */

export interface AudienceInput {
  facts: ListingFacts;
  perM2: number | null;
  market: MarketComparison | null;
  grossYield: ImpliedYield | null;
  language: Language;
}

type Text = Readonly<Record<Language, string>>;

interface Signal {
  weight: number;
  reason: string;
}

/** Every segment starts here, so a listing that says little still ranks deterministically. */
const PRIOR = 0.05;
const MAX_REASONS = 4;

// Places named in docs/analysis.md, by `placeKey`.
const MRE_BEACH_CITIES = new Set(['tanger', 'martil', 'saidia', 'agadir', 'nador', 'al hoceima', 'el jadida', 'tetouan']);
const MRE_HOME_CITIES = new Set(['fes', 'meknes', 'oujda', 'beni mellal']);
const MRE_BIG_CITIES = new Set(['casablanca', 'marrakech']);
const EXPAT_DISTRICTS = new Set([
  'cfc',
  'racine',
  'gauthier',
  'anfa',
  'anfa superieur',
  'cil',
  'californie',
  'ain diab',
  'triangle d or',
  'tamaris',
  'souissi',
  'hay riad',
  'agdal',
]);
const EXPAT_TOWNS = new Set(['dar bouazza', 'bouskoura']);
const RENTAL_HUB_DISTRICTS = new Set(['cfc', 'maarif', 'gauthier', 'gueliz', 'hivernage', 'medina']);
const SEASONAL_CITIES = new Set(['marrakech', 'agadir', 'tanger', 'martil']);
const RETIREE_CITIES = new Set(['agadir', 'marrakech', 'essaouira', 'el jadida', 'saidia']);
const RETIREE_DISTRICTS = new Set(['founty', 'haut founty', 'marina', 'palmeraie', 'route de l ourika', 'hivernage']);
const LUXURY_DISTRICTS = new Set(['anfa superieur', 'hivernage', 'palmeraie', 'souissi', 'marshan', 'amelkis']);
const GUEST_HOUSE_CITIES = new Set(['marrakech', 'fes', 'essaouira']);

const NON_RESIDENTIAL: ReadonlySet<PropertyType> = new Set(['office', 'commercial', 'land', 'farm', 'building']);

/** State housing aid, 2024 (docs/analysis.md [AIDE-2] [AIDE-1]): 100,000 DH up to 300,000 DH, 70,000 DH up to 700,000 DH. */
export const HOUSING_AID = [
  { maxPrice: 300_000, amount: 100_000 },
  { maxPrice: 700_000, amount: 70_000 },
] as const;

export function housingAidFor(facts: ListingFacts): { maxPrice: number; amount: number } | null {
  if (facts.transaction !== 'sale' || facts.price_mad === null) return null;
  if (facts.property_type !== null && NON_RESIDENTIAL.has(facts.property_type)) return null;
  return HOUSING_AID.find((aid) => (facts.price_mad as number) <= aid.maxPrice) ?? null;
}

class Traits {
  readonly has: (key: FeatureKey) => boolean;
  readonly city: string | null;
  readonly district: string | null;
  readonly surface: number | null;
  readonly small: boolean;
  readonly nonResidential: boolean;

  constructor(readonly input: AudienceInput) {
    const { facts } = input;
    const features = new Set(facts.feature_keys);
    this.has = (key) => features.has(key);
    this.city = facts.city === null ? null : cityKey(facts.city);
    this.district = facts.district === null ? null : (districtKeys(facts.district)[0] as string);
    this.surface = pricingSurface(facts);
    this.small = facts.property_type === 'studio' || (facts.bedrooms !== null && facts.bedrooms <= 1);
    this.nonResidential = facts.property_type !== null && NON_RESIDENTIAL.has(facts.property_type);
  }

  t(text: Text): string {
    return text[this.input.language];
  }

  feature(key: FeatureKey): string {
    return inSentence(featureLabel(key, this.input.language), this.input.language);
  }

  features(keys: readonly FeatureKey[]): string {
    return joinList(
      keys.filter(this.has).map((k) => this.feature(k)),
      this.input.language,
    );
  }

  place(name: string | null): string {
    return name === null ? '' : placeLabel(name, this.input.language);
  }

  mad(value: number): string {
    return formatMad(value, this.input.language);
  }
}

type Rule = (x: Traits, facts: ListingFacts) => { signals: (Signal | null)[]; penalty: number };

const when = (condition: boolean, weight: number, reason: () => string): Signal | null => (condition ? { weight, reason: reason() } : null);

/** One signal for any of several features, naming those present. */
function anyFeature(x: Traits, keys: readonly FeatureKey[], weight: number): Signal | null {
  return keys.some(x.has) ? { weight, reason: x.features(keys) } : null;
}

function priceVsMedian(x: Traits): string {
  const m = x.input.market as MarketComparison;
  const pct = formatPercent(Math.abs(m.delta_pct as number), x.input.language);
  return x.t({
    fr: `prix au m² ${pct} sous la médiane du secteur`,
    en: `price per m² ${pct} below the area median`,
    ar: `سعر المتر أقل بـ${pct} من الوسيط في المنطقة`,
  });
}

const RULES: Readonly<Record<Audience, Rule>> = {
  family: (x, f) => ({
    signals: [
      when(f.bedrooms !== null && f.bedrooms >= 3, 0.45, () => bedroomsLabel(f.bedrooms as number, x.input.language)),
      when(f.bedrooms === 2, 0.15, () => bedroomsLabel(2, x.input.language)),
      when(x.surface !== null && x.surface >= 100, 0.2, () => formatSurface(x.surface as number, x.input.language)),
      anyFeature(x, ['near_schools'], 0.35),
      anyFeature(x, ['garden'], 0.25),
      anyFeature(x, ['gated_community', 'security'], 0.15),
      anyFeature(x, ['garage', 'pool'], 0.1),
      when(f.property_type === 'villa' || f.property_type === 'house', 0.3, () =>
        inSentence(propertyTypeLabel(f.property_type, x.input.language), x.input.language),
      ),
    ],
    penalty: (x.small ? 0.3 : 1) * (x.nonResidential ? 0.1 : 1),
  }),

  young_couple: (x, f) => {
    const aid = housingAidFor(f);
    return {
      signals: [
        when(aid !== null, aid?.amount === 100_000 ? 0.45 : 0.4, () =>
          x.t({
            fr: `prix ≤ ${x.mad(aid?.maxPrice as number)} : aide directe au logement possible (${x.mad(aid?.amount as number)})`,
            en: `price ≤ ${x.mad(aid?.maxPrice as number)}: may qualify for the housing grant (${x.mad(aid?.amount as number)})`,
            ar: `ثمن ≤ ${x.mad(aid?.maxPrice as number)}: دعم مباشر للسكن ممكن (${x.mad(aid?.amount as number)})`,
          }),
        ),
        when(f.bedrooms !== null && f.bedrooms >= 1 && f.bedrooms <= 2 && f.property_type !== 'studio', 0.3, () =>
          bedroomsLabel(f.bedrooms as number, x.input.language),
        ),
        when(x.surface !== null && x.surface >= 45 && x.surface <= 80, 0.2, () => formatSurface(x.surface as number, x.input.language)),
        anyFeature(x, ['new_build'], 0.15),
        when(f.transaction === 'sale' && x.has('title_deed'), 0.1, () =>
          x.t({ fr: 'titre foncier (finançable par crédit)', en: 'title deed (mortgage-ready)', ar: 'رسم عقاري (قابل للتمويل البنكي)' }),
        ),
        when(x.input.market?.position === 'below', 0.1, () => priceVsMedian(x)),
      ],
      penalty:
        (f.transaction === 'sale' && f.price_mad !== null && f.price_mad > 2_500_000 ? 0.5 : 1) *
        (f.bedrooms !== null && f.bedrooms >= 4 ? 0.6 : 1) *
        (x.nonResidential ? 0.1 : 1),
    };
  },

  investor: (x, f) => {
    const y = x.input.grossYield;
    return {
      signals: [
        when(f.property_type === 'studio', 0.45, () => inSentence(propertyTypeLabel('studio', x.input.language), x.input.language)),
        when(f.property_type !== 'studio' && f.bedrooms === 1, 0.35, () => bedroomsLabel(1, x.input.language)),
        anyFeature(x, ['furnished'], 0.3),
        anyFeature(x, ['near_tram'], 0.2),
        when(x.district !== null && RENTAL_HUB_DISTRICTS.has(x.district), 0.25, () =>
          x.t({
            fr: `quartier très demandé à la location (${x.place(f.district)})`,
            en: `strong rental demand area (${x.place(f.district)})`,
            ar: `حي عليه طلب كرائي قوي (${x.place(f.district)})`,
          }),
        ),
        when(x.city !== null && SEASONAL_CITIES.has(x.city), 0.1, () =>
          x.t({
            fr: `marché de la location saisonnière (${x.place(f.city)})`,
            en: `short-term rental market (${x.place(f.city)})`,
            ar: `سوق الكراء الموسمي (${x.place(f.city)})`,
          }),
        ),
        when(y !== null && y.pct >= 6, y !== null && y.pct >= 7 ? 0.35 : 0.15, () =>
          x.t({
            fr: `rendement brut estimé ${formatPercent(y?.pct as number, 'fr')}`,
            en: `estimated gross yield ${formatPercent(y?.pct as number, 'en')}`,
            ar: `مردودية إجمالية تقديرية ${formatPercent(y?.pct as number, 'ar')}`,
          }),
        ),
        when(x.input.market?.position === 'below', 0.3, () => priceVsMedian(x)),
        when(f.property_type === 'riad' && x.city !== null && GUEST_HOUSE_CITIES.has(x.city), 0.25, () =>
          x.t({ fr: 'riad (potentiel maison d’hôtes)', en: 'riad (guest-house potential)', ar: 'رياض (إمكانية دار للضيافة)' }),
        ),
        when(
          f.transaction === 'sale' && (f.property_type === 'office' || f.property_type === 'commercial' || f.property_type === 'building'),
          0.3,
          () => inSentence(propertyTypeLabel(f.property_type, x.input.language), x.input.language),
        ),
      ],
      penalty: (f.transaction === 'rent' ? 0.3 : 1) * (f.property_type === 'land' || f.property_type === 'farm' ? 0.6 : 1),
    };
  },

  mre: (x, f) => ({
    signals: [
      when(
        x.city !== null && (MRE_BEACH_CITIES.has(x.city) || MRE_HOME_CITIES.has(x.city) || MRE_BIG_CITIES.has(x.city)),
        x.city !== null && MRE_BEACH_CITIES.has(x.city) ? 0.3 : x.city !== null && MRE_HOME_CITIES.has(x.city) ? 0.25 : 0.15,
        () =>
          x.t({
            fr: `ville prisée des MRE (${x.place(f.city)})`,
            en: `popular with MREs (${x.place(f.city)})`,
            ar: `مدينة يفضلها مغاربة العالم (${x.place(f.city)})`,
          }),
      ),
      anyFeature(x, ['title_deed'], 0.2),
      anyFeature(x, ['new_build'], 0.15),
      anyFeature(x, ['gated_community', 'security', 'concierge'], 0.2),
      anyFeature(x, ['garage'], 0.15),
      anyFeature(x, ['near_beach', 'sea_view'], 0.2),
      when(f.transaction === 'sale' && f.price_mad !== null && f.price_mad >= 300_000 && f.price_mad <= 1_200_000, 0.25, () =>
        x.t({
          fr: `prix dans la fourchette MRE (${formatNumber(300_000, 'fr')}–${x.mad(1_200_000)})`,
          en: `price in the MRE range (${formatNumber(300_000, 'en')}–${x.mad(1_200_000)})`,
          ar: `ثمن في متناول مغاربة العالم (${formatNumber(300_000, 'ar')}–${x.mad(1_200_000)})`,
        }),
      ),
    ],
    penalty: (f.transaction === 'rent' ? 0.5 : 1) * (x.nonResidential ? 0.2 : 1),
  }),

  expat: (x, f) => ({
    signals: [
      when(f.transaction === 'rent' && x.has('furnished'), 0.4, () =>
        x.t({ fr: 'location meublée', en: 'furnished rental', ar: 'كراء شقة مفروشة' }),
      ),
      when(f.transaction !== 'rent' && x.has('furnished'), 0.15, () => x.feature('furnished')),
      when((x.district !== null && EXPAT_DISTRICTS.has(x.district)) || (x.city !== null && EXPAT_TOWNS.has(x.city)), 0.35, () =>
        x.t({
          fr: `quartier prisé des expatriés (${x.place(x.district !== null && EXPAT_DISTRICTS.has(x.district) ? f.district : f.city)})`,
          en: `expat neighbourhood (${x.place(x.district !== null && EXPAT_DISTRICTS.has(x.district) ? f.district : f.city)})`,
          ar: `حي يفضله الأجانب (${x.place(x.district !== null && EXPAT_DISTRICTS.has(x.district) ? f.district : f.city)})`,
        }),
      ),
      anyFeature(x, ['parking', 'garage'], 0.15),
      anyFeature(x, ['air_conditioning', 'heating'], 0.1),
      anyFeature(x, ['equipped_kitchen'], 0.1),
      anyFeature(x, ['concierge', 'security'], 0.1),
      anyFeature(x, ['near_schools'], 0.1),
      when(f.transaction === 'rent', 0.1, () => x.t({ fr: 'location', en: 'rental', ar: 'للكراء' })),
    ],
    penalty: x.nonResidential ? 0.2 : 1,
  }),

  retiree: (x, f) => ({
    signals: [
      when(f.floor === 0, 0.2, () => floorPhrase(0, x.input.language)),
      anyFeature(x, ['elevator'], 0.2),
      anyFeature(x, ['security', 'gated_community'], 0.15),
      when(f.bedrooms === 2, 0.15, () => bedroomsLabel(2, x.input.language)),
      anyFeature(x, ['terrace'], 0.1),
      when(x.city !== null && RETIREE_CITIES.has(x.city), 0.3, () =>
        x.t({
          fr: `ville prisée des retraités (${x.place(f.city)})`,
          en: `popular with retirees (${x.place(f.city)})`,
          ar: `مدينة يفضلها المتقاعدون (${x.place(f.city)})`,
        }),
      ),
      when(x.district !== null && RETIREE_DISTRICTS.has(x.district), 0.2, () => x.place(f.district)),
      anyFeature(x, ['sea_view', 'near_beach'], 0.1),
    ],
    penalty: (f.property_type === 'studio' ? 0.5 : 1) * (f.bedrooms !== null && f.bedrooms >= 4 ? 0.7 : 1) * (x.nonResidential ? 0.1 : 1),
  }),

  luxury: (x, f) => {
    const sale = f.transaction === 'sale' && f.price_mad !== null;
    const luxuryVilla = sale && (f.property_type === 'villa' || f.property_type === 'riad') && (f.price_mad as number) >= 5_000_000;
    const luxuryFlat = sale && f.property_type !== 'villa' && x.input.perM2 !== null && x.input.perM2 >= 25_000;
    return {
      signals: [
        when(luxuryVilla, 0.5, () =>
          x.t({ fr: `prix ≥ ${x.mad(5_000_000)}`, en: `price ≥ ${x.mad(5_000_000)}`, ar: `ثمن ≥ ${x.mad(5_000_000)}` }),
        ),
        when(luxuryFlat, 0.5, () =>
          x.t({ fr: `prix au m² ≥ ${x.mad(25_000)}`, en: `price per m² ≥ ${x.mad(25_000)}`, ar: `سعر المتر ≥ ${x.mad(25_000)}` }),
        ),
        when(!luxuryVilla && !luxuryFlat && sale && (f.price_mad as number) >= 3_000_000, 0.2, () => x.mad(f.price_mad as number)),
        when(f.transaction === 'rent' && f.price_mad !== null && f.price_mad >= 25_000, 0.3, () =>
          x.t({ fr: `loyer ≥ ${x.mad(25_000)}/mois`, en: `rent ≥ ${x.mad(25_000)}/month`, ar: `كراء ≥ ${x.mad(25_000)} شهرياً` }),
        ),
        anyFeature(x, ['pool'], 0.25),
        anyFeature(x, ['sea_view'], 0.15),
        anyFeature(x, ['garden'], 0.1),
        when(x.district !== null && LUXURY_DISTRICTS.has(x.district), 0.3, () =>
          x.t({
            fr: `adresse prestigieuse (${x.place(f.district)})`,
            en: `prestigious address (${x.place(f.district)})`,
            ar: `عنوان راقٍ (${x.place(f.district)})`,
          }),
        ),
        when(f.property_type === 'villa', 0.2, () => inSentence(propertyTypeLabel('villa', x.input.language), x.input.language)),
        when(x.surface !== null && x.surface >= 300, 0.15, () => formatSurface(x.surface as number, x.input.language)),
      ],
      penalty:
        (f.transaction === 'sale' && f.price_mad !== null && f.price_mad < 1_000_000 ? 0.2 : 1) *
        (f.property_type === 'studio' ? 0.3 : 1) *
        (x.nonResidential ? 0.2 : 1),
    };
  },

  student: (x, f) => ({
    signals: [
      when(f.property_type === 'studio', 0.45, () => inSentence(propertyTypeLabel('studio', x.input.language), x.input.language)),
      when(f.property_type !== 'studio' && f.bedrooms === 1, 0.25, () => bedroomsLabel(1, x.input.language)),
      when(f.transaction === 'rent', 0.3, () => x.t({ fr: 'location', en: 'rental', ar: 'للكراء' })),
      anyFeature(x, ['furnished'], 0.25),
      anyFeature(x, ['near_tram'], 0.2),
      when(f.transaction === 'rent' && f.price_mad !== null && f.price_mad <= 5_000, 0.15, () =>
        x.t({ fr: `loyer ≤ ${x.mad(5_000)}/mois`, en: `rent ≤ ${x.mad(5_000)}/month`, ar: `كراء ≤ ${x.mad(5_000)} شهرياً` }),
      ),
    ],
    penalty:
      (f.transaction === 'sale' ? 0.4 : 1) *
      (x.surface !== null && x.surface > 90 ? 0.4 : 1) *
      (f.property_type === 'villa' || f.property_type === 'house' || f.property_type === 'riad' ? 0.1 : 1) *
      (x.nonResidential ? 0.1 : 1),
  }),
};

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** All 8 segments, best first (ties in the order of AUDIENCES). */
export function scoreSegments(input: AudienceInput): AudienceSegment[] {
  const traits = new Traits(input);
  const segments = AUDIENCES.map((key, order) => {
    const { signals, penalty } = RULES[key](traits, input.facts);
    const fired = signals.filter((s): s is Signal => s !== null).sort((a, b) => b.weight - a.weight);
    const evidence = fired.reduce((remaining, s) => remaining * (1 - s.weight), 1 - PRIOR);
    const score = round2(Math.min(1, Math.max(0, (1 - evidence) * penalty)));
    const reasons = [...new Set(fired.map((s) => s.reason))].slice(0, MAX_REASONS);
    return { order, segment: { key, label: AUDIENCE_LABELS[key][input.language], score, reasons } };
  });
  segments.sort((a, b) => b.segment.score - a.segment.score || a.order - b.order);
  return segments.map((s) => s.segment);
}

// ---------------------------------------------------------------------------------------------
// Demographics (docs/analysis.md)

interface Profile {
  household: Text;
  age_range: string;
  financing_sale: Text;
  financing_rent: Text;
}

const RENT_TERMS: Text = {
  fr: 'Loyer mensuel, caution de 1 à 2 mois',
  en: 'Monthly rent, deposit of 1–2 months',
  ar: 'كراء شهري مع ضمانة شهر إلى شهرين',
};

const PROFILES: Readonly<Record<Audience, Profile>> = {
  family: {
    household: { fr: 'Couple avec enfants', en: 'Couple with children', ar: 'زوجان مع أطفال' },
    age_range: '30-50',
    financing_sale: {
      fr: 'Crédit immobilier avec apport (titre foncier exigé par les banques)',
      en: 'Mortgage with a down payment (banks require a title deed)',
      ar: 'قرض عقاري مع مساهمة شخصية (الأبناك تشترط الرسم العقاري)',
    },
    financing_rent: RENT_TERMS,
  },
  young_couple: {
    household: { fr: 'Jeune couple, premier achat', en: 'Young couple buying a first home', ar: 'زوجان شابان يقتنيان أول سكن' },
    age_range: '25-40',
    financing_sale: {
      fr: 'Crédit immobilier ; aide directe au logement jusqu’à 700 000 DH',
      en: 'Mortgage; state housing grant for homes up to 700,000 MAD',
      ar: 'قرض عقاري؛ الدعم المباشر للسكن حتى 700 000 درهم',
    },
    financing_rent: RENT_TERMS,
  },
  investor: {
    household: {
      fr: 'Investisseur particulier (location longue ou courte durée)',
      en: 'Private investor (long- or short-term letting)',
      ar: 'مستثمر خاص (كراء طويل أو قصير المدة)',
    },
    age_range: '35-60',
    financing_sale: {
      fr: 'Fonds propres ou crédit ; rendement brut visé 6-7 %',
      en: 'Own funds or mortgage; target gross yield 6-7%',
      ar: 'أموال ذاتية أو قرض؛ مردودية إجمالية مستهدفة 6-7%',
    },
    financing_rent: RENT_TERMS,
  },
  mre: {
    household: {
      fr: 'Famille marocaine résidant à l’étranger (surtout en Europe)',
      en: 'Moroccan family living abroad (mostly in Europe)',
      ar: 'أسرة مغربية مقيمة بالخارج (أوروبا غالباً)',
    },
    age_range: '35-60',
    financing_sale: {
      fr: 'Épargne transférée et crédit d’une banque marocaine ; aide directe ouverte aux MRE',
      en: 'Savings transferred from abroad and a Moroccan mortgage; the housing grant is open to MREs',
      ar: 'ادخار محول من الخارج وقرض من بنك مغربي؛ الدعم المباشر مفتوح لمغاربة العالم',
    },
    financing_rent: {
      fr: 'Location saisonnière (été) ou longue durée',
      en: 'Summer or long-term rental',
      ar: 'كراء صيفي أو طويل المدة',
    },
  },
  expat: {
    household: {
      fr: 'Cadre expatrié, seul ou en famille',
      en: 'Expatriate professional, single or with family',
      ar: 'إطار أجنبي، بمفرده أو مع عائلته',
    },
    age_range: '30-55',
    financing_sale: {
      fr: 'Achat comptant ou crédit ; le titre foncier sécurise l’achat par un étranger',
      en: 'Cash or mortgage; a title deed is the safe route for a foreign buyer',
      ar: 'شراء نقدي أو قرض؛ الرسم العقاري هو الطريق الآمن للمشتري الأجنبي',
    },
    financing_rent: RENT_TERMS,
  },
  retiree: {
    household: {
      fr: 'Couple de retraités (souvent européens)',
      en: 'Retired couple (often European)',
      ar: 'زوجان متقاعدان (غالباً من أوروبا)',
    },
    age_range: '55-75',
    financing_sale: {
      fr: 'Achat comptant (épargne, vente d’un bien)',
      en: 'Cash purchase (savings, sale of a home)',
      ar: 'شراء نقدي (ادخار أو بيع عقار)',
    },
    financing_rent: RENT_TERMS,
  },
  luxury: {
    household: {
      fr: 'Ménage aisé, dirigeant ou chef d’entreprise',
      en: 'Affluent household, executive or business owner',
      ar: 'أسرة ميسورة، مسير أو رجل أعمال',
    },
    age_range: '40-65',
    financing_sale: { fr: 'Fonds propres, banque privée', en: 'Own funds, private banking', ar: 'أموال ذاتية، خدمات بنكية خاصة' },
    financing_rent: RENT_TERMS,
  },
  student: {
    household: {
      fr: 'Étudiant ou jeune actif, seul ou en colocation',
      en: 'Student or young professional, alone or flat-sharing',
      ar: 'طالب أو شاب عامل، بمفرده أو مع شركاء في السكن',
    },
    age_range: '18-28',
    financing_sale: { fr: 'Achat par les parents', en: 'Bought by the parents', ar: 'شراء من طرف الوالدين' },
    financing_rent: {
      fr: 'Loyer mensuel souvent payé par la famille, caution de 1 à 2 mois',
      en: 'Monthly rent often paid by the family, deposit of 1–2 months',
      ar: 'كراء شهري تؤديه الأسرة غالباً، مع ضمانة شهر إلى شهرين',
    },
  },
};

/** A budget band around the price: −15 % / +15 %, rounded to 50,000 DH (sales) or 500 DH (rents). */
export function budgetAround(price: number | null, transaction: ListingFacts['transaction']): [number, number] | null {
  if (price === null || price <= 0) return null;
  const step = transaction === 'rent' ? 500 : price >= 1_000_000 ? 50_000 : 10_000;
  const lo = Math.max(step, Math.floor((price * 0.85) / step) * step);
  const hi = Math.ceil((price * 1.15) / step) * step;
  return [lo, hi];
}

export function buildTargetBuyer(input: AudienceInput, requested: AudienceRequest): TargetBuyer {
  const segments = scoreSegments(input);
  const primary: Audience = requested === 'auto' ? (segments[0] as AudienceSegment).key : requested;
  const profile = PROFILES[primary];
  const language = input.language;
  const { facts } = input;
  return {
    primary,
    segments,
    demographics: {
      household: profile.household[language],
      age_range: profile.age_range,
      budget_mad: budgetAround(facts.price_mad, facts.transaction),
      financing: (facts.transaction === 'rent' ? profile.financing_rent : profile.financing_sale)[language],
    },
  };
}

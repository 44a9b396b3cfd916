import type { Audience, FeatureKey, Language, ListingFacts, MarketComparison, PropertyType, Warning } from '../core/types.js';
import { housingAidFor } from './audience.js';
import {
  bathroomsLabel,
  bedroomsLabel,
  featureLabel,
  floorPhrase,
  formatMad,
  formatNumber,
  formatPercent,
  formatSurface,
  inSentence,
  joinList,
  NEAR_TARGETS,
  perM2Unit,
  placePhrase,
  propertyTypeLabel,
  TRANSACTION_LABELS,
} from './labels.js';
import { isKeyMoneyScheme, pricingSurface, type ImpliedYield } from './market/compare.js';
import { placeLabel } from './market/place-keys.js';
import type { MarketReference } from './market/reference.js';
import { PRICE_DOUBT_CODES } from './plausibility.js';

/**
 * Marketing angles (docs/analysis.md): 3–6 short sentences in the output language, aimed at the
 * primary audience, built from the angle patterns of docs/analysis.md. Grounding rule:
 * a sentence is only built from a fact the listing states (a feature key, a number, a place)
 * or from the market comparison; no sentence adds a quality the listing does not claim
 * ("sunny", "quiet", "sea view"...). Deterministic: fixed templates, fixed ordering.
 */

export interface AngleInput {
  facts: ListingFacts;
  language: Language;
  audience: Audience;
  perM2: number | null;
  market: MarketComparison | null;
  reference: MarketReference | null;
  /** The market row was raised for a studio or 1-bedroom flat. */
  uplifted: boolean;
  grossYield: ImpliedYield | null;
  /** Every warning of the analysis (listing + plausibility). */
  warnings: readonly Warning[];
}

type AngleKey =
  | 'family'
  | 'near'
  | 'security'
  | 'legal'
  | 'outdoor'
  | 'view'
  | 'pool'
  | 'comfort'
  | 'turnkey'
  | 'investment'
  | 'aid'
  | 'prestige'
  | 'new_build';

/**
 * How much each angle speaks to each audience (0: never used for it). Columns in the order of
 * AUDIENCES: family, young_couple, investor, mre, expat, retiree, luxury, student.
 */
const WEIGHTS: Readonly<Record<AngleKey, readonly number[]>> = {
  family: [1.0, 0.5, 0.2, 0.6, 0.5, 0.3, 0.3, 0.1],
  near: [0.8, 0.6, 0.6, 0.5, 0.6, 0.5, 0.3, 0.8],
  security: [0.7, 0.5, 0.3, 0.9, 0.7, 0.9, 0.6, 0.4],
  legal: [0.6, 0.8, 0.7, 0.9, 0.6, 0.5, 0.4, 0.1],
  outdoor: [0.7, 0.5, 0.3, 0.6, 0.5, 0.8, 0.6, 0.3],
  view: [0.6, 0.5, 0.6, 0.9, 0.7, 1.0, 0.9, 0.3],
  pool: [0.7, 0.4, 0.5, 0.7, 0.7, 0.7, 0.9, 0.3],
  comfort: [0.5, 0.5, 0.4, 0.6, 0.8, 0.7, 0.8, 0.5],
  turnkey: [0.3, 0.4, 0.8, 0.5, 1.0, 0.4, 0.4, 0.9],
  investment: [0, 0, 1.0, 0.3, 0, 0, 0, 0],
  aid: [0.6, 1.0, 0.2, 0.8, 0, 0, 0, 0.2],
  prestige: [0.4, 0.2, 0.4, 0.5, 0.6, 0.5, 1.0, 0],
  new_build: [0.5, 0.7, 0.5, 0.8, 0.4, 0.4, 0.4, 0.3],
};
const AUDIENCE_COLUMN: Readonly<Record<Audience, number>> = {
  family: 0,
  young_couple: 1,
  investor: 2,
  mre: 3,
  expat: 4,
  retiree: 5,
  luxury: 6,
  student: 7,
};

const MAX_ANGLES = 6;
const MIN_ANGLES = 3;
const MAX_LIST = 4;

const SECURITY_KEYS: readonly FeatureKey[] = ['gated_community', 'security', 'concierge'];
const OUTDOOR_KEYS: readonly FeatureKey[] = ['terrace', 'balcony', 'garden'];
const VIEW_KEYS: readonly FeatureKey[] = ['sea_view', 'mountain_view'];
const NEAR_KEYS: readonly FeatureKey[] = ['near_schools', 'near_tram', 'near_beach'];
const COMFORT_KEYS: readonly FeatureKey[] = [
  'elevator',
  'parking',
  'garage',
  'air_conditioning',
  'heating',
  'equipped_kitchen',
  'double_glazing',
  'armored_door',
  'moroccan_lounge',
  'fireplace',
  'storage',
];
const NON_RESIDENTIAL: ReadonlySet<PropertyType> = new Set(['office', 'commercial', 'land', 'farm', 'building']);

type Text = Readonly<Record<Language, string>>;

class Writer {
  private readonly features: ReadonlySet<FeatureKey>;
  readonly language: Language;

  constructor(readonly input: AngleInput) {
    this.features = new Set(input.facts.feature_keys);
    this.language = input.language;
  }

  has = (key: FeatureKey): boolean => this.features.has(key);

  t(text: Text): string {
    return text[this.language];
  }

  /** The labels of the listed features the listing has, joined: "terrasse et jardin". */
  list(keys: readonly FeatureKey[]): string | null {
    const present = keys.filter(this.has).slice(0, MAX_LIST);
    if (present.length === 0) return null;
    return joinList(
      present.map((k) => inSentence(featureLabel(k, this.language), this.language)),
      this.language,
    );
  }

  mad(value: number): string {
    return formatMad(value, this.language);
  }

  typeLabel(lower = false): string {
    const label = propertyTypeLabel(this.input.facts.property_type, this.language);
    return lower ? inSentence(label, this.language) : label;
  }

  place(): string | null {
    return placePhrase(this.input.facts.city, this.input.facts.district, this.language);
  }
}

/**
 * The second deal of a listing offered for sale or for rent (docs/analysis-text.md "Dual offers"):
 * the angles pitch the main offer and mention the other once, right after the headline.
 */
function otherOffer(w: Writer): string | null {
  const other = w.input.facts.offers[1];
  if (other === undefined) return null;
  const rent = other.transaction === 'rent';
  if (other.price_mad === null) {
    return w.t(
      rent
        ? { fr: 'Également proposé à la location.', en: 'Also offered for rent.', ar: 'معروض أيضاً للكراء.' }
        : { fr: 'Également proposé à la vente.', en: 'Also offered for sale.', ar: 'معروض أيضاً للبيع.' },
    );
  }
  const amount = w.mad(other.price_mad);
  return w.t(
    rent
      ? {
          fr: `Également à louer : ${amount} par mois.`,
          en: `Also for rent: ${amount} a month.`,
          ar: `معروض أيضاً للكراء: ${amount} شهرياً.`,
        }
      : { fr: `Également à vendre : ${amount}.`, en: `Also for sale: ${amount}.`, ar: `معروض أيضاً للبيع: ${amount}.` },
  );
}

/** "Appartement à vendre : 120 m² au 3e étage, à Maarif, Casablanca." */
function headline(w: Writer): string | null {
  const f = w.input.facts;
  const surface = pricingSurface(f);
  const place = w.place();
  if (f.property_type === null && f.transaction === null && place === null && surface === null) return null;
  const lang = w.language;
  const head = f.transaction === null ? w.typeLabel() : `${w.typeLabel()} ${TRANSACTION_LABELS[f.transaction][lang]}`;
  const details = [surface === null ? null : formatSurface(surface, lang), f.floor === null ? null : floorPhrase(f.floor, lang)]
    .filter((d): d is string => d !== null)
    .join(' ');
  const colon = lang === 'fr' ? ' : ' : ': ';
  let sentence = details === '' ? head : `${head}${colon}${details}`;
  if (place !== null) {
    const at = { fr: 'à', en: 'in', ar: 'في' }[lang];
    sentence += details === '' ? ` ${at} ${place}` : `${lang === 'ar' ? '،' : ','} ${at} ${place}`;
  }
  return `${sentence}.`;
}

/** Where the price per m² stands against the reference: the "good deal" angle of docs/analysis.md "Marketing angles" and its neutral siblings. */
function marketSentence(w: Writer): string | null {
  const { market, reference, perM2, uplifted, warnings, facts } = w.input;
  if (market === null || reference === null || perM2 === null || market.delta_pct === null) return null;
  if (isKeyMoneyScheme(facts) || warnings.some((x) => PRICE_DOUBT_CODES.has(x.code))) return null;
  const lang = w.language;
  const areaName = placeLabel(reference.district ?? reference.city, lang);
  const area = uplifted
    ? w.t({
        fr: `des studios et 1 chambre à ${areaName}`,
        en: `${areaName} studio/1-bedroom`,
        ar: `الاستوديوهات والشقق بغرفة واحدة في ${areaName}`,
      })
    : w.t({ fr: `de ${areaName}`, en: areaName, ar: `في ${areaName}` });
  const rent = facts.transaction === 'rent';
  const unit = rent
    ? w.t({ fr: `${perM2Unit(lang)}/mois`, en: `${perM2Unit(lang)}/month`, ar: `${perM2Unit(lang)} شهرياً` })
    : perM2Unit(lang);
  const price = rent ? `${w.mad(perM2)}${w.t({ fr: ' par mois', en: ' a month', ar: ' شهرياً' })}` : w.mad(perM2);
  const median = `${formatNumber(market.median_price_per_m2_mad, lang)} ${unit}`;
  const pct = formatPercent(Math.abs(market.delta_pct), lang);
  const what = rent
    ? w.t({ fr: 'Loyer au m²', en: 'Rent per m²', ar: 'كراء المتر المربع' })
    : w.t({ fr: 'Prix au m²', en: 'Price per m²', ar: 'سعر المتر المربع' });
  if (Math.abs(market.delta_pct) < 1) {
    return w.t({
      fr: `${what} de ${price}, au niveau de la médiane ${area} (${median}).`,
      en: `${what} of ${price}, level with the ${area} median (${median}).`,
      ar: `${what} ${price}، في مستوى الوسيط ${area} (${median}).`,
    });
  }
  const below = market.delta_pct < 0;
  const base = below
    ? w.t({
        fr: `${what} de ${price}, ${pct} sous la médiane ${area} (${median})`,
        en: `${what} of ${price}, ${pct} below the ${area} median (${median})`,
        ar: `${what} ${price}، أقل بـ${pct} من الوسيط ${area} (${median})`,
      })
    : w.t({
        fr: `${what} de ${price}, ${pct} au-dessus de la médiane ${area} (${median})`,
        en: `${what} of ${price}, ${pct} above the ${area} median (${median})`,
        ar: `${what} ${price}، أعلى بـ${pct} من الوسيط ${area} (${median})`,
      });
  if (market.position === 'below') {
    return `${base}${w.t({ fr: ' : une opportunité à saisir.', en: ': priced below market.', ar: ': فرصة لا تعوض.' })}`;
  }
  if (market.position === 'in_line') {
    return `${base}${w.t({ fr: ', dans la norme du marché.', en: ', in line with the market.', ar: '، في حدود السوق.' })}`;
  }
  return `${base}.`;
}

type Builder = (w: Writer) => string | null;

const BUILDERS: Readonly<Record<AngleKey, Builder>> = {
  family: (w) => {
    const { bedrooms, bathrooms, property_type: type } = w.input.facts;
    if (bedrooms === null || bedrooms < 3 || (type !== null && NON_RESIDENTIAL.has(type))) return null;
    const rooms = [bedroomsLabel(bedrooms, w.language)];
    if (bathrooms !== null && bathrooms > 0) rooms.push(bathroomsLabel(bathrooms, w.language));
    const what = joinList(rooms, w.language);
    return w.t({
      fr: `${what} : idéal pour une famille.`,
      en: `${what}: ideal for a family.`,
      ar: `${what}: خيار مثالي للعائلات.`,
    });
  },
  near: (w) => {
    const targets = NEAR_KEYS.filter(w.has).map((k) => (NEAR_TARGETS[k] as Text)[w.language]);
    if (targets.length === 0) return null;
    const list = joinList(targets, w.language);
    return w.t({ fr: `Proche ${list}.`, en: `Close to ${list}.`, ar: `قريب من ${list}.` });
  },
  security: (w) => {
    const list = w.list(SECURITY_KEYS);
    if (list === null) return null;
    return w.t({ fr: `Tranquillité d’esprit : ${list}.`, en: `Peace of mind: ${list}.`, ar: `راحة البال: ${list}.` });
  },
  legal: (w) => {
    if (!w.has('title_deed') || w.input.facts.transaction !== 'sale') return null;
    return w.t({
      fr: 'Bien titré (titre foncier) : achat serein, finançable par crédit bancaire.',
      en: 'Registered title deed: clear ownership that banks can finance.',
      ar: 'عقار محفظ برسم عقاري: ملكية واضحة وقابلة للتمويل البنكي.',
    });
  },
  outdoor: (w) => {
    const list = w.list(OUTDOOR_KEYS);
    if (list === null) return null;
    return w.t({ fr: `Pour vivre dehors : ${list}.`, en: `Outdoor living: ${list}.`, ar: `فضاء خارجي: ${list}.` });
  },
  view: (w) => {
    const list = w.list(VIEW_KEYS);
    if (list === null) return null;
    return w.t({ fr: `Le plus du bien : ${list}.`, en: `Standout feature: ${list}.`, ar: `ميزة مميزة: ${list}.` });
  },
  pool: (w) => {
    if (!w.has('pool')) return null;
    const list = w.list(['pool']) as string;
    return w.t({ fr: `Détente à domicile : ${list}.`, en: `Relax at home: ${list}.`, ar: `استرخاء في البيت: ${list}.` });
  },
  comfort: (w) => {
    // A furnished listing gets the kitchen in its turnkey sentence.
    const keys = w.has('furnished') ? COMFORT_KEYS.filter((k) => k !== 'equipped_kitchen') : COMFORT_KEYS;
    const list = w.list(keys);
    if (list === null) return null;
    return w.t({ fr: `Confort au quotidien : ${list}.`, en: `Everyday comfort: ${list}.`, ar: `راحة يومية: ${list}.` });
  },
  turnkey: (w) => {
    if (!w.has('furnished')) return null;
    const kitchen = w.has('equipped_kitchen');
    return w.t({
      fr: `Clé en main : meublé${kitchen ? ' avec cuisine équipée' : ''}.`,
      en: `Turnkey: furnished${kitchen ? ' with an equipped kitchen' : ''}.`,
      ar: `جاهز للسكن: مفروش${kitchen ? ' مع مطبخ مجهز' : ''}.`,
    });
  },
  investment: (w) => {
    const f = w.input.facts;
    if (f.transaction !== 'sale' || (f.property_type !== null && NON_RESIDENTIAL.has(f.property_type))) return null;
    const y = w.input.grossYield;
    const small = f.property_type === 'studio' || f.bedrooms === 1;
    if (y === null && !small && !w.has('furnished') && !w.has('near_tram')) return null;
    if (y === null) {
      return w.t({ fr: 'Idéal pour un investissement locatif.', en: 'Ideal buy-to-let.', ar: 'مثالي للاستثمار الكرائي.' });
    }
    const pct = formatPercent(y.pct, w.language);
    const area = placeLabel(y.place, w.language);
    return w.t({
      fr: `Idéal pour un investissement locatif : rendement brut estimé à ${pct} aux loyers médians de ${area}.`,
      en: `Ideal buy-to-let: estimated gross yield of ${pct} at ${area} median rents.`,
      ar: `مثالي للاستثمار الكرائي: مردودية إجمالية تقديرية ${pct} حسب الكراء الوسيط في ${area}.`,
    });
  },
  aid: (w) => {
    const aid = housingAidFor(w.input.facts);
    if (aid === null || isKeyMoneyScheme(w.input.facts)) return null;
    const price = w.mad(w.input.facts.price_mad as number);
    const amount = w.mad(aid.amount);
    return w.t({
      fr: `À ${price}, l’acheteur peut prétendre à l’aide directe au logement (${amount}, sous conditions).`,
      en: `At ${price}, buyers may qualify for the state housing grant (${amount}, conditions apply).`,
      ar: `بثمن ${price}، قد يستفيد المشتري من الدعم المباشر للسكن (${amount}، وفق الشروط).`,
    });
  },
  prestige: (w) => {
    const f = w.input.facts;
    if (f.transaction !== 'sale' || f.price_mad === null) return null;
    const bigVilla = (f.property_type === 'villa' || f.property_type === 'riad') && f.price_mad >= 5_000_000;
    const primeFlat = f.property_type !== 'villa' && f.property_type !== 'riad' && w.input.perM2 !== null && w.input.perM2 >= 25_000;
    if (!bigVilla && !primeFlat) return null;
    const place = w.place();
    const where = place === null ? '' : w.t({ fr: ` à ${place}`, en: ` in ${place}`, ar: ` في ${place}` });
    return w.t({
      fr: `${w.typeLabel()} d’exception${where}.`,
      en: `An exceptional ${w.typeLabel(true)}${where}.`,
      ar: `عقار استثنائي: ${w.typeLabel()}${where}.`,
    });
  },
  new_build: (w) => {
    if (!w.has('new_build')) return null;
    const place = w.place();
    const where = place === null ? '' : w.t({ fr: ` à ${place}`, en: ` in ${place}`, ar: ` في ${place}` });
    return w.t({ fr: `Construction neuve${where}.`, en: `A new build${where}.`, ar: `بناء جديد${where}.` });
  },
};

const ANGLE_ORDER = Object.keys(BUILDERS) as AngleKey[];

/** Per audience column: the angles it can use, best first (ties in ANGLE_ORDER). Built once. */
const RANKED_ANGLES: readonly (readonly AngleKey[])[] = Object.values(AUDIENCE_COLUMN).map((column) =>
  ANGLE_ORDER.map((key, order) => ({ key, order, weight: WEIGHTS[key][column] as number }))
    .filter((a) => a.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.order - b.order)
    .map((a) => a.key),
);

function fallbacks(w: Writer): string[] {
  const f = w.input.facts;
  const out: string[] = [];
  if (f.price_mad !== null && !w.input.warnings.some((x) => PRICE_DOUBT_CODES.has(x.code))) {
    const price = w.mad(f.price_mad);
    out.push(
      f.transaction === 'rent'
        ? w.t({ fr: `Loyer : ${price} par mois.`, en: `Rent: ${price} per month.`, ar: `الكراء: ${price} شهرياً.` })
        : w.t({ fr: `Prix : ${price}.`, en: `Price: ${price}.`, ar: `الثمن: ${price}.` }),
    );
  }
  out.push(
    w.t({
      fr: 'Contactez-nous pour plus d’informations ou une visite.',
      en: 'Contact us for details or a viewing.',
      ar: 'تواصلوا معنا لمزيد من المعلومات أو لتحديد موعد الزيارة.',
    }),
    w.t({ fr: 'Visite sur rendez-vous.', en: 'Viewings by appointment.', ar: 'الزيارة بموعد مسبق.' }),
  );
  return out;
}

/** 3–6 sentences: the headline, the best angle for the audience, the market position, then the next angles. */
export function marketingAngles(input: AngleInput): string[] {
  const w = new Writer(input);
  const column = AUDIENCE_COLUMN[input.audience];
  const head = headline(w);
  const market = marketSentence(w);
  const angles: string[] = [];
  if (head !== null) angles.push(head);
  const other = otherOffer(w);
  if (other !== null) angles.push(other);
  // Sentences are built lazily, best angle first, until the room left is filled.
  const room = MAX_ANGLES - angles.length - (market === null ? 0 : 1);
  const chosen: string[] = [];
  for (const key of RANKED_ANGLES[column] as AngleKey[]) {
    if (chosen.length >= room) break;
    const sentence = BUILDERS[key](w);
    if (sentence !== null) chosen.push(sentence);
  }
  // The audience's best angle, then the market position, then the others.
  angles.push(...chosen.slice(0, 1));
  if (market !== null) angles.push(market);
  angles.push(...chosen.slice(1));
  for (const sentence of fallbacks(w)) {
    if (angles.length >= MIN_ANGLES) break;
    angles.push(sentence);
  }
  return angles;
}

import type { Audience, FeatureKey, Language, ListingFacts, PropertyType, Transaction } from '../core/types.js';
import { placeLabel } from './market/place-keys.js';

/**
 * Every word the analysis prints in fr / en / ar: feature, property type, transaction and
 * audience labels, number formats and the composed title. Arabic is Modern Standard Arabic with
 * the terms Moroccan portals use (للكراء, محفظ, درهم); digits stay Western, as in Moroccan listings.
 */

type Labels = Readonly<Record<Language, string>>;

export const FEATURE_LABELS: Readonly<Record<FeatureKey, Labels>> = {
  pool: { fr: 'Piscine', en: 'Swimming pool', ar: 'مسبح' },
  garden: { fr: 'Jardin', en: 'Garden', ar: 'حديقة' },
  terrace: { fr: 'Terrasse', en: 'Terrace', ar: 'تراس' },
  balcony: { fr: 'Balcon', en: 'Balcony', ar: 'شرفة' },
  elevator: { fr: 'Ascenseur', en: 'Elevator', ar: 'مصعد' },
  parking: { fr: 'Parking', en: 'Parking', ar: 'موقف سيارات' },
  garage: { fr: 'Garage', en: 'Garage', ar: 'مرآب' },
  air_conditioning: { fr: 'Climatisation', en: 'Air conditioning', ar: 'تكييف الهواء' },
  heating: { fr: 'Chauffage', en: 'Heating', ar: 'تدفئة' },
  equipped_kitchen: { fr: 'Cuisine équipée', en: 'Equipped kitchen', ar: 'مطبخ مجهز' },
  furnished: { fr: 'Meublé', en: 'Furnished', ar: 'مفروش' },
  concierge: { fr: 'Concierge', en: 'Concierge', ar: 'حارس العمارة' },
  security: { fr: 'Sécurité', en: 'Security', ar: 'حراسة أمنية' },
  gated_community: { fr: 'Résidence fermée', en: 'Gated community', ar: 'إقامة مغلقة' },
  sea_view: { fr: 'Vue sur mer', en: 'Sea view', ar: 'إطلالة على البحر' },
  mountain_view: { fr: 'Vue sur montagne', en: 'Mountain view', ar: 'إطلالة على الجبل' },
  moroccan_lounge: { fr: 'Salon marocain', en: 'Moroccan lounge', ar: 'صالون مغربي' },
  double_glazing: { fr: 'Double vitrage', en: 'Double glazing', ar: 'زجاج مزدوج' },
  armored_door: { fr: 'Porte blindée', en: 'Armored door', ar: 'باب مصفح' },
  storage: { fr: 'Débarras', en: 'Storage room', ar: 'غرفة تخزين' },
  fireplace: { fr: 'Cheminée', en: 'Fireplace', ar: 'مدفأة' },
  duplex: { fr: 'Duplex', en: 'Duplex', ar: 'دوبلكس' },
  title_deed: { fr: 'Titre foncier', en: 'Title deed', ar: 'رسم عقاري' },
  new_build: { fr: 'Neuf', en: 'New build', ar: 'بناء جديد' },
  near_beach: { fr: 'Proche de la plage', en: 'Near the beach', ar: 'قرب الشاطئ' },
  near_tram: { fr: 'Proche du tram', en: 'Near the tram', ar: 'قرب الترامواي' },
  near_schools: { fr: 'Proche des écoles', en: 'Near schools', ar: 'قرب المدارس' },
};

/** What follows "proche" / "near" / "قرب" for the proximity features, to join several in one phrase. */
export const NEAR_TARGETS: Readonly<Partial<Record<FeatureKey, Labels>>> = {
  near_schools: { fr: 'des écoles', en: 'schools', ar: 'المدارس' },
  near_tram: { fr: 'du tram', en: 'the tram', ar: 'الترامواي' },
  near_beach: { fr: 'de la plage', en: 'the beach', ar: 'الشاطئ' },
};

export const PROPERTY_TYPE_LABELS: Readonly<Record<PropertyType, Labels>> = {
  apartment: { fr: 'Appartement', en: 'Apartment', ar: 'شقة' },
  studio: { fr: 'Studio', en: 'Studio', ar: 'استوديو' },
  duplex: { fr: 'Duplex', en: 'Duplex', ar: 'دوبلكس' },
  penthouse: { fr: 'Penthouse', en: 'Penthouse', ar: 'بنتهاوس' },
  villa: { fr: 'Villa', en: 'Villa', ar: 'فيلا' },
  house: { fr: 'Maison', en: 'House', ar: 'منزل' },
  riad: { fr: 'Riad', en: 'Riad', ar: 'رياض' },
  land: { fr: 'Terrain', en: 'Plot of land', ar: 'بقعة أرضية' },
  office: { fr: 'Bureau', en: 'Office', ar: 'مكتب' },
  commercial: { fr: 'Local commercial', en: 'Commercial space', ar: 'محل تجاري' },
  farm: { fr: 'Ferme', en: 'Farm', ar: 'ضيعة' },
  building: { fr: 'Immeuble', en: 'Building', ar: 'عمارة' },
};

/** A property whose type is not stated. */
export const UNKNOWN_TYPE_LABEL: Labels = { fr: 'Bien immobilier', en: 'Property', ar: 'عقار' };

export const TRANSACTION_LABELS: Readonly<Record<Transaction, Labels>> = {
  sale: { fr: 'à vendre', en: 'for sale', ar: 'للبيع' },
  rent: { fr: 'à louer', en: 'for rent', ar: 'للكراء' },
};

export const AUDIENCE_LABELS: Readonly<Record<Audience, Labels>> = {
  family: { fr: 'Famille', en: 'Family', ar: 'عائلة' },
  young_couple: { fr: 'Jeune couple / primo-accédant', en: 'Young couple / first-time buyer', ar: 'زوجان شابان / اقتناء أول سكن' },
  investor: { fr: 'Investisseur', en: 'Investor', ar: 'مستثمر' },
  mre: { fr: 'Marocains résidant à l’étranger (MRE)', en: 'Moroccans living abroad (MRE)', ar: 'مغاربة العالم' },
  expat: { fr: 'Expatrié', en: 'Expatriate', ar: 'أجنبي مقيم' },
  retiree: { fr: 'Retraité', en: 'Retiree', ar: 'متقاعد' },
  luxury: { fr: 'Clientèle haut de gamme', en: 'Luxury buyer', ar: 'زبون راقٍ' },
  student: { fr: 'Étudiant', en: 'Student', ar: 'طالب' },
};

export function featureLabel(key: FeatureKey, language: Language): string {
  return FEATURE_LABELS[key][language];
}

/** `features` of the analysis: the labels of `feature_keys`, in order, without repeats. */
export function featureLabels(keys: readonly FeatureKey[], language: Language): string[] {
  return [...new Set(keys)].filter((key) => key in FEATURE_LABELS).map((key) => FEATURE_LABELS[key][language]);
}

export function propertyTypeLabel(type: PropertyType | null, language: Language): string {
  return type === null ? UNKNOWN_TYPE_LABEL[language] : PROPERTY_TYPE_LABELS[type][language];
}

/** A label in the middle of a sentence: lower case in French and English ("ascenseur"), as is in Arabic. */
export function inSentence(label: string, language: Language): string {
  if (language === 'ar') return label;
  // Acronyms and proper nouns stay: only a capital followed by a lower-case letter is lowered.
  return /^\p{Lu}\p{Ll}/u.test(label) ? label.charAt(0).toLowerCase() + label.slice(1) : label;
}

/** "a, b et c" / "a, b and c" / "a وb وc". */
export function joinList(items: readonly string[], language: Language): string {
  if (language === 'ar') return items.join(' و');
  if (items.length <= 1) return items.join('');
  const and = language === 'fr' ? ' et ' : ' and ';
  return `${items.slice(0, -1).join(', ')}${and}${items[items.length - 1]}`;
}

// ---------------------------------------------------------------------------------------------
// Numbers

/** Thousands grouped the local way: "1 850 000" (fr, ar) or "1,850,000" (en). */
export function formatNumber(value: number, language: Language, decimals = 0): string {
  const fixed = Math.abs(value).toFixed(decimals);
  const dot = fixed.indexOf('.');
  const whole = dot === -1 ? fixed : fixed.slice(0, dot);
  const fraction = dot === -1 ? undefined : fixed.slice(dot + 1);
  const separator = language === 'en' ? ',' : ' ';
  let grouped = whole.slice(0, ((whole.length - 1) % 3) + 1);
  for (let i = grouped.length; i < whole.length; i += 3) grouped += separator + whole.slice(i, i + 3);
  const sign = value < 0 && Number(fixed) !== 0 ? '-' : '';
  if (fraction === undefined) return `${sign}${grouped}`;
  return `${sign}${grouped}${language === 'en' ? '.' : ','}${fraction}`;
}

const CURRENCY: Labels = { fr: 'DH', en: 'MAD', ar: 'درهم' };

/** "1 850 000 DH" / "1,850,000 MAD" / "1 850 000 درهم". */
export function formatMad(value: number, language: Language): string {
  return `${formatNumber(value, language)} ${CURRENCY[language]}`;
}

/** "8 %" (fr), "8%" (en, ar); one decimal when it is not a whole number. */
export function formatPercent(value: number, language: Language): string {
  const decimals = Number.isInteger(value) ? 0 : 1;
  return `${formatNumber(value, language, decimals)}${language === 'fr' ? ' %' : '%'}`;
}

/** "DH/m²" / "MAD/m²" / "درهم/م²". */
export function perM2Unit(language: Language): string {
  return `${CURRENCY[language]}/${language === 'ar' ? 'م²' : 'm²'}`;
}

export function formatSurface(m2: number, language: Language): string {
  return `${formatNumber(m2, language, Number.isInteger(m2) ? 0 : 1)} ${language === 'ar' ? 'م²' : 'm²'}`;
}

/**
 * A counted noun with its grammar: "1 chambre" / "3 chambres"; in Arabic the dual and the
 * 3–10 / 11+ forms ("غرفتا نوم", "3 غرف نوم", "12 غرفة نوم").
 */
interface CountedNoun {
  fr: [string, string];
  en: [string, string];
  /** [one, two (complete phrase), 3–10 plural, 11+ singular] */
  ar: [string, string, string, string];
}

function counted(noun: CountedNoun, n: number, language: Language): string {
  if (language === 'ar') {
    const [one, two, few, many] = noun.ar;
    if (n === 1) return one;
    if (n === 2) return two;
    return `${n} ${n >= 3 && n <= 10 ? few : many}`;
  }
  const [singular, plural] = noun[language];
  return `${n} ${n === 1 ? singular : plural}`;
}

const BEDROOM: CountedNoun = {
  fr: ['chambre', 'chambres'],
  en: ['bedroom', 'bedrooms'],
  ar: ['غرفة نوم واحدة', 'غرفتا نوم', 'غرف نوم', 'غرفة نوم'],
};
const BATHROOM: CountedNoun = {
  fr: ['salle de bain', 'salles de bain'],
  en: ['bathroom', 'bathrooms'],
  ar: ['حمام واحد', 'حمامان', 'حمامات', 'حماما'],
};

export function bedroomsLabel(n: number, language: Language): string {
  return counted(BEDROOM, n, language);
}

export function bathroomsLabel(n: number, language: Language): string {
  return counted(BATHROOM, n, language);
}

/** "au 3e étage" / "on floor 3" / "في الطابق 3"; ground floor and basements by name. */
export function floorPhrase(floor: number, language: Language): string {
  if (floor === 0) return { fr: 'au rez-de-chaussée', en: 'on the ground floor', ar: 'في الطابق الأرضي' }[language];
  if (floor < 0) return { fr: 'en sous-sol', en: 'in the basement', ar: 'في الطابق السفلي' }[language];
  if (language === 'fr') return `au ${floor === 1 ? '1er' : `${floor}e`} étage`;
  if (language === 'en') return `on floor ${floor}`;
  return `في الطابق ${floor}`;
}

// ---------------------------------------------------------------------------------------------
// Places and title

/** "Maarif, Casablanca" in the language ("المعاريف، الدار البيضاء"), or null when neither is known. */
export function placePhrase(city: string | null, district: string | null, language: Language): string | null {
  const parts = [district, city].filter((p): p is string => p !== null && p.trim() !== '').map((p) => placeLabel(p, language));
  if (parts.length === 2 && parts[0] === parts[1]) parts.pop();
  if (parts.length === 0) return null;
  return parts.join(language === 'ar' ? '، ' : ', ');
}

/** Moroccan mobile and landline numbers, to keep a seller's phone out of a title. */
const PHONE = /(?:\+|00)?(?:212[\s.-]?\(?0?\)?|\b0)[\s.-]?[5-8](?:[\s.-]?\d){8}\b/g;

function cleanTitle(title: string): string {
  return title
    .replace(PHONE, ' ')
    .replace(/\s+/g, ' ')
    .replace(/(?<![\s,;:–—-])[\s,;:–—-]+$/u, '')
    .trim();
}

/**
 * The listing's own title when it has one; else one composed from what is known:
 * "Appartement 3 chambres — Maarif, Casablanca", "Villa 300 m² à vendre — Marrakech".
 */
export function composeTitle(facts: ListingFacts, language: Language): string {
  if (facts.title !== null) {
    const own = cleanTitle(facts.title);
    if (own !== '') return own;
  }
  const type = propertyTypeLabel(facts.property_type, language);
  const parts = [type];
  const roomy = facts.bedrooms !== null && facts.bedrooms > 0 && facts.property_type !== 'studio';
  if (roomy) parts.push(bedroomsLabel(facts.bedrooms as number, language));
  else if (facts.surface_m2 !== null) parts.push(formatSurface(facts.surface_m2, language));
  if (facts.transaction !== null && (!roomy || facts.property_type === null)) {
    parts.push(TRANSACTION_LABELS[facts.transaction][language]);
  }
  const place = placePhrase(facts.city, facts.district, language);
  return place === null ? parts.join(' ') : `${parts.join(' ')} — ${place}`;
}

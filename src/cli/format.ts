import type { ChalkInstance } from 'chalk';
import { bathroomsLabel, bedroomsLabel, formatSurface, inSentence, propertyTypeLabel } from '../analysis/labels.js';
import { describeSourceAndMonth } from '../analysis/market/reference.js';
import { PROVENANCE_FIELDS, type Language, type Property, type ProvenanceField } from '../core/types.js';

/**
 * Every word of the readable summary in the language of the analysis (--language), as its angles
 * are: labels, fact words, market position, buyer lines and the --explain section. Listing values
 * (titles, places, the seller's words) are shown as written.
 */
const LABELS = {
  en: {
    price: 'Price',
    perM2: 'Price / m²',
    market: 'Market',
    features: 'Features',
    buyer: 'Buyer',
    profile: 'Profile',
    financing: 'Financing',
    angles: 'Marketing angles',
    warnings: 'Warnings',
    notStated: 'not stated',
    noReference: 'no comparable reference',
    forRent: 'for rent',
    forSale: 'for sale',
    untitled: '(untitled listing)',
    currency: 'MAD',
    perMonth: '/month',
    stated: 'stated',
    total: 'total',
    wc: 'WC',
    rooms: (n: number) => `${n} room${n === 1 ? '' : 's'}`,
    floor: (n: number) => (n === 0 ? 'ground floor' : n < 0 ? 'basement' : `floor ${n}`),
    position: { below: 'below', in_line: 'in line', above: 'above' },
    noPosition: 'no position (price or surface missing)',
    vsMedian: 'vs median',
    median: 'median',
    in: 'in',
    figures: (city: string) => `(${city} figures)`,
    sample: 'n=',
    confidence: 'confidence',
    level: { high: 'high', medium: 'medium', low: 'low' },
    then: 'then',
    budget: 'budget',
    explain: 'Where each fact came from',
    noProvenance: '(no field was read from the listing)',
    source: { structured_data: 'page data', page_text: 'page text', description: 'description' },
    fields: {
      transaction: 'transaction',
      property_type: 'property_type',
      price_mad: 'price_mad',
      surface_m2: 'surface_m2',
      surface_total_m2: 'surface_total_m2',
      rooms: 'rooms',
      bedrooms: 'bedrooms',
      bathrooms: 'bathrooms',
      toilets: 'toilets',
      floor: 'floor',
      city: 'city',
      district: 'district',
    },
  },
  fr: {
    price: 'Prix',
    perM2: 'Prix / m²',
    market: 'Marché',
    features: 'Atouts',
    buyer: 'Acheteur',
    profile: 'Profil',
    financing: 'Financement',
    angles: 'Angles marketing',
    warnings: 'Avertissements',
    notStated: 'non indiqué',
    noReference: 'pas de référence comparable',
    forRent: 'à louer',
    forSale: 'à vendre',
    untitled: '(annonce sans titre)',
    currency: 'MAD',
    perMonth: '/mois',
    stated: 'annoncé',
    total: 'au total',
    wc: 'WC',
    rooms: (n: number) => `${n} pièce${n === 1 ? '' : 's'}`,
    floor: (n: number) => (n === 0 ? 'rez-de-chaussée' : n < 0 ? 'sous-sol' : `${n === 1 ? '1er' : `${n}e`} étage`),
    position: { below: 'sous le marché', in_line: 'dans la norme', above: 'au-dessus du marché' },
    noPosition: 'pas de position (prix ou surface manquant)',
    vsMedian: 'par rapport à la médiane',
    median: 'médiane',
    in: 'à',
    figures: (city: string) => `(chiffres de ${city})`,
    sample: 'n=',
    confidence: 'confiance',
    level: { high: 'élevée', medium: 'moyenne', low: 'faible' },
    then: 'puis',
    budget: 'budget',
    explain: 'D’où vient chaque information',
    noProvenance: '(aucune information lue dans l’annonce)',
    source: { structured_data: 'données de la page', page_text: 'texte de la page', description: 'description' },
    fields: {
      transaction: 'transaction',
      property_type: 'type de bien',
      price_mad: 'prix (MAD)',
      surface_m2: 'surface (m²)',
      surface_total_m2: 'surface totale',
      rooms: 'pièces',
      bedrooms: 'chambres',
      bathrooms: 'salles de bain',
      toilets: 'WC',
      floor: 'étage',
      city: 'ville',
      district: 'quartier',
    },
  },
  ar: {
    price: 'السعر',
    perM2: 'السعر / م²',
    market: 'السوق',
    features: 'المزايا',
    buyer: 'المشتري',
    profile: 'الملف',
    financing: 'التمويل',
    angles: 'زوايا التسويق',
    warnings: 'تنبيهات',
    notStated: 'غير مذكور',
    noReference: 'لا مرجع للمقارنة',
    forRent: 'للكراء',
    forSale: 'للبيع',
    untitled: '(إعلان بلا عنوان)',
    currency: 'درهم',
    perMonth: '/شهر',
    stated: 'المعلن',
    total: 'إجمالية',
    wc: 'مرحاض',
    rooms: (n: number) => (n === 1 ? 'غرفة واحدة' : n === 2 ? 'غرفتان' : `${n} ${n <= 10 ? 'غرف' : 'غرفة'}`),
    floor: (n: number) => (n === 0 ? 'الطابق الأرضي' : n < 0 ? 'الطابق السفلي' : `الطابق ${n}`),
    position: { below: 'أقل من السوق', in_line: 'في مستوى السوق', above: 'أعلى من السوق' },
    noPosition: 'بلا تقييم (السعر أو المساحة غير مذكورة)',
    vsMedian: 'مقارنة بالوسيط',
    median: 'الوسيط',
    in: 'في',
    figures: (city: string) => `(أرقام ${city})`,
    sample: 'العينة ',
    confidence: 'الثقة',
    level: { high: 'عالية', medium: 'متوسطة', low: 'ضعيفة' },
    then: 'ثم',
    budget: 'الميزانية',
    explain: 'مصدر كل معلومة',
    noProvenance: '(لم تُقرأ أي معلومة من الإعلان)',
    source: { structured_data: 'بيانات الصفحة', page_text: 'نص الصفحة', description: 'الوصف' },
    fields: {
      transaction: 'المعاملة',
      property_type: 'نوع العقار',
      price_mad: 'السعر (درهم)',
      surface_m2: 'المساحة (م²)',
      surface_total_m2: 'المساحة الإجمالية',
      rooms: 'الغرف',
      bedrooms: 'غرف النوم',
      bathrooms: 'الحمامات',
      toilets: 'المراحيض',
      floor: 'الطابق',
      city: 'المدينة',
      district: 'الحي',
    },
  },
} as const satisfies Record<Language, unknown>;

type Words = (typeof LABELS)[Language];

const group = (n: number): string =>
  Math.round(n)
    .toLocaleString('fr-FR')
    .replace(/\u202f|\u00a0/g, ' ');
const signed = (n: number): string => `${n > 0 ? '+' : ''}${n.toFixed(1)}`;

/** One labelled line of the summary: the label padded so values line up. */
const row = (style: ChalkInstance, label: string, value: string): string => `${style.bold(label.padEnd(12))} ${value}`;

/** A field's value in the --explain section: words in the language, numbers as read. */
function explainedValue(p: Property, field: ProvenanceField, t: Words, language: Language): string {
  if (field === 'transaction' && p.transaction !== null) return p.transaction === 'rent' ? t.forRent : t.forSale;
  if (field === 'property_type') return inSentence(propertyTypeLabel(p.property_type, language), language);
  return String(p[field]);
}

/** The `--explain` section: each field's value, where it came from, the words, the confidence. */
function explanation(p: Property, style: ChalkInstance, t: Words, language: Language): string[] {
  const lines = ['', style.bold(t.explain)];
  for (const field of PROVENANCE_FIELDS) {
    const entry = p.provenance[field];
    if (entry === undefined) continue;
    lines.push(
      `  ${t.fields[field].padEnd(17)} ${explainedValue(p, field, t, language).padEnd(12)} ${t.source[entry.source]}${language === 'ar' ? '، ' : ', '}${t.confidence} ${entry.confidence.toFixed(2)}`,
    );
    lines.push(`  ${''.padEnd(17)} ${style.dim(`“${entry.excerpt}”`)}`);
  }
  if (lines.length === 2) lines.push(`  ${t.noProvenance}`);
  return lines;
}

export interface FormatOptions {
  /** Add where each fact came from (`analyze --explain`). */
  explain?: boolean;
  /** Language of the labels (--language), as the angles are; default English. */
  language?: Language;
}

/** The readable summary `analyze` prints without --json. */
export function formatProperty(p: Property, style: ChalkInstance, options: FormatOptions = {}): string {
  const language = options.language ?? 'en';
  const t = LABELS[language];
  const lines: string[] = [];
  const where = [p.district, p.city].filter(Boolean).join(', ');
  lines.push(style.bold(p.title || t.untitled));
  if (where) lines.push(p.metro_area ? `${where} (${p.metro_area})` : where);
  // A fact held back comes first: nothing below is built on it (docs/analysis.md "Held back").
  for (const fact of p.held_back ?? []) lines.push(style.yellow(`! ${fact.message} [${fact.code}]`));
  const facts: string[] = [];
  if (p.transaction) facts.push(p.transaction === 'rent' ? t.forRent : t.forSale);
  if (p.property_type) facts.push(inSentence(propertyTypeLabel(p.property_type, language), language));
  if (p.surface_m2 !== null) facts.push(formatSurface(p.surface_m2, language));
  if (p.surface_total_m2 !== null) facts.push(`${formatSurface(p.surface_total_m2, language)} ${t.total}`);
  if (p.rooms !== null) facts.push(t.rooms(p.rooms));
  if (p.bedrooms !== null) facts.push(bedroomsLabel(p.bedrooms, language));
  if (p.bathrooms !== null) facts.push(bathroomsLabel(p.bathrooms, language));
  if (p.toilets !== null && p.toilets !== undefined) facts.push(`${p.toilets} ${t.wc}`);
  if (p.floor !== null) facts.push(t.floor(p.floor));
  if (facts.length > 0) lines.push(facts.join(' · '));
  lines.push('');

  const mad = (n: number): string => `${group(n)} ${t.currency}`;
  // Arabic punctuation between the items of a list and between clauses.
  const comma = language === 'ar' ? '، ' : ', ';
  const semicolon = language === 'ar' ? '؛ ' : '; ';
  const perMonth = p.transaction === 'rent' ? t.perMonth : '';
  const original = p.price_original === null ? '' : ` (${t.stated} ${group(p.price_original.amount)} ${p.price_original.currency})`;
  lines.push(row(style, t.price, p.price_mad === null ? t.notStated : `${mad(p.price_mad)}${perMonth}${original}`));
  for (const offer of (p.offers ?? []).slice(1)) {
    const deal = offer.transaction === 'rent' ? `+ ${t.forRent}` : `+ ${t.forSale}`;
    lines.push(
      row(
        style,
        '',
        `${deal}: ${offer.price_mad === null ? t.notStated : `${mad(offer.price_mad)}${offer.period === 'month' ? t.perMonth : ''}`}`,
      ),
    );
  }
  if (p.price_per_m2_mad !== null) lines.push(row(style, t.perM2, `${mad(p.price_per_m2_mad)}${perMonth}`));
  if (p.market !== null) {
    const m = p.market;
    const position = m.position === null ? (m.position_withheld ?? t.noPosition) : t.position[m.position];
    const delta = m.delta_pct === null ? '' : ` (${signed(m.delta_pct)} % ${t.vsMedian})`;
    const band =
      m.q1_price_per_m2_mad !== null && m.q3_price_per_m2_mad !== null
        ? `${comma}Q1–Q3 ${group(m.q1_price_per_m2_mad)}–${group(m.q3_price_per_m2_mad)}`
        : '';
    const sample = m.sample_size === null ? '' : `${comma}${t.sample}${m.sample_size}`;
    // A metro area shown with its main city's figures: "Grand Casablanca (Casablanca figures)".
    const open = m.area.lastIndexOf(' (');
    const area =
      open !== -1 && m.area.endsWith(' figures)')
        ? `${m.area.slice(0, open)} ${t.figures(m.area.slice(open + 2, -' figures)'.length))}`
        : m.area;
    lines.push(row(style, t.market, `${position}${delta}`));
    lines.push(
      row(
        style,
        '',
        `${t.median} ${mad(m.median_price_per_m2_mad)}/${language === 'ar' ? 'م²' : 'm²'}${perMonth} ${t.in} ${area}${band}${sample}${semicolon}${t.confidence} ${t.level[m.confidence]}`,
      ),
    );
    // The source in words, without the project's source keys and document references.
    lines.push(row(style, '', style.dim(describeSourceAndMonth(m.source, m.as_of, language))));
  } else {
    lines.push(row(style, t.market, t.noReference));
  }
  if (p.features.length > 0) lines.push(row(style, t.features, p.features.join(comma)));

  const buyer = p.target_buyer;
  const primary = buyer.segments.find((s) => s.key === buyer.primary);
  const why = primary !== undefined && primary.reasons.length > 0 ? `: ${primary.reasons.join(semicolon)}` : '';
  lines.push(row(style, t.buyer, `${primary?.label ?? buyer.primary}${primary ? ` (${primary.score.toFixed(2)})` : ''}${why}`));
  const others = buyer.segments.filter((s) => s.key !== buyer.primary).slice(0, 3);
  if (others.length > 0) lines.push(row(style, '', `${t.then} ${others.map((s) => `${s.label} ${s.score.toFixed(2)}`).join(' · ')}`));
  const d = buyer.demographics;
  const budget = d.budget_mad === null ? '' : `${comma}${t.budget} ${group(d.budget_mad[0])}–${mad(d.budget_mad[1])}${perMonth}`;
  if (d.household) lines.push(row(style, t.profile, `${d.household}${comma}${d.age_range}${budget}`));
  if (d.financing) lines.push(row(style, t.financing, d.financing));

  if (p.marketing_angles.length > 0) {
    lines.push('', style.bold(t.angles));
    for (const angle of p.marketing_angles) lines.push(`  • ${angle}`);
  }
  if (p.warnings.length > 0) {
    lines.push('', style.yellow(t.warnings));
    for (const w of p.warnings) lines.push(`  ! ${w.message} [${w.code}]`);
  }
  if (options.explain === true) lines.push(...explanation(p, style, t, language));
  return lines.join('\n');
}

import type { ChalkInstance } from 'chalk';
import { PROVENANCE_FIELDS, type Language, type Property, type ProvenanceSource } from '../core/types.js';

/** The summary's labels in the language of the analysis (--language), as its angles are. */
const LABELS = {
  en: { price: 'Price', perM2: 'Price / m²', market: 'Market', features: 'Features', buyer: 'Buyer', profile: 'Profile', financing: 'Financing', angles: 'Marketing angles', warnings: 'Warnings', notStated: 'not stated', noReference: 'no comparable reference', forRent: 'for rent', forSale: 'for sale', untitled: '(untitled listing)' },
  fr: { price: 'Prix', perM2: 'Prix / m²', market: 'Marché', features: 'Atouts', buyer: 'Acheteur', profile: 'Profil', financing: 'Financement', angles: 'Angles marketing', warnings: 'Avertissements', notStated: 'non indiqué', noReference: 'pas de référence comparable', forRent: 'à louer', forSale: 'à vendre', untitled: '(annonce sans titre)' },
  ar: { price: 'السعر', perM2: 'السعر / م²', market: 'السوق', features: 'المزايا', buyer: 'المشتري', profile: 'الملف', financing: 'التمويل', angles: 'زوايا التسويق', warnings: 'تنبيهات', notStated: 'غير مذكور', noReference: 'لا مرجع للمقارنة', forRent: 'للكراء', forSale: 'للبيع', untitled: '(إعلان بلا عنوان)' },
} as const satisfies Record<Language, Record<string, string>>;

const group = (n: number): string => Math.round(n).toLocaleString('fr-FR').replace(/\u202f|\u00a0/g, ' ');
const signed = (n: number): string => `${n > 0 ? '+' : ''}${n.toFixed(1)}`;

/** One labelled line of the summary: the label padded so values line up. */
const row = (style: ChalkInstance, label: string, value: string): string => `${style.bold(label.padEnd(12))} ${value}`;

const SOURCE_LABELS: Record<ProvenanceSource, string> = {
  structured_data: 'page data',
  page_text: 'page text',
  description: 'description',
};

/** The `--explain` section: each field's value, where it came from, the words, the confidence. */
function explanation(p: Property, style: ChalkInstance): string[] {
  const lines = ['', style.bold('Where each fact came from')];
  for (const field of PROVENANCE_FIELDS) {
    const entry = p.provenance[field];
    if (entry === undefined) continue;
    const value = p[field];
    lines.push(`  ${field.padEnd(17)} ${String(value).padEnd(12)} ${SOURCE_LABELS[entry.source]}, confidence ${entry.confidence.toFixed(2)}`);
    lines.push(`  ${''.padEnd(17)} ${style.dim(`“${entry.excerpt}”`)}`);
  }
  if (lines.length === 2) lines.push('  (no field was read from the listing)');
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
  const t = LABELS[options.language ?? 'en'];
  const lines: string[] = [];
  const where = [p.district, p.city].filter(Boolean).join(', ');
  lines.push(style.bold(p.title || t.untitled));
  if (where) lines.push(p.metro_area ? `${where} (${p.metro_area})` : where);
  const facts: string[] = [];
  if (p.transaction) facts.push(p.transaction === 'rent' ? t.forRent : t.forSale);
  if (p.property_type) facts.push(p.property_type);
  if (p.surface_m2 !== null) facts.push(`${p.surface_m2} m²`);
  if (p.surface_total_m2 !== null) facts.push(`${p.surface_total_m2} m² total`);
  if (p.rooms !== null) facts.push(`${p.rooms} room${p.rooms === 1 ? '' : 's'}`);
  if (p.bedrooms !== null) facts.push(`${p.bedrooms} bedroom${p.bedrooms === 1 ? '' : 's'}`);
  if (p.bathrooms !== null) facts.push(`${p.bathrooms} bathroom${p.bathrooms === 1 ? '' : 's'}`);
  if (p.toilets !== null && p.toilets !== undefined) facts.push(`${p.toilets} WC`);
  if (p.floor !== null) facts.push(p.floor === 0 ? 'ground floor' : `floor ${p.floor}`);
  if (facts.length > 0) lines.push(facts.join(' · '));
  lines.push('');

  const perMonth = p.transaction === 'rent' ? '/month' : '';
  const original = p.price_original === null ? '' : ` (stated ${group(p.price_original.amount)} ${p.price_original.currency})`;
  lines.push(row(style, t.price, p.price_mad === null ? t.notStated : `${group(p.price_mad)} MAD${perMonth}${original}`));
  for (const offer of (p.offers ?? []).slice(1)) {
    const deal = offer.transaction === 'rent' ? `+ ${t.forRent}` : `+ ${t.forSale}`;
    lines.push(row(style, '', `${deal}: ${offer.price_mad === null ? t.notStated : `${group(offer.price_mad)} MAD${offer.period === 'month' ? '/month' : ''}`}`));
  }
  if (p.price_per_m2_mad !== null) lines.push(row(style, t.perM2, `${group(p.price_per_m2_mad)} MAD${perMonth}`));
  if (p.market !== null) {
    const m = p.market;
    const position = m.position === null ? 'no position (price or surface missing)' : m.position.replace('_', ' ');
    const delta = m.delta_pct === null ? '' : ` (${signed(m.delta_pct)} % vs median)`;
    const band =
      m.q1_price_per_m2_mad !== null && m.q3_price_per_m2_mad !== null
        ? `, Q1–Q3 ${group(m.q1_price_per_m2_mad)}–${group(m.q3_price_per_m2_mad)}`
        : '';
    const sample = m.sample_size === null ? '' : `, n=${m.sample_size}`;
    lines.push(row(style, t.market, `${position}${delta}`));
    lines.push(row(style, '', `median ${group(m.median_price_per_m2_mad)} MAD/m²${perMonth} in ${m.area}${band}${sample}; confidence ${m.confidence}`));
    // The source without the project's internal document references (they mean nothing to a user).
    lines.push(row(style, '', style.dim(`${m.source.replace(/ ?\((?:research|docs)\/[^()]*\)/g, '')}, ${m.as_of}`)));
  } else {
    lines.push(row(style, t.market, t.noReference));
  }
  if (p.features.length > 0) lines.push(row(style, t.features, p.features.join(', ')));

  const buyer = p.target_buyer;
  const primary = buyer.segments.find((s) => s.key === buyer.primary);
  const why = primary !== undefined && primary.reasons.length > 0 ? `: ${primary.reasons.join('; ')}` : '';
  lines.push(row(style, t.buyer, `${primary?.label ?? buyer.primary}${primary ? ` (${primary.score.toFixed(2)})` : ''}${why}`));
  const others = buyer.segments.filter((s) => s.key !== buyer.primary).slice(0, 3);
  if (others.length > 0) lines.push(row(style, '', `then ${others.map((s) => `${s.label} ${s.score.toFixed(2)}`).join(' · ')}`));
  const d = buyer.demographics;
  const budget = d.budget_mad === null ? '' : `, budget ${group(d.budget_mad[0])}–${group(d.budget_mad[1])} MAD${perMonth}`;
  if (d.household) lines.push(row(style, t.profile, `${d.household}, ${d.age_range}${budget}`));
  if (d.financing) lines.push(row(style, t.financing, d.financing));

  if (p.marketing_angles.length > 0) {
    lines.push('', style.bold(t.angles));
    for (const angle of p.marketing_angles) lines.push(`  • ${angle}`);
  }
  if (p.warnings.length > 0) {
    lines.push('', style.yellow(t.warnings));
    for (const w of p.warnings) lines.push(`  ! ${w.message} [${w.code}]`);
  }
  if (options.explain === true) lines.push(...explanation(p, style));
  return lines.join('\n');
}

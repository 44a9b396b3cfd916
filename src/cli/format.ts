import type { ChalkInstance } from 'chalk';
import type { Property } from '../core/types.js';

const group = (n: number): string => Math.round(n).toLocaleString('fr-FR').replace(/\u202f|\u00a0/g, ' ');

/** The readable summary `analyze` prints without --json. */
export function formatProperty(p: Property, style: ChalkInstance): string {
  const lines: string[] = [];
  const where = [p.district, p.city].filter(Boolean).join(', ');
  lines.push(style.bold(p.title || '(untitled listing)'));
  if (where) lines.push(where);
  const facts: string[] = [];
  if (p.transaction) facts.push(p.transaction === 'rent' ? 'for rent' : 'for sale');
  if (p.property_type) facts.push(p.property_type);
  if (p.surface_m2 !== null) facts.push(`${p.surface_m2} m²`);
  if (p.bedrooms !== null) facts.push(`${p.bedrooms} bedroom${p.bedrooms === 1 ? '' : 's'}`);
  if (p.bathrooms !== null) facts.push(`${p.bathrooms} bathroom${p.bathrooms === 1 ? '' : 's'}`);
  if (p.floor !== null) facts.push(p.floor === 0 ? 'ground floor' : `floor ${p.floor}`);
  if (facts.length > 0) lines.push(facts.join(' · '));
  lines.push('');
  const price = p.price_mad === null ? 'not stated' : `${group(p.price_mad)} MAD${p.transaction === 'rent' ? '/month' : ''}`;
  lines.push(`${style.bold('Price')}        ${price}`);
  if (p.price_per_m2_mad !== null) lines.push(`${style.bold('Price / m²')}   ${group(p.price_per_m2_mad)} MAD`);
  if (p.market !== null) {
    const m = p.market;
    const delta = m.delta_pct === null ? '' : ` (${m.delta_pct > 0 ? '+' : ''}${m.delta_pct.toFixed(1)} % vs median)`;
    const position = m.position === null ? 'no position' : m.position.replace('_', ' ');
    lines.push(`${style.bold('Market')}       ${position}${delta}: median ${group(m.median_price_per_m2_mad)} MAD/m² in ${m.area} (${m.source}, ${m.as_of}, confidence ${m.confidence})`);
  }
  if (p.features.length > 0) lines.push(`${style.bold('Features')}     ${p.features.join(', ')}`);
  const buyer = p.target_buyer;
  const primary = buyer.segments.find((s) => s.key === buyer.primary);
  lines.push(`${style.bold('Buyer')}        ${primary?.label ?? buyer.primary}${primary ? ` (${primary.reasons.join('; ')})` : ''}`);
  if (p.marketing_angles.length > 0) {
    lines.push('', style.bold('Marketing angles'));
    for (const angle of p.marketing_angles) lines.push(`  • ${angle}`);
  }
  if (p.warnings.length > 0) {
    lines.push('', style.yellow('Warnings'));
    for (const w of p.warnings) lines.push(`  ! ${w.message} [${w.code}]`);
  }
  return lines.join('\n');
}

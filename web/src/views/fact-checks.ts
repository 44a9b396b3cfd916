import { $, make } from '../dom.js';
import { formatAmount, isolateNumbers, t } from '../i18n.js';
import { state } from '../state.js';
import type { Property, Warning } from '../types.js';

/**
 * Facts confirmed where they are shown (docs/studio.md "Doubtful facts"): the analysis' warnings
 * in the page's language under the fact they concern, and a doubtful price held back until the
 * agent confirms or corrects it; only then does the render say `confirmed_facts: ["price"]`.
 */

export type FactName = 'price' | 'surface';

/** A fact the analysis holds back (docs/studio.md "Doubtful facts"). */
interface HeldFact {
  field: string;
  code: string;
  message: string;
}

type FieldWarning = Warning & { field?: string };

/**
 * Warning codes about the price that an analysis without `field` (an older server) gives: the page
 * treats them as a doubtful price too, so no doubtful price reaches a video unconfirmed.
 */
const PRICE_CODES = new Set(['PRICE_IMPLAUSIBLE', 'PRICE_PER_M2_IMPLAUSIBLE', 'SALE_PRICE_LOOKS_LIKE_RENT', 'RENT_PRICE_LOOKS_LIKE_SALE']);
const SURFACE_CODES = new Set(['SURFACE_IMPLAUSIBLE']);

/** The fact a warning concerns: its `field`, else what its code is about; null for a warning about the listing as a whole. */
export function warningField(warning: FieldWarning): FactName | null {
  if (warning.field === 'price' || warning.field === 'surface') return warning.field;
  if (PRICE_CODES.has(warning.code)) return 'price';
  if (SURFACE_CODES.has(warning.code)) return 'surface';
  return null;
}

function heldBack(p: Property): HeldFact[] {
  return (p as Property & { held_back?: HeldFact[] }).held_back ?? [];
}

/** A warning in the page's language: its code's own words with the listing's figures, else the analysis' text. */
export function factWarningText(warning: { code: string; message: string }, p: Property): string {
  const key = `warning.${warning.code}`;
  // A held-back price has no price per m² in the analysis: the warning still gives the figure it doubts.
  const ppm2 =
    p.price_per_m2_mad ??
    (p.price_mad !== null && p.surface_m2 !== null && p.surface_m2 > 0 ? Math.round(p.price_mad / p.surface_m2) : null);
  const words = t(key, {
    price: p.price_mad === null ? '—' : formatAmount(p.price_mad, t('unit.mad')),
    surface: p.surface_m2 === null ? '—' : formatAmount(p.surface_m2, t('unit.m2')),
    ppm2: ppm2 === null ? '—' : formatAmount(ppm2, t('unit.mad_m2')),
  });
  return words === key ? isolateNumbers(warning.message) : words;
}

/** The warnings about `field`, held-back entries first, each said once. */
export function fieldWarnings(p: Property, field: FactName): string[] {
  const texts = [
    ...heldBack(p)
      .filter((h) => h.field === field)
      .map((h) => factWarningText(h, p)),
    ...(p.warnings as FieldWarning[]).filter((w) => warningField(w) === field).map((w) => factWarningText(w, p)),
  ];
  return [...new Set(texts)];
}

/**
 * The price needs the agent's word before a render: held back by the analysis. A warning that only
 * informs about the price (key money, a contradiction) is shown under it without asking. An older
 * server's analysis has no `held_back`: there, its price-plausibility codes ask.
 */
export function priceDoubtful(p: Property | null): boolean {
  if (p === null || p.price_mad === null) return false;
  const held = (p as Property & { held_back?: HeldFact[] }).held_back;
  if (held !== undefined) return held.some((h) => h.field === 'price');
  return p.warnings.some((w) => PRICE_CODES.has(w.code));
}

/** Shows the price check under the facts when the price is doubtful; keeps what the agent already chose. */
export function renderPriceCheck(p: Property): void {
  const box = $('price-check');
  box.hidden = !priceDoubtful(p);
  if (box.hidden) return;
  $('price-confirm-label').textContent = t('price.confirm', { price: formatAmount(p.price_mad!, t('unit.mad')) });
  // The first reason (all of them are under the price, above) and what holding it back means.
  $('price-check-why').textContent = `${fieldWarnings(p, 'price')[0] ?? ''} ${t('price.held')}`;
  $<HTMLInputElement>('price-confirm').checked = state.priceCheck.confirmed;
  $<HTMLInputElement>('price-fix').value = state.priceCheck.corrected;
}

/** Says next to the check what is missing, and marks the controls; empty message clears it. */
function showPriceProblem(message: string): void {
  $('price-check-error').textContent = message;
  for (const id of ['price-confirm', 'price-fix']) {
    if (message === '') $(id).removeAttribute('aria-invalid');
    else $(id).setAttribute('aria-invalid', 'true');
  }
}

/**
 * What the render may send about the price: nothing to confirm, a confirmation, a corrected
 * listing, or null when the agent has not said (the message is shown and the focus moved).
 */
export function priceDecision(p: Property | null): { confirmed: FactName[]; listing: Property | null } | null {
  if (p === null || !priceDoubtful(p)) return { confirmed: [], listing: p };
  const corrected = state.priceCheck.corrected.trim();
  if (corrected !== '') {
    const price = Number(corrected);
    if (!Number.isInteger(price) || price <= 0) {
      showPriceProblem(t('price.fix_invalid'));
      $('price-fix').focus();
      return null;
    }
    showPriceProblem('');
    const perM2 = p.surface_m2 === null || p.surface_m2 <= 0 ? null : Math.round(price / p.surface_m2);
    return { confirmed: ['price'], listing: { ...p, price_mad: price, price_per_m2_mad: perM2 } };
  }
  if (state.priceCheck.confirmed) {
    showPriceProblem('');
    return { confirmed: ['price'], listing: p };
  }
  showPriceProblem(t('price.needed'));
  $('price-confirm').focus();
  return null;
}

export function resetPriceCheck(): void {
  state.priceCheck = { confirmed: false, corrected: '' };
  showPriceProblem('');
}

export function wireFactChecks(): void {
  $('price-confirm').addEventListener('change', () => {
    state.priceCheck.confirmed = $<HTMLInputElement>('price-confirm').checked;
    if (state.priceCheck.confirmed) showPriceProblem('');
  });
  $('price-fix').addEventListener('input', () => {
    state.priceCheck.corrected = $<HTMLInputElement>('price-fix').value;
    showPriceProblem('');
  });
  // The duration is checked on the field as it is typed (docs/studio.md "Errors before the click").
  $('opt-duration').addEventListener('input', () => durationProblem(false));
  $('opt-duration').addEventListener('blur', () => durationProblem(false));
}

/** True when the duration field holds something the render would refuse; says so under it. */
export function durationProblem(focus: boolean): boolean {
  const field = $<HTMLInputElement>('opt-duration');
  const text = field.value.trim();
  const value = Number(text);
  const bad = field.validity.badInput || (text !== '' && (!Number.isInteger(value) || value < 10 || value > 90));
  $('duration-error').textContent = bad ? t('duration.invalid') : '';
  if (bad) field.setAttribute('aria-invalid', 'true');
  else field.removeAttribute('aria-invalid');
  if (bad && focus) field.focus();
  return bad;
}

/** The listing's facts list: a fact's warnings right under its value. */
export function factWarningItems(p: Property, field: FactName): HTMLElement[] {
  return fieldWarnings(p, field).map((text) => make('dd', { class: 'fact-warning', dir: 'auto' }, text));
}

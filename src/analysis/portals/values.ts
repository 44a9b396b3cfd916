import type { PriceOriginal, PropertyType, Transaction } from '../../core/types.js';
import { DEFAULT_EUR_TO_MAD } from '../text/extract.js';

/**
 * Readers for the values portals print: amounts with every kind of thousands separator,
 * surfaces, counts, floors, currencies, and the words that say sale/rent or the property type.
 * Pure functions; the conventions they follow are in docs/analysis-text.md ("Price").
 */

const ARABIC_DIGITS = /[\u0660-\u0669\u06f0-\u06f9]/g;

/** Arabic-Indic and Persian digits to ASCII ("١٢٠" → "120"). */
export function asciiDigits(text: string): string {
  return text.replace(ARABIC_DIGITS, (d) => String((d.charCodeAt(0) & 0xf) % 10));
}

/** Lower case, no accents, single spaces: for comparing labels and words, never for output. */
export function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[\s\u00a0\u202f]+/g, ' ')
    .trim();
}

/** Collapses runs of spaces (including NBSP/NNBSP, tabs, newlines) and trims. */
export function tidy(text: string): string {
  return text.replace(/[\s\u00a0\u202f\u2009]+/g, ' ').trim();
}

/**
 * The first number in a text, with thousands separators of any portal: "1 950 000 DH" (U+202F),
 * "9 000" (U+00A0), "350,000", "1.950.000", "350000.0", "1.950.000,00". Null when none.
 */
export function parseAmount(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string') return null;
  const match = /\d[\d\s\u00a0\u202f\u2009.,'’]*/.exec(asciiDigits(value));
  if (!match) return null;
  const token = match[0].replace(/[\s\u00a0\u202f\u2009'’]+/g, '').replace(/(?<![.,])[.,]+$/, '');
  let normalised: string;
  if (/^\d{1,3}([.,])\d{3}(\1\d{3})*$/.test(token)) normalised = token.replace(/[.,]/g, '');
  else if (/^\d{1,3}(\.\d{3})+,\d{1,2}$/.test(token)) normalised = token.replace(/\./g, '').replace(',', '.');
  else if (/^\d{1,3}(,\d{3})+\.\d{1,2}$/.test(token)) normalised = token.replace(/,/g, '');
  else if (/^\d+[.,]\d+$/.test(token)) normalised = token.replace(',', '.');
  else normalised = token.replace(/[.,]/g, '');
  const number = Number(normalised);
  return Number.isFinite(number) ? number : null;
}

/** A positive whole count ("3 Chambres", "3", 3) or null. Values over 100 are not room counts. */
export function parseCount(value: unknown): number | null {
  const number = parseAmount(value);
  if (number === null || number < 0 || number > 100) return null;
  return Math.round(number);
}

/** A surface in m² ("112m²", "82\n\t\tm²", "1 250 m²", 147) or null. */
export function parseSurface(value: unknown): number | null {
  const number = parseAmount(value);
  if (number === null || number <= 0) return null;
  return Math.round(number * 100) / 100;
}

/**
 * A floor: 0 for the ground floor (RDC), negative below ground, null for "last floor" and the
 * like (they say nothing about the number). "3ème étage", "Rez de chaussée", "Sous-sol", 2.
 */
export function parseFloor(value: unknown): number | null {
  if (typeof value === 'number') return Number.isInteger(value) ? value : null;
  if (typeof value !== 'string') return null;
  const text = fold(asciiDigits(value));
  if (text === '') return null;
  if (/\b(rez|rdc|ground|r\.?d\.?c)\b|ارضي|أرضي|السفلي/.test(text)) return 0;
  if (/sous[- ]?sol|basement|قبو/.test(text)) {
    const depth = /(\d+)/.exec(text);
    return depth ? -Number(depth[1]) : -1;
  }
  const number = /(-?\d+)/.exec(text);
  if (!number) return null;
  const floor = Number(number[1]);
  return floor > 200 ? null : floor;
}

export type CurrencyCode = 'MAD' | 'EUR' | 'USD';

/** The currency a price string or code names, or null when it names none. */
export function parseCurrency(value: unknown): CurrencyCode | null {
  if (typeof value !== 'string') return null;
  const text = fold(value);
  if (/€|\beur\b|\beuros?\b/.test(text)) return 'EUR';
  if (/\$|\busd\b|\bdollars?\b/.test(text)) return 'USD';
  if (/\b(dh|dhs|mad|dirhams?)\b|درهم/.test(text)) return 'MAD';
  return null;
}

export { DEFAULT_EUR_TO_MAD };

export interface Price {
  price_mad: number | null;
  price_original: PriceOriginal | null;
}

/** A stated amount in MAD terms: EUR is converted at `eurToMad` (original kept); other currencies stay unconverted. */
export function priceInMad(amount: number | null, currency: CurrencyCode | null, eurToMad: number): Price {
  if (amount === null || amount <= 0) return { price_mad: null, price_original: null };
  if (currency === null || currency === 'MAD') return { price_mad: Math.round(amount), price_original: null };
  if (currency === 'EUR') {
    return { price_mad: Math.round(amount * eurToMad), price_original: { amount, currency: 'EUR' } };
  }
  return { price_mad: null, price_original: { amount, currency } };
}

/** Phrases that replace a hidden price ("Prix à consulter", "Price on request", …). */
export function isPriceOnRequest(text: string): boolean {
  return /prix a consulter|prix sur demande|price on request|demander le prix|prix non specifie|على الطلب|السعر عند الطلب/.test(fold(text));
}

const RENT_WORDS = /\b(a louer|louer|location|locations|loue|for rent|to rent|to let|rent|rental|rentals|kra)\b|للكراء|كراء|للإيجار|إيجار/;
const SALE_WORDS = /\b(a vendre|vendre|vente|ventes|vend|for sale|sale|sell|buy|acheter|achat|sell)\b|للبيع|بيع/;

/** "sale" or "rent" when the words say so unambiguously ("à louer", "for sale", "للبيع"), else null. */
export function transactionFromWords(text: string | null | undefined): Transaction | null {
  if (!text) return null;
  const folded = fold(text.replace(/[_\-/]+/g, ' '));
  const rent = RENT_WORDS.test(folded);
  const sale = SALE_WORDS.test(folded);
  if (rent === sale) return null;
  return rent ? 'rent' : 'sale';
}

/** Ordered: the first matching kind wins, so "villa" beats "maison" and "studio" beats "appartement". */
const TYPE_WORDS: [RegExp, PropertyType][] = [
  [/\bstudios?\b|ستوديو/, 'studio'],
  [/\bduplex\b|دوبلكس/, 'duplex'],
  [/\b(penthouse|attique)s?\b/, 'penthouse'],
  [/\briads?\b|رياض/, 'riad'],
  [/\bvillas?\b|فيلا/, 'villa'],
  [/\b(fermes?|farms?|farmhouses?)\b|ضيعة/, 'farm'],
  [/\b(terrains?|lands?|plots?|lots?)\b|بقعة|أرض/, 'land'],
  [/\b(immeubles?|buildings?)\b|عمارة/, 'building'],
  [/\b(bureaux?|offices?|plateaux? de bureaux?)\b|مكتب/, 'office'],
  [
    /\b(locals? commerciaux?|local commercial|locaux?|magasins?|commerces?|boutiques?|shops?|commercial|fonds de commerce|entrepots?|warehouses?)\b|محل/,
    'commercial',
  ],
  [/\b(appartements?|apartments?|apparts?|flats?)\b|شقة|شقق/, 'apartment'],
  [/\b(maisons?|houses?|homes?|dars?)\b|منزل|دار/, 'house'],
];

/** The property type a label or title names ("Type de bien: Villa", "House for sale"), else null. */
export function propertyTypeFromWords(text: string | null | undefined): PropertyType | null {
  if (!text) return null;
  const folded = fold(text.replace(/[_\-/]+/g, ' '));
  for (const [pattern, type] of TYPE_WORDS) if (pattern.test(folded)) return type;
  return null;
}

import type { Language } from '../core/types.js';

/**
 * The one way analysis warnings speak the request's language (docs/analysis.md "Warnings"): each
 * message is written once in every language, and `sayer(language)` picks the request's.
 */

/** One message in each language the analysis speaks. */
export type Texts = Readonly<Record<Language, string>>;

/** Picks the request's language from the words of one message in each language. */
export type Say = (texts: Texts) => string;

export function sayer(language: Language): Say {
  return (texts) => texts[language];
}

/** 1234567.5 → "1 234 567.5": a space between thousands, the same in every language. */
export function spacedNumber(value: number): string {
  const [whole = '', fraction] = (Number.isInteger(value) ? String(value) : value.toFixed(1)).split('.');
  const sign = whole.startsWith('-') ? '-' : '';
  const digits = sign === '' ? whole : whole.slice(1);
  const groups: string[] = [];
  for (let end = digits.length; end > 0; end -= 3) groups.unshift(digits.slice(Math.max(0, end - 3), end));
  return `${sign}${groups.join(' ')}${fraction === undefined ? '' : `.${fraction}`}`;
}

/** A list in a sentence: "a, b and c" / "a, b et c" / "a، b و c". */
export function listIn(items: readonly string[], say: Say): string {
  if (items.length <= 1) return items.join('');
  const and = say({ en: ' and ', fr: ' et ', ar: ' و' });
  const comma = say({ en: ', ', fr: ', ', ar: '، ' });
  return `${items.slice(0, -1).join(comma)}${and}${items[items.length - 1] ?? ''}`;
}

/** Units as each language writes them. */
export const MAD: Texts = { en: 'MAD', fr: 'DH', ar: 'درهم' };
export const M2: Texts = { en: 'm²', fr: 'm²', ar: 'م²' };

/**
 * Seller phone numbers, names and e-mails never leave the parser (docs/analysis.md): every text an
 * adapter returns goes through here. Phone patterns cover Moroccan numbers in the forms
 * listings write them (06…, +212 6…, 00212…, with spaces, dots or dashes, Arabic-Indic digits).
 */

const DIGIT = '[0-9\\u0660-\\u0669\\u06f0-\\u06f9]';
const ZERO = '[0\\u0660\\u06f0]';
const MOBILE_OR_FIXED = '[5-8\\u0665-\\u0668\\u06f5-\\u06f8]';
const SEP = '[\\s.\\-]?';

const PHONE = new RegExp(
  [
    // +212 6 12 34 56 78, 00212-6…, 212612345678, +212 (0)6…
    `(?:(?:\\+|00)\\s?212|(?<!${DIGIT})212)${SEP}(?:\\(0\\)${SEP})?${MOBILE_OR_FIXED}(?:${SEP}${DIGIT}){8}(?!${DIGIT})`,
    // 06 12 34 56 78, 0612345678, 05.22.12.34.56
    `(?<!${DIGIT})${ZERO}${MOBILE_OR_FIXED}(?:${SEP}${DIGIT}){8}(?!${DIGIT})`,
  ].join('|'),
  'g',
);

// A match starts only where a run of address characters starts: scanning each run once keeps a
// long run without an `@` linear (docs/security.md).
const EMAIL = /(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;

/** What stands in for a scrubbed phone number, e-mail or name. */
export const HIDDEN = '[…]';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The text with phone numbers, e-mails and the given private strings (seller names…) removed. */
export function scrubPrivate(text: string, privateStrings: readonly string[] = []): string {
  let result = text.replace(PHONE, HIDDEN).replace(EMAIL, HIDDEN);
  // Longest first, so "Keysafe Immobilier" goes before "Keysafe".
  for (const value of [...privateStrings].sort((a, b) => b.length - a.length)) {
    const trimmed = value.trim();
    if (trimmed.length < 3) continue;
    result = result.replace(new RegExp(escapeRegExp(trimmed), 'giu'), HIDDEN);
  }
  return result;
}

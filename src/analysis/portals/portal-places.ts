import { findCity, findDistrict } from '../text/gazetteer.js';
import { fold, tidy } from './values.js';

/**
 * City and district names as portals give them: proper names ("Meknès", "2 Mars"), slugs
 * ("dar-bouazza"), shouting ("CASABLANCA"), or placeholders that name no place ("Toute la ville",
 * "Autre secteur"). Names are tidied, never translated: the portal's spelling is the user's.
 */

/** Values a portal puts in a district field when the advertiser picked no district. */
const NO_PLACE = new Set([
  'toute la ville',
  'autre secteur',
  'autres secteurs',
  'autre quartier',
  'autres',
  'autre',
  'other',
  'others',
  'all',
  'all the city',
  'whole city',
  'maroc',
  'morocco',
  'كل المدينة',
  'قطاع آخر',
]);

function capitalise(word: string): string {
  return word.length === 0 ? word : word[0].toLocaleUpperCase('fr') + word.slice(1);
}

/**
 * A place name as the portal spells it ("Meknès", "2 Mars", "Temara"). Slugs and names in one
 * case ("dar-bouazza", "CASABLANCA") lost their spelling: the gazetteer's name is used when it
 * knows the place (`canonical`), else the words are capitalised.
 */
export function placeName(raw: unknown, canonical: (name: string) => string | null = () => null): string | null {
  if (typeof raw !== 'string') return null;
  let name = tidy(raw);
  if (name === '') return null;
  if (NO_PLACE.has(fold(name))) return null;
  if (!/\s/.test(name) && /[-_]/.test(name) && name === name.toLowerCase()) name = name.replace(/[-_]+/g, ' ');
  const letters = name.replace(/[^\p{L}]/gu, '');
  const shouting = letters.length > 1 && letters === letters.toUpperCase() && letters !== letters.toLowerCase();
  const quiet = letters.length > 0 && letters === letters.toLowerCase() && letters !== letters.toUpperCase();
  if (shouting || quiet) {
    name =
      canonical(name) ??
      name
        .toLowerCase()
        .split(' ')
        .map((word) => word.split('-').map(capitalise).join('-'))
        .join(' ');
  }
  return NO_PLACE.has(fold(name)) ? null : name;
}

/** A city name (see placeName); the gazetteer restores accents and case of slugs ("kenitra" → "Kénitra"). */
export function cityName(raw: unknown): string | null {
  return placeName(raw, findCity);
}

/** Same place whatever the accents and case ("Meknès" = "meknes"). */
export function samePlace(a: string | null, b: string | null): boolean {
  if (a === null || b === null) return false;
  const key = (s: string): string => fold(s).replace(/[^\p{L}\p{N}]+/gu, '');
  return key(a) === key(b);
}

/**
 * A district, dropping what is not one: placeholders, the city itself, and an arrondissement in
 * brackets ("Bourgogne (Sidi Belyout)" → "Bourgogne"; the bracket names the wider area).
 */
export function districtName(raw: unknown, city: string | null): string | null {
  const name = placeName(typeof raw === 'string' ? raw.replace(/(?<!\s)\s*\([^()]*\)\s*$/, '') : raw, (n) => findDistrict(city, n));
  if (name === null || samePlace(name, city)) return null;
  return name;
}

/**
 * Splits a "<district> à <city>" / "<district> in <city>" / "<district>, <city>" location line.
 * A single name is the city.
 */
export function splitLocation(raw: string | null | undefined): { city: string | null; district: string | null } {
  if (!raw) return { city: null, district: null };
  const text = tidy(raw);
  const parts = splitAtWord(text, /(?<!\s)\s+(?:à|a|in|في)\s+/gu, (right) => !right.includes(',')) ?? splitAtLastComma(text);
  if (!parts) return { city: cityName(text), district: null };
  const city = cityName(parts[1]);
  return { city, district: districtName(parts[0], city) };
}

/**
 * "<left> à <right>" split at the first `separator` (a global pattern) with text on both sides
 * whose right side passes `accept`. One scan of the text: a lazy `^(.+?)\s+à\s+(.+)$` backtracks
 * quadratically on long runs of spaces (docs/security.md).
 */
export function splitAtWord(text: string, separator: RegExp, accept: (right: string) => boolean = () => true): [string, string] | null {
  for (const match of text.matchAll(separator)) {
    const left = text.slice(0, match.index);
    const right = text.slice(match.index + match[0].length);
    if (left !== '' && right !== '' && !right.includes('\n') && accept(right)) return [left, right];
  }
  return null;
}

/** "<left>, <right>" at the last comma, with text on both sides. */
function splitAtLastComma(text: string): [string, string] | null {
  const comma = text.lastIndexOf(',');
  if (comma <= 0) return null;
  const right = text.slice(comma + 1).trimStart();
  return right === '' ? null : [text.slice(0, comma), right];
}

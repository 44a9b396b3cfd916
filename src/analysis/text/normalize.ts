/**
 * Text normalisation shared by every extractor. Listings mix French, English, Arabic script and
 * Darija in Latin letters; every rule downstream matches against one canonical form:
 *
 * - compatibility forms folded (NFKD): `m²` → `m2`, `5ᵉ` → `5e`, Arabic presentation forms
 *   (ﻣﺪﻳﻨﺔ, as pasted from PDFs) → ordinary letters, full-width digits → ASCII;
 * - diacritics dropped (é → e, Arabic harakat, hamza seats: أ/إ/آ → ا), lower case;
 * - Arabic-Indic (٠–٩) and Persian (۰–۹) digits → ASCII; Arabic letter variants unified
 *   (ة → ه, ى/ی → ي, ک → ك), tatweel removed (docs/analysis-text.md: "normalise Arabic variants");
 * - every space-like character (U+00A0, U+202F, thin spaces…) → one ASCII space, newlines kept
 *   as sentence boundaries; typographic apostrophes and dashes → ASCII.
 */

/** Letters of normalised text (Latin without accents, Latin extensions, Arabic), for fast non-Unicode regexes. */
export const LETTERS = 'a-z\\u00df-\\u024f\\u0600-\\u06ff';

/**
 * Start of a word, letting an Arabic proclitic stand before it ("ومسبح" = "and a pool"): a
 * lookbehind, so that it costs nothing to the regex engine's first-character scan.
 */
export const WORD_START = `(?<=^|[^${LETTERS}\\d]|(?:^|[^${LETTERS}\\d])(?:وب|ول|فب|و|ف|ب|ل|ك))`;

const COMBINING_MARKS = /\p{M}+/gu;
const ARABIC_INDIC_DIGIT = /[\u0660-\u0669\u06f0-\u06f9]/g;
const INVISIBLES = /[\u200b-\u200f\u202a-\u202e\u2066-\u2069\u061c\ufeff\u0640]/g;
const APOSTROPHES = /[\u2018\u2019\u201b\u0060\u00b4\u02bc\u02b9\u2032]/g;
const DASHES = /[\u2010-\u2015\u2212]/g;
const HORIZONTAL_SPACE_RUN = /[^\S\n]+/g;
const NEWLINE_RUN = /(?<!\s)\s*\n\s*/g;
/** Avito's cut descriptions end in "Voir plus", often glued to the last word ("DHVoir plus"). */
const VOIR_PLUS_TAIL = /voir plus\s*$/;

function asciiDigit(char: string): string {
  const code = char.charCodeAt(0);
  return String(code >= 0x06f0 ? code - 0x06f0 : code - 0x0660);
}

/** Arabic-Indic and Persian digits to ASCII; nothing else changes (keeps string length). */
export function normalizeDigits(text: string): string {
  return text.replace(ARABIC_INDIC_DIGIT, asciiDigit);
}

const LETTER_VARIANTS: Record<string, string> = {
  '\u0629': '\u0647', // ة → ه
  '\u06c3': '\u0647', // ۃ → ه
  '\u0649': '\u064a', // ى → ي
  '\u06cc': '\u064a', // ی (Persian yeh) → ي
  '\u06a9': '\u0643', // ک (Persian kaf) → ك
  '\u066b': ',', // Arabic decimal separator
  '\u066c': ' ', // Arabic thousands separator
  '\u060c': ',', // Arabic comma
  '\u061b': ';',
  '\u061f': '?',
};
const LETTER_VARIANT_CHARS = /[\u0629\u06c3\u0649\u06cc\u06a9\u066b\u066c\u060c\u061b\u061f]/g;

/** The canonical form every extractor matches against (see the module comment). */
export function normalizeText(raw: string): string {
  return raw
    .normalize('NFKD')
    .replace(COMBINING_MARKS, '')
    .toLowerCase()
    .replace(INVISIBLES, '')
    .replace(ARABIC_INDIC_DIGIT, asciiDigit)
    .replace(LETTER_VARIANT_CHARS, (char) => LETTER_VARIANTS[char] ?? char)
    .replace(APOSTROPHES, "'")
    .replace(DASHES, '-')
    .replace(VOIR_PLUS_TAIL, ' ')
    .replace(HORIZONTAL_SPACE_RUN, ' ')
    .replace(NEWLINE_RUN, '\n')
    .trim();
}

const NAME_SEPARATORS = /[^\p{L}\p{N}]+/gu;
const DIGIT_LETTER_BOUNDARY = /(\p{N})(?=\p{L})|(\p{L})(?=\p{N})/gu;
const DOUBLED_LETTER = /(\p{L})\1+/gu;

/**
 * A spelling-tolerant key for place names: normalised text, punctuation and apostrophes as
 * word breaks, digits split from letters ("2mars" = "2 mars"), doubled letters collapsed
 * (Maârif = Maarif = Marif, Assilah = Asilah).
 */
export function nameKey(name: string): string {
  return normalizeText(name)
    .replace(NAME_SEPARATORS, ' ')
    .replace(DIGIT_LETTER_BOUNDARY, '$1$2 ')
    .replace(DOUBLED_LETTER, '$1')
    .replace(HORIZONTAL_SPACE_RUN, ' ')
    .trim();
}

export interface Token {
  /** The token's nameKey form. */
  key: string;
  /** Offsets in the normalised text. */
  start: number;
  end: number;
}

const WORD_PART = /[a-z\u00df-\u024f\u0600-\u06ff]+|\d+/g;

/** Collapses runs of one repeated letter ("maarif" → "marif"); digits are left alone. */
function collapseDoubles(word: string): string {
  let repeated = false;
  for (let i = 1; i < word.length; i += 1) {
    if (word.charCodeAt(i) === word.charCodeAt(i - 1)) {
      repeated = true;
      break;
    }
  }
  if (!repeated) return word;
  let collapsed = word[0] ?? '';
  for (let i = 1; i < word.length; i += 1) {
    if (word.charCodeAt(i) !== word.charCodeAt(i - 1)) collapsed += word[i];
  }
  return collapsed;
}

/**
 * Words of a normalised text with their offsets, keyed like `nameKey`: letters and digits are
 * separate words ("2mars" = "2 mars", "tamaris2" = "tamaris 2"), doubled letters collapsed.
 */
export function tokenize(normalized: string): Token[] {
  const tokens: Token[] = [];
  WORD_PART.lastIndex = 0;
  for (let match = WORD_PART.exec(normalized); match !== null; match = WORD_PART.exec(normalized)) {
    const word = match[0];
    const isDigits = word.charCodeAt(0) >= 48 && word.charCodeAt(0) <= 57;
    tokens.push({ key: isDigits ? word : collapseDoubles(word), start: match.index, end: match.index + word.length });
  }
  return tokens;
}

/**
 * Numbers as listings write them, read from normalised text (see normalize.ts).
 *
 * Thousands separators vary by portal and language (docs/analysis-text.md "Price"):
 * spaces (U+00A0 and U+202F are already plain spaces here), dots ("1.950.000"), commas
 * ("350,000"), apostrophes. A comma or dot followed by other than three digits is a decimal
 * ("1,8 MDH", "7900,00 Dhs", "350000.0"). One separator followed by exactly three digits is
 * ambiguous: thousands in "15.000 m2" but a decimal in "2,995 MDH"; the token keeps both readings
 * and the unit decides (price.ts).
 */
import { findWordNumbers } from './number-words.js';

export interface NumberToken {
  /** Value with every separator read as a thousands separator (or as the decimal point when unambiguous). */
  value: number;
  /** The decimal reading of "2,995"-like tokens, else null. */
  decimalReading: number | null;
  /** True when the written number has a decimal part (or could have one: decimalReading). */
  hasDecimal: boolean;
  /** Written with thousands separators ("480.000", "1 200 000"): how amounts are written. */
  grouped: boolean;
  start: number;
  end: number;
  /** Written in words, alone or with digits ("un million deux cent mille", "مليون و200 ألف"): number-words.ts. */
  spelled?: { scale: number; millionCount: number | null };
}

/**
 * Digits glued by separators; a Latin letter or digit just before means it is part of a word (9rib,
 * ETG1); R+4 / R/3 is a building height; the "2" of a lone "م2" (m², from "م²") is the unit's.
 */
const NUMBER_RUN = /(?<![a-z\d]|\br\s?[+/]\s?|(?<![\u0600-\u06ff])م)\d+(?:[.,' ]\d+)*/g;
const GROUP_WITH_SEPARATOR = /([.,' ]?)(\d+)/g;
/** Moroccan mobile/landline numbers (06…, 07…, 05…, +212): never a quantity. */
const PHONE_LIKE = /^0[5-7]\d{8}$/;

interface Group {
  separator: string;
  digits: string;
  offset: number;
}

function splitGroups(run: string): Group[] {
  const groups: Group[] = [];
  for (const match of run.matchAll(GROUP_WITH_SEPARATOR)) {
    groups.push({ separator: match[1] ?? '', digits: match[2] ?? '', offset: match.index });
  }
  return groups;
}

function readToken(groups: Group[], runStart: number): NumberToken | null {
  const first = groups[0];
  const last = groups[groups.length - 1];
  if (first === undefined || last === undefined) return null;
  const start = runStart + first.offset + first.separator.length;
  const end = runStart + last.offset + last.separator.length + last.digits.length;
  const plain = groups.map((group) => group.digits).join('');
  if (PHONE_LIKE.test(plain)) return null;

  const marks = groups
    .slice(1)
    .map((group) => group.separator)
    .filter((sep) => sep !== ' ');
  if (marks.length === 0) {
    return { value: Number(plain), decimalReading: null, hasDecimal: false, grouped: groups.length > 1, start, end };
  }
  const lastMarkIndex = groups.map((group) => group.separator).lastIndexOf(marks[marks.length - 1] as string);
  const lastMarked = groups[lastMarkIndex] as Group;
  const integerPart = groups
    .slice(0, lastMarkIndex)
    .map((group) => group.digits)
    .join('');
  const tail = groups
    .slice(lastMarkIndex)
    .map((group) => group.digits)
    .join('');
  const lastMark = lastMarked.separator;
  const sameMarkCount = marks.filter((mark) => mark === lastMark).length;

  if (lastMark !== "'" && lastMarked.digits.length !== 3 && lastMarkIndex === groups.length - 1) {
    // "1,8", "7900,00", "350000.0": a decimal part.
    const value = Number(`${integerPart}.${lastMarked.digits}`);
    return { value, decimalReading: null, hasDecimal: true, grouped: lastMarkIndex > 1, start, end };
  }
  const thousands = Number(integerPart + tail);
  const ambiguous =
    lastMark !== "'" && sameMarkCount === 1 && marks.length === 1 && lastMarkIndex === groups.length - 1 && groups.length === 2;
  return {
    value: thousands,
    decimalReading: ambiguous ? Number(`${integerPart}.${lastMarked.digits}`) : null,
    hasDecimal: ambiguous,
    grouped: true,
    start,
    end,
  };
}

/**
 * Splits a run of digits and separators into numbers. A space joins groups only when what
 * follows is exactly three digits ("1 950 000", also the common "1500 000"); otherwise the
 * space separates two numbers ("2 100" stays 2100, but "3 12" is two numbers).
 */
export function findNumbers(normalized: string): NumberToken[] {
  const tokens: NumberToken[] = [];
  for (const match of normalized.matchAll(NUMBER_RUN)) {
    const groups = splitGroups(match[0]);
    let current: Group[] = [];
    for (const group of groups) {
      const previous = current[current.length - 1];
      const joins =
        previous !== undefined &&
        (group.separator !== ' ' ||
          (group.digits.length === 3 &&
            !current.slice(1).some((g) => g.separator !== ' ' && g.digits.length !== 3) &&
            (current.length > 1 ? previous.digits.length === 3 : previous.digits.length <= 4)));
      if (!joins && current.length > 0) {
        const token = readToken(current, match.index);
        if (token) tokens.push(token);
        current = [];
      }
      current.push(current.length === 0 ? { ...group, offset: group.offset + group.separator.length, separator: '' } : group);
    }
    const token = readToken(current, match.index);
    if (token) tokens.push(token);
  }
  return tokens;
}

/**
 * Every number of the text, in order: those written in words (number-words.ts), and those written
 * in digits outside them (the "200" of "مليون و200 ألف" is part of the phrase, not a number of its own).
 */
export function findAllNumbers(normalized: string): NumberToken[] {
  const spelled: NumberToken[] = findWordNumbers(normalized).map((phrase) => ({
    value: phrase.value,
    decimalReading: null,
    hasDecimal: false,
    grouped: true,
    start: phrase.start,
    end: phrase.end,
    spelled: { scale: phrase.scale, millionCount: phrase.millionCount },
  }));
  if (spelled.length === 0) return findNumbers(normalized);
  const digits = findNumbers(normalized).filter((token) => !spelled.some((phrase) => token.start < phrase.end && token.end > phrase.start));
  return [...digits, ...spelled].sort((a, b) => a.start - b.start);
}

/** Small counts written as words (FR, EN, Arabic script, Darija in Latin letters). */
export const COUNT_WORDS: ReadonlyMap<string, number> = new Map([
  ['un', 1],
  ['une', 1],
  ['deux', 2],
  ['trois', 3],
  ['quatre', 4],
  ['cinq', 5],
  ['six', 6],
  ['sept', 7],
  ['huit', 8],
  ['neuf', 9],
  ['dix', 10],
  ['one', 1],
  ['two', 2],
  ['three', 3],
  ['four', 4],
  ['five', 5],
  ['seven', 7],
  ['eight', 8],
  ['nine', 9],
  ['ten', 10],
  ['single', 1],
  ['واحد', 1],
  ['واحده', 1],
  ['اثنين', 2],
  ['اثنان', 2],
  ['اتنين', 2],
  ['ثلاث', 3],
  ['ثلاثه', 3],
  ['اربع', 4],
  ['اربعه', 4],
  ['خمس', 5],
  ['خمسه', 5],
  ['ست', 6],
  ['سته', 6],
  ['سبع', 7],
  ['سبعه', 7],
  ['ثمان', 8],
  ['ثمانيه', 8],
  ['تسع', 9],
  ['تسعه', 9],
  ['عشر', 10],
  ['عشره', 10],
  ['wahed', 1],
  ['wa7ed', 1],
  ['wahd', 1],
  ['jouj', 2],
  ['jooj', 2],
  ['jouje', 2],
  ['zouj', 2],
  ['zoj', 2],
  ['joj', 2],
  ['tlata', 3],
  ['tleta', 3],
  ['tlat', 3],
  ['rb3a', 4],
  ['rab3a', 4],
  ['reb3a', 4],
  ['arba3a', 4],
  ['khamsa', 5],
  ['5amsa', 5],
  ['setta', 6],
  ['stta', 6],
  ['sb3a', 7],
  ['seb3a', 7],
]);

/** Regex alternation of the count words, longest first (for building patterns). */
export const COUNT_WORD_PATTERN = [...COUNT_WORDS.keys()].sort((a, b) => b.length - a.length).join('|');

/** A written count: digits or a count word; null when it is neither. */
export function parseCount(written: string): number | null {
  const trimmed = written.trim();
  if (/^\d{1,3}$/.test(trimmed)) return Number(trimmed);
  return COUNT_WORDS.get(trimmed) ?? null;
}

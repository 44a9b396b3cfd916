/**
 * Numbers written in words, alone or mixed with digits (docs/analysis-text.md "Numbers in words"):
 * French ("un million deux cent mille", "quatre-vingt-dix"), English ("four million five hundred
 * thousand"), Arabic (MSA and Darija: "مليون و200 ألف", "مليونين و500 ألف", "ثلاثة ملايين",
 * "خمسمائة ألف", "مليون ونص") and Darija in Latin letters with 3/7/9 for ع/ح/ق ("1 million w 100
 * alf", "khamsmya alf", "mlyon w nss"). Pure; reads normalised text (normalize.ts: lower case,
 * accents and hamzas dropped, ة→ه, so "مائة" is "مايه" and "مئتين" is "ميتين").
 *
 * A phrase is a run of number words, digits (three at most) and joining words ("et", "and", "و",
 * "w") with only spaces or hyphens between them. Its value is the sum of its groups, each a count
 * below 1000 times a scale (thousand, million, milliard) that decreases along the phrase, plus a
 * last group without a scale; a half or a quarter after a scale ("et demi", "ونص", "w nss",
 * "وربع") adds that part of it. A dual ("مليونين", "ألفين", "mlyonin") counts two.
 */

/** One word of a phrase. */
type Atom =
  | { kind: 'count'; value: number; digits: boolean }
  /** "cent", "hundred", "مايه", "mya": multiplies the count before it (or 1). */
  | { kind: 'hundred' }
  | { kind: 'scale'; value: number; dual: boolean; plural: boolean }
  | { kind: 'part'; fraction: number }
  | { kind: 'and' };

const COUNTS: Record<string, number> = {
  // French
  un: 1,
  une: 1,
  deux: 2,
  trois: 3,
  quatre: 4,
  cinq: 5,
  six: 6,
  sept: 7,
  huit: 8,
  neuf: 9,
  dix: 10,
  onze: 11,
  douze: 12,
  treize: 13,
  quatorze: 14,
  quinze: 15,
  seize: 16,
  vingt: 20,
  vingts: 20,
  'quatre-vingt': 80,
  trente: 30,
  quarante: 40,
  cinquante: 50,
  soixante: 60,
  septante: 70,
  huitante: 80,
  octante: 80,
  nonante: 90,
  // English
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fourty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
  // Arabic (MSA), normalised
  واحد: 1,
  واحده: 1,
  احد: 1,
  احدى: 1,
  اثنان: 2,
  اثنين: 2,
  اثنا: 2,
  اثني: 2,
  اثنتين: 2,
  اثنتان: 2,
  ثلاث: 3,
  ثلاثه: 3,
  اربع: 4,
  اربعه: 4,
  خمس: 5,
  خمسه: 5,
  ست: 6,
  سته: 6,
  سبع: 7,
  سبعه: 7,
  ثمان: 8,
  ثماني: 8,
  ثمانيه: 8,
  تسع: 9,
  تسعه: 9,
  عشر: 10,
  عشره: 10,
  عشرون: 20,
  عشرين: 20,
  ثلاثون: 30,
  ثلاثين: 30,
  اربعون: 40,
  اربعين: 40,
  خمسون: 50,
  خمسين: 50,
  ستون: 60,
  ستين: 60,
  سبعون: 70,
  سبعين: 70,
  ثمانون: 80,
  ثمانين: 80,
  تسعون: 90,
  تسعين: 90,
  // Darija, Arabic letters
  جوج: 2,
  زوج: 2,
  تلاته: 3,
  تلات: 3,
  ربعه: 4,
  تمنيه: 8,
  تمنه: 8,
  تسعود: 9,
  حداش: 11,
  طناش: 12,
  تلطاش: 13,
  ربعطاش: 14,
  خمسطاش: 15,
  سطاش: 16,
  سبعطاش: 17,
  تمنطاش: 18,
  تسعطاش: 19,
  تلاتين: 30,
  ربعين: 40,
  تمانين: 80,
  // Darija, Latin letters (3 = ع, 7 = ح, 9 = ق)
  wahed: 1,
  wa7ed: 1,
  wahd: 1,
  wa7d: 1,
  jouj: 2,
  jooj: 2,
  zouj: 2,
  zoj: 2,
  joj: 2,
  tlata: 3,
  tleta: 3,
  tlat: 3,
  rb3a: 4,
  reb3a: 4,
  rab3a: 4,
  arba3a: 4,
  khamsa: 5,
  khmsa: 5,
  '5amsa': 5,
  setta: 6,
  stta: 6,
  sb3a: 7,
  seb3a: 7,
  tmnya: 8,
  tmenya: 8,
  tmanya: 8,
  ts3ud: 9,
  tes3oud: 9,
  '3achra': 10,
  '3ashra': 10,
  '3chra': 10,
  '7dach': 11,
  '7dash': 11,
  tnach: 12,
  tnash: 12,
  tlettach: 13,
  tletach: 13,
  rba3tach: 14,
  khmstach: 15,
  khamstach: 15,
  settach: 16,
  sb3tach: 17,
  tmntach: 18,
  ts3tach: 19,
  '3echrin': 20,
  '3ichrin': 20,
  '3chrin': 20,
  tlatin: 30,
  tletin: 30,
  rb3in: 40,
  reb3in: 40,
  khamsin: 50,
  khmsin: 50,
  settin: 60,
  sttin: 60,
  sb3in: 70,
  seb3in: 70,
  tmanin: 80,
  ts3in: 90,
  tes3in: 90,
};

/** Hundreds written as one word: Arabic "خمسمائة" (normalised "خمسمايه"), Darija "خمسمية", "khamsmya". */
const HUNDREDS: Record<string, number> = {};
const HUNDRED_WORDS = new Set(['cent', 'cents', 'hundred', 'hundreds', 'مايه', 'ميه', 'مية', 'mya', 'miya', 'mia', 'meya']);
for (const [stems, value] of [
  [['ثلاث', 'تلت', 'تلات', 'tlat', 'tlt', 'tolt'], 3],
  [['اربع', 'ربع', 'rb3', 'reb3', 'rob3'], 4],
  [['خمس', 'khams', 'khms', 'khems', '5ams'], 5],
  [['ست', 'sett', 'stt'], 6],
  [['سبع', 'sb3', 'seb3'], 7],
  [['ثمان', 'ثمن', 'تمن', 'tmn', 'tman', 'tmen'], 8],
  [['تسع', 'ts3', 'tes3'], 9],
] as const) {
  for (const stem of stems) {
    const suffixes = /[a-z]/.test(stem) ? ['mya', 'miya', 'meya'] : ['مايه', 'ميه'];
    for (const suffix of suffixes) HUNDREDS[stem + suffix] = value * 100;
  }
}
for (const word of ['ميتين', 'ميتان', 'مايتين', 'مايتان', 'mitin', 'mytin', 'mitine', 'miyatayn']) HUNDREDS[word] = 200;

const MILLION = /^(?:m(?:i|e|a|y)?l{1,2}(?:i|y)?(?:o|ou|yo|io|iou|yu)n|مليون)$/;
const MILLIONS = /^(?:m(?:i|e|a|y)?l{1,2}(?:i|y)?(?:o|ou|yo|io|iou|yu)ns|ملايين|ملاين|mlayn|mlayen|mlayin)$/;
const TWO_MILLION = /^(?:m(?:i|e|a|y)?l{1,2}(?:i|y)?(?:o|ou|yo|io|iou|yu)n(?:in|ayn|ine)|مليونين|مليونان)$/;
const SCALES: Record<string, { value: number; dual?: boolean; plural?: boolean }> = {
  mille: { value: 1000 },
  milles: { value: 1000, plural: true },
  thousand: { value: 1000 },
  thousands: { value: 1000, plural: true },
  الف: { value: 1000 },
  الاف: { value: 1000, plural: true },
  الفين: { value: 1000, dual: true },
  الفان: { value: 1000, dual: true },
  alf: { value: 1000 },
  alaf: { value: 1000, plural: true },
  alfin: { value: 1000, dual: true },
  alfayn: { value: 1000, dual: true },
  milliard: { value: 1e9 },
  milliards: { value: 1e9, plural: true },
  billion: { value: 1e9 },
  billions: { value: 1e9, plural: true },
  مليار: { value: 1e9 },
  ملايير: { value: 1e9, plural: true },
  مليارين: { value: 1e9, dual: true },
  mlyar: { value: 1e9 },
  milyar: { value: 1e9 },
  melyar: { value: 1e9 },
};
const AND_WORDS = new Set(['et', 'and', 'w', 'و']);
const HALF_WORDS = new Set(['demi', 'half', 'نص', 'نصف', 'nss', 'nos', 'noss', 'nus', 'nouss', 'ness', 'nass']);
const QUARTER_WORDS = new Set(['quart', 'ربع', 'rob3', 'rbe3', 'rba3']);

/** The word as an atom, or null when it is no number word. `afterAnd`: a part ("ربع") reads as a fraction only there. */
function atomOf(word: string, afterAnd: boolean): Atom | null {
  if (/^\d{1,3}$/.test(word)) return { kind: 'count', value: Number(word), digits: true };
  if (AND_WORDS.has(word)) return { kind: 'and' };
  if (afterAnd && HALF_WORDS.has(word)) return { kind: 'part', fraction: 0.5 };
  if (afterAnd && QUARTER_WORDS.has(word)) return { kind: 'part', fraction: 0.25 };
  const count = COUNTS[word];
  if (count !== undefined) return { kind: 'count', value: count, digits: false };
  const hundreds = HUNDREDS[word];
  if (hundreds !== undefined) return { kind: 'count', value: hundreds, digits: false };
  if (HUNDRED_WORDS.has(word)) return { kind: 'hundred' };
  const scale = SCALES[word];
  if (scale !== undefined) return { kind: 'scale', value: scale.value, dual: scale.dual === true, plural: scale.plural === true };
  if (MILLION.test(word)) return { kind: 'scale', value: 1e6, dual: false, plural: false };
  if (MILLIONS.test(word)) return { kind: 'scale', value: 1e6, dual: false, plural: true };
  if (TWO_MILLION.test(word)) return { kind: 'scale', value: 1e6, dual: true, plural: false };
  return null;
}

interface Word {
  text: string;
  start: number;
  end: number;
}

/** "quatre-vingt(s)": four twenties, one word of the phrase. */
const FOUR_TWENTIES = /^quatre[ -]vingts?$/;

/** Latin words (digits inside: "3achra", "sb3a"; a digit run alone is a number), Arabic words. */
const WORD = /[a-z\u00df-\u024f\d]+|[\u0600-\u06ff]+/g;
/** What may stand between two words of a phrase. */
const GAP = /^[ -]*$/;

/** The words of the text: an Arabic "و" or "ب" glued to a number word is split off. */
function* wordsOf(text: string): Generator<Word> {
  let four: Word | null = null;
  for (const match of text.matchAll(WORD)) {
    const word = match[0];
    const start = match.index;
    if (four !== null) {
      const pair = text.slice(four.start, start + word.length);
      const held = four;
      four = null;
      if (FOUR_TWENTIES.test(pair)) {
        yield { text: 'quatre-vingt', start: held.start, end: start + word.length };
        continue;
      }
      yield held;
    }
    if (word === 'quatre') {
      four = { text: word, start, end: start + word.length };
      continue;
    }
    // "و200", "وخمسمائة", "ونص", "بمليون": the conjunction or preposition glued to the number.
    if (/^[وب]./.test(word) && atomOf(word, false) === null && atomOf(word.slice(1), true) !== null) {
      if (word[0] === 'و') yield { text: 'و', start, end: start + 1 };
      yield { text: word.slice(1), start: start + 1, end: start + word.length };
    } else yield { text: word, start, end: start + word.length };
  }
  if (four !== null) yield four;
}

/** A number read from words (and digits) in normalised text. */
export interface WordNumber {
  value: number;
  start: number;
  end: number;
  /** The largest scale the phrase names (1 when none: "cent vingt"). */
  scale: number;
  /** The count before "million" ("75 millions" → 75), null when the phrase names no million. */
  millionCount: number | null;
  /** The phrase has a word, not only digits. */
  spelled: boolean;
}

/** A count below 1000 being read: which places are filled, French and Arabic orders alike. */
class Group {
  value = 0;
  hasHundreds = false;
  hasTens = false;
  hasUnits = false;
  lastTens = 0;
  empty = true;

  add(atom: Extract<Atom, { kind: 'count' | 'hundred' }>): boolean {
    if (atom.kind === 'hundred') {
      if (this.hasHundreds || this.hasTens || this.value >= 10) return false;
      this.value = (this.empty ? 1 : this.value) * 100;
      this.hasHundreds = true;
      this.hasUnits = false;
      this.empty = false;
      return true;
    }
    const v = atom.value;
    if (atom.digits) {
      // Digits are a whole group ("و200"), never a part of one.
      if (!this.empty) return false;
      this.value = v;
      this.hasHundreds = this.hasTens = this.hasUnits = true;
      this.empty = false;
      return true;
    }
    if (v >= 100) {
      if (!this.empty) return false;
      this.value = v;
      this.hasHundreds = true;
    } else if (v >= 10) {
      if (this.hasTens) {
        // "soixante-dix", "quatre-vingt-douze": 60 and 80 take 10–19 after them.
        if (!((this.lastTens === 60 || this.lastTens === 80) && v < 20 && !this.hasUnits)) return false;
        this.value += v;
        this.lastTens = v;
      } else {
        // Tens after units is the Arabic order ("خمسة وعشرون", "ثلاثة عشر").
        this.value += v;
        this.hasTens = true;
        this.lastTens = v;
      }
    } else {
      if (this.hasUnits) return false;
      this.value += v;
      this.hasUnits = true;
    }
    this.empty = false;
    return true;
  }
}

/** Reads one phrase starting at `words[from]`; returns it and the index after its last word. */
function readPhrase(text: string, words: readonly Word[], from: number): { number: WordNumber; next: number } | null {
  let total = 0;
  let lastScale = Infinity;
  let topScale = 1;
  let millionCount: number | null = null;
  let group = new Group();
  let spelled = false;
  let end = -1;
  let next = from;
  let pendingAnd = false;
  /** The last group follows a joining word ("و200"). */
  let groupJoined = false;
  /** Where the phrase ends if it stops at its last scale word. */
  let atScale = { end: -1, next: from + 1 };
  let i = from;
  for (; i < words.length; i++) {
    const word = words[i] as Word;
    if (i > from && !GAP.test(text.slice((words[i - 1] as Word).end, word.start))) break;
    const atom = atomOf(word.text, pendingAnd);
    if (atom === null) break;
    if (atom.kind === 'and') {
      if (pendingAnd || end === -1) break;
      pendingAnd = true;
      continue;
    }
    if (atom.kind === 'part') {
      // "مليون ونص", "deux millions et demi": a part of the scale just named.
      if (!group.empty || !Number.isFinite(lastScale)) break;
      total += lastScale * atom.fraction;
      spelled = true;
      end = word.end;
      next = i + 1;
      break;
    }
    if (atom.kind === 'scale') {
      if (atom.value >= lastScale) break;
      if (atom.dual && !group.empty) break;
      // A plural ("ملايين", "آلاف", "millions") needs its count before it.
      if (atom.plural && group.empty) break;
      const count = atom.dual ? 2 : group.empty ? 1 : group.value;
      total += count * atom.value;
      if (atom.value === 1e6) millionCount = count;
      topScale = Math.max(topScale, atom.value);
      lastScale = atom.value;
      group = new Group();
      atScale = { end: word.end, next: i + 1 };
    } else {
      if (group.empty) groupJoined = pendingAnd;
      if (!group.add(atom)) break;
    }
    if (!(atom.kind === 'count' && atom.digits)) spelled = true;
    pendingAnd = false;
    end = word.end;
    next = i + 1;
  }
  if (end === -1) return null;
  let last = group.value;
  if (lastScale === 1e6 && !group.empty) {
    // After a million, a last group without its scale, joined by "و"/"w"/"et", is thousands when it
    // has hundreds, as spoken ("مليون و200", like "1M200"); any other is some other figure ("46 mlion
    // neuf": new; "37 mlyon 709 m2": a surface), left out of the phrase.
    if (last >= 100 && groupJoined) last *= 1000;
    else {
      last = 0;
      end = atScale.end;
      next = atScale.next;
    }
  }
  const value = total + last;
  return {
    number: { value, start: (words[from] as Word).start, end, scale: topScale, millionCount, spelled },
    next: Math.max(next, from + 1),
  };
}

/** Digits glued to separators ("1,2", "1.950.000") are the digit reader's (numbers.ts), not a phrase's. */
function partOfWrittenNumber(text: string, word: Word): boolean {
  if (!/^\d/.test(word.text)) return false;
  return /[.,'\d]/.test(text.charAt(word.start - 1)) || /^[.,']\d/.test(text.slice(word.end, word.end + 2));
}

/**
 * Every number the text writes with words, alone or with digits: "un million deux cent mille",
 * "مليون و200 ألف", "1 million w 100 alf", "ثلاثة ملايين", "cent vingt". Phrases of digits only,
 * and a lone digit with its scale ("75 millions", "500 mille"), are left to the digit reader
 * (numbers.ts, price.ts); so are counts below 10 ("trois chambres": rooms.ts).
 */
export function findWordNumbers(normalized: string): WordNumber[] {
  const words = [...wordsOf(normalized)];
  const found: WordNumber[] = [];
  let i = 0;
  while (i < words.length) {
    const word = words[i] as Word;
    if (partOfWrittenNumber(normalized, word)) {
      i++;
      continue;
    }
    const phrase = readPhrase(normalized, words, i);
    if (phrase === null) {
      i++;
      continue;
    }
    const { number } = phrase;
    const wordsRead = words.slice(i, phrase.next);
    const last = wordsRead[wordsRead.length - 1] as Word;
    const endsOnWrittenNumber = partOfWrittenNumber(normalized, last);
    const digitsAndOneScale =
      wordsRead.length === 2 && /^\d+$/.test((wordsRead[0] as Word).text) && atomOf(last.text, false)?.kind === 'scale';
    if (number.spelled && !endsOnWrittenNumber && !digitsAndOneScale && number.value >= 10) found.push(number);
    i = phrase.next;
  }
  return found;
}

/** The number a whole normalised text writes as one phrase (words, digits or both), or null. For tests and tools. */
export function readNumberWords(normalized: string): number | null {
  const words = [...wordsOf(normalized)];
  const phrase = words.length === 0 ? null : readPhrase(normalized, words, 0);
  return phrase !== null && phrase.next === words.length && phrase.number.end === normalized.length ? phrase.number.value : null;
}

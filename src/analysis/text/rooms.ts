/**
 * Room counts (docs/analysis-text.md "Rooms, bedrooms, bathrooms"):
 *
 * - rooms = pièces (total rooms, living rooms included): "4 pièces", "F4"/"T4", "Nombre de pièces 4";
 * - bedrooms = chambres, suites, bedrooms, غرف/بيوت (Moroccan listings name the salon apart, so
 *   "2بيوت صالون" is two bedrooms), Darija "byout"/"bit"; "une suite parentale et deux chambres" = 3;
 *   staff/storage rooms (chambre de bonne, de service, de rangement) are not bedrooms;
 * - bathrooms = rooms with a shower or a bath: salles de bain + salles d'eau / de douche, SDB,
 *   bathrooms, Arabic حمام and Darija 7mam/hmam; "hammam" counted with digits ("2 hammam") is the
 *   Darija bathroom, while "un hammam", "hammam marocain" is a steam room (a feature). "Salle de
 *   bain dans chaque chambre" gives one per bedroom; a suite parentale has its own bathroom;
 * - toilets = WC, toilettes (guests' included), Arabic مرحاض, Darija "bit lma": counted apart, so
 *   that "salle de bain + WC" is 1 bathroom and 1 toilet (docs/analysis-text.md "Rooms, bedrooms, bathrooms").
 *
 * English "rooms" is the total, except in a text that also counts "pieces" (Mubawab's English
 * pages say "6 Pieces · 3 Rooms", where Rooms are bedrooms).
 * Ranges and alternatives of a programme ("appartements de 2 et 3 chambres", "3 ch / 2 ch")
 * are not one home's count and are ignored.
 */
import { WORD_START } from './normalize.js';
import { COUNT_WORD_PATTERN, parseCount } from './numbers.js';
import { AMOUNT_UNIT } from './price.js';

export interface Span {
  start: number;
  end: number;
}

export interface RoomCounts {
  rooms: number | null;
  bedrooms: number | null;
  bathrooms: number | null;
  toilets: number | null;
  /** True when bathrooms were inferred (named without a count, one per bedroom, a suite's own). */
  bathroomsInferred: boolean;
  /** Where each count was read in the text (first mention), for provenance. */
  spans: Partial<Record<'rooms' | 'bedrooms' | 'bathrooms' | 'toilets', Span>>;
  /** The first bedroom count of the title and of the description (for CONTRADICTION warnings). */
  bedroomValues: number[];
}

type Kind = 'bed' | 'suite' | 'bath' | 'shower' | 'toilet' | 'piece' | 'room_en';

interface CountMention {
  kind: Kind;
  count: number;
  start: number;
  end: number;
}

/** Toilets: French, English, Arabic, Darija ("bit lma" = the water room). */
const TOILET_WORDS = String.raw`(?:wc|w\.c|toilettes?|toilets?|bit lma|مرحاض|مراحيض|طواليت|twalet|twalit)`;
const ADJECTIVE = String.raw`(?:belles?|beaux|grandes?|grands|grand|spacieuses?|jolies?|petites?|vraies?|autres?|confortables?|lumineuses?|vastes?|magnifiques?|bonnes?|modernes?|large|big|spacious|double|nice|lovely|splendides?|superbes?)`;
const NOUN =
  String.raw`(?:` +
  String.raw`(?<suite>suites?(?:\s+parentales?)?|chambres?\s+parentales?|master\s+(?:bed)?rooms?|master\s+suites?)` +
  String.raw`|(?<bed>chambres?(?:\s+a\s+coucher)?|chambes?|chmbres?|chbres?|chbr|ch|bedrooms?|bed\s?rooms?|beds?|br|bdr|غرف\s+نوم|غرفه\s+نوم|غرف|غرفه|بيوت|بيت|byout|biout|byot|bit|bitat)` +
  String.raw`|(?<bath>salles?\s+de\s+bains?|salles?\s+de\s+bain|sdbs?|s\.d\.b|bathrooms?|baths?|حمامات|حمام|7mam|hmam|hemmam|7emmam|7mmam|hammams?|hamam)` +
  String.raw`|(?<shower>salles?\s+d\s?'?\s?eau|salles?\s+de\s+douches?|shower\s?rooms?)` +
  String.raw`|(?<toilet>${TOILET_WORDS})` +
  String.raw`|(?<piece>pieces?|pcs)` +
  String.raw`|(?<roomEn>rooms?)` +
  String.raw`)`;
/** An Arabic count may carry a glued preposition or conjunction: "بثلاث غرف" (with three rooms), "وأربع غرف". */
const COUNTED = new RegExp(
  String.raw`(?<![a-z\u00df-\u024f\u0600-\u06ff\d])(?:[\u0628\u0648](?=[\u0600-\u06ff]))?(?<count>\d{1,2}|${COUNT_WORD_PATTERN})\s*(?:${ADJECTIVE}\s+)?${NOUN}(?![a-z\u00df-\u024f\u0600-\u06ff])`,
  'g',
);
/** A unit after a number: it is a surface or an amount, never a count ("Chambre : 14 m²", "3 ch / 120 m2"). */
const UNIT_AFTER = String.raw`\s?(?:m2|m|mq|sqm|sq|square|metres?|mitres?|mtrs?|متر|م2|م|${AMOUNT_UNIT})(?![a-z\u0600-\u06ff])`;
/** "Chambres : 3", "Nombre de pièces 4", "Nb. de salles de bains : 2", "عدد الغرف 3"; not "Chambre : 14 m²" (a size). */
const LABEL_NOUN = String.raw`(?:(?<bed>chambres?|bedrooms?|الغرف)|(?<bath>salles? de bains?|sdb|bathrooms?|الحمامات)|(?<toilet>wc|toilettes)|(?<piece>pieces|rooms))`;
const LABELLED = [
  new RegExp(
    String.raw`(?<![a-z\u00df-\u024f\u0600-\u06ff])(?:nombre de|nbre de|nb\.? de|nb|number of|no\.? of|عدد)\s+${LABEL_NOUN}\s*(?::\s*)?(?<count>\d{1,2})(?![a-z\u00df-\u024f\u0600-\u06ff\d]|${UNIT_AFTER})`,
    'g',
  ),
  new RegExp(
    String.raw`(?<![a-z\u00df-\u024f\u0600-\u06ff])${LABEL_NOUN}\s*:\s*(?<count>\d{1,2})(?![a-z\u00df-\u024f\u0600-\u06ff\d]|${UNIT_AFTER})`,
    'g',
  ),
];
/**
 * Counts Arabic writes in the noun itself or after it (docs/analysis-text.md "Arabic and Darija
 * vocabulary"): the dual "غرفتان / غرفتين" (two rooms), "حمامان" (two bathrooms), and the singular
 * followed by "one": "غرفة واحدة", "غرفة نوم واحدة", "بيت واحد".
 */
const ARABIC_DUALS: ReadonlyArray<[RegExp, Kind, number]> = [
  [
    /(?<![a-z\u00df-\u024f\u0600-\u06ff])(?:غرفتين|غرفتان|غرفتي نوم|غرفتا نوم|بيتين|جوج بيوت|jouj byout|jouj bit)(?![a-z\u00df-\u024f\u0600-\u06ff])/g,
    'bed',
    2,
  ],
  [/(?<![a-z\u00df-\u024f\u0600-\u06ff])(?:حمامين|حمامان)(?![a-z\u00df-\u024f\u0600-\u06ff])/g, 'bath', 2],
  [
    /(?<![a-z\u00df-\u024f\u0600-\u06ff])(?:غرفه(?: نوم)? واحده|بيت واحد|bit wahda|bit wa7da)(?![a-z\u00df-\u024f\u0600-\u06ff])/g,
    'bed',
    1,
  ],
  [/(?<![a-z\u00df-\u024f\u0600-\u06ff])(?:حمام واحد)(?![a-z\u00df-\u024f\u0600-\u06ff])/g, 'bath', 1],
];
const FRENCH_TYPE_CODE = /(?<![a-z\u00df-\u024f\u0600-\u06ff\d])[ft]([1-9])(?![a-z\u00df-\u024f\u0600-\u06ff\d])/g;
/** "une pièce de vie / à vivre / de réception" is a room's name, not a count of rooms. */
const NOT_A_ROOM_COUNT_AFTER = /^\s*(?:de |a |d'|d |principale|unique|supplementaire|maitresse)/;
/** A master suite named without a count before the bedroom count ("Suite parentale …, 2 chambres d'enfants"). */
const BARE_SUITE =
  /(?<![a-z\u00df-\u024f\u0600-\u06ff])(?:suite parentale|suite parentalle|chambre parentale|chambre des parents|master (?:bed)?room|master suite)(?![a-z\u00df-\u024f\u0600-\u06ff])/g;
const NOT_A_BEDROOM_AFTER =
  /^\s*(?:de |d'|d )?(?:bonne|service|rangement|personnel|domestique|froide|hotes?|bureau|dyaf|diaf|ldiaf|الضياف|الضيوف)/;
/** "2 et 3 chambres", "3 ch / 2 ch", "3 chambres ou 4 chambres": a range of layouts. */
const ALTERNATIVE_BEFORE = [
  new RegExp(String.raw`(?<![a-z\u00df-\u024f\u0600-\u06ff\d])(?:\d{1,2}|${COUNT_WORD_PATTERN})\s*(?:et|ou|\/|a|-|to|or|and)\s*$`),
  /(?<![a-z\u00df-\u024f\u0600-\u06ff\d])\d{1,2}\s*(?:chambres?|ch|pieces?|bedrooms?)\s*(?:ou|\/|or)\s*$/,
];
/**
 * "3 ch / 2 ch": another count; "3 chambres / 120 m2" and "2 ch / 1 sdb" list the next fact (a surface,
 * another kind of room), not an alternative.
 */
const ALTERNATIVE_AFTER = new RegExp(
  String.raw`^\s*(?:ou|\/|or)\s*(?:\d{1,2}(?![\d.,]|\s?\d{3}(?!\d)|${UNIT_AFTER}|\s?(?:[a-z]+\s+)?(?:sdb|s\.d\.b|salles?|salons?|bains?|douches?|wc|toilettes?|cuisines?|pieces?|etages?|niveaux?|bathrooms?|baths?|garages?|parkings?|places?|balcons?|terrasses?|facades?|حمام|صالون)(?![a-z\u0600-\u06ff]))|(?:un|une|deux|trois|quatre|cinq)(?![a-z]))`,
);
const INCLUDED_BEFORE = /(?:dont|including|incl\.?|y compris|parmi lesquelles|من بينها)\s*$/;
const CHAIN_GAP = /^\s*(?:\+|et|and|w|و|,\s*(?:et|\+))\s*$/;
const ORDINAL_MENTION = new RegExp(
  String.raw`(?<![a-z\u00df-\u024f\u0600-\u06ff])(?<ordinal>deuxieme|2eme|2e|2 eme|second|seconde|troisieme|3eme|3e|3 eme|third|quatrieme|4eme|4e|fourth)\s+(?:${NOUN})(?![a-z\u00df-\u024f\u0600-\u06ff])`,
  'g',
);
const ORDINAL_VALUE: Record<string, number> = {
  deuxieme: 2,
  '2eme': 2,
  '2e': 2,
  '2 eme': 2,
  second: 2,
  seconde: 2,
  troisieme: 3,
  '3eme': 3,
  '3e': 3,
  '3 eme': 3,
  third: 3,
  quatrieme: 4,
  '4eme': 4,
  '4e': 4,
  fourth: 4,
};
/** "hammam" is the Darija bathroom only when counted with digits and not qualified as a steam room. */
const STEAM_ROOM_AFTER = /^\s*(?:marocain|traditionnel|beldi|turc|prive|sauna|spa|et sauna|&)/;
/** "salle de bain dans chaque chambre", "chambres chacune avec salle de bain": one bathroom per bedroom. */
const EACH_BEDROOM_BATHROOM = new RegExp(
  String.raw`(?:chaque chambre|chacune|chaque une|chaqu'une|toutes les chambres|each (?:bed)?room|all (?:bed)?rooms|كل غرفه|كل بيت|koll bit)` +
    String.raw`[^.\n]{0,40}?(?:salles? de bains?|salles? d'eau|sdb|bathroom|حمام|7mam)` +
    String.raw`|(?:salles? de bains?|salles? d'eau|sdb|bathroom|حمام|7mam)[^.\n]{0,20}?(?:dans chaque chambre|pour chaque chambre|in each (?:bed)?room|en suite dans chaque|في كل غرفه|لكل غرفه)`,
);
const BARE_TOILET = new RegExp(String.raw`${WORD_START}${TOILET_WORDS}(?![a-z\u00df-\u024f\u0600-\u06ff])`, 'g');
/** A WC named as part of a bathroom ("salle de bain avec douche et WC") is not a separate toilet. */
const TOILET_IN_BATHROOM_BEFORE =
  /(?:salles? de bains?|salles? d'eau|sdb|bathroom|douche|baignoire|shower)[^,;.\n+]{0,24}(?:avec|et|with|and|equipee de|\/)[^,;.\n+]{0,12}$/;
/** A guests' or separate WC is a toilet of its own, wherever it is named. */
const GUEST_TOILET_BEFORE = /(?:guest|guests'|visitor|separate|independent)\s*$/;
const GUEST_TOILET_AFTER = /^\s*(?:invites?|visiteurs?|separes?|independants?|de reception|d'invites|للضيوف)/;
const BARE_BATHROOM =
  /(?<![a-z\u00df-\u024f\u0600-\u06ff])(?:salles?\s+de\s+bains?|salle\s+d\s?'?\s?eau|salle\s+de\s+douche|sdb|bathroom|shower room|حمام|الحمام|7mam|hmam|hemmam)(?![a-z\u00df-\u024f\u0600-\u06ff])/g;

function kindOf(groups: Record<string, string | undefined>): Kind {
  if (groups.suite) return 'suite';
  if (groups.bed) return 'bed';
  if (groups.bath) return 'bath';
  if (groups.shower) return 'shower';
  if (groups.toilet) return 'toilet';
  if (groups.piece) return 'piece';
  return 'room_en';
}

function findCounted(text: string): CountMention[] {
  const mentions: CountMention[] = [];
  for (const match of text.matchAll(COUNTED)) {
    const groups = match.groups ?? {};
    const written = parseCount(groups.count ?? '');
    // "suite parentale … 2 autres chambres": the other bedrooms come on top of one already named.
    const count = written !== null && /^autres\s/.test(match[0].slice((groups.count ?? '').length).trimStart()) ? written + 1 : written;
    if (count === null || count === 0 || count > 30) continue;
    const start = match.index;
    const end = start + match[0].length;
    const kind = kindOf(groups);
    // "2 hammam" (Darija) is two bathrooms; "un hammam", "1 hammam marocain" a steam room.
    if (
      kind === 'bath' &&
      /^ham+ams?$/.test(groups.bath ?? '') &&
      (!/^\d|^(?:jouj|jooj|zouj|joj|tlata|tleta|wahed|wa7ed)$/.test(groups.count ?? '') || STEAM_ROOM_AFTER.test(text.slice(end, end + 16)))
    )
      continue;
    if ((kind === 'bed' || kind === 'suite') && NOT_A_BEDROOM_AFTER.test(text.slice(end, end + 16))) continue;
    if (kind === 'piece' && NOT_A_ROOM_COUNT_AFTER.test(text.slice(end, end + 16))) continue;
    // "2 et 3 chambres", "3 chambres / 2 chambres": a programme's range, not one home.
    const before = text.slice(Math.max(0, start - 24), start);
    if (ALTERNATIVE_BEFORE.some((pattern) => pattern.test(before))) continue;
    if (ALTERNATIVE_AFTER.test(text.slice(end, end + 24))) continue;
    mentions.push({ kind, count, start, end });
  }
  for (const pattern of LABELLED) {
    for (const match of text.matchAll(pattern)) {
      const groups = match.groups ?? {};
      const count = Number(groups.count);
      if (count === 0 || count > 30 || mentions.some((m) => m.start <= match.index && m.end > match.index)) continue;
      const kind: Kind = groups.bed ? 'bed' : groups.bath ? 'bath' : groups.toilet ? 'toilet' : 'piece';
      mentions.push({ kind, count, start: match.index, end: match.index + match[0].length });
    }
  }
  for (const [pattern, kind, count] of ARABIC_DUALS) {
    for (const match of text.matchAll(pattern)) {
      mentions.push({ kind, count, start: match.index, end: match.index + match[0].length });
    }
  }
  return mentions.sort((a, b) => a.start - b.start);
}

/** The first count of a family, with directly joined mentions of another kind summed ("une suite et deux chambres"). */
function firstChainTotal(text: string, mentions: readonly CountMention[], family: ReadonlySet<Kind>): number | null {
  const members = mentions.filter((m) => family.has(m.kind));
  const first = members[0];
  if (first === undefined) return null;
  let total = first.count;
  let previous = first;
  for (const next of members.slice(1)) {
    const gap = text.slice(previous.end, next.start);
    if (gap.length > 12 || !CHAIN_GAP.test(gap) || (next.kind === previous.kind && !gap.includes('+'))) break;
    total += next.count;
    previous = next;
  }
  return total;
}

interface OrdinalMention {
  kind: Kind;
  value: number;
}

function findOrdinals(text: string): OrdinalMention[] {
  const found: OrdinalMention[] = [];
  for (const match of text.matchAll(ORDINAL_MENTION)) {
    const groups = match.groups ?? {};
    const value = ORDINAL_VALUE[groups.ordinal ?? ''];
    if (value !== undefined) found.push({ kind: kindOf(groups), value });
  }
  return found;
}

function ordinalAtLeast(ordinals: readonly OrdinalMention[], family: ReadonlySet<Kind>): number | null {
  let highest: number | null = null;
  for (const ordinal of ordinals) {
    if (family.has(ordinal.kind) && (highest === null || ordinal.value > highest)) highest = ordinal.value;
  }
  return highest;
}

/**
 * Bedrooms: the first count (chained counts summed). A count that starts with suites
 * ("une suite parentale, 2 chambres d'enfants") adds the next plain bedroom count, unless that
 * one is introduced as including the suite ("dont", "y compris").
 */
function countBedrooms(text: string, mentions: readonly CountMention[], family: ReadonlySet<Kind>): number | null {
  const total = firstChainTotal(text, mentions, family);
  const members = mentions.filter((m) => family.has(m.kind));
  const first = members[0];
  if (total === null || first === undefined) return total;
  if (first.kind !== 'suite') {
    // "Suite parentale avec dressing, 2 chambres d'enfants": the suite comes on top of the count.
    BARE_SUITE.lastIndex = 0;
    const window = text.slice(Math.max(0, first.start - 150), first.start);
    const suiteBefore = [...window.matchAll(BARE_SUITE)].length > 0;
    const included = INCLUDED_BEFORE.test(text.slice(Math.max(0, first.start - 20), first.start));
    const counted = members.some((m) => m.kind === 'suite' && m.start < first.start);
    return suiteBefore && !included && !counted && !/autres/.test(text.slice(first.start, first.end)) ? total + 1 : total;
  }
  if (total !== first.count) return total;
  const nextBedroom = members.find((m) => m.kind !== 'suite' && m.start > first.end);
  if (nextBedroom === undefined || nextBedroom.start - first.end > 120) return total;
  if (INCLUDED_BEFORE.test(text.slice(Math.max(0, nextBedroom.start - 20), nextBedroom.start))) return nextBedroom.count;
  return total + nextBedroom.count;
}

function atLeast(count: number | null, minimum: number | null): number | null {
  if (count === null) return minimum;
  return minimum === null ? count : Math.max(count, minimum);
}

const BEDROOM_FAMILY: ReadonlySet<Kind> = new Set(['bed', 'suite']);
const BATH_FAMILY: ReadonlySet<Kind> = new Set(['bath']);
const SHOWER_FAMILY: ReadonlySet<Kind> = new Set(['shower']);
const BATHROOM_FAMILY: ReadonlySet<Kind> = new Set(['bath', 'shower']);
const PIECE_FAMILY: ReadonlySet<Kind> = new Set(['piece']);
const TOILET_FAMILY: ReadonlySet<Kind> = new Set(['toilet']);
const ROOM_EN_FAMILY: ReadonlySet<Kind> = new Set(['room_en']);

function spanOf(mention: { start: number; end: number } | undefined): Span | undefined {
  return mention === undefined ? undefined : { start: mention.start, end: mention.end };
}

/** Bathrooms of a text that names them without counting them ("cuisine, salle de bain, suite parentale"). */
function bareBathrooms(
  text: string,
  mentions: readonly CountMention[],
  bedrooms: number | null,
): { count: number; span: Span | undefined } {
  const bare = [...text.matchAll(BARE_BATHROOM)];
  // A suite parentale has its own bathroom; a bathroom word right after the suite is that one.
  const suites = [
    ...mentions.filter((m) => m.kind === 'suite').map((m) => ({ start: m.start, end: m.end, count: m.count })),
    ...[...text.matchAll(BARE_SUITE)].map((m) => ({ start: m.index, end: m.index + m[0].length, count: 1 })),
  ].filter((suite, index, all) => !all.some((other, j) => j < index && other.start <= suite.start && other.end >= suite.start));
  let suiteBathrooms = 0;
  for (const suite of suites) suiteBathrooms += suite.count;
  // Each suite owns at most the first bathroom named right after it.
  const owned = new Set<number>();
  for (const suite of suites) {
    const next = bare.find((m) => m.index >= suite.end);
    if (next !== undefined && next.index - suite.end <= 80 && !/[.\n]/.test(text.slice(suite.end, next.index))) owned.add(next.index);
  }
  const separate = bare.filter((m) => !owned.has(m.index));
  const suitesOwn = Math.min(suiteBathrooms, 4);
  // Bedrooms beyond the suites share at least one bathroom, named or not ("3 chambres dont une suite parentale").
  const shared = bedrooms !== null && bedrooms > suitesOwn ? 1 : 0;
  const count = suitesOwn === 0 ? Math.min(separate.length, 4) : suitesOwn + Math.max(Math.min(separate.length, 4), shared);
  const first = bare[0] ?? [...text.matchAll(BARE_SUITE)][0];
  return { count, span: first === undefined ? undefined : { start: first.index, end: first.index + first[0].length } };
}

function bareToilets(text: string): { count: number; span: Span | undefined } {
  const separate = [...text.matchAll(BARE_TOILET)].filter((m) => {
    const before = text.slice(Math.max(0, m.index - 48), m.index);
    if (GUEST_TOILET_BEFORE.test(before) || GUEST_TOILET_AFTER.test(text.slice(m.index + m[0].length, m.index + m[0].length + 16)))
      return true;
    return !TOILET_IN_BATHROOM_BEFORE.test(before);
  });
  const first = separate[0];
  return {
    count: Math.min(separate.length, 3),
    span: first === undefined ? undefined : { start: first.index, end: first.index + first[0].length },
  };
}

export function extractRoomCounts(text: string, titleEnd: number): RoomCounts {
  const mentions = findCounted(text);
  const ordinals = findOrdinals(text);
  const spans: RoomCounts['spans'] = {};
  const hasPieces = mentions.some((m) => m.kind === 'piece');
  // English "rooms" are bedrooms beside "pieces" (Mubawab EN), total rooms otherwise.
  const bedroomFamily: ReadonlySet<Kind> = hasPieces ? new Set(['bed', 'suite', 'room_en']) : BEDROOM_FAMILY;

  const roomFamily = hasPieces ? PIECE_FAMILY : ROOM_EN_FAMILY;
  let rooms = firstChainTotal(text, mentions, PIECE_FAMILY) ?? (hasPieces ? null : firstChainTotal(text, mentions, ROOM_EN_FAMILY));
  if (rooms !== null) spans.rooms = spanOf(mentions.find((m) => roomFamily.has(m.kind)));
  else {
    const code = FRENCH_TYPE_CODE.exec(text);
    FRENCH_TYPE_CODE.lastIndex = 0;
    if (code?.[1] !== undefined) {
      rooms = Number(code[1]);
      spans.rooms = { start: code.index, end: code.index + code[0].length };
    }
  }

  // "une deuxième chambre" says there are at least two.
  const bedrooms = atLeast(countBedrooms(text, mentions, bedroomFamily), ordinalAtLeast(ordinals, BEDROOM_FAMILY));
  if (bedrooms !== null) spans.bedrooms = spanOf(mentions.find((m) => bedroomFamily.has(m.kind)));

  const baths = firstChainTotal(text, mentions, BATH_FAMILY);
  const showers = firstChainTotal(text, mentions, SHOWER_FAMILY);
  let bathrooms: number | null =
    baths !== null || showers !== null ? atLeast((baths ?? 0) + (showers ?? 0), ordinalAtLeast(ordinals, BATHROOM_FAMILY)) : null;
  let bathroomsInferred = false;
  if (bathrooms !== null) spans.bathrooms = spanOf(mentions.find((m) => BATHROOM_FAMILY.has(m.kind)));
  else {
    bathroomsInferred = true;
    const bare = bareBathrooms(text, mentions, bedrooms);
    const ordinal = ordinalAtLeast(ordinals, BATHROOM_FAMILY);
    if (bare.count > 0 || ordinal !== null) {
      bathrooms = Math.max(bare.count, ordinal ?? 0);
      spans.bathrooms = bare.span;
    }
  }
  // "salle de bain dans chaque chambre": one per bedroom, at least.
  if (bedrooms !== null) {
    const each = EACH_BEDROOM_BATHROOM.exec(text);
    if (each !== null && (bathrooms === null || bathrooms < bedrooms)) {
      bathrooms = bedrooms;
      bathroomsInferred = true;
      spans.bathrooms = { start: each.index, end: each.index + each[0].length };
    }
  }

  let toilets = firstChainTotal(text, mentions, TOILET_FAMILY);
  if (toilets !== null) spans.toilets = spanOf(mentions.find((m) => m.kind === 'toilet'));
  else {
    const bare = bareToilets(text);
    if (bare.count > 0) {
      toilets = bare.count;
      spans.toilets = bare.span;
    }
  }

  // A title that counts other bedrooms than the description is a contradiction worth flagging.
  const plainBedrooms = mentions.filter((m) => bedroomFamily.has(m.kind) && m.kind !== 'suite');
  const inTitle = plainBedrooms.find((m) => m.start < titleEnd);
  const inBody = plainBedrooms.find((m) => m.start >= titleEnd);
  const bedroomValues = [inTitle, inBody].filter((m): m is CountMention => m !== undefined).map((m) => m.count);
  return { rooms, bedrooms, bathrooms, toilets, bathroomsInferred, spans, bedroomValues };
}

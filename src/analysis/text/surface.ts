/**
 * Surfaces in listing text: m², m2, mètres carrés, sqm, متر مربع, م2, and the loose "m", "mètres",
 * "mitre", "متر" that sellers also write (docs/analysis-text.md, docs/portals.md).
 *
 * Each mention gets a role from the words around it: living ("habitable"), total ("surface
 * totale", "au total"), plot ("terrain de 300 m²", "m² de terrain"), a part of the home
 * ("terrasse de 12 m²", "25 m² pour 2 places de parking"), a distance ("à 20 m de la plage"),
 * or the main surface ("superficie 90 m²", "appartement de 120 m²", a bare "94m2" in a title).
 */
import { COUNT_WORD_PATTERN, COUNT_WORDS, type NumberToken } from './numbers.js';
import type { Span } from './rooms.js';
import type { Texts } from '../say.js';

export type SurfaceRole = 'living' | 'total' | 'plot' | 'main' | 'part' | 'distance';

export interface SurfaceMention {
  value: number;
  role: SurfaceRole;
  /** For main mentions: 4 = after "superficie/surface", 3 = after a property type, 2.5/2/1 = bare. */
  score: number;
  /** One end of a range of sizes ("de 68 à 122 m²", "à partir de 46 m²"): a programme, not one home. */
  range: boolean;
  start: number;
  end: number;
  inTitle: boolean;
  /** A terrace or balcony: outdoor floor area that the portals count in a flat's total surface. */
  outdoor: boolean;
  /** Read by a rule that the words do not settle ("villa avec piscine 120 m²"): the analysis warns. */
  doubtful?: boolean;
  /** A level of commercial premises (mezzanine, sous-sol, étage): part of the premises' total. */
  level?: boolean;
}

export interface SurfaceFacts {
  surface_m2: number | null;
  surface_total_m2: number | null;
  mentions: SurfaceMention[];
  /** Why the surface read is uncertain (docs/analysis-text.md "Surfaces: total and parts"), in each language, or null. */
  doubt: Texts | null;
}

const STRONG_UNIT = String.raw`m\s?2|mq|sqm|sq\s?m|sq\.\s?m|square\s+met(?:er|re)s?|met(?:re|er)s?\s+carres?|متر\s+مربع|مترا\s+مربعا|م\s?2`;
/** A lone "م" abbreviates متر ("86 م") but also ميلادي after a year ("2015 م"): years are skipped for it. */
const WEAK_UNIT = String.raw`metres?|meters?|mettres?|mitres?|metros?|mitros?|mitr|mtrs?|mt|m|مترا|متر|امتار|ميترو|م`;
/** "m²" glued to the next word ("63m²habitable") is still the unit; a lone "m" must end its word. */
const SURFACE_UNIT = new RegExp(
  String.raw`\s?(?:(?<strong>(?:${STRONG_UNIT})(?![a-z\u00df-\u024f\u0600-\u06ff\d])|m2(?=[a-z\u00df-\u024f]))|(?:(?<weak>${WEAK_UNIT})|(?<hectare>hectares?|ha|هكتار|هكتارات))(?![a-z\u00df-\u024f\u0600-\u06ff\d]))`,
  'y',
);
const BARE_HABITABLE = /\s?habitables?(?![a-z\u00df-\u024f\u0600-\u06ff])/uy;
const HECTARE_WORDS = new RegExp(
  String.raw`(?<![a-z\u00df-\u024f\u0600-\u06ff])(${[...COUNT_WORDS.keys()].join('|')})\s+(?:hectares?|هكتارات?)(?![a-z\u00df-\u024f\u0600-\u06ff])`,
  'g',
);

/** The nouns that decide what a number is the surface of, when one of them governs it. */
const GOVERNING_NOUN = new RegExp(
  String.raw`(?<![a-z\u00df-\u024f\u0600-\u06ff])(?:` +
    String.raw`(?<plot>terrains?|parcelles?|plot|land|assiette|ارض|الارض|بقعه|البقعه|lots?)` +
    String.raw`|(?<part>terrasses?|balcons?|jardins?|garages?|parkings?|salons?|sejours?|chambres?|cuisines?|cour|piscines?|sous[- ]sol|caves?|box|patio|veranda|mezzanine|buanderie|hall|loggia|rooftop|solarium|suites?|dressing|douche|sdb|garden|terrace|balcony)` +
    String.raw`|(?<living>habitables?|hab|utiles?|couverte|construite?|batie?|living|interieure|مغطاه)` +
    String.raw`|(?<total>totale?|globale?|total|brute|totalise|totalisant|totalisent|الاجماليه|الكليه)` +
    String.raw`|(?<type>appartements?|apparts?|appt|apt|studios?|duplex|villas?|maisons?|bureaux?|plateaux?|locaux|local|magasins?|riads?|penthouse|entrepot|immeuble|شقه|فيلا|منزل|محل|apartment|flat|house|office|shop|warehouse)` +
    String.raw`|(?<keyword>surface|superficie|superfice|surf|area|size|taille|contenance|مساحه|مساحتها|المساحه|بمساحه|misaha|mesaha)` +
    String.raw`)(?![a-z\u00df-\u024f\u0600-\u06ff])`,
  'g',
);
const TYPE_NOUN_AT_END =
  /(?:appartements?|apparts?|appt|apt|studios?|duplex|villas?|maisons?|penthouse|riads?|شقه|فيلا|apartment|flat|house)\s*$/;
/** What may stand between a governing noun and its number: a few short words, no other number. */
const GOVERNED_TAIL = /^[^\d.;!?\n]{0,30}$/;
const WORDS_IN_TAIL = /[a-z\u00df-\u024f\u0600-\u06ff']+/g;
/** "de 12 m²", "d'environ 12 m²", ": 12 m²": the words that make a noun measured by the number. */
const MEASURED_TAIL = /^\s*(?:de\b|d'|du\b|of\b|fait|font|faisant|mesurant|environ|chacune?|each|مساحتها|ب)/;
/**
 * A conjunction or a list separator between the noun and the number: the noun governs something
 * else. Separators: ",", "+", a spaced slash, a dash (normalised to "-") not between two letters
 * ("chambre - 32", "chambre—32", "chambre -- 32"; "rez-de-jardin" is a word), "::" (a single colon
 * is a label's and measures: "Terrasse : 20 m²").
 */
const BROKEN_TAIL = /(?:^|\s)(?:et|and|dont|plus|ou|or|w|و)(?:\s|$)|[,+]|\s\/\s|(?:^|\s)-|-(?:\s|$)|::/;

const AFTER_ROLE = new RegExp(
  String.raw`^\s*(?:` +
    String.raw`(?<plot>(?:de |d'|du |of )?(?:terrain|parcelle|plot|land)|(?:de |d')?ارض)` +
    String.raw`|(?<part>(?:de |d'|of |a la |a l'|pour la |pour le )?(?:terrasses?|balcons?|jardins?|garages?|parkings?|cour|piscine|patio|veranda|rooftop|sous-sol|terrace|garden|balcony)|pour\s+(?:[a-z\u00df-\u024f\u0600-\u06ff\d]+\s+)?(?:terrasses?|places?|parkings?|garages?))` +
    String.raw`|(?<living>(?:de |d')?(?:surface |superficie )?(?:habitables?|hab|utiles?|couverts?|construits?|batis?|baties?|int|interieurs?|living|built))` +
    String.raw`|(?<total>au total|en tout|totale?s?|globale?|in total|en totalite)` +
    String.raw`)(?![a-z\u00df-\u024f\u0600-\u06ff])`,
);
const DISTANCE_BEFORE =
  /(?:(?:^|\s)(?:a|moins de|plus de|environ|seulement)\s*(?::\s*)?|(?:hauteur|profondeur|largeur|longueur|distance|facade|hight|height)[^\d.;\n]{0,22})$/;
const DISTANCE_AFTER =
  /^\s?(?:de |d'|du |des |from |of |من |عن )(?:la |l'|le |les |chez )?(?:plage|mer|tram|tramway|gare|mosquee|ecole|centre|autoroute|route|station|ville|marjane|corniche|boulevard|bd|avenue|faculte|hopital|clinique|mall|parc|golf|aeroport|universite|lycee|commerces?|piscine|beach|sea|البحر|الشاطئ)/;
const RANGE_AFTER = /^\s*(?:a|au|et|-|to|jusqu'a|ou|\/)\s*\d/;
const RANGE_BEFORE = /(?:(?<!\d)(?<lower>\d+)\s*(?:(?:m2|m)\s*)?(?:a|au|et|-|to|ou|\/)|entre|between|a partir de|des|from|starting)\s*$/;
const LIST_AFTER = /^\s*\d+\s?m(?:2)?(?![a-z\u00df-\u024f\u0600-\u06ff])/;
const CLAUSE_START = /[.;!?\n•|]/g;

function clauseBefore(text: string, position: number): string {
  const window = text.slice(Math.max(0, position - 60), position);
  let cut = 0;
  for (const match of window.matchAll(CLAUSE_START)) {
    // A decimal point ("57.0 m²") is not a clause boundary.
    const next = window[match.index + 1];
    if (match[0] === '.' && next !== undefined && /\d/.test(next)) continue;
    cut = match.index + 1;
  }
  return window.slice(cut);
}

interface Governing {
  role: 'plot' | 'part' | 'living' | 'total' | 'type' | 'keyword';
  /** The part noun stands right before the number after a type and "avec": the number may be the home's. */
  doubtful?: boolean;
  level?: boolean;
}

/** "3 chambres 99 m2": a counted room noun lists the rooms; it does not govern the number after it. */
const COUNTED_BEFORE = new RegExp(
  String.raw`(?:^|[^a-z\u00df-\u024f\u0600-\u06ff\d])(?:\d{1,2}|${COUNT_WORD_PATTERN.split('|')
    .filter((word) => (COUNT_WORDS.get(word) ?? 0) > 1)
    .join('|')})\s*$`,
);
/** "une chambre : 32 m2": the article counts one room when a colon lists the next fact. */
const ARTICLE_COUNT_BEFORE = /(?:^|[^a-z\u00df-\u024f\u0600-\u06ff\d])(?:un|une|1)\s*$/;
const COLON_TAIL = /^\s*:\s*$/;
/** "Villa avec piscine 120 m²": a type, then "with" and an amenity, then a number. */
const TYPE_WITH_BEFORE =
  /(?:appartements?|apparts?|appt|studios?|duplex|villas?|maisons?|penthouse|riads?|bureaux?|locaux|local|magasins?|شقه|فيلا|منزل|apartment|flat|house|office|shop)(?:\s+[a-z\u00df-\u024f\u0600-\u06ff']+){0,2}\s*(?:avec|with|et|and|\+|,|مع|ب)\s*$/;
/** Levels of commercial premises: they add up to the premises' total (docs/analysis-text.md "Surfaces: total and parts"). */
const LEVEL_NOUN = /^(?:mezzanine|sous[- ]sol|caves?)$/;
/** Rooms of the home: listed right before a number, they are not measured by it when it is large. */
const ROOM_NOUN = /^(?:salons?|sejours?|cuisines?|chambres?|suites?|sdb|douche|dressing|hall)$/;
/** "120m2 terrasse Marrakech": an amenity listed after the number, without "de"/"à la". */
const BARE_PART_AFTER =
  /^\s*(?:terrasses?|balcons?|jardins?|garages?|parkings?|piscine|terrace|garden|balcony)(?![a-z\u00df-\u024f\u0600-\u06ff])/;
/** "100 m² + 50 m² terrasse": a part stated on top of the home's surface. */
const ADDED_BEFORE = /(?:\+|\bplus|\bet|\band|\bavec|\bwith|\bdont|\bcompris|\bincluding|\bو)\s*$/;
/** Below this a number after "piscine", "terrasse"… is that part's size, not a home's. */
const SMALLEST_HOME_AFTER_PART = 40;

/**
 * The noun that governs the number ending `before`, or null. `placed` says whether a place is named
 * between two offsets of `before`: "une chambre à Fès 895 m2" names the room, then the city, then
 * the home's surface.
 */
function governingNoun(before: string, placed: (from: number, to: number) => boolean): Governing | null {
  let last: RegExpExecArray | null = null;
  GOVERNING_NOUN.lastIndex = 0;
  for (let match = GOVERNING_NOUN.exec(before); match !== null; match = GOVERNING_NOUN.exec(before)) last = match;
  if (last?.groups === undefined) return null;
  const tailStart = last.index + last[0].length;
  const tail = before.slice(tailStart);
  if (!GOVERNED_TAIL.test(tail) || BROKEN_TAIL.test(tail) || (tail.match(WORDS_IN_TAIL)?.length ?? 0) > 4) return null;
  const groups = last.groups;
  if (groups.plot) return { role: 'plot' };
  if (groups.part) {
    if (placed(tailStart, before.length)) return null;
    const head = before.slice(0, last.index);
    // "3 chambres 99 m2", "2 chambres - à Casablanca 90 m2": a count of rooms, not the rooms'
    // size; the number is read as if bare. "3 chambres de 12 m²" and "une terrasse de 15 m²" still
    // measure the part.
    if (!MEASURED_TAIL.test(tail) && COUNTED_BEFORE.test(head)) return null;
    // "une chambre : 32 m2": with a colon, "une" counts the rooms like "deux" (a label has no
    // article: "Chambre : 14 m²", "une terrasse : 20 m²" still measure).
    if (COLON_TAIL.test(tail) && ROOM_NOUN.test(last[0]) && ARTICLE_COUNT_BEFORE.test(head)) return null;
    // "Appartement terrasse 120m2": the terrace qualifies the flat, the number is the flat's.
    if (tail.trim() === '' && TYPE_NOUN_AT_END.test(head.trimEnd())) return { role: 'type' };
    // "Villa avec piscine 120 m²": the words do not say whose number it is (decided in classify).
    if (tail.trim() === '' && TYPE_WITH_BEFORE.test(head)) return { role: 'part', doubtful: true };
    // "2 chambres salon 65 m2": a room named in a list, right before the number, with no measuring
    // word; no salon or kitchen is the size of a flat, so a large number is the home's (classify).
    if (tail.trim() === '' && ROOM_NOUN.test(last[0])) return { role: 'part', doubtful: true };
    return { role: 'part', level: LEVEL_NOUN.test(last[0]) };
  }
  if (groups.living) return { role: 'living' };
  if (groups.total) return { role: 'total' };
  if (groups.type) return { role: 'type' };
  return { role: 'keyword' };
}

const OUTDOOR_AFTER = /^\s*(?:de |d'|of |a la |a l'|pour (?:[a-z\d]+ )?)?(?:terrasses?|balcons?|terraces?|balcony|balconies)/;
const OUTDOOR_BEFORE = /(?:terrasses?|balcons?|terraces?|balcony)\s*(?:(?:de|d'|:|of)\s*)?$/;

interface Classified {
  role: SurfaceRole;
  score: number;
  doubtful?: boolean;
  level?: boolean;
}

const GOVERNS_NEXT = /^\s?[:=]?\s?\d/;
const LEVEL_AFTER = /^\s*(?:de |d'|en |of )?(?:mezzanine|sous[- ]sol|caves?)(?![a-z])/;

function classify(text: string, start: number, end: number, weak: boolean, value: number, places: readonly Span[]): Classified {
  const before = clauseBefore(text, start);
  const beforeStart = start - before.length;
  const placed = (from: number, to: number): boolean =>
    places.some((place) => place.start >= beforeStart + from && place.end <= beforeStart + to);
  const after = text.slice(end, end + 40);
  if (weak && (DISTANCE_BEFORE.test(before) || DISTANCE_AFTER.test(after))) return { role: 'distance', score: 0 };
  const afterMatch = AFTER_ROLE.exec(after);
  // "300 m² terrain 500 m²": a noun right before another number governs that number, not this one.
  const afterRole = afterMatch !== null && !GOVERNS_NEXT.test(after.slice(afterMatch[0].length)) ? afterMatch.groups : undefined;
  if (afterRole?.plot) return { role: 'plot', score: 4 };
  // "120m2 terrasse": the home's surface listed before its amenities (weakest main, with a doubt);
  // "12 m² terrasse" is the terrace's.
  if (afterRole?.part && value >= SMALLEST_HOME_AFTER_PART && BARE_PART_AFTER.test(after) && !ADDED_BEFORE.test(before))
    return { role: 'main', score: 1.5, doubtful: true };
  if (afterRole?.part) return { role: 'part', score: 0 };
  if (LEVEL_AFTER.test(after)) return { role: 'part', score: 0, level: true };
  if (afterRole?.living) return { role: 'living', score: 5 };
  if (afterRole?.total) return { role: 'total', score: 4 };
  const governing = governingNoun(before, placed);
  switch (governing?.role) {
    case 'plot':
      return { role: 'plot', score: 4 };
    case 'part':
      if (governing.doubtful === true && value >= SMALLEST_HOME_AFTER_PART) return { role: 'main', score: 1.5, doubtful: true };
      return { role: 'part', score: 0, level: governing.level };
    case 'living':
      return { role: 'living', score: 5 };
    case 'total':
      return { role: 'total', score: 4 };
    case 'keyword':
      return { role: 'main', score: 4 };
    case 'type':
      return { role: 'main', score: 3 };
    default:
      return { role: 'main', score: weak ? 1 : 2 };
  }
}

function isRange(text: string, start: number, end: number): { range: boolean; lower: number | null } {
  const before = text.slice(Math.max(0, start - 24), start);
  const rangeBefore = RANGE_BEFORE.exec(before);
  if (rangeBefore) {
    const lower = rangeBefore.groups?.lower;
    return { range: true, lower: lower !== undefined ? Number(lower) : null };
  }
  const after = text.slice(end, end + 16);
  if (RANGE_AFTER.test(after)) return { range: true, lower: null };
  // "42m 50m 68m 80m" lists a programme's sizes; "98 m2 14 m2 de terrasse" does not.
  const listed = LIST_AFTER.exec(after);
  if (listed === null) return { range: false, lower: null };
  const next = end + listed[0].length;
  return { range: !AFTER_ROLE.test(text.slice(next, next + 40)), lower: null };
}

/** Every surface mention, in text order. */
export function findSurfaceMentions(
  text: string,
  numbers: readonly NumberToken[],
  titleEnd: number,
  places: readonly Span[] = [],
): SurfaceMention[] {
  const mentions: SurfaceMention[] = [];
  for (const token of numbers) {
    SURFACE_UNIT.lastIndex = token.end;
    const unit = SURFACE_UNIT.exec(text);
    let end: number;
    let value = token.value;
    let role: SurfaceRole;
    let score: number;
    let doubtful: boolean | undefined;
    let level: boolean | undefined;
    if (unit?.groups) {
      end = SURFACE_UNIT.lastIndex;
      if (unit.groups.hectare !== undefined) {
        value = token.value * 10_000;
        role = 'plot';
        score = 4;
      } else {
        const weak = unit.groups.weak !== undefined;
        if (weak && (token.value < 12 || token.value > 50_000 || token.hasDecimal)) continue;
        if (weak && unit.groups.weak === 'م' && token.value >= 1900 && token.value <= 2100) continue;
        if (!weak && token.value < 5) continue;
        ({ role, score, doubtful, level } = classify(text, token.start, end, weak, token.value, places));
      }
    } else {
      BARE_HABITABLE.lastIndex = token.end;
      if (!BARE_HABITABLE.test(text) || token.value < 12) continue;
      end = BARE_HABITABLE.lastIndex;
      role = 'living';
      score = 5;
    }
    if (value > 10_000_000) continue;
    const outdoor =
      role === 'part' && (OUTDOOR_AFTER.test(text.slice(end, end + 40)) || OUTDOOR_BEFORE.test(clauseBefore(text, token.start)));
    const { range, lower } = role === 'main' || role === 'living' ? isRange(text, token.start, end) : { range: false, lower: null };
    mentions.push({
      value: range && lower !== null && lower < value && lower >= 12 ? lower : value,
      role,
      score: range ? 0.5 : score,
      range,
      start: token.start,
      end,
      inTitle: token.start < titleEnd,
      outdoor,
      ...(doubtful === true ? { doubtful } : {}),
      ...(level === true ? { level } : {}),
    });
  }
  for (const match of text.matchAll(HECTARE_WORDS)) {
    const count = COUNT_WORDS.get(match[1] ?? '');
    if (count === undefined) continue;
    mentions.push({
      value: count * 10_000,
      role: 'plot',
      score: 4,
      range: false,
      start: match.index,
      end: match.index + match[0].length,
      inTitle: match.index < titleEnd,
      outdoor: false,
    });
  }
  return mentions.sort((a, b) => a.start - b.start);
}

function best(mentions: readonly SurfaceMention[]): SurfaceMention | null {
  let chosen: SurfaceMention | null = null;
  for (const mention of mentions) {
    const score = mention.score + (mention.inTitle ? 0.5 : 0);
    const chosenScore = chosen === null ? -1 : chosen.score + (chosen.inTitle ? 0.5 : 0);
    if (score > chosenScore) chosen = mention;
  }
  return chosen;
}

/** What may stand between a home's surface and the terrace added to it: "46 m² habitables, 41 m² de terrasse". */
const ADDED_OUTDOOR_GAP = /^[^.;!?\n\d]{0,24}$/;
const INCLUDED_GAP = /(?:dont|inclus|incluse|including|included|y compris|comprenant)/;

/**
 * Terraces and balconies stated next to the home's surface, as added to it ("45 m² int et 17 m²
 * de terrasse", "98 m² + 14 m² de terrasse"), not as included in it ("82 m² dont 12 de terrasse").
 */
function outdoorAddedTo(text: string, surface: SurfaceMention, mentions: readonly SurfaceMention[]): number {
  let added = 0;
  let previousEnd = surface.end;
  for (const mention of mentions) {
    if (mention.start < previousEnd) continue;
    const gap = text.slice(previousEnd, mention.start);
    if (!ADDED_OUTDOOR_GAP.test(gap) || INCLUDED_GAP.test(gap)) break;
    if (!mention.outdoor) break;
    added += mention.value;
    previousEnd = mention.end;
  }
  return added;
}

/**
 * Living and total surfaces from the mentions. Land has only a total (plot) surface; a living
 * surface stated next to a larger main one makes the larger one the total ("105 m² (78 m² habitables)");
 * terraces stated on top of the living surface make the total the sum (docs/analysis-text.md:
 * portals count terraces in a flat's surface).
 */
export function chooseSurfaces(mentions: readonly SurfaceMention[], isLand: boolean, text = '', premises = false): SurfaceFacts {
  const living = best(mentions.filter((m) => m.role === 'living'));
  const main = best(mentions.filter((m) => m.role === 'main'));
  const total = best(mentions.filter((m) => m.role === 'total' || m.role === 'plot'));
  if (premises) return premisesSurfaces(mentions, living ?? main, best(mentions.filter((m) => m.role === 'total')));
  let surface: SurfaceMention | null = living ?? main;
  let totalValue = total?.value ?? null;
  if (isLand && living === null) {
    totalValue = totalValue ?? main?.value ?? null;
    surface = null;
  } else if (living !== null && main !== null && main.value > living.value && totalValue === null && !main.range) {
    totalValue = main.value;
  }
  if (surface !== null && totalValue === null && !surface.range) {
    const outdoor = outdoorAddedTo(text, surface, mentions);
    if (outdoor > 0) totalValue = surface.value + outdoor;
  }
  if (surface !== null && totalValue !== null && totalValue === surface.value && (total === null || total.role !== 'plot')) {
    totalValue = null;
  }
  const doubt = surface?.doubtful === true ? DOUBTFUL_PART : null;
  return { surface_m2: surface?.value ?? null, surface_total_m2: totalValue, mentions: [...mentions], doubt };
}

const DOUBTFUL_PART: Texts = {
  en: 'The surface follows the name of an amenity ("avec piscine 120 m²"): it was read as the property\'s surface, but it may be the amenity\'s.',
  fr: 'La surface suit le nom d’un équipement (« avec piscine 120 m² ») : elle a été lue comme la surface du bien, mais elle peut être celle de l’équipement.',
  ar: 'تأتي المساحة بعد اسم مرفق («مع مسبح 120 م²»): قُرئت على أنها مساحة العقار، لكنها قد تكون مساحة المرفق.',
};
const LEVELS_WITHOUT_TOTAL: Texts = {
  en: "The premises are described by levels (mezzanine, basement) without a total: the surface is the main level's, without the other levels.",
  fr: 'Le local est décrit par niveaux (mezzanine, sous-sol) sans total : la surface est celle du niveau principal, sans les autres niveaux.',
  ar: 'يوصف المحل بطوابقه (ميزانين، طابق سفلي) دون مجموع: المساحة هي مساحة الطابق الرئيسي، دون الطوابق الأخرى.',
};

/**
 * Commercial premises and offices are filed by their whole floor area (docs/analysis-text.md
 * "Surfaces: total and parts"): a stated total ("le local totalise 204 m²", "superficie totale")
 * is the surface; a mezzanine, basement or terrace is a part and never the surface. Levels stated
 * without a total leave the main level's surface and a doubt.
 */
function premisesSurfaces(mentions: readonly SurfaceMention[], main: SurfaceMention | null, total: SurfaceMention | null): SurfaceFacts {
  if (total !== null && (main === null || total.value >= main.value)) {
    return { surface_m2: total.value, surface_total_m2: null, mentions: [...mentions], doubt: null };
  }
  const levels = main !== null && mentions.some((m) => m.level === true && m.value < main.value * 4);
  const doubt = main?.doubtful === true ? DOUBTFUL_PART : levels ? LEVELS_WITHOUT_TOTAL : null;
  return { surface_m2: main?.value ?? null, surface_total_m2: total?.value ?? null, mentions: [...mentions], doubt };
}

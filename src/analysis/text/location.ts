/**
 * City and district from free text, through the gazetteer (gazetteer.ts).
 *
 * Every known name in the text is a mention; the city is the one with the most weight: a name in
 * the title counts three times a name in the description, a district of a single city votes for
 * that city, a name used as a street ("boulevard d'Anfa", "avenue Khouribga", "شارع"), a
 * distance ("à 33 km d'El Jadida", "proche de Casablanca") or a road pair ("casa-rabat") weighs
 * little or nothing. The district is the best mention that belongs to that city (or to every city:
 * "centre ville", "médina"). A district found in several cities ("Agdal": Rabat, Marrakech, Fès)
 * does not pick a city on its own: nothing is guessed.
 */
import type { Span } from './rooms.js';
import { citiesOfDistrict, fuzzyCity, isAliasPrefix, textAliases, type Alias, type PlaceEntry } from './gazetteer.js';
import { nameKey, tokenize, type Token } from './normalize.js';

export interface Location {
  city: string | null;
  district: string | null;
  /** A district name the text uses that several cities have, with no other place to settle it; else null. */
  ambiguous?: { district: string; cities: string[] } | null;
  /** Where the city and the district were read (first mention), for provenance. */
  citySpan?: Span;
  districtSpan?: Span;
  /** Every place name the text holds (streets and landmarks included), in text order: a place ends a room's phrase (surface.ts). */
  places?: Span[];
}

interface Mention {
  entries: PlaceEntry[];
  start: number;
  end: number;
  firstToken: number;
  lastToken: number;
  inTitle: boolean;
  street: boolean;
  /** The name as written (normalised text). */
  name: string;
  /** Named after by a building ("Résidence Nassim"): says nothing of where the home is. */
  landmark: boolean;
  weak: boolean;
  placeWordBefore: boolean;
}

const MAX_WORDS = 6;

/** Word sets compared with token keys, so in the same form (doubled letters collapsed: "allee" → "ale"). */
function keyed(words: readonly string[]): ReadonlySet<string> {
  return new Set(words.map(nameKey));
}
const ARABIC_PREFIX = /^[وبلفك][\u0600-\u06ff]{2,}$/;
/** Words after which a common word ("oasis", "palmier", "sale") is a place. */
const PLACE_WORDS = new Set([
  'a',
  'au',
  'aux',
  'sur',
  'quartier',
  'qrt',
  'quart',
  'hay',
  'secteur',
  'l',
  'la',
  'les',
  'in',
  'at',
  'ville',
  'zone',
  'cite',
  'plein',
  'pleine',
  'coeur',
  'situe',
  'situee',
  'en',
  'vers',
  'of',
  'في',
  'ب',
  'حي',
  'مدينه',
  'بمدينه',
  'بحي',
  // "Appartement à vendre Oasis", "studio Palmier": titles put the place right after the deal or the type.
  'vendre',
  'louer',
  'vente',
  'location',
  'appartement',
  'appart',
  'appt',
  'studio',
  'villa',
  'riad',
  'maison',
  'duplex',
  'terrain',
  'bureau',
  'bureaux',
  'magasin',
  'local',
]);
const STREET_WORDS = keyed([
  'rue',
  'avenue',
  'av',
  'ave',
  'bd',
  'boulevard',
  'blvd',
  'route',
  'rte',
  'autoroute',
  'direction',
  'sortie',
  'entree',
  'zankat',
  'zenqat',
  'angle',
  'ecole',
  'lycee',
  'college',
  'hotel',
  'clinique',
  'universite',
  'faculte',
  'stade',
  'mosquee',
  'street',
  'road',
  'shari3',
  'شارع',
  'طريق',
  'زنقه',
  'bvd',
  'place',
  'allee',
  'impasse',
  'carrefour',
  'rond',
]);
/**
 * Stations and airports are named after the city they serve ("la gare de Tanger", "gare Rabat
 * Agdal", "aéroport de Marrakech"): the name places the home near that city, weakly, like a
 * distance, and gives no district.
 */
const CITY_LANDMARK_WORDS = keyed(['gare', 'station', 'aeroport', 'airport', 'محطه', 'مطار']);
/** "Plateau bureau", "plateau de bureaux": the premises' type, not the Plateau district. */
const TYPE_AFTER_PLATEAU = keyed([
  'bureau',
  'bureaux',
  'burreau',
  'de',
  'd',
  'a',
  'commercial',
  'professionnel',
  'libre',
  'nu',
  'amenage',
  'open',
]);
/**
 * Names of buildings and projects: "Résidence Nassim", "Complexe Al Andalous", "إقامة النور" name
 * a building, wherever it stands; the place name in them is not where the home is.
 */
const LANDMARK_WORDS = keyed([
  'residence',
  'residences',
  'res',
  'resid',
  'complexe',
  'projet',
  'programme',
  'immeuble',
  'imeuble',
  'tour',
  'tours',
  'mall',
  'cafe',
  'restaurant',
  'pharmacie',
  'banque',
  'marche',
  'souk',
  'اقامه',
  'الاقامه',
  'باقامه',
  'مشروع',
  'عماره',
  'مقهي',
]);
/**
 * Words that may stand between a street word and the name it carries: "rue parallèle à Tan Tan",
 * "avenue n° 5 de Fès", "à l'angle de la rue de Safi".
 */
const STREET_LINK_WORDS = keyed([
  'parallele',
  'perpendiculaire',
  'face',
  'angle',
  'a',
  'de',
  'd',
  'du',
  'des',
  'la',
  'l',
  'el',
  'al',
  'n',
  'no',
  'num',
  'numero',
  'principale',
  'principal',
  'grande',
  'grand',
  'nouvelle',
  'ancienne',
  'old',
  'new',
]);
const STREET_LOOKBACK = 4;
/** Everyday words that collapse onto a place key ("salle" → "sale", the key of Salé). */
const NEVER_A_PLACE = new Set(['salle', 'salles']);
const ARTICLE_WORDS = new Set(['de', 'd', 'du', 'des', 'la', 'l']);
const DISTANCE_BEFORE =
  /(?:\d\s*(?:km|kilometres?|min|minutes?|mn|heures?|h)\s*(?:(?:de|d'|du|from|of|to|من|عن)\s*)?(?:[a-z\u00df-\u024f\u0600-\u06ff']+\s+)?|(?<![a-z\u00df-\u024f\u0600-\u06ff])(?:proche|pres|cote|loin|direction|vers|entre|near|towards|between|from|قرب|بين|نحو|بجانب)\s*(?:(?:de|d'|du|des|of|la|l')\s*)?)$/;
const PAIR_SEPARATOR = /^\s*[-/]\s*$/;

function isLineStart(text: string, position: number): boolean {
  const before = text.slice(Math.max(0, position - 3), position);
  if (position === 0) return true;
  // The text before ends a line, a label ("Quartier :") or opens a bracket, spaces aside.
  const trimmed = before.trimEnd();
  return before.slice(trimmed.length).includes('\n') || trimmed.endsWith(':') || trimmed.endsWith('(');
}

/**
 * Aliases that may be read here: all of them after a place word; else those that need no context,
 * and a district of the city named right before it ("Meknès Marjane 2", "Casa Oasis").
 */
function acceptedAliases(aliases: readonly Alias[], contextOk: boolean, cityBefore: string | null): PlaceEntry[] {
  return aliases
    .filter((alias) => contextOk || !alias.needsContext || (alias.entry.kind === 'district' && alias.entry.city === cityBefore))
    .map((alias) => alias.entry);
}

/** The city a single word names ("meknes", "casa"), or null. */
function cityNamedBy(key: string | undefined): string | null {
  const entry =
    key === undefined ? undefined : textAliases(key)?.find((alias) => alias.entry.kind === 'city' && !alias.needsContext)?.entry;
  return entry?.kind === 'city' ? entry.city : null;
}

/**
 * Titles end with the place ("Appartement 64m2 2ch 450000dh Salé", "Café avec terrasse Palmier"): a
 * common word that is a place is one there too, except after "for"/"on" ("Villa for sale").
 */
const NOT_A_PLACE_AT_TITLE_END_AFTER = new Set(['for', 'on', 'of', 'the', 'to', 'an', 'garage', 'yard']);
function endsTitle(text: string, last: Token, titleEnd: number, previous: string | undefined): boolean {
  if (last.end > titleEnd || (previous !== undefined && NOT_A_PLACE_AT_TITLE_END_AFTER.has(previous))) return false;
  return /^[\s.,;:!)\-–]*$/.test(text.slice(last.end, titleEnd));
}

/** Longest known name starting at token `index`, trying the word without an attached Arabic preposition too. */
function matchAt(text: string, tokens: readonly Token[], index: number, titleEnd: number): Mention | null {
  const first = tokens[index] as Token;
  const arabic = first.key.charCodeAt(0) >= 0x0600;
  const canStart = isAliasPrefix(first.key);
  const withoutProclitic = arabic && ARABIC_PREFIX.test(first.key) ? first.key.slice(1) : null;
  if (!canStart && (withoutProclitic === null || !isAliasPrefix(withoutProclitic))) {
    return first.key.length >= 6 ? fuzzyMention(first, index, titleEnd) : null;
  }
  if (NEVER_A_PLACE.has(text.slice(first.start, first.end))) return null;
  const variants = withoutProclitic === null ? [first.key] : [first.key, withoutProclitic];
  for (const [variantIndex, variant] of variants.entries()) {
    if (!isAliasPrefix(variant)) continue;
    let key = variant;
    let best: { aliases: readonly Alias[]; last: number } | null = null;
    for (let last = index; last < tokens.length && last < index + MAX_WORDS; last += 1) {
      if (last > index) key += ` ${(tokens[last] as Token).key}`;
      if (!isAliasPrefix(key)) break;
      const aliases = textAliases(key);
      if (aliases !== undefined) best = { aliases, last };
    }
    if (best === null) continue;
    const previous = tokens[index - 1]?.key;
    const beforePrevious = tokens[index - 2]?.key;
    const placeWordBefore = variantIndex > 0 || (previous !== undefined && PLACE_WORDS.has(previous)) || isLineStart(text, first.start);
    // The end of the title places a common word ("… Salé") but does not weigh like "à" or "quartier".
    const entries = acceptedAliases(
      best.aliases,
      placeWordBefore || endsTitle(text, tokens[best.last] as Token, titleEnd, previous),
      cityNamedBy(previous),
    );
    if (entries.length === 0) continue;
    const lastToken = tokens[best.last] as Token;
    const next = tokens[best.last + 1]?.key;
    if (
      best.last === index &&
      first.key === 'plateau' &&
      next !== undefined &&
      TYPE_AFTER_PLATEAU.has(next) &&
      !PLACE_WORDS.has(previous ?? '')
    )
      continue;
    const servedCity =
      (previous !== undefined && CITY_LANDMARK_WORDS.has(previous)) ||
      (previous !== undefined && ARTICLE_WORDS.has(previous) && beforePrevious !== undefined && CITY_LANDMARK_WORDS.has(beforePrevious));
    const street =
      (previous !== undefined &&
        (STREET_WORDS.has(previous) ||
          (ARTICLE_WORDS.has(previous) && beforePrevious !== undefined && STREET_WORDS.has(beforePrevious)))) ||
      namedAfterBy(tokens, index);
    const landmark = buildingName(tokens, index);
    return {
      entries,
      start: first.start,
      end: lastToken.end,
      firstToken: index,
      lastToken: best.last,
      inTitle: first.start < titleEnd,
      street,
      name: text.slice(first.start, lastToken.end),
      landmark,
      weak: servedCity || DISTANCE_BEFORE.test(text.slice(Math.max(0, first.start - 24), first.start)),
      placeWordBefore,
    };
  }
  return fuzzyMention(first, index, titleEnd);
}

/**
 * True when the name at `index` names a street or a building rather than a place: a street word a
 * few linking words before it ("rue parallèle à Tan Tan"), or a building word right before it
 * ("Résidence Nassim"). docs/analysis-text.md "City and district".
 */
function namedAfterBy(tokens: readonly Token[], index: number): boolean {
  if (buildingName(tokens, index)) return true;
  for (let back = index - 1; back >= 0 && back >= index - STREET_LOOKBACK; back -= 1) {
    const key = (tokens[back] as Token).key;
    // "Résidence à Casa Finance City" places the building; only a street carries a name over linking words.
    if (STREET_WORDS.has(key)) return true;
    if (!STREET_LINK_WORDS.has(key) && !/^\d+$/.test(key)) return false;
  }
  return false;
}

/** Words inside a building's name before the place name: "Résidence Al Andalous", "Résidence Les Jardins d'Anfa". */
const BUILDING_NAME_LINK_WORDS = keyed([
  'al',
  'el',
  'les',
  'le',
  'la',
  'l',
  'de',
  'des',
  'du',
  'd',
  'jardins',
  'jardin',
  'perle',
  'villas',
]);

/** True when a building word stands right before the name, or before a few words of the building's name. */
function buildingName(tokens: readonly Token[], index: number): boolean {
  for (let back = index - 1; back >= 0 && back >= index - 3; back -= 1) {
    const key = (tokens[back] as Token).key;
    if (LANDMARK_WORDS.has(key)) return true;
    if (!BUILDING_NAME_LINK_WORDS.has(key)) return false;
  }
  return false;
}

/** A long word one typo away from a city name ("Casablanta"). */
function fuzzyMention(token: Token, index: number, titleEnd: number): Mention | null {
  const city = fuzzyCity(token.key);
  if (city === null) return null;
  return {
    entries: [{ kind: 'city', city }],
    start: token.start,
    end: token.end,
    firstToken: index,
    lastToken: index,
    inTitle: token.start < titleEnd,
    street: false,
    name: token.key,
    landmark: false,
    weak: false,
    placeWordBefore: false,
  };
}

function findMentions(text: string, titleEnd: number): Mention[] {
  const tokens = tokenize(text);
  const mentions: Mention[] = [];
  for (let index = 0; index < tokens.length;) {
    const mention = matchAt(text, tokens, index, titleEnd);
    if (mention === null) {
      index += 1;
      continue;
    }
    mentions.push(mention);
    index = mention.lastToken + 1;
  }
  // "casa-rabat", "Casablanca –Rabat": a road between two cities, not the listing's place. Two
  // districts ("Bourgogne Ouest / Val d'Anfa") or a district and its city ("Maârif - Casablanca") are
  // where the home is.
  for (let i = 1; i < mentions.length; i += 1) {
    const previous = mentions[i - 1] as Mention;
    const current = mentions[i] as Mention;
    if (
      isCityMention(previous) &&
      isCityMention(current) &&
      previous.lastToken + 1 === current.firstToken &&
      PAIR_SEPARATOR.test(text.slice(previous.end, current.start))
    ) {
      previous.weak = true;
      current.weak = true;
    }
  }
  return mentions;
}

const SHARED_NAMES = new Map<string, string[]>();

/** Every city that has a district of this name, free-text and portal-field names alike (cached). */
function citiesNaming(district: string): string[] {
  let cities = SHARED_NAMES.get(district);
  if (cities === undefined) {
    cities = citiesOfDistrict(district);
    SHARED_NAMES.set(district, cities);
  }
  return cities;
}

/**
 * A district name that several cities have ("Plateau": Casablanca and El Jadida; "Hay Salam"): it
 * settles nothing on its own (docs/analysis-text.md "City and district").
 */
function sharedDistrictName(mention: Mention): boolean {
  return mention.entries.some((entry) => entry.kind === 'district' && entry.city !== null) && citiesNaming(mention.name).length > 1;
}

function citiesOf(mention: Mention): string[] {
  const cities = new Set<string>();
  for (const entry of mention.entries) if (entry.city !== null) cities.add(entry.city);
  return [...cities];
}

function isCityMention(mention: Mention): boolean {
  return mention.entries.some((entry) => entry.kind === 'city');
}

/** City and district the text states; null fields when it does not. */
export function extractLocation(text: string, titleEnd: number): Location {
  const mentions = findMentions(text, titleEnd);
  if (mentions.length === 0) return { city: null, district: null, places: [] };
  const places = mentions.map((mention) => ({ start: mention.start, end: mention.end }));

  const votes = new Map<string, { weight: number; first: number; end: number }>();
  const vote = (city: string, weight: number, position: number, end = position): void => {
    const current = votes.get(city);
    if (current === undefined) votes.set(city, { weight, first: position, end });
    else current.weight += weight;
  };
  for (const mention of mentions) {
    const distance = mention.weak ? 0.3 : 1;
    if (isCityMention(mention)) {
      if (mention.street) continue;
      for (const entry of mention.entries) {
        if (entry.kind === 'city') vote(entry.city, (mention.inTitle ? 3 : 1) * distance, mention.start, mention.end);
      }
      continue;
    }
    const cities = citiesOf(mention);
    if (cities.length === 1 && !mention.landmark && !sharedDistrictName(mention))
      vote(cities[0] as string, mention.street ? 0.5 : (mention.inTitle ? 2 : 1) * distance, mention.start, mention.end);
  }
  // A district found in several cities only breaks ties between cities the text names otherwise.
  for (const mention of mentions) {
    const cities = citiesOf(mention);
    if (cities.length > 1 && !mention.street) for (const city of cities) if (votes.has(city)) vote(city, 0.2, mention.start);
  }

  let city: string | null = null;
  let best = { weight: 0, first: Infinity, end: Infinity };
  for (const [name, tally] of votes) {
    if (tally.weight > best.weight || (tally.weight === best.weight && tally.first < best.first)) {
      city = name;
      best = tally;
    }
  }

  let district: string | null = null;
  let districtSpan: Span | undefined;
  let districtScore = 0;
  for (const mention of mentions) {
    // A street or a landmark at a distance ("à 5 min de Maarif") is not where the home is.
    if (mention.street || mention.weak) continue;
    const entry = mention.entries.find(
      (candidate) => candidate.kind === 'district' && (city === null || candidate.city === city || candidate.city === null),
    );
    if (entry?.kind !== 'district') continue;
    const score = (mention.inTitle ? 2 : 1) + (mention.placeWordBefore ? 0.5 : 0);
    if (score > districtScore) {
      district = entry.district;
      districtSpan = { start: mention.start, end: mention.end };
      districtScore = score;
    }
  }
  let ambiguous: Location['ambiguous'] = null;
  if (city === null) {
    const shared = mentions.find(
      (mention) => !mention.street && !mention.weak && (sharedDistrictName(mention) || citiesOf(mention).length > 1),
    );
    const entry = shared?.entries.find((candidate) => candidate.kind === 'district');
    if (entry?.kind === 'district') {
      ambiguous = {
        district: entry.district,
        cities: [...new Set([...citiesOf(shared as Mention), ...citiesNaming((shared as Mention).name)])],
      };
    }
  }
  return { city, district, ambiguous, citySpan: city === null ? undefined : { start: best.first, end: best.end }, districtSpan, places };
}

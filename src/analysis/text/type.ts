/**
 * Property type (docs/analysis-text.md). The title names the type most reliably: its first
 * type word wins ("Terrain villa à vendre" is land, "Villa avec terrain" a villa), and an
 * apartment named more precisely in the title ("Appartement duplex") takes the precise type.
 * Without a type in the title, the description's first type word wins, skipping words that
 * describe the surroundings rather than the property: "au 2ème étage d'un immeuble", "plateaux
 * de bureau" among nearby amenities, "terrain de foot", "résidence fermée", place names such as
 * Hay Riad, Ferme Bretonne, Dar Bouazza or الدار البيضاء.
 */
import type { PropertyType } from '../../core/types.js';
import { WORD_START } from './normalize.js';

const TYPE_WORDS = new RegExp(
  String.raw`${WORD_START}(?:` +
    String.raw`(?<studio>studios?|استوديو|ستوديو|سطوديو|garconnieres?|garsonieres?|garsonnieres?|garconiere|كارصونيه|كارسونيه|كارصونيات|قرصونيه|garsouniya|garsonia|karsonia|karssonia)` +
    String.raw`|(?<duplex>duplexe?s?|triplex|دوبلكس)` +
    String.raw`|(?<penthouse>penthouses?|بنتهاوس)` +
    String.raw`|(?<villa>villas?|vila|filla|فيلا|فيلات|الفيلا)` +
    String.raw`|(?<riad>riads?|رياض)` +
    String.raw`|(?<house>maisons?|hotel particulier|house|townhouse|منزل|المنزل|دار|dar)` +
    String.raw`|(?<farm>fermes?|ferme agricole|farm|ضيعه|الضيعه|ferma|day3a)` +
    String.raw`|(?<land>terrains?|lots?|plot|land|hectares?|ارض|الارض|بقعه|البقعه|بقع|bo9a|bo9a ardia|ard|lard)` +
    String.raw`|(?<office>bureaux?|plateaux? (?:de |a usage de )?bureaux?|plateau|loca(?:l|ux) (?:a usage (?:de |d'|d )?|pour |de )bureaux?|offices?|مكتب|مكاتب|biro)` +
    String.raw`|(?<commercial>magasins?|magasine|local|locaux|boutiques?|entrepots?|hangars?|showroom|usine|depots?|cafes?(?: restaurants?)?|restaurants?|snacks?|fonds de commerce|shop|retail|محل|محلات|المحل|حانوت|7anout|ma7al)` +
    String.raw`|(?<building>immeubles?|building|عماره|العماره|3imara)` +
    String.raw`|(?<apartment>appartements?|apparts?|appt|apt|apartements?|appartment|appartemment|appretement|appartemant|apartments?|flats?|شقه|شقق|الشقه|الشقق|برطمه|بارطما|brtma|bartma|partma|chqa|che9a|cha9a)` +
    String.raw`)(?![a-z\u00df-\u024f\u0600-\u06ff])`,
  'g',
);

type Checker = (before: string, after: string, inTitle: boolean) => boolean;

const PLACE_RIAD_BEFORE = /(?:hay|mahaj|quartier|residence|res|lotissement|bd|boulevard|avenue|av|rue|al|el|ryad)\s*$/;
const PLACE_RIAD_AFTER = /^\s*(?:oulad|ouled|salam|essalam|el|al|zitoun|andalous|sbil|rahma|errahma|ال)/;
const NOT_A_HOUSE_AFTER = /^\s*(?:d\s?'?\s?hotes?|de maitre|البيضاء|بوعزه|الضياف|الشباب|السلام|الامان|المسنين|bouazza)/;
/**
 * Darija "dar" (a house) is also the first word of place and institution names: Dar Bouazza,
 * Dar el Beida (Casablanca), Dar Es Salam, Dar Chabab (youth centre), "wast dar" (the patio).
 */
const NOT_A_DAR_AFTER =
  /^\s*(?:bouazza|bouaza|el\b|al\b|es\b|lbida|lbayda|beida|baida|essalam|salam|lamane|chabab|chebab|taliba|dyafa|diafa|ould|gueddari|chaoui|touzani|sebti|lhana)/;
const NOT_A_DAR_BEFORE = /(?:wast|west|f wast|residence|quartier|hay|douar|rue|bd|avenue)\s*$/;
const NOT_A_FARM = {
  before: /(?:residence|complexe|ensemble|immeuble|quartier|espace|porte|cuisine|parking|piscine|garage|resid|res)\s*$/,
  after: /^\s*(?:bretonne|breton)/,
};
const LAND_AS_AMENITY_AFTER =
  /^\s*(?:de |d'|du )?(?:foot|football|sport|sports|basket|basketball|tennis|golf|jeux|padel|omnisports?|handball)/;
const LAND_OF_ANOTHER_BEFORE = /(?:sur un|sur une|sur|avec un|avec|et|un beau|d'un|son|du|de)\s*$/;
/** "Superficie du terrain : 4000 m²" measures a house's plot; it does not say the property is land. */
const LAND_AS_MEASURE_BEFORE = /(?:superficie|surface|taille|contenance)(?: totale| globale)?\s*(?:du|de la|de)\s*$/;
const LOT_OF_LAND_AFTER = /^\s*(?:de |d'|pour )?(?:villa|villas|terrain|maison|r\s?\+|lotissement|\d+\s?m)/;
const OFFICE_IN_BODY =
  /^\s*(?:a louer|a vendre|en location|en vente|de \d|equipes?|de standing|professionnels?|d'affaires|amenages?|moderne)/;
const OFFICE_AS_AMENITY_BEFORE = /(?:chambre|espace|coin|nos|vos|des|de|aux)\s*$/;
const OFFICE_AS_AMENITY_AFTER = /^\s*(?:de vente|de directeur|complet|d'etude|de poste)/;
const COMMERCIAL_LOCAL_AFTER = /^\s*(?:commercial|professionnel|industriel|a usage|a louer|a vendre|de \d|rentable|de stockage|bien place)/;
const NEARBY_SHOPS_BEFORE = /(?:proche|pres|cote|des|de|aux|et|commerces,?|supermarches?|restaurants,?|ecoles?,?)\s*$/;
/** "au 2ème étage d'un immeuble": the building around the home. */
const BUILDING_AS_CONTEXT_BEFORE = /(?:d'un|d un|dans un|dans l'|de l'|l'|du meme|meme|son|notre|votre)\s*$/;
const BUILDING_IN_BODY_BEFORE =
  /(?:vend|vends|vente|vendre|louer|location|propose|ce|cet|bel|superbe|magnifique|un bel)\s*(?:d'un |un |l'|cet |ce )?$/;
const BUILDING_IN_BODY_AFTER = /^\s*(?:a vendre|a louer|de rapport|entier|complet|compose|r\s?\+\s?\d+ a vendre)/;
const FLAT_AS_ADJECTIVE_AFTER = /^\s*(?:roof|screen|tv|rate|fee|terrain|land)/;
const VILLA_AS_CONTEXT_BEFORE =
  /(?:lots? de|terrains? de|terrain|lotissements? de|lotissement|zone|quartier des|quartier|cote|cote des|style|des|les|aux)\s*$/;

const CHECKS: Partial<Record<PropertyType, Checker>> = {
  riad: (before, after) => !PLACE_RIAD_BEFORE.test(before) && !PLACE_RIAD_AFTER.test(after),
  house: (before, after) => !NOT_A_HOUSE_AFTER.test(after) && !/ال$/.test(before),
  farm: (before, after) => !NOT_A_FARM.before.test(before) && !NOT_A_FARM.after.test(after),
  land: (before, after, inTitle) =>
    !LAND_AS_AMENITY_AFTER.test(after) && !LAND_AS_MEASURE_BEFORE.test(before) && (inTitle || !LAND_OF_ANOTHER_BEFORE.test(before)),
  office: (before, after, inTitle) =>
    !OFFICE_AS_AMENITY_BEFORE.test(before) && !OFFICE_AS_AMENITY_AFTER.test(after) && (inTitle || OFFICE_IN_BODY.test(after)),
  commercial: (before, _after, inTitle) => inTitle || !NEARBY_SHOPS_BEFORE.test(before),
  building: (before, after, inTitle) =>
    !BUILDING_AS_CONTEXT_BEFORE.test(before) && (inTitle || BUILDING_IN_BODY_BEFORE.test(before) || BUILDING_IN_BODY_AFTER.test(after)),
  apartment: (_before, after) => !FLAT_AS_ADJECTIVE_AFTER.test(after),
  villa: (before, _after, inTitle) => inTitle || !VILLA_AS_CONTEXT_BEFORE.test(before),
};

const APARTMENT_SUBTYPES: ReadonlySet<PropertyType> = new Set(['studio', 'duplex', 'penthouse']);

export interface TypeMention {
  type: PropertyType;
  start: number;
  end: number;
}

function typeOf(groups: Record<string, string | undefined>): PropertyType | null {
  for (const [name, value] of Object.entries(groups)) {
    if (value !== undefined) return name as PropertyType;
  }
  return null;
}

/** Extra conditions for words that are a type only in some uses. */
function qualifies(text: string, type: PropertyType, word: string, start: number, end: number, inTitle: boolean): boolean {
  const before = text.slice(Math.max(0, start - 24), start);
  const after = text.slice(end, end + 24);
  if (type === 'land' && /^lots?$/.test(word)) return inTitle || LOT_OF_LAND_AFTER.test(after);
  if (type === 'land' && /^hectares?$/.test(word)) return inTitle;
  if (type === 'commercial' && /^loca(?:l|ux)$/.test(word) && !inTitle)
    return COMMERCIAL_LOCAL_AFTER.test(after) || /(?:un|le|ce|mon|du)\s*$/.test(before);
  // "Local à usage de bureau": premises named as an office are one, wherever the words stand.
  if (type === 'office' && word.startsWith('loca')) return true;
  // A café or restaurant for rent is premises when the title names it; in a description it is the neighbourhood's.
  if (type === 'commercial' && /^(?:cafe|restaurant|snack)/.test(word))
    return inTitle && !/(?:proche|pres|cote|face|des|aux|et)\s*(?:d'un |du |de la )?$/.test(before);
  // "Dépôt 300 m² à louer" is a storeroom; "dépôt de garantie" a deposit.
  if (type === 'commercial' && /^depots?$/.test(word)) return inTitle && !/^\s*(?:de |d')?(?:garantie|caution|vente|pain)/.test(after);
  if (type === 'office' && word === 'plateau')
    return (
      (inTitle && /^\s*(?:de |a usage )?(?:bureau|professionnel)/.test(after)) ||
      // "Plateau de 150 m² à usage de bureau": the use named after the size.
      /^[^.\n]{0,16}a usage (?:de |d')?(?:bureaux?|professionnel)/.test(text.slice(end, end + 40))
    );
  if (type === 'riad' && word === 'رياض') return !/^\s*ال/.test(after);
  if (type === 'house' && word === 'dar') return !NOT_A_DAR_AFTER.test(after) && !NOT_A_DAR_BEFORE.test(before);
  const check = CHECKS[type];
  return check === undefined || check(before, after, inTitle);
}

function mentions(text: string, from: number, to: number, inTitle: boolean, firstOnly: boolean): TypeMention[] {
  const found: TypeMention[] = [];
  TYPE_WORDS.lastIndex = from;
  for (let match = TYPE_WORDS.exec(text); match !== null && match.index < to; match = TYPE_WORDS.exec(text)) {
    const type = typeOf(match.groups ?? {});
    if (type === null) continue;
    if (!qualifies(text, type, match[0], match.index, match.index + match[0].length, inTitle)) continue;
    found.push({ type, start: match.index, end: match.index + match[0].length });
    if (firstOnly) break;
  }
  return found;
}

/** The mention the property type is read from, or null. */
export function findPropertyType(text: string, titleEnd: number): TypeMention | null {
  const inTitle = mentions(text, 0, titleEnd, true, false);
  const first = inTitle[0];
  if (first !== undefined) {
    if (first.type === 'apartment') {
      const precise = inTitle.find((m) => APARTMENT_SUBTYPES.has(m.type));
      if (precise !== undefined) return precise;
    }
    return first;
  }
  return mentions(text, titleEnd, text.length, false, true)[0] ?? null;
}

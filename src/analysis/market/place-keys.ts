import type { Language } from '../../core/types.js';
import { metroAreaCommunes } from '../text/gazetteer.js';

/**
 * Place names as the market table and the labels know them. Listings and extractors spell the
 * same place many ways (Maârif / Maarif / MAARIF, Guéliz / Gueliz, Tanger / Tangier), so every
 * lookup goes through `placeKey`: accents, case, apostrophes and hyphens do not matter.
 */

const COMBINING_MARKS = /[\u0300-\u036f]/g;
const ARABIC_DIACRITICS = /[\u064b-\u065f\u0670\u0640]/g;

/**
 * Memo of place keys: a batch names the same few hundred places over and over, and
 * normalising Unicode is the costliest step of a lookup. Cleared when full, so memory stays bounded.
 */
const KEY_MEMO = new Map<string, string>();
const KEY_MEMO_LIMIT = 10_000;

/** Accent-, case- and punctuation-insensitive key of a place name ("Aïn-Diab" → "ain diab"). */
export function placeKey(name: string): string {
  let key = KEY_MEMO.get(name);
  if (key === undefined) {
    if (KEY_MEMO.size >= KEY_MEMO_LIMIT) KEY_MEMO.clear();
    key = computePlaceKey(name);
    KEY_MEMO.set(name, key);
  }
  return key;
}

function computePlaceKey(name: string): string {
  return name
    .normalize('NFD')
    .replace(COMBINING_MARKS, '')
    .replace(ARABIC_DIACRITICS, '')
    .replace(/[أإآ]/g, 'ا')
    .replace(/ة/g, 'ه')
    .replace(/ى/g, 'ي')
    .toLowerCase()
    .replace(/[^a-z0-9\u0600-\u06ff]+/g, ' ')
    .trim();
}

/**
 * Other spellings of a city → the key of its name in the market table. Only spellings that are
 * not already equal after `placeKey` need listing.
 */
const CITY_ALIASES: Record<string, string> = {
  casa: 'casablanca',
  'dar el beida': 'casablanca',
  'dar el baida': 'casablanca',
  'الدار البيضاء': 'casablanca',
  'الدار البيضا': 'casablanca',
  كازا: 'casablanca',
  كازابلانكا: 'casablanca',
  tangier: 'tanger',
  tangiers: 'tanger',
  tanja: 'tanger',
  طنجه: 'tanger',
  marrakesh: 'marrakech',
  marrakch: 'marrakech',
  مراكش: 'marrakech',
  fez: 'fes',
  فاس: 'fes',
  مكناس: 'meknes',
  الرباط: 'rabat',
  سلا: 'sale',
  تماره: 'temara',
  القنيطره: 'kenitra',
  تطوان: 'tetouan',
  tetuan: 'tetouan',
  jadida: 'el jadida',
  eljadida: 'el jadida',
  الجديده: 'el jadida',
  وجده: 'oujda',
  اكادير: 'agadir',
  mohamedia: 'mohammedia',
  المحمديه: 'mohammedia',
  mogador: 'essaouira',
  الصويره: 'essaouira',
  'beni melal': 'beni mellal',
  'بني ملال': 'beni mellal',
  assilah: 'asilah',
  اصيله: 'asilah',
  mansouria: 'el mansouria',
  'dar bouaza': 'dar bouazza',
  'دار بوعزه': 'dar bouazza',
  بوسكوره: 'bouskoura',
  مرتيل: 'martil',
  السعيديه: 'saidia',
  بوزنيقه: 'bouznika',
  برشيد: 'berrechid',
  'حد السوالم': 'had soualem',
};

/** The city key used by the market table for any spelling of a city. */
export function cityKey(name: string): string {
  const key = placeKey(name);
  return CITY_ALIASES[key] ?? key;
}

/**
 * Other spellings of a district → keys to try, most specific first. A split district
 * ("Bourgogne Ouest") first tries itself (rents are split), then the merged sale row.
 */
const DISTRICT_ALIASES: Record<string, string[]> = {
  maarif: ['maarif'],
  'el maarif': ['maarif'],
  المعاريف: ['maarif'],
  'maarif ext': ['maarif extension'],
  'extension maarif': ['maarif extension'],
  gueliz: ['gueliz'],
  guliz: ['gueliz'],
  جليز: ['gueliz'],
  كليز: ['gueliz'],
  'hay ryad': ['hay riad'],
  'hay riyad': ['hay riad'],
  riyad: ['hay riad'],
  ryad: ['hay riad'],
  riad: ['hay riad'],
  'derb ghalef': ['derb ghallef'],
  ziaten: ['ziatene'],
  'حي الرياض': ['hay riad'],
  'ain diab': ['ain diab'],
  'ain diab ii': ['ain diab'],
  'عين الذياب': ['ain diab'],
  'casablanca finance city': ['cfc'],
  'casa finance city': ['cfc'],
  'val fleuri': ['val fleury'],
  'ferme bretone': ['ferme bretonne'],
  'hay arraha': ['ferme bretonne'],
  'bourgogne est': ['bourgogne est', 'bourgogne'],
  'bourgogne ouest': ['bourgogne ouest', 'bourgogne'],
  'quartier des hopitaux': ['hopitaux'],
  'les hopitaux': ['hopitaux'],
  'deux mars': ['2 mars'],
  'triangle dor': ['triangle d or'],
  palmiers: ['palmier'],
  'les palmiers': ['palmier'],
  princesses: ['les princesses'],
  belvedere: ['belvedere'],
  centre: ['centre', 'centre ville'],
  'centre ville': ['centre ville', 'centre'],
  downtown: ['centre ville', 'centre'],
  'anfa sup': ['anfa superieur'],
  'anfa superieure': ['anfa superieur'],
  hivernage: ['hivernage'],
  palmeraie: ['palmeraie'],
  'la palmeraie': ['palmeraie'],
  النخيل: ['palmeraie'],
  izdihar: ['hay izdihar'],
  mhamid: ['m hamid'],
  tamaris: ['tamaris'],
  'tamaris 2': ['tamaris'],
  'tamaris ii': ['tamaris'],
  'oulad mtaa': ['riad oulad mtaa'],
  'ryad oulad mtaa': ['riad oulad mtaa'],
  'sidi maarouf': ['sidi maarouf'],
  'sidi bernoussi': ['sidi bernoussi'],
  bernoussi: ['sidi bernoussi'],
  'ain sebaa': ['ain sebaa'],
  'hay mohammedi': ['hay mohammadi'],
  'hay mohamadi': ['hay mohammadi'],
  'hay hassani': ['hay hassani'],
  'ain chok': ['ain chock'],
  'ain chock': ['ain chock'],
  beausejour: ['beausejour'],
  'quartier du parc': ['quartier du parc'],
  'le parc': ['quartier du parc'],
  plage: ['plage'],
  beach: ['plage'],
  'ville verte': ['ville verte'],
  maamora: ['maamora'],
};

const PREFIX = /^(quartier|qt|secteur|hay el) /;
const ARTICLE = /^(l|le|la|les|el|al|de la|de l|du|des|de) /;
/** Parts of a district that name a sub-area of it: "Oasis Sud", "Haut Agdal", "Racine Extension". */
const SUB_AREA_SUFFIX = / (sud|nord|est|ouest|extension|ext|ii|i|1|2|3)$/;
const SUB_AREA_PREFIX = /^(haut|bas|nouveau|nouvelle) /;
const ALTERNATIVE = /^([^(]*)\(([^)]*)\)/;
const PARTS = /\s[-–/]\s/;

const DISTRICT_MEMO = new Map<string, readonly string[]>();

/**
 * The keys to try for a district, most specific first; the first is its key in the table.
 * Portal spellings are tried whole, then as their parts: "Ferme Bretonne (Hay Arraha)",
 * "Hassan - Centre Ville", "Quartier des Hôpitaux", "L'Océan"; a sub-area ("Oasis Sud") last
 * falls back on its district.
 */
export function districtKeys(name: string): readonly string[] {
  let keys = DISTRICT_MEMO.get(name);
  if (keys === undefined) {
    if (DISTRICT_MEMO.size >= KEY_MEMO_LIMIT) DISTRICT_MEMO.clear();
    keys = computeDistrictKeys(name);
    DISTRICT_MEMO.set(name, keys);
  }
  return keys;
}

function computeDistrictKeys(name: string): string[] {
  const keys: string[] = [];
  const add = (key: string): void => {
    for (const alias of DISTRICT_ALIASES[key] ?? [key]) if (alias !== '' && !keys.includes(alias)) keys.push(alias);
  };
  const forms = [placeKey(name)];
  const alternative = ALTERNATIVE.exec(name);
  if (alternative !== null) forms.push(placeKey(alternative[1] as string), placeKey(alternative[2] as string));
  if (PARTS.test(name)) for (const part of name.split(PARTS)) forms.push(placeKey(part));
  for (const form of forms) {
    add(form);
    add(form.replace(PREFIX, ''));
    add(form.replace(PREFIX, '').replace(ARTICLE, ''));
  }
  for (const form of forms) {
    add(form.replace(SUB_AREA_SUFFIX, ''));
    add(form.replace(SUB_AREA_PREFIX, ''));
  }
  return keys;
}

/**
 * Satellite towns whose listings often name the big city instead ("Ville Verte, Casablanca")
 * or the reverse ("Casablanca, Dar Bouazza"): a district is looked up in the whole metro area.
 */
export const METRO_OF: Record<string, string> = Object.fromEntries(
  metroAreaCommunes().map(([commune, area]) => [cityKey(commune), cityKey(area.core)]),
);

/** Names in Arabic script for cities and well-known districts (keyed by `placeKey` of the Latin name). */
const ARABIC_NAMES: Record<string, string> = {
  casablanca: 'الدار البيضاء',
  rabat: 'الرباط',
  marrakech: 'مراكش',
  tanger: 'طنجة',
  agadir: 'أكادير',
  fes: 'فاس',
  meknes: 'مكناس',
  oujda: 'وجدة',
  kenitra: 'القنيطرة',
  tetouan: 'تطوان',
  sale: 'سلا',
  temara: 'تمارة',
  mohammedia: 'المحمدية',
  'el jadida': 'الجديدة',
  essaouira: 'الصويرة',
  'beni mellal': 'بني ملال',
  martil: 'مرتيل',
  saidia: 'السعيدية',
  asilah: 'أصيلة',
  bouznika: 'بوزنيقة',
  berrechid: 'برشيد',
  bouskoura: 'بوسكورة',
  'dar bouazza': 'دار بوعزة',
  'had soualem': 'حد السوالم',
  'sidi rahal': 'سيدي رحال',
  'el mansouria': 'المنصورية',
  nador: 'الناظور',
  'al hoceima': 'الحسيمة',
  safi: 'آسفي',
  settat: 'سطات',
  khouribga: 'خريبكة',
  ifrane: 'إفران',
  laayoune: 'العيون',
  dakhla: 'الداخلة',
  taroudant: 'تارودانت',
  ouarzazate: 'ورزازات',
  larache: 'العرائش',
  fnideq: 'الفنيدق',
  mdiq: 'المضيق',
  nouaceur: 'النواصر',
  taza: 'تازة',
  errachidia: 'الرشيدية',
  khemisset: 'الخميسات',
  guelmim: 'كلميم',
  tiznit: 'تيزنيت',
  azemmour: 'أزمور',
  sefrou: 'صفرو',
  maarif: 'المعاريف',
  'maarif extension': 'امتداد المعاريف',
  gueliz: 'جليز',
  agdal: 'أكدال',
  'hay riad': 'حي الرياض',
  'ain diab': 'عين الذياب',
  anfa: 'أنفا',
  'hay hassani': 'الحي الحسني',
  'ain chock': 'عين الشق',
  'ain sebaa': 'عين السبع',
  'sidi maarouf': 'سيدي معروف',
  'sidi moumen': 'سيدي مومن',
  'sidi bernoussi': 'سيدي البرنوصي',
  'hay mohammadi': 'الحي المحمدي',
  oulfa: 'الألفة',
  palmeraie: 'النخيل',
  hivernage: 'الحي الشتوي',
  souissi: 'السويسي',
  hassan: 'حسان',
  medina: 'المدينة القديمة',
  'mers sultan': 'مرس السلطان',
  'derb ghallef': 'درب غلف',
  bourgogne: 'بورغون',
  racine: 'راسين',
  gauthier: 'غوتييه',
  californie: 'كاليفورنيا',
  belvedere: 'بلفيدير',
  malabata: 'ملاباطا',
  lissasfa: 'ليساسفة',
  oasis: 'الواحة',
  'hay salam': 'حي السلام',
  'hay izdihar': 'حي الازدهار',
  'm hamid': 'المحاميد',
  'route de casablanca': 'طريق الدار البيضاء',
};

/**
 * A place as written in `language`: the listing's own spelling, or in Arabic script when the
 * place is known (an Arabic text mixing in Latin names is normal in Morocco, so unknown names stay).
 */
export function placeLabel(name: string, language: Language): string {
  if (language !== 'ar') return name;
  const keys = [cityKey(name), ...districtKeys(name)];
  for (const key of keys) {
    const arabic = ARABIC_NAMES[key];
    if (arabic !== undefined) return arabic;
  }
  return name;
}

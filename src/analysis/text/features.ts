/**
 * Amenities as canonical feature keys (docs/analysis-text.md), from their names in French, English, Arabic
 * script and Darija (docs/analysis-text.md, portal amenity labels of docs/portals.md).
 * A negated amenity does not count: "sans ascenseur", "pas de parking", "non meublé",
 * "without elevator", "بدون مصعد", "ma kaynach", "Ascenseur : non".
 * Proximity features (beach, tram, schools) need a proximity word ("proche", "à 5 min", "قرب")
 * or a distance; "vue mer" is a sea view, not beach access.
 */
import { FEATURE_KEYS, type FeatureKey } from '../../core/types.js';
import { WORD_START } from './normalize.js';

const SYNONYMS: Record<FeatureKey, string> = {
  pool: String.raw`piscines?|swimming ?pools?|pools?|مسبح|المسبح|مسابح|msbe7|picine|pissine`,
  garden: String.raw`jardins?|gardens?|حديقه|الحديقه|حدائق|جرده|jerda|jarda|jnan|jnane|جنان`,
  terrace: String.raw`terrasses?|terraces?|roof ?tops?|toit[- ]terrasse|سطح|السطح|تراس|sta7|stah|terasse`,
  balcony: String.raw`balcons?|balcony|balconies|بالكون|بالكونه|شرفه|الشرفه|balkon`,
  elevator: String.raw`ascenseurs?|ascensseur|asenseur|ascenceur|assenseur|elevateur|elevators?|lifts?|مصعد|المصعد|بالمصعد|asanseur|sonseur`,
  parking: String.raw`parkings?|place de stationnement|stationnement|parking space|car park|موقف|باركينغ|باركينج|parkin|barking`,
  garage: String.raw`garages?|box|كراج|الكراج|جراج|الجراج|كاراج|الكاراج|قراج|مراب|المراب|garaj|garage|karaj|gharaj`,
  air_conditioning: String.raw`climatisation|climatise|climatisee|climatises|clim|clims|climatiseurs?|air conditionne|air-conditionne|air conditioning|a\/c|splits?|مكيف|مكيفات|تكييف|التكييف|climatiseur`,
  heating: String.raw`chauffage|heating|تدفئه|التدفئه|radiateurs?`,
  equipped_kitchen: String.raw`cuisines? (?:entierement |bien |tres bien |toute |moderne et |americaine |ouverte (?:et |& )?|integree et |amenagee et )?(?:equipee?s?|equipe|amenagee?s?|integree?s?)|(?:fully )?(?:equipped|fitted) kitchen|kitchen (?:fully )?(?:equipped|fitted)|مطبخ مجهز|المطبخ مجهز|مطبخ مجهزه|kouzina mjehza|kozina mjehza`,
  furnished: String.raw`meuble|meublee|meubles|meublees|furnished|mfarcha|mfrcha|mefrucha|mfar?ch|b ?frachha|balfrach|مفروش|مفروشه|مفرشه|موثث|موثثه|المفروشه`,
  concierge: String.raw`concierges?|conciergerie|gardiens?|gardiennage|doorman|caretaker|حارس|الحارس|عساس|l3assas|3assas`,
  security: String.raw`securise|securisee|securises|securisees|securite|surveillance|gardee|videosurveillance|cameras?|security|secured|secure|24h ?\/ ?24|24 ?\/ ?24|24 ?\/ ?7|محروسه|محروس|حراسه|الحراسه|امنه|الامن|m7rousa|mhrosa`,
  gated_community: String.raw`residence fermee|residence ferme|residences fermees|residence cloturee|complexe ferme|ensemble ferme|ensemble residentiel ferme|gated(?: community)?|closed residence|اقامه مغلقه|الاقامه مغلقه`,
  sea_view: String.raw`vue (?:sur |de |imprenable sur |panoramique sur |directe sur |magnifique sur |degagee sur |face )?(?:la |l')?(?:mer|ocean)|vue mer|sea views?|ocean views?|sea-view|overlooking the sea|تطل على البحر|مطله على البحر|يطل على البحر|فيو على البحر|tatl 3la lb7ar`,
  mountain_view: String.raw`vue (?:sur |imprenable sur |magnifique sur |panoramique sur |degagee sur )?(?:les |la |l')?(?:montagnes?|atlas)|mountain views?|تطل على الجبل|مطله على الجبل`,
  moroccan_lounge: String.raw`salons? marocains?|salons? marocaines?|salon traditionnel|salon beldi|salon maghrebin|moroccan (?:lounge|living room|salon)|صالون مغربي|الصالون المغربي|salon maghribi|salon beldi`,
  double_glazing: String.raw`double vitrage|double-vitrage|doubles vitrages|double glazing|double glazed|زجاج مزدوج`,
  armored_door: String.raw`portes? (?:d'entree |d entree )?blindee?s?|armou?red doors?|security doors?|باب مصفح|الباب مصفح`,
  storage: String.raw`chambres? (?:de )?rangement|debarras|cellier|caves?|espace de rangement|local de rangement|storage(?: room)?|مخزن|المخزن`,
  fireplace: String.raw`cheminees?|fireplaces?|مدفاه|المدفاه`,
  duplex: String.raw`duplexe?s?|triplex|دوبلكس`,
  title_deed: String.raw`titre foncier|titres? fonciers?|titree?s?|titre|tf|title deed|freehold|محفظ|محفظه|محفضه|المحفظه|رسم عقاري|m7afda|mhafda|m7afd`,
  new_build: String.raw`neuf|neuve|neufs|neuves|jamais habitee?|new build|brand new|newly built|nouvelle construction|programme neuf|جديد|جديده|jdid|jdida`,
  near_beach: String.raw`plages?|beach|الشاطئ|شاطئ|البحر|b7ar|la mer|pieds? dans l'eau|bord de mer|front de mer|beachfront|residence balneaire`,
  near_tram: String.raw`tram|tramway|trmway|tramwey|tramways|الترامواي|الطرام|الترام|طرام`,
  near_schools: String.raw`ecoles?|lycees?|colleges?|schools?|groupe scolaire|etablissements? scolaires|creches?|مدرسه|مدارس|المدرسه|المدارس`,
};

const FEATURE_WORDS = new RegExp(
  String.raw`${WORD_START}(?:${FEATURE_KEYS.map((key) => `(?<${key}>${SYNONYMS[key]})`).join('|')})(?![a-z\u00df-\u024f\u0600-\u06ff])`,
  'g',
);

const NEGATION_BEFORE =
  /(?:^|[^a-z\u00df-\u024f\u0600-\u06ff])(?:sans|pas de|pas d'|pas d|non|no|without|bdoun|bla|بدون|بلا|ma kaynach|makaynch|makaynach|ma fihach|mafihach|ni)\s+(?:[a-z\u00df-\u024f\u0600-\u06ff']+\s+){0,2}$/;
const NOT_A_NEGATION_BEFORE = /(?:pas|non|no|not)\s+(?:tres\s+|trop\s+|far\s+)?(?:loin|far)\b/;
const NEGATION_AFTER = /^\s*(?::\s*)?(?:non|no|لا)(?![a-z\u00df-\u024f\u0600-\u06ff])/;
const PROXIMITY_BEFORE =
  /(?:proche|pres|a cote|a proximite|proximite|a \d+\s?(?:min|minutes|mn|m|metres?|km)|a quelques|a deux pas|a 2 pas|quelques pas|acces direct|face|en face|donnant sur|near|close to|walking distance|steps from|minutes? (?:from|to)|قرب|بالقرب|بجانب|قريب|قريبه|امام|9rib|qrib|7da|pas loin|non loin|entoure|a seulement|proximity|nearby)[^.;!?\n]{0,50}$/;
const DISTANCE_AFTER =
  /^\s*(?:(?:a|:|-)\s*)?(?:\d+|quelques|deux)\s?(?:min|minutes|mn|m|metres?|km|pas)(?![a-z\u00df-\u024f\u0600-\u06ff])/;

const NEW_BUILD_NOT_AFTER_BEFORE = /(?:a|etat|comme|remis a|refait a|renove a|renovee a|meuble a)\s*$/;
const NEW_BUILD_NOT_BEFORE_NOUN = /^\s*(?:chambres?|pieces?|ans|mois|etages?|appartements?|villas?|lots?|unites?)/;
const TITLE_NOT_DEED_BEFORE =
  /(?:a|place|places|parking|garage|box|(?:place|places) (?:de parking|au parking|au garage|de garage|parking))\s*$/;
const TITLE_NOT_DEED_AFTER = /^\s*(?:de sejour|de transport|indicatif|gracieux|d'exemple|d exemple|de propriete du parking)/;
const FURNISHED_NOT_AFTER = /^\s*de \d/;
const GARDEN_NOT_BEFORE = /rez[- ]de[- ]$/;
const SEA_WORD_AS_VIEW_BEFORE = /vue\s+(?:sur\s+)?(?:la\s+|l')?$/;

function negated(text: string, start: number, end: number): boolean {
  const before = text.slice(Math.max(0, start - 32), start);
  if (NEGATION_BEFORE.test(before) && !NOT_A_NEGATION_BEFORE.test(before)) return true;
  return NEGATION_AFTER.test(text.slice(end, end + 8));
}

function nearBy(text: string, start: number, end: number): boolean {
  return PROXIMITY_BEFORE.test(text.slice(Math.max(0, start - 70), start)) || DISTANCE_AFTER.test(text.slice(end, end + 16));
}

function qualifies(text: string, key: FeatureKey, word: string, start: number, end: number): boolean {
  const before = text.slice(Math.max(0, start - 40), start);
  const after = text.slice(end, end + 30);
  switch (key) {
    case 'new_build':
      if (word.startsWith('neu')) return !NEW_BUILD_NOT_AFTER_BEFORE.test(before) && !NEW_BUILD_NOT_BEFORE_NOUN.test(after);
      return true;
    case 'title_deed':
      if (word === 'tf' || word.startsWith('titr')) return !TITLE_NOT_DEED_BEFORE.test(before) && !TITLE_NOT_DEED_AFTER.test(after);
      return true;
    case 'furnished':
      return !FURNISHED_NOT_AFTER.test(after);
    case 'garden':
      return !GARDEN_NOT_BEFORE.test(before);
    case 'near_beach':
      if (/pieds? dans|bord de mer|front de mer|beachfront|balneaire/.test(word)) return true;
      return !SEA_WORD_AS_VIEW_BEFORE.test(before) && nearBy(text, start, end);
    case 'near_schools':
      return nearBy(text, start, end);
    default:
      return true;
  }
}

/** Canonical feature keys the text states, in FEATURE_KEYS order. */
export function extractFeatures(text: string): FeatureKey[] {
  const found = new Set<FeatureKey>();
  for (const match of text.matchAll(FEATURE_WORDS)) {
    const groups = match.groups ?? {};
    const key = FEATURE_KEYS.find((candidate) => groups[candidate] !== undefined);
    if (key === undefined || found.has(key)) continue;
    const start = match.index;
    const end = start + match[0].length;
    if (negated(text, start, end) || !qualifies(text, key, match[0], start, end)) continue;
    found.add(key);
  }
  return FEATURE_KEYS.filter((key) => found.has(key));
}

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PropertyType } from '../../../../src/core/types.js';
import { extractFacts } from '../../../../src/analysis/text/extract.js';

/**
 * Invariance of the extraction (docs/analysis-text.md "Invariance"): listings generated from a
 * grammar of our vocabularies (French, English, Arabic, Darija; sale and rent; apartments, villas,
 * land, offices, shops), each fact's number written in every spelling the sellers use, the facts in
 * any order and joined by any punctuation, must give the same facts. fast-check prints the seed and
 * the shrunk counterexample on failure; each counterexample it found is a fixed test at the end.
 */

type Language = 'fr' | 'en' | 'ar' | 'darija';
type Deal = 'sale' | 'rent';

interface Listing {
  language: Language;
  deal: Deal;
  type: PropertyType;
  price: number;
  surface: number;
  bedrooms: number | null;
  city: { name: string; fr: string; ar: string };
}

const CITIES = [
  { name: 'Casablanca', fr: 'Casablanca', ar: 'الدار البيضاء' },
  { name: 'Rabat', fr: 'Rabat', ar: 'الرباط' },
  { name: 'Marrakech', fr: 'Marrakech', ar: 'مراكش' },
  { name: 'Tanger', fr: 'Tanger', ar: 'طنجة' },
  { name: 'Agadir', fr: 'Agadir', ar: 'أكادير' },
  { name: 'Fès', fr: 'Fès', ar: 'فاس' },
  { name: 'Kénitra', fr: 'Kénitra', ar: 'القنيطرة' },
  { name: 'Mohammedia', fr: 'Mohammedia', ar: 'المحمدية' },
] as const;

const TYPE_WORDS: Record<Language, Partial<Record<PropertyType, readonly string[]>>> = {
  fr: {
    apartment: ['Appartement', 'Appart', 'Bel appartement'],
    villa: ['Villa', 'Belle villa'],
    land: ['Terrain'],
    office: ['Bureau', 'Plateau de bureau'],
    commercial: ['Local commercial', 'Magasin'],
  },
  en: {
    apartment: ['Apartment', 'Flat'],
    villa: ['Villa'],
    land: ['Land plot', 'Plot of land'],
    office: ['Office'],
    commercial: ['Shop'],
  },
  ar: { apartment: ['شقة'], villa: ['فيلا'], land: ['بقعة أرضية', 'أرض'], office: ['مكتب'], commercial: ['محل تجاري'] },
  darija: { apartment: ['chqa', 'bartma'], villa: ['villa'], land: ['ard', 'bo9a'], office: ['biro'], commercial: ['7anout', 'ma7al'] },
};

const DEAL_WORDS: Record<Language, Record<Deal, readonly string[]>> = {
  fr: { sale: ['à vendre', 'en vente'], rent: ['à louer', 'en location'] },
  en: { sale: ['for sale'], rent: ['for rent', 'to let'] },
  ar: { sale: ['للبيع'], rent: ['للكراء', 'للإيجار'] },
  darija: { sale: ['lbi3', 'nbi3'], rent: ['lkra'] },
};

/** "1 850 000": groups of three digits joined by `separator`. */
function grouped(value: number, separator: string): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, separator);
}

/** Every spelling of a sale price the grammar knows (the value is a multiple of 10 000 DH). */
function salePriceSpellings(price: number, language: Language): string[] {
  const millions = price / 1_000_000;
  const centimes = price / 10_000;
  const decimal = (sep: string): string => String(millions).replace('.', sep);
  const common = [
    `${grouped(price, ' ')} DH`,
    `${grouped(price, '.')} Dhs`,
    `${price} MAD`,
    `${grouped(price, ',')} dirhams`,
    `${grouped(price, ' ')}DH`,
    `${decimal(',')} MDH`,
    `${decimal('.')} millions de DH`,
  ];
  if (language === 'ar') return [...common, `${grouped(price, ' ')} درهم`, `${centimes} مليون سنتيم`, `${centimes} مليون`];
  if (language === 'darija') return [...common, `${centimes} mlyon`, `${centimes} million centimes`];
  if (language === 'fr') return [...common, `${centimes} millions de centimes`, `Prix : ${grouped(price, ' ')}`];
  return [...common, `price ${grouped(price, ',')}`];
}

function rentSpellings(price: number, language: Language): string[] {
  const common = [`${grouped(price, ' ')} DH/mois`, `${grouped(price, '.')} Dhs par mois`, `Loyer : ${price} MAD`, `${price} Dh TTC/mois`];
  if (language === 'ar') return [...common, `${price} درهم في الشهر`, `${grouped(price, ' ')} درهم شهريا`];
  if (language === 'en') return [...common, `${grouped(price, ',')} MAD per month`, `rent ${price} dh`];
  if (language === 'darija') return [...common, `${price} dh f chhar`];
  return [...common, `loyer mensuel de ${grouped(price, ' ')} dirhams`, `d'un montant de ${price} Dhs`];
}

function surfaceSpellings(surface: number, language: Language): string[] {
  const common = [`${surface} m2`, `${surface} m²`, `${surface}m²`, `${surface} M2`, `${surface} mq`, `${surface} mètres carrés`];
  if (language === 'ar') return [...common, `${surface} متر مربع`, `مساحتها ${surface} م2`, `${surface} م²`];
  if (language === 'en') return [...common, `${surface} sqm`, `${surface} square meters`];
  if (language === 'darija') return [...common, `${surface} mitre`];
  return [...common, `superficie ${surface} m²`, `surface de ${surface} m2`];
}

const AR_BEDROOMS: Record<number, readonly string[]> = {
  1: ['غرفة واحدة', 'غرفة نوم واحدة'],
  2: ['غرفتان', 'غرفتين', '2 غرف'],
  3: ['3 غرف', 'ثلاث غرف', '3 بيوت'],
  4: ['4 غرف', 'أربع غرف'],
};

function bedroomSpellings(count: number, language: Language): string[] {
  if (language === 'ar') return [...(AR_BEDROOMS[count] ?? [`${count} غرف`])];
  if (language === 'en') return [`${count} bedroom${count > 1 ? 's' : ''}`];
  if (language === 'darija') return count === 2 ? ['jouj byout', '2 byout'] : [`${count} byout`];
  const words = ['', 'une', 'deux', 'trois', 'quatre'];
  return [`${count} chambre${count > 1 ? 's' : ''}`, `${words[count] ?? count} chambre${count > 1 ? 's' : ''}`, `${count} ch`];
}

function cityPhrase(city: Listing['city'], language: Language): string[] {
  if (language === 'ar') return [`في ${city.ar}`, `ب${city.ar}`, city.ar];
  if (language === 'en') return [`in ${city.fr}`, city.fr];
  if (language === 'darija') return [`f ${city.fr}`, city.fr];
  return [`à ${city.fr}`, city.fr, `ville de ${city.fr}`];
}

const SEPARATORS = [', ', ' - ', '. ', '\n', ' ', ' | ', ' ; ', ' • ', ' / ', ' ,', ' :: ', ' — ', ' : '];

const ROOMED: ReadonlySet<PropertyType> = new Set(['apartment', 'villa']);

const listingArb: fc.Arbitrary<Listing> = fc
  .record({
    language: fc.constantFrom<Language>('fr', 'en', 'ar', 'darija'),
    deal: fc.constantFrom<Deal>('sale', 'rent'),
    type: fc.constantFrom<PropertyType>('apartment', 'villa', 'land', 'office', 'commercial'),
    saleTens: fc.integer({ min: 30, max: 990 }),
    rent: fc.integer({ min: 20, max: 300 }).map((hundreds) => hundreds * 100),
    surface: fc.integer({ min: 25, max: 900 }),
    bedrooms: fc.integer({ min: 1, max: 4 }),
    city: fc.constantFrom(...CITIES),
  })
  .map(({ language, deal, type, saleTens, rent, surface, bedrooms, city }) => ({
    language,
    // Land is sold: the grammar does not let plots.
    deal: type === 'land' ? 'sale' : deal,
    type,
    price: type === 'land' || deal === 'sale' ? saleTens * 10_000 : rent,
    surface: type === 'land' ? surface * 10 : surface,
    bedrooms: ROOMED.has(type) ? bedrooms : null,
    city,
  }));

interface Written {
  listing: Listing;
  text: string;
}

/** One written listing: each fact in one of its spellings, the facts in any order, any punctuation. */
function writtenArb(listing: Listing): fc.Arbitrary<string> {
  const { language, deal, type } = listing;
  const typeWords = TYPE_WORDS[language][type] ?? [];
  const prices = deal === 'sale' ? salePriceSpellings(listing.price, language) : rentSpellings(listing.price, language);
  const facts: fc.Arbitrary<string>[] = [
    fc.constantFrom(...prices),
    fc.constantFrom(...surfaceSpellings(listing.surface, language)),
    fc.constantFrom(...cityPhrase(listing.city, language)),
  ];
  if (listing.bedrooms !== null) facts.push(fc.constantFrom(...bedroomSpellings(listing.bedrooms, language)));
  return fc
    .tuple(
      fc.constantFrom(...typeWords),
      fc.constantFrom(...DEAL_WORDS[language][deal]),
      fc.tuple(...facts),
      fc.array(fc.nat(), { minLength: facts.length, maxLength: facts.length }),
      fc.array(fc.constantFrom(...SEPARATORS), { minLength: facts.length, maxLength: facts.length }),
    )
    .map(([typeWord, dealWord, phrases, keys, separators]) => {
      // The title keeps the type and the deal first, as listings do; the other facts come in any order.
      const order = phrases.map((phrase, index) => ({ phrase, key: keys[index] ?? 0 })).sort((a, b) => a.key - b.key);
      let text = `${typeWord} ${dealWord}`;
      for (const [index, { phrase }] of order.entries()) {
        // "Prix : 1 560 000 574 m2" is one number as sellers group thousands with spaces ("Prix : 3
        // 060 000\n4210 m2" a phone number, scrubbed), and "une chambre 25 m2" is the room's size below
        // 40 m²: a bare amount is followed by a number after no mere space or line break, "une chambre"
        // after no mere space (docs/analysis-text.md "Invariance").
        const separator = separators[index] ?? ' ';
        const glued =
          /^\d/.test(phrase) && ((separator === ' ' && /\d$|\bune chambre$/.test(text)) || (separator === '\n' && /\d$/.test(text)));
        text += `${glued ? ', ' : separator}${phrase}`;
      }
      return text;
    });
}

const writtenListing: fc.Arbitrary<Written> = listingArb.chain((listing) => writtenArb(listing).map((text) => ({ listing, text })));

function expectFacts({ listing, text }: Written): void {
  const facts = extractFacts(text);
  const isLand = listing.type === 'land';
  expect({
    type: facts.property_type,
    deal: facts.transaction,
    price: facts.price_mad,
    surface: isLand ? facts.surface_total_m2 : facts.surface_m2,
    bedrooms: facts.bedrooms,
    city: facts.city,
  }).toEqual({
    type: listing.type,
    deal: listing.deal,
    price: listing.price,
    surface: listing.surface,
    bedrooms: listing.bedrooms,
    city: listing.city.name,
  });
}

/** Runs per property: enough to meet every spelling of every fact, small enough for the edit loop. */
const RUNS = 300;

/**
 * Locally every run draws a new seed, so new phrasings keep being tried while the code changes;
 * under CI (`CI` set) the seed is fixed, so a submission never fails on a counterexample nobody has
 * seen yet. `FC_SEED=<n>` replays a run (the seed fast-check printed). docs/analysis-text.md "Invariance".
 */
const SEED = process.env.FC_SEED !== undefined ? Number(process.env.FC_SEED) : process.env.CI !== undefined ? 20_261_125 : undefined;
if (SEED !== undefined) fc.configureGlobal({ seed: SEED });

describe('extraction is invariant to spelling, order and punctuation (property-based)', () => {
  it('reads the same facts from every writing of a listing', () => {
    fc.assert(
      fc.property(writtenListing, (written) => expectFacts(written)),
      { numRuns: RUNS },
    );
  });

  it('reads the same facts whatever the punctuation between two writings of one listing', () => {
    fc.assert(
      fc.property(
        listingArb.chain((listing) => fc.tuple(fc.constant(listing), writtenArb(listing), writtenArb(listing))),
        ([listing, first, second]) => {
          const a = extractFacts(first);
          const b = extractFacts(second);
          const pick = (f: ReturnType<typeof extractFacts>): unknown[] => [
            f.property_type,
            f.transaction,
            f.price_mad,
            listing.type === 'land' ? f.surface_total_m2 : f.surface_m2,
            f.bedrooms,
            f.city,
          ];
          expect(pick(b)).toEqual(pick(a));
        },
      ),
      { numRuns: RUNS / 3 },
    );
  });

  it('never reads a Darija count of centimes as millions of dirhams', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 10, max: 999 }),
        fc.constantFrom('مليون', 'مليون سنتيم', 'million', 'millions de centimes', 'mlyon'),
        (count, unit) => {
          expect(extractFacts(`شقة للبيع ب ${count} ${unit}`).price_mad).toBe(count * 10_000);
        },
      ),
      { numRuns: 100 },
    );
  });
});

/** Counterexamples the properties found, kept as fixed tests (docs/analysis-text.md "Invariance"). */
describe('counterexamples found by the property-based suite', () => {
  const cases: Array<[string, Partial<Record<'surface_m2' | 'surface_total_m2' | 'price_mad' | 'bedrooms' | 'city', number | string>>]> = [
    ['Appartement 3 chambres 99 m2 à Hay Hassani Casablanca', { surface_m2: 99, bedrooms: 3 }],
    ['chqa lkra, 2 000 DH/mois, f Casablanca, 1 byout / 25 m2', { bedrooms: 1, surface_m2: 25, price_mad: 2000 }],
    ['Villa for rent, 18 000 DH/mois, in Mohammedia, 3 bedrooms / 249 m2', { bedrooms: 3, surface_m2: 249 }],
    ['villa lkra, 29 300 DH/mois, 3 byout / 32 mitre, f Agadir', { bedrooms: 3, surface_m2: 32 }],
    ['Apartment for rent, 1 bedroom / 21 200 DH/mois, 34 m2, in Kénitra', { bedrooms: 1, price_mad: 21_200 }],
    ['شقة للكراء, 2 غرف / 29 500 DH/mois, 866 m2, في أكادير', { bedrooms: 2, price_mad: 29_500 }],
    ['شقة للبيع, 300 000 DH, 25 m2, في الدار البيضاء, غرفة واحدة', { bedrooms: 1 }],
    ['ard lbi3, 300 000 DH, 250 m2, f Casablanca', { surface_total_m2: 250, city: 'Casablanca' }],
    ['بقعة أرضية للبيع, في أكادير, 1720 م² 662 مليون', { surface_total_m2: 1720, price_mad: 6_620_000 }],
    ['Appartement à vendre, 204 m2, 4 chambres / 36 millions de centimes, à Kénitra', { bedrooms: 4, price_mad: 360_000 }],
    ['Appartement à louer, 2 chambres - à Casablanca 900 m2, 25 100 DH/mois', { bedrooms: 2, surface_m2: 900 }],
    ['Appartement à vendre, 4 840 000 DH, à Tanger, 4 chambres :: 627 m2', { bedrooms: 4, surface_m2: 627 }],
    ['Land plot for sale :: Mohammedia • 7 930 000 DH 8850 square meters', { price_mad: 7_930_000, surface_total_m2: 8850 }],
    ['Villa à louer, à Agadir, une chambre - 515 m2, 29 200 DH/mois', { bedrooms: 1, surface_m2: 515, price_mad: 29_200 }],
    ['Villa for rent, 1 bedroom / 83 square meters, in Tanger, 2 900 DH/mois', { bedrooms: 1, surface_m2: 83, price_mad: 2900 }],
    ['Villa à louer, une chambre :: 179 m2, à Casablanca, 2 500 DH/mois', { bedrooms: 1, surface_m2: 179, price_mad: 2500 }],
    ['chqa lbi3, 538 m2, f Marrakech, 2 byout / 71 mlyon', { bedrooms: 2, price_mad: 710_000 }],
    ['chqa lbi3, 3 byout / 34 mlyon, 167 m2, f Fès', { bedrooms: 3, price_mad: 340_000, surface_m2: 167 }],
    ['Appartement à vendre, une chambre à Fès 895 m2, 5 440 000 DH', { bedrooms: 1, surface_m2: 895, city: 'Fès' }],
  ];
  // Outside the grammar on purpose: "une chambre 25 m2" (a bare space) may state the room's size, and
  // below 40 m² it is read so; the home's surface is then not stated (docs/analysis-text.md "Invariance").
  it.each([
    ['Villa à louer, 2 800 DH/mois, une chambre 25 m2, à Casablanca', null],
    ['Appartement à vendre, 8 490 000 DH, à Kénitra, une chambre 34 m2', null],
    ['Villa à louer, 2 800 DH/mois, une chambre 179 m2, à Casablanca', 179],
  ])('%s: surface %s, one bedroom', (text, surface) => {
    const facts = extractFacts(text);
    expect([facts.surface_m2, facts.bedrooms]).toEqual([surface, 1]);
  });
  // Outside the grammar on purpose: a bare amount and the number on the next line can make a
  // phone number ("060 000\n4210" = 06 00 00 42 10), and phone numbers are scrubbed before anything
  // reads numbers: no fact is read from those digits, and none of them is quoted.
  it('scrubs a phone number made by a bare amount and the number on the next line', () => {
    const facts = extractFacts('Terrain à vendre, à Rabat, Prix : 3 060 000\n4210 m2');
    expect([facts.price_mad, facts.surface_total_m2]).toEqual([null, null]);
    expect(JSON.stringify(facts.provenance)).not.toMatch(/4210|060 000/);
  });
  it.each(cases)('%s', (text, expected) => {
    const facts = extractFacts(text);
    for (const [field, value] of Object.entries(expected)) expect(facts[field as keyof typeof expected]).toBe(value);
    if (/ard /.test(text)) expect(facts.property_type).toBe('land');
  });
});

/**
 * The class of "une chambre :: 179 m2": a list separator between a room word and a surface lists the
 * next fact, so the number is the home's, in every language and with every separator; a label with a
 * single colon still measures the room, and its size is no count of rooms (docs/analysis-text.md "Surfaces").
 */
describe('a room word, a list separator, then the surface', () => {
  const rooms = [
    'une chambre',
    'un salon',
    'une suite',
    '1 chambre',
    'deux chambres',
    '3 chambres',
    '1 bedroom',
    '2 bedrooms',
    'غرفة واحدة',
    '3 غرف',
    '2 byout',
    'jouj byout',
  ];
  const separators = [' :: ', '::', ' - ', ' — ', '—', ' – ', ' -- ', ' | ', ' / ', ', ', ' ; ', ' • '];
  const cases = rooms.flatMap((room) => separators.map((separator): [string, string] => [room, separator]));
  it.each(cases)('"%s" then "%s" then 32 m2 gives the home 32 m²', (room, separator) => {
    expect(extractFacts(`Appartement à louer, ${room}${separator}32 m2, 4 000 DH/mois`).surface_m2).toBe(32);
  });

  it.each(['à Fès', 'ville de Fès', 'Fès', 'à Maarif', 'quartier Gauthier'])(
    '"une chambre %s 32 m2": the place ends the room\'s phrase',
    (place) => {
      expect(extractFacts(`Appartement à vendre, une chambre ${place} 32 m2, 900 000 DH`).surface_m2).toBe(32);
    },
  );

  it("reads a counted room and a colon as a list, a label and a colon as the room's size", () => {
    expect(extractFacts('Villa à louer, une chambre : 179 m2').surface_m2).toBe(179);
    expect(extractFacts('Appartement à louer, 3 chambres : 90 m2').surface_m2).toBe(90);
    const labelled = extractFacts('Appartement 90 m2, Chambre : 14 m², Terrasse : 20 m²');
    expect([labelled.surface_m2, labelled.bedrooms]).toEqual([90, null]);
    expect(extractFacts('Appartement à louer, une terrasse : 20 m2').surface_m2).toBeNull();
    expect(extractFacts('Nombre de chambres : 3, superficie : 120 m²').bedrooms).toBe(3);
    expect(extractFacts('Bedroom: 14 sqm, living room 30 sqm').bedrooms).toBeNull();
    expect(extractFacts('Appartement à vendre, une chambre à coucher 14 m2').surface_m2).toBeNull();
  });
});

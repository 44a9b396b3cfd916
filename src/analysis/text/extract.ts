import type { FieldProvenance, Language, ListingFacts, Offer, PropertyType, ProvenanceField, ProvenanceSource } from '../../core/types.js';
import { listIn, MAD, sayer, spacedNumber, type Say } from '../say.js';
import { emptyFacts } from '../facts.js';
import { scrubPrivate } from '../privacy.js';
import { extractFeatures } from './features.js';
import { Excerpts } from './excerpt.js';
import { findFloor } from './floor.js';
import { extractLocation } from './location.js';
import { normalizeText } from './normalize.js';
import { findAllNumbers } from './numbers.js';
import { chargesAfter, choosePrice, findPriceMentions, statesNoPrice } from './price.js';
import { extractRoomCounts } from './rooms.js';
import { chooseSurfaces, findSurfaceMentions } from './surface.js';
import { extractTitle, titleEndIn } from './title.js';
import { findDualOffer } from './offers.js';
import { readTransaction } from './transaction.js';
import { findPropertyType } from './type.js';
import { contradictionWarnings, keyMoneyWarnings } from './warnings.js';

/**
 * Default MAD per EUR for prices stated in euros. docs/analysis-text.md ("1 € ≈ 10–11 DH", [EURO]
 * Dec 2025); 10.8 sits inside that band. Callers pass their own rate through `eurToMad`.
 */
export const DEFAULT_EUR_TO_MAD = 10.8;

export interface ExtractOptions {
  /**
   * MAD per EUR used to convert prices stated in euros (default `DEFAULT_EUR_TO_MAD`); the entry
   * points pass IMMOREEL_EUR_TO_MAD, so a user can apply the day's rate (docs/configuration.md).
   */
  eurToMad?: number;
  /** What the text is, for provenance: the description passed in (default) or a portal page's own text. */
  source?: Extract<ProvenanceSource, 'page_text' | 'description'>;
  /** The language of the warnings' messages (docs/analysis.md "Warnings"); English by default. */
  language?: Language;
}

/**
 * Confidence of a value read from a text (docs/analysis.md "Provenance"): a labelled or title
 * statement, an ordinary statement in the body, and a reading inferred from other words
 * (a bathroom named without a count, a deal told by its price alone).
 */
const CONFIDENCE = { title: 0.9, body: 0.8, inferred: 0.6 } as const;

/** The text's words leave open which figure is the surface (docs/analysis-text.md "Surfaces: total and parts"). */
export const SURFACE_UNCERTAIN = 'SURFACE_UNCERTAIN';

/** A district name several cities have, with no city in the text (docs/analysis-text.md "City and district"). */
export const PLACE_AMBIGUOUS = 'PLACE_AMBIGUOUS';

/** The DUAL_OFFER warning: the text offers the property for sale and for rent. */
export const DUAL_OFFER = 'DUAL_OFFER';

/** A price this high is a sale price: no rent reaches it (see the use below). */
const SALE_ONLY_PRICE_MAD = 200_000;

/** Types whose "floor" words describe levels of the house, not the home's floor in a building. */
const WHOLE_BUILDING_TYPES: ReadonlySet<PropertyType> = new Set(['villa', 'house', 'riad', 'land', 'farm', 'building']);

/**
 * Reads the facts a listing text states (FR/EN/AR/Darija, mixed). Pure and deterministic.
 * Every fact the text does not state stays null: nothing is guessed. See docs/analysis-text.md.
 */
export function extractFacts(text: string, options: ExtractOptions = {}): ListingFacts {
  const facts = emptyFacts();
  facts.description = text;
  const say = sayer(options.language ?? 'en');
  // Seller phone numbers and e-mails never reach the output (the title is shown) nor become numbers.
  const title = extractTitle(text);
  facts.title = title === null ? null : scrubPrivate(title);
  const normalized = scrubPrivate(normalizeText(text));
  if (normalized === '') return facts;
  const titleEnd = titleEndIn(normalized);
  const numbers = findAllNumbers(normalized);
  const excerpts = new Excerpts(text, normalized);
  const source = options.source ?? 'description';
  const note = (field: ProvenanceField, span: { start: number; end: number } | null | undefined, confidence?: number): void => {
    if (span === null || span === undefined) return;
    const value: FieldProvenance = {
      source,
      excerpt: excerpts.around(span.start, span.end),
      confidence: confidence ?? (span.start < titleEnd ? CONFIDENCE.title : CONFIDENCE.body),
    };
    facts.provenance[field] = value;
  };

  const type = findPropertyType(normalized, titleEnd);
  facts.property_type = type?.type ?? null;
  note('property_type', type);
  const deal = readTransaction(normalized, titleEnd);
  facts.transaction = deal.transaction;
  if (deal.transaction !== null) {
    // A deal that wins by a single description word is less sure than one the title states.
    const words = deal.transaction === 'rent' ? deal.firstRent : deal.firstSale;
    note('transaction', words, Math.abs(deal.rent - deal.sale) <= 1 && (words?.start ?? 0) >= titleEnd ? CONFIDENCE.inferred : undefined);
  }

  const eurToMad = options.eurToMad ?? DEFAULT_EUR_TO_MAD;
  const prices = findPriceMentions(normalized, numbers, titleEnd, { eurToMad });
  const price = statesNoPrice(normalized) && !prices.some((p) => p.labelled) ? null : choosePrice(prices, facts.transaction, normalized);
  if (price !== null) {
    const charges = facts.transaction === 'rent' || price.perMonth ? chargesAfter(normalized, price, numbers) : 0;
    facts.price_mad = Math.round(price.mad + charges);
    facts.price_original = price.currency === 'MAD' ? null : { amount: price.amount, currency: price.currency };
    // "12 000 DH/mois" says rent even when no rent word does; no home rents for 200 000 DH a
    // month (docs/analysis-text.md: the dearest villas let for 25–65 k DH), so such a price is a sale.
    note('price_mad', price, price.labelled || price.inTitle ? CONFIDENCE.title : CONFIDENCE.body);
    if (facts.transaction === null && (price.perMonth || price.mad >= SALE_ONLY_PRICE_MAD)) {
      facts.transaction = price.perMonth ? 'rent' : 'sale';
      note('transaction', price, CONFIDENCE.inferred);
    }
  }
  const dual = findDualOffer(normalized, titleEnd, prices, facts.transaction);
  if (dual !== null) {
    const [main, other] = dual.offers;
    facts.offers = [...dual.offers];
    facts.transaction = main.transaction;
    note('transaction', dual, CONFIDENCE.title);
    facts.price_mad = main.price_mad;
    facts.price_original = null;
    const mainPrice = dual.offers[0].price_mad;
    if (mainPrice === null) delete facts.provenance.price_mad;
    else note('price_mad', prices.find((p) => Math.round(p.mad) === mainPrice) ?? dual);
    facts.warnings.push({ code: DUAL_OFFER, field: 'transaction', message: dualOfferMessage(main, other, say) });
  } else if (facts.transaction !== null) {
    facts.offers = [{ transaction: facts.transaction, price_mad: facts.price_mad, period: facts.transaction === 'rent' ? 'month' : null }];
  }

  const isLand = facts.property_type === 'land' || facts.property_type === 'farm';
  const location = extractLocation(normalized, titleEnd);
  const surfaceMentions = findSurfaceMentions(normalized, numbers, titleEnd, location.places);
  const premises = facts.property_type === 'commercial' || facts.property_type === 'office';
  const surfaces = chooseSurfaces(surfaceMentions, isLand, normalized, premises);
  if (surfaces.doubt !== null && surfaces.surface_m2 !== null)
    facts.warnings.push({ code: SURFACE_UNCERTAIN, field: 'surface', message: say(surfaces.doubt) });
  facts.surface_m2 = surfaces.surface_m2;
  facts.surface_total_m2 = surfaces.surface_total_m2;
  note('surface_m2', surfaces.surface_m2 === null ? null : surfaceMentions.find((m) => m.value === surfaces.surface_m2));
  note('surface_total_m2', surfaces.surface_total_m2 === null ? null : surfaceMentions.find((m) => m.value === surfaces.surface_total_m2));

  const counts = extractRoomCounts(normalized, titleEnd);
  facts.rooms = counts.rooms;
  facts.bedrooms = counts.bedrooms;
  facts.bathrooms = counts.bathrooms;
  facts.toilets = counts.toilets;
  note('rooms', counts.spans.rooms);
  note('bedrooms', counts.spans.bedrooms);
  note('bathrooms', counts.spans.bathrooms, counts.bathroomsInferred ? CONFIDENCE.inferred : undefined);
  note('toilets', counts.spans.toilets);
  const floor = facts.property_type !== null && WHOLE_BUILDING_TYPES.has(facts.property_type) ? null : findFloor(normalized);
  facts.floor = floor?.floor ?? null;
  note('floor', floor);

  facts.city = location.city;
  facts.district = location.district;
  note('city', location.citySpan);
  note('district', location.districtSpan, CONFIDENCE.inferred + 0.1);
  if (location.ambiguous) {
    const { district, cities } = location.ambiguous;
    const among = listIn(cities, say);
    facts.warnings.push({
      code: PLACE_AMBIGUOUS,
      field: 'city',
      message: say({
        en: `"${district}" is a district of several cities (${among}) and the text names no city: the city is left unset. Add the city to the text.`,
        fr: `« ${district} » est un quartier de plusieurs villes (${among}) et le texte ne nomme aucune ville : la ville reste vide. Ajoutez la ville au texte.`,
        ar: `«${district}» حي في عدة مدن (${among}) والنص لا يذكر أي مدينة: تُركت المدينة فارغة. أضف المدينة إلى النص.`,
      }),
    });
  }
  facts.feature_keys = extractFeatures(normalized);

  facts.warnings = [
    ...facts.warnings,
    ...keyMoneyWarnings(normalized, say),
    ...contradictionWarnings({ text: normalized, prices, surfaces: surfaceMentions, bedroomValues: counts.bedroomValues }, say),
  ];
  return facts;
}

/** DUAL_OFFER: both deals with their prices, and which one the analysis uses. */
function dualOfferMessage(main: Offer, other: Offer, say: Say): string {
  const describe = (offer: Offer): string => {
    const rent = offer.transaction === 'rent';
    const deal = say(rent ? { en: 'for rent', fr: 'à louer', ar: 'للكراء' } : { en: 'for sale', fr: 'à vendre', ar: 'للبيع' });
    if (offer.price_mad === null) return `${deal} ${say({ en: '(no price stated)', fr: '(sans prix)', ar: '(بدون ثمن)' })}`;
    const amount = `${spacedNumber(offer.price_mad)} ${say(MAD)}`;
    const month = rent ? say({ en: ' a month', fr: ' par mois', ar: ' في الشهر' }) : '';
    return say({ en: `${deal} at ${amount}${month}`, fr: `${deal} à ${amount}${month}`, ar: `${deal} بـ${amount}${month}` });
  };
  return say({
    en: `The listing is offered both ${describe(main)} and ${describe(other)}; the analysis uses the first, named first in the listing.`,
    fr: `Le bien est proposé à la fois ${describe(main)} et ${describe(other)} ; l’analyse retient la première offre, nommée en premier dans l’annonce.`,
    ar: `العقار معروض ${describe(main)} و${describe(other)} في آن واحد؛ يعتمد التحليل العرض الأول، المذكور أولا في الإعلان.`,
  });
}

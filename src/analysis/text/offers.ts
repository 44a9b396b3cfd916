/**
 * Dual offers (docs/analysis-text.md "Dual offers"): a listing that offers the same property for
 * sale or for rent — "À vendre ou à louer : bureau 80 m², vente 1 200 000 DH, location 9 000
 * DH/mois", "Villa à louer pour usage professionnel, ou à vendre à 9 500 000 Dhs". Such a text
 * states two deals, each with its own price; the main one is the deal the title and the first
 * sentence name first.
 *
 * A dual offer is read only from the words that make one: sale and rent words joined by "ou"
 * ("or", أو, Darija "wla") at the start of the listing, or a price labelled "vente" beside a
 * monthly price labelled "location"/"loyer". Agency boilerplate further down ("nous vendons et
 * louons…") and a sale that quotes its current rent ("loué 6 000 DH/mois") are not dual offers.
 */
import type { Offer, Transaction } from '../../core/types.js';
import type { PriceMention } from './price.js';

const SALE = String.raw`(?:a vendre|vendre|vente|en vente|for sale|sale|للبيع|البيع|lbi3|lilbi3)`;
const RENT = String.raw`(?:a louer|louer|location|en location|for rent|rent|للكراء|الكراء|للايجار|الايجار|lkra|kra)`;
const OR = String.raw`(?:ou bien|ou|or|او|wla|\/)`;
const AFTER_OR = String.raw`(?:a |en |for |pour )?`;
const EDGE_BEFORE = String.raw`(?<![a-z\u00df-\u024f\u0600-\u06ff])`;
const EDGE_AFTER = String.raw`(?![a-z\u00df-\u024f\u0600-\u06ff])`;

/** "à vendre ou à louer", "location / vente", "lbi3 wla lkra". */
const JOINED = new RegExp(
  String.raw`${EDGE_BEFORE}(?:(?<saleFirst>${SALE})\s*${OR}\s*${AFTER_OR}${RENT}|(?<rentFirst>${RENT})\s*${OR}\s*${AFTER_OR}${SALE})${EDGE_AFTER}`,
);
/** "à louer pour usage professionnel, ou à vendre": the second deal added later in the sentence. */
const ADDED_LATER = new RegExp(
  String.raw`${EDGE_BEFORE}(?:(?<saleFirst>a vendre|en vente|for sale|للبيع)[^.\n]{0,80}?[ ,]${OR}\s+(?:${AFTER_OR})?(?:louer|location|rent|للكراء)` +
    String.raw`|(?<rentFirst>a louer|en location|for rent|للكراء)[^.\n]{0,80}?[ ,]${OR}\s+(?:${AFTER_OR})?(?:vendre|vente|sale|للبيع))${EDGE_AFTER}`,
);
const SALE_LABEL_BEFORE = new RegExp(
  String.raw`${EDGE_BEFORE}(?:vente|prix de vente|a vendre|vendre|for sale|sale price|للبيع|البيع)(?:\s*(?:a|:|au prix de|pour|at))?\s*$`,
);
const RENT_LABEL_BEFORE = new RegExp(
  String.raw`${EDGE_BEFORE}(?:location|loyer|a louer|louer|for rent|rent|للكراء|الكراء)(?:\s*(?:a|:|pour|at))?\s*$`,
);

/** Where the listing's opening stops: the title and the first sentence after it (at most 300 characters). */
function openingEnd(text: string, titleEnd: number): number {
  const rest = text.slice(titleEnd + 1, titleEnd + 301);
  const stop = /[.!?\n]/.exec(rest);
  return titleEnd + 1 + (stop === null ? rest.length : stop.index);
}

function labelledPrice(text: string, prices: readonly PriceMention[], label: RegExp, wantMonthly: boolean): PriceMention | null {
  return (
    prices.find((p) => label.test(text.slice(Math.max(0, p.start - 24), p.start)) && (wantMonthly ? p.mad < 200_000 : !p.perMonth)) ?? null
  );
}

export interface DualOffer {
  offers: [Offer, Offer];
  /** Where the words that make it dual are, for provenance. */
  start: number;
  end: number;
}

/** The two deals of a dual-offer text, the main one first; null for a text that offers one deal. */
export function findDualOffer(
  text: string,
  titleEnd: number,
  prices: readonly PriceMention[],
  fallback: Transaction | null,
): DualOffer | null {
  // Only the opening can make an offer dual by its words (a later "ou à louer" is boilerplate).
  const opening = openingEnd(text, titleEnd);
  const openingText = text.slice(0, opening + 100);
  const joined = JOINED.exec(openingText) ?? ADDED_LATER.exec(openingText);
  const byWords = joined !== null && joined.index < opening;
  if (!byWords && prices.length < 2) return null;
  const saleLabelled = labelledPrice(text, prices, SALE_LABEL_BEFORE, false);
  const rentLabelled = labelledPrice(text, prices, RENT_LABEL_BEFORE, true);
  if (!byWords && (saleLabelled === null || rentLabelled === null)) return null;

  const monthly = prices.find((p) => p.perMonth && p.mad < 200_000) ?? null;
  const rentPrice = rentLabelled ?? monthly;
  const salePrice =
    saleLabelled ?? prices.filter((p) => !p.perMonth && p !== rentPrice && p.mad >= 200_000).sort((a, b) => b.score - a.score)[0] ?? null;
  let main: Transaction;
  if (byWords && joined !== null) main = joined.groups?.saleFirst !== undefined ? 'sale' : 'rent';
  else main = fallback ?? ((saleLabelled as PriceMention).start < (rentLabelled as PriceMention).start ? 'sale' : 'rent');
  const sale: Offer = { transaction: 'sale', price_mad: salePrice === null ? null : Math.round(salePrice.mad), period: null };
  const rent: Offer = { transaction: 'rent', price_mad: rentPrice === null ? null : Math.round(rentPrice.mad), period: 'month' };
  const start =
    joined !== null && byWords ? joined.index : Math.min((saleLabelled as PriceMention).start, (rentLabelled as PriceMention).start);
  const end =
    joined !== null && byWords
      ? joined.index + joined[0].length
      : Math.max((saleLabelled as PriceMention).end, (rentLabelled as PriceMention).end);
  return { offers: main === 'sale' ? [sale, rent] : [rent, sale], start, end };
}

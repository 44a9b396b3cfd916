/**
 * Sale or rent (docs/analysis-text.md). Words for each side are weighed, title words three
 * times as much as description words; a monthly price ("/mois", "par mois", "loyer") counts for
 * rent. Uses that do not describe this listing's deal are skipped: "facile à louer" and
 * "investissement locatif" in a sale, "bureaux de vente" of a developer, "prix de vente" beside
 * "location". A tie (or no word at all) is null: the transaction is never guessed.
 */
import type { Transaction } from '../../core/types.js';

const SIGNALS = new RegExp(
  String.raw`(?<![a-z\u00df-\u024f\u0600-\u06ff])(?:` +
    String.raw`(?<rent>a louer|alouer|a loue|en location|a la location|pour location|location|locations|louer|loue|louez|louons|loyer|loyers|for rent|to rent|to let|rental|for lease|per month|monthly|للكراء|كراء|الكراء|للايجار|ايجار|الايجار|للإيجار|lkra|l kra|kra|lil kra|bel kra|nkri|nekri)` +
    String.raw`|(?<rentPeriod>\/\s?mois|par mois|dh\/mois|mensuel|mensuelle)` +
    String.raw`|(?<sale>a vendre|avendre|a vende|en vente|vente|vend|vends|vendre|vendu|vendons|achat|acheter|achetez|acquerir|acquisition|a ceder|cession|ceder|for sale|sale|buy|للبيع|بيع|البيع|نبيع|lbi3|lilbi3|bi3|lbay3|nbi3|nbi3o|kanbi3|kanbi3o|nbi3ha)` +
    String.raw`)(?![a-z\u00df-\u024f\u0600-\u06ff])`,
  'g',
);

/** Rent words that describe an investment or a possibility, in a sale listing ("facile à louer"). */
const NOT_THIS_RENT_BEFORE =
  /(?:facile|facilement|possibilite de|possible de|potentiel|potentiel de|rentable|rentabilite|investissement|ideale? pour(?: la)?|parfait pour(?: la)?|destine a(?: la)?|pret a(?: la)?|forte demande(?: en| de)?|demande)\s*(?:(?:a|de|en|d')\s*)?$/;
/** "déjà loué", "actuellement loué": a sale of a let home. */
const LET_ALREADY_BEFORE = /(?:deja|actuellement|est|sont|jamais|bien|toujours)\s*$/;
const NOT_THIS_RENT_AFTER = /^\s*(?:possible|actuel|actuellement|en cours)/;
/** Sale words that are not this listing's deal ("bureaux de vente", "point de vente", "prix de vente" stays). */
const NOT_THIS_SALE_BEFORE = /(?:bureaux? de|bureau des|point de|points de|service|apres|contrat de|promesse de|salle de)\s*$/;
const NOT_THIS_SALE_AFTER = /^\s*(?:ouverts?|a cote|et location|ou location|ou a louer)/;
/** English "location" = place: "great location", "prime location". */
const ENGLISH_LOCATION_BEFORE =
  /(?:great|excellent|prime|good|central|perfect|ideal|strategic|quiet|the|this|its|amazing|top|unbeatable|superb|fantastic|convenient|best)\s*$/;

export interface TransactionSignals {
  transaction: Transaction | null;
  /** Weight of the rent and of the sale words (title words count three times). */
  rent: number;
  sale: number;
  /** The first word of each side that counted, for provenance and dual offers. */
  firstRent: { start: number; end: number } | null;
  firstSale: { start: number; end: number } | null;
}

/** Sale and rent words of a text, weighed (see the module comment). */
export function readTransaction(text: string, titleEnd: number): TransactionSignals {
  let rent = 0;
  let sale = 0;
  let firstRent: TransactionSignals['firstRent'] = null;
  let firstSale: TransactionSignals['firstSale'] = null;
  for (const match of text.matchAll(SIGNALS)) {
    const groups = match.groups ?? {};
    const start = match.index;
    const end = start + match[0].length;
    const weight = start < titleEnd ? 3 : 1;
    const before = text.slice(Math.max(0, start - 28), start);
    const after = text.slice(end, end + 24);
    if (groups.rent !== undefined) {
      if (NOT_THIS_RENT_BEFORE.test(before) || NOT_THIS_RENT_AFTER.test(after)) continue;
      if (match[0] === 'loue' && LET_ALREADY_BEFORE.test(before)) continue;
      if (match[0] === 'location' && ENGLISH_LOCATION_BEFORE.test(before)) continue;
      rent += weight;
      firstRent ??= { start, end };
    } else if (groups.rentPeriod !== undefined) {
      rent += weight * 0.5;
    } else if (groups.sale !== undefined) {
      if (NOT_THIS_SALE_BEFORE.test(before) || NOT_THIS_SALE_AFTER.test(after)) continue;
      // English "sale" only in "for sale"/"on sale": "Salé" the city is written "sale" once normalised.
      if (match[0] === 'sale' && !/(?:for|on)\s*$/.test(before)) continue;
      sale += weight;
      firstSale ??= { start, end };
    }
  }
  const transaction = rent === sale ? null : rent > sale ? 'rent' : 'sale';
  return { transaction, rent, sale, firstRent, firstSale };
}

/**
 * Prices in listing text (docs/analysis-text.md, docs/analysis-text.md "Price").
 *
 * A price is a number with a unit (DH, Dhs, dirhams, MAD, درهم, MDH, million(s), مليون, k, mille,
 * ألف, EUR, €) or a number right after a price word (prix, loyer, price, rent, ثمن, السعر, taman).
 * The centimes trap: "75 millions" with no unit counts centimes (1 million centimes = 10 000 DH),
 * while "1,2 MDH" / "2 millions de DH" / "4.2 million" are real millions of dirhams.
 * Amounts that are not the asking price are dropped: per m² / per hectare / per night prices,
 * syndic fees, deposits, agency fees, the state housing aid, down payments.
 */
import type { NumberToken } from './numbers.js';

export type Currency = 'MAD' | 'EUR';

export interface PriceMention {
  /** Amount in the listing's own currency. */
  amount: number;
  currency: Currency;
  /** Amount in MAD (EUR converted). */
  mad: number;
  start: number;
  end: number;
  score: number;
  /** Stated next to a price word (prix, loyer, ثمن…). */
  labelled: boolean;
  /** "/mois", "par mois", "mensuel": a monthly rent. */
  perMonth: boolean;
  /** "à partir de", "dès", "from": a starting price of a programme. */
  startingFrom: boolean;
  inTitle: boolean;
}

export interface PriceOptions {
  /** MAD per EUR. */
  eurToMad: number;
}

const MILLION_WORD = String.raw`m(?:i|e|a|y)?l{1,2}(?:i|y)?(?:o|ou|yo|io|iou|yu)ns?|مليون|ملايين|ملاين`;
const MAD_UNIT = String.raw`dhs?|dirhams?|dirham|drhm?|mad|درهم|دراهم|الدرهم|د\.?م`;
const EUR_UNIT = String.raw`€|eur|euros?|يورو`;
const BILLION_WORD = String.raw`مليار|milliards?`;
const THOUSAND_WORD = String.raw`k|mille|thousands?|alf|alaf|الف|ألف|آلاف|الاف`;
/** "1,2 MDH", "3 m dirhams": millions of dirhams in one word. */
const MDH_WORD = String.raw`m\s?dhs?|mdhs?|m\s?dirhams?`;
/** Every unit that makes the number before it an amount ("71 mlyon", "340 000 DH", "2M500", "500 alf"), as one alternation. */
export const AMOUNT_UNIT = String.raw`m\d{3}(?!\d)|${MDH_WORD}|${MILLION_WORD}|${BILLION_WORD}|${THOUSAND_WORD}|${MAD_UNIT}|${EUR_UNIT}`;

/** What may follow a number to make it an amount (sticky, matched at the number's end). */
const UNIT_AFTER = new RegExp(
  String.raw`\s?(?:` +
    String.raw`(?<millionThousands>m(?<thousands>\d{3})(?!\d))` +
    String.raw`|(?<mdh>${MDH_WORD}|m(?=\s?(?:dh|mad)\b))` +
    String.raw`|(?<million>${MILLION_WORD})(?:\s+(?:de\s+|d')?(?<millionMad>${MAD_UNIT})|\s*(?:de\s+|d')?(?<centimes>centimes?|cts|سنتيم|santim|franc?s?|ryal))?` +
    String.raw`|(?<billion>${BILLION_WORD})` +
    String.raw`|(?<thousand>${THOUSAND_WORD})(?:\s?(?<thousandMad>${MAD_UNIT}))?` +
    String.raw`|(?<mad>${MAD_UNIT})` +
    String.raw`|(?<eur>${EUR_UNIT})` +
    String.raw`)(?![a-z\u0600-\u06ff])`,
  'y',
);

const THOUSANDS_AFTER_MILLION = /^\s*(?:et\s+|و\s*)?(\d{1,3})\s*(?:mille|alf|الف|ألف)(?![a-z\u0600-\u06ff])/;

/** A currency written before the amount: "MAD 1 500 000", "€ 90 000". */
const UNIT_BEFORE = new RegExp(String.raw`(?:^|[^a-z])(?:(?<mad>mad|dh)|(?<eur>€|eur))\s?$`);

const SURFACE_AFTER = /^\s?(?:m2|mq|sqm|sq|square|met(?:re|er)s?|mitres?|متر|م2|ha\b|hectares?)/;

/** Per-unit prices (per m², per hectare, per night…) are not the asking price. */
const PER_UNIT_AFTER =
  /^\s?(?:ht\s?|ttc\s?)?(?:(?:\/|par|le|la|du|au|per|a|the)\s?(?:m2|m\b|metre|sqm|hectare|ha\b|nuit|night|jour|day|semaine|week|nuitee)|m2\b|للمتر|المتر|لل?هكتار|في الليله|لليله)/;
const PER_MONTH_AFTER =
  /^\s?(?:ht\s?|ttc\s?|net\s?|hc\s?|cc\s?)?(?:\/\s?mois|par mois|le mois|mensuel|mensuellement|per month|\/\s?month|a month|monthly|في الشهر|شهريا|للشهر|kol chher|f chhar)/;
/** Amounts that are fees, deposits or aid rather than the price, named just before them. */
const EXCLUDED_BEFORE =
  /(?:syndic|frais|charges?|caution|avance|honoraires?|commission|depot|acompte|apport|aide|subvention|remise|reduction|economi[sz]\w*|au lieu de|ancien prix|avec seulement|credit|mensualites?|reservation|taxe|impots?|دعم|الدعم|تسبيق|التسبيق|بدل|deposit|fee|fees|service charge|down ?payment|da3m)[^.;\n\d]{0,22}$/;
const EXCLUDED_AFTER =
  /^\s?(?:ht\s?|ttc\s?)?(?:de |d'|du |of )?(?:syndic|frais(?! de notaire| d'enregistrement| d'immatriculation| notari| en sus| a la charge)|charges|caution|avance|d'avance|depot|de caution|dhs? de syndic|subvention|aide|reduction|remise|apport|دعم|الدعم|تسبيق|deposit|fees?|da3m)(?![^.;\n]{0,24}(?:compris|inclus|inclut|incluse?s?|inclu|included|includes))(?!\s*:|\s+\d|\s+(?:d'un|d'une|de \d|un|une|deux|trois)\s)/;
/** Price words; "a partir de" marks a programme's starting price. */
const PRICE_WORD_BEFORE =
  /(?:prix|price|loyer|rent|tarif|montant|cout|ثمن|الثمن|بثمن|السعر|بسعر|الكراء|taman|tman|thaman|thamane|taman dyal)(?:\s+(?:de vente|de location|de la vente|de cession|البيع|الكراء|demande|propose|fixe|net|total|global|mensuel|final|choc|sacrifie|promo|promotionnel|exceptionnel|interessant|imbattable|tres|est|de|du|d'|is|of|:|-|=|vente|location))*[\s:=\-–]*$/;
const STARTING_FROM_BEFORE = /(?:a partir de|a partir|des|from|starting at|ابتداء من|ابتداءا من|انطلاقا من)\s*(?::\s*)?$/;
/** Right after a bare number, these words make it some other quantity. */
const OTHER_QUANTITY_AFTER =
  /^\s?(?:m2|m\b|metres?|mètres?|ch\b|chambres?|pieces?|salons?|%|ans\b|an\b|km|min|minutes?|etages?|sdb|jours?|mois|hectares?|ha\b|unites?|appartements?|lots?|niveaux?|facades?|places?|متر|غرف|بيوت)/;

/** "1.2M", "1,5 M": a lone M after a labelled amount (docs/analysis-text.md "Price"). */
const SHORT_MILLION_AFTER = /^\s?m(?![a-z\u00b2\u0600-\u06ff\d])/;

/** "hauteur 2m500": a length, not "2M500" dirhams. */
const LENGTH_BEFORE = /(?:hauteur|largeur|longueur|facade|profondeur|plafond|height|width)[^.\n\d]{0,12}$/;

const LOOKBEHIND = 48;
/** Smallest bare number without separators read as a price in a title (a sale price; rents are too close to codes and years). */
const BARE_TITLE_MINIMUM = 100_000;
/** Above this a bare unformatted number in a title is an ad or phone reference sooner than a price. */
const BARE_TITLE_MAXIMUM = 20_000_000;
/** A standalone number: spaces, the text's edges or light punctuation on both sides, not a URL's "_48760839.htm". */
const STANDALONE = /^[\s,:;()]?[\s,;()]?$/;
/** "Réf 123456", "annonce n° 204518": a reference, not an amount. */
const REFERENCE_BEFORE = /(?<![a-z\u0600-\u06ff])(?:ref|reference|n°|no|num|numero|code|id|annonce|lot|tel|whatsapp|رقم)[\s.:#°-]*$/;
/** Smallest bare number with thousands separators read as a price (below it: surfaces, years, counts). */
const BARE_GROUPED_MINIMUM = 20_000;

function madValue(amount: number, currency: Currency, options: PriceOptions): number {
  return currency === 'EUR' ? amount * options.eurToMad : amount;
}

interface UnitReading {
  amount: number;
  currency: Currency;
  end: number;
}

/** What may follow a number written in words: a currency, or centimes (÷ 100). */
const SPELLED_UNIT_AFTER = new RegExp(
  String.raw`^\s?(?:de\s+|d'|of\s+)?(?:(?<mad>${MAD_UNIT})|(?<eur>${EUR_UNIT})|(?<centimes>centimes?|cts|سنتيم|santim|franc?s?|ryal|ryals))(?![a-z\u0600-\u06ff])`,
);

/**
 * The amount of a number written in words ("un million deux cent mille dirhams", "مليون ونص",
 * "مليون سنتيم"). The centimes rule of docs/analysis-text.md holds as for digits: centimes named,
 * or ten millions and more (or a milliard) with no dirham unit, count centimes (÷ 100). Without a
 * unit, a phrase that names thousands or millions is an amount; a smaller one ("cent vingt") is a
 * bare number.
 */
function readSpelledUnit(text: string, token: NumberToken, spelled: NonNullable<NumberToken['spelled']>): UnitReading | null {
  const unit = SPELLED_UNIT_AFTER.exec(text.slice(token.end, token.end + 24));
  const end = token.end + (unit?.[0].length ?? 0);
  if (unit?.groups?.eur !== undefined) return { amount: token.value, currency: 'EUR', end };
  if (unit?.groups?.centimes !== undefined) return { amount: token.value / 100, currency: 'MAD', end };
  if (unit?.groups?.mad !== undefined) return { amount: token.value, currency: 'MAD', end };
  if (SURFACE_AFTER.test(text.slice(token.end, token.end + 16))) return null;
  if (spelled.scale >= 1e9 || (spelled.millionCount ?? 0) >= 10) return { amount: token.value / 100, currency: 'MAD', end };
  // A lone "mille" ("mille mercis") is no amount without its unit.
  return spelled.scale >= 1000 && token.value > 1000 ? { amount: token.value, currency: 'MAD', end } : null;
}

/** Reads the unit after a number and returns the amount it makes, or null when it is no amount. */
function readUnit(text: string, token: NumberToken): UnitReading | null {
  if (token.spelled !== undefined) return readSpelledUnit(text, token, token.spelled);
  UNIT_AFTER.lastIndex = token.end;
  const match = UNIT_AFTER.exec(text);
  const before = text.slice(Math.max(0, token.start - 6), token.start);
  if (!match?.groups) {
    const prefix = UNIT_BEFORE.exec(before);
    // "7 930 000 DH 8850 m²": the DH is the previous amount's; a number with a surface unit is no amount.
    if (!prefix?.groups || SURFACE_AFTER.test(text.slice(token.end, token.end + 16))) return null;
    return { amount: token.value, currency: prefix.groups.eur ? 'EUR' : 'MAD', end: token.end };
  }
  const groups = match.groups;
  const end = UNIT_AFTER.lastIndex;
  // "1M200" (spoken "one million two hundred"): millions, then thousands of dirhams.
  if (
    groups.millionThousands !== undefined &&
    !token.hasDecimal &&
    token.value < 100 &&
    !LENGTH_BEFORE.test(text.slice(Math.max(0, token.start - 24), token.start))
  ) {
    return { amount: token.value * 1_000_000 + Number(groups.thousands) * 1000, currency: 'MAD', end };
  }
  if (groups.millionThousands !== undefined) return null;
  if (groups.mdh !== undefined) {
    return { amount: (token.decimalReading ?? token.value) * 1_000_000, currency: 'MAD', end };
  }
  if (groups.million !== undefined) {
    const written = token.decimalReading ?? token.value;
    // Rule of docs/analysis-text.md: an explicit DH unit or a decimal / small count means
    // real millions; otherwise (or with "centimes") the speaker counts centimes.
    const realMillions = groups.millionMad !== undefined || (groups.centimes === undefined && (token.hasDecimal || written < 10));
    // "1 million 500 mille (DH)", "مليون و200 ألف": millions and thousands of dirhams.
    const thousands = realMillions && !token.hasDecimal ? THOUSANDS_AFTER_MILLION.exec(text.slice(end, end + 24)) : null;
    if (thousands !== null)
      return { amount: written * 1_000_000 + Number(thousands[1]) * 1000, currency: 'MAD', end: end + thousands[0].length };
    return { amount: realMillions ? written * 1_000_000 : written * 10_000, currency: 'MAD', end };
  }
  if (groups.billion !== undefined) {
    return { amount: (token.decimalReading ?? token.value) * 10_000_000, currency: 'MAD', end };
  }
  if (groups.thousand !== undefined) {
    return { amount: (token.decimalReading ?? token.value) * 1000, currency: 'MAD', end };
  }
  if (groups.eur !== undefined) return { amount: token.value, currency: 'EUR', end };
  return { amount: token.value, currency: 'MAD', end };
}

/** Every amount in the text that reads as an asking price or rent, best first. */
export function findPriceMentions(text: string, numbers: readonly NumberToken[], titleEnd: number, options: PriceOptions): PriceMention[] {
  const mentions: PriceMention[] = [];
  for (const token of numbers) {
    const before = text.slice(Math.max(0, token.start - LOOKBEHIND), token.start);
    const unit = readUnit(text, token);
    const labelled = PRICE_WORD_BEFORE.test(before);
    let reading = unit;
    let base = unit ? 3 : 2;
    if (reading === null) {
      // A bare number is a price right after a price word ("Prix : 1 340 000"), or when it is
      // written with thousands separators and large enough to be nothing else ("Appt à vendre 480.000").
      const grouped =
        (token.grouped && token.value >= BARE_GROUPED_MINIMUM) ||
        // "Appartement 105m2 à vendre Oulfa 1050000": a title's bare six-figure number is its price.
        (token.start < titleEnd &&
          !token.hasDecimal &&
          token.value >= BARE_TITLE_MINIMUM &&
          token.value <= BARE_TITLE_MAXIMUM &&
          !REFERENCE_BEFORE.test(before) &&
          STANDALONE.test(`${text.charAt(token.start - 1)}${text.charAt(token.end)}`));
      // "Prix : 1.2M": after a price word, a small number with a lone M counts millions of dirhams
      // (unlabelled, "2.5 m" may be a height).
      const shortMillion = labelled ? SHORT_MILLION_AFTER.exec(text.slice(token.end, token.end + 8)) : null;
      const written = token.decimalReading ?? token.value;
      if (shortMillion !== null && written < 100) {
        reading = { amount: written * 1_000_000, currency: 'MAD', end: token.end + shortMillion[0].length };
        base = 2;
      } else {
        if ((!labelled && !grouped) || token.value < 1000) continue;
        if (OTHER_QUANTITY_AFTER.test(text.slice(token.end, token.end + 14))) continue;
        reading = { amount: token.value, currency: 'MAD', end: token.end };
        base = labelled ? 2 : 1;
      }
    }
    // The "500 mille" of "1 million 500 mille" is read with the million.
    if (mentions.some((mention) => token.start > mention.start && token.start < mention.end)) continue;
    const after = text.slice(reading.end, reading.end + 30);
    if (PER_UNIT_AFTER.test(after) || EXCLUDED_AFTER.test(after) || EXCLUDED_BEFORE.test(before)) continue;
    const mad = madValue(reading.amount, reading.currency, options);
    if (mad < 300 || mad > 2_000_000_000) continue;
    const perMonth = PER_MONTH_AFTER.test(after);
    const inTitle = token.start < titleEnd;
    const score = base + (labelled ? 2 : 0) + (inTitle ? 0.5 : 0);
    mentions.push({
      amount: reading.amount,
      currency: reading.currency,
      mad,
      start: token.start,
      end: reading.end,
      score,
      labelled,
      perMonth,
      startingFrom: STARTING_FROM_BEFORE.test(before),
      inTitle,
    });
  }
  return mentions;
}

/** Words that make two nearby prices options of one offer: "meublé 13 000 DH et vide 11 000 DH". */
const OPTION_WORDS =
  /(?:^|[^a-z\u00df-\u024f\u0600-\u06ff])(?:vide|meublee?|non meuble|ou|or|furnished|unfurnished|empty)(?![a-z\u00df-\u024f\u0600-\u06ff])/;

/**
 * The asking price: the best-scored mention, the first one on ties. A monthly amount is the
 * price of a rental, but only a side note (the current rent) in a sale. When the text offers the
 * same home at two prices (furnished or not), the asking price is the lower one, as the portals
 * file it (like "à partir de").
 */
export function choosePrice(mentions: readonly PriceMention[], transaction: 'sale' | 'rent' | null, text = ''): PriceMention | null {
  let best: PriceMention | null = null;
  let bestScore = -Infinity;
  const scoreOf = (mention: PriceMention): number => mention.score + (mention.perMonth ? (transaction === 'sale' ? -1.5 : 0.5) : 0);
  for (const mention of mentions) {
    const score = scoreOf(mention);
    if (score > bestScore) {
      best = mention;
      bestScore = score;
    }
  }
  if (best === null) return null;
  const chosen = best;
  for (const other of mentions) {
    if (other === chosen || scoreOf(other) < bestScore - 1 || other.mad >= chosen.mad) continue;
    const [first, second] = other.start < chosen.start ? [other, chosen] : [chosen, other];
    if (second.start - first.end > 60) continue;
    const around = text.slice(Math.max(0, first.start - 24), second.end);
    if (OPTION_WORDS.test(around)) best = best.mad <= other.mad ? best : other;
  }
  return best;
}

/** "7 500 DH plus 500 DH de frais de syndic": charges stated on top of a rent. */
const CHARGES_AFTER = new RegExp(String.raw`^\s*(?:\+|plus|et|and|avec|\u0648)\s*$`);
const CHARGES_WORDS = new RegExp(
  String.raw`^\s*(?:(?:${MAD_UNIT})\s*)?(?:de |des |d')?(?:frais (?:de |du )?)?(?:syndic|charges?|service charges?|مصاريف السنديك|السنديك)`,
);

/**
 * Monthly charges stated right after a rent ("7 500 DH plus 500 DH de frais de syndic"), in MAD,
 * else 0. The portals file the monthly amount the tenant pays, charges included.
 */
export function chargesAfter(text: string, price: PriceMention, numbers: readonly NumberToken[]): number {
  const next = numbers.find((token) => token.start >= price.end);
  if (next === undefined || next.start - price.end > 12) return 0;
  if (!CHARGES_AFTER.test(text.slice(price.end, next.start))) return 0;
  if (!CHARGES_WORDS.test(text.slice(next.end, next.end + 40))) return 0;
  // Charges are a small share of the rent; anything else is another figure.
  return next.value > 0 && next.value < price.mad / 2 ? next.value : 0;
}

const NO_PRICE =
  /prix a consulter|prix sur demande|price on request|demander le prix|prix non (?:specifie|communique)|الثمن عند الاتصال|السعر عند الطلب/;

/** "Prix à consulter" and the like: the listing states that no price is given. */
export function statesNoPrice(text: string): boolean {
  return NO_PRICE.test(text);
}

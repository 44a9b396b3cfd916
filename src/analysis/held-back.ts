import type { ConfirmableFact, HeldBackFact, Language, Warning } from '../core/types.js';
import { PLAUSIBILITY_CODES } from './plausibility.js';

/**
 * Doubtful facts held back (docs/analysis.md "Held back"): a price or a surface that a plausibility
 * check doubts (plausibility.ts: a warning with `field`) is not the ground of any claim — no market
 * position, angle, yield, price per m² or price card — until the caller confirms it
 * (`confirmed_facts`, CLI `--confirm price`) or corrects it. Pure.
 */

const HELD_BACK_CODE: Readonly<Record<ConfirmableFact, string>> = { price: 'PRICE_IMPLAUSIBLE', surface: 'SURFACE_IMPLAUSIBLE' };

const HELD_BACK_MESSAGE: Readonly<Record<ConfirmableFact, Readonly<Record<Language, (reason: string) => string>>>> = {
  price: {
    en: (reason) =>
      `Price held back: ${reason} The video shows no price, market position or angle built on it until the price is confirmed (--confirm price, or confirmed_facts ["price"]) or corrected.`,
    fr: (reason) =>
      `Prix retenu : ${reason} La vidéo ne montre ni le prix, ni sa position sur le marché, ni d’argument fondé sur lui tant que le prix n’est pas confirmé (--confirm price, ou confirmed_facts ["price"]) ou corrigé.`,
    ar: (reason) =>
      `الثمن موقوف: ${reason} لن يعرض الفيديو الثمن ولا موقعه في السوق ولا أي حجة مبنية عليه حتى يتم تأكيده (--confirm price أو confirmed_facts ["price"]) أو تصحيحه.`,
  },
  surface: {
    en: (reason) =>
      `Surface held back: ${reason} No price per m², market position or angle is built on it until the surface is confirmed (--confirm surface, or confirmed_facts ["surface"]) or corrected.`,
    fr: (reason) =>
      `Surface retenue : ${reason} Aucun prix au m², position sur le marché ni argument n’est fondé sur elle tant que la surface n’est pas confirmée (--confirm surface, ou confirmed_facts ["surface"]) ou corrigée.`,
    ar: (reason) =>
      `المساحة موقوفة: ${reason} لن يُبنى عليها ثمن المتر المربع ولا الموقع في السوق ولا أي حجة حتى يتم تأكيدها (--confirm surface أو confirmed_facts ["surface"]) أو تصحيحها.`,
  },
};

/** Why the market position is missing, in the analysis language. */
export const POSITION_WITHHELD: Readonly<Record<Language, string>> = {
  en: 'Not compared: the price or the surface is doubtful and waits for confirmation.',
  fr: 'Non comparé : le prix ou la surface est douteux et attend une confirmation.',
  ar: 'بدون مقارنة: الثمن أو المساحة مشكوك فيه وينتظر التأكيد.',
};

/** Only a plausibility check's doubt holds a fact back; other warnings naming it (a contradiction, a dual offer) only inform. */
const DOUBTING_CODES: ReadonlySet<string> = new Set(PLAUSIBILITY_CODES);

/**
 * The facts to hold back: each confirmable fact a plausibility warning doubts (its first such
 * warning gives the reason), unless the caller confirmed it.
 */
export function heldBackFacts(warnings: readonly Warning[], confirmed: readonly ConfirmableFact[], language: Language): HeldBackFact[] {
  const held: HeldBackFact[] = [];
  for (const field of ['price', 'surface'] as const) {
    if (confirmed.includes(field)) continue;
    const doubt = warnings.find((warning) => warning.field === field && DOUBTING_CODES.has(warning.code));
    if (doubt === undefined) continue;
    held.push({ field, code: HELD_BACK_CODE[field], message: HELD_BACK_MESSAGE[field][language](doubt.message) });
  }
  return held;
}

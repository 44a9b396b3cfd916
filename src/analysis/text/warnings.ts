/**
 * Warnings the text itself justifies (plausibility warnings such as price per m² belong to the
 * enrichment, src/analysis/property.ts):
 *
 * - KEY_MONEY_SCHEME: sarout / pas-de-porte (key money on an old lease), rahn (pledge lease),
 *   tanazul (transfer of rights), kontra (informal contract). docs/analysis-text.md:
 *   these are not ordinary freehold sales or leases and sell far below market.
 * - CONTRADICTION: the text states two different values for the same fact (a title saying
 *   3 bedrooms over a description saying 2, two different asking prices or surfaces).
 */
import type { Warning } from '../../core/types.js';
import type { PriceMention } from './price.js';
import type { SurfaceMention } from './surface.js';

const SCHEMES: ReadonlyArray<{ pattern: RegExp; name: string; meaning: string }> = [
  {
    pattern:
      /(?<![a-z\u00df-\u024f\u0600-\u06ff])(?:sarout|saroute|sarouta|saroot|ساروت|الساروت|بالساروت|pas[- ]de[- ]porte|droit au bail)(?![a-z\u00df-\u024f\u0600-\u06ff])/,
    name: 'sarout (key money)',
    meaning: 'key money paid to take over an old lease',
  },
  {
    pattern: /(?<![a-z\u00df-\u024f\u0600-\u06ff])(?:rahn|rhina|rhine|رهن|الرهن|بالرهن|للرهن)(?![a-z\u00df-\u024f\u0600-\u06ff])/,
    name: 'rahn (pledge lease)',
    meaning: 'a lump sum deposited instead of rent',
  },
  {
    pattern:
      /(?<![a-z\u00df-\u024f\u0600-\u06ff])(?:tanazul|tanazol|tanazoul|tanazl|تنازل|التنازل|بالتنازل)(?![a-z\u00df-\u024f\u0600-\u06ff])/,
    name: 'tanazul (transfer of rights)',
    meaning: 'a transfer of rights, often without a land title',
  },
  {
    pattern: /(?<![a-z\u00df-\u024f\u0600-\u06ff])(?:kontra|الكونطرا|كونطرا)(?![a-z\u00df-\u024f\u0600-\u06ff])/,
    name: 'kontra (informal contract)',
    meaning: 'an informal rental contract',
  },
];

export function keyMoneyWarnings(text: string): Warning[] {
  const warnings: Warning[] = [];
  for (const scheme of SCHEMES) {
    if (!scheme.pattern.test(text)) continue;
    warnings.push({
      code: 'KEY_MONEY_SCHEME',
      message:
        `The listing mentions ${scheme.name}: ${scheme.meaning}, not an ordinary freehold sale or lease. ` +
        'Its price is not comparable with the market and is kept out of market comparisons.',
    });
  }
  return warnings;
}

/** Listings for several units (a programme, a choice of flats) legitimately state several values. */
const SEVERAL_UNITS =
  /(?<![a-z\u00df-\u024f\u0600-\u06ff])(?:appartements|studios|villas|lots|plusieurs|programme|projet|tranche|residences|des appartements|units|apartments|شقق|مشروع|au choix)(?![a-z\u00df-\u024f\u0600-\u06ff])/;
/** Words between two prices that make them options rather than a contradiction. */
const PRICE_OPTIONS =
  /(?:vide|meuble|ou\b|or\b|au lieu|ancien|avant|apres|remise|promo|negoci|discut|reduction|offre|\/|soit|total|dont|avec|sans|parking|garage)/;

function differ(a: number, b: number, tolerance: number): boolean {
  return Math.abs(a - b) > tolerance * Math.max(a, b);
}

function contradiction(fact: string, values: readonly string[]): Warning {
  return {
    code: 'CONTRADICTION',
    message: `The text states different ${fact}: ${values.join(' and ')}. Check which one is right.`,
  };
}

export interface ContradictionInput {
  text: string;
  prices: readonly PriceMention[];
  surfaces: readonly SurfaceMention[];
  bedroomValues: readonly number[];
}

export function contradictionWarnings(input: ContradictionInput): Warning[] {
  if (SEVERAL_UNITS.test(input.text)) return [];
  const warnings: Warning[] = [];

  const strongPrices = input.prices.filter((p) => (p.labelled || p.inTitle) && !p.startingFrom);
  const firstPrice = strongPrices[0];
  const otherPrice = strongPrices.find(
    (p) =>
      firstPrice !== undefined &&
      p.perMonth === firstPrice.perMonth &&
      differ(p.mad, firstPrice.mad, 0.05) &&
      !PRICE_OPTIONS.test(input.text.slice(firstPrice.end, p.start)),
  );
  if (firstPrice !== undefined && otherPrice !== undefined) {
    warnings.push(
      contradiction(
        'prices',
        [firstPrice, otherPrice].map((p) => `${Math.round(p.mad).toLocaleString('en-US')} MAD`),
      ),
    );
  }

  const strongSurfaces = input.surfaces.filter((s) => (s.role === 'main' || s.role === 'living') && !s.range && s.score >= 3);
  const firstSurface = strongSurfaces[0];
  const otherSurface = strongSurfaces.find(
    (s) => firstSurface !== undefined && s.role === firstSurface.role && differ(s.value, firstSurface.value, 0.1),
  );
  if (firstSurface !== undefined && otherSurface !== undefined) {
    warnings.push(contradiction('surfaces', [`${firstSurface.value} m²`, `${otherSurface.value} m²`]));
  }

  const [titleBedrooms, bodyBedrooms] = input.bedroomValues;
  if (titleBedrooms !== undefined && bodyBedrooms !== undefined && titleBedrooms !== bodyBedrooms) {
    warnings.push(contradiction('bedroom counts', [String(titleBedrooms), String(bodyBedrooms)]));
  }
  return warnings;
}

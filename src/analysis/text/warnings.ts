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
import { listIn, M2, MAD, sayer, spacedNumber, type Say, type Texts } from '../say.js';
import type { PriceMention } from './price.js';
import type { SurfaceMention } from './surface.js';

const SCHEMES: ReadonlyArray<{ pattern: RegExp; name: Texts; meaning: Texts }> = [
  {
    pattern:
      /(?<![a-z\u00df-\u024f\u0600-\u06ff])(?:sarout|saroute|sarouta|saroot|ساروت|الساروت|بالساروت|pas[- ]de[- ]porte|droit au bail)(?![a-z\u00df-\u024f\u0600-\u06ff])/,
    name: { en: 'sarout (key money)', fr: 'le sarout (pas-de-porte)', ar: 'الساروت' },
    meaning: {
      en: 'key money paid to take over an old lease',
      fr: 'une somme payée pour reprendre un ancien bail',
      ar: 'مبلغ يُدفع لتولي عقد كراء قديم',
    },
  },
  {
    pattern: /(?<![a-z\u00df-\u024f\u0600-\u06ff])(?:rahn|rhina|rhine|رهن|الرهن|بالرهن|للرهن)(?![a-z\u00df-\u024f\u0600-\u06ff])/,
    name: { en: 'rahn (pledge lease)', fr: 'le rahn (location contre nantissement)', ar: 'الرهن' },
    meaning: {
      en: 'a lump sum deposited instead of rent',
      fr: 'une somme déposée au lieu d’un loyer',
      ar: 'مبلغ يودع بدل الكراء',
    },
  },
  {
    pattern:
      /(?<![a-z\u00df-\u024f\u0600-\u06ff])(?:tanazul|tanazol|tanazoul|tanazl|تنازل|التنازل|بالتنازل)(?![a-z\u00df-\u024f\u0600-\u06ff])/,
    name: { en: 'tanazul (transfer of rights)', fr: 'le tanazul (cession de droits)', ar: 'التنازل' },
    meaning: {
      en: 'a transfer of rights, often without a land title',
      fr: 'une cession de droits, souvent sans titre foncier',
      ar: 'تنازل عن الحقوق، غالبا بدون رسم عقاري',
    },
  },
  {
    pattern: /(?<![a-z\u00df-\u024f\u0600-\u06ff])(?:kontra|الكونطرا|كونطرا)(?![a-z\u00df-\u024f\u0600-\u06ff])/,
    name: { en: 'kontra (informal contract)', fr: 'la kontra (contrat informel)', ar: 'الكونطرا' },
    meaning: { en: 'an informal rental contract', fr: 'un contrat de location informel', ar: 'عقد كراء غير رسمي' },
  },
];

/** KEY_MONEY_SCHEME warnings, about the price (it is not a market price), in the request's language. */
export function keyMoneyWarnings(text: string, say: Say = sayer('en')): Warning[] {
  const warnings: Warning[] = [];
  for (const scheme of SCHEMES) {
    if (!scheme.pattern.test(text)) continue;
    const name = say(scheme.name);
    const meaning = say(scheme.meaning);
    warnings.push({
      code: 'KEY_MONEY_SCHEME',
      field: 'price',
      message: say({
        en: `The listing mentions ${name}: ${meaning}, not an ordinary freehold sale or lease. Its price is not comparable with the market and is kept out of market comparisons.`,
        fr: `L’annonce mentionne ${name} : ${meaning}, pas une vente ni une location ordinaire. Son prix n’est pas comparable au marché et reste hors des comparaisons de marché.`,
        ar: `يذكر الإعلان ${name}: ${meaning}، وليس بيعا أو كراء عاديا. ثمنه غير قابل للمقارنة مع السوق ويبقى خارج مقارنات السوق.`,
      }),
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

/** What two values disagree about: the warning's field and its name in a sentence. */
const CONTRADICTED: Readonly<Record<'price' | 'surface' | 'bedrooms', Texts>> = {
  price: { en: 'different prices', fr: 'des prix différents', ar: 'أثمنة مختلفة' },
  surface: { en: 'different surfaces', fr: 'des surfaces différentes', ar: 'مساحات مختلفة' },
  bedrooms: { en: 'different bedroom counts', fr: 'des nombres de chambres différents', ar: 'أعدادا مختلفة لغرف النوم' },
};

function contradiction(field: keyof typeof CONTRADICTED, values: readonly string[], say: Say): Warning {
  const fact = say(CONTRADICTED[field]);
  const both = listIn(values, say);
  return {
    code: 'CONTRADICTION',
    field,
    message: say({
      en: `The text states ${fact}: ${both}. Check which one is right.`,
      fr: `Le texte donne ${fact} : ${both}. Vérifiez lequel est le bon.`,
      ar: `يذكر النص ${fact}: ${both}. تحقق من الصحيح منها.`,
    }),
  };
}

export interface ContradictionInput {
  text: string;
  prices: readonly PriceMention[];
  surfaces: readonly SurfaceMention[];
  bedroomValues: readonly number[];
}

export function contradictionWarnings(input: ContradictionInput, say: Say = sayer('en')): Warning[] {
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
        'price',
        [firstPrice, otherPrice].map((p) => `${spacedNumber(Math.round(p.mad))} ${say(MAD)}`),
        say,
      ),
    );
  }

  const strongSurfaces = input.surfaces.filter((s) => (s.role === 'main' || s.role === 'living') && !s.range && s.score >= 3);
  const firstSurface = strongSurfaces[0];
  const otherSurface = strongSurfaces.find(
    (s) => firstSurface !== undefined && s.role === firstSurface.role && differ(s.value, firstSurface.value, 0.1),
  );
  if (firstSurface !== undefined && otherSurface !== undefined) {
    warnings.push(
      contradiction(
        'surface',
        [firstSurface.value, otherSurface.value].map((m2) => `${spacedNumber(m2)} ${say(M2)}`),
        say,
      ),
    );
  }

  const [titleBedrooms, bodyBedrooms] = input.bedroomValues;
  if (titleBedrooms !== undefined && bodyBedrooms !== undefined && titleBedrooms !== bodyBedrooms) {
    warnings.push(contradiction('bedrooms', [String(titleBedrooms), String(bodyBedrooms)], say));
  }
  return warnings;
}

import type { Language, Transaction } from '../../core/types.js';
import { cityKey, districtKeys, METRO_OF } from './place-keys.js';

/**
 * The market reference table (docs/analysis.md): asking prices per m² by city and district, property
 * kind and transaction, every row with its source and date. All figures come from
 * docs/analysis.md (the bracketed keys are the source keys of docs/sources.md); the
 * table is built once at module load and looked up through maps.
 *
 * Sale rows are DH per m². Rent rows are DH per m² per month.
 */

/** Property kinds the research gives separate references for: never compared across kinds (docs/analysis.md). */
export type ReferenceKind = 'apartment' | 'villa' | 'riad';

export interface MarketReference {
  /** Display names, as the sources write them. */
  city: string;
  district: string | null;
  kind: ReferenceKind;
  transaction: Transaction;
  median: number;
  q1: number | null;
  q3: number | null;
  sample_size: number | null;
  /** Month the figures describe, YYYY-MM. */
  as_of: string;
  source: string;
  /** A figure derived by a rule of the research rather than measured: always low confidence. */
  indicative: boolean;
}

const SOURCE = {
  cities2024: '[DS-EARTHY] Avito + Yakeey apartment sale asks scraped Nov–Dec 2024, city medians',
  districts2024: '[DS-EARTHY] Avito + Yakeey apartment sale asks scraped Nov–Dec 2024, district medians',
  districts2022: '[DS-ALTIMIS] Avito apartment sale asks, Jan 2022',
  mouldarSale: '[MOULDAR-APT] mouldar apartment asking index, rolling 3 months to Feb 2026',
  rabat2018: '[MUB-2018-RABAT] Mubawab arrondissement average asking price, May 2018',
  marrakech2018: '[MUB-2018-MRK] Mubawab average asking price, May/June 2018',
  villas2024: '[LE360-VILLAS-2024] Le360, Casablanca villa prices per built m², May 2024',
  riads: 'indicative: [RIAD-2010] renovated riads 13,000–18,000 DH/m² (Dec 2010) + 35 % per [M24-MRK-2024]',
  rents2025: '[DS-MUBRENT] Mubawab apartment rental asks, ≈ July 2025, DH/m²/month',
  mouldarRent: '[MOULDAR-RENT-LIFT] mouldar rental index, apartments with a lift, to Mar 2026, DH/m²/month',
} as const;

/**
 * What a reader of the summary is told about each source, in the language of the analysis:
 * without the bracketed source keys and document references of `SOURCE` (those are for the
 * JSON output and the docs).
 */
const SOURCE_WORDS: Readonly<Record<keyof typeof SOURCE, Readonly<Record<Language, string>>>> = {
  cities2024: {
    en: 'Avito + Yakeey apartment sale asks, Nov–Dec 2024, city medians',
    fr: 'prix demandés d’appartements à vendre sur Avito + Yakeey, nov.–déc. 2024, médianes par ville',
    ar: 'أسعار الشقق المعروضة للبيع على Avito وYakeey، نونبر–دجنبر 2024، الوسيط حسب المدينة',
  },
  districts2024: {
    en: 'Avito + Yakeey apartment sale asks, Nov–Dec 2024, district medians',
    fr: 'prix demandés d’appartements à vendre sur Avito + Yakeey, nov.–déc. 2024, médianes par quartier',
    ar: 'أسعار الشقق المعروضة للبيع على Avito وYakeey، نونبر–دجنبر 2024، الوسيط حسب الحي',
  },
  districts2022: {
    en: 'Avito apartment sale asks, Jan 2022',
    fr: 'prix demandés d’appartements à vendre sur Avito, janv. 2022',
    ar: 'أسعار الشقق المعروضة للبيع على Avito، يناير 2022',
  },
  mouldarSale: {
    en: 'mouldar apartment asking index, rolling 3 months to Feb 2026',
    fr: 'indice mouldar des prix demandés d’appartements, 3 mois glissants jusqu’à févr. 2026',
    ar: 'مؤشر mouldar لأسعار الشقق المعروضة، 3 أشهر متحركة حتى فبراير 2026',
  },
  rabat2018: {
    en: 'Mubawab arrondissement average asking price, May 2018',
    fr: 'prix demandé moyen par arrondissement sur Mubawab, mai 2018',
    ar: 'متوسط السعر المعروض حسب المقاطعة على Mubawab، ماي 2018',
  },
  marrakech2018: {
    en: 'Mubawab average asking price, May/June 2018',
    fr: 'prix demandé moyen sur Mubawab, mai/juin 2018',
    ar: 'متوسط السعر المعروض على Mubawab، ماي/يونيو 2018',
  },
  villas2024: {
    en: 'Le360, Casablanca villa prices per built m², May 2024',
    fr: 'Le360, prix des villas à Casablanca par m² bâti, mai 2024',
    ar: 'Le360، أسعار الفيلات بالدار البيضاء للمتر المربع المبني، ماي 2024',
  },
  riads: {
    en: 'indicative: renovated riads 13,000–18,000 DH/m² (Dec 2010) + 35 %',
    fr: 'indicatif : riads rénovés 13 000–18 000 DH/m² (déc. 2010) + 35 %',
    ar: 'تقديري: رياضات مرممة 13 000–18 000 درهم/م² (دجنبر 2010) + 35 %',
  },
  rents2025: {
    en: 'Mubawab apartment rental asks, ≈ July 2025, DH/m²/month',
    fr: 'loyers demandés d’appartements sur Mubawab, ≈ juillet 2025, DH/m²/mois',
    ar: 'أكرية الشقق المعروضة على Mubawab، ≈ يوليوز 2025، درهم/م²/شهر',
  },
  mouldarRent: {
    en: 'mouldar rental index, apartments with a lift, to Mar 2026, DH/m²/month',
    fr: 'indice mouldar des loyers, appartements avec ascenseur, jusqu’à mars 2026, DH/m²/mois',
    ar: 'مؤشر mouldar للأكرية، شقق بمصعد، حتى مارس 2026، درهم/م²/شهر',
  },
};

const UPLIFT_WORDS: Readonly<Record<Language, string>> = {
  en: 'studio/1-bedroom uplift +60 %',
  fr: 'majoration studio/1 chambre +60 %',
  ar: 'زيادة الاستوديو/غرفة واحدة +60 %',
};

const MONTHS: Readonly<Record<Language, readonly string[]>> = {
  en: ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'],
  fr: ['janvier', 'février', 'mars', 'avril', 'mai', 'juin', 'juillet', 'août', 'septembre', 'octobre', 'novembre', 'décembre'],
  // Moroccan month names, as the Arabic source descriptions above write them.
  ar: ['يناير', 'فبراير', 'مارس', 'أبريل', 'ماي', 'يونيو', 'يوليوز', 'غشت', 'شتنبر', 'أكتوبر', 'نونبر', 'دجنبر'],
};

/** A reference's `as_of` month ("2024-12") in words, in `language` ("décembre 2024"); anything else as given. */
export function describeMonth(asOf: string, language: Language): string {
  const month = /^(\d{4})-(\d{2})$/.exec(asOf);
  const name = month === null ? undefined : MONTHS[language][Number(month[2]) - 1];
  return month === null || name === undefined ? asOf : `${name} ${month[1]}`;
}

/**
 * The source and its month as readers see them: the source's description, which names its period,
 * followed by the `as_of` month only when the description does not already name that year.
 */
export function describeSourceAndMonth(source: string, asOf: string, language: Language): string {
  const label = describeSource(source, language);
  if (label.includes(asOf.slice(0, 4))) return label;
  return `${label}${language === 'ar' ? '، ' : ', '}${describeMonth(asOf, language)}`;
}

/**
 * A market reference's `source` as the readable summary shows it, in `language`: the source's
 * description and, for small units, the uplift applied (docs/analysis.md). A source this table
 * does not know is shown without its bracketed keys and document references.
 */
export function describeSource(source: string, language: Language): string {
  const key = (Object.keys(SOURCE) as (keyof typeof SOURCE)[]).find((k) => source.startsWith(SOURCE[k]));
  if (key === undefined) return source.replace(/\[[A-Z0-9-]+\] ?/g, '').replace(/ ?\((?:research|docs)\/[^()]*\)/g, '');
  const uplift = source.slice(SOURCE[key].length).includes('uplift') ? `${language === 'ar' ? '؛' : ';'} ${UPLIFT_WORDS[language]}` : '';
  return `${SOURCE_WORDS[key][language]}${uplift}`;
}

/** [city, district | null, median, q1, q3, sample size] */
type Figures = readonly [string, string | null, number, number | null, number | null, number | null];

interface Block {
  kind: ReferenceKind;
  transaction: Transaction;
  as_of: string;
  source: string;
  indicative?: boolean;
  rows: readonly Figures[];
}

const BLOCKS: readonly Block[] = [
  {
    kind: 'apartment',
    transaction: 'sale',
    as_of: '2024-12',
    source: SOURCE.cities2024,
    rows: [
      ['Rabat', null, 15678, 12931, 20370, 101],
      ['Casablanca', null, 12235, 10000, 15496, 1154],
      ['Dar Bouazza', null, 11988, 9848, 15208, 35],
      ['Sidi Rahal', null, 11647, 7512, 13642, 23],
      ['El Mansouria', null, 11020, 10795, 12658, 9],
      ['Témara', null, 10846, 9089, 13329, 102],
      ['Agadir', null, 10053, 8795, 12500, 68],
      ['Marrakech', null, 10000, 7660, 14290, 201],
      ['Mohammedia', null, 10000, 8436, 13089, 88],
      ['Tanger', null, 9868, 8016, 12254, 155],
      ['Bouskoura', null, 9387, 7450, 9880, 40],
      ['Asilah', null, 8978, 7393, 11879, 10],
      ['Salé', null, 8929, 7667, 10552, 86],
      ['Tétouan', null, 8553, 6397, 10056, 27],
      ['Martil', null, 8372, 7407, 9000, 37],
      ['Saïdia', null, 7733, 7427, 8198, 8],
      ['Bouznika', null, 7538, 6786, 9844, 21],
      ['Kénitra', null, 7312, 6297, 8695, 151],
      ['El Jadida', null, 6316, 5323, 7179, 37],
      ['Béni Mellal', null, 5882, 4815, 6542, 7],
      ['Berrechid', null, 5750, 4500, 6333, 9],
      ['Meknès', null, 5598, 4675, 7070, 40],
      ['Fès', null, 5385, 4607, 6890, 39],
      ['Had Soualem', null, 5091, 4681, 6452, 17],
      ['Oujda', null, 4700, 4275, 5205, 47],
    ],
  },
  {
    kind: 'apartment',
    transaction: 'sale',
    as_of: '2024-12',
    source: SOURCE.districts2024,
    rows: [
      ['Casablanca', 'CFC', 23494, 19766, 25528, 19],
      ['Casablanca', 'Racine', 19444, 16552, 21739, 25],
      ['Casablanca', 'Aïn Diab', 20143, 13748, 29968, 6],
      ['Casablanca', 'Oasis', 19032, 13548, 20000, 13],
      ['Casablanca', 'Ferme Bretonne', 18750, 17800, 21300, 19],
      ['Casablanca', "Triangle d'Or", 17124, 14845, 20417, 16],
      ['Casablanca', 'Maârif', 16892, 13964, 20559, 63],
      ['Casablanca', 'Gauthier', 16022, 14867, 18376, 30],
      ['Casablanca', 'Palmier', 15306, 14800, 22900, 21],
      ['Casablanca', 'Les Princesses', 15426, 13457, 18875, 39],
      ['Casablanca', 'Californie', 15051, 13454, 16329, 27],
      ['Casablanca', 'Maârif Extension', 14384, 12285, 16346, 30],
      ['Casablanca', 'Beauséjour', 14327, 12002, 15396, 19],
      ['Casablanca', 'Mandarouna', 14083, 12500, 15455, 13],
      ['Casablanca', 'Abdelmoumen', 13688, 12143, 15131, 8],
      ['Casablanca', 'Bachkou', 13656, 12902, 16112, 12],
      ['Casablanca', 'Bourgogne', 13636, 11100, 17600, 75],
      ['Casablanca', 'Val Fleury', 13636, 11500, 18000, 34],
      ['Casablanca', 'Hôpitaux', 13253, 12000, 15300, 59],
      ['Casablanca', '2 Mars', 12785, 11146, 13498, 24],
      ['Casablanca', 'Lekrimat', 12447, 11411, 15085, 8],
      ['Casablanca', 'Derb Omar', 12200, 10680, 12586, 11],
      ['Casablanca', 'Mers Sultan', 11957, 10769, 13475, 16],
      ['Casablanca', 'Derb Ghallef', 11735, 11431, 12296, 7],
      ['Casablanca', 'Nassim', 11136, 10682, 11901, 21],
      ['Casablanca', 'Liberté', 11000, 10241, 13303, 9],
      // Two portal labels, 10,333 (n=25) and 11,440 (n=19): their sample-weighted mean.
      ['Casablanca', 'Belvédère', 10811, null, null, 44],
      ['Casablanca', 'Centre-ville', 10441, 8659, 13352, 10],
      ['Casablanca', 'Lissasfa', 10418, 6226, 12255, 9],
      ['Casablanca', 'La Gironde', 10417, 9675, 12139, 27],
      ['Casablanca', 'Aïn Sebaâ', 10246, 8756, 11349, 50],
      ['Casablanca', 'Roches Noires', 10000, 9046, 10661, 16],
      ['Casablanca', 'Sidi Maârouf', 10000, 9172, 10817, 56],
      ['Casablanca', 'Aïn Chock', 9959, 9412, 11984, 10],
      ['Casablanca', 'Nouaceur', 9646, 8866, 10034, 8],
      ['Casablanca', 'Aïn Borja', 9426, 7441, 11041, 11],
      ['Casablanca', 'Hay Mohammadi', 9076, 7845, 10223, 14],
      ['Casablanca', 'Sidi Othmane', 9024, 7119, 9383, 9],
      ['Casablanca', 'Sidi Bernoussi', 8842, 7234, 10692, 20],
      ['Casablanca', 'Hay Hassani', 8404, 8032, 9289, 10],
      ['Casablanca', 'Oulfa', 8036, 6296, 9821, 59],
      ['Casablanca', 'Sidi Moumen', 6528, 5926, 8000, 13],
      ['Casablanca', 'Errahma', 5862, 4782, 7439, 7],
      ['Dar Bouazza', 'Tamaris', 12693, 11825, 15059, 18],
      ['Bouskoura', 'Centre', 9237, 7401, 9766, 28],
      ['Bouskoura', 'Victoria', 8583, 5755, 9549, 8],
      ['Rabat', 'Hay Riad', 21570, 20734, 24381, 18],
      ['Rabat', 'Agdal', 18333, 16279, 18644, 13],
      ['Rabat', 'Hassan', 14583, 12525, 16891, 11],
      ['Rabat', 'Océan', 14272, 13013, 15201, 8],
      ['Rabat', 'Diour Jamaâ', 12824, null, null, 7],
      ['Témara', 'Riad Oulad Mtaa', 16830, null, null, 10],
      ['Témara', 'Harhoura', 16289, null, null, 9],
      ['Témara', 'Wifak', 11303, null, null, 22],
      ['Témara', 'Centre', 9879, null, null, 6],
      ['Salé', 'Tabriquet', 10407, null, null, 18],
      ['Salé', 'Sala Al Jadida', 9213, null, null, 12],
      ['Salé', 'Saïd Hajji', 8510, null, null, 8],
      ['Salé', 'Hay Chmaou', 8044, null, null, 14],
      ['Marrakech', 'Hivernage', 19608, 18560, 30992, 7],
      ['Marrakech', 'Palmeraie', 14400, null, null, 8],
      ['Marrakech', 'Guéliz', 14000, 11321, 17308, 37],
      ['Marrakech', 'Route de Casablanca', 13614, null, null, 17],
      ['Marrakech', 'Hay Izdihar', 10000, null, null, 15],
      ['Marrakech', 'Allal El Fassi', 9421, null, null, 6],
      ['Marrakech', 'Mabrouka', 7187, null, null, 14],
      ['Marrakech', "M'Hamid", 7142, null, null, 14],
      ['Marrakech', 'Azzouzia', 6070, null, null, 8],
      // "centre / centre-ville 15,008–16,034 (n=14+6)": two portal labels, kept apart.
      ['Tanger', 'Centre', 15008, null, null, 14],
      ['Tanger', 'Centre-ville', 16034, null, null, 6],
      ['Tanger', 'Malabata', 12000, null, null, 8],
      ['Tanger', 'Marjane', 11486, null, null, 8],
      ['Tanger', 'Mesnana', 9704, null, null, 6],
      ['Tanger', 'Tanja Balia', 8519, null, null, 27],
      ['Tanger', 'Moujahidine', 8200, null, null, 7],
      ['Tanger', 'Hay Hassani', 7826, null, null, 9],
      ['Tanger', 'Ziatene', 7643, null, null, 8],
      ['Agadir', 'El Houda', 10866, null, null, 6],
      ['Agadir', 'Hay Mohammadi', 10053, null, null, 18],
      ['Agadir', 'Hay Salam', 9236, null, null, 8],
      ['Kénitra', 'Ville Haute', 10000, null, null, 12],
      ['Kénitra', 'Mimosas', 9550, null, null, 18],
      ['Kénitra', 'Maâmora', 8877, null, null, 8],
      ['Kénitra', 'Centre', 8545, null, null, 11],
      ['Kénitra', 'Val Fleury', 7454, null, null, 8],
      ['Kénitra', 'El Haddada', 6900, null, null, 12],
      ['Kénitra', 'Bir Rami', 5333, null, null, 7],
      ['Mohammedia', 'Quartier du Parc', 13514, null, null, 16],
      ['Mohammedia', 'Centre', 8905, null, null, 8],
      ['Mohammedia', 'Wafa', 8571, null, null, 7],
      ['Meknès', 'Hamria', 7105, null, null, 17],
      ['Oujda', 'Centre', 5357, null, null, 10],
      ['Oujda', 'Hay Zitoune', 4432, null, null, 10],
      ['El Jadida', 'Hay Essalam', 6569, null, null, 7],
      ['Sidi Rahal', 'Plage', 13438, null, null, 7],
    ],
  },
  {
    // Districts with no 2024 rows: the research says to fall back on Jan 2022 (docs/analysis.md).
    kind: 'apartment',
    transaction: 'sale',
    as_of: '2022-01',
    source: SOURCE.districts2022,
    rows: [
      ['Casablanca', 'CIL', 15667, null, null, null],
      ['Casablanca', 'Anfa', 13000, null, null, null],
      ['Casablanca', 'Hay Inara', 10000, null, null, null],
      ['Casablanca', 'Al Fida', 9249, null, null, null],
      ['Casablanca', 'Al Qods', 8924, null, null, null],
      ['Casablanca', 'Sbata', 7545, null, null, null],
      ['Casablanca', "Ben M'sick", 7529, null, null, null],
      ['Casablanca', "Route d'Azemmour", 7033, null, null, null],
      ['Casablanca', 'Hay Moulay Rachid', 6757, null, null, null],
      ['Rabat', 'Guich Oudaya', 13750, null, null, null],
      ['Rabat', 'Yacoub El Mansour', 11494, null, null, null],
      ['Marrakech', 'Semlalia', 10000, null, null, null],
      ['Marrakech', 'Aïn Mezouar', 9729, null, null, null],
      ['Marrakech', 'Hay Charaf', 8055, null, null, null],
      ['Tanger', 'Val Fleuri', 9059, null, null, null],
      ['Agadir', 'Haut Founty', 10864, null, null, null],
      ['Fès', 'Centre', 7354, null, null, null],
      ['Fès', 'Agdal', 6332, null, null, null],
      ['Fès', "Route d'Immouzer", 5630, null, null, null],
      ['Fès', 'Route Aïn Chkef', 5321, null, null, null],
      ['Fès', 'Zouagha', 3794, null, null, null],
      ['Salé', 'Mkinssia', 9900, null, null, null],
    ],
  },
  {
    kind: 'apartment',
    transaction: 'sale',
    as_of: '2026-02',
    source: SOURCE.mouldarSale,
    rows: [['Essaouira', null, 13923, null, null, null]],
  },
  {
    kind: 'apartment',
    transaction: 'sale',
    as_of: '2018-05',
    source: SOURCE.rabat2018,
    rows: [['Rabat', 'Souissi', 20606, null, null, null]],
  },
  {
    kind: 'apartment',
    transaction: 'sale',
    as_of: '2018-06',
    source: SOURCE.marrakech2018,
    rows: [['Marrakech', 'Targa', 13787, null, null, null]],
  },
  {
    kind: 'villa',
    transaction: 'sale',
    as_of: '2024-05',
    source: SOURCE.villas2024,
    rows: [
      ['Casablanca', null, 20000, null, null, null],
      ['Casablanca', 'Anfa Supérieur', 30000, null, null, null],
      ['Casablanca', 'CIL', 18000, null, null, null],
      ['Casablanca', 'Aïn Diab', 18000, null, null, null],
      ['Dar Bouazza', null, 16000, null, null, null],
      ['Bouskoura', 'Ville Verte', 12000, null, null, null],
    ],
  },
  {
    kind: 'riad',
    transaction: 'sale',
    as_of: '2024-06',
    source: SOURCE.riads,
    indicative: true,
    // 13,000–18,000 (midpoint 15,500) × 1.35
    rows: [['Marrakech', null, 20925, 17550, 24300, null]],
  },
  {
    kind: 'apartment',
    transaction: 'rent',
    as_of: '2025-07',
    source: SOURCE.rents2025,
    rows: [
      ['Casablanca', null, 114, 86, 143, 558],
      ['Rabat', null, 113, null, null, 52],
      ['Tanger', null, 93, null, null, 60],
      ['Casablanca', 'Palmier', 153, null, null, null],
      ['Casablanca', 'Oasis', 139, null, null, null],
      ['Casablanca', 'Val Fleury', 134, null, null, null],
      ['Casablanca', 'Les Princesses', 127, null, null, null],
      ['Casablanca', 'CFC', 127, null, null, 71],
      ['Casablanca', 'Maârif Extension', 125, null, null, null],
      ['Casablanca', 'Riviera', 122, null, null, null],
      ['Casablanca', 'CIL', 118, null, null, null],
      ['Casablanca', 'Aïn Diab', 117, null, null, null],
      ['Casablanca', 'Ferme Bretonne', 115, null, null, null],
      ['Casablanca', 'Maârif', 113, null, null, null],
      ['Casablanca', 'Hôpitaux', 108, null, null, null],
      ['Casablanca', "Triangle d'Or", 108, null, null, null],
      ['Casablanca', 'Gauthier', 107, null, null, 54],
      ['Casablanca', 'Hermitage', 103, null, null, null],
      ['Casablanca', 'Bourgogne Ouest', 100, null, null, null],
      ['Casablanca', 'Racine', 94, null, null, 61],
      ['Casablanca', 'Bourgogne Est', 88, null, null, null],
      ['Casablanca', 'Anfa', 83, null, null, null],
      ['Casablanca', 'Mers Sultan', 76, null, null, null],
      ['Casablanca', 'Californie', 70, null, null, null],
      ['Casablanca', 'Beauséjour', 68, null, null, null],
      ['Casablanca', 'Oulfa', 65, null, null, null],
      ['Rabat', 'Souissi', 125, null, null, null],
      ['Rabat', 'Hay Riad', 122, null, null, null],
      ['Rabat', 'Agdal', 109, null, null, null],
      ['Tanger', 'Plage', 142, null, null, null],
      ['Tanger', 'Malabata', 111, null, null, null],
      ['Tanger', 'Centre', 97, null, null, null],
      ['Tanger', 'Ibéria', 90, null, null, null],
      ['Tanger', 'Administratif', 71, null, null, null],
    ],
  },
  {
    kind: 'apartment',
    transaction: 'rent',
    as_of: '2026-03',
    source: SOURCE.mouldarRent,
    rows: [['Marrakech', null, 121, null, null, null]],
  },
];

export const MARKET_REFERENCES: readonly MarketReference[] = BLOCKS.flatMap((block) =>
  block.rows.map(([city, district, median, q1, q3, sample_size]) => ({
    city,
    district,
    kind: block.kind,
    transaction: block.transaction,
    median,
    q1,
    q3,
    sample_size,
    as_of: block.as_of,
    source: block.source,
    indicative: block.indicative ?? false,
  })),
);

const indexKey = (transaction: Transaction, kind: ReferenceKind, city: string, district: string): string =>
  `${transaction}|${kind}|${city}|${district}`;

/** (transaction, kind, city key, district key or '') → row. */
const BY_PLACE = new Map<string, MarketReference>();
/** (transaction, kind, metro key, district key) → row: a district of a satellite town named under the big city. */
const BY_METRO_DISTRICT = new Map<string, MarketReference>();
/** (transaction, kind, '', district key) → rows in every city: to place a district given without its city. */
const BY_DISTRICT_ONLY = new Map<string, MarketReference[]>();

for (const row of MARKET_REFERENCES) {
  const city = cityKey(row.city);
  const district = row.district === null ? '' : (districtKeys(row.district)[0] as string);
  const key = indexKey(row.transaction, row.kind, city, district);
  if (BY_PLACE.has(key)) throw new Error(`market reference table: duplicate row ${key}`);
  BY_PLACE.set(key, row);
  if (district === '') continue;
  const metro = METRO_OF[city];
  if (metro !== undefined) {
    const metroKey = indexKey(row.transaction, row.kind, metro, district);
    if (!BY_METRO_DISTRICT.has(metroKey)) BY_METRO_DISTRICT.set(metroKey, row);
  }
  const onlyKey = indexKey(row.transaction, row.kind, '', district);
  BY_DISTRICT_ONLY.set(onlyKey, [...(BY_DISTRICT_ONLY.get(onlyKey) ?? []), row]);
}

export interface ReferenceMatch {
  row: MarketReference;
  /**
   * `district` when the row describes the listing's district, `city` for a city-wide row,
   * `metro_area` when a commune without figures of its own is compared with its metro area's core city.
   */
  level: 'district' | 'city' | 'metro_area';
}

/**
 * The most specific reference for a place: the district row, else the row of a satellite town
 * named as the district ("Dar Bouazza" given under Casablanca), else the city row, else null.
 */
export function findReference(
  city: string | null,
  district: string | null,
  kind: ReferenceKind,
  transaction: Transaction,
): ReferenceMatch | null {
  const cityK = city === null ? null : cityKey(city);
  if (district !== null) {
    const keys = districtKeys(district);
    if (cityK !== null) {
      for (const key of keys) {
        const row = BY_PLACE.get(indexKey(transaction, kind, cityK, key));
        if (row !== undefined) return { row, level: 'district' };
      }
      const metro = METRO_OF[cityK];
      if (metro !== undefined) {
        for (const key of keys) {
          const row = BY_METRO_DISTRICT.get(indexKey(transaction, kind, metro, key));
          if (row !== undefined) return { row, level: 'district' };
        }
      }
    } else {
      for (const key of keys) {
        const rows = BY_DISTRICT_ONLY.get(indexKey(transaction, kind, '', key));
        // Only when the district names one place in the table: "Centre" alone says nothing.
        if (rows !== undefined && rows.length === 1) return { row: rows[0] as MarketReference, level: 'district' };
      }
    }
    const asCity = cityKey(district);
    if (asCity !== cityK) {
      const row = BY_PLACE.get(indexKey(transaction, kind, asCity, ''));
      if (row !== undefined) return { row, level: 'city' };
    }
  }
  if (cityK === null) return null;
  const row = BY_PLACE.get(indexKey(transaction, kind, cityK, ''));
  if (row !== undefined) return { row, level: 'city' };
  // A commune without figures of its own (Tit Mellil, Mehdia): its metro area's core city.
  const metro = METRO_OF[cityK];
  if (metro === undefined || metro === cityK) return null;
  const metroRow = BY_PLACE.get(indexKey(transaction, kind, metro, ''));
  return metroRow === undefined ? null : { row: metroRow, level: 'metro_area' };
}

import { describe, expect, it } from 'vitest';
import { extractFacts } from '../../../../src/analysis/text/extract.js';

const counts = (text: string): { bedrooms: number | null; bathrooms: number | null; toilets: number | null } => {
  const { bedrooms, bathrooms, toilets } = extractFacts(text);
  return { bedrooms, bathrooms, toilets };
};

describe('bathrooms and toilets are counted apart', () => {
  it.each([
    ['Appartement 3 chambres, salle de bain + WC', 1, 1],
    ['Villa 4 ch, 2 sdb 1 WC', 2, 1],
    ['Appartement, 2 salles de bains, toilettes invités', 2, 1],
    ['Flat with 2 bathrooms and a guest toilet', 2, 1],
    ['شقة 3 غرف، حمامين ومرحاض', 2, 1],
    ['chqa 3 bit, 2 hammam w bit lma', 2, 1],
  ])('%s → %s bathroom(s), %s toilet(s)', (text, bathrooms, toilets) => {
    expect(counts(text)).toMatchObject({ bathrooms, toilets });
  });

  it('does not take the WC of a bathroom for a separate toilet', () => {
    expect(counts('Studio meublé : salle de bain avec douche et WC')).toMatchObject({ bathrooms: 1, toilets: null });
  });

  it('reads "a bathroom in each bedroom" as a person would: one per bedroom', () => {
    expect(counts('Appartement 3 chambres avec salle de bain dans chaque chambre')).toMatchObject({ bedrooms: 3, bathrooms: 3 });
    expect(counts("Deux chambres, chacune avec salle d'eau privative, salon")).toMatchObject({ bedrooms: 2, bathrooms: 2 });
  });

  it('gives a suite parentale its own bathroom and the other bedrooms a shared one', () => {
    expect(counts('Appartement 3 chambres dont une suite parentale, cuisine équipée').bathrooms).toBe(2);
    expect(counts('Double salon, chambre des parents avec salle de bain, 2 chambres d’enfants + salle de bain commune').bathrooms).toBe(2);
    // Without other bedrooms the suite's bathroom is the only one.
    expect(counts('Studio : une suite avec salle de bain').bathrooms).toBe(1);
  });

  it('keeps a steam room (hammam marocain, un hammam) out of the bathrooms', () => {
    expect(counts('Villa avec piscine, hammam marocain et sauna, 4 chambres, 3 salles de bain').bathrooms).toBe(3);
    expect(counts('Riad avec 1 hammam traditionnel, 5 chambres').bathrooms).toBeNull();
    expect(counts('Villa avec un hammam, 4 chambres').bathrooms).toBeNull();
  });
});

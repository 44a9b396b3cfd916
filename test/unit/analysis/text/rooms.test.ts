import { describe, expect, it } from 'vitest';
import { extractFacts } from '../../../../src/analysis/text/extract.js';

const counts = (text: string): { rooms: number | null; bedrooms: number | null; bathrooms: number | null } => {
  const { rooms, bedrooms, bathrooms } = extractFacts(text);
  return { rooms, bedrooms, bathrooms };
};

describe('rooms, bedrooms and bathrooms', () => {
  it.each([
    ['Appartement 3 chambres, 2 salles de bain', 3, 2],
    ['Bel Appart 3ch standing, 2sdb', 3, 2],
    ['composé de deux chambres, salon, cuisine, une salle de bain', 2, 1],
    ['Villa 4 belles chambres, 5 salles de bains', 4, 5],
    ['Flat with 3 bedrooms and 2 baths', 3, 2],
    ['شقة 3 غرف نوم و حمامين', 3, 2],
    ['2بيوت صالون مطبخ حمام دوش بالكون', 2, 1],
    ['مكونة من غرفتين و صالون', 2, null],
    ['chqa fiha jouj byout w salon w kouzina w 7mam', 2, 1],
    ['Nombre de chambres : 3 - Nombre de salles de bain : 2', 3, 2],
  ])('reads %s', (text, bedrooms, bathrooms) => {
    const result = counts(text);
    expect(result.bedrooms).toBe(bedrooms);
    expect(result.bathrooms).toBe(bathrooms);
  });

  it('counts total rooms apart from bedrooms (pièces, F4/T4)', () => {
    expect(counts('Appartement 4 pièces dont 3 chambres')).toMatchObject({ rooms: 4, bedrooms: 3 });
    expect(counts('DERNIER ETAGE F4 177 m²').rooms).toBe(4);
    expect(counts('Il se compose d’une vaste pièce de réception et une pièce à vivre').rooms).toBeNull();
  });

  it('reads English "rooms" as bedrooms beside "pieces" (Mubawab EN)', () => {
    expect(counts('6 Pieces, 3 Rooms, 2 Bathrooms')).toEqual({ rooms: 6, bedrooms: 3, bathrooms: 2 });
    expect(counts('Apartment, 4 rooms, 2 bathrooms')).toMatchObject({ rooms: 4, bedrooms: null });
  });

  it('adds a master suite to the other bedrooms', () => {
    expect(counts('une suite parentale et deux chambres à coucher').bedrooms).toBe(3);
    expect(counts('99 m² : 2 chambres + 1 chambre parentale + salon').bedrooms).toBe(3);
    expect(counts('Suite parentale avec dressing, 2 chambres enfants avec accès à la terrasse').bedrooms).toBe(3);
    expect(counts('3 chambres dont une suite parentale').bedrooms).toBe(3);
    expect(counts('suite parentale avec salle de bain, dressing. 2 autres chambres').bedrooms).toBe(3);
  });

  it('leaves staff rooms out and programmes with several layouts unsaid', () => {
    expect(counts('3 chambres, 1 chambre de bonne').bedrooms).toBe(3);
    expect(counts('Des appartements de 2 et 3 chambres').bedrooms).toBeNull();
    expect(counts('3 chambres / 2 chambres, ascenseur').bedrooms).toBeNull();
  });

  it('counts shower rooms as bathrooms, not toilets nor the French hammam', () => {
    expect(counts('2 salles de bains + 1 salle d’eau, WC invités').bathrooms).toBe(3);
    expect(counts('une salle de bain et une deuxième salle de bain').bathrooms).toBe(2);
    expect(counts('Résidence avec hammam et salle de sport').bathrooms).toBeNull();
    expect(counts('toilettes invités').bathrooms).toBeNull();
  });
});

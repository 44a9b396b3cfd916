import { describe, expect, it } from 'vitest';
import { extractFacts } from '../../../../src/analysis/text/extract.js';

const floor = (text: string): number | null => extractFacts(text).floor;

describe('floor', () => {
  it.each([
    ['Appartement au 1er étage', 1],
    ['situé au 5ème et dernier étage', 5],
    ['au 2 éme étage', 2],
    ['Appartement 4ᵉ étage avec ascenseur', 4],
    ['Étage : 6', 6],
    ['Studio meublé, ETG1, balcon', 1],
    ['appartement au troisième étage', 3],
    ['Flat on the 3rd floor', 3],
    ['Appartement RDC avec jardin', 0],
    ['appartement au rez-de-chaussée', 0],
    ['شقة في الطابق الثالث', 3],
    ['شقة في الطابق 4', 4],
    ['شقة سفلية', 0],
  ])('reads %s', (text, expected) => {
    expect(floor(text)).toBe(expected);
  });

  it("does not take the building's height for the floor", () => {
    expect(floor('Appartement dans un immeuble de 5 étages')).toBeNull();
    expect(floor('Appartement au dernier étage, immeuble R+4')).toBeNull();
    expect(floor('au 2ème étage d’un immeuble de 5 étages')).toBe(2);
  });

  it('gives no floor to a villa, whose levels are not floors', () => {
    expect(floor('Villa à vendre. Rez-de-Chaussée : réception. A l’étage : 3 chambres')).toBeNull();
  });
});

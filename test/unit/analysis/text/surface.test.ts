import { describe, expect, it } from 'vitest';
import { extractFacts } from '../../../../src/analysis/text/extract.js';

const surfaces = (text: string): [number | null, number | null] => {
  const facts = extractFacts(text);
  return [facts.surface_m2, facts.surface_total_m2];
};

describe('surface_m2 and surface_total_m2', () => {
  it.each([
    ['Appartement de 120 m² à Maarif', 120],
    ['Superficie : 90 m2', 90],
    ['appartement 103 m 2 a vendre', 103],
    ['Appartement 126m Haut Standing', 126],
    ['Studio 45M² meublé', 45],
    ['Flat of 120 sqm in Gauthier', 120],
    ['شقة مساحتها 82 متر مربع', 82],
    ['شقة 97 متر', 97],
    ['Appartement de 66 mètre carré', 66],
    ['Appartement à Louer de 57.0 m²', 57],
  ])('reads %s', (text, expected) => {
    expect(surfaces(text)[0]).toBe(expected);
  });

  it('tells living from total surfaces', () => {
    expect(surfaces('Appartement 100 m² (80 m² habitables)')).toEqual([80, 100]);
    expect(surfaces('Bel appartement ensoleillé de 105 m2 (78 m2 de surface habitable)')).toEqual([78, 105]);
    expect(surfaces('Villa de 700m² habitable sur 3 niveaux. Et 522m² de terrain')).toEqual([700, 522]);
    expect(surfaces('villa de 250m2 de terrain et 400m2 de construit sur 3 niveaux')).toEqual([400, 250]);
    expect(surfaces('Superficie totale du terrain : 4000 mètres Superficie de la maison : 130 mètres')).toEqual([130, 4000]);
  });

  it('adds terraces stated on top of the living surface to the total, not those included in it', () => {
    expect(surfaces('appartement 45 m2 int et 17 m2 de terrasse')).toEqual([45, 62]);
    expect(surfaces('Un très bel appartement (98 m2 14 m2 de terrasse), deux chambres')).toEqual([98, 112]);
    expect(surfaces('Superficies : 46m2 habitable, 41m2 pour deux terrasses et 25m2 pour 2 places de parking')).toEqual([46, 87]);
    expect(surfaces('68 m² dont 6 m² de terrasse, au 1er étage')).toEqual([68, null]);
  });

  it('gives land a plot surface only', () => {
    expect(surfaces('Terrain de 300 m² à vendre à Bouskoura')).toEqual([null, 300]);
    expect(surfaces('Ferme de 5 hectares à vendre')).toEqual([null, 50_000]);
    expect(surfaces('Trois hectares carrés, terrain agricole')).toEqual([null, 30_000]);
  });

  it('ignores terraces, gardens, parking spaces and distances', () => {
    expect(surfaces('Appartement de 82m dont 12 de terrasse. Un salon avec terrasse de 12m.')[0]).toBe(82);
    expect(surfaces('Superficies : 46m2 habitable, 41m2 pour deux terrasses et 25m2 pour 2 places de parking')[0]).toBe(46);
    expect(surfaces('Appartement à 20 m de la plage')).toEqual([null, null]);
    expect(surfaces('plage à 900 mètres, commerces à moins de 50 mètres')).toEqual([null, null]);
    expect(surfaces('Entrepôt 1 500 m², hauteur sous plafond : 8 mètres')[0]).toBe(1500);
  });

  it('takes the lower end of a programme range', () => {
    expect(surfaces('Des appartements de 68 à 122 m²')[0]).toBe(68);
    expect(surfaces('superficies qui varient entre 74m² et 96m²')[0]).toBe(74);
  });

  it('does not read a building height as part of a surface', () => {
    expect(surfaces('Magnifique terrain R/3 150m2 a BIR RAMI')).toEqual([null, 150]);
  });
});

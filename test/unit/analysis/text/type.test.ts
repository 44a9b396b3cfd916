import { describe, expect, it } from 'vitest';
import { extractFacts } from '../../../../src/analysis/text/extract.js';

const type = (text: string): string | null => extractFacts(text).property_type;

describe('property_type', () => {
  it.each([
    ['Appartement à vendre à Maarif', 'apartment'],
    ['Appt 3ch Gauthier', 'apartment'],
    ['Flat for rent in Rabat', 'apartment'],
    ['شقة للبيع في طنجة', 'apartment'],
    ['برطمة للكرا فكازا', 'apartment'],
    ['Studio meublé Riviera', 'studio'],
    ['Appartement duplex 200 m² avec terrasse', 'duplex'],
    ['Penthouse meublé neuf en location', 'penthouse'],
    ['Villa de luxe à vendre à Bouskoura', 'villa'],
    ['فيلا للبيع', 'villa'],
    ['Riad à vendre dans la médina', 'riad'],
    ['Maison à louer Oujda', 'house'],
    ['دار للبيع فمراكش', 'house'],
    ['Terrain villa à vendre', 'land'],
    ['Un lot de villa à céder', 'land'],
    ['بقعة أرضية للبيع', 'land'],
    ['Trois hectares, bonne affaire', 'land'],
    ['Ferme à vendre région Meknès', 'farm'],
    ['Plateaux bureaux à louer', 'office'],
    ['Bureau luxe équipé à louer', 'office'],
    ['Magasin à louer bd Ghandi', 'commercial'],
    ['Local commercial à vendre', 'commercial'],
    ['Entrepôt de stockage à louer', 'commercial'],
    ['محل تجاري للكراء', 'commercial'],
    ['Immeuble R+4 à vendre', 'building'],
  ])('reads %s', (text, expected) => {
    expect(type(text)).toBe(expected);
  });

  it('uses the description when the title names no type', () => {
    expect(type('Petit bijou\nAppartement moderne de 58 m2')).toBe('apartment');
    expect(type('Exceptionnel…\nSuperbe villa à louer au cœur d’Anfa')).toBe('villa');
  });

  it('does not take the surroundings or a place name for the type', () => {
    expect(type("Coup de coeur\nau 2ème étage d'un immeuble sécurisé, proche de plateaux de bureau")).toBeNull();
    expect(type('Bien à Hay Riad\nrésidence fermée, terrain de foot')).toBeNull();
    expect(type('Bien à vendre\nquartier Ferme Bretonne, près de la Résidence Riad Salam')).toBeNull();
    expect(type('Bien à vendre à Dar Bouazza\nprès de la gare')).toBeNull();
    expect(type('شقة بالدار البيضاء')).toBe('apartment');
  });
});

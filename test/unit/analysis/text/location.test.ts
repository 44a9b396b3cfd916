import { describe, expect, it } from 'vitest';
import { extractFacts } from '../../../../src/analysis/text/extract.js';

const place = (text: string): { city: string | null; district: string | null } => {
  const { city, district } = extractFacts(text);
  return { city, district };
};

describe('city and district', () => {
  it.each([
    ['Appartement à vendre à Maârif, Casablanca', 'Casablanca', 'Maârif'],
    ['Appartement à vendre à Maarif', 'Casablanca', 'Maârif'],
    ['Studio meublé à louer, Gueliz Marrakech', 'Marrakech', 'Guéliz'],
    ['Appartement à louer à Hay Riad - 118 m²', 'Rabat', 'Hay Riad'],
    ['شقة للبيع بالدار البيضاء عين السبع', 'Casablanca', 'Aïn Sebaâ'],
    ['شقة للكراء في أكادير حي السلام', 'Agadir', 'Hay Salam'],
    ['chqa lkra f casa 2mars', 'Casablanca', '2 Mars'],
    ['Villa for rent in Marrakesh, Palmeraie', 'Marrakech', 'Palmeraie'],
    ['Appartement Tanger Malabata vue sur mer', 'Tanger', 'Malabata'],
    ['Appartement à vendre à Salé Tabriquet', 'Salé', 'Tabriquet'],
    ['Local industriel à Aïn Sbaa à Casablanta', 'Casablanca', 'Aïn Sebaâ'],
    ['Appartement en plein centre ville de Kénitra', 'Kénitra', 'Centre Ville'],
  ])('reads %s', (text, city, district) => {
    expect(place(text)).toEqual({ city, district });
  });

  it('does not pick a city from a district found in several cities', () => {
    expect(place('Appartement à louer à l’Agdal')).toEqual({ city: null, district: 'Agdal' });
  });

  it('does not take streets, distances or roads for the place', () => {
    expect(place('Appartement à vendre\nEn plein cœur de l’avenue Khouribga').city).toBeNull();
    expect(place('Terrain agricole\n8000 mètres, à 33 km d’El Jadida et à environ 95 km de Casablanca').city).toBe('El Jadida');
    expect(place('Appartement Sidi Bernoussi\nAccès direct à l’autoroute Casablanca –Rabat').city).toBe('Casablanca');
    expect(place('Terrain à Marrakech\nAppartement Terrasse Boulevard d’Anfa')).toEqual({ city: 'Marrakech', district: null });
  });

  it('does not read common words as places', () => {
    expect(place('Appartement neuf\nUne oasis de calme, salle à manger, bordé de palmiers')).toEqual({ city: null, district: null });
    expect(place('Apartment for sale, 3 bedrooms').city).toBeNull();
  });

  it('weighs the title above the description', () => {
    expect(place('Appartement à vendre à Rabat\nà 10 min de Casablanca en train').city).toBe('Rabat');
  });
});

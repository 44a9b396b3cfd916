import { describe, expect, it } from 'vitest';
import { extractFacts } from '../../../../src/analysis/text/extract.js';

const transaction = (text: string): string | null => extractFacts(text).transaction;

describe('transaction', () => {
  it.each([
    ['Appartement à vendre à Maarif', 'sale'],
    ['Vente appartement neuf', 'sale'],
    ['Je vends mon appartement', 'sale'],
    ['Villa for sale in Marrakech', 'sale'],
    ['شقة للبيع', 'sale'],
    ['chqa lbi3 f casa', 'sale'],
    ['Trouvez votre maison à acheter à Asilah', 'sale'],
    ['Appartement à louer aux Princesses', 'rent'],
    ['Location appartement meublé', 'rent'],
    ['Louez cet appartement à Samlalia', 'rent'],
    ['Flat to rent, 6000 MAD per month', 'rent'],
    ['شقة للكراء', 'rent'],
    ['dar lkra f tanja', 'rent'],
    ['Appartement meublé 6300 Dh par mois', 'rent'],
  ])('reads %s', (text, expected) => {
    expect(transaction(text)).toBe(expected);
  });

  it('reads a sale from a price no rent reaches, never from nothing', () => {
    expect(transaction('Appartement 126m Haut Standing\nAvec bon prix 160 million')).toBe('sale');
    expect(transaction('Appartement 126m Haut Standing, 3 chambres')).toBeNull();
  });

  it('does not take an investment argument for a rental', () => {
    expect(transaction('Studio à vendre, facile à louer, idéal investissement locatif')).toBe('sale');
    expect(transaction('Appartement à vendre, déjà loué, rentabilité 7 %')).toBe('sale');
    expect(transaction('Appartement idéal en location, cet appartement est à louer')).toBe('rent');
  });

  it('does not read "for sale" as the city of Salé, nor "location" as a rental in English', () => {
    expect(extractFacts('Apartment for sale in Tangier').city).toBe('Tanger');
    expect(transaction('Villa for sale, great location, near the beach')).toBe('sale');
  });
});

import { describe, expect, it } from 'vitest';
import { DEFAULT_EUR_TO_MAD, extractFacts } from '../../../../src/analysis/text/extract.js';

const price = (text: string): number | null => extractFacts(text).price_mad;

describe('price_mad', () => {
  it.each([
    ['Appartement à vendre, prix : 1 950 000 DH', 1_950_000],
    ['Appartement 1.950.000 Dhs Maarif', 1_950_000],
    ['Flat for sale, price 1,650,000 MAD', 1_650_000],
    ['Prix sacrifié :1.950.000 dh', 1_950_000],
    ['Prix de la vente : 1500 000 DH.', 1_500_000],
    ['Prix : 1 340 000 DHVoir plus', 1_340_000],
    ['شقة للبيع 650000 درهم', 650_000],
    ['شقة للبيع ٦٥٠٠٠٠ درهم', 650_000],
    ['Villa à vendre 2,8 MDH', 2_800_000],
    ['Appartement 1.7mdh Gauthier', 1_700_000],
    ['Villa 2,995 MDH à Bouskoura', 2_995_000],
    ['Terrain 2 millions de dirhams', 2_000_000],
    ['Appartement à vendre 4.2 million', 4_200_000],
    ['Studio 750k dh', 750_000],
    ['Studio 650 mille dh', 650_000],
    ['شقة 500 ألف درهم', 500_000],
    ['Prix : 1 340 000', 1_340_000],
    ['Appt à vendre à Salé 480.000', 480_000],
  ])('reads %s', (text, expected) => {
    expect(price(text)).toBe(expected);
  });

  it.each([
    ['Appartement à vendre 75 millions', 750_000],
    ['appartements a vendre 30 million Oujda', 300_000],
    ['Prix : 67 millions de centimes', 670_000],
    ['شقة بالجديدة للبيع 120 مليون سنتيم', 1_200_000],
    ['ثمن البيع 44 مليون سنتيم', 440_000],
    ['appart 2 chambres b 32millions', 320_000],
    ['tman 17 mlyon', 170_000],
    ['Magasin taman 195 malion', 1_950_000],
    ['Appartement 46 mlion neuf syndic ascenseur', 460_000],
    ['فيلا 1 مليار سنتيم', 10_000_000],
  ])('applies the centimes rule to %s', (text, expected) => {
    expect(price(text)).toBe(expected);
  });

  it('reads a monthly rent', () => {
    expect(price('Appartement à louer, loyer 12 000 DH/mois, caution 2 mois')).toBe(12_000);
    expect(price('Studio meublé 6300 Dh par mois')).toBe(6_300);
    expect(price('Loyer 17000Dh  Caution 1 mois de loyer')).toBe(17_000);
    expect(price('شقة للكراء 3500 درهم شهريا')).toBe(3_500);
  });

  it('adds the charges stated on top of a rent, as the portals file the monthly amount', () => {
    expect(price('Studio meublé à louer : 7500 Dh plus 500 Dh frais de syndic, 1 mois de caution')).toBe(8_000);
    expect(price('Appartement à louer 6 000 DH + 400 DH de charges, Maarif')).toBe(6_400);
    // Not charges: another figure, or a sale.
    expect(price('Appartement à louer 6 000 DH et 3 chambres')).toBe(6_000);
    expect(price('Villa à vendre 2 500 000 DH plus 100 000 DH de frais de notaire')).toBe(2_500_000);
  });

  it('keeps fees, deposits, aid and per-unit prices out of the price', () => {
    expect(price('Bureaux à louer. 4200dh 300dh syndic')).toBe(4_200);
    expect(price('Frais de syndic: 300 DH. Appartement à vendre 900 000 DH')).toBe(900_000);
    expect(price('le tout à 7200 dh m² au lieu de 8200dh/m²')).toBeNull();
    expect(price('Prix de location : 45 DH HT / m²')).toBeNull();
    expect(price('prix très bon marché de 26 millions par hectare')).toBeNull();
    expect(price('تتوفر على 10 مليون دعم')).toBeNull();
    expect(price('Location saisonnière, 500 dh la nuit')).toBeNull();
  });

  it('never reads a phone number, a year or a surface as a price', () => {
    expect(price('Appartement 3 pièces 75m², construit en 2015. Tél 0661234567, WhatsApp +212 6 61 23 45 67')).toBeNull();
    expect(price('CONTACT WHATSAPP 212 662 17 05 08')).toBeNull();
    expect(price('Superficie 1500 m², 3 chambres')).toBeNull();
  });

  it('says nothing when the price is on request', () => {
    expect(price('Prix à consulter. Villa à vendre Anfa')).toBeNull();
    expect(price('Price on request — villa in Marrakech')).toBeNull();
  });

  it('prefers the labelled price and, between furnished and empty, the lower one', () => {
    expect(price('Appartement 1 200 000 DH à Casablanca. Prix: 1 350 000 DH')).toBe(1_350_000);
    expect(price('location meublé 13000 dirhams et vide 11 000 dh')).toBe(11_000);
    expect(price('Penthouse à louer. Vide 35000dh Meublé 39000dh')).toBe(35_000);
  });

  it('does not take the current rent of a let flat for its sale price', () => {
    expect(price('Appartement à vendre, actuellement loué 5 000 DH/mois. Prix 1 100 000 DH')).toBe(1_100_000);
  });

  it('converts euros at the default rate and keeps the original amount', () => {
    const facts = extractFacts('Appartement à vendre. Prix 90 000 €');
    expect(facts.price_mad).toBe(Math.round(90_000 * DEFAULT_EUR_TO_MAD));
    expect(facts.price_original).toEqual({ amount: 90_000, currency: 'EUR' });
    expect(extractFacts('Prix 560 000 EUR', { eurToMad: 11 }).price_mad).toBe(6_160_000);
    expect(extractFacts('Prix 560 000 DH').price_original).toBeNull();
  });
});

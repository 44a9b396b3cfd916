import { describe, expect, it } from 'vitest';
import { extractFacts } from '../../../../src/analysis/text/extract.js';

const features = (text: string): string[] => extractFacts(text).feature_keys;

describe('feature_keys', () => {
  it('reads amenities in French, English, Arabic and Darija', () => {
    expect(features('Résidence sécurisée avec piscine, ascenseur, parking, climatisation, cuisine équipée')).toEqual([
      'pool',
      'elevator',
      'parking',
      'air_conditioning',
      'equipped_kitchen',
      'security',
    ]);
    expect(features('Furnished flat with balcony, lift, garage and sea view')).toEqual([
      'balcony',
      'elevator',
      'garage',
      'furnished',
      'sea_view',
    ]);
    expect(features('شقة مفروشة مع مصعد ومسبح وحديقة')).toEqual(['pool', 'garden', 'elevator', 'furnished']);
    expect(features('chqa mfarcha fiha asanseur w sta7')).toEqual(['terrace', 'elevator', 'furnished']);
  });

  it('does not count negated amenities', () => {
    expect(features('1er étage sans ascenseur, pas de parking, non meublé')).toEqual([]);
    expect(features('Flat without elevator')).toEqual([]);
    expect(features('شقة بدون مصعد')).toEqual([]);
    expect(features('Ascenseur : non. Terrasse : oui')).toEqual(['terrace']);
    expect(features('pas loin du tram')).toEqual(['near_tram']);
  });

  it('keeps proximity features to stated proximity', () => {
    expect(features('À 2 min de la plage, proche des écoles et du tramway')).toEqual(['near_beach', 'near_tram', 'near_schools']);
    expect(features('Appartement avec vue sur mer')).toEqual(['sea_view']);
    expect(features("L'école Lyautey a été fondée en 1912")).toEqual([]);
  });

  it('reads legal and build status carefully', () => {
    expect(features('Appartement neuf, titre foncier')).toEqual(['title_deed', 'new_build']);
    expect(features('Appartement refait à neuf, état neuf')).toEqual([]);
    expect(features('place de parking titrée')).toEqual(['parking']);
    expect(features('شقة محفظة جديدة')).toEqual(['title_deed', 'new_build']);
  });

  it('reads the Moroccan-home amenities of the portals', () => {
    expect(features('Salon marocain, double vitrage, porte blindée, cheminée, chambre de rangement')).toEqual([
      'moroccan_lounge',
      'double_glazing',
      'armored_door',
      'storage',
      'fireplace',
    ]);
    expect(features('Résidence fermée, gardien, vue sur les montagnes, chauffage central, duplex')).toEqual([
      'heating',
      'concierge',
      'gated_community',
      'mountain_view',
      'duplex',
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { nameKey, normalizeDigits, normalizeText, tokenize } from '../../../../src/analysis/text/normalize.js';

describe('normalizeText', () => {
  it('turns Arabic-Indic and Persian digits into ASCII digits', () => {
    expect(normalizeDigits('١٢٠ مليون و ۴۵۰')).toBe('120 مليون و 450');
    expect(normalizeText('شقة ٣ غرف')).toContain('3 غرف');
  });

  it('makes every space-like separator a plain space, keeping line breaks', () => {
    expect(normalizeText('1\u00a0950\u202f000 DH\nPrix')).toBe('1 950 000 dh\nprix');
    expect(normalizeText('a\u2009b\t\tc')).toBe('a b c');
  });

  it('drops accents and case, and folds m² and 5ᵉ', () => {
    expect(normalizeText('Maârif, 120 M² au 5ᵉ ÉTAGE')).toBe('maarif, 120 m2 au 5e etage');
  });

  it('unifies Arabic letter variants and presentation forms', () => {
    expect(normalizeText('شقّة مُفروشة')).toBe('شقه مفروشه');
    expect(normalizeText('أكادير إفران')).toBe('اكادير افران');
    expect(normalizeText('ﻣﺪﻳﻨﺔ')).toBe('مدينه');
    expect(normalizeText('کراء یا')).toBe('كراء يا');
  });

  it("removes Avito's glued 'Voir plus' at the end of a cut description", () => {
    expect(normalizeText('Prix 1 340 000 DHVoir plus')).toBe('prix 1 340 000 dh');
  });
});

describe('nameKey and tokenize', () => {
  it('is tolerant of accents, doubled letters, apostrophes and glued digits', () => {
    expect(nameKey('Maârif')).toBe(nameKey('Maarif'));
    expect(nameKey('Guéliz')).toBe(nameKey('GUELIZ'));
    expect(nameKey('Assilah')).toBe(nameKey('Asilah'));
    expect(nameKey('2Mars')).toBe('2 mars');
    expect(nameKey("Triangle d'Or")).toBe('triangle d or');
  });

  it('splits letters from digits and keeps word offsets in the normalised text', () => {
    const text = normalizeText('Appt tamaris2, Casa');
    const tokens = tokenize(text);
    expect(tokens.map((t) => t.key)).toEqual(['apt', 'tamaris', '2', 'casa']);
    const casa = tokens[3];
    expect(casa && text.slice(casa.start, casa.end)).toBe('casa');
  });
});

import { describe, expect, it } from 'vitest';
import { csvRecords, toCsv } from '../../../web/src/csv.js';
import { chooseLanguage, missingKeys } from '../../../web/src/i18n.js';

describe('studio page languages', () => {
  it('has every text in French, English and Arabic', () => {
    expect(missingKeys()).toEqual([]);
  });

  it('takes ?lang= first, then the browser languages, then French', () => {
    expect(chooseLanguage('?lang=ar', ['en-US'])).toBe('ar');
    expect(chooseLanguage('?lang=de', ['en-GB', 'fr'])).toBe('en');
    expect(chooseLanguage('', ['de-DE', 'ar-MA'])).toBe('ar');
    expect(chooseLanguage('', ['de-DE'])).toBe('fr');
  });
});

describe('studio page CSV', () => {
  it('reads quoted fields, commas, newlines and a BOM like the CLI', () => {
    const text = '\uFEFFid,description,photos\r\na1,"Villa, piscine ""vue mer""\nà Tanger",asset:x|asset:y\n\na2,Studio,\n';
    const { columns, records } = csvRecords(text);
    expect(columns).toEqual(['id', 'description', 'photos']);
    expect(records).toEqual([
      { id: 'a1', description: 'Villa, piscine "vue mer"\nà Tanger', photos: 'asset:x|asset:y' },
      { id: 'a2', description: 'Studio', photos: '' },
    ]);
  });

  it('writes failed rows that read back unchanged', () => {
    const rows = [
      { id: 'a1', description: 'Villa, "vue"\nmer', error_code: 'BAD_REQUEST', error_message: 'language — must be fr, en or ar' },
    ];
    const columns = ['id', 'description', 'error_code', 'error_message'];
    expect(csvRecords(toCsv(columns, rows)).records).toEqual(rows);
  });

  it('names an unclosed quote', () => {
    expect(() => csvRecords('id,description\na1,"open')).toThrow(/quoted field is not closed/);
  });
});

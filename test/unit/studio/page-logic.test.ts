import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatNumber as cardNumber } from '../../../src/analysis/labels.js';
import { csvRecords, csvText, toCsv } from '../../../web/src/csv.js';
import {
  chooseLanguage,
  formatDate,
  formatAmount,
  formatNumber,
  formatPlace,
  isolateNumbers,
  formatSource,
  missingKeys,
  PAGE_LANGUAGES,
  setLanguage,
} from '../../../web/src/i18n.js';
import { MAX_METADATA_BYTES } from '../../../src/core/limits.js';
import { markerPosition, requestPhoto } from '../../../web/src/views/focus.js';
import { studioMetadata } from '../../../web/src/views/new-video.js';

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

  it('writes failed rows for French Excel: semicolons and a byte order mark, read back unchanged', () => {
    const rows = [{ id: 'a1', description: 'Villa; "vue"', error_code: 'BAD_REQUEST', error_message: '=1+1' }];
    const csv = toCsv(['id', 'description', 'error_code', 'error_message'], rows, ';');
    expect(csv.startsWith('\ufeffid;description;error_code;error_message\r\n')).toBe(true);
    expect(csv).toContain("'=1+1");
    expect(csvRecords(csvText(new TextEncoder().encode(csv))).records).toEqual(rows);
  });

  it('names an unclosed quote', () => {
    expect(() => csvRecords('id,description\na1,"open')).toThrow(/Quote Not Closed/);
  });

  it('reads a French Excel file: semicolons, Windows-1252, header names as the CLI normalises them', () => {
    const text = 'id;Description;Agency Name;duration_s\r\nv1;"Villa à Tanger; piscine";Agence Été;20\r\nv2;Studio, Agdal;;\r\n';
    const bytes = Uint8Array.from([...text].map((c) => c.charCodeAt(0)));
    expect(bytes.some((b) => b > 0x7f)).toBe(true);
    const { columns, records } = csvRecords(csvText(bytes));
    expect(columns).toEqual(['id', 'description', 'agency_name', 'duration_s']);
    expect(records).toEqual([
      { id: 'v1', description: 'Villa à Tanger; piscine', agency_name: 'Agence Été', duration_s: '20' },
      { id: 'v2', description: 'Studio, Agdal', agency_name: '', duration_s: '' },
    ]);
  });

  it('reads tab-separated text the same way', () => {
    expect(csvRecords('id\tdescription\nt1\tRiad, Marrakech\n').records).toEqual([{ id: 't1', description: 'Riad, Marrakech' }]);
  });
});

describe('studio page formats', () => {
  it('writes numbers as the video cards do, one format per language, isolated and unbreakable', () => {
    const shown = PAGE_LANGUAGES.map((lang) => {
      setLanguage(lang);
      return formatNumber(1_850_000);
    });
    setLanguage('fr');
    expect(shown).toEqual(['\u20661\u202f850\u202f000\u2069', '\u20661,850,000\u2069', '\u20661\u202f850\u202f000\u2069']);
    expect(formatNumber(2.35, 1)).toBe('\u20662,4\u2069');
    expect(formatAmount(120, 'm²')).toBe('\u2066120\u2069\u00a0m²');
  });

  it('has the digits and groups of the video cards for any number (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), fc.constantFrom(...PAGE_LANGUAGES), (value, lang) => {
        setLanguage(lang);
        const page = formatNumber(value)
          .replace(/[\u2066\u2069]/g, '')
          .replace(/\u202f/g, ' ')
          .replace('\u2212', '-');
        expect(page).toBe(cardNumber(value, lang));
      }),
    );
    setLanguage('fr');
  });

  it('isolates the numbers inside the server text, joined to their unit', () => {
    expect(isolateNumbers('À 1 350 000 DH, rendement 8,7 % ; 3 chambres, 120 m².')).toBe(
      'À \u20661\u202f350\u202f000\u2069\u00a0DH, rendement \u20668,7\u2069\u00a0% ; \u20663\u2069 chambres, \u2066120\u2069\u00a0m².',
    );
    expect(isolateNumbers('الثمن 1350000 درهم')).toBe('الثمن \u20661350000\u2069\u00a0درهم');
    // Text without a number is left as it is.
    expect(isolateNumbers('Terrasse, ascenseur')).toBe('Terrasse, ascenseur');
  });

  it('names market sources and places in the page language, without source keys', () => {
    const source = '[DS-EARTHY] Avito + Yakeey apartment sale asks scraped Nov–Dec 2024, district medians';
    setLanguage('fr');
    expect(formatSource(source)).toBe('prix demandés d’appartements à vendre sur Avito + Yakeey, nov.–déc. 2024, médianes par quartier');
    expect(formatPlace('Casablanca')).toBe('Casablanca');
    expect(formatDate('2024-12')).toBe('décembre 2024');
    setLanguage('ar');
    expect(formatSource(source)).not.toMatch(/\[|apartment/);
    expect(formatPlace('Casablanca')).toBe('الدار البيضاء');
    setLanguage('fr');
  });
});

describe('the subject of a photo (docs/studio.md "The subject of a photo")', () => {
  it('draws the subject on a 16:9 thumbnail at the same point of the photo, whatever the photo’s shape', () => {
    // A 16:9 photo fills its thumbnail: the point is where it is.
    expect(markerPosition({ x: 0.3, y: 0.4 }, 16 / 9)).toEqual({ left: expect.closeTo(30), top: expect.closeTo(40) });
    // A 4:3 photo loses its top and bottom: the centre stays, a point near the top goes up, one cut off sits at the edge.
    expect(markerPosition({ x: 0.5, y: 0.5 }, 4 / 3)).toEqual({ left: 50, top: 50 });
    const high = markerPosition({ x: 0.2, y: 0.25 }, 4 / 3);
    expect(high.left).toBeCloseTo(20);
    expect(high.top).toBeCloseTo(((0.25 - 0.5) * (16 / 9 / (4 / 3)) + 0.5) * 100);
    expect(markerPosition({ x: 0.5, y: 0.02 }, 3 / 4).top).toBe(0);
    // A panorama loses its sides.
    expect(markerPosition({ x: 0.88, y: 0.5 }, 6).left).toBe(100);
    expect(markerPosition({ x: 0.5, y: 0.5 }, 6).left).toBe(50);
  });

  it('sends the point to a thousandth with its photo, and the ref alone without one', () => {
    const item = { key: 'k', name: 'a.jpg', file: null, preview: 'data:image/jpeg;base64,', status: 'ready' as const, error: null };
    expect(requestPhoto({ ...item, ref: 'asset:ast_1', focus: null })).toBe('asset:ast_1');
    expect(requestPhoto({ ...item, ref: 'asset:ast_1', focus: { x: 0.30000000000000004, y: 0.39987 } })).toEqual({
      url: 'asset:ast_1',
      focus: { x: 0.3, y: 0.4 },
    });
  });
});

describe('the job metadata the Studio keeps for Re-run', () => {
  const options = { template: 'classic', format: 'landscape', language: 'ar', target_audience: 'auto', music: 'auto' };
  const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

  it('keeps the photos with their subjects when they fit, and stays within the API limit when they do not', () => {
    const marked = Array.from({ length: 40 }, (_, i) => ({
      url: `asset:ast_${String(i).padStart(26, '0')}`,
      focus: { x: 0.123, y: 0.456 },
    }));
    const short = studioMetadata('Appartement à Maârif', marked.slice(0, 3), options);
    expect(short.studio).toMatchObject({ input: 'Appartement à Maârif', photos: marked.slice(0, 3), format: 'landscape' });
    // A long Arabic listing (two bytes a letter) and forty marked photos: over 4 KB as sent.
    const arabic = 'شقة للبيع في المعاريف بالدار البيضاء '.repeat(40);
    expect(bytes({ studio: { input: arabic.slice(0, 1200), photos: marked, ...options } })).toBeGreaterThan(MAX_METADATA_BYTES);
    const kept = studioMetadata(arabic, marked, options);
    expect(bytes(kept)).toBeLessThanOrEqual(MAX_METADATA_BYTES);
    expect(kept.studio.photos).toEqual(marked.map((p) => p.url));
    expect(arabic.startsWith(kept.studio.input)).toBe(true);
    expect(kept.studio.input.length).toBeGreaterThan(500);
  });
});

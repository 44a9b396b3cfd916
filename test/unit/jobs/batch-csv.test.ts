import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { derivedRowId, readBatchCsv } from '../../../src/jobs/batch.js';
import { RENDER_COLUMN_ALIASES, batchRowRequest, withCanonicalColumns } from '../../../src/jobs/batch-row.js';
import { RENDER_BATCH_COLUMNS, rowRenderRequest } from '../../../src/jobs/render-batch.js';

/* Batch CSVs as spreadsheets save them: separators, encodings, and column names users type. */

const dir = mkdtempSync(join(tmpdir(), 'immoreel-csv-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe('reading a batch CSV', () => {
  it('reads a semicolon-separated file as French Excel saves it', async () => {
    const batch = await readBatchCsv(file('fr.csv', 'id;description;duration_s\nv1;"Villa, piscine; 300 m²";20\n'), RENDER_BATCH_COLUMNS);
    expect(batch.rows[0]!.values).toMatchObject({ description: 'Villa, piscine; 300 m²', duration_s: '20' });
  });

  it('reads tab-separated text', async () => {
    const batch = await readBatchCsv(file('tab.csv', 'id\tdescription\nv1\tAppartement Maârif\n'), RENDER_BATCH_COLUMNS);
    expect(batch.rows[0]!.values.description).toBe('Appartement Maârif');
  });

  it('reads Windows-1252 without mangling accents', async () => {
    const bytes = Buffer.from([...Buffer.from('id,description\nv1,"Appartement Ma'), 0xe2, ...Buffer.from('rif, Casablanca"\n')]);
    const batch = await readBatchCsv(file('ansi.csv', bytes), RENDER_BATCH_COLUMNS);
    expect(batch.rows[0]!.values.description).toBe('Appartement Maârif, Casablanca');
  });

  it('reads UTF-16 with a byte-order mark', async () => {
    const text = 'id;description\nv1;Riad à Marrakech\n';
    const batch = await readBatchCsv(
      file('u16.csv', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])),
      RENDER_BATCH_COLUMNS,
    );
    expect(batch.rows[0]!.values.description).toBe('Riad à Marrakech');
  });

  it("accepts the CLI's option names as column names", async () => {
    const batch = await readBatchCsv(
      file('alias.csv', 'id,description,duration,agency,Agent Name,color\nv1,Villa,20,Atlas,Samira,#123456\n'),
      RENDER_BATCH_COLUMNS,
    );
    expect(batch.unknownColumns).toEqual([]);
    const request = rowRenderRequest(batch.rows[0]!, {}, dir);
    expect(request.duration_s).toBe(20);
    expect(request.branding).toMatchObject({ agency_name: 'Atlas', agent_name: 'Samira', primary_color: '#123456' });
  });

  it('gives the Studio the same names: `logo` is logo_url, and a filled canonical column wins over its alias', () => {
    // The Studio's batch page reads its rows through the same two functions (docs/studio.md "Batch").
    const values = withCanonicalColumns(
      { id: 'v1', description: 'Villa', logo: 'Logo.png', duration: '20', duration_s: '30' },
      RENDER_COLUMN_ALIASES,
    );
    expect(values).toMatchObject({ logo: 'Logo.png', logo_url: 'Logo.png', duration_s: '30' });
    expect(batchRowRequest(values, 'v1')).toMatchObject({ duration_s: 30, branding: { logo_url: 'Logo.png' } });
    expect(withCanonicalColumns({ logo: 'a.png', logo_url: '' }, RENDER_COLUMN_ALIASES).logo_url).toBe('a.png');
  });

  it('reports unknown columns, and refuses one that looks misspelt', async () => {
    const batch = await readBatchCsv(file('notes.csv', 'id,description,notes\nv1,Villa,call back\n'), RENDER_BATCH_COLUMNS);
    expect(batch.unknownColumns).toEqual(['notes']);
    await expect(readBatchCsv(file('typo.csv', 'id,description,agncy_name\nv1,Villa,Atlas\n'), RENDER_BATCH_COLUMNS)).rejects.toThrow(
      /unknown column "agncy_name" — did you mean "agency_name"/,
    );
  });

  it('names the file when it is missing or a folder', async () => {
    await expect(readBatchCsv(join(dir, 'nothere.csv'))).rejects.toThrow(/CSV file not found: .*nothere\.csv/);
    await expect(readBatchCsv(dir)).rejects.toThrow(/is a folder/);
  });
});

describe('the id of a row without one (docs/cli.md "Batch CSV")', () => {
  it('names a row by its listing: the portal and its number, the same in every run', async () => {
    const csv =
      'url,description\nhttps://www.mubawab.ma/fr/a/8418668/appartement-maarif,\nhttps://www.avito.ma/fr/casablanca/appartements/x_55012345.htm,\n';
    const first = await readBatchCsv(file('urls.csv', csv), RENDER_BATCH_COLUMNS);
    expect(first.rows.map((row) => row.id)).toEqual(['mubawab-8418668', 'avito-55012345']);
    // Tonight's CSV lists them the other way round, with a new one first: each keeps its name.
    const reordered = `url\nhttps://www.sarouty.ma/fr/annonce/99001122.html\n${csv.split('\n').slice(1).reverse().join('\n')}\n`;
    const second = await readBatchCsv(file('urls-2.csv', reordered), RENDER_BATCH_COLUMNS);
    expect(second.rows.map((row) => row.id).sort()).toEqual(['avito-55012345', 'mubawab-8418668', 'sarouty-99001122']);
  });

  it('names a row without a URL by a short hash of its cells, never by its line', async () => {
    const csv = 'description,photos\nVilla à Marrakech,a.jpg\nRiad à Fès,b.jpg\n';
    const batch = await readBatchCsv(file('texts.csv', csv), RENDER_BATCH_COLUMNS);
    const ids = batch.rows.map((row) => row.id);
    expect(ids.every((id) => /^row-[0-9a-f]{10}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(2);
    // The same rows in another order, with an empty column added: the same names.
    const again = await readBatchCsv(file('texts-2.csv', 'notes,photos,description\n,b.jpg,Riad à Fès\n,a.jpg,Villa à Marrakech\n'));
    expect(again.rows.map((row) => row.id)).toEqual([ids[1], ids[0]]);
    expect(ids.some((id) => id.startsWith('line-'))).toBe(false);
  });

  it('tells two rows of the same listing apart, and keeps an id column as it is', async () => {
    const csv = 'url,template\nhttps://www.mubawab.ma/fr/a/8418668/x,classic\nhttps://www.mubawab.ma/fr/a/8418668/x,luxury\n';
    expect((await readBatchCsv(file('twice.csv', csv), RENDER_BATCH_COLUMNS)).rows.map((row) => row.id)).toEqual([
      'mubawab-8418668',
      'mubawab-8418668-3',
    ]);
    const withIds = await readBatchCsv(file('ids.csv', 'id,url\nvilla-1,https://www.mubawab.ma/fr/a/1234567/x\n'), RENDER_BATCH_COLUMNS);
    expect(withIds.rows[0]!.id).toBe('villa-1');
  });

  it('derives ids that can name a file', () => {
    const cases: Record<string, string>[] = [
      { url: 'https://xn--mgbh0fb.ma/?id=12345678' },
      { url: 'not a url' },
      { description: '../../etc/passwd' },
    ];
    for (const values of cases) {
      expect(derivedRowId(values)).toMatch(/^[a-z0-9][a-z0-9-]{0,99}$/);
    }
  });
});

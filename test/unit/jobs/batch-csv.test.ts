import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readBatchCsv } from '../../../src/jobs/batch.js';
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

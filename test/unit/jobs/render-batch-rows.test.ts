import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rowInputHash, rowRenderRequest } from '../../../src/jobs/render-batch.js';
import type { BatchRow } from '../../../src/jobs/batch.js';

const row = (values: Record<string, string>, id = 'r1'): BatchRow => ({ line: 2, id, values: { id, ...values } });

describe('a batch row as a render request', () => {
  it('reads the docs/cli.md columns, splits photos on |, resolves relative paths against the CSV folder', () => {
    const request = rowRenderRequest(
      row({
        description: 'Villa 300 m² à Marrakech',
        photos: 'a.jpg | /abs/b.jpg|https://cdn.example/c.jpg||asset:abc',
        template: 'luxury',
        format: 'portrait',
        language: 'en',
        target_audience: 'expat',
        duration_s: '15',
        music: 'none',
        agency_name: 'Atlas Immo',
        agent_name: 'Salma',
        phone: '+212600000000',
        email: 'salma@example.com',
        logo_url: 'logo.png',
        primary_color: '#0a7c5a',
        unbranded: 'no',
      }),
      {
        template: 'classic',
        format: 'landscape',
        branding: { agency_name: 'Default' },
        description: 'ignored: rows bring their own listing',
      },
      '/data/batch',
    );
    expect(request).toEqual({
      description: 'Villa 300 m² à Marrakech',
      photos: ['/data/batch/a.jpg', '/abs/b.jpg', 'https://cdn.example/c.jpg', 'asset:abc'],
      template: 'luxury',
      format: 'portrait',
      language: 'en',
      target_audience: 'expat',
      duration_s: 15,
      music: 'none',
      branding: {
        agency_name: 'Atlas Immo',
        agent_name: 'Salma',
        phone: '+212600000000',
        email: 'salma@example.com',
        logo_url: '/data/batch/logo.png',
        primary_color: '#0a7c5a',
        unbranded: false,
      },
      metadata: { batch_row_id: 'r1' },
    });
  });

  it('keeps the command line settings for the cells a row leaves empty', () => {
    const request = rowRenderRequest(
      row({ url: 'https://www.mubawab.ma/fr/a/1/x', template: '', format: '' }),
      { template: 'social', format: 'square', duration_s: 12 },
      '/d',
    );
    expect(request).toMatchObject({ url: 'https://www.mubawab.ma/fr/a/1/x', template: 'social', format: 'square', duration_s: 12 });
    expect(request.description).toBeUndefined();
  });

  it('passes an empty description on (so validation names it) and rejects a non-numeric duration', () => {
    expect(rowRenderRequest(row({ description: '' }), {}, '/d').description).toBe('');
    expect(() => rowRenderRequest(row({ description: 'x', duration_s: 'ten' }), {}, '/d')).toThrow(/duration_s "ten" is not a number/);
    expect(() => rowRenderRequest(row({ description: 'x', unbranded: 'maybe' }), {}, '/d')).toThrow(/unbranded "maybe"/);
  });

  it("hashes the inputs, including a local photo's size and modification time", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'immoreel-hash-'));
    const photo = join(dir, 'p.jpg');
    writeFileSync(photo, 'one');
    const request = rowRenderRequest(row({ description: 'x', photos: 'p.jpg' }), {}, dir);
    const first = await rowInputHash(request);
    expect(await rowInputHash({ ...request, metadata: { other: 1 } })).toBe(first);
    expect(await rowInputHash({ ...request, template: 'luxury' })).not.toBe(first);
    writeFileSync(photo, 'two!');
    utimesSync(photo, new Date(), new Date(Date.now() + 5000));
    expect(await rowInputHash(request)).not.toBe(first);
  });
});

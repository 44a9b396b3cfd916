/**
 * npm run bench:analyze — listings analysed per second, single process.
 *
 * Every listing of ../shared/data (title + description, as a user would paste it) goes through
 * `analyzeListing({ description })`, the engine's entry point, repeatedly for a few seconds after a
 * warm-up. Prints listings/second for the full analysis and for the text extraction alone.
 * Without the data directory, a small set of listings written for this script is used instead.
 * Options: --seconds N (default 3), --data DIR.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { analyzeListing } from '../src/analysis/analyze.js';
import { extractFacts } from '../src/analysis/text/extract.js';

const FALLBACK_TEXTS = [
  'Appartement à vendre à Maârif, Casablanca\nBel appartement de 120 m² au 3ème étage, 3 chambres, 2 salles de bain, ascenseur, parking. Prix : 1 850 000 DH.',
  'شقة للبيع بالدار البيضاء 120 مليون سنتيم\nمساحتها 82 متر مربع، 2 بيوت صالون مطبخ حمام، الطابق الثالث، مصعد',
  'Villa à louer à Guéliz\nLoyer 25.000 Dhs/mois, villa de 300 m² sur un terrain de 600 m², piscine, jardin, sans ascenseur',
  'Apartment for sale in Tangier, 2 bedrooms, 1 bathroom, sea view, price 1.2 MDH',
];

function loadTexts(dataDir: string): string[] {
  const texts: string[] = [];
  const jsonl = path.join(dataDir, 'mubawab_avito_2025-11.jsonl');
  if (existsSync(jsonl)) {
    for (const line of readFileSync(jsonl, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const record = JSON.parse(line) as { title?: string; description?: string };
      texts.push(`${record.title ?? ''}\n${record.description ?? ''}`);
    }
  }
  const csvFiles: Array<[string, string, string]> = [
    ['mubawab_rent_2025.csv', 'Title', 'Description'],
    ['avito_sale_casablanca_2022.csv', 'title', 'description'],
  ];
  for (const [file, titleColumn, descriptionColumn] of csvFiles) {
    const full = path.join(dataDir, file);
    if (!existsSync(full)) continue;
    const records = parse(readFileSync(full, 'utf8'), { columns: true, skip_empty_lines: true }) as Record<string, string>[];
    for (const record of records) texts.push(`${record[titleColumn] ?? ''}\n${record[descriptionColumn] ?? ''}`);
  }
  return texts.filter((text) => text.trim() !== '');
}

async function timeLoop(
  label: string,
  texts: readonly string[],
  seconds: number,
  run: (text: string) => Promise<unknown> | unknown,
): Promise<void> {
  for (const text of texts) await run(text); // warm-up: JIT and lazily compiled regexes
  let processed = 0;
  let failed = 0;
  const started = process.hrtime.bigint();
  const budget = BigInt(Math.round(seconds * 1e9));
  while (process.hrtime.bigint() - started < budget) {
    for (const text of texts) {
      try {
        await run(text);
      } catch {
        failed += 1;
      }
      processed += 1;
    }
  }
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  const rate = processed / elapsed;
  console.log(
    `${label.padEnd(34)} ${Math.round(rate).toLocaleString('en-US').padStart(8)} listings/s  (${processed} in ${elapsed.toFixed(2)} s, ${(1000 / rate).toFixed(3)} ms each${failed ? `, ${failed} refused` : ''})`,
  );
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const secondsIndex = args.indexOf('--seconds');
  const seconds = secondsIndex === -1 ? 3 : Number(args[secondsIndex + 1] ?? 3);
  const dataIndex = args.indexOf('--data');
  const here = path.dirname(fileURLToPath(import.meta.url));
  const dataDir = dataIndex === -1 ? path.resolve(here, '../../shared/data') : path.resolve(args[dataIndex + 1] ?? '.');
  let texts = existsSync(dataDir) ? loadTexts(dataDir) : [];
  if (texts.length === 0) {
    console.log(`No datasets at ${dataDir}: using ${FALLBACK_TEXTS.length} built-in listings.`);
    texts = FALLBACK_TEXTS;
  }
  const characters = texts.reduce((sum, text) => sum + text.length, 0);
  console.log(`${texts.length} listings, ${Math.round(characters / texts.length)} characters on average; node ${process.version}`);
  await timeLoop('analyzeListing({ description })', texts, seconds, (text) => analyzeListing({ description: text }));
  await timeLoop('extractFacts (text extraction only)', texts, seconds, (text) => extractFacts(text));
  console.log('target: ≥ 2000 listings/s for analyzeListing');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

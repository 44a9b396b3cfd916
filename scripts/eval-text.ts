/**
 * npm run eval:text — scores the text extractor against the real listings of ../shared/data.
 *
 * For each dataset and field it prints: rows, the share where the tool states a value, the share
 * where the portal's own field states one, and the agreement where both do. The tool only sees
 * what a user would paste: title + "\n" + description. Field mappings (the portals' fields are
 * noisy; see docs/analysis-text.md "Evaluation"):
 *
 * - price: within 2 %; EUR portal prices converted at the tool's default rate.
 * - surface: within 2 % of one of the portal's surfaces (habitable, totale, Mubawab "Surface",
 *   parcelle), against the tool's living or total surface: portals fill those roles inconsistently.
 * - property type: the portal's category, with an apartment category accepting studio/duplex/penthouse,
 *   "Villas et Riads" accepting villa or riad, "Terrains et fermes" land or farm.
 * - bedrooms: exact. Mubawab "Pièces" is total rooms (compared as rooms), "N Chambres" bedrooms.
 * - bathrooms: the portal's count equals the tool's `bathrooms`, or `bathrooms + toilets` (portals
 *   count a separate WC as a bathroom or not).
 * - city: names compared through the gazetteer's canonical names, else case-, accent- and
 *   hyphen-insensitive; two communes of one metro area (Bouskoura and Casablanca) also match.
 * - district: as city names, or one the part of the other.
 *
 * Coverage: among rows whose text itself states the portal's value (its digits followed by a unit,
 * or the city's name), the share where the tool finds that value.
 *
 * Options: --show FIELD (print disagreements of a field), --data DIR. Exits non-zero only on a crash.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import type { ListingFacts, PropertyType, Transaction } from '../src/core/types.js';
import { DEFAULT_EUR_TO_MAD, extractFacts } from '../src/analysis/text/extract.js';
import { findCity, findDistrict, metroArea, parentDistrict } from '../src/analysis/text/gazetteer.js';
import { nameKey, normalizeText } from '../src/analysis/text/normalize.js';

interface PortalFacts {
  price: number | null;
  transaction: Transaction | null;
  types: PropertyType[] | null;
  surfaces: number[];
  rooms: number | null;
  bedrooms: number | null;
  bathrooms: number | null;
  city: string | null;
  district: string | null;
}

interface Row {
  id: string;
  text: string;
  portal: PortalFacts;
}

const FIELDS = ['price', 'transaction', 'property_type', 'surface', 'rooms', 'bedrooms', 'bathrooms', 'city', 'district'] as const;
type Field = (typeof FIELDS)[number];

const TARGETS: Partial<Record<Field, number>> = {
  price: 0.95,
  transaction: 0.97,
  city: 0.97,
  surface: 0.9,
  bedrooms: 0.85,
  bathrooms: 0.9,
  property_type: 0.9,
  district: 0.8,
};
const COVERAGE_TARGET = 0.8;

// ---------------------------------------------------------------------------------------------
// Portal field parsing

function number(text: string | undefined | null): number | null {
  if (text === undefined || text === null) return null;
  const digits = text
    .replace(/[^\d.,]/g, '')
    .replace(/[.,](?=\d{3}(?:\D|$))/g, '')
    .replace(',', '.');
  if (digits === '' || !/\d/.test(digits)) return null;
  const value = Number(digits);
  return Number.isFinite(value) ? value : null;
}

function portalPrice(text: string | undefined | null): number | null {
  if (!text || /consulter|demande|request/i.test(text)) return null;
  const value = number(text);
  // Below 1 000 DH the field holds a placeholder ("1", "13") or centimes typed as DH (docs/analysis.md).
  if (value === null || value < 1000) return null;
  return /eur|€/i.test(text) ? value * DEFAULT_EUR_TO_MAD : value;
}

function saneSurfacePrice(text: string | undefined | null, surfaces: readonly number[]): number | null {
  return sanePrice(portalPrice(text), surfaces);
}

/** A portal price that cannot be one: over 300 000 DH per m² of the portal's own surface (e.g. 340 000 000 DH for 143 m²). */
function sanePrice(price: number | null, surfaces: readonly number[]): number | null {
  if (price === null) return null;
  const largest = Math.max(0, ...surfaces);
  return largest > 0 && price / largest > 300_000 ? null : price;
}

const TYPE_MAP: ReadonlyArray<[RegExp, PropertyType[]]> = [
  [/^appartements?$/i, ['apartment', 'studio', 'duplex', 'penthouse']],
  [/^studios?$/i, ['studio', 'apartment']],
  [/^duplex$/i, ['duplex', 'apartment']],
  [/^penthouse$/i, ['penthouse', 'apartment']],
  [/^villas? et riads?$/i, ['villa', 'riad']],
  [/^villas?$/i, ['villa']],
  [/^riads?$/i, ['riad']],
  [/^maisons?$/i, ['house', 'riad']],
  [/^terrains? et fermes?$/i, ['land', 'farm']],
  [/^terrains?$/i, ['land', 'farm']],
  [/^fermes?$/i, ['farm', 'land']],
  [/^bureaux?$/i, ['office']],
  [/^(?:local commercial|locaux commerciaux|local|magasins? et commerces?|magasins?)$/i, ['commercial']],
  [/^immeubles?$/i, ['building']],
];

function portalTypes(label: string | undefined | null): PropertyType[] | null {
  if (!label) return null;
  const clean = label.split(',')[0]?.trim() ?? '';
  return TYPE_MAP.find(([pattern]) => pattern.test(clean))?.[1] ?? null;
}

function nonEmpty(text: string | undefined | null): string | null {
  const clean = (text ?? '').replace(/\s+/g, ' ').trim();
  return clean === '' || /^(?:autre secteur|toute la ville|--)$/i.test(clean) ? null : clean;
}

function count(text: string | undefined | null): number | null {
  const value = number(text);
  return value === null ? null : Math.round(value);
}

// ---------------------------------------------------------------------------------------------
// Datasets

interface JsonlRecord {
  source_site: string;
  offre: string;
  id: string;
  title: string;
  description: string;
  price_text: string;
  location: string;
  category_label: string;
  breadcrumbs_list: string[];
  attributes: Record<string, string>;
}

function loadMubawabAvito(file: string): Row[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as JsonlRecord)
    .map((record) => {
      const attributes = record.attributes ?? {};
      const mubawab = record.source_site === 'mubawab';
      let city: string | null;
      let district: string | null;
      if (mubawab) {
        const [first, second] = record.location.split(/\s+à\s+/);
        city = nonEmpty(second ?? first);
        district = second === undefined ? null : nonEmpty(first);
      } else {
        city = nonEmpty(record.breadcrumbs_list[2]);
        district = nonEmpty(record.breadcrumbs_list[3]);
      }
      const bedroomKey = Object.keys(attributes).find((key) => /^\d+\s+chambres?$/i.test(key));
      const surfaces = (
        mubawab
          ? [attributes['Surface'], attributes['Surface de la parcelle']]
          : [attributes['Surface habitable'], attributes['Surface totale']]
      )
        .map(number)
        .filter((v): v is number => v !== null && v > 0);
      return {
        id: `${record.source_site}-${record.id}`,
        text: `${record.title}\n${record.description}`,
        portal: {
          price: saneSurfacePrice(record.price_text, surfaces),
          transaction: record.offre === 'location' ? 'rent' : record.offre === 'vente' ? 'sale' : null,
          types: portalTypes(mubawab ? (attributes['Type de bien'] ?? record.category_label) : record.category_label),
          surfaces,
          rooms: count(mubawab ? attributes['Pièces'] : attributes['Nombre de pièces']),
          bedrooms: count(mubawab ? bedroomKey : attributes['Chambres']),
          bathrooms: count(attributes['Salle de bain']),
          city,
          district,
        },
      };
    });
}

function loadMubawabRent(file: string): Row[] {
  const records = parse(readFileSync(file, 'utf8'), { columns: true, skip_empty_lines: true }) as Record<string, string>[];
  return records.map((record, index) => {
    const place = (record['Neighbourhood'] ?? '').split(',').map((part) => part.trim());
    const roomsField = record['Rooms'] ?? '';
    return {
      id: `mubawab-rent-${index + 1}`,
      text: `${record['Title'] ?? ''}\n${record['Description'] ?? ''}`,
      portal: {
        price: saneSurfacePrice(record['Price'], [number(record['Size']) ?? 0]),
        transaction: 'rent',
        types: portalTypes(record['Property Type']),
        surfaces: [number(record['Size'])].filter((v): v is number => v !== null && v > 0),
        rooms: /pi[eè]ce/i.test(roomsField) ? count(roomsField) : null,
        bedrooms: /chambre/i.test(roomsField) ? count(roomsField) : null,
        bathrooms: null,
        city: nonEmpty(place[place.length - 1]),
        district: place.length > 1 ? nonEmpty(place.slice(0, -1).join(', ')) : null,
      },
    };
  });
}

function loadAvitoCasablanca(file: string): Row[] {
  const records = parse(readFileSync(file, 'utf8'), { columns: true, skip_empty_lines: true }) as Record<string, string>[];
  return records.map((record, index) => ({
    id: `avito-2022-${index + 1}`,
    text: `${record['title'] ?? ''}\n${(record['description'] ?? '').replace(/^Description\s*/, '')}`,
    portal: {
      price: saneSurfacePrice(record['price'], [number(record['surface_habitable']) ?? 0, number(record['surface_totale']) ?? 0]),
      transaction: 'sale',
      types: portalTypes('Appartements'),
      surfaces: [number(record['surface_habitable']), number(record['surface_totale'])].filter((v): v is number => v !== null && v > 0),
      rooms: null,
      bedrooms: count(record['chambre']),
      bathrooms: count(record['bain']),
      city: nonEmpty(record['ville']),
      district: nonEmpty(record['secteur']),
    },
  }));
}

// ---------------------------------------------------------------------------------------------
// Comparison

function near(a: number, b: number, tolerance: number): boolean {
  return Math.abs(a - b) <= tolerance * Math.max(Math.abs(a), Math.abs(b));
}

function cityKey(name: string): string {
  return nameKey(findCity(name) ?? name);
}

/**
 * Same city, or two communes of one metropolitan area (Bouskoura filed as Casablanca, Témara as
 * Rabat): the tool reports the commune as `city` and its area as `metro_area` (docs/analysis-text.md "Metro areas").
 */
function sameCity(tool: string, portal: string): boolean {
  if (cityKey(tool) === cityKey(portal)) return true;
  const area = metroArea(tool);
  return area !== null && area === metroArea(portal);
}

function districtKey(city: string | null, name: string): string {
  return nameKey(findDistrict(city, name) ?? name);
}

/** Same district, or one is the part of the other that a portal files it under (Les Princesses in Maârif). */
function sameDistrict(toolCity: string | null, tool: string, portalCity: string | null, portal: string): boolean {
  const a = districtKey(toolCity, tool);
  const b = districtKey(portalCity, portal);
  if (a === b) return true;
  const city = toolCity ?? portalCity;
  if (city === null) return false;
  return nameKey(parentDistrict(city, tool) ?? '') === b || nameKey(parentDistrict(city, portal) ?? '') === a;
}

interface Judgement {
  tool: boolean;
  portal: boolean;
  agree: boolean | null;
  toolValue: string;
  portalValue: string;
}

function judge(field: Field, facts: ListingFacts, portal: PortalFacts): Judgement {
  const show = (value: unknown): string => (value === null || value === undefined ? '—' : String(value));
  switch (field) {
    case 'price': {
      const tool = facts.price_mad;
      const both = tool !== null && portal.price !== null;
      return {
        tool: tool !== null,
        portal: portal.price !== null,
        agree: both ? near(tool, portal.price as number, 0.02) : null,
        toolValue: show(tool),
        portalValue: show(portal.price),
      };
    }
    case 'transaction': {
      const both = facts.transaction !== null && portal.transaction !== null;
      return {
        tool: facts.transaction !== null,
        portal: portal.transaction !== null,
        agree: both ? facts.transaction === portal.transaction : null,
        toolValue: show(facts.transaction),
        portalValue: show(portal.transaction),
      };
    }
    case 'property_type': {
      const both = facts.property_type !== null && portal.types !== null;
      return {
        tool: facts.property_type !== null,
        portal: portal.types !== null,
        agree: both ? (portal.types as PropertyType[]).includes(facts.property_type as PropertyType) : null,
        toolValue: show(facts.property_type),
        portalValue: show(portal.types?.join('/')),
      };
    }
    case 'surface': {
      const toolValues = [facts.surface_m2, facts.surface_total_m2].filter((v): v is number => v !== null);
      const both = toolValues.length > 0 && portal.surfaces.length > 0;
      const agree = both ? toolValues.some((t) => portal.surfaces.some((p) => near(t, p, 0.02))) : null;
      return {
        tool: toolValues.length > 0,
        portal: portal.surfaces.length > 0,
        agree,
        toolValue: `${show(facts.surface_m2)}/${show(facts.surface_total_m2)}`,
        portalValue: portal.surfaces.join('/') || '—',
      };
    }
    case 'bathrooms': {
      // Portals count a separate WC as a bathroom or not: the portal's count matches bathrooms alone or bathrooms + toilets.
      const tool = facts.bathrooms;
      const theirs = portal.bathrooms;
      const both = tool !== null && theirs !== null;
      const agree = both ? tool === theirs || tool + (facts.toilets ?? 0) === theirs : null;
      return {
        tool: tool !== null,
        portal: theirs !== null,
        agree,
        toolValue: `${show(tool)}+${show(facts.toilets)} WC`,
        portalValue: show(theirs),
      };
    }
    case 'rooms':
    case 'bedrooms': {
      const tool = facts[field];
      const theirs = portal[field];
      const both = tool !== null && theirs !== null;
      return {
        tool: tool !== null,
        portal: theirs !== null,
        agree: both ? tool === theirs : null,
        toolValue: show(tool),
        portalValue: show(theirs),
      };
    }
    case 'city': {
      const both = facts.city !== null && portal.city !== null;
      return {
        tool: facts.city !== null,
        portal: portal.city !== null,
        agree: both ? sameCity(facts.city as string, portal.city as string) : null,
        toolValue: show(facts.city),
        portalValue: show(portal.city),
      };
    }
    case 'district': {
      const both = facts.district !== null && portal.district !== null;
      const agree = both ? sameDistrict(facts.city, facts.district as string, portal.city, portal.district as string) : null;
      return {
        tool: facts.district !== null,
        portal: portal.district !== null,
        agree,
        toolValue: `${show(facts.district)} (${show(facts.city)})`,
        portalValue: `${show(portal.district)} (${show(portal.city)})`,
      };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// "The text itself states it": simple checks independent of the extractor.

function digitsForms(value: number): string[] {
  const integer = String(Math.round(value));
  const grouped = integer.replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
  return [integer, grouped, grouped.replace(/ /g, '.'), grouped.replace(/ /g, ',')];
}

function textStatesPrice(normalized: string, price: number): boolean {
  if (digitsForms(price).some((form) => new RegExp(`(?<![\\d.,])${form.replace(/\./g, '\\.')}(?![\\d])`).test(normalized))) return true;
  const centimes = price / 10_000;
  if (Number.isInteger(centimes) && new RegExp(`(?<![\\d.,])${centimes}\\s?(?:m[a-z]*l|مليون)`).test(normalized)) return true;
  const millions = price / 1_000_000;
  const written = String(millions).replace('.', '[.,]');
  return new RegExp(`(?<![\\d.,])${written}\\s?m`).test(normalized);
}

function textStatesSurface(normalized: string, surfaces: readonly number[]): boolean {
  return surfaces.some((surface) => new RegExp(`(?<![\\d.,])${Math.round(surface)}\\s?(?:m|متر|sqm)`).test(normalized));
}

function textStatesCity(normalized: string, city: string): boolean {
  const key = nameKey(city);
  return ` ${nameKey(normalized)} `.includes(` ${key} `);
}

// ---------------------------------------------------------------------------------------------
// Report

interface Tally {
  rows: number;
  tool: number;
  portal: number;
  both: number;
  agree: number;
}

interface CoverageTally {
  stated: number;
  found: number;
}

function pct(part: number, whole: number): string {
  return whole === 0 ? '   n/a' : `${((100 * part) / whole).toFixed(1).padStart(5)}%`;
}

function evaluate(
  name: string,
  rows: readonly Row[],
  showField: Field | null,
  totals: Map<Field, Tally>,
  coverageTotals: Map<string, CoverageTally>,
): void {
  const tallies = new Map<Field, Tally>(FIELDS.map((field) => [field, { rows: 0, tool: 0, portal: 0, both: 0, agree: 0 }]));
  const coverage = new Map<string, CoverageTally>(['price', 'surface', 'city'].map((field) => [field, { stated: 0, found: 0 }]));
  for (const row of rows) {
    const facts = extractFacts(row.text);
    const normalized = normalizeText(row.text);
    for (const field of FIELDS) {
      const result = judge(field, facts, row.portal);
      const tally = tallies.get(field) as Tally;
      tally.rows += 1;
      if (result.tool) tally.tool += 1;
      if (result.portal) tally.portal += 1;
      if (result.agree !== null) {
        tally.both += 1;
        if (result.agree) tally.agree += 1;
      }
      if (showField === field && result.agree === false) {
        console.log(
          `\n[${field}] ${row.id}: tool ${result.toolValue} · portal ${result.portalValue}\n  ${row.text.replace(/\s+/g, ' ').slice(0, 400)}`,
        );
      }
    }
    const checks: Array<[string, boolean, Field]> = [
      ['price', row.portal.price !== null && textStatesPrice(normalized, row.portal.price), 'price'],
      ['surface', textStatesSurface(normalized, row.portal.surfaces), 'surface'],
      ['city', row.portal.city !== null && textStatesCity(normalized, row.portal.city), 'city'],
    ];
    for (const [key, stated, field] of checks) {
      if (!stated) continue;
      const tally = coverage.get(key) as CoverageTally;
      tally.stated += 1;
      const found = judge(field, facts, row.portal).agree === true;
      if (found) tally.found += 1;
      else if (showField === field) console.log(`\n[${field} coverage miss] ${row.id}: ${row.text.replace(/\s+/g, ' ').slice(0, 300)}`);
    }
  }
  printTable(name, rows.length, tallies, coverage);
  for (const field of FIELDS) {
    const total = totals.get(field) as Tally;
    const tally = tallies.get(field) as Tally;
    total.rows += tally.rows;
    total.tool += tally.tool;
    total.portal += tally.portal;
    total.both += tally.both;
    total.agree += tally.agree;
  }
  for (const [key, tally] of coverage) {
    const total = coverageTotals.get(key) as CoverageTally;
    total.stated += tally.stated;
    total.found += tally.found;
  }
}

function printTable(name: string, rows: number, tallies: Map<Field, Tally>, coverage: Map<string, CoverageTally>): void {
  console.log(`\n${name} (${rows} rows)`);
  console.log('field           rows  tool states  portal states   both  agreement  target');
  for (const field of FIELDS) {
    const tally = tallies.get(field) as Tally;
    const target = TARGETS[field];
    const agreement = tally.both === 0 ? null : tally.agree / tally.both;
    const mark = target === undefined || agreement === null ? '' : agreement >= target ? `≥${target * 100}% ok` : `≥${target * 100}% MISS`;
    console.log(
      `${field.padEnd(14)} ${String(tally.rows).padStart(5)}  ${pct(tally.tool, tally.rows).padStart(11)}  ${pct(tally.portal, tally.rows).padStart(13)}  ${String(tally.both).padStart(5)}  ${pct(tally.agree, tally.both).padStart(9)}  ${mark}`,
    );
  }
  console.log('coverage where the text itself states it (tool finds the same value):');
  for (const [key, tally] of coverage) {
    const share = tally.stated === 0 ? null : tally.found / tally.stated;
    const mark = share === null ? '' : share >= COVERAGE_TARGET ? '≥80% ok' : '≥80% MISS';
    console.log(
      `  ${key.padEnd(8)} ${String(tally.found).padStart(4)} / ${String(tally.stated).padEnd(4)} ${pct(tally.found, tally.stated)}  ${mark}`,
    );
  }
}

function main(): void {
  const args = process.argv.slice(2);
  const showIndex = args.indexOf('--show');
  const showField = showIndex === -1 ? null : ((args[showIndex + 1] ?? null) as Field | null);
  const dataIndex = args.indexOf('--data');
  const here = path.dirname(fileURLToPath(import.meta.url));
  const dataDir = dataIndex === -1 ? path.resolve(here, '../../shared/data') : path.resolve(args[dataIndex + 1] ?? '.');
  if (!existsSync(dataDir)) {
    console.log(`No evaluation data at ${dataDir}: nothing to score (pass --data DIR to point at the datasets).`);
    return;
  }
  const datasets: Array<[string, string, (file: string) => Row[]]> = [
    ['mubawab_avito_2025-11.jsonl', 'Mubawab + Avito, Nov 2025 (sale and rent)', loadMubawabAvito],
    ['mubawab_rent_2025.csv', 'Mubawab rentals, Jul 2025', loadMubawabRent],
    ['avito_sale_casablanca_2022.csv', 'Avito sales, Casablanca, Jan 2022', loadAvitoCasablanca],
  ];
  const totals = new Map<Field, Tally>(FIELDS.map((field) => [field, { rows: 0, tool: 0, portal: 0, both: 0, agree: 0 }]));
  const coverageTotals = new Map<string, CoverageTally>(['price', 'surface', 'city'].map((field) => [field, { stated: 0, found: 0 }]));
  let rowCount = 0;
  for (const [file, label, load] of datasets) {
    const full = path.join(dataDir, file);
    if (!existsSync(full)) {
      console.log(`\n${label}: ${file} not found, skipped`);
      continue;
    }
    const rows = load(full);
    rowCount += rows.length;
    evaluate(label, rows, showField, totals, coverageTotals);
  }
  printTable('All datasets', rowCount, totals, coverageTotals);
}

main();

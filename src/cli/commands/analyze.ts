import { writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { AppError, badRequest } from '../../core/errors.js';
import type { Property } from '../../core/types.js';
import type { Service } from '../../core/service.js';
import type { AnalyzeRequest } from '../../core/requests.js';
import { csvLine, failedFileFor, readBatchCsv, runBatch, updateFailedCsv, type BatchColumns, type BatchRow } from '../../jobs/batch.js';
import { contextFor, type CommandContext } from '../command-context.js';
import { formatProperty } from '../format.js';
import { confirmedFactsFlag, readInputRequest, type InputFlags } from '../inputs.js';
import { splitConfirmedFacts } from '../../core/confirmed-facts.js';
import { assertWritableFolder } from '../output-folders.js';
import { parseCount } from '../parse.js';

export interface AnalyzeFlags extends InputFlags {
  csv?: string;
  out?: string;
  concurrency?: string;
  explain?: boolean;
}

/** Columns of `--out results.csv`: the id, the outcome, then the analysis in flat form. */
const RESULT_COLUMNS = [
  'id',
  'ok',
  'title',
  'transaction',
  'property_type',
  'city',
  'district',
  'price_mad',
  'surface_m2',
  'rooms',
  'bedrooms',
  'bathrooms',
  'floor',
  'price_per_m2_mad',
  'market_position',
  'market_delta_pct',
  'primary_audience',
  'feature_keys',
  'marketing_angles',
  'warnings',
  'held_back',
  'error_code',
  'error_message',
] as const;

/** The columns of an analyze batch, and the CLI option names accepted for them (docs/cli.md). */
const ANALYZE_BATCH_COLUMNS: BatchColumns = {
  known: ['url', 'description', 'language', 'target_audience', 'confirmed_facts'],
  aliases: { audience: 'target_audience' },
};

function resultCsvRow(id: string, property: Property | null, error: AppError | null): string {
  const p = property;
  return csvLine([
    id,
    p !== null,
    p?.title,
    p?.transaction,
    p?.property_type,
    p?.city,
    p?.district,
    p?.price_mad,
    p?.surface_m2,
    p?.rooms,
    p?.bedrooms,
    p?.bathrooms,
    p?.floor,
    p?.price_per_m2_mad,
    p?.market?.position,
    p?.market?.delta_pct,
    p?.target_buyer.primary,
    p?.feature_keys.join('|'),
    p?.marketing_angles.join(' | '),
    p?.warnings.map((w) => w.code).join('|'),
    p?.held_back?.map((fact) => fact.field).join('|'),
    error?.code,
    error?.message,
  ]);
}

function rowRequest(row: BatchRow, defaults: AnalyzeRequest): AnalyzeRequest {
  const v = row.values;
  const pick = (key: string): string | undefined => (v[key] === undefined || v[key] === '' ? undefined : v[key]);
  if (pick('url') === undefined && pick('description') === undefined) {
    throw badRequest(`Row ${row.id} (line ${row.line}) has neither url nor description.`, {
      details: [{ field: 'description', message: 'give a url or a description' }],
    });
  }
  const confirmed = pick('confirmed_facts');
  return {
    url: pick('url'),
    description: pick('description'),
    language: (pick('language') ?? defaults.language) as AnalyzeRequest['language'],
    target_audience: (pick('target_audience') ?? defaults.target_audience) as AnalyzeRequest['target_audience'],
    ...(confirmed === undefined
      ? defaults.confirmed_facts === undefined
        ? {}
        : { confirmed_facts: defaults.confirmed_facts }
      : { confirmed_facts: splitConfirmedFacts(confirmed) }),
  };
}

async function analyzeBatch(ctx: CommandContext, service: Service, flags: AnalyzeFlags, defaults: AnalyzeRequest): Promise<void> {
  const { output } = ctx;
  const csvFile = flags.csv as string;
  const concurrency = parseCount(flags.concurrency ?? '8', '--concurrency', 1, 64);
  const outFile = flags.out === undefined ? null : resolve(flags.out);
  if (outFile !== null) await assertWritableFolder(dirname(outFile), '--out');
  const batch = await readBatchCsv(csvFile, ANALYZE_BATCH_COLUMNS);
  if (batch.unknownColumns.length > 0) {
    output.warn(
      `${csvFile}: column${batch.unknownColumns.length === 1 ? '' : 's'} ${batch.unknownColumns.map((c) => `"${c}"`).join(', ')} ignored (an analyze batch reads id, url, description, language, target_audience, confirmed_facts).`,
    );
  }
  const asCsv = outFile !== null && /\.csv$/i.test(outFile);
  const failed: { row: BatchRow; error: AppError }[] = [];
  const progress = output.progress(`Analyzing ${batch.rows.length} listings…`);
  const lines = new Map<string, string>();
  // On a terminal without --json, one readable line per row; piped or with --json, NDJSON.
  const readable = !output.json && process.stdout.isTTY === true;
  let done = 0;
  let heldBack = 0;
  const summary = await runBatch(batch.rows, async (row) => (await service.analyze(rowRequest(row, defaults))).property, {
    concurrency,
    onOutcome: (outcome) => {
      done += 1;
      progress.update(`Analyzing listings… ${done}/${batch.rows.length}`);
      if (!outcome.ok) failed.push({ row: outcome.row, error: outcome.error });
      else if ((outcome.value.held_back ?? []).length > 0) heldBack += 1;
      const record = outcome.ok
        ? { ok: true, status: 'success', id: outcome.id, property: outcome.value }
        : { ok: false, status: 'error', id: outcome.id, error: outcome.error.toJSON() };
      if (outFile === null && readable) {
        const p = outcome.ok ? outcome.value : null;
        output.text(
          p !== null
            ? `${output.style.green('✔')} ${outcome.id}  ${p.title || '(untitled)'}${p.city ? ` — ${p.city}` : ''}${p.price_mad === null ? '' : ` · ${p.price_mad.toLocaleString('fr-FR')} MAD`}`
            : `${output.style.red('✘')} ${outcome.id}  ${outcome.ok ? '' : `${outcome.error.code}: ${outcome.error.message}`}`,
        );
      } else if (outFile === null) output.record(record);
      // A results file keeps the input's row order, whatever order the rows finished in.
      else
        lines.set(
          outcome.id,
          asCsv
            ? resultCsvRow(outcome.id, outcome.ok ? outcome.value : null, outcome.ok ? null : outcome.error)
            : `${JSON.stringify(record)}\n`,
        );
    },
  });
  progress.stop();
  if (outFile !== null) {
    const ordered = batch.rows.map((row) => lines.get(row.id) ?? '').join('');
    await writeFile(outFile, (asCsv ? csvLine([...RESULT_COLUMNS]) : '') + ordered);
  }
  const failedFile = failedFileFor(csvFile);
  await updateFailedCsv(failedFile, batch.columns, failed);
  output.info(
    `${summary.total} rows: ${summary.succeeded} analyzed, ${summary.failed} failed` +
      (heldBack > 0 ? `; ${heldBack} with a fact held back as doubtful (confirm it with a confirmed_facts column)` : '') +
      (failed.length > 0 && failedFile !== null ? ` (see ${failedFile})` : '') +
      (outFile !== null ? `; results in ${outFile}` : ''),
  );
  if (summary.failed > 0) {
    throw new AppError(
      'BATCH_ROWS_FAILED',
      `${summary.failed} of ${summary.total} rows failed${failedFile === null ? '' : `; they are listed in ${failedFile}`}.`,
    );
  }
}

/** `analyze`: one listing, or a batch with --csv. */
export async function analyze(stdinArg: string | undefined, flags: AnalyzeFlags, command: Command): Promise<void> {
  const ctx = contextFor(command);
  if (flags.csv === undefined) {
    // Batch flags without a batch would be silently ignored: refuse them.
    if (flags.out !== undefined)
      throw badRequest(
        '--out writes the results of a batch (--csv FILE); for one listing, redirect the output: `immoreel analyze … --json > result.json`.',
      );
    if (flags.concurrency !== undefined) throw badRequest('--concurrency goes with --csv (rows analyzed at once).');
    if (flags.demo && (flags.url ?? flags.htmlFile ?? flags.description ?? flags.descriptionFile ?? stdinArg) !== undefined) {
      throw badRequest(
        '--demo analyzes the bundled sample listing; it cannot be combined with --url, --html-file, --description, --description-file or "-". Drop --demo to analyze your listing.',
      );
    }
  }
  const defaults: AnalyzeRequest = {
    language: flags.language as AnalyzeRequest['language'],
    target_audience: flags.audience as AnalyzeRequest['target_audience'],
    ...confirmedFactsFlag(flags),
  };
  const request = flags.csv === undefined ? { ...(await readInputRequest(flags, stdinArg)), ...defaults } : null;
  const service = await ctx.openService();
  try {
    if (request === null) {
      await analyzeBatch(ctx, service, flags, defaults);
      return;
    }
    const progress = ctx.output.progress('Analyzing listing…');
    const response = await service.analyze(request).finally(() => progress.stop());
    if (ctx.output.json) ctx.output.data(response);
    else
      ctx.output.text(
        formatProperty(response.property, ctx.output.style, { language: request.language ?? 'fr', explain: flags.explain === true }),
      );
  } finally {
    await service.close();
  }
}

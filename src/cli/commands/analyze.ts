import { createWriteStream, type WriteStream } from 'node:fs';
import type { Command } from 'commander';
import { AppError, badRequest } from '../../core/errors.js';
import type { AnalyzeRequest, Property, Service } from '../../core/types.js';
import { csvLine, failedFileFor, readBatchCsv, runBatch, writeFailedCsv, type BatchRow } from '../../jobs/batch.js';
import { contextFor, type CommandContext } from '../context.js';
import { formatProperty } from '../format.js';
import { readInputRequest, type InputFlags } from '../inputs.js';

export interface AnalyzeFlags extends InputFlags {
  csv?: string;
  out?: string;
  concurrency?: string;
}



/** Columns of `--out results.csv`: the id, the outcome, then the analysis in flat form. */
const RESULT_COLUMNS = [
  'id', 'ok', 'title', 'transaction', 'property_type', 'city', 'district', 'price_mad', 'surface_m2',
  'rooms', 'bedrooms', 'bathrooms', 'floor', 'price_per_m2_mad', 'market_position', 'market_delta_pct',
  'primary_audience', 'feature_keys', 'warnings', 'error_code', 'error_message',
] as const;

function resultCsvRow(id: string, property: Property | null, error: AppError | null): string {
  const p = property;
  return csvLine([
    id, p !== null, p?.title, p?.transaction, p?.property_type, p?.city, p?.district, p?.price_mad, p?.surface_m2,
    p?.rooms, p?.bedrooms, p?.bathrooms, p?.floor, p?.price_per_m2_mad, p?.market?.position, p?.market?.delta_pct,
    p?.target_buyer.primary, p?.feature_keys.join('|'), p?.warnings.map((w) => w.code).join('|'),
    error?.code, error?.message,
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
  return {
    url: pick('url'),
    description: pick('description'),
    language: (pick('language') ?? defaults.language) as AnalyzeRequest['language'],
    target_audience: (pick('target_audience') ?? defaults.target_audience) as AnalyzeRequest['target_audience'],
  };
}

async function analyzeBatch(ctx: CommandContext, service: Service, flags: AnalyzeFlags, defaults: AnalyzeRequest): Promise<void> {
  const { output } = ctx;
  const csvFile = flags.csv as string;
  const batch = await readBatchCsv(csvFile);
  let sink: WriteStream | null = null;
  const asCsv = flags.out !== undefined && /\.csv$/i.test(flags.out);
  if (flags.out !== undefined) {
    sink = createWriteStream(flags.out);
    if (asCsv) sink.write(csvLine([...RESULT_COLUMNS]));
  }
  const failed: { row: BatchRow; error: AppError }[] = [];
  const progress = output.progress(`Analyzing ${batch.rows.length} listings…`);
  let done = 0;
  const summary = await runBatch(batch.rows, async (row) => (await service.analyze(rowRequest(row, defaults))).property, {
    concurrency: Number(flags.concurrency ?? 8),
    onOutcome: (outcome) => {
      done += 1;
      progress.update(`Analyzing listings… ${done}/${batch.rows.length}`);
      if (!outcome.ok) failed.push({ row: outcome.row, error: outcome.error });
      const line = outcome.ok
        ? { id: outcome.id, ok: true, property: outcome.value }
        : { id: outcome.id, ok: false, error: outcome.error.toJSON() };
      if (sink === null) output.record(line);
      else sink.write(asCsv ? resultCsvRow(outcome.id, outcome.ok ? outcome.value : null, outcome.ok ? null : outcome.error) : `${JSON.stringify(line)}\n`);
    },
  });
  progress.stop();
  if (sink !== null) await new Promise<void>((resolve, reject) => sink.end((err?: Error | null) => (err ? reject(err) : resolve())));
  const failedFile = failedFileFor(csvFile);
  if (failed.length > 0) await writeFailedCsv(failedFile, batch.columns, failed);
  output.info(
    `${summary.total} rows: ${summary.succeeded} analyzed, ${summary.failed} failed` +
      (failed.length > 0 ? ` (see ${failedFile})` : '') +
      (flags.out !== undefined ? `; results in ${flags.out}` : ''),
  );
  if (summary.failed > 0) {
    throw new AppError('BATCH_ROWS_FAILED', `${summary.failed} of ${summary.total} rows failed; they are listed in ${failedFile}.`);
  }
}

/** `analyze`: one listing, or a batch with --csv. */
export async function analyze(stdinArg: string | undefined, flags: AnalyzeFlags, command: Command): Promise<void> {
      const ctx = contextFor(command);
      const service = await ctx.openService();
      try {
        const defaults: AnalyzeRequest = {
          language: flags.language as AnalyzeRequest['language'],
          target_audience: flags.audience as AnalyzeRequest['target_audience'],
        };
        if (flags.csv !== undefined) {
          await analyzeBatch(ctx, service, flags, defaults);
          return;
        }
        const request = { ...(await readInputRequest(flags, stdinArg)), ...defaults };
        const progress = ctx.output.progress('Analyzing listing…');
        const response = await service.analyze(request).finally(() => progress.stop());
        if (ctx.output.json) ctx.output.data(response);
        else ctx.output.text(formatProperty(response.property, ctx.output.style));
      } finally {
        await service.close();
      }
}

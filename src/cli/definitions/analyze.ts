import { Command, Option } from 'commander';
import { AUDIENCE_CHOICES } from '../../core/validate.js';
import type { AnalyzeFlags } from '../commands/analyze.js';

const EXAMPLES = `
Examples:
  $ immoreel analyze --description "Appartement 120 m² à Maarif, 3 chambres, 1 850 000 DH"
  $ immoreel analyze --description-file annonce.txt --language en --json
  $ pbpaste | immoreel analyze - --audience investor
  $ immoreel analyze --url https://www.mubawab.ma/fr/a/8418668/... --json
  $ immoreel analyze --url URL --html-file saved-page.html
  $ immoreel analyze --csv listings.csv --out results.csv
  $ immoreel analyze --demo`;

export function analyzeCommand(): Command {
  return new Command('analyze')
    .description('Analyze a listing: facts, price per m² against the market, buyer profile, marketing angles.')
    .argument('[stdin]', 'pass - to read the description from standard input')
    .option('--url <url>', 'listing URL on Mubawab, Avito, Sarouty or Yakeey')
    .option('--html-file <file>', 'a listing page saved from the browser (nothing is fetched)')
    .option('--description <text>', 'the listing text (title and description)')
    .option('--description-file <file>', 'read the listing text from a file')
    .addOption(new Option('--language <lang>', 'language of labels and angles').choices(['fr', 'en', 'ar']).default('fr'))
    .addOption(new Option('--audience <audience>', 'buyer profile to aim at').choices([...AUDIENCE_CHOICES]).default('auto'))
    .option('--demo', 'analyze the bundled sample listing (offline)')
    .option('--csv <file>', 'batch: a CSV with columns id,url,description,language,target_audience (- for stdin)')
    .option('--out <file>', 'batch: write results to FILE (.csv for CSV, else NDJSON)')
    .option('--concurrency <n>', 'batch: rows analyzed at once (default 8)')
    .addHelpText('after', EXAMPLES)
    .action(async (stdinArg: string | undefined, flags: AnalyzeFlags, command: Command) => {
      const { analyze } = await import('../commands/analyze.js');
      await analyze(stdinArg, flags, command);
    });
}

import { Command, Option } from 'commander';
import { withListingInputs } from './inputs.js';
import { lazy } from './lazy.js';
import { AUDIENCE_CHOICES } from '../../core/types.js';

const EXAMPLES = `
Examples:
  $ immoreel analyze --description "Appartement 120 m² à Maarif, 3 chambres, 1 850 000 DH"
  $ immoreel analyze --description-file annonce.txt --language en --json
  $ pbpaste | immoreel analyze - --audience investor
  $ immoreel analyze --url https://www.mubawab.ma/fr/a/8418668/... --json
  $ immoreel analyze www.avito.ma/fr/casablanca/appartements/..._55393976.htm
  $ immoreel analyze --url URL --html-file saved-page.html
  $ immoreel analyze --csv listings.csv --out results.csv
  $ immoreel analyze --demo
  $ immoreel analyze --description-file annonce.txt --explain`;

export function analyzeCommand(): Command {
  return withListingInputs(
    new Command('analyze').description('Analyze a listing: facts, price per m² against the market, buyer profile, marketing angles.'),
  )
    .addOption(new Option('--language <lang>', 'language of labels and angles').choices(['fr', 'en', 'ar']).default('fr'))
    .addOption(new Option('--audience <audience>', 'buyer profile to aim at').choices([...AUDIENCE_CHOICES]).default('auto'))
    .option('--demo', 'analyze the bundled sample listing (offline)')
    .option('--csv <file>', 'batch: a CSV with columns id,url,description,language,target_audience (- for stdin)')
    .option('--out <file>', 'batch: write results to FILE (.csv for CSV, else NDJSON)')
    .option('--concurrency <n>', 'batch: rows analyzed at once (default 8)')
    .option('--explain', 'show where each fact came from (page data, page text or description), with the words and a confidence')
    .addHelpText('after', EXAMPLES)
    .action(lazy(async () => (await import('../commands/analyze.js')).analyze));
}

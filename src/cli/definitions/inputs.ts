import type { Command } from 'commander';

/** The listing inputs `analyze` and `render` share (read by src/cli/inputs.ts). */
export function withListingInputs(command: Command): Command {
  return command
    .argument('[stdin]', 'pass - to read the description from standard input, or a listing link (https:// may be left out)')
    .option('--url <url>', 'listing URL on Mubawab, Avito, Sarouty or Yakeey')
    .option('--html-file <file>', 'a listing page saved from the browser (nothing is fetched)')
    .option('--description <text>', 'the listing text (title and description)')
    .option('--description-file <file>', 'read the listing text from a file')
    .option(
      '--confirm <fact>',
      'confirm a fact the analysis holds back as doubtful (price or surface; repeatable): claims are then built on it',
      (value: string, previous: string[] = []) => [...previous, value],
    );
}

import { readFile } from 'node:fs/promises';
import { badRequest } from '../core/errors.js';
import { decodeText } from '../core/text.js';
import type { AnalyzeRequest } from '../core/requests.js';
import { splitConfirmedFacts } from '../core/confirmed-facts.js';
import type { ConfirmableFact } from '../core/types.js';

/** The listing inputs shared by `analyze` and `render` (docs/cli.md). */
export interface InputFlags {
  url?: string;
  htmlFile?: string;
  description?: string;
  descriptionFile?: string;
  language?: string;
  audience?: string;
  demo?: boolean;
  /** `--confirm price` (repeatable): facts confirmed although the analysis doubts them. */
  confirm?: string[];
}

/** `--confirm` values as the request's `confirmed_facts` (checked by the request's schema); absent when none. */
export function confirmedFactsFlag(flags: InputFlags): { confirmed_facts?: ConfirmableFact[] } {
  const facts = (flags.confirm ?? []).flatMap((value) => splitConfirmedFacts(value));
  return facts.length === 0 ? {} : { confirmed_facts: facts };
}

/** Bundled sample listing, shipped with the package for offline demos. */
export const DEMO_DIR = new URL('../../assets/demo/', import.meta.url);

/** A text file as the user's editor saved it: UTF-8, UTF-16 or Windows-1252 (docs/cli.md, "Files and paths"). */
async function readText(file: string, what: string): Promise<string> {
  let buffer: Buffer;
  try {
    buffer = await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a folder, not a file'
          : code === 'EACCES'
            ? 'permission denied'
            : (code ?? 'unreadable');
    throw badRequest(`Cannot read ${what} ${file}: ${why}.`);
  }
  return decodeText(buffer).text;
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) {
    throw badRequest('"-" reads the description from standard input, but nothing is piped in. Pipe a text, or use --description.');
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return decodeText(Buffer.concat(chunks)).text;
}

/** Builds the analysis inputs from flags; only one description source may be given. */
export async function readInputRequest(flags: InputFlags, stdinArg?: string): Promise<AnalyzeRequest> {
  // `immoreel analyze www.avito.ma/fr/…`: a portal's address given as the argument is the --url
  // (docs/portals.md, "Links without a scheme"). Loaded only then: most commands never need the portal readers.
  if (stdinArg !== undefined && stdinArg !== '-' && flags.url === undefined && !flags.demo) {
    const { portalLink } = await import('../analysis/portals/index.js');
    if (portalLink(stdinArg) !== null) return readInputRequest({ ...flags, url: stdinArg });
  }
  if (stdinArg !== undefined && stdinArg !== '-') {
    throw badRequest(
      `Unexpected argument ${JSON.stringify(stdinArg)}: pass the text with --description, a listing link of a supported portal, or "-" to read standard input.`,
    );
  }
  const descriptionSources = [flags.description !== undefined, flags.descriptionFile !== undefined, stdinArg === '-'].filter(
    Boolean,
  ).length;
  if (descriptionSources > 1) {
    throw badRequest('Give the description once: --description, --description-file or "-" (stdin), not several.');
  }
  if (flags.demo) {
    return { description: await readText(new URL('listing.txt', DEMO_DIR).pathname, 'the demo listing') };
  }
  const request: AnalyzeRequest = {};
  if (flags.url !== undefined) request.url = flags.url;
  if (flags.htmlFile !== undefined) request.html = await readText(flags.htmlFile, 'the saved page');
  if (flags.description !== undefined) request.description = flags.description;
  if (flags.descriptionFile !== undefined) request.description = await readText(flags.descriptionFile, 'the description file');
  if (stdinArg === '-') request.description = await readStdin();
  if (request.url === undefined && request.html === undefined && request.description === undefined) {
    throw badRequest('Nothing to analyze: give --url, --html-file, --description, --description-file or "-" for stdin (or --demo).', {
      details: [{ field: 'description', message: 'missing input' }],
    });
  }
  return request;
}

import { badRequest } from '../core/errors.js';
import type { ListingFacts, ListingSource, Property } from '../core/types.js';
import type { AnalyzeRequest } from '../core/requests.js';
import { safeStrings } from '../core/safe-text.js';
import { validateAnalyzeRequest } from '../core/analyze-rules.js';
import { mergeFacts } from './merge.js';
import type { FetchPort } from '../net/fetch.js';
import { fetchListingPage, parseListingPage } from './portals/index.js';
import { buildProperty } from './property.js';
import { extractFacts } from './text/extract.js';

export interface AnalyzeDeps {
  /** The network for listing pages; the server passes its guarded port (docs/architecture.md). */
  fetch?: FetchPort;
  signal?: AbortSignal;
  /** MAD per EUR for prices stated in euros (IMMOREEL_EUR_TO_MAD at the entry points); default the extractor's. */
  eurToMad?: number;
}

/** Facts worth analysing: a text where none of these is found is refused as unrecognisable. */
function statesSomething(facts: ListingFacts): boolean {
  return (
    facts.price_mad !== null ||
    facts.surface_m2 !== null ||
    facts.property_type !== null ||
    facts.city !== null ||
    facts.bedrooms !== null ||
    facts.rooms !== null ||
    facts.transaction !== null ||
    facts.feature_keys.length > 0
  );
}

/** The analysis engine's one entry point: request in, `property` out (docs/analysis.md). */
export async function analyzeListing(request: AnalyzeRequest, deps: AnalyzeDeps = {}): Promise<Property> {
  const valid = validateAnalyzeRequest(request);
  let facts: ListingFacts | null = null;
  let source: ListingSource = { kind: 'text', portal: null, listing_id: null, url: null };

  if (valid.html !== null || valid.url !== null) {
    const html = valid.html ?? (await fetchListingPage(valid.url as string, { signal: deps.signal, fetch: deps.fetch }));
    const page = parseListingPage(html, valid.url, { eurToMad: deps.eurToMad });
    facts = page.facts;
    source = { ...page.source, kind: valid.html !== null ? 'html' : 'url' };
  }
  if (valid.description !== null) {
    const textFacts = extractFacts(valid.description, deps.eurToMad === undefined ? {} : { eurToMad: deps.eurToMad });
    if (facts === null && !statesSomething(textFacts)) {
      throw badRequest(
        'Nothing recognisable in the description: no price, surface, property type, city or rooms were found. ' +
          'Paste the listing title and description as written on the portal.',
        { reason: 'unrecognisable_text', details: [{ field: 'description', message: 'no listing facts found' }] },
      );
    }
    facts = facts === null ? textFacts : mergeFacts(facts, textFacts);
  }
  if (facts === null) throw badRequest('Nothing to analyze.');
  // The property is echoed to callers and drawn on videos: no controls or bidi overrides in it.
  return safeStrings(buildProperty(facts, source, { language: valid.language, audience: valid.target_audience }));
}

import { badRequest } from '../core/errors.js';
import type { ListingFacts, ListingSource, Property, Warning } from '../core/types.js';
import type { AnalyzeRequest } from '../core/requests.js';
import { safeStrings } from '../core/safe-text.js';
import { validateAnalyzeRequest } from '../core/validate.js';
import { mergeFacts } from './merge.js';
import type { FetchPort } from '../net/fetch.js';
import { fetchListingPage, parseListingPage, portalLink, schemeAddedWarning } from './portals/index.js';
import { buildProperty } from './property.js';
import { extractFacts } from './text/extract.js';

export interface AnalyzeDeps {
  /** The network for listing pages; the server passes its guarded port (docs/architecture.md). */
  fetch?: FetchPort;
  signal?: AbortSignal;
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
  const valid = { ...validateAnalyzeRequest(request) };
  const warnings: Warning[] = [];
  // A description that is only a portal's address is that address (docs/portals.md, "Links without a scheme").
  const linkInText = valid.url === null && valid.html === null && valid.description !== null ? portalLink(valid.description) : null;
  if (linkInText !== null) {
    valid.url = linkInText.url;
    if (linkInText.schemeAdded) warnings.push(schemeAddedWarning(valid.description!.trim(), linkInText.url));
    valid.description = null;
  } else if (valid.url !== null) {
    const link = portalLink(valid.url);
    if (link?.schemeAdded) warnings.push(schemeAddedWarning(valid.url.trim(), link.url));
  }
  let facts: ListingFacts | null = null;
  let source: ListingSource = { kind: 'text', portal: null, listing_id: null, url: null };

  if (valid.html !== null || valid.url !== null) {
    const html = valid.html ?? (await fetchListingPage(valid.url as string, { signal: deps.signal, fetch: deps.fetch }));
    const page = parseListingPage(html, valid.url);
    facts = page.facts;
    source = { ...page.source, kind: valid.html !== null ? 'html' : 'url' };
  }
  if (valid.description !== null) {
    const textFacts = extractFacts(valid.description);
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
  const property = buildProperty(facts, source, { language: valid.language, audience: valid.target_audience });
  return safeStrings({ ...property, warnings: [...warnings, ...property.warnings] });
}

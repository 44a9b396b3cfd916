import { badRequest } from '../../core/errors.js';
import type { ListingFacts, ListingSource } from '../../core/types.js';

export interface PageAnalysis {
  facts: ListingFacts;
  source: ListingSource;
}

export interface FetchPageOptions {
  signal?: AbortSignal;
}

/**
 * PLACEHOLDER until the portal adapters land (issue 3): every URL is refused cleanly.
 */
export async function fetchListingPage(url: string, _options: FetchPageOptions = {}): Promise<string> {
  throw badRequest(`Listing URLs are not supported yet (${url}). Paste the listing text with --description.`, {
    reason: 'unsupported_url',
    details: [{ field: 'url', message: 'portal adapters are not available yet' }],
  });
}

export function parseListingPage(_html: string, url: string | null): PageAnalysis {
  throw badRequest(`Saved pages are not supported yet${url ? ` (${url})` : ''}.`, {
    reason: 'unsupported_url',
    details: [{ field: 'html', message: 'portal adapters are not available yet' }],
  });
}

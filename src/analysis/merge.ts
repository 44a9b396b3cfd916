import type { ListingFacts } from '../core/types.js';

/**
 * Combines the facts of a portal page with those of a free text (DESIGN §2.1): page fields
 * win for numbers, the text fills gaps and adds features, contradictions become warnings.
 * PLACEHOLDER: a plain fill-the-gaps merge until issue 3 adds contradiction warnings.
 */
export function mergeFacts(page: ListingFacts, text: ListingFacts): ListingFacts {
  const merged: ListingFacts = { ...page };
  for (const key of Object.keys(page) as (keyof ListingFacts)[]) {
    if (merged[key] === null) (merged as unknown as Record<string, unknown>)[key] = text[key];
  }
  merged.feature_keys = [...new Set([...page.feature_keys, ...text.feature_keys])];
  merged.warnings = [...page.warnings, ...text.warnings];
  return merged;
}

import type { ListingFacts } from '../../core/types.js';
import { emptyFacts } from '../facts.js';

/**
 * Reads the facts a listing text states (FR/EN/AR/Darija, mixed). Pure and deterministic.
 * PLACEHOLDER: replaced by the real extractor (issue 2).
 */
export function extractFacts(text: string): ListingFacts {
  const facts = emptyFacts();
  facts.description = text;
  return facts;
}

import type { ConfirmableFact } from './types.js';

/**
 * A list of confirmed facts as written in a CSV cell or a repeated CLI option ("price|surface",
 * "price,surface"): names only, checked later by the request's schema. Kept apart from the request
 * validators (and their ajv) because the Studio's page bundles the batch-row reading that uses it
 * (docs/studio.md "Files").
 */
export function splitConfirmedFacts(cell: string): ConfirmableFact[] {
  return [
    ...new Set(
      cell
        .split(/[|,]/)
        .map((name) => name.trim().toLowerCase())
        .filter((name) => name !== ''),
    ),
  ] as ConfirmableFact[];
}

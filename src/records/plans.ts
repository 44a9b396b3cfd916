/**
 * Scopes and plans of API keys (docs/api.md "Keys, scopes, plans"): part of the key records, so both
 * backends and the server (src/server/api-limits.ts re-exports them) agree on them.
 */

export const SCOPES = ['preview:read', 'preview:dispatch', 'billing:read'] as const;
export type Scope = (typeof SCOPES)[number];

export const PLANS = ['preview', 'standard'] as const;
export type Plan = (typeof PLANS)[number];

/** Preview keys hold exactly these (docs/api.md); standard keys hold all three by default. */
export const PREVIEW_SCOPES: readonly Scope[] = ['preview:read', 'preview:dispatch'];
export const STANDARD_SCOPES: readonly Scope[] = SCOPES;

/** Requests per month counted against a key: analyses and render dispatches. */
export const DEFAULT_MONTHLY_QUOTA: Record<Plan, number> = { preview: 1000, standard: 100_000 };

import type { AudienceRequest, ConfirmableFact, Language, ListingFacts, ListingSource, Property, Warning } from '../core/types.js';
import { marketingAngles } from './angles.js';
import { buildTargetBuyer } from './audience.js';
import { composeTitle, featureLabels } from './labels.js';
import { compareWithMarket, impliedGrossYield } from './market/compare.js';
import { metroArea } from './text/gazetteer.js';
import { heldBackFacts, POSITION_WITHHELD } from './held-back.js';
import { plausibilityWarnings } from './plausibility.js';

export interface EnrichOptions {
  language: Language;
  audience: AudienceRequest;
  /** Facts the caller confirms although the analysis doubts them (docs/analysis.md "Held back"). */
  confirmed?: readonly ConfirmableFact[];
}

/** Listing warnings then plausibility warnings, each code+message once. */
function mergeWarnings(...lists: readonly Warning[][]): Warning[] {
  const seen = new Set<string>();
  const merged: Warning[] = [];
  for (const warning of lists.flat()) {
    const key = `${warning.code}\u0000${warning.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const copy: Warning = { code: warning.code, message: warning.message };
    if (warning.field !== undefined) copy.field = warning.field;
    if (warning.values !== undefined) copy.values = warning.values.map((v) => ({ ...v }));
    merged.push(copy);
  }
  return merged;
}

/**
 * Turns facts into the analysis `property` (docs/analysis.md): labels, price per m², market
 * comparison, buyer profile, angles and plausibility warnings. Pure and deterministic: the
 * reference tables are built at module load, nothing here does I/O.
 */
export function buildProperty(facts: ListingFacts, source: ListingSource, options: EnrichOptions): Property {
  const { language } = options;
  const confirmed = options.confirmed ?? [];
  const featureKeys = [...new Set(facts.feature_keys)];
  const comparison = compareWithMarket(facts, language);
  const warnings = mergeWarnings(facts.warnings, plausibilityWarnings(facts, comparison.price_per_m2_mad, language));
  const heldBack = heldBackFacts(warnings, confirmed, language);
  // A held-back price or surface grounds no claim (docs/analysis.md "Held back"): the claims are
  // built as if the price were not stated and no price per m² known; the figures stay in the facts.
  const holding = heldBack.length > 0;
  const claimFacts: ListingFacts = heldBack.some((fact) => fact.field === 'price') ? { ...facts, price_mad: null } : facts;
  const perM2 = holding ? null : comparison.price_per_m2_mad;
  const market =
    holding && comparison.market !== null
      ? { ...comparison.market, position: null, delta_pct: null, position_withheld: POSITION_WITHHELD[language] }
      : comparison.market;
  const grossYield = impliedGrossYield(claimFacts, perM2);
  // A confirmed fact is the caller's word: its doubts no longer hold the angles back.
  const confirmedFields: readonly string[] = confirmed;
  const angleWarnings = warnings.filter((warning) => warning.field === undefined || !confirmedFields.includes(warning.field));
  const targetBuyer = buildTargetBuyer({ facts: claimFacts, perM2, market, grossYield, language }, options.audience);
  const angles = marketingAngles({
    facts: claimFacts,
    language,
    audience: targetBuyer.primary,
    perM2,
    market,
    reference: holding ? null : comparison.reference,
    uplifted: comparison.uplifted,
    grossYield,
    warnings: angleWarnings,
  });
  return {
    title: composeTitle(facts, language),
    city: facts.city,
    district: facts.district,
    price_mad: facts.price_mad,
    currency: 'MAD',
    features: featureLabels(featureKeys, language),
    marketing_angles: angles,
    transaction: facts.transaction,
    property_type: facts.property_type,
    surface_m2: facts.surface_m2,
    surface_total_m2: facts.surface_total_m2,
    rooms: facts.rooms,
    bedrooms: facts.bedrooms,
    bathrooms: facts.bathrooms,
    toilets: facts.toilets,
    floor: facts.floor,
    metro_area: facts.city === null ? null : metroArea(facts.city),
    offers: facts.offers.map((offer) => ({ ...offer })),
    feature_keys: featureKeys,
    price_per_m2_mad: perM2,
    price_original: facts.price_original === null ? null : { ...facts.price_original },
    market,
    target_buyer: targetBuyer,
    photos: [...facts.photos],
    source: { ...source },
    language,
    warnings,
    held_back: heldBack,
    provenance: { ...facts.provenance },
  };
}

import type { AudienceRequest, Language, ListingFacts, ListingSource, Property, Warning } from '../core/types.js';
import { marketingAngles } from './angles.js';
import { buildTargetBuyer } from './audience.js';
import { composeTitle, featureLabels } from './labels.js';
import { compareWithMarket, impliedGrossYield } from './market/compare.js';
import { metroArea } from './text/gazetteer.js';
import { plausibilityWarnings } from './plausibility.js';

export interface EnrichOptions {
  language: Language;
  audience: AudienceRequest;
}

/** Listing warnings then plausibility warnings, each code+message once. */
function mergeWarnings(...lists: readonly Warning[][]): Warning[] {
  const seen = new Set<string>();
  const merged: Warning[] = [];
  for (const warning of lists.flat()) {
    const key = `${warning.code}\u0000${warning.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    merged.push(
      warning.values === undefined
        ? { code: warning.code, message: warning.message }
        : { code: warning.code, message: warning.message, values: warning.values.map((v) => ({ ...v })) },
    );
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
  const featureKeys = [...new Set(facts.feature_keys)];
  const comparison = compareWithMarket(facts, language);
  const perM2 = comparison.price_per_m2_mad;
  const warnings = mergeWarnings(facts.warnings, plausibilityWarnings(facts, perM2));
  const grossYield = impliedGrossYield(facts, perM2);
  const targetBuyer = buildTargetBuyer({ facts, perM2, market: comparison.market, grossYield, language }, options.audience);
  const angles = marketingAngles({
    facts,
    language,
    audience: targetBuyer.primary,
    perM2,
    market: comparison.market,
    reference: comparison.reference,
    uplifted: comparison.uplifted,
    grossYield,
    warnings,
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
    market: comparison.market,
    target_buyer: targetBuyer,
    photos: [...facts.photos],
    source: { ...source },
    language,
    warnings,
    provenance: { ...facts.provenance },
  };
}

import { badRequest } from '../core/errors.js';
import type { Language, ListingFacts, ListingSource, Property, Warning } from '../core/types.js';
import type { AnalyzeRequest } from '../core/requests.js';
import { safeStrings } from '../core/safe-text.js';
import { validateAnalyzeRequest, type ValidAnalyzeRequest } from '../core/analyze-rules.js';
import { mergeFacts } from './merge.js';
import type { FetchPort } from '../net/fetch.js';
import { fetchListingPage, linkAsUrl, parseListingPage, portalLink, schemeAddedWarning } from './portals/index.js';
import { buildProperty } from './property.js';
import { sayer } from './say.js';
import { extractFacts } from './text/extract.js';
import { normalizeText } from './text/normalize.js';

export interface AnalyzeDeps {
  /** The network for listing pages; the server passes its guarded port (docs/architecture.md). */
  fetch?: FetchPort;
  signal?: AbortSignal;
  /** MAD per EUR for prices stated in euros (IMMOREEL_EUR_TO_MAD at the entry points); default the extractor's. */
  eurToMad?: number;
}

/** Facts worth analysing: a text where none of these is found states no property fact and is refused. */
function statesSomething(facts: ListingFacts, description: string): boolean {
  return (
    facts.price_mad !== null ||
    facts.surface_m2 !== null ||
    facts.surface_total_m2 !== null ||
    facts.property_type !== null ||
    facts.city !== null ||
    facts.district !== null ||
    facts.bedrooms !== null ||
    facts.rooms !== null ||
    facts.bathrooms !== null ||
    facts.transaction !== null ||
    facts.feature_keys.length > 0 ||
    STREET_ADDRESS.test(normalizeText(description))
  );
}

/** "Rue Ibn Tachfine", "شارع الحسن الثاني": an address is a fact about the property, if a thin one. */
const STREET_ADDRESS =
  /(?:^|[^a-z\u0600-\u06ff])(?:rue|avenue|av|bd|boulevard|zankat|zenqat|residence|شارع|زنقه|اقامه)\s+[a-z\u00df-\u024f\u0600-\u06ff\d]{2,}/;

/** The facts without which an analysis says little (docs/analysis-text.md "Short texts"). */
const CORE_FACTS: ReadonlyArray<[keyof ListingFacts, Readonly<Record<Language, string>>]> = [
  ['property_type', { en: 'property type', fr: 'type de bien', ar: 'نوع العقار' }],
  ['transaction', { en: 'sale or rent', fr: 'vente ou location', ar: 'البيع أو الكراء' }],
  ['price_mad', { en: 'price', fr: 'prix', ar: 'الثمن' }],
  ['surface_m2', { en: 'surface', fr: 'surface', ar: 'المساحة' }],
  ['city', { en: 'city', fr: 'ville', ar: 'المدينة' }],
];

/** FEW_FACTS: a short text is analysed for what it states, and told what it leaves out, in the request's language. */
function fewFactsWarning(facts: ListingFacts, language: Language): Warning | null {
  const missing = CORE_FACTS.filter(([field]) => facts[field] === null).map(([, words]) => words[language]);
  if (missing.length < 3) return null;
  const list = missing.join(language === 'ar' ? '، ' : ', ');
  const message = sayer(language)({
    en: `The text states little about the property: no ${list} found. The analysis shows only what it states; paste the full listing for more.`,
    fr: `Le texte dit peu de choses du bien : ni ${list} trouvés. L’analyse ne montre que ce qu’il dit ; collez l’annonce entière pour plus.`,
    ar: `النص لا يذكر إلا القليل عن العقار: لم يُعثر على ${list}. يعرض التحليل ما يذكره النص فقط؛ الصق الإعلان كاملا للمزيد.`,
  });
  return { code: 'FEW_FACTS', message };
}

/** The analysis engine's one entry point: request in, `property` out (docs/analysis.md). */
export async function analyzeListing(request: AnalyzeRequest, deps: AnalyzeDeps = {}): Promise<Property> {
  return analyzeCheckedListing(validateAnalyzeRequest(request), deps);
}

/** `analyzeListing` for a request its front door has checked already (`validateAnalyzeRequest`): not checked again. */
export async function analyzeCheckedListing(checked: ValidAnalyzeRequest, deps: AnalyzeDeps = {}): Promise<Property> {
  // A description that is only a portal's address is that address (docs/portals.md, "Links without a scheme").
  const valid = linkAsUrl(checked);
  const warnings: Warning[] = [];
  if (valid.url !== null) {
    const link = portalLink(valid.url);
    if (link?.schemeAdded) warnings.push(schemeAddedWarning(valid.url.trim(), link.url, valid.language));
  }
  let facts: ListingFacts | null = null;
  let source: ListingSource = { kind: 'text', portal: null, listing_id: null, url: null };

  if (valid.html !== null || valid.url !== null) {
    const html = valid.html ?? (await fetchListingPage(valid.url as string, { signal: deps.signal, fetch: deps.fetch }));
    const page = parseListingPage(html, valid.url, { eurToMad: deps.eurToMad, language: valid.language });
    facts = page.facts;
    source = { ...page.source, kind: valid.html !== null ? 'html' : 'url' };
  }
  if (valid.description !== null) {
    const textFacts = extractFacts(valid.description, {
      language: valid.language,
      ...(deps.eurToMad === undefined ? {} : { eurToMad: deps.eurToMad }),
    });
    if (facts === null && !statesSomething(textFacts, valid.description)) {
      throw badRequest(
        'The description states no property fact: no property type, sale or rent, price, surface, rooms, place, address or ' +
          'feature was found. Paste the listing title and description as written on the portal.',
        { reason: 'unrecognisable_text', details: [{ field: 'description', message: 'no property fact found in the text' }] },
      );
    }
    if (facts === null) {
      const few = fewFactsWarning(textFacts, valid.language);
      facts = few === null ? textFacts : { ...textFacts, warnings: [...textFacts.warnings, few] };
    } else facts = mergeFacts(facts, textFacts, valid.language);
  }
  if (facts === null) throw badRequest('Nothing to analyze.');
  // The property is echoed to callers and drawn on videos: no controls or bidi overrides in it.
  const property = buildProperty(facts, source, {
    language: valid.language,
    audience: valid.target_audience,
    confirmed: valid.confirmed_facts,
  });
  return safeStrings({ ...property, warnings: [...warnings, ...property.warnings] });
}

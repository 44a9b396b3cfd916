import { FEATURE_KEYS, type FeatureKey } from '../../core/types.js';
import { fold } from './values.js';

/**
 * Amenity labels as the portals print them (FR/EN/AR), mapped to the canonical feature keys of
 * docs/analysis.md. Labels come from docs/portals.md (Mubawab FR/EN labels, Avito param labels),
 * matched whole after folding case and accents, so a page in any of the three languages maps
 * to the same keys.
 */
const LABELS: Record<FeatureKey, string[]> = {
  pool: ['piscine', 'piscine privee', 'piscine commune', 'pool', 'swimming pool', 'private pool', 'مسبح'],
  garden: ['jardin', 'jardin prive', 'garden', 'private garden', 'حديقة'],
  terrace: ['terrasse', 'terrace', 'roof terrace', 'تراس', 'سطح'],
  balcony: ['balcon', 'balcons', 'balcony', 'balconies', 'شرفة', 'بالكون'],
  elevator: ['ascenseur', 'elevator', 'lift', 'مصعد'],
  parking: ['parking', 'place de parking', 'parking space', 'parking souterrain', 'underground parking', 'موقف سيارات', 'موقف'],
  garage: ['garage', 'مرآب', 'كراج'],
  air_conditioning: ['climatisation', 'climatise', 'air conditionne', 'air conditioning', 'air conditioner', 'مكيف', 'تكييف', 'مكيف هواء'],
  heating: ['chauffage', 'chauffage central', 'heating', 'central heating', 'تدفئة', 'تدفئة مركزية'],
  equipped_kitchen: ['cuisine equipee', 'equipped kitchen', 'fitted kitchen', 'مطبخ مجهز'],
  furnished: ['meuble', 'meublee', 'furnished', 'مفروش', 'مفروشة'],
  concierge: ['concierge', 'conciergerie', 'gardien', 'doorman', 'janitor', 'بواب', 'حارس'],
  security: [
    'securite',
    'security',
    'security system',
    'systeme de securite',
    'surveillance',
    'video surveillance',
    'gardiennage',
    'أمن',
    'حراسة',
  ],
  gated_community: ['residence fermee', 'residence securisee', 'gated community', 'إقامة مغلقة'],
  sea_view: ['vue sur mer', 'vue mer', 'sea view', 'sea views', 'إطلالة على البحر'],
  mountain_view: ['vue sur les montagnes', 'vue sur montagne', 'vue montagne', 'mountain view', 'mountain views', 'إطلالة على الجبل'],
  moroccan_lounge: ['salon marocain', 'moroccan lounge', 'moroccan living room', 'صالون مغربي'],
  double_glazing: ['double vitrage', 'double glazing', 'زجاج مزدوج'],
  armored_door: ['porte blindee', 'armored door', 'armoured door', 'reinforced door', 'security door', 'باب مصفح'],
  storage: ['chambre rangement', 'chambre de rangement', 'debarras', 'cave', 'storage', 'storage room', 'cellar', 'مخزن'],
  fireplace: ['cheminee', 'fireplace', 'مدفأة'],
  duplex: ['duplex', 'دوبلكس'],
  title_deed: ['titre foncier', 'title deed', 'titled', 'رسم عقاري', 'محفظ'],
  new_build: ['neuf', 'new build', 'جديد'],
  near_beach: ['proche plage', 'pres de la plage', 'near the beach', 'near beach', 'قرب البحر'],
  near_tram: ['proche tramway', 'proche tram', 'near tram', 'قرب الترامواي'],
  near_schools: ['proche ecoles', 'proche des ecoles', 'near schools', 'قرب المدارس'],
};

const BY_LABEL = new Map<string, FeatureKey>();
for (const key of FEATURE_KEYS) for (const label of LABELS[key]) BY_LABEL.set(fold(label), key);

/** The feature a whole amenity label names ("Cuisine équipée", "Sea views", "مصعد"), or null. */
export function featureFromLabel(label: string): FeatureKey | null {
  const folded = fold(label)
    .replace(/(?<![.:;!])[.:;!]+$/, '')
    .trim();
  return BY_LABEL.get(folded) ?? null;
}

/** Adds keys once each, in first-seen order. */
export function addFeatures(target: FeatureKey[], ...keys: (FeatureKey | null | undefined)[]): void {
  for (const key of keys) if (key !== null && key !== undefined && !target.includes(key)) target.push(key);
}

import type { Language } from '../core/types.js';

/**
 * The few words a video prints besides the listing's own facts, in fr / en / ar. Feature,
 * property-type and number wording come from src/analysis/labels.ts, shared with the analysis.
 */
type Words = Readonly<Record<Language, string>>;

export const WORDS = {
  sale: { fr: 'À vendre', en: 'For sale', ar: 'للبيع' },
  rent: { fr: 'À louer', en: 'For rent', ar: 'للكراء' },
  price: { fr: 'Prix', en: 'Price', ar: 'السعر' },
  monthlyRent: { fr: 'Loyer mensuel', en: 'Monthly rent', ar: 'الكراء الشهري' },
  perMonth: { fr: 'par mois', en: 'per month', ar: 'شهريا' },
  surface: { fr: 'Surface', en: 'Living area', ar: 'المساحة' },
  bedrooms: { fr: 'Chambres', en: 'Bedrooms', ar: 'غرف النوم' },
  bathrooms: { fr: 'Salles de bain', en: 'Bathrooms', ar: 'الحمامات' },
  rooms: { fr: 'Pièces', en: 'Rooms', ar: 'الغرف' },
  pricePerM2: { fr: 'Prix au m²', en: 'Price per m²', ar: 'سعر المتر المربع' },
  highlights: { fr: 'Points forts', en: 'Highlights', ar: 'المميزات' },
  keyFigures: { fr: 'En bref', en: 'At a glance', ar: 'في سطور' },
  contact: { fr: 'Contactez-nous', en: 'Contact us', ar: 'اتصلوا بنا' },
  visits: { fr: 'Visites sur rendez-vous', en: 'Viewings by appointment', ar: 'الزيارة بموعد مسبق' },
  marketBelow: { fr: 'Sous le prix médian du quartier', en: 'Below the local median price', ar: 'أقل من متوسط أسعار الحي' },
  marketInLine: { fr: 'Au prix du marché local', en: 'In line with the local market', ar: 'في مستوى أسعار الحي' },
} as const satisfies Record<string, Words>;

export type WordKey = keyof typeof WORDS;

export function word(key: WordKey, language: Language): string {
  return WORDS[key][language];
}

/** Upper case for badges and small labels in Latin scripts; Arabic has no case. */
export function labelCase(text: string, language: Language, uppercase: boolean): string {
  return uppercase && language !== 'ar' ? text.toLocaleUpperCase(language === 'fr' ? 'fr-FR' : 'en-GB') : text;
}

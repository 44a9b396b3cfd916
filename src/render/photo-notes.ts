import type { Language, PhotoLeftOut, Property, VideoFormat, Warning } from '../core/types.js';
import { buildStoryboard, type Timeline } from './storyboard.js';
import { loadTemplate } from './templates.js';
import { MAX_PHOTOS } from './render-rules.js';
import type { RenderSpec } from './types.js';
import { describeRef, shotEnlargement, SOFT_ENLARGEMENT, type LoadedPhotos } from './assets/photos.js';

/**
 * What a render tells about the photos it was given (docs/rendering.md "Photos shown and left
 * out"), pure: which are not in the video and why, and which will look soft, in the request's
 * language. No photo is dropped in silence.
 */

const FORMAT_WORDS: Readonly<Record<VideoFormat, Record<Language, string>>> = {
  landscape: { fr: 'paysage', en: 'landscape', ar: 'الأفقي' },
  portrait: { fr: 'portrait', en: 'portrait', ar: 'العمودي' },
  square: { fr: 'carré', en: 'square', ar: 'المربع' },
};

/** Why a photo is not shown, in a sentence naming it ("Photo 6 (salon.jpg) …"). */
export function leftOutMessage(
  reason: PhotoLeftOut['reason'],
  index: number,
  name: string,
  language: Language,
  facts: { durationS?: number; limit?: number; detail?: string } = {},
): string {
  const n = index + 1;
  const seconds = facts.durationS === undefined ? '' : String(Math.round(facts.durationS));
  const texts: Record<PhotoLeftOut['reason'], Record<Language, string>> = {
    duration: {
      fr: `La photo ${n} (${name}) n'est pas dans la vidéo : ${seconds} s ne laissent pas de place pour elle. Allongez la vidéo ou mettez-la plus tôt dans la liste.`,
      en: `Photo ${n} (${name}) is not in the video: ${seconds} s leave no room for it. Make the video longer or put it earlier in the list.`,
      ar: `الصورة ${n} (${name}) ليست في الفيديو: مدة ${seconds} ثانية لا تتسع لها. أطيلوا الفيديو أو ضعوها في مرتبة أسبق.`,
    },
    limit: {
      fr: `La photo ${n} (${name}) n'est pas dans la vidéo : une vidéo prend au plus ${facts.limit ?? ''} photos.`,
      en: `Photo ${n} (${name}) is not in the video: a video takes at most ${facts.limit ?? ''} photos.`,
      ar: `الصورة ${n} (${name}) ليست في الفيديو: يأخذ الفيديو ${facts.limit ?? ''} صورة على الأكثر.`,
    },
    unreadable: {
      fr: `La photo ${n} (${name}) n'a pas pu être lue : ${facts.detail ?? ''}.`,
      en: `Photo ${n} (${name}) could not be read: ${facts.detail ?? ''}.`,
      ar: `تعذرت قراءة الصورة ${n} (${name}): ${facts.detail ?? ''}.`,
    },
    unreachable: {
      fr: `La photo ${n} (${name}) n'a pas pu être téléchargée : ${facts.detail ?? ''}.`,
      en: `Photo ${n} (${name}) could not be downloaded: ${facts.detail ?? ''}.`,
      ar: `تعذر تنزيل الصورة ${n} (${name}): ${facts.detail ?? ''}.`,
    },
    duplicate: {
      fr: `La photo ${n} (${name}) est la même image qu'une précédente : elle n'est montrée qu'une fois.`,
      en: `Photo ${n} (${name}) is the same picture as an earlier one: it is shown once.`,
      ar: `الصورة ${n} (${name}) هي نفس صورة سابقة: تُعرض مرة واحدة.`,
    },
    too_small: {
      fr: `La photo ${n} (${name}) est trop petite pour une vidéo 720p : ${facts.detail ?? ''}.`,
      en: `Photo ${n} (${name}) is too small for a 720p video: ${facts.detail ?? ''}.`,
      ar: `الصورة ${n} (${name}) صغيرة جدا لفيديو 720p: ${facts.detail ?? ''}.`,
    },
  };
  return texts[reason][language];
}

/** The warning that a photo will look soft: it names the photo, its size, how much it is enlarged and where. */
export function softPhotoMessage(
  index: number,
  name: string,
  size: { width: number; height: number },
  enlargement: number,
  format: VideoFormat,
  language: Language,
): string {
  const n = index + 1;
  const factor = enlargement.toFixed(1);
  const where = FORMAT_WORDS[format][language];
  const texts: Record<Language, string> = {
    fr: `La photo ${n} (${name}, ${size.width} × ${size.height}) est agrandie ${factor.replace('.', ',')} × dans la vidéo ${where} et paraîtra floue : donnez-la en plus grand si vous l'avez.`,
    en: `Photo ${n} (${name}, ${size.width} × ${size.height}) is enlarged ${factor} × in the ${where} video and will look soft: give a larger copy if you have one.`,
    ar: `الصورة ${n} (${name}، ${size.width} × ${size.height}) مكبرة ${factor} مرة في الفيديو ${where} وستبدو غير حادة: أرسلوا نسخة أكبر إن وجدت.`,
  };
  return texts[language];
}

/**
 * The photos that are usable but never shown in any of the render's timelines (`used` maps each
 * usable photo to its index in the photos given): left out for the video's length.
 */
export function unshownPhotos(timelines: readonly Timeline[], used: readonly number[]): number[] {
  const shown = new Set(timelines.flatMap((timeline) => timeline.shots.map((shot) => shot.photo)));
  return used.filter((_given, usable) => !shown.has(usable));
}

/** A warning carrying its `photos_left_out` entry. */
export function leftOutWarning(code: string, message: string, photo: PhotoLeftOut): Warning {
  return { code, message, photo };
}

/**
 * Every note of a render about its photos, once its storyboards are built: the photos given past
 * the limit or left out by `loadPhotos` (their warnings get their `photos_left_out` entry), those
 * no timeline shows, and those enlarged past SOFT_ENLARGEMENT in some output (the most enlarged
 * output named).
 */
export function photoNotes(input: {
  given: readonly string[];
  limit: number;
  loaded: LoadedPhotos;
  outputs: readonly { format: VideoFormat; timeline: Timeline }[];
  language: Language;
  durationS: number;
}): Warning[] {
  const { given, loaded, language } = input;
  const name = (index: number): string => describeRef(given[index] as string);
  const entry = (index: number, reason: PhotoLeftOut['reason'], detail?: string): PhotoLeftOut => ({
    index,
    ref: given[index] as string,
    reason,
    message: leftOutMessage(reason, index, name(index), language, {
      durationS: input.durationS,
      limit: input.limit,
      ...(detail === undefined ? {} : { detail }),
    }),
  });
  // loadPhotos' own warnings are in photo order, the dropped ones first: each gets its entry.
  const dropped = loaded.leftOut.filter((l) => l.reason !== 'duplicate');
  const duplicates = loaded.leftOut.filter((l) => l.reason === 'duplicate');
  const warnings = loaded.warnings.map((warning): Warning => {
    const queue = warning.code === 'PHOTO_DROPPED' ? dropped : warning.code === 'PHOTO_DUPLICATE' ? duplicates : [];
    const found = queue.shift();
    return found === undefined ? warning : { ...warning, photo: entry(found.index, found.reason, found.detail) };
  });
  for (const index of unshownPhotos(
    input.outputs.map((o) => o.timeline),
    loaded.indexes,
  )) {
    const photo = entry(index, 'duration');
    warnings.push(leftOutWarning('PHOTO_LEFT_OUT', photo.message, photo));
  }
  for (let index = input.limit; index < given.length; index += 1) {
    const photo = entry(index, 'limit');
    warnings.push(leftOutWarning('PHOTO_LEFT_OUT', photo.message, photo));
  }
  loaded.photos.forEach((photo, usable) => {
    let worst: { enlargement: number; format: VideoFormat } | null = null;
    for (const { format, timeline } of input.outputs) {
      for (const shot of timeline.shots) {
        if (shot.photo !== usable) continue;
        const enlargement = shotEnlargement(photo, shot);
        if (worst === null || enlargement > worst.enlargement) worst = { enlargement, format };
      }
    }
    if (worst === null || worst.enlargement <= SOFT_ENLARGEMENT) return;
    const index = loaded.indexes[usable] as number;
    warnings.push({
      code: 'PHOTO_LOW_RESOLUTION',
      message: softPhotoMessage(
        index,
        name(index),
        { width: photo.originalWidth, height: photo.originalHeight },
        worst.enlargement,
        worst.format,
        language,
      ),
    });
  });
  return warnings;
}

/** What `POST /api/v1/storyboard` answers (docs/api.md "Photos shown and left out"). */
export interface StoryboardPreview {
  duration_s: number;
  photos: { index: number; ref: string; shown: boolean; reason?: 'duration' | 'limit' }[];
}

/**
 * Which photos a render will show, before anything is fetched or decoded (pure): the storyboard of
 * the request's primary format over its photos as given, each assumed readable and of a common
 * shape (how many photo shots a video has depends on its length and facts, not on the photos'
 * sizes). Photos that turn out unreadable or duplicates are only known when the render decodes them.
 */
export function previewStoryboard(listing: Property, request: RenderSpec & { photos: string[] }): StoryboardPreview {
  const template = loadTemplate(request.template);
  const durationS = request.duration_s ?? template.default_duration_s;
  const given = request.photos.length > 0 ? request.photos : listing.photos;
  const refs = given.slice(0, MAX_PHOTOS);
  const shown = new Set<number>();
  if (refs.length > 0) {
    const timeline = buildStoryboard({
      template,
      listing,
      photos: refs.map(() => ({ width: 3, height: 2 })),
      format: request.format,
      durationS,
      language: request.language,
      branding: request.branding,
      hasLogo: request.branding.logo_url !== undefined && request.branding.unbranded !== true,
    });
    for (const shot of timeline.shots) shown.add(shot.photo);
  }
  return {
    duration_s: durationS,
    photos: given.map((ref, index) => {
      if (index >= MAX_PHOTOS) return { index, ref, shown: false, reason: 'limit' as const };
      return shown.has(index) ? { index, ref, shown: true } : { index, ref, shown: false, reason: 'duration' as const };
    }),
  };
}

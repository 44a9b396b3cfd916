import { composeTitle, featureLabel, formatMad, formatNumber, formatSurface, perM2Unit, placePhrase } from '../analysis/labels.js';
import type { Language, ListingFacts, Property, VideoFormat } from '../core/types.js';
import type { Branding } from '../core/requests.js';
import { FORMAT_SIZES, FPS } from './formats.js';
import type { MotionKind, SceneKind, SceneSpec, Template, TransitionKind } from './templates.js';
import { labelCase, word } from './wording.js';

/**
 * The storyboard (docs/architecture.md, pure): template + facts + photos + format + duration → a timeline of
 * shots, in whole frames. Every shot shows a photo moving (Ken Burns); text scenes are cards laid
 * over their shot. Missing facts drop their scene; the timeline adapts to 1..N photos.
 */

export type Direction = 'ltr' | 'rtl';

export type CardContent =
  | { kind: 'title'; badge: string | null; heading: string; subheading: string | null }
  | { kind: 'callout'; text: string }
  | { kind: 'features'; heading: string; items: string[] }
  | { kind: 'stats'; heading: string; items: { value: string; label: string }[] }
  | { kind: 'price'; label: string; price: string; details: string[] }
  | { kind: 'angle'; text: string }
  | { kind: 'contact'; heading: string; name: string | null; agency: string | null; lines: string[]; logo: boolean }
  | { kind: 'closing'; heading: string; subheading: string | null; price: string | null; note: string };

export interface Card {
  id: string;
  content: CardContent;
  /** Frames within the shot: visible from `from` (inclusive) to `to` (exclusive). */
  from: number;
  to: number;
  fadeFrames: number;
}

/** How a photo fills the shot's source image before motion. */
export type Fit =
  /** Scaled to cover the box, the excess cropped. */
  | 'cover'
  /** The whole photo over a blurred, darkened copy of itself (portrait photos in a wide frame). */
  | 'contain_blur';

/** Motion as the plan draws it: a zoom scales the source per frame; a pan moves the crop window. */
export type Motion =
  /**
   * `anchor`: the point of the source (fractions) that stays put in the frame while it scales: its
   * centre, or an edge when the focus is near it; 0, 0.5 or 1 on each axis, so that the crop moves
   * in whole pixels.
   */
  | { type: 'zoom'; kind: MotionKind; from: number; to: number; anchor: { x: number; y: number } }
  | { type: 'pan'; kind: MotionKind; axis: 'x' | 'y'; from: number; to: number };

/** A window of a photo, as fractions of its upright width and height. */
export interface SourceCrop {
  left: number;
  top: number;
  width: number;
  height: number;
}

export type Look = 'plain' | 'dim' | 'backdrop';

export interface Shot {
  index: number;
  scene: SceneKind;
  /** Index into the usable photos. */
  photo: number;
  /** First frame on the output timeline. */
  start: number;
  /** Frames, including the transitions shared with the neighbours. */
  frames: number;
  /** Transition from the previous shot (frames overlap); `cut` and 0 frames for the first. */
  transitionIn: TransitionKind;
  transitionFrames: number;
  /**
   * The image the plan moves over: the `crop` window of the photo fitted into this box (even sizes,
   * ≥ the frame). `contain_blur` shows the whole photo (its crop is the whole).
   */
  source: { width: number; height: number; fit: Fit; crop: SourceCrop };
  motion: Motion;
  look: Look;
  cards: Card[];
}

export interface BrandBug {
  agency: string | null;
  logo: boolean;
  /** Output frames during which it shows. */
  from: number;
  to: number;
}

export interface Timeline {
  template: string;
  format: VideoFormat;
  width: number;
  height: number;
  fps: number;
  frames: number;
  language: Language;
  direction: Direction;
  shots: Shot[];
  fadeInFrames: number;
  fadeOutFrames: number;
  brandBug: BrandBug | null;
  /** Scenes left out, with why (shown in debug output, not as warnings). */
  dropped: { scene: SceneKind; reason: string }[];
}

export interface StoryboardInput {
  template: Template;
  listing: Property;
  /** Usable photos, upright (after EXIF orientation), in the order chosen for the video, with their subject when known. */
  photos: { width: number; height: number; focus?: Focus | null }[];
  format: VideoFormat;
  durationS: number;
  language: Language;
  branding: Branding;
  hasLogo: boolean;
}

/** Scenes kept first when a short video cannot hold them all. */
const KEEP_PRIORITY: Readonly<Record<SceneKind, number>> = {
  intro: 6,
  price: 5,
  outro: 4,
  stats: 3,
  features: 2,
  angles: 1,
  photos: 0,
};

/** A title longer than this is replaced by one composed from the facts (portal titles run long). */
const MAX_TITLE_CHARS = 72;

interface PlannedShot {
  scene: SceneKind;
  seconds: number;
  content: CardContent | null;
  callouts: boolean;
}

function factsOf(listing: Property): ListingFacts {
  return {
    title: null,
    transaction: listing.transaction,
    property_type: listing.property_type,
    price_mad: listing.price_mad,
    price_original: listing.price_original,
    surface_m2: listing.surface_m2,
    surface_total_m2: listing.surface_total_m2,
    rooms: listing.rooms,
    bedrooms: listing.bedrooms,
    bathrooms: listing.bathrooms,
    toilets: listing.toilets ?? null,
    floor: listing.floor,
    city: null,
    district: null,
    offers: [],
    provenance: {},
    feature_keys: listing.feature_keys,
    photos: [],
    description: null,
    warnings: [],
  };
}

/**
 * Whether a title reads as written in `language`: Arabic script for ar, Latin for fr/en, with a few
 * telltale words to tell French from English. A title in another language is replaced by one
 * composed from the facts, so that the video speaks one language.
 */
export function titleFitsLanguage(title: string, language: Language): boolean {
  const letters = title.match(/\p{L}/gu) ?? [];
  if (letters.length === 0) return false;
  const arabic = letters.filter((c) => /\p{Script=Arabic}/u.test(c)).length / letters.length;
  if (language === 'ar') return arabic >= 0.5;
  if (arabic > 0.2) return false;
  const french =
    /(?<!\p{L})(à|avec|chambres?|vendre|louer|appartement|maison|pièces?|salon|cuisine|étage|terrain|neuf|meublée?)(?!\p{L})/iu;
  const english = /(?<!\p{L})(for sale|for rent|bedrooms?|bathrooms?|apartment|flat|house|with|floor|furnished)(?!\p{L})/iu;
  return language === 'fr' ? !english.test(title) || french.test(title) : !french.test(title);
}

function priceText(listing: Property, language: Language): string | null {
  if (listing.price_mad === null || listing.price_mad <= 0) return null;
  const amount = formatMad(listing.price_mad, language);
  return listing.transaction === 'rent' ? `${amount} ${word('perMonth', language)}` : amount;
}

/** The texts of every scene the listing has facts for; a scene whose facts are missing is absent. */
export function sceneContents(input: StoryboardInput): {
  contents: Map<SceneKind, CardContent[]>;
  callouts: string[];
  dropped: { scene: SceneKind; reason: string }[];
} {
  const { listing, language, template, branding } = input;
  const upper = template.style.uppercase_labels;
  const contents = new Map<SceneKind, CardContent[]>();
  const dropped: { scene: SceneKind; reason: string }[] = [];
  const place = placePhrase(listing.city, listing.district, language);
  const price = priceText(listing, language);

  // Intro: the listing's own title when it is short and in the video's language, else one composed from the facts.
  const ownTitle = listing.title.replace(/\s+/g, ' ').trim();
  const title =
    ownTitle !== '' && ownTitle.length <= MAX_TITLE_CHARS && titleFitsLanguage(ownTitle, language)
      ? ownTitle
      : composeTitle(factsOf(listing), language);
  const mentionsPlace = (text: string): boolean =>
    [listing.city, listing.district].some(
      (name) => name !== null && name !== '' && text.toLocaleLowerCase().includes(name.toLocaleLowerCase()),
    );
  // The place on its own line: a title ending "… — Maârif, Casablanca" is cut at its last dash, the
  // place becoming the line under it.
  const dash = /\s[—–-]\s(?!.*\s[—–-]\s)/u.exec(title);
  const placeAfterDash = dash !== null && mentionsPlace(title.slice(dash.index + dash[0].length)) && dash.index > 0;
  const heading = placeAfterDash && dash !== null ? title.slice(0, dash.index).trim() : title;
  const headingPlace = placeAfterDash && dash !== null ? title.slice(dash.index + dash[0].length).trim() : null;
  const headingMentionsPlace = headingPlace === null && mentionsPlace(heading);
  // No badge that repeats the title ("شقة للبيع" under a "للبيع" badge).
  const transactionWord = listing.transaction === null ? null : word(listing.transaction === 'rent' ? 'rent' : 'sale', language);
  const badge =
    transactionWord === null || heading.toLocaleLowerCase().includes(transactionWord.toLocaleLowerCase())
      ? null
      : labelCase(transactionWord, language, upper);
  const subheading = headingPlace ?? (headingMentionsPlace ? null : place);
  contents.set('intro', [{ kind: 'title', badge, heading, subheading }]);

  const featureNames = [...new Set(listing.feature_keys)].map((key) => featureLabel(key, language));
  const featuresSpec = template.scenes.find((s): s is Extract<SceneSpec, { kind: 'features' }> => s.kind === 'features');
  const cardFeatures = featuresSpec === undefined ? [] : featureNames.slice(0, featuresSpec.max_items);
  if (featuresSpec !== undefined) {
    if (cardFeatures.length >= 2) {
      contents.set('features', [
        { kind: 'features', heading: labelCase(word('highlights', language), language, upper), items: cardFeatures },
      ]);
    } else dropped.push({ scene: 'features', reason: 'fewer than 2 features' });
  }
  // Callouts name the features the card does not, then repeat from the start if shots remain.
  const callouts = [...featureNames.filter((name) => !cardFeatures.includes(name) || !contents.has('features')), ...featureNames];

  const stats: { value: string; label: string }[] = [];
  if (listing.surface_m2 !== null && listing.surface_m2 > 0)
    stats.push({ value: formatSurface(listing.surface_m2, language), label: word('surface', language) });
  if (listing.bedrooms !== null && listing.bedrooms > 0) stats.push({ value: String(listing.bedrooms), label: word('bedrooms', language) });
  else if (listing.rooms !== null && listing.rooms > 0) stats.push({ value: String(listing.rooms), label: word('rooms', language) });
  if (listing.bathrooms !== null && listing.bathrooms > 0)
    stats.push({ value: String(listing.bathrooms), label: word('bathrooms', language) });
  if (listing.price_per_m2_mad !== null && listing.price_per_m2_mad > 0 && listing.transaction !== 'rent') {
    stats.push({
      value: `${formatNumber(listing.price_per_m2_mad, language)} ${perM2Unit(language)}`,
      label: word('pricePerM2', language),
    });
  }
  if (stats.length >= 2)
    contents.set('stats', [{ kind: 'stats', heading: labelCase(word('keyFigures', language), language, upper), items: stats }]);
  else dropped.push({ scene: 'stats', reason: 'fewer than 2 of surface, rooms, bathrooms, price per m²' });

  // A price the analysis holds back as doubtful is not put on screen (docs/analysis.md "Held back").
  const priceHeldBack = (listing.held_back ?? []).some((fact) => fact.field === 'price');
  if (price !== null && priceHeldBack) dropped.push({ scene: 'price', reason: 'price held back: not confirmed' });
  else if (price !== null) {
    const details: string[] = [];
    const position = listing.market?.position ?? null;
    if (position === 'below') details.push(word('marketBelow', language));
    else if (position === 'in_line') details.push(word('marketInLine', language));
    contents.set('price', [
      {
        kind: 'price',
        label: labelCase(word(listing.transaction === 'rent' ? 'monthlyRent' : 'price', language), language, upper),
        price,
        details,
      },
    ]);
  } else dropped.push({ scene: 'price', reason: 'no price' });

  const anglesSpec = template.scenes.find((s): s is Extract<SceneSpec, { kind: 'angles' }> => s.kind === 'angles');
  if (anglesSpec !== undefined) {
    // Angles are sentences written at analysis time: only shown when they are in the video's language.
    const angles = listing.language === language ? listing.marketing_angles.filter((a) => a.trim() !== '') : [];
    if (angles.length > 0)
      contents.set(
        'angles',
        angles.slice(0, anglesSpec.count).map((text) => ({ kind: 'angle', text })),
      );
    else
      dropped.push({
        scene: 'angles',
        reason: listing.marketing_angles.length === 0 ? 'no marketing angles' : `angles are not in ${language}`,
      });
  }

  const agent = branding.unbranded ? null : cleanOptional(branding.agent_name);
  const agency = branding.unbranded ? null : cleanOptional(branding.agency_name);
  const lines = branding.unbranded
    ? []
    : [cleanOptional(branding.phone), cleanOptional(branding.email)].filter((l): l is string => l !== null);
  const logo = !branding.unbranded && input.hasLogo;
  if (agent !== null || agency !== null || lines.length > 0 || logo) {
    contents.set('outro', [
      { kind: 'contact', heading: labelCase(word('contact', language), language, upper), name: agent, agency, lines, logo },
    ]);
  } else {
    contents.set('outro', [{ kind: 'closing', heading, subheading, price, note: word('visits', language) }]);
  }
  return { contents, callouts, dropped };
}

function cleanOptional(value: string | undefined): string | null {
  const text = value?.replace(/\s+/g, ' ').trim() ?? '';
  return text === '' ? null : text;
}

/** Splits `count` items between groups in proportion to their weights (largest remainders). */
export function apportion(count: number, weights: number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  if (count <= 0 || total <= 0) return weights.map(() => 0);
  const exact = weights.map((w) => (count * w) / total);
  const result = exact.map(Math.floor);
  let left = count - result.reduce((a, b) => a + b, 0);
  const order = exact.map((e, i) => ({ i, r: e - Math.floor(e) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    result[i] = (result[i] as number) + 1;
    left -= 1;
  }
  return result;
}

/** Which scenes, in which order, each with its length in seconds (before frame rounding). */
function planScenes(
  input: StoryboardInput,
  contents: Map<SceneKind, CardContent[]>,
  dropped: { scene: SceneKind; reason: string }[],
): PlannedShot[] {
  const { template, durationS } = input;
  const transitionS = template.transition.kind === 'cut' ? 0 : template.transition.duration_s;
  const { min_s: minS, preferred_s: preferredS, max_s: maxS } = template.shots;
  const pace = Math.min(1.25, Math.max(0.75, durationS / template.default_duration_s));

  // Text scenes, one shot per card, in template order.
  let textScenes: { order: number; shot: PlannedShot }[] = [];
  template.scenes.forEach((spec, order) => {
    if (spec.kind === 'photos') return;
    for (const content of contents.get(spec.kind) ?? []) {
      textScenes.push({
        order,
        shot: { scene: spec.kind, seconds: Math.min(maxS, Math.max(minS, spec.duration_s * pace)), content, callouts: false },
      });
    }
  });
  // A short video drops the least important text scenes until the rest fit at their shortest.
  const fits = (n: number): boolean => n === 0 || n * minS - (n - 1) * transitionS <= durationS + 1e-9;
  while (!fits(textScenes.length)) {
    const weakest = textScenes.reduce((a, b) => (KEEP_PRIORITY[b.shot.scene] < KEEP_PRIORITY[a.shot.scene] ? b : a));
    dropped.push({ scene: weakest.shot.scene, reason: `no room in ${durationS} s` });
    textScenes = textScenes.filter((t) => t !== weakest);
  }

  const textSeconds = textScenes.reduce((sum, t) => sum + t.shot.seconds, 0);
  const nText = textScenes.length;
  // Each photo shot adds (length − transition) to the timeline.
  const room = durationS - textSeconds + (nText - 1) * transitionS;
  const ideal = Math.max(0, Math.round(room / (preferredS - transitionS)));
  const unused = Math.max(0, input.photos.length - nText);
  let photoShots = Math.min(ideal, unused);
  // Too few fresh photos: text scenes stretch up to their longest, then photos come back with another motion.
  const longest = textScenes.reduce((sum, t) => sum + maxS - t.shot.seconds, 0);
  while (photoShots < ideal && room - photoShots * (maxS - transitionS) > longest + 1e-9) photoShots += 1;
  if (nText === 0) photoShots = Math.max(1, photoShots);

  const groups = template.scenes.map((spec, order) => ({ spec, order })).filter((g) => g.spec.kind === 'photos');
  const perGroup = apportion(
    photoShots,
    groups.map((g) => (g.spec.kind === 'photos' ? g.spec.share : 0)),
  );
  const shots: PlannedShot[] = [];
  template.scenes.forEach((spec, order) => {
    if (spec.kind === 'photos') {
      const index = groups.findIndex((g) => g.order === order);
      for (let i = 0; i < (perGroup[index] ?? 0); i += 1)
        shots.push({ scene: 'photos', seconds: preferredS, content: null, callouts: spec.callouts });
    } else {
      for (const t of textScenes.filter((x) => x.order === order)) shots.push(t.shot);
    }
  });
  // Stretch or shrink every shot alike so that the timeline lasts exactly the requested duration.
  const nominal = shots.reduce((sum, s) => sum + s.seconds, 0);
  const target = durationS + (shots.length - 1) * transitionS;
  const factor = target / nominal;
  for (const shot of shots) shot.seconds *= factor;
  return shots;
}

/** A point of a photo, as fractions of its upright width and height (0,0 top left). */
export interface Focus {
  x: number;
  y: number;
}

/**
 * How far (a fraction of the frame's side) the focus stays from the frame's edges, from the first
 * frame of a shot to the last (docs/rendering.md "Framing").
 */
export const FOCUS_MARGIN = 0.14;

/** The photo's subject, or its centre when nothing better is known. */
function focusOf(photo: { focus?: Focus | null }): Focus {
  const f = photo.focus ?? { x: 0.5, y: 0.5 };
  const clamp = (v: number): number => Math.min(1, Math.max(0, Number.isFinite(v) ? v : 0.5));
  return { x: clamp(f.x), y: clamp(f.y) };
}

/** Where a window of `size` pixels starts along a span of `span` so that `at` sits at its centre, kept inside the span. */
function centredOn(at: number, size: number, span: number): number {
  return Math.min(Math.max(0, at - size / 2), Math.max(0, span - size));
}

/**
 * A pan along one axis of the scaled photo (`span` pixels, the focus at `at`): the frame (`side`
 * pixels) moves `travel` pixels inside a window of side + travel. The focus stays at least `margin`
 * inside the frame at both ends (so on every frame between), the travel shrinking when the focus
 * is too near the photo's edge for the whole of it. Returns where the window starts and the travel kept.
 */
export function panWindow(
  span: number,
  side: number,
  at: number,
  wantedTravel: number,
  marginFraction: number,
): { start: number; travel: number } {
  // Near the photo's edge the margin cannot be kept in full: the focus is then as far in as it can be.
  const margin = Math.max(0, Math.min(marginFraction * side, at, span - at, side / 2));
  const lowest = Math.max(0, at - side + margin);
  const most = Math.min(at - margin - lowest, span - side - lowest);
  const travel = Math.max(2, 2 * Math.floor(Math.min(wantedTravel, Math.max(0, most)) / 2));
  const highest = Math.min(at - travel - margin, span - side - travel);
  const start = Math.min(Math.max(at - (side + travel) / 2, lowest), Math.max(lowest, highest));
  return { start: Math.max(0, Math.min(start, span - side - travel)), travel };
}

/** A photo at least this many times as wide as tall is a panorama (docs/rendering.md "Panoramas"). */
const PANORAMA_ASPECT = 2;

/**
 * A panorama sweep crosses at most one frame width in this many seconds: 4.3 px a frame in
 * landscape, 2.4 px in portrait and square at 60 fps (docs/rendering.md "Panoramas").
 */
export const PANORAMA_CROSSING_S = 5;

/** Share of a panorama sweep's frames in which its subject is in view, at least (docs/rendering.md "Panoramas"). */
export const PANORAMA_SUBJECT_SHARE = 0.6;

/** How far inside the frame's leading edge the subject counts as in view during a sweep (a fraction of the frame's side). */
const IN_VIEW_MARGIN = 0.05;

/** Whether a photo is a panorama swept across the frame (wider than twice its height and than the frame by half). */
export function isPanoramaSweep(photo: { width: number; height: number }, frame: { width: number; height: number }): boolean {
  const aspect = photo.width / photo.height;
  return aspect >= PANORAMA_ASPECT && aspect > (frame.width / frame.height) * SWEEP_RATIO;
}

/** A photo wider than the frame by this ratio is swept across rather than cropped (docs/rendering.md "Framing"). */
const SWEEP_RATIO = 1.45;

/**
 * A panorama swept across the frame (docs/rendering.md "Panoramas"): the photo at the frame's
 * height, the camera starting on the side of the photo away from the subject and coming to rest
 * with the subject on the third line of the frame it came from — in view for the last
 * `PANORAMA_SUBJECT_SHARE` of the shot at least, and never away from it. The travel is as long as
 * that share, the photo's edges and the panorama speed (one frame width in `PANORAMA_CROSSING_S`,
 * or the template's own limit when higher) allow.
 */
function panoramaSweep(
  photo: { width: number; height: number },
  frame: { width: number; height: number },
  focus: Focus,
  template: Template,
  seconds: number,
): { source: Shot['source']; motion: Motion } {
  const side = frame.width;
  const span = (frame.height * photo.width) / photo.height;
  // The pan runs towards the subject from the longer stretch of photo before it. Distances below
  // are measured along the pan: `at` from the side it starts on.
  const forward = focus.x >= 0.5;
  const at = forward ? focus.x * span : (1 - focus.x) * span;
  // The last frame: the subject on the third line on the side the camera comes from (as near it
  // as the photo's far edge allows).
  const end = Math.min(Math.max(0, at - side / 3), span - side);
  // The subject comes into view (IN_VIEW_MARGIN inside the leading edge) `inView` pixels before the end.
  const inView = Math.max(0, end - (at - side * (1 - IN_VIEW_MARGIN)));
  const speed = Math.max(template.motion.max_pan_px_per_s, side / PANORAMA_CROSSING_S);
  const travel = Math.max(2, 2 * Math.floor(Math.min(speed * seconds, inView / PANORAMA_SUBJECT_SHARE, end) / 2));
  const startAlong = Math.max(0, end - travel);
  const left = forward ? startAlong : Math.max(0, span - startAlong - (side + travel));
  return {
    source: {
      width: side + travel,
      height: frame.height,
      fit: 'cover',
      crop: { left: left / span, top: 0, width: (side + travel) / span, height: 1 },
    },
    motion: { type: 'pan', kind: forward ? 'pan_right' : 'pan_left', axis: 'x', from: forward ? 0 : 1, to: forward ? 1 : 0 },
  };
}

/**
 * Where a photo sits in the frame, and how the camera moves over it (docs/rendering.md "Framing").
 * The source is a window of the photo chosen around its focus; zooms keep the focus where it is in
 * the frame (or go towards it), pans keep it in frame from the first frame to the last and move
 * towards it.
 */
export function shotGeometry(
  photo: { width: number; height: number; focus?: Focus | null },
  frame: { width: number; height: number },
  wanted: MotionKind,
  template: Template,
  seconds: number,
  shotIndex: number,
): { source: Shot['source']; motion: Motion } {
  const even = (v: number): number => 2 * Math.round(v / 2);
  const photoAspect = photo.width / photo.height;
  const frameAspect = frame.width / frame.height;
  const focus = focusOf(photo);
  const { zoom, pan, max_pan_px_per_s: maxSpeed } = template.motion;
  // A photo much wider than the frame (landscape photo in a portrait video, panoramas) is swept
  // across; much narrower (portrait photo in a wide frame) is shown whole over a blurred copy.
  const sweep = photoAspect > frameAspect * SWEEP_RATIO;
  if (isPanoramaSweep(photo, frame)) return panoramaSweep(photo, frame, focus, template, seconds);
  const fit: Fit = photoAspect < frameAspect * 0.72 ? 'contain_blur' : 'cover';
  let kind = wanted;
  if (sweep && kind !== 'pan_left' && kind !== 'pan_right') kind = shotIndex % 2 === 0 ? 'pan_right' : 'pan_left';
  const whole: SourceCrop = { left: 0, top: 0, width: 1, height: 1 };

  if (kind === 'zoom_in' || kind === 'zoom_out') {
    const scale = 1 + zoom;
    const box = { width: even(frame.width * scale), height: even(frame.height * scale) };
    let crop = whole;
    let anchor = { x: 0.5, y: 0.5 };
    if (fit === 'cover') {
      const s = Math.max(box.width / photo.width, box.height / photo.height);
      const spanW = photo.width * s;
      const spanH = photo.height * s;
      const left = centredOn(focus.x * spanW, box.width, spanW);
      const top = centredOn(focus.y * spanH, box.height, spanH);
      crop = { left: left / spanW, top: top / spanH, width: box.width / spanW, height: box.height / spanH };
      // Zooming about the centre moves the focus outwards by the zoom: when that would take it near
      // the frame's edge, the zoom is anchored at that edge instead (the focus then moves inwards).
      const anchorFor = (inBox: number): number => {
        const atFullZoom = (inBox - 0.5) * scale + 0.5;
        if (atFullZoom >= FOCUS_MARGIN && atFullZoom <= 1 - FOCUS_MARGIN) return 0.5;
        return inBox < 0.5 ? 0 : 1;
      };
      anchor = { x: anchorFor((focus.x * spanW - left) / box.width), y: anchorFor((focus.y * spanH - top) / box.height) };
    }
    return {
      source: { ...box, fit, crop },
      motion: { type: 'zoom', kind, from: kind === 'zoom_in' ? 1 : scale, to: kind === 'zoom_in' ? scale : 1, anchor },
    };
  }
  const horizontal = kind === 'pan_left' || kind === 'pan_right';
  const frameSide = horizontal ? frame.width : frame.height;
  let travel = Math.min(frameSide * pan, maxSpeed * seconds);
  if (sweep) {
    // As far across the photo as the speed limit allows, never past its edges.
    const photoSpan = frame.height * photoAspect;
    travel = Math.max(travel, Math.min(maxSpeed * seconds, photoSpan - frame.width));
  }
  travel = Math.max(2, even(travel));
  const wantedBox = horizontal
    ? { width: frame.width + travel, height: frame.height }
    : { width: frame.width, height: frame.height + travel };
  let crop = whole;
  let forward = kind === 'pan_right' || kind === 'pan_down';
  if (fit === 'cover') {
    const s = Math.max(wantedBox.width / photo.width, wantedBox.height / photo.height);
    const spanW = photo.width * s;
    const spanH = photo.height * s;
    const along = horizontal ? { span: spanW, at: focus.x * spanW } : { span: spanH, at: focus.y * spanH };
    const window = panWindow(along.span, frameSide, along.at, travel, FOCUS_MARGIN);
    travel = window.travel;
    const box = horizontal ? { width: frame.width + travel, height: frame.height } : { width: frame.width, height: frame.height + travel };
    const left = horizontal ? window.start : centredOn(focus.x * spanW, box.width, spanW);
    const top = horizontal ? centredOn(focus.y * spanH, box.height, spanH) : window.start;
    crop = { left: left / spanW, top: top / spanH, width: box.width / spanW, height: box.height / spanH };
    // Towards the subject: the direction that ends with the focus nearer the frame's centre.
    const atStart = Math.abs(along.at - window.start - frameSide / 2);
    const atEnd = Math.abs(along.at - window.start - travel - frameSide / 2);
    if (Math.abs(atStart - atEnd) > 1) forward = atEnd < atStart;
    kind = horizontal ? (forward ? 'pan_right' : 'pan_left') : forward ? 'pan_down' : 'pan_up';
  }
  const source = horizontal
    ? { width: frame.width + travel, height: frame.height, fit, crop }
    : { width: frame.width, height: frame.height + travel, fit, crop };
  return { source, motion: { type: 'pan', kind, axis: horizontal ? 'x' : 'y', from: forward ? 0 : 1, to: forward ? 1 : 0 } };
}

/**
 * Panorama shots made longer, up to the template's longest shot, with time taken from the shots
 * of ordinary photos (`photos` scenes), which stay at least the template's shortest: a panorama
 * is then swept further (docs/rendering.md "Panoramas"). No shot is added or removed, so the
 * photos shown stay the same; text scenes keep their reading time; the total is unchanged.
 */
export function lengthenPanoramas(
  shots: { scene: SceneKind; seconds: number; panorama: boolean }[],
  limits: { min_s: number; max_s: number },
): number[] {
  // The outro's photo is only a blurred backdrop: a longer one would sweep nothing anyone sees.
  const wants = shots.map((s) => (s.panorama && s.scene !== 'outro' ? Math.max(0, limits.max_s - s.seconds) : 0));
  const spare = shots.map((s) => (!s.panorama && s.scene === 'photos' ? Math.max(0, s.seconds - limits.min_s) : 0));
  const wanted = wants.reduce((a, b) => a + b, 0);
  const available = spare.reduce((a, b) => a + b, 0);
  const moved = Math.min(wanted, available);
  if (moved <= 0) return shots.map((s) => s.seconds);
  return shots.map((s, i) => s.seconds + (moved * (wants[i] as number)) / wanted - (moved * (spare[i] as number)) / available);
}

/** Whole frames for every shot, the timeline summing exactly to `frames`. */
function toFrames(seconds: number[], transitionFrames: number, frames: number): number[] {
  const lengths = seconds.map((s) => Math.max(transitionFrames * 2 + 1, Math.round(s * FPS)));
  const total = lengths.reduce((a, b) => a + b, 0) - (lengths.length - 1) * transitionFrames;
  // Rounding leaves a few frames over or under: give them to (or take them from) the longest shot.
  const longest = lengths.indexOf(Math.max(...lengths));
  lengths[longest] = (lengths[longest] as number) + (frames - total);
  return lengths;
}

export function buildStoryboard(input: StoryboardInput): Timeline {
  const { template, language, format } = input;
  if (input.photos.length === 0) throw new Error('buildStoryboard needs at least one photo');
  const { width, height } = FORMAT_SIZES[format];
  const frames = Math.round(input.durationS * FPS);
  const { contents, callouts, dropped } = sceneContents(input);
  const planned = planScenes(input, contents, dropped);
  const photoCount = input.photos.length;
  // The hero photo opens the video; the others follow in order, then come round again.
  const first = planned[0]?.scene === 'intro' ? 1 % photoCount : 0;
  const photoOf = planned.map((_, index) => (index === 0 ? 0 : (first + index - 1) % photoCount));
  const panorama = photoOf.map((photo) => isPanoramaSweep(input.photos[photo] as StoryboardInput['photos'][number], { width, height }));
  const cut = template.transition.kind === 'cut';
  const transitionFrames = cut ? 0 : Math.round(template.transition.duration_s * FPS);
  const lengths = toFrames(
    lengthenPanoramas(
      planned.map((p, i) => ({ scene: p.scene, seconds: p.seconds, panorama: panorama[i] as boolean })),
      template.shots,
    ),
    transitionFrames,
    frames,
  );

  const direction: Direction = language === 'ar' ? 'rtl' : 'ltr';
  const calloutQueue = [...callouts];
  const shots: Shot[] = [];
  let start = 0;
  planned.forEach((plan, index) => {
    const length = lengths[index] as number;
    const photo = photoOf[index] as number;
    const transitionIn: TransitionKind = index === 0 ? 'cut' : template.transition.kind;
    const tin = index === 0 ? 0 : transitionFrames;
    const tout = index === planned.length - 1 ? 0 : transitionFrames;
    const wanted = template.motion.sequence[index % template.motion.sequence.length] as MotionKind;
    const geometry = shotGeometry(
      input.photos[photo] as StoryboardInput['photos'][number],
      { width, height },
      wanted,
      template,
      length / FPS,
      index,
    );
    const cards: Card[] = [];
    const settle = index === 0 ? Math.max(Math.round(template.fade_in_s * FPS), Math.round(0.3 * FPS)) : tin + Math.round(0.15 * FPS);
    const leave = index === planned.length - 1 ? length : length - tout - Math.round(0.1 * FPS);
    const addCard = (id: string, content: CardContent, delay: number): void => {
      const from = Math.min(settle + delay, leave - 2);
      const fadeFrames = Math.max(1, Math.min(Math.round(0.35 * FPS), Math.floor((leave - from) / 4)));
      cards.push({ id, content, from, to: leave, fadeFrames });
    };
    if (plan.content !== null) addCard(`${plan.scene}-${index}`, plan.content, 0);
    if (plan.callouts && calloutQueue.length > 0) {
      addCard(`callout-${index}`, { kind: 'callout', text: calloutQueue.shift() as string }, Math.round(0.45 * FPS));
    }
    const look: Look = plan.scene === 'outro' ? 'backdrop' : plan.content !== null && plan.scene !== 'intro' ? 'dim' : 'plain';
    shots.push({
      index,
      scene: plan.scene,
      photo,
      start,
      frames: length,
      transitionIn,
      transitionFrames: tin,
      source: geometry.source,
      motion: geometry.motion,
      look,
      cards,
    });
    start += length - tout;
  });

  let brandBug: BrandBug | null = null;
  const agency = input.branding.unbranded ? null : cleanOptional(input.branding.agency_name);
  const logo = !input.branding.unbranded && input.hasLogo;
  if (template.style.brand_bug && (agency !== null || logo)) {
    const outro = shots.find((s) => s.scene === 'outro');
    const end = outro === undefined ? frames : outro.start;
    const from = Math.min(Math.round(Math.max(template.fade_in_s, 0.5) * FPS), end);
    if (end - from > FPS) brandBug = { agency, logo, from, to: end };
  }

  return {
    template: template.name,
    format,
    width,
    height,
    fps: FPS,
    frames,
    language,
    direction,
    shots,
    fadeInFrames: Math.round(template.fade_in_s * FPS),
    fadeOutFrames: Math.round(template.fade_out_s * FPS),
    brandBug,
    dropped,
  };
}

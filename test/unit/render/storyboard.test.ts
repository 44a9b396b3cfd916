import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MotionKind } from '../../../src/render/templates.js';
import { FORMAT_SIZES } from '../../../src/render/formats.js';
import type { VideoFormat } from '../../../src/core/types.js';
import {
  apportion,
  FOCUS_MARGIN,
  type Focus,
  isPanoramaSweep,
  lengthenPanoramas,
  PANORAMA_CROSSING_S,
  PANORAMA_SUBJECT_SHARE,
  type Shot,
  buildStoryboard,
  shotGeometry,
  titleFitsLanguage,
  type StoryboardInput,
  type Timeline,
} from '../../../src/render/storyboard.js';
import { loadTemplate } from '../../../src/render/templates.js';
import { demoProperty, LANDSCAPE_PHOTO, photos, PORTRAIT_PHOTO } from '../../helpers/plan-fixtures.js';

const classic = loadTemplate('classic');
const branding = {
  agency_name: 'Atlas Immobilier',
  agent_name: 'Salma Bennani',
  phone: '+212 6 00 00 00 00',
  email: 'contact@atlas.example',
};

function board(overrides: Partial<StoryboardInput> = {}): Timeline {
  return buildStoryboard({
    template: classic,
    listing: demoProperty(),
    photos: photos(8),
    format: 'landscape',
    durationS: 30,
    language: 'fr',
    branding,
    hasLogo: false,
    ...overrides,
  });
}

/** Frames the timeline really lasts: shots minus the frames they share in transitions. */
function timelineFrames(timeline: Timeline): number {
  return timeline.shots.reduce((sum, s) => sum + s.frames - s.transitionFrames, 0);
}

function allTexts(timeline: Timeline): string {
  return JSON.stringify(timeline.shots.flatMap((s) => s.cards.map((c) => c.content)));
}

describe('storyboard', () => {
  it('lays the demo listing out as a 30 s timeline of exactly 1800 frames, one photo per shot', () => {
    const timeline = board();
    expect(timeline.frames).toBe(1800);
    expect(timelineFrames(timeline)).toBe(1800);
    const last = timeline.shots[timeline.shots.length - 1]!;
    expect(last.start + last.frames).toBe(1800);
    expect(timeline.shots.map((s) => s.scene)).toEqual(['intro', 'photos', 'stats', 'features', 'photos', 'price', 'angles', 'outro']);
    // Eight photos, eight shots: each photo once, the hero first.
    expect(timeline.shots.map((s) => s.photo)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // Shots follow each other, overlapping by the transition.
    for (let i = 1; i < timeline.shots.length; i += 1) {
      const previous = timeline.shots[i - 1]!;
      const shot = timeline.shots[i]!;
      expect(shot.transitionFrames).toBe(30);
      expect(shot.start).toBe(previous.start + previous.frames - shot.transitionFrames);
    }
    expect(timeline.shots[0]!.transitionIn).toBe('cut');
  });

  it('keeps every card inside its shot, clear of the transitions', () => {
    for (const shot of board().shots) {
      const tail = shot.index === 7 ? 0 : 30;
      for (const card of shot.cards) {
        expect(card.from).toBeGreaterThanOrEqual(shot.transitionFrames);
        expect(card.to).toBeLessThanOrEqual(shot.frames - tail);
        expect(card.to - card.from).toBeGreaterThan(60);
      }
    }
  });

  it('draws no للبيع badge over an Arabic title that says للبيع', () => {
    const arabic = (title: string): Timeline =>
      board({ language: 'ar', listing: demoProperty({ title, language: 'ar', marketing_angles: [] }) });
    const intro = (timeline: Timeline) => timeline.shots[0]!.cards.find((card) => card.content.kind === 'title')!.content;
    expect(intro(arabic('شقة للبيع في المعاريف'))).toMatchObject({ badge: null, heading: 'شقة للبيع في المعاريف' });
    expect(intro(arabic('شقة 3 غرف نوم مع شرفة'))).toMatchObject({ badge: 'للبيع' });
  });

  it('writes the texts of the listing in French: title, badge, stats, price, contact', () => {
    const texts = allTexts(board());
    // The place on its own line, under the title it ended.
    expect(texts).toContain('"heading":"Appartement 3 chambres avec terrasse à vendre","subheading":"Maârif, Casablanca"');
    // The title already says "à vendre": no badge repeats it; a title that does not say it gets one.
    expect(texts).not.toContain('À VENDRE');
    expect(allTexts(board({ listing: demoProperty({ title: 'Appartement 3 chambres avec terrasse — Maârif' }) }))).toContain('À VENDRE');
    expect(texts).toContain('120 m²');
    expect(texts).toContain('1 850 000 DH');
    expect(texts).toContain('15 417 DH/m²');
    expect(texts).toContain('Salma Bennani');
    expect(texts).toContain('+212 6 00 00 00 00');
  });

  it('adapts to a single photo: every shot reuses it with another motion', () => {
    const timeline = board({ photos: photos(1) });
    expect(timelineFrames(timeline)).toBe(1800);
    expect(new Set(timeline.shots.map((s) => s.photo))).toEqual(new Set([0]));
    const motions = timeline.shots.map((s) => s.motion.kind);
    for (let i = 1; i < motions.length; i += 1) expect(motions[i]).not.toBe(motions[i - 1]);
  });

  it('drops the price card when the price is missing, and the stats card without figures', () => {
    const noPrice = board({ listing: demoProperty({ price_mad: null, price_per_m2_mad: null }) });
    expect(noPrice.shots.some((s) => s.scene === 'price')).toBe(false);
    expect(allTexts(noPrice)).not.toContain('DH');
    expect(noPrice.dropped).toContainEqual({ scene: 'price', reason: 'no price' });
    expect(timelineFrames(noPrice)).toBe(1800);

    const bare = board({
      listing: demoProperty({ surface_m2: null, bedrooms: null, rooms: null, bathrooms: null, price_per_m2_mad: null, feature_keys: [] }),
    });
    expect(bare.shots.map((s) => s.scene)).not.toContain('stats');
    expect(bare.shots.map((s) => s.scene)).not.toContain('features');
    expect(timelineFrames(bare)).toBe(1800);
  });

  it('fits a 10 s video by dropping the least important scenes, keeping intro, price and outro', () => {
    const timeline = board({ durationS: 10 });
    expect(timelineFrames(timeline)).toBe(600);
    const scenes = timeline.shots.map((s) => s.scene);
    expect(scenes).toContain('intro');
    expect(scenes).toContain('price');
    expect(scenes).toContain('outro');
    expect(scenes).not.toContain('angles');
    for (const shot of timeline.shots) expect(shot.frames).toBeGreaterThan(2 * shot.transitionFrames);
  });

  it('removes agent and agency when unbranded: a closing card instead of the contact, no corner mark', () => {
    const timeline = board({ branding: { ...branding, unbranded: true }, hasLogo: true });
    const outro = timeline.shots.find((s) => s.scene === 'outro')!;
    expect(outro.cards[0]!.content.kind).toBe('closing');
    expect(allTexts(timeline)).not.toContain('Salma');
    expect(allTexts(timeline)).not.toContain('Atlas');
    expect(timeline.brandBug).toBeNull();
    expect(board().brandBug).not.toBeNull();
  });

  it('speaks Arabic right to left, composing an Arabic title for a French listing', () => {
    const timeline = board({ language: 'ar', listing: demoProperty({ language: 'ar', marketing_angles: [] }) });
    expect(timeline.direction).toBe('rtl');
    const intro = timeline.shots[0]!.cards[0]!.content;
    expect(intro.kind).toBe('title');
    if (intro.kind === 'title') {
      expect(intro.heading).toMatch(/\p{Script=Arabic}/u);
      expect(intro.heading).not.toMatch(/Appartement/);
      expect(intro.badge).toBe('للبيع');
    }
    expect(allTexts(timeline)).toContain('درهم');
    // Angles written in French are not shown in an Arabic video.
    expect(timeline.shots.map((s) => s.scene)).not.toContain('angles');
  });

  it('sweeps across landscape photos in a portrait video and shows portrait photos whole in a wide one', () => {
    const portrait = board({ format: 'portrait', photos: photos(8, LANDSCAPE_PHOTO) });
    expect(portrait.width).toBe(720);
    expect(portrait.height).toBe(1280);
    for (const shot of portrait.shots) {
      expect(shot.motion.type).toBe('pan');
      if (shot.motion.type === 'pan') expect(shot.motion.axis).toBe('x');
      expect(shot.source.width).toBeGreaterThan(720);
      expect(shot.source.height).toBe(1280);
    }
    const wide = board({ photos: [PORTRAIT_PHOTO] });
    expect(wide.shots.every((s) => s.source.fit === 'contain_blur')).toBe(true);
  });
});

describe('shot geometry', () => {
  const frame = { width: 1280, height: 720 };
  it('zooms over a source exactly (1 + zoom) times the frame, in even sizes', () => {
    const { source, motion } = shotGeometry(LANDSCAPE_PHOTO, frame, 'zoom_in', classic, 4, 0);
    expect(source).toMatchObject({ width: 1408, height: 792, fit: 'cover' });
    // No focus known: the centre of the photo, the zoom about the centre.
    expect(source.crop.left).toBe(0);
    expect(source.crop.top + source.crop.height / 2).toBeCloseTo(0.5, 9);
    expect(motion).toEqual({ type: 'zoom', kind: 'zoom_in', from: 1, to: 1.1, anchor: { x: 0.5, y: 0.5 } });
  });

  it('keeps pans under the template speed limit', () => {
    const { source, motion } = shotGeometry(LANDSCAPE_PHOTO, frame, 'pan_left', classic, 2, 1);
    // 110 px/s × 2 s = 220 px of travel, below 10 % of 1280.
    expect(source.width - frame.width).toBeLessThanOrEqual(220);
    expect(source.height).toBe(720);
    expect(motion).toMatchObject({ type: 'pan', axis: 'x', from: 1, to: 0 });
  });
});

/**
 * Where the photo's focus is in the frame at `t` (0 = first frame, 1 = last), as the plan draws the
 * shot: the crop window of the photo fitted into the source box, then the pan's moving window or
 * the zoom's scaled source cropped about its anchor.
 */
function focusInFrame(focus: Focus, shot: Pick<Shot, 'source' | 'motion'>, frame: { width: number; height: number }, t: number): Focus {
  const { source, motion } = shot;
  const inSource = {
    x: ((focus.x - source.crop.left) / source.crop.width) * source.width,
    y: ((focus.y - source.crop.top) / source.crop.height) * source.height,
  };
  if (motion.type === 'pan') {
    const along = motion.from + (motion.to - motion.from) * t;
    const x = motion.axis === 'x' ? (source.width - frame.width) * along : (source.width - frame.width) / 2;
    const y = motion.axis === 'y' ? (source.height - frame.height) * along : (source.height - frame.height) / 2;
    return { x: inSource.x - x, y: inSource.y - y };
  }
  const scale = motion.from + (motion.to - motion.from) * t;
  const scaled = { width: frame.width * scale, height: frame.height * scale };
  return {
    x: (inSource.x / source.width) * scaled.width - (scaled.width - frame.width) * motion.anchor.x,
    y: (inSource.y / source.height) * scaled.height - (scaled.height - frame.height) * motion.anchor.y,
  };
}

/** Share of a shot's frames in which the focus is in the frame. */
function inViewShare(focus: Focus, shot: Pick<Shot, 'source' | 'motion'>, frame: { width: number; height: number }): number {
  const steps = 200;
  let seen = 0;
  for (let i = 0; i <= steps; i += 1) {
    const at = focusInFrame(focus, shot, frame, i / steps);
    if (at.x >= 0 && at.x <= frame.width && at.y >= 0 && at.y <= frame.height) seen += 1;
  }
  return seen / (steps + 1);
}

const KINDS: MotionKind[] = ['zoom_in', 'zoom_out', 'pan_left', 'pan_right', 'pan_up', 'pan_down'];
const FORMATS: VideoFormat[] = ['landscape', 'portrait', 'square'];

describe('framing around the focus', () => {
  it('keeps a subject at 15 % of a 3000 × 2000 photo in frame, inside the margin, on every frame of every motion and format', () => {
    const photo = { width: 3000, height: 2000, focus: { x: 0.15, y: 0.5 } };
    for (const format of FORMATS) {
      const frame = FORMAT_SIZES[format];
      KINDS.forEach((kind, i) => {
        const shot = shotGeometry(photo, frame, kind, classic, 4, i);
        for (let t = 0; t <= 1; t += 0.05) {
          const at = focusInFrame(photo.focus, shot, frame, t);
          const where = `${format} ${kind} t=${t.toFixed(2)}: ${at.x.toFixed(0)},${at.y.toFixed(0)}`;
          expect(at.x, where).toBeGreaterThanOrEqual(FOCUS_MARGIN * frame.width - 1);
          expect(at.x, where).toBeLessThanOrEqual((1 - FOCUS_MARGIN) * frame.width + 1);
          expect(at.y, where).toBeGreaterThanOrEqual(0);
          expect(at.y, where).toBeLessThanOrEqual(frame.height);
        }
      });
    }
  });

  it('sweeps a 12000 × 2000 panorama with the subject at 88 % towards it, the subject in view in most frames and on the last', () => {
    const photo = { width: 12000, height: 2000, focus: { x: 0.88, y: 0.5 } };
    for (const format of FORMATS) {
      const frame = FORMAT_SIZES[format];
      for (const [i, kind] of KINDS.entries()) {
        const shot = shotGeometry(photo, frame, kind, classic, 4, i);
        expect(shot.motion).toMatchObject({ type: 'pan', axis: 'x', kind: 'pan_right' });
        const share = inViewShare(photo.focus, shot, frame);
        expect(share, format).toBeGreaterThanOrEqual(PANORAMA_SUBJECT_SHARE - 0.01);
        const last = focusInFrame(photo.focus, shot, frame, 1);
        expect(last.x).toBeGreaterThan(0);
        expect(last.x).toBeLessThan(frame.width);
        // Towards: the subject moves across the frame from the side the camera goes to, never back.
        const xs = [0, 0.25, 0.5, 0.75, 1].map((t) => focusInFrame(photo.focus, shot, frame, t).x);
        expect(xs).toEqual([...xs].sort((a, b) => b - a));
      }
    }
  });

  it('sweeps a panorama further than the template speed allows an ordinary pan, within one frame width in 5 s', () => {
    const photo = { width: 12000, height: 2000, focus: { x: 0.88, y: 0.5 } };
    for (const format of FORMATS) {
      const frame = FORMAT_SIZES[format];
      const span = (frame.height * photo.width) / photo.height;
      for (const seconds of [2.5, 4, 6.5]) {
        const shot = shotGeometry(photo, frame, 'pan_right', classic, seconds, 0);
        const travel = shot.source.width - frame.width;
        expect(travel / seconds).toBeLessThanOrEqual(Math.max(classic.motion.max_pan_px_per_s, frame.width / PANORAMA_CROSSING_S) + 1);
        // Never past the photo's edges.
        expect(shot.source.crop.left + shot.source.crop.width).toBeLessThanOrEqual(1 + 1e-9);
        expect(shot.source.crop.width).toBeCloseTo((frame.width + travel) / span, 9);
      }
      // A long shot sweeps more of the panorama than the template's speed limit allowed (110 px/s).
      const long = shotGeometry(photo, frame, 'pan_right', classic, 6.5, 0);
      expect(long.source.width - frame.width).toBeGreaterThan(classic.motion.max_pan_px_per_s * 6.5);
    }
    // Subject on the left: the sweep runs leftwards, from the right-hand stretch of the photo.
    const mirrored = shotGeometry({ ...photo, focus: { x: 0.12, y: 0.5 } }, FORMAT_SIZES.landscape, 'pan_right', classic, 6.5, 0);
    expect(mirrored.motion).toMatchObject({ kind: 'pan_left', from: 1, to: 0 });
    expect(inViewShare({ x: 0.12, y: 0.5 }, mirrored, FORMAT_SIZES.landscape)).toBeGreaterThanOrEqual(PANORAMA_SUBJECT_SHARE - 0.01);
  });

  it('gives a panorama a longer shot, taken from the ordinary photos, the same photos shown and text scenes untouched', () => {
    const panorama = { width: 12000, height: 2000, focus: { x: 0.88, y: 0.5 } };
    for (const format of FORMATS) {
      const plain = board({ format, photos: photos(8) });
      const withPanorama = board({ format, photos: [...photos(3), panorama, ...photos(4)] });
      expect(withPanorama.shots.map((s) => [s.scene, s.photo])).toEqual(plain.shots.map((s) => [s.scene, s.photo]));
      expect(withPanorama.frames).toBe(plain.frames);
      for (const [i, shot] of withPanorama.shots.entries()) {
        const before = plain.shots[i] as Shot;
        if (shot.photo === 3) expect(shot.frames, format).toBeGreaterThan(before.frames);
        else if (shot.scene === 'photos') expect(shot.frames).toBeGreaterThanOrEqual(Math.round(classic.shots.min_s * 60) - 1);
        else expect(Math.abs(shot.frames - before.frames)).toBeLessThanOrEqual(2);
      }
    }
  });

  it('moves time only from ordinary photo shots to panorama shots, the total kept (lengthenPanoramas)', () => {
    const limits = { min_s: 2.5, max_s: 6.5 };
    const shots = [
      { scene: 'intro' as const, seconds: 4, panorama: false },
      { scene: 'photos' as const, seconds: 4, panorama: true },
      { scene: 'photos' as const, seconds: 4, panorama: false },
      { scene: 'photos' as const, seconds: 3, panorama: false },
      { scene: 'outro' as const, seconds: 4, panorama: true },
    ];
    const seconds = lengthenPanoramas(shots, limits);
    expect(seconds.reduce((a, b) => a + b, 0)).toBeCloseTo(19, 9);
    expect(seconds[0]).toBe(4);
    expect(seconds[4]).toBe(4);
    // 2.5 s wanted, 1.5 + 0.5 s to spare: all of it given.
    expect(seconds[1]).toBeCloseTo(6, 9);
    expect(seconds[2]).toBeCloseTo(2.5, 9);
    expect(seconds[3]).toBeCloseTo(2.5, 9);
    // No panorama: nothing moves.
    expect(
      lengthenPanoramas(
        shots.map((s) => ({ ...s, panorama: false })),
        limits,
      ),
    ).toEqual([4, 4, 4, 3, 4]);
  });

  it('any photo, focus, format and motion: the focus is in frame on the first and last frames, a panorama’s on most (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 300, max: 12000 }),
        fc.integer({ min: 300, max: 6000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom(...FORMATS),
        fc.constantFrom(...KINDS),
        fc.double({ min: 2.5, max: 6.5, noNaN: true }),
        (width, height, x, y, format, kind, seconds) => {
          const frame = FORMAT_SIZES[format];
          const shot = shotGeometry({ width, height, focus: { x, y } }, frame, kind, classic, seconds, 0);
          if (shot.source.fit === 'contain_blur') return; // the whole photo is shown
          const { crop } = shot.source;
          expect(crop.left).toBeGreaterThanOrEqual(-1e-9);
          expect(crop.top).toBeGreaterThanOrEqual(-1e-9);
          expect(crop.left + crop.width).toBeLessThanOrEqual(1 + 1e-9);
          expect(crop.top + crop.height).toBeLessThanOrEqual(1 + 1e-9);
          // A panorama is swept towards its subject, in view from PANORAMA_SUBJECT_SHARE of the shot on.
          // (A subject on the photo's very edge cannot come into view: it ends on the frame's edge.)
          const panorama = isPanoramaSweep({ width, height }, frame);
          const fromEdge = Math.min(x, 1 - x) * ((frame.height * width) / height);
          if (panorama && fromEdge > 0.06 * frame.width)
            expect(inViewShare({ x, y }, shot, frame)).toBeGreaterThanOrEqual(PANORAMA_SUBJECT_SHARE - 0.01);
          // A pan moves at least 2 pixels: a focus on the photo's very edge may be that far out.
          for (const t of panorama ? [1] : [0, 0.5, 1]) {
            const at = focusInFrame({ x, y }, shot, frame, t);
            expect(at.x).toBeGreaterThanOrEqual(-2.5);
            expect(at.x).toBeLessThanOrEqual(frame.width + 2.5);
            expect(at.y).toBeGreaterThanOrEqual(-2.5);
            expect(at.y).toBeLessThanOrEqual(frame.height + 2.5);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('helpers', () => {
  it('apportions shots between photo groups by share', () => {
    expect(apportion(5, [1, 1])).toEqual([3, 2]);
    expect(apportion(3, [2, 1])).toEqual([2, 1]);
    expect(apportion(0, [1, 1])).toEqual([0, 0]);
  });

  it('tells the language a title is written in', () => {
    expect(titleFitsLanguage('Appartement 3 chambres à vendre', 'fr')).toBe(true);
    expect(titleFitsLanguage('Appartement 3 chambres à vendre', 'en')).toBe(false);
    expect(titleFitsLanguage('Sea-view apartment with 3 bedrooms', 'en')).toBe(true);
    expect(titleFitsLanguage('Sea-view apartment with 3 bedrooms', 'fr')).toBe(false);
    expect(titleFitsLanguage('شقة للبيع في المعاريف', 'ar')).toBe(true);
    expect(titleFitsLanguage('شقة للبيع في المعاريف', 'fr')).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import {
  buildRenderPlan,
  buildSegmentedPlan,
  MIN_SEGMENT_FRAMES,
  segmentCuts,
  type PlacedImage,
  type PlanInput,
} from '../../../src/render/ffmpeg/plan.js';
import { silenceCommand, soundtrackCommand } from '../../../src/render/music.js';
import { commandArgs } from '../../../src/render/ffmpeg/command.js';
import { buildStoryboard, type Timeline } from '../../../src/render/storyboard.js';
import { loadTemplate, validateTemplate, type Template } from '../../../src/render/templates.js';
import { demoProperty, photos } from '../../helpers/plan-fixtures.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TEMPLATES_DIR } from '../../../src/render/package-files.js';

function templateWith(change: (raw: Record<string, unknown>) => void): Template {
  const raw = JSON.parse(readFileSync(join(TEMPLATES_DIR, 'classic', 'template.json'), 'utf8')) as Record<string, unknown>;
  change(raw);
  return validateTemplate(raw, 'classic');
}

function timelineFor(template: Template, listingTitle = 'Villa "Les Palmiers"; vue mer [RARE] — 50% off: call now, \'quick\''): Timeline {
  return buildStoryboard({
    template,
    listing: demoProperty({ title: listingTitle }),
    photos: photos(3),
    format: 'landscape',
    durationS: 12,
    language: 'fr',
    branding: { agency_name: 'Agence; "Test" [x]' },
    hasLogo: false,
  });
}

function planInputFor(timeline: Timeline): PlanInput {
  const cards = new Map<string, PlacedImage>();
  for (const shot of timeline.shots)
    for (const card of shot.cards)
      cards.set(card.id, { file: `/work/cards/${card.id}.png`, x: 40, y: 500, width: 600, height: 180, rise: 20 });
  return {
    timeline,
    shotFiles: timeline.shots.map((s) => `/cache/shots/photo-${s.photo}-${s.source.width}x${s.source.height}.jpg`),
    cards,
    brandBug: timeline.brandBug === null ? null : { file: '/work/cards/bug.png', x: 1000, y: 40, width: 200, height: 60 },
    audioFile: '/work/soundtrack.m4a',
    output: '/work/render.tmp.mp4',
    threads: 2,
  };
}

function planFor(timeline: Timeline): ReturnType<typeof buildRenderPlan> {
  return buildRenderPlan(planInputFor(timeline));
}

/** Frames of every part, by label (h = shared with the previous shot, b = own, t = shared with the next). */
function partFrames(graph: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const match of graph.matchAll(/\[src_([htb]\d+)\]loop=loop=(\d+):size=1/g)) counts.set(match[1]!, Number(match[2]) + 1);
  return counts;
}

describe('ffmpeg plan', () => {
  const timeline = timelineFor(loadTemplate('classic'));
  const plan = planFor(timeline);

  it('never puts listing or agency text into the filtergraph', () => {
    expect(plan.filterGraph).not.toContain('Palmiers');
    expect(plan.filterGraph).not.toContain('Agence');
    expect(plan.args.join(' ')).not.toContain('Palmiers');
    // Only numbers, our labels, filter names and file-free expressions.
    expect(plan.filterGraph).not.toMatch(/drawtext|subtitles|ass=/);
  });

  it('renders every frame of the timeline exactly once: bodies and transitions add up', () => {
    // Each shot's still is looped once per part: the bodies and the transitions they share tile the timeline.
    const parts = partFrames(plan.filterGraph);
    const bodies = [...parts].filter(([label]) => label.startsWith('b')).reduce((sum, [, n]) => sum + n, 0);
    const transitions = timeline.shots.reduce((sum, s) => sum + s.transitionFrames, 0);
    expect(bodies + transitions).toBe(timeline.frames);
    timeline.shots.forEach((shot, i) => {
      if (i > 0) expect(parts.get(`h${i}`)).toBe(shot.transitionFrames);
      if (i < timeline.shots.length - 1) expect(parts.get(`t${i}`)).toBe(timeline.shots[i + 1]!.transitionFrames);
    });
    const concat = /concat=n=(\d+):v=1:a=0,settb=1\/60,setpts=N/.exec(plan.filterGraph);
    expect(Number(concat?.[1])).toBe(timeline.shots.length * 2 - 1);
  });

  it('decodes each photo once and repeats it, moving a crop window or re-scaling for zooms', () => {
    const stills = plan.inputs.filter((file) => file.startsWith('/cache/shots/'));
    expect(new Set(stills).size).toBe(stills.length);
    // A zoom scales the first frame of each size only (`select`), placed by its timestamp, and `fps` repeats it.
    expect(plan.filterGraph).toMatch(
      /select='eq\(n,0\)\+not\(eq\(2\*trunc\(1280\*\(1\+0\.1\*\(\(n\+\d+\)\/\d+\)\)\/2\+0\.5\),2\*trunc\(1280\*\(1\+0\.1\*\(\(\(n-1\)\+\d+\)\/\d+\)\)\/2\+0\.5\)\)\)/,
    );
    expect(plan.filterGraph).toMatch(/scale=w='2\*trunc\(1280\*\(1\+0\.1\*\(\(round\(t\*60\)\+\d+\)\/\d+\)\)\/2\+0\.5\)'/);
    // The zoom crop is centred from the same size expression (crop reads iw only once).
    expect(plan.filterGraph).toMatch(/crop=1280:720:x='\(2\*trunc\(1280\*[^']*'[^,]*,fps=60,/);
    expect(plan.filterGraph).toMatch(/crop=1280:720:x='floor\(\(iw-1280\)\*/);
    expect(plan.filterGraph).not.toContain('zoompan');
    expect(plan.filterGraph.match(/setsar=1/g)!.length).toBeGreaterThan(timeline.shots.length);
  });

  it('crossfades with an alpha fade over the previous shot and overlays cards in their window only', () => {
    expect(plan.filterGraph).toMatch(/format=yuva420p,fade=t=in:st=0:d=0\.5:alpha=1\[fi\d+\]/);
    expect(plan.filterGraph).toMatch(
      /overlay=x=40:y='500\+20\*pow\(1-min\(1,max\(0,\(t-[\d.]+\)\/[\d.]+\)\),3\)':eof_action=pass:format=yuv420/,
    );
    expect(plan.filterGraph).not.toContain('xfade');
  });

  it('asks for the output contract: H.264 High yuv420p 60 fps, 1 s GOP, AAC-LC 160 kbps 48 kHz stereo, faststart', () => {
    const args = plan.args.join(' ');
    for (const expected of [
      '-c:v libx264',
      '-profile:v high',
      '-pix_fmt yuv420p',
      '-r 60',
      '-g 60',
      '-c:a copy',
      '-movflags +faststart',
      '-threads 2',
      '-stats',
    ]) {
      expect(args).toContain(expected);
    }
    expect(plan.args[plan.args.length - 1]).toBe('/work/render.tmp.mp4');
    expect(args).toContain(`-t ${timeline.frames / 60}`);
  });

  it('copies the soundtrack, encoded once as the AAC of the contract (music or silence), into the video', () => {
    const audioIndex = plan.inputs.indexOf('/work/soundtrack.m4a');
    expect(audioIndex).toBe(plan.inputs.length - 1);
    expect(plan.args.join(' ')).toContain(`-map ${audioIndex}:a`);
    expect(plan.filterGraph).not.toContain('anullsrc');
    // Photos and cards are read at 60 fps; the soundtrack is a plain input.
    const audioArg = plan.args.indexOf('/work/soundtrack.m4a');
    expect(plan.args[audioArg - 2]).not.toBe('-framerate');
    const contract = ['-c:a aac', '-b:a 160k', '-ar 48000', '-ac 2'];
    const music = commandArgs(soundtrackCommand({ kind: 'file', file: '/music/bed.mp3' }, 12, 40, '/work/soundtrack.m4a')).join(' ');
    const silence = commandArgs(silenceCommand(12, '/work/soundtrack.m4a')).join(' ');
    for (const option of contract) {
      expect(music).toContain(option);
      expect(silence).toContain(option);
    }
    expect(silence).toContain(`atrim=end_sample=${12 * 48000}`);
  });

  it('builds each template transition: cut, slide, dip to black, and xfade names', () => {
    const cut = planFor(timelineFor(templateWith((t) => (t.transition = { kind: 'cut', duration_s: 0 }))));
    expect([...partFrames(cut.filterGraph).keys()].every((label) => label.startsWith('b'))).toBe(true);
    expect(cut.filterGraph).not.toContain('overlay=x=0:y=0');

    const slide = planFor(timelineFor(templateWith((t) => (t.transition = { kind: 'slide_left', duration_s: 0.4 }))));
    expect(slide.filterGraph).toMatch(/overlay=x='1280\*\(1-\(\(\(n\+1\)\/24\)/);

    const dip = planFor(timelineFor(templateWith((t) => (t.transition = { kind: 'fade_black', duration_s: 0.5 }))));
    expect(dip.filterGraph).toMatch(/trim=end_frame=15,fade=t=out:st=0:d=0\.25:color=black/);

    const circle = planFor(timelineFor(templateWith((t) => (t.transition = { kind: 'xfade:circleopen', duration_s: 0.5 }))));
    expect(circle.filterGraph).toMatch(/xfade=transition=circleopen:duration=0\.5:offset=0/);
  });
});

describe('ffmpeg plan in segments', () => {
  const long = buildStoryboard({
    template: loadTemplate('classic'),
    listing: demoProperty(),
    photos: photos(8),
    format: 'landscape',
    durationS: 30,
    language: 'fr',
    branding: { agency_name: 'Agence Test' },
    hasLogo: false,
  });
  const input = planInputFor(long);
  const whole = buildRenderPlan(input);

  it('cuts between the pieces of the video, near equal lengths, never inside its fades', () => {
    for (const count of [2, 3, 4]) {
      const cuts = segmentCuts(long, count);
      expect(cuts.length).toBe(count - 1);
      const segmented = buildSegmentedPlan(input, cuts);
      const frames = segmented.segments.map((s) => s.frames);
      expect(frames.reduce((a, b) => a + b, 0)).toBe(long.frames);
      // Within one shot's length of an equal share.
      const longestShot = Math.max(...long.shots.map((s) => s.frames));
      for (const f of frames) expect(Math.abs(f - long.frames / count)).toBeLessThanOrEqual(longestShot);
      expect(Math.min(...frames)).toBeGreaterThanOrEqual(Math.max(MIN_SEGMENT_FRAMES, long.fadeInFrames, long.fadeOutFrames));
    }
    // Too short to be worth it: no cut.
    const short = buildStoryboard({
      template: loadTemplate('classic'),
      listing: demoProperty(),
      photos: photos(3),
      format: 'landscape',
      durationS: 6,
      language: 'fr',
      branding: {},
      hasLogo: false,
    });
    expect(segmentCuts(short, 2)).toEqual([]);
  });

  it('draws the same pieces as the whole plan, each segment only its own, and joins them without encoding again', () => {
    const segmented = buildSegmentedPlan(input, segmentCuts(long, 2));
    const [first, second] = segmented.segments;
    // Every part of the whole plan is in exactly one segment, with the same frames.
    const wholeParts = partFrames(whole.filterGraph);
    const segmentParts = segmented.segments.map((s) => partFrames(s.filterGraph));
    for (const [label, frames] of wholeParts) {
      const holders = segmentParts.filter((parts) => parts.has(label));
      // A transition's two parts stay together; a shot's body is in one segment.
      if (label.startsWith('b')) expect(holders.length).toBe(1);
      for (const parts of holders) expect(parts.get(label)).toBe(frames);
    }
    // Each segment reads only the stills it moves over: together, every still of the whole plan.
    const stills = (inputs: string[]): string[] => inputs.filter((f) => f.startsWith('/cache/shots/'));
    for (const segment of segmented.segments) {
      expect(stills(segment.inputs).length).toBeLessThan(stills(whole.inputs).length);
      expect(segment.args).toContain('-an');
      expect(segment.args.join(' ')).toContain('-threads 1');
    }
    expect(new Set([...stills(first!.inputs), ...stills(second!.inputs)])).toEqual(new Set(stills(whole.inputs)));
    // The video's fade from black is in the first segment only, its fade to black in the last only.
    expect(first!.filterGraph).toMatch(/setpts=N,fade=t=in:st=0/);
    expect(second!.filterGraph).toMatch(/,fade=t=out:st=[\d.]+:d=[\d.]+\[cat/);
    expect(first!.filterGraph).not.toMatch(/,fade=t=out:st=[\d.]+:d=[\d.]+\[cat/);
    // The join: the concat demuxer over the parts, the soundtrack, everything copied, faststart.
    const mux = commandArgs(segmented.mux).join(' ');
    expect(mux).toContain(`-f concat -safe 0 -i ${segmented.listFile}`);
    expect(mux).toContain('-i /work/soundtrack.m4a');
    expect(mux).toContain('-c copy');
    expect(mux).toContain('-movflags +faststart');
    expect(segmented.listText).toBe(segmented.segments.map((s) => `file '${s.command.output}'\n`).join(''));
  });

  it('shows the corner mark across a cut without fading it there', () => {
    const segmented = buildSegmentedPlan(input, segmentCuts(long, 2));
    const bug = long.brandBug!;
    expect(bug.from).toBeLessThan(segmented.segments[0]!.frames);
    expect(bug.to).toBeGreaterThan(segmented.segments[0]!.frames);
    const [first, second] = segmented.segments.map((s) => {
      const bugIndex = s.inputs.indexOf('/work/cards/bug.png');
      return s.filterGraph.split(';\n').find((chain) => chain.startsWith(`[${bugIndex}:v]`)) ?? '';
    });
    expect(first).toContain('fade=t=in');
    expect(first).not.toContain('fade=t=out');
    expect(second).not.toContain('fade=t=in');
    expect(second).toContain('fade=t=out');
    // In the whole plan it fades in and out.
    const wholeBug = whole.filterGraph
      .split(';\n')
      .find((chain) => chain.startsWith(`[${whole.inputs.indexOf('/work/cards/bug.png')}:v]`))!;
    expect(wholeBug).toContain('fade=t=in');
    expect(wholeBug).toContain('fade=t=out');
  });
});

/**
 * Generates the bundled demo photos (assets/demo/photos/*.jpg): eight stylised, architectural
 * and interior scenes drawn as SVG and rasterised by sharp, so the demo runs offline with images
 * made for the project (no licence question). Deterministic: the same script writes the same files.
 *
 * Two files exercise the photo pipeline on purpose:
 *   - 07-terrace.jpg is portrait (1333x2000), as a phone photo would be;
 *   - 08-pool.jpg stores its pixels rotated and carries EXIF Orientation=6, like a phone held upright.
 *
 * It also writes the demo agency's logo (logo.png, a house mark and the agency name) and
 * branding.json, the branding sample `immoreel render --demo` uses.
 *
 * Run: npx tsx scripts/make-demo-photos.ts
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { seededRandom } from './prng.js';

const OUT_DIR = fileURLToPath(new URL('../assets/demo/photos/', import.meta.url));
const DEMO_DIR = fileURLToPath(new URL('../assets/demo/', import.meta.url));
const LANDSCAPE = { width: 2000, height: 1333 };
const PORTRAIT = { width: 1333, height: 2000 };

interface Size {
  width: number;
  height: number;
}

const poly = (points: [number, number][], attrs: string): string =>
  `<polygon points="${points.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ')}" ${attrs}/>`;

/** Shared defs: sky, sea, light and shadow gradients, a soft blur and a subtle grain. */
function defs(): string {
  return `<defs>
  <linearGradient id="sky" x1="0" y1="0" x2="0" y2="1">
    <stop offset="0" stop-color="#6fa8dc"/><stop offset="0.6" stop-color="#a9cfee"/><stop offset="1" stop-color="#f3e6cf"/>
  </linearGradient>
  <linearGradient id="sunset" x1="0" y1="0" x2="0" y2="1">
    <stop offset="0" stop-color="#3d5a8a"/><stop offset="0.55" stop-color="#e9a66b"/><stop offset="1" stop-color="#f7d9a8"/>
  </linearGradient>
  <linearGradient id="sea" x1="0" y1="0" x2="0" y2="1">
    <stop offset="0" stop-color="#2f6f9f"/><stop offset="1" stop-color="#5fa3c7"/>
  </linearGradient>
  <linearGradient id="pool" x1="0" y1="0" x2="1" y2="1">
    <stop offset="0" stop-color="#3fb7d6"/><stop offset="0.5" stop-color="#69d1e6"/><stop offset="1" stop-color="#2a97be"/>
  </linearGradient>
  <linearGradient id="wallWarm" x1="0" y1="0" x2="0" y2="1">
    <stop offset="0" stop-color="#efe6da"/><stop offset="1" stop-color="#e2d4c2"/>
  </linearGradient>
  <linearGradient id="wallCool" x1="0" y1="0" x2="0" y2="1">
    <stop offset="0" stop-color="#eef0ef"/><stop offset="1" stop-color="#d9dcda"/>
  </linearGradient>
  <linearGradient id="sideShade" x1="0" y1="0" x2="1" y2="0">
    <stop offset="0" stop-color="#000" stop-opacity="0.18"/><stop offset="1" stop-color="#000" stop-opacity="0.02"/>
  </linearGradient>
  <linearGradient id="sideShadeR" x1="1" y1="0" x2="0" y2="0">
    <stop offset="0" stop-color="#000" stop-opacity="0.18"/><stop offset="1" stop-color="#000" stop-opacity="0.02"/>
  </linearGradient>
  <linearGradient id="floorWood" x1="0" y1="0" x2="0" y2="1">
    <stop offset="0" stop-color="#b48a62"/><stop offset="1" stop-color="#8a6444"/>
  </linearGradient>
  <linearGradient id="floorStone" x1="0" y1="0" x2="0" y2="1">
    <stop offset="0" stop-color="#e6ddd0"/><stop offset="1" stop-color="#cbbfae"/>
  </linearGradient>
  <linearGradient id="ceiling" x1="0" y1="1" x2="0" y2="0">
    <stop offset="0" stop-color="#f6f3ee"/><stop offset="1" stop-color="#dedad3"/>
  </linearGradient>
  <linearGradient id="vignette" x1="0" y1="0" x2="0" y2="1">
    <stop offset="0" stop-color="#000" stop-opacity="0.10"/><stop offset="0.3" stop-color="#000" stop-opacity="0"/>
    <stop offset="0.75" stop-color="#000" stop-opacity="0"/><stop offset="1" stop-color="#000" stop-opacity="0.14"/>
  </linearGradient>
  <radialGradient id="sunGlow" cx="0.5" cy="0.5" r="0.5">
    <stop offset="0" stop-color="#fff8e0" stop-opacity="0.95"/><stop offset="1" stop-color="#fff8e0" stop-opacity="0"/>
  </radialGradient>
  <radialGradient id="lampGlow" cx="0.5" cy="0.5" r="0.5">
    <stop offset="0" stop-color="#ffe2a8" stop-opacity="0.75"/><stop offset="1" stop-color="#ffe2a8" stop-opacity="0"/>
  </radialGradient>
  <linearGradient id="lightSpill" x1="0" y1="0" x2="0" y2="1">
    <stop offset="0" stop-color="#fffaf0" stop-opacity="0.45"/><stop offset="1" stop-color="#fffaf0" stop-opacity="0.05"/>
  </linearGradient>
  <filter id="soft" x="-20%" y="-20%" width="140%" height="140%"><feGaussianBlur stdDeviation="14"/></filter>
  <filter id="softer" x="-20%" y="-20%" width="140%" height="140%"><feGaussianBlur stdDeviation="4"/></filter>
  <filter id="grain"><feTurbulence type="fractalNoise" baseFrequency="0.9" numOctaves="1" seed="7"/>
    <feColorMatrix type="saturate" values="0"/><feComponentTransfer><feFuncA type="linear" slope="0.05"/></feComponentTransfer></filter>
</defs>`;
}

function finish({ width, height }: Size, body: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">
${defs()}
${body}
<rect width="${width}" height="${height}" fill="url(#vignette)"/>
<rect width="${width}" height="${height}" filter="url(#grain)" opacity="1"/>
</svg>`;
}

/** A one-point perspective room: back wall, side walls, floor and ceiling meeting the frame. */
interface Room {
  back: { x0: number; y0: number; x1: number; y1: number };
  wall: string;
  floor: string;
  planks?: number;
}

function room({ width, height }: Size, r: Room): string {
  const { x0, y0, x1, y1 } = r.back;
  const parts: string[] = [];
  parts.push(
    poly(
      [
        [0, 0],
        [width, 0],
        [x1, y0],
        [x0, y0],
      ],
      'fill="url(#ceiling)"',
    ),
  );
  parts.push(
    poly(
      [
        [0, 0],
        [x0, y0],
        [x0, y1],
        [0, height],
      ],
      `fill="${r.wall}"`,
    ),
  );
  parts.push(
    poly(
      [
        [0, 0],
        [x0, y0],
        [x0, y1],
        [0, height],
      ],
      'fill="url(#sideShade)"',
    ),
  );
  parts.push(
    poly(
      [
        [width, 0],
        [x1, y0],
        [x1, y1],
        [width, height],
      ],
      `fill="${r.wall}"`,
    ),
  );
  parts.push(
    poly(
      [
        [width, 0],
        [x1, y0],
        [x1, y1],
        [width, height],
      ],
      'fill="url(#sideShadeR)"',
    ),
  );
  parts.push(`<rect x="${x0}" y="${y0}" width="${x1 - x0}" height="${y1 - y0}" fill="${r.wall}"/>`);
  parts.push(
    poly(
      [
        [x0, y1],
        [x1, y1],
        [width, height],
        [0, height],
      ],
      `fill="${r.floor}"`,
    ),
  );
  if (r.planks) {
    // Plank joints run towards the vanishing point: from the back wall's foot to a wider spread at the frame's bottom.
    for (let i = 1; i < r.planks; i += 1) {
      const atWall = x0 + ((x1 - x0) * i) / r.planks;
      const atFrame = -width * 0.6 + (width * 2.2 * i) / r.planks;
      parts.push(
        `<line x1="${atWall.toFixed(1)}" y1="${y1}" x2="${atFrame.toFixed(1)}" y2="${height}" stroke="#5a3d26" stroke-opacity="0.22" stroke-width="2"/>`,
      );
    }
  }
  // Skirting and the floor/wall contact shadow.
  parts.push(`<rect x="${x0}" y="${y1 - 10}" width="${x1 - x0}" height="10" fill="#ffffff" opacity="0.6"/>`);
  parts.push(`<rect x="${x0}" y="${y1}" width="${x1 - x0}" height="30" fill="#000" opacity="0.06" filter="url(#softer)"/>`);
  return parts.join('\n');
}

function windowView(x: number, y: number, w: number, h: number, variant: 'sea' | 'city' | 'garden'): string {
  const horizon = y + h * 0.58;
  const parts = [`<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="url(#sky)"/>`];
  parts.push(`<ellipse cx="${x + w * 0.75}" cy="${y + h * 0.22}" rx="${w * 0.18}" ry="${w * 0.18}" fill="url(#sunGlow)"/>`);
  if (variant === 'sea') {
    parts.push(`<rect x="${x}" y="${horizon}" width="${w}" height="${y + h - horizon}" fill="url(#sea)"/>`);
    for (let i = 0; i < 6; i += 1) {
      const yy = horizon + 12 + i * ((y + h - horizon) / 6);
      parts.push(
        `<line x1="${x + w * 0.1}" y1="${yy}" x2="${x + w * 0.5}" y2="${yy}" stroke="#fff" stroke-opacity="0.18" stroke-width="3"/>`,
      );
    }
  } else if (variant === 'city') {
    const random = seededRandom(Math.round(x + y));
    let cx = x;
    while (cx < x + w) {
      const bw = 40 + random() * 90;
      const bh = h * (0.15 + random() * 0.35);
      const shade = 200 - Math.round(random() * 50);
      parts.push(`<rect x="${cx}" y="${y + h - bh}" width="${bw}" height="${bh}" fill="rgb(${shade},${shade - 8},${shade - 20})"/>`);
      cx += bw + 6;
    }
  } else {
    parts.push(`<rect x="${x}" y="${horizon}" width="${w}" height="${y + h - horizon}" fill="#6f9a5a"/>`);
    parts.push(`<ellipse cx="${x + w * 0.3}" cy="${horizon}" rx="${w * 0.25}" ry="${h * 0.18}" fill="#4f7d45"/>`);
    parts.push(`<ellipse cx="${x + w * 0.8}" cy="${horizon + 10}" rx="${w * 0.2}" ry="${h * 0.14}" fill="#5d8a4e"/>`);
  }
  return parts.join('\n');
}

function windowFrame(x: number, y: number, w: number, h: number, panes = 3): string {
  const parts = [`<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="none" stroke="#f7f5f0" stroke-width="16"/>`];
  for (let i = 1; i < panes; i += 1) {
    const px = x + (w * i) / panes;
    parts.push(`<rect x="${px - 6}" y="${y}" width="12" height="${h}" fill="#f7f5f0"/>`);
  }
  parts.push(`<rect x="${x - 14}" y="${y + h}" width="${w + 28}" height="14" fill="#e9e4dc"/>`);
  return parts.join('\n');
}

function plant(x: number, y: number, scale: number, seed: number): string {
  const random = seededRandom(seed);
  const parts = [
    `<path d="M ${x - 45 * scale} ${y - 120 * scale} L ${x + 45 * scale} ${y - 120 * scale} L ${x + 34 * scale} ${y} L ${x - 34 * scale} ${y} Z" fill="#cdbfae"/>`,
    `<path d="M ${x - 45 * scale} ${y - 120 * scale} L ${x + 45 * scale} ${y - 120 * scale} L ${x + 34 * scale} ${y} L ${x - 34 * scale} ${y} Z" fill="url(#sideShade)"/>`,
  ];
  for (let i = 0; i < 16; i += 1) {
    const angle = -Math.PI / 2 + (random() - 0.5) * 2.2;
    const len = (120 + random() * 160) * scale;
    const ex = x + Math.cos(angle) * len;
    const ey = y - 120 * scale + Math.sin(angle) * len;
    const green = 90 + Math.round(random() * 60);
    parts.push(
      `<ellipse cx="${((x + ex) / 2).toFixed(1)}" cy="${((y - 120 * scale + ey) / 2).toFixed(1)}" rx="${(len / 2).toFixed(1)}" ry="${(16 * scale).toFixed(1)}" ` +
        `transform="rotate(${((angle * 180) / Math.PI).toFixed(1)} ${((x + ex) / 2).toFixed(1)} ${((y - 120 * scale + ey) / 2).toFixed(1)})" fill="rgb(48,${green},62)"/>`,
    );
  }
  return parts.join('\n');
}

function sofa(x: number, y: number, w: number, h: number, color: string, cushion: string): string {
  return [
    `<ellipse cx="${x + w / 2}" cy="${y + h + 8}" rx="${w * 0.55}" ry="26" fill="#000" opacity="0.22" filter="url(#soft)"/>`,
    `<rect x="${x}" y="${y}" width="${w}" height="${h * 0.55}" rx="26" fill="${color}"/>`,
    `<rect x="${x - 30}" y="${y + h * 0.25}" width="70" height="${h * 0.75}" rx="26" fill="${color}"/>`,
    `<rect x="${x + w - 40}" y="${y + h * 0.25}" width="70" height="${h * 0.75}" rx="26" fill="${color}"/>`,
    `<rect x="${x + 30}" y="${y + h * 0.45}" width="${w - 60}" height="${h * 0.45}" rx="18" fill="${color}"/>`,
    `<rect x="${x + 30}" y="${y + h * 0.45}" width="${w - 60}" height="${h * 0.45}" rx="18" fill="#000" opacity="0.08"/>`,
    `<rect x="${x + 70}" y="${y + h * 0.12}" width="${w * 0.2}" height="${h * 0.38}" rx="22" fill="${cushion}"/>`,
    `<rect x="${x + w - 70 - w * 0.2}" y="${y + h * 0.12}" width="${w * 0.2}" height="${h * 0.38}" rx="22" fill="${cushion}"/>`,
    `<rect x="${x + 10}" y="${y + h * 0.9}" width="${w - 20}" height="${h * 0.1}" fill="#3b2f26"/>`,
  ].join('\n');
}

function pendant(x: number, y: number, r: number): string {
  return [
    `<line x1="${x}" y1="0" x2="${x}" y2="${y - r}" stroke="#333" stroke-width="3"/>`,
    `<ellipse cx="${x}" cy="${y + r * 0.4}" rx="${r * 3}" ry="${r * 3}" fill="url(#lampGlow)"/>`,
    `<path d="M ${x - r} ${y + r * 0.3} A ${r} ${r} 0 0 1 ${x + r} ${y + r * 0.3} Z" fill="#2e2a26"/>`,
  ].join('\n');
}

function artFrame(x: number, y: number, w: number, h: number, hue: number): string {
  return [
    `<rect x="${x + 8}" y="${y + 10}" width="${w}" height="${h}" fill="#000" opacity="0.15" filter="url(#softer)"/>`,
    `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="#2b2623"/>`,
    `<rect x="${x + 18}" y="${y + 18}" width="${w - 36}" height="${h - 36}" fill="hsl(${hue},35%,82%)"/>`,
    `<circle cx="${x + w * 0.4}" cy="${y + h * 0.45}" r="${Math.min(w, h) * 0.2}" fill="hsl(${hue + 20},45%,55%)" opacity="0.8"/>`,
    `<rect x="${x + w * 0.5}" y="${y + h * 0.3}" width="${w * 0.25}" height="${h * 0.45}" fill="hsl(${hue - 30},30%,40%)" opacity="0.7"/>`,
  ].join('\n');
}

/** 01: the residence from outside, the hero shot. */
function facade(size: Size): string {
  const { width, height } = size;
  const parts = [`<rect width="${width}" height="${height}" fill="url(#sky)"/>`];
  parts.push(`<ellipse cx="${width * 0.82}" cy="${height * 0.16}" rx="260" ry="260" fill="url(#sunGlow)"/>`);
  parts.push(`<rect x="0" y="${height * 0.82}" width="${width}" height="${height * 0.18}" fill="#cfc4b4"/>`);
  const bx = width * 0.18;
  const bw = width * 0.64;
  const top = height * 0.12;
  const bottom = height * 0.84;
  parts.push(`<rect x="${bx}" y="${top}" width="${bw}" height="${bottom - top}" fill="#f4efe6"/>`);
  parts.push(`<rect x="${bx + bw * 0.7}" y="${top}" width="${bw * 0.3}" height="${bottom - top}" fill="#000" opacity="0.07"/>`);
  const floors = 6;
  const floorH = (bottom - top) / floors;
  for (let f = 0; f < floors; f += 1) {
    const fy = top + f * floorH;
    for (let c = 0; c < 5; c += 1) {
      const wx = bx + 40 + c * ((bw - 80) / 5);
      const ww = (bw - 80) / 5 - 40;
      parts.push(windowView(wx, fy + floorH * 0.18, ww, floorH * 0.55, 'city').replace(/<ellipse[^>]*>/, ''));
      parts.push(`<rect x="${wx}" y="${fy + floorH * 0.18}" width="${ww}" height="${floorH * 0.55}" fill="#1e3550" opacity="0.45"/>`);
      parts.push(
        `<rect x="${wx}" y="${fy + floorH * 0.18}" width="${ww}" height="${floorH * 0.55}" fill="none" stroke="#5b5349" stroke-width="6"/>`,
      );
    }
    // Balcony slab with glass railing.
    parts.push(`<rect x="${bx - 20}" y="${fy + floorH * 0.78}" width="${bw + 40}" height="16" fill="#e7e0d5"/>`);
    parts.push(
      `<rect x="${bx - 20}" y="${fy + floorH * 0.62}" width="${bw + 40}" height="${floorH * 0.16}" fill="#bcd7e6" opacity="0.35"/>`,
    );
    parts.push(`<rect x="${bx - 20}" y="${fy + floorH * 0.62}" width="${bw + 40}" height="5" fill="#8d8579"/>`);
  }
  parts.push(`<rect x="${width * 0.44}" y="${bottom - floorH * 0.9}" width="${width * 0.12}" height="${floorH * 0.9}" fill="#6b4f3a"/>`);
  // Palm trees in front.
  for (const [px, scale] of [
    [width * 0.1, 1.1],
    [width * 0.9, 1.0],
  ] as [number, number][]) {
    parts.push(
      `<path d="M ${px} ${height * 0.86} C ${px + 20} ${height * 0.6} ${px - 10} ${height * 0.4} ${px + 15} ${height * 0.28}" stroke="#7a5b3e" stroke-width="${22 * scale}" fill="none"/>`,
    );
    for (let i = 0; i < 9; i += 1) {
      const angle = (i / 9) * Math.PI * 2;
      const ex = px + 15 + Math.cos(angle) * 230 * scale;
      const ey = height * 0.28 + Math.sin(angle) * 90 * scale + 40;
      parts.push(
        `<path d="M ${px + 15} ${height * 0.28} Q ${(px + 15 + ex) / 2} ${height * 0.28 - 60} ${ex} ${ey}" stroke="#3f7a3c" stroke-width="${26 * scale}" fill="none" stroke-linecap="round"/>`,
      );
    }
  }
  parts.push(`<rect x="0" y="${height * 0.86}" width="${width}" height="${height * 0.14}" fill="#b9ad9b"/>`);
  for (let i = 0; i < 14; i += 1) {
    parts.push(
      `<line x1="${(i * width) / 13}" y1="${height * 0.86}" x2="${(i * width) / 13 - 120}" y2="${height}" stroke="#9b8f7e" stroke-width="3"/>`,
    );
  }
  return finish(size, parts.join('\n'));
}

/** 02: living room with a sea view. */
function livingRoom(size: Size): string {
  const { width, height } = size;
  const back = { x0: width * 0.2, y0: height * 0.16, x1: width * 0.8, y1: height * 0.68 };
  const parts = [room(size, { back, wall: 'url(#wallWarm)', floor: 'url(#floorWood)', planks: 14 })];
  const wx = back.x0 + 80;
  const wy = back.y0 + 50;
  const ww = back.x1 - back.x0 - 160;
  const wh = (back.y1 - back.y0) * 0.72;
  parts.push(windowView(wx, wy, ww, wh, 'sea'), windowFrame(wx, wy, ww, wh, 3));
  parts.push(
    poly(
      [
        [wx, back.y1],
        [wx + ww, back.y1],
        [width * 0.95, height],
        [width * 0.05, height],
      ],
      'fill="url(#lightSpill)"',
    ),
  );
  parts.push(`<ellipse cx="${width / 2}" cy="${height * 0.86}" rx="${width * 0.36}" ry="${height * 0.09}" fill="#d9cbb5"/>`);
  parts.push(sofa(width * 0.3, height * 0.56, width * 0.4, height * 0.22, '#8e9aa3', '#d7b377'));
  parts.push(`<ellipse cx="${width / 2}" cy="${height * 0.9}" rx="${width * 0.12}" ry="${height * 0.035}" fill="#3a2e25"/>`);
  parts.push(`<rect x="${width / 2 - 8}" y="${height * 0.9}" width="16" height="${height * 0.06}" fill="#3a2e25"/>`);
  parts.push(plant(width * 0.12, height * 0.9, 1.4, 3), plant(width * 0.88, height * 0.88, 1.2, 9));
  parts.push(pendant(width * 0.5, height * 0.12, 40));
  return finish(size, parts.join('\n'));
}

/** 03: Moroccan lounge: banquettes along the walls, an arch and zellige. */
function moroccanLounge(size: Size): string {
  const { width, height } = size;
  const back = { x0: width * 0.16, y0: height * 0.14, x1: width * 0.84, y1: height * 0.64 };
  const parts = [room(size, { back, wall: '#f1e3cf', floor: '#d8c4a6' })];
  // Zellige band on the lower walls.
  const random = seededRandom(42);
  const tile = 46;
  for (let x = back.x0; x < back.x1; x += tile) {
    for (let y = back.y1 - 170; y < back.y1; y += tile) {
      const palette = ['#1f6f78', '#e0b15a', '#f4efe6', '#2a4d8f', '#b5533c'];
      const color = palette[Math.floor(random() * palette.length)];
      parts.push(
        `<rect x="${x + 2}" y="${y + 2}" width="${tile - 4}" height="${tile - 4}" fill="${color}" transform="rotate(45 ${x + tile / 2} ${y + tile / 2}) scale(1)" opacity="0.9"/>`,
      );
    }
  }
  // Horseshoe arch window.
  const ax = width / 2;
  const aw = width * 0.18;
  const ay = back.y0 + 60;
  const ah = (back.y1 - back.y0) * 0.55;
  parts.push(
    `<path d="M ${ax - aw / 2} ${ay + ah} L ${ax - aw / 2} ${ay + aw / 2} A ${aw / 2} ${aw / 2} 0 1 1 ${ax + aw / 2} ${ay + aw / 2} L ${ax + aw / 2} ${ay + ah} Z" fill="url(#sunset)" stroke="#b08a55" stroke-width="18"/>`,
  );
  // Banquettes (sedari) along the back and side walls.
  parts.push(`<rect x="${back.x0 + 10}" y="${back.y1 - 120}" width="${back.x1 - back.x0 - 20}" height="120" rx="14" fill="#7a2233"/>`);
  parts.push(`<rect x="${back.x0 + 10}" y="${back.y1 - 200}" width="${back.x1 - back.x0 - 20}" height="90" rx="20" fill="#9a3040"/>`);
  for (let i = 0; i < 8; i += 1) {
    const cx = back.x0 + 60 + i * ((back.x1 - back.x0 - 120) / 7);
    parts.push(`<rect x="${cx - 45}" y="${back.y1 - 230}" width="90" height="80" rx="18" fill="${i % 2 ? '#e0b15a' : '#c9a24a'}"/>`);
  }
  parts.push(
    poly(
      [
        [0, height * 0.7],
        [back.x0, back.y1 - 120],
        [back.x0, back.y1],
        [0, height * 0.98],
      ],
      'fill="#7a2233"',
    ),
  );
  parts.push(
    poly(
      [
        [width, height * 0.7],
        [back.x1, back.y1 - 120],
        [back.x1, back.y1],
        [width, height * 0.98],
      ],
      'fill="#7a2233"',
    ),
  );
  // Low round table with a brass tray.
  parts.push(`<ellipse cx="${width / 2}" cy="${height * 0.84}" rx="${width * 0.34}" ry="${height * 0.1}" fill="#a8412f" opacity="0.85"/>`);
  parts.push(`<ellipse cx="${width / 2}" cy="${height * 0.8}" rx="${width * 0.1}" ry="${height * 0.035}" fill="#c99a3b"/>`);
  parts.push(
    `<rect x="${width / 2 - width * 0.08}" y="${height * 0.8}" width="${width * 0.16}" height="${height * 0.06}" fill="#5b3b25"/>`,
  );
  parts.push(`<ellipse cx="${width / 2}" cy="${height * 0.12}" rx="90" ry="90" fill="url(#lampGlow)"/>`);
  parts.push(
    `<path d="M ${width / 2 - 40} ${height * 0.1} L ${width / 2 + 40} ${height * 0.1} L ${width / 2 + 25} ${height * 0.17} L ${width / 2 - 25} ${height * 0.17} Z" fill="#b8862f"/>`,
  );
  return finish(size, parts.join('\n'));
}

/** 04: equipped kitchen with an island. */
function kitchen(size: Size): string {
  const { width, height } = size;
  const back = { x0: width * 0.18, y0: height * 0.14, x1: width * 0.82, y1: height * 0.62 };
  const parts = [room(size, { back, wall: 'url(#wallCool)', floor: 'url(#floorStone)' })];
  for (let i = 0; i < 10; i += 1) {
    parts.push(
      `<line x1="${back.x0 + ((back.x1 - back.x0) * i) / 9}" y1="${back.y1}" x2="${-width * 0.4 + (width * 1.8 * i) / 9}" y2="${height}" stroke="#a89c8b" stroke-width="2" opacity="0.5"/>`,
    );
  }
  // Upper and lower cabinets.
  const cw = (back.x1 - back.x0 - 40) / 6;
  for (let i = 0; i < 6; i += 1) {
    const x = back.x0 + 20 + i * cw;
    parts.push(`<rect x="${x + 4}" y="${back.y0 + 30}" width="${cw - 8}" height="${(back.y1 - back.y0) * 0.3}" fill="#4c5b61"/>`);
    parts.push(
      `<rect x="${x + 4}" y="${back.y1 - (back.y1 - back.y0) * 0.34}" width="${cw - 8}" height="${(back.y1 - back.y0) * 0.34}" fill="#4c5b61"/>`,
    );
    parts.push(`<rect x="${x + cw / 2 - 30}" y="${back.y1 - (back.y1 - back.y0) * 0.3}" width="60" height="6" fill="#c9c2b5"/>`);
  }
  parts.push(
    `<rect x="${back.x0 + 20}" y="${back.y1 - (back.y1 - back.y0) * 0.36}" width="${back.x1 - back.x0 - 40}" height="16" fill="#f2efe9"/>`,
  );
  parts.push(
    `<rect x="${back.x0 + 20}" y="${back.y0 + 30 + (back.y1 - back.y0) * 0.3}" width="${back.x1 - back.x0 - 40}" height="${(back.y1 - back.y0) * 0.3}" fill="#ffffff" opacity="0.45"/>`,
  );
  // Island.
  parts.push(
    `<ellipse cx="${width / 2}" cy="${height * 0.95}" rx="${width * 0.32}" ry="30" fill="#000" opacity="0.2" filter="url(#soft)"/>`,
  );
  parts.push(
    poly(
      [
        [width * 0.2, height * 0.7],
        [width * 0.8, height * 0.7],
        [width * 0.86, height * 0.76],
        [width * 0.14, height * 0.76],
      ],
      'fill="#f7f4ef"',
    ),
  );
  parts.push(`<rect x="${width * 0.14}" y="${height * 0.76}" width="${width * 0.72}" height="${height * 0.18}" fill="#3f4c52"/>`);
  for (const sx of [0.3, 0.5, 0.7]) {
    parts.push(pendant(width * sx, height * 0.3, 34));
    parts.push(`<rect x="${width * sx - 40}" y="${height * 0.86}" width="80" height="16" rx="8" fill="#8b6a4a"/>`);
  }
  parts.push(plant(width * 0.72, height * 0.7, 0.5, 17));
  return finish(size, parts.join('\n'));
}

/** 05: master bedroom. */
function bedroom(size: Size): string {
  const { width, height } = size;
  const back = { x0: width * 0.2, y0: height * 0.15, x1: width * 0.8, y1: height * 0.66 };
  const parts = [room(size, { back, wall: '#e8ddd3', floor: 'url(#floorWood)', planks: 12 })];
  const wx = back.x1 - 380;
  parts.push(
    windowView(wx, back.y0 + 60, 300, (back.y1 - back.y0) * 0.6, 'garden'),
    windowFrame(wx, back.y0 + 60, 300, (back.y1 - back.y0) * 0.6, 2),
  );
  parts.push(`<rect x="${wx - 60}" y="${back.y0 + 30}" width="60" height="${(back.y1 - back.y0) * 0.85}" fill="#d8c7b0"/>`);
  // Headboard, bed, linen.
  parts.push(`<rect x="${width * 0.3}" y="${height * 0.4}" width="${width * 0.34}" height="${height * 0.2}" rx="16" fill="#6d7f73"/>`);
  parts.push(
    `<ellipse cx="${width * 0.47}" cy="${height * 0.97}" rx="${width * 0.3}" ry="34" fill="#000" opacity="0.2" filter="url(#soft)"/>`,
  );
  parts.push(
    poly(
      [
        [width * 0.28, height * 0.58],
        [width * 0.66, height * 0.58],
        [width * 0.78, height * 0.92],
        [width * 0.16, height * 0.92],
      ],
      'fill="#f6f3ee"',
    ),
  );
  parts.push(
    poly(
      [
        [width * 0.2, height * 0.74],
        [width * 0.74, height * 0.74],
        [width * 0.78, height * 0.92],
        [width * 0.16, height * 0.92],
      ],
      'fill="#c7b49a"',
    ),
  );
  parts.push(`<rect x="${width * 0.16}" y="${height * 0.92}" width="${width * 0.62}" height="${height * 0.05}" fill="#a8957c"/>`);
  parts.push(`<rect x="${width * 0.33}" y="${height * 0.53}" width="${width * 0.12}" height="${height * 0.07}" rx="20" fill="#ffffff"/>`);
  parts.push(`<rect x="${width * 0.49}" y="${height * 0.53}" width="${width * 0.12}" height="${height * 0.07}" rx="20" fill="#ffffff"/>`);
  for (const side of [0.24, 0.7]) {
    parts.push(`<rect x="${width * side - 60}" y="${height * 0.6}" width="120" height="${height * 0.1}" fill="#8b6a4a"/>`);
    parts.push(`<ellipse cx="${width * side}" cy="${height * 0.52}" rx="120" ry="120" fill="url(#lampGlow)"/>`);
    parts.push(
      `<path d="M ${width * side - 40} ${height * 0.5} L ${width * side + 40} ${height * 0.5} L ${width * side + 30} ${height * 0.56} L ${width * side - 30} ${height * 0.56} Z" fill="#f1e6d2"/>`,
    );
  }
  parts.push(artFrame(width * 0.36, height * 0.22, width * 0.22, height * 0.14, 200));
  return finish(size, parts.join('\n'));
}

/** 06: bathroom with a walk-in shower. */
function bathroom(size: Size): string {
  const { width, height } = size;
  const back = { x0: width * 0.22, y0: height * 0.14, x1: width * 0.78, y1: height * 0.66 };
  const parts = [room(size, { back, wall: '#eceae5', floor: '#b9b3aa' })];
  for (let x = back.x0; x <= back.x1; x += 60)
    parts.push(`<line x1="${x}" y1="${back.y0}" x2="${x}" y2="${back.y1}" stroke="#cfcac2" stroke-width="2"/>`);
  for (let y = back.y0; y <= back.y1; y += 120)
    parts.push(`<line x1="${back.x0}" y1="${y}" x2="${back.x1}" y2="${y}" stroke="#cfcac2" stroke-width="2"/>`);
  // Vanity, basin, mirror.
  parts.push(`<rect x="${width * 0.3}" y="${height * 0.5}" width="${width * 0.26}" height="${height * 0.14}" fill="#7c5c43"/>`);
  parts.push(`<rect x="${width * 0.29}" y="${height * 0.48}" width="${width * 0.28}" height="${height * 0.025}" fill="#f3f1ed"/>`);
  parts.push(`<ellipse cx="${width * 0.43}" cy="${height * 0.48}" rx="${width * 0.06}" ry="${height * 0.018}" fill="#ffffff"/>`);
  parts.push(
    `<rect x="${width * 0.33}" y="${height * 0.2}" width="${width * 0.2}" height="${height * 0.24}" rx="18" fill="#cfe0e8" stroke="#b7a37f" stroke-width="8"/>`,
  );
  parts.push(
    `<rect x="${width * 0.35}" y="${height * 0.22}" width="${width * 0.08}" height="${height * 0.2}" fill="#ffffff" opacity="0.35"/>`,
  );
  // Shower glass.
  parts.push(
    `<rect x="${width * 0.6}" y="${back.y0 + 20}" width="${width * 0.16}" height="${back.y1 - back.y0 - 20}" fill="#cfe7ef" opacity="0.35" stroke="#9fb3ba" stroke-width="4"/>`,
  );
  parts.push(`<circle cx="${width * 0.68}" cy="${back.y0 + 80}" r="30" fill="#9c9c9c"/>`);
  parts.push(plant(width * 0.18, height * 0.94, 0.9, 23));
  parts.push(`<rect x="${width * 0.36}" y="${height * 0.74}" width="${width * 0.2}" height="${height * 0.1}" rx="12" fill="#e9e2d6"/>`);
  return finish(size, parts.join('\n'));
}

/** 07 (portrait): terrace over the sea at sunset. */
function terrace(size: Size): string {
  const { width, height } = size;
  const horizon = height * 0.5;
  const parts = [`<rect width="${width}" height="${horizon}" fill="url(#sunset)"/>`];
  parts.push(`<ellipse cx="${width * 0.62}" cy="${horizon - 40}" rx="220" ry="220" fill="url(#sunGlow)"/>`);
  parts.push(`<circle cx="${width * 0.62}" cy="${horizon - 40}" r="46" fill="#fff3d6"/>`);
  parts.push(`<rect y="${horizon}" width="${width}" height="${height * 0.2}" fill="url(#sea)"/>`);
  for (let i = 0; i < 8; i += 1) {
    parts.push(
      `<line x1="${width * 0.45}" y1="${horizon + 20 + i * 28}" x2="${width * 0.8}" y2="${horizon + 20 + i * 28}" stroke="#ffd9a0" stroke-opacity="${0.5 - i * 0.05}" stroke-width="5"/>`,
    );
  }
  // Terrace floor tiles in perspective.
  const floorTop = height * 0.66;
  parts.push(`<rect y="${floorTop}" width="${width}" height="${height - floorTop}" fill="#d9c6ab"/>`);
  for (let i = -6; i <= 12; i += 1) {
    parts.push(
      `<line x1="${width / 2 + i * 60}" y1="${floorTop}" x2="${width / 2 + i * 260}" y2="${height}" stroke="#bca68a" stroke-width="3"/>`,
    );
  }
  for (let j = 1; j < 8; j += 1) {
    const y = floorTop + (height - floorTop) * (j / 8) ** 1.6;
    parts.push(`<line x1="0" y1="${y}" x2="${width}" y2="${y}" stroke="#bca68a" stroke-width="3"/>`);
  }
  // Glass railing.
  parts.push(`<rect y="${height * 0.58}" width="${width}" height="${height * 0.09}" fill="#d5e7ef" opacity="0.3"/>`);
  parts.push(`<rect y="${height * 0.575}" width="${width}" height="10" fill="#6f6a62"/>`);
  // Lounge chairs and a table.
  parts.push(
    `<ellipse cx="${width * 0.5}" cy="${height * 0.9}" rx="${width * 0.4}" ry="40" fill="#000" opacity="0.2" filter="url(#soft)"/>`,
  );
  parts.push(`<rect x="${width * 0.12}" y="${height * 0.76}" width="${width * 0.3}" height="${height * 0.06}" rx="24" fill="#f4f0e8"/>`);
  parts.push(`<rect x="${width * 0.12}" y="${height * 0.7}" width="${width * 0.08}" height="${height * 0.1}" rx="20" fill="#f4f0e8"/>`);
  parts.push(`<rect x="${width * 0.58}" y="${height * 0.76}" width="${width * 0.3}" height="${height * 0.06}" rx="24" fill="#f4f0e8"/>`);
  parts.push(`<rect x="${width * 0.8}" y="${height * 0.7}" width="${width * 0.08}" height="${height * 0.1}" rx="20" fill="#f4f0e8"/>`);
  parts.push(`<ellipse cx="${width * 0.5}" cy="${height * 0.8}" rx="${width * 0.08}" ry="${height * 0.018}" fill="#5b4634"/>`);
  parts.push(`<rect x="${width * 0.5 - 8}" y="${height * 0.8}" width="16" height="${height * 0.06}" fill="#5b4634"/>`);
  parts.push(plant(width * 0.08, height * 0.98, 1.6, 31), plant(width * 0.93, height * 0.97, 1.3, 37));
  return finish(size, parts.join('\n'));
}

/** 08: pool and garden. */
function pool(size: Size): string {
  const { width, height } = size;
  const horizon = height * 0.42;
  const parts = [`<rect width="${width}" height="${horizon}" fill="url(#sky)"/>`];
  parts.push(`<ellipse cx="${width * 0.2}" cy="${height * 0.12}" rx="240" ry="240" fill="url(#sunGlow)"/>`);
  // Villa in the back.
  parts.push(
    `<rect x="${width * 0.3}" y="${height * 0.16}" width="${width * 0.5}" height="${horizon - height * 0.16 + 30}" fill="#f5efe4"/>`,
  );
  parts.push(`<rect x="${width * 0.3}" y="${height * 0.16}" width="${width * 0.5}" height="24" fill="#d9cdbb"/>`);
  for (let i = 0; i < 4; i += 1) {
    parts.push(
      `<rect x="${width * 0.34 + i * width * 0.115}" y="${height * 0.24}" width="${width * 0.08}" height="${height * 0.17}" fill="#2f4a5e" opacity="0.75"/>`,
    );
  }
  parts.push(`<rect x="0" y="${horizon}" width="${width}" height="${height - horizon}" fill="#7fa764"/>`);
  parts.push(`<ellipse cx="${width * 0.12}" cy="${horizon}" rx="${width * 0.16}" ry="${height * 0.13}" fill="#4a7a3e"/>`);
  parts.push(`<ellipse cx="${width * 0.92}" cy="${horizon + 10}" rx="${width * 0.14}" ry="${height * 0.12}" fill="#557f45"/>`);
  // Deck and pool in perspective.
  parts.push(
    poly(
      [
        [width * 0.22, horizon + 40],
        [width * 0.86, horizon + 40],
        [width * 1.05, height],
        [-width * 0.05, height],
      ],
      'fill="#e4d9c6"',
    ),
  );
  parts.push(
    poly(
      [
        [width * 0.3, horizon + 80],
        [width * 0.78, horizon + 80],
        [width * 0.9, height * 0.9],
        [width * 0.12, height * 0.9],
      ],
      'fill="url(#pool)"',
    ),
  );
  const random = seededRandom(5);
  for (let i = 0; i < 30; i += 1) {
    const y = horizon + 100 + random() * (height * 0.9 - horizon - 120);
    const x = width * 0.25 + random() * width * 0.5;
    parts.push(`<path d="M ${x} ${y} q 30 -10 60 0 t 60 0" stroke="#e6fbff" stroke-opacity="0.5" stroke-width="4" fill="none"/>`);
  }
  for (const x of [0.16, 0.84]) {
    parts.push(`<rect x="${width * x - 120}" y="${height * 0.78}" width="240" height="44" rx="14" fill="#ffffff"/>`);
    parts.push(`<path d="M ${width * x - 120} ${height * 0.78} l -50 -90 l 60 0 l 40 90 Z" fill="#ffffff"/>`);
    parts.push(`<ellipse cx="${width * x}" cy="${height * 0.62}" rx="170" ry="30" fill="#e9d8b8"/>`);
    parts.push(`<rect x="${width * x - 4}" y="${height * 0.62}" width="8" height="${height * 0.16}" fill="#776a5c"/>`);
  }
  return finish(size, parts.join('\n'));
}

interface DemoPhoto {
  file: string;
  draw: (size: Size) => string;
  size: Size;
  /** EXIF orientation to store (the pixels are saved pre-rotated so that viewers show them upright). */
  orientation?: 6;
}

const PHOTOS: DemoPhoto[] = [
  { file: '01-facade.jpg', draw: facade, size: LANDSCAPE },
  { file: '02-living-room.jpg', draw: livingRoom, size: LANDSCAPE },
  { file: '03-moroccan-lounge.jpg', draw: moroccanLounge, size: LANDSCAPE },
  { file: '04-kitchen.jpg', draw: kitchen, size: LANDSCAPE },
  { file: '05-bedroom.jpg', draw: bedroom, size: LANDSCAPE },
  { file: '06-bathroom.jpg', draw: bathroom, size: LANDSCAPE },
  { file: '07-terrace.jpg', draw: terrace, size: PORTRAIT },
  { file: '08-pool.jpg', draw: pool, size: LANDSCAPE, orientation: 6 },
];

/** The demo agency's logo: a gold house mark and the name, on transparency. */
function logo(): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="200" viewBox="0 0 640 200">
  <path d="M 30 110 L 100 45 L 170 110 L 150 110 L 150 170 L 50 170 L 50 110 Z" fill="#C9A45C"/>
  <rect x="88" y="125" width="24" height="45" fill="#1B2B3A"/>
  <path d="M 60 105 L 100 68 L 140 105" stroke="#1B2B3A" stroke-width="8" fill="none" stroke-linejoin="round"/>
  <text x="195" y="112" font-family="Noto Serif Display, Noto Serif, serif" font-weight="bold" font-size="62" fill="#1B2B3A">ATLAS</text>
  <text x="198" y="160" font-family="Noto Sans, sans-serif" font-size="30" letter-spacing="9" fill="#5A6B7B">IMMOBILIER</text>
</svg>`;
}

const BRANDING = {
  agency_name: 'Atlas Immobilier',
  agent_name: 'Salma Bennani',
  phone: '+212 6 00 00 00 00',
  email: 'contact@atlas-immobilier.example',
};

async function main(): Promise<void> {
  await mkdir(OUT_DIR, { recursive: true });
  for (const photo of PHOTOS) {
    const svg = Buffer.from(photo.draw(photo.size));
    let image = sharp(svg, { density: 72 }).flatten({ background: '#ffffff' });
    if (photo.orientation === 6) {
      // Orientation 6 means "rotate 90° clockwise to display": store the picture turned 90° anticlockwise.
      image = sharp(await image.png().toBuffer())
        .rotate(270)
        .withMetadata({ orientation: 6 });
    }
    const jpeg = await image.jpeg({ quality: 80, mozjpeg: true, chromaSubsampling: '4:2:0' }).toBuffer();
    await writeFile(`${OUT_DIR}${photo.file}`, jpeg);
    console.log(`${photo.file}  ${(jpeg.length / 1024).toFixed(0)} KB`);
  }
  const png = await sharp(Buffer.from(logo())).png({ compressionLevel: 9 }).toBuffer();
  await writeFile(`${DEMO_DIR}logo.png`, png);
  await writeFile(`${DEMO_DIR}branding.json`, `${JSON.stringify(BRANDING, null, 2)}\n`);
  console.log(`logo.png  ${(png.length / 1024).toFixed(0)} KB, branding.json`);
}

await main();

import { formatNumber, t } from './i18n.js';

const SVG = 'http://www.w3.org/2000/svg';

export interface MarketFigures {
  listing: number;
  q1: number | null;
  median: number;
  q3: number | null;
}

function el(name: string, attributes: Record<string, string | number>, text?: string): SVGElement {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * The listing's price per m² on the district's spread: a band from Q1 to Q3, a line at the median,
 * a dot for the listing. Numbers read left to right in every language (a value axis is not text),
 * and the figure's accessible name states every figure, so the chart needs no eyes.
 */
export function marketChart(figures: MarketFigures, summary: string): SVGElement {
  const width = 320;
  const height = 86;
  const pad = 24;
  const values = [figures.listing, figures.median, figures.q1 ?? figures.median, figures.q3 ?? figures.median];
  const low = Math.min(...values) * 0.9;
  const high = Math.max(...values) * 1.1;
  const x = (v: number): number => pad + ((v - low) / (high - low || 1)) * (width - 2 * pad);
  const svg = el('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': summary, class: 'chart', direction: 'ltr' });
  svg.append(el('title', {}, summary));
  svg.append(el('line', { x1: pad, x2: width - pad, y1: 40, y2: 40, class: 'axis' }));
  if (figures.q1 !== null && figures.q3 !== null) {
    svg.append(
      el('rect', { x: x(figures.q1), y: 30, width: Math.max(1, x(figures.q3) - x(figures.q1)), height: 20, class: 'band', rx: 3 }),
    );
    svg.append(
      el('text', { x: x(figures.q1), y: 66, class: 'tick', 'text-anchor': 'middle' }, `${t('market.q1')} ${formatNumber(figures.q1)}`),
    );
    svg.append(
      el('text', { x: x(figures.q3), y: 80, class: 'tick', 'text-anchor': 'middle' }, `${t('market.q3')} ${formatNumber(figures.q3)}`),
    );
  }
  svg.append(el('line', { x1: x(figures.median), x2: x(figures.median), y1: 26, y2: 54, class: 'median' }));
  svg.append(
    el(
      'text',
      { x: x(figures.median), y: 20, class: 'tick', 'text-anchor': 'middle' },
      `${t('market.median')} ${formatNumber(figures.median)}`,
    ),
  );
  svg.append(el('circle', { cx: x(figures.listing), cy: 40, r: 7, class: 'listing' }));
  return svg;
}

/**
 * Verbatim excerpts for provenance (docs/analysis.md "Provenance"). The extractors match on the
 * normalised text (lower case, accents dropped, spaces collapsed); a user wants to see the words
 * as the listing wrote them. `Excerpts` maps offsets of the normalised text back to the original
 * by walking both side by side once, then cuts the original around a match: the match's line,
 * narrowed to at most EXCERPT_MAX_LENGTH characters at word boundaries.
 *
 * The original is scrubbed of phone numbers and e-mails first, like every text that leaves the
 * analysis: an excerpt never shows them.
 */
import { HIDDEN, scrubPrivate } from '../privacy.js';
import { normalizeText } from './normalize.js';

export const EXCERPT_MAX_LENGTH = 120;
/** Characters of context around the words a value was read from (both sides together). */
const EXCERPT_CONTEXT = 50;

const WHITESPACE = /\s/;

export class Excerpts {
  private readonly source: string;
  private readonly normalized: string;
  private map: Int32Array | null = null;

  /** `normalized` is the scrubbed normalised text the extractors read. */
  constructor(raw: string, normalized: string) {
    // Scrubbing found something in the normalised text: scrub the original too (its compatibility
    // forms folded, so that full-width or styled digits are caught). Otherwise there is nothing to hide.
    this.source = normalized.includes(HIDDEN) ? scrubPrivate(raw.normalize('NFKC')) : raw;
    this.normalized = normalized;
  }

  /** normalised offset → offset in the (scrubbed) original of the character that produced it; -1 if none. */
  private offsets(): Int32Array {
    if (this.map !== null) return this.map;
    const { source, normalized } = this;
    const map = new Int32Array(normalized.length + 1).fill(-1);
    const forms = new Map<string, string>();
    let j = 0;
    let i = 0;
    while (i < source.length && j < normalized.length) {
      const unit = source.charCodeAt(i);
      if (unit < 128) {
        // ASCII, the bulk of most listings: compared code by code, no strings made.
        if (unit === 32 || (unit >= 9 && unit <= 13)) {
          const next = normalized.charCodeAt(j);
          if (next === 32 || next === 10) {
            map[j] = i;
            j += 1;
            i += 1;
            while (i < source.length && WHITESPACE.test(source[i] as string)) i += 1;
          } else {
            i += 1;
          }
          continue;
        }
        // Backquote is an apostrophe once normalised (normalize.ts).
        const lower = unit >= 65 && unit <= 90 ? unit + 32 : unit === 96 ? 39 : unit;
        if (normalized.charCodeAt(j) === lower) {
          map[j] = i;
          j += 1;
        }
        i += 1;
        continue;
      }
      const code = source.codePointAt(i) as number;
      const char = String.fromCodePoint(code);
      const width = char.length;
      if (WHITESPACE.test(char)) {
        if (normalized[j] === ' ' || normalized[j] === '\n') {
          map[j] = i;
          j += 1;
          i += width;
          while (i < source.length && WHITESPACE.test(source[i] as string)) i += 1;
        } else {
          i += width;
        }
        continue;
      }
      let form = forms.get(char);
      if (form === undefined) {
        form = normalizeText(char);
        forms.set(char, form);
      }
      if (form !== '' && normalized.startsWith(form, j)) {
        for (let k = 0; k < form.length; k += 1) map[j + k] = i;
        j += form.length;
      } else if (normalized.startsWith(char, j)) {
        for (let k = 0; k < width; k += 1) map[j + k] = i;
        j += width;
      }
      // Otherwise the character vanished in normalisation (a mark, an invisible, "Voir plus"): skip it.
      i += width;
    }
    map[normalized.length] = source.length;
    this.map = map;
    return map;
  }

  private rawOffset(position: number, forward: boolean): number {
    const map = this.offsets();
    let p = Math.max(0, Math.min(position, this.normalized.length));
    while (p >= 0 && p <= this.normalized.length && (map[p] as number) < 0) p += forward ? 1 : -1;
    return p < 0 ? 0 : p > this.normalized.length ? this.source.length : (map[p] as number);
  }

  /** The original words around normalised offsets [start, end): verbatim, at most EXCERPT_MAX_LENGTH characters. */
  around(start: number, end: number): string {
    const from = this.rawOffset(start, true);
    const lastChar = this.rawOffset(Math.max(start, end - 1), false);
    const to = Math.max(from + 1, lastChar + 1);
    const text = this.source;
    const lineStart = text.lastIndexOf('\n', from - 1) + 1;
    const newline = text.indexOf('\n', to);
    const lineEnd = newline === -1 ? text.length : newline;
    if (to - from >= EXCERPT_MAX_LENGTH) return text.slice(from, from + EXCERPT_MAX_LENGTH).trim();
    // Context on both sides, within the line, widened to whole words.
    const room = Math.min(EXCERPT_MAX_LENGTH - (to - from), EXCERPT_CONTEXT);
    let left = Math.max(lineStart, from - Math.floor(room / 2));
    let right = Math.min(lineEnd, to + (room - (from - left)));
    left = Math.max(lineStart, Math.min(left, right - EXCERPT_MAX_LENGTH));
    if (left > lineStart) {
      const space = text.indexOf(' ', left);
      if (space !== -1 && space < from) left = space + 1;
    }
    if (right < lineEnd) {
      const space = text.lastIndexOf(' ', right);
      if (space >= to) right = space;
    }
    return text.slice(left, right).trim();
  }
}

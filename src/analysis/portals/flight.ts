import { isRecord, type Page } from './html.js';

/**
 * The data of a Next.js app-router page (Yakeey): the server streams React "flight" rows into
 * `self.__next_f.push([1, "<chunk>"])` scripts. Joined, the chunks are lines `<hex id>:<row>`;
 * JSON rows refer to each other with "$<hex id>" strings. This reads the rows and resolves
 * those references, enough to walk the props handed to the page's components.
 */
export class FlightData {
  private constructor(private readonly rows: Map<string, unknown>) {}

  static fromPage(page: Page): FlightData | null {
    let payload = '';
    for (const script of page.scripts()) {
      const match = /self\.__next_f\.push\(\s*(\[[\s\S]*\])\s*\)\s*(?:;\s*)?$/.exec(script.content.trim());
      if (!match) continue;
      try {
        const entry: unknown = JSON.parse(match[1]);
        if (Array.isArray(entry) && entry[0] === 1 && typeof entry[1] === 'string') payload += entry[1];
      } catch {
        // A chunk that is not plain JSON (a future format): skip it, the others may suffice.
      }
    }
    if (payload === '') return null;
    return new FlightData(parseRows(payload));
  }

  /** Every JSON row, in stream order. */
  values(): unknown[] {
    return [...this.rows.values()];
  }

  /** Follows "$<id>" references (recursively, within `depth`) so the value reads like plain JSON. */
  resolve(value: unknown, depth = 6): unknown {
    if (depth < 0) return value;
    if (typeof value === 'string') {
      const ref = /^\$([0-9a-f]+)$/.exec(value);
      if (ref && this.rows.has(ref[1])) return this.resolve(this.rows.get(ref[1]), depth - 1);
      return value.startsWith('$$') ? value.slice(1) : value;
    }
    if (Array.isArray(value)) return value.map((item) => this.resolve(item, depth - 1));
    if (isRecord(value)) {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) out[key] = this.resolve(item, depth - 1);
      return out;
    }
    return value;
  }
}

function utf8Length(char: string): number {
  const code = char.codePointAt(0) ?? 0;
  return code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
}

function parseRows(payload: string): Map<string, unknown> {
  const rows = new Map<string, unknown>();
  let index = 0;
  while (index < payload.length) {
    const colon = payload.indexOf(':', index);
    if (colon < 0) break;
    const id = payload.slice(index, colon);
    if (!/^[0-9a-f]+$/.test(id)) {
      // Not at a row start: resynchronise on the next line.
      const newline = payload.indexOf('\n', index);
      if (newline < 0) break;
      index = newline + 1;
      continue;
    }
    const text = /^T([0-9a-f]+),/.exec(payload.slice(colon + 1, colon + 16));
    if (text) {
      // A text row carries its length in UTF-8 bytes, and may contain newlines.
      let bytes = parseInt(text[1], 16);
      let end = colon + 1 + text[0].length;
      const start = end;
      while (bytes > 0 && end < payload.length) {
        const char = String.fromCodePoint(payload.codePointAt(end) ?? 0);
        bytes -= utf8Length(char);
        end += char.length;
      }
      rows.set(id, payload.slice(start, end));
      index = end;
      continue;
    }
    let newline = payload.indexOf('\n', colon);
    if (newline < 0) newline = payload.length;
    const body = payload.slice(colon + 1, newline);
    if (/^[[{"]/.test(body)) {
      try {
        rows.set(id, JSON.parse(body));
      } catch {
        // Malformed row: leave it out.
      }
    }
    index = newline + 1;
  }
  return rows;
}

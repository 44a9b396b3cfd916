import * as cheerio from 'cheerio';
import type { CheerioAPI } from 'cheerio';
// Every HTML character reference (`&eacute;`, `&hellip;`, numeric ones), by the WHATWG tables.
import { decodeHTML, decodeHTMLAttribute } from 'entities';
import { fold, tidy } from './values.js';

/**
 * A saved or fetched page, read lazily: embedded data (JSON-LD, __NEXT_DATA__, Next.js flight
 * chunks) comes from a fast scan of the script tags; the DOM is built only when an adapter
 * needs it (htmlparser2, several times faster than parse5 on 200–500 KB portal pages).
 */
export class Page {
  private scriptList: ScriptBlock[] | null = null;
  private tagList: HeadTag[] | null = null;
  private document: CheerioAPI | null = null;

  constructor(readonly html: string) {}

  scripts(): ScriptBlock[] {
    if (this.scriptList === null) {
      this.scriptList = [];
      const pattern = /<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi;
      for (let match = pattern.exec(this.html); match !== null; match = pattern.exec(this.html)) {
        const attrs = parseAttributes(match[1]);
        this.scriptList.push({ type: attrs.type?.toLowerCase() ?? null, id: attrs.id ?? null, content: match[2] });
      }
    }
    return this.scriptList;
  }

  /** Every JSON-LD object of the page, arrays and `@graph` flattened. */
  jsonLd(): Record<string, unknown>[] {
    const objects: Record<string, unknown>[] = [];
    const collect = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(collect);
      else if (isRecord(value)) {
        objects.push(value);
        if (Array.isArray(value['@graph'])) value['@graph'].forEach(collect);
      }
    };
    for (const script of this.scripts()) if (script.type === 'application/ld+json') collect(parseLooseJson(script.content));
    return objects;
  }

  /** The `__NEXT_DATA__` document of a Next.js pages-router page, or null. */
  nextData(): unknown {
    const script = this.scripts().find((s) => s.id === '__NEXT_DATA__');
    return script === undefined ? null : parseLooseJson(script.content);
  }

  private tags(): HeadTag[] {
    if (this.tagList === null) {
      this.tagList = [];
      const pattern = /<(meta|link)\b([^>]*)>/gi;
      for (let match = pattern.exec(this.html); match !== null; match = pattern.exec(this.html)) {
        this.tagList.push({ name: match[1].toLowerCase(), attrs: parseAttributes(match[2]) });
      }
    }
    return this.tagList;
  }

  /** Content of `<meta property|name="…">`, all of them in page order. */
  metaAll(key: string): string[] {
    return this.tags()
      .filter((t) => t.name === 'meta' && (t.attrs.property === key || t.attrs.name === key) && t.attrs.content !== undefined)
      .map((t) => t.attrs.content as string);
  }

  meta(key: string): string | null {
    return this.metaAll(key)[0] ?? null;
  }

  /** href of `<link rel="…">` (first one). */
  link(rel: string): string | null {
    const tag = this.tags().find((t) => t.name === 'link' && (t.attrs.rel ?? '').toLowerCase().split(/\s+/).includes(rel) && t.attrs.href);
    return tag?.attrs.href ?? null;
  }

  /** The `<title>` text. */
  title(): string | null {
    const match = /<title\b[^>]*>([\s\S]*?)<\/title>/i.exec(this.html);
    return match ? tidy(decodeHTML(match[1])) || null : null;
  }

  dom(): CheerioAPI {
    if (this.document === null) this.document = cheerio.load(this.html, { xml: { xmlMode: false, decodeEntities: true } });
    return this.document;
  }
}

export interface ScriptBlock {
  type: string | null;
  id: string | null;
  content: string;
}

interface HeadTag {
  name: string;
  attrs: Record<string, string | undefined>;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseAttributes(source: string): Record<string, string | undefined> {
  const attrs: Record<string, string | undefined> = {};
  const pattern = /([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?/g;
  for (let match = pattern.exec(source); match !== null; match = pattern.exec(source)) {
    attrs[match[1].toLowerCase()] = decodeHTMLAttribute(match[2] ?? match[3] ?? match[4] ?? '');
  }
  return attrs;
}

/**
 * JSON as pages embed it: strict first, then forgiving raw control characters inside strings
 * and trailing commas, which hand-written JSON-LD templates often contain. Null when unreadable.
 */
export function parseLooseJson(text: string): unknown {
  const trimmed = text.trim().replace(/^<!--/, '').replace(/-->$/, '').trim();
  if (trimmed === '') return null;
  try {
    return JSON.parse(trimmed);
  } catch {
    try {
      // eslint-disable-next-line no-control-regex -- raw control characters are exactly what makes such JSON invalid
      return JSON.parse(trimmed.replace(/[\u0000-\u001f]+/g, ' ').replace(/,\s*([}\]])/g, '$1'));
    } catch {
      return null;
    }
  }
}

/** Plain text of an HTML fragment, keeping line breaks of <br> and block ends. */
export function htmlToText(fragment: string): string {
  const withBreaks = fragment
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|li|h[1-6]|tr)>/gi, '\n')
    .replace(/<[^<>]+>/g, '');
  return decodeHTML(withBreaks)
    .split('\n')
    .map((line) => tidy(line))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Depth-first search of a JSON tree for the first object `accept` takes (bounded depth). */
export function findInTree(
  root: unknown,
  accept: (node: Record<string, unknown>) => boolean,
  maxDepth = 12,
): Record<string, unknown> | null {
  const stack: [unknown, number][] = [[root, 0]];
  const seen = new Set<unknown>();
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (typeof node !== 'object' || node === null || seen.has(node) || depth > maxDepth) continue;
    seen.add(node);
    if (isRecord(node) && accept(node)) return node;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (let i = children.length - 1; i >= 0; i -= 1) stack.push([children[i], depth + 1]);
  }
  return null;
}

/**
 * Label → value pairs of a DOM ("Surface habitable" / "147", "Nb. de chambres" / "3"), as the
 * portals lay them out: a leaf holding the label followed by a sibling holding the value, or
 * "Label : value" in one leaf. Only labels of `vocabulary` (folded) are read, first one wins.
 */
export function labelledValues<F extends string>($: CheerioAPI, vocabulary: ReadonlyMap<string, F>): Map<F, string> {
  const found = new Map<F, string>();
  $('*').each((_, element) => {
    if (!isTextLeaf(element)) return;
    const own = tidy($(element).text());
    if (own.length === 0 || own.length > 60) return;
    const inline = /^([^:]{2,40}):\s*(\S.*)$/.exec(own);
    const label = fold(inline ? inline[1] : own).replace(/(?<![.:\s])[.:\s]+$/, '');
    const field = vocabulary.get(label);
    if (field === undefined || found.has(field)) return;
    let value = inline ? inline[2] : '';
    if (value === '') {
      let sibling = $(element).next();
      if (sibling.length === 0) sibling = $(element).parent().next();
      // A value is a small node; a whole section after a heading is not.
      if (sibling.find('*').length <= 3) value = tidy(sibling.text());
    }
    if (value !== '' && value.length <= 80) found.set(field, value);
  });
  return found;
}

/** An element whose content is text only (no child elements): where labels and values sit. */
export function isTextLeaf(node: object): boolean {
  const children = (node as { children?: { type: string }[] }).children;
  return Array.isArray(children) && children.length > 0 && children.every((child) => child.type === 'text');
}

/** Builds a folded-label vocabulary from readable labels. */
export function vocabulary<F extends string>(entries: Record<F, string[]>): ReadonlyMap<string, F> {
  const map = new Map<string, F>();
  for (const [field, labels] of Object.entries(entries) as [F, string[]][]) {
    for (const label of labels) map.set(fold(label), field);
  }
  return map;
}

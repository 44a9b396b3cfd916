/**
 * The listing's title: what users paste first is the portal title, on its own line. Without a
 * line break the first sentence stands in. Long titles are cut at a word boundary.
 */

export const TITLE_MAX_LENGTH = 120;

const SENTENCE_END = /[.!?؟](?=\s|$)/;

function cut(line: string): string {
  if (line.length <= TITLE_MAX_LENGTH) return line;
  const sentence = SENTENCE_END.exec(line);
  if (sentence !== null && sentence.index >= 12 && sentence.index < TITLE_MAX_LENGTH) return line.slice(0, sentence.index);
  const space = line.lastIndexOf(' ', TITLE_MAX_LENGTH - 1);
  return `${line.slice(0, space > 40 ? space : TITLE_MAX_LENGTH - 1).replace(/(?<![\s,;:–-])[\s,;:–-]+$/, '')}…`;
}

/** The title of a pasted listing, or null for a blank text. */
export function extractTitle(text: string): string | null {
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.replace(/\s+/g, ' ').trim();
    if (line === '') continue;
    return cut(line).replace(/(?<![\s.,;:])[\s.,;:]+$/, '') || null;
  }
  return null;
}

/**
 * Where the title ends in the normalised text, for weighting title words: the first line when the
 * text has several, else the first sentence (at most 150 characters).
 */
export function titleEndIn(normalized: string): number {
  const newline = normalized.indexOf('\n');
  if (newline !== -1) return newline;
  const sentence = SENTENCE_END.exec(normalized);
  const end = sentence === null ? normalized.length : sentence.index;
  return Math.min(end, 150);
}

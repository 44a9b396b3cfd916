/**
 * The floor of the home (docs/analysis-text.md): "RDC"/"rez-de-chaussée"/"ground floor"/
 * "الطابق الأرضي"/"sefliya" = 0, "1er étage", "5ème étage", "au 2 éme étage", "Étage : 6", "ETG1",
 * "premier/deuxième… étage", "3rd floor", "الطابق الثالث", "الطابق 3", "tab9a 2".
 * The building's height is not the floor: "immeuble de 5 étages", "R+4", "sur 2 niveaux".
 * "dernier étage" says the home is on top but not which number: not a floor.
 */

const ORDINAL_WORDS: Record<string, number> = {
  premier: 1,
  premiere: 1,
  first: 1,
  deuxieme: 2,
  second: 2,
  seconde: 2,
  troisieme: 3,
  third: 3,
  quatrieme: 4,
  fourth: 4,
  cinquieme: 5,
  fifth: 5,
  sixieme: 6,
  sixth: 6,
  septieme: 7,
  seventh: 7,
  huitieme: 8,
  eighth: 8,
  neuvieme: 9,
  ninth: 9,
  dixieme: 10,
  tenth: 10,
  الاول: 1,
  الاولى: 1,
  الثاني: 2,
  الثانيه: 2,
  الثالث: 3,
  الرابع: 4,
  الخامس: 5,
  السادس: 6,
  السابع: 7,
  الثامن: 8,
  التاسع: 9,
  العاشر: 10,
  lwl: 1,
  lowl: 1,
  lwla: 1,
  tani: 2,
  talt: 3,
  rab3: 4,
};
const ORDINAL_WORD_PATTERN = Object.keys(ORDINAL_WORDS)
  .sort((a, b) => b.length - a.length)
  .join('|');

const FLOOR_PATTERNS: RegExp[] = [
  // "1er étage", "5ème et dernier étage", "au 2 éme étage", "4e étage", "3rd floor", "3 etage"
  /(?<![a-z\u00df-\u024f\u0600-\u06ff\d+])(?<n>\d{1,2})\s?(?:er|ere|re|eme|emme|em|ieme|e|°|o|th|st|nd|rd)?\s?(?:et dernier\s)?(?:etage|etg|floor|eme etage)(?![a-z\u00df-\u024f\u0600-\u06ff])/g,
  // "Étage : 6", "étage 5", "ETG1", "etag 5", "floor 3"
  /(?<![a-z\u00df-\u024f\u0600-\u06ff])(?:etage|etg|etag|floor|level)\s?(?:n°|no|numero)?\s?:?\s?(?<n>\d{1,2})(?![a-z\u00df-\u024f\u0600-\u06ff\d]|\s?(?:etages|m2|m\b|min))/g,
  // "premier étage", "deuxième étage", "second floor", "الطابق الثالث", "tab9a tani"
  new RegExp(
    String.raw`(?<![a-z\u00df-\u024f\u0600-\u06ff])(?:(?<word>${ORDINAL_WORD_PATTERN})\s(?:etage|floor)|(?:الطابق|الطبقه|طابق|طبقه|tab9a|tabqa|tabaq|ta9a|tbe9a|tbeqa|tabe9a|ttab9a|etaj)\s(?:رقم\s)?(?:(?<ar>${ORDINAL_WORD_PATTERN})|(?<arn>\d{1,2})))(?![a-z\u00df-\u024f\u0600-\u06ff])`,
    'g',
  ),
  // ground floor
  /(?<![a-z\u00df-\u024f\u0600-\u06ff])(?<ground>rdc|rez[- ]de[- ]chauss?e+s?|rez[- ]de[- ]chause|rez de jardin|rez[- ]de[- ]jardin|ground floor|ground level|الطابق الارضي|الارضي|سفليه|السفلي|sofliya|sefliya|sfliya)(?![a-z\u00df-\u024f\u0600-\u06ff])/g,
];

/** Counts of floors of the building, or the building's height, just around a number. */
const BUILDING_BEFORE = /(?:immeuble|building|residence|batiment|construction|maison|villa|compose|composee|de|sur|r\s?\+|عماره|من)\s*$/;
const BUILDING_AFTER = /^\s?s\b|^s?\s?(?:au total|en tout)/;

/** The home's floor; null when the text does not say. */
export function extractFloor(text: string): number | null {
  return findFloor(text)?.floor ?? null;
}

/** The home's floor and where it is stated; null when the text does not say. */
export function findFloor(text: string): { floor: number; start: number; end: number } | null {
  let best: { floor: number; start: number; end: number } | null = null;
  for (const pattern of FLOOR_PATTERNS) {
    for (const match of text.matchAll(pattern)) {
      const groups = match.groups ?? {};
      let floor: number | undefined;
      if (groups.ground !== undefined) floor = 0;
      else if (groups.n !== undefined) floor = Number(groups.n);
      else if (groups.arn !== undefined) floor = Number(groups.arn);
      else floor = ORDINAL_WORDS[groups.word ?? groups.ar ?? ''];
      if (floor === undefined || floor > 60) continue;
      const end = match.index + match[0].length;
      if (groups.n !== undefined && pattern === FLOOR_PATTERNS[0]) {
        const before = text.slice(Math.max(0, match.index - 16), match.index);
        if (BUILDING_BEFORE.test(before) || BUILDING_AFTER.test(text.slice(end, end + 12))) continue;
      }
      if (best === null || match.index < best.start) best = { floor, start: match.index, end };
      break;
    }
  }
  return best;
}

import { describe, expect, it } from 'vitest';
import { parseRange } from '../../../src/server/http-range.js';

describe('parseRange', () => {
  it('reads the single byte ranges players send', () => {
    expect(parseRange('bytes=0-99', 1000)).toEqual({ kind: 'partial', start: 0, end: 99 });
    expect(parseRange('bytes=900-', 1000)).toEqual({ kind: 'partial', start: 900, end: 999 });
    expect(parseRange('bytes=-100', 1000)).toEqual({ kind: 'partial', start: 900, end: 999 });
    expect(parseRange('bytes=990-5000', 1000)).toEqual({ kind: 'partial', start: 990, end: 999 });
    expect(parseRange('bytes=-5000', 1000)).toEqual({ kind: 'partial', start: 0, end: 999 });
  });

  it('answers unsatisfiable for ranges past the end, and ignores what it does not understand', () => {
    expect(parseRange('bytes=1000-', 1000)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-0', 1000)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange(undefined, 1000)).toEqual({ kind: 'full' });
    expect(parseRange('bytes=0-1,5-9', 1000)).toEqual({ kind: 'full' });
    expect(parseRange('items=0-9', 1000)).toEqual({ kind: 'full' });
    expect(parseRange('bytes=50-10', 1000)).toEqual({ kind: 'full' });
  });
});

import { describe, expect, it } from 'vitest';
import { findNumbers, parseCount } from '../../../../src/analysis/text/numbers.js';

const values = (text: string): number[] => findNumbers(text).map((token) => token.value);

describe('findNumbers', () => {
  it('reads every thousands separator', () => {
    expect(values('1 950 000 dh')).toEqual([1950000]);
    expect(values('1.950.000 dh')).toEqual([1950000]);
    expect(values('350,000 dh')).toEqual([350000]);
    expect(values("1'200'000 dh")).toEqual([1200000]);
    expect(values('1500 000 dh')).toEqual([1500000]);
  });

  it('reads decimals and keeps both readings of "2,995"', () => {
    expect(values('1,8 mdh et 7900,00 dhs et 350000.0')).toEqual([1.8, 7900, 350000]);
    const [ambiguous] = findNumbers('2,995 mdh');
    expect(ambiguous?.value).toBe(2995);
    expect(ambiguous?.decimalReading).toBe(2.995);
  });

  it('does not glue counts to the next number', () => {
    expect(values('3 12 m2')).toEqual([3, 12]);
    expect(values('2 chambres 120 m2')).toEqual([2, 120]);
  });

  it('ignores phone numbers, digits inside words and building heights', () => {
    expect(values('tel 0661234567')).toEqual([]);
    expect(values('lbi3 etg1 f4')).toEqual([]);
    expect(values('terrain r+3 150m2 et r/4 200 m2')).toEqual([150, 200]);
  });
});

describe('parseCount', () => {
  it('reads digits and count words in four languages', () => {
    expect(parseCount('3')).toBe(3);
    expect(parseCount('deux')).toBe(2);
    expect(parseCount('three')).toBe(3);
    expect(parseCount('ثلاث')).toBe(3);
    expect(parseCount('jouj')).toBe(2);
    expect(parseCount('plusieurs')).toBeNull();
  });
});

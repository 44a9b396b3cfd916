import { readFileSync } from 'node:fs';
import { expect } from 'vitest';

/** A page of test/fixtures/portals (written for the project, reproducing docs/portals.md structures). */
export function fixture(name: string): string {
  return readFileSync(new URL(`../fixtures/portals/${name}`, import.meta.url), 'utf8');
}

/** Asserts that none of the strings (names, phones in any spacing) appears anywhere in `value`. */
export function expectNothingPrivate(value: unknown, privateStrings: string[]): void {
  const text = JSON.stringify(value);
  const digitsOnly = text.replace(/[\s.\-+()]/g, '');
  for (const secret of privateStrings) {
    expect(text, `"${secret}" leaked`).not.toContain(secret);
    if (/^[+\d\s.\-()]+$/.test(secret)) expect(digitsOnly, `"${secret}" leaked`).not.toContain(secret.replace(/[\s.\-+()]/g, '').slice(-9));
  }
}

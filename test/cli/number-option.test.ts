import { describe, expect, it } from 'vitest';
import { countOption, plainNumber } from '../../src/cli/number-option.ts';

describe('number flags take plain decimal numbers only', () => {
  it('reads a number as a person writes one', () => {
    expect(['16', '0.8', '.5', '5.', '-1', '0', '007'].map(plainNumber)).toEqual([16, 0.8, 0.5, 5, -1, 0, 7]);
  });

  it('refuses what Number() also reads: hex, binary, octal, exponents, spaces, Infinity', () => {
    // Number('0x10') is 16: --temperature 0x10 sampled at 16.
    for (const text of ['0x10', '0b1', '0o7', '1e1', '1E-3', ' 2', '2 ', '', ' ', 'Infinity', '+1', '1_0', '1,5', '-', '.']) {
      expect(plainNumber(text), JSON.stringify(text)).toBeNull();
    }
  });

  it('refuses such a count in one line', () => {
    expect(countOption('--limit', '20', 'cards')).toBe(20);
    expect(() => countOption('--limit', '0x10', 'cards')).toThrow(/^--limit: "0x10": give a whole number of cards, 1 or more$/);
    expect(() => countOption('--limit', '1e1', 'cards')).toThrow('--limit: "1e1": give a whole number of cards, 1 or more');
  });
});

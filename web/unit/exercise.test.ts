/** How measured numbers are written in lesson cards, and when the author's text already has one. */
import { describe, expect, it } from 'vitest';
import { formatNumber, statesNumber } from '../src/lesson/exercise';

describe('formatNumber', () => {
  it('keeps four significant digits, exponents outside [1e-3, 1e5)', () => {
    expect(formatNumber(-2.27712)).toBe('-2.277');
    expect(formatNumber(0.7)).toBe('0.7');
    expect(formatNumber(0)).toBe('0');
    expect(formatNumber(2.5e-4)).toBe('2.500e-4');
  });
});

describe('statesNumber', () => {
  it('finds the number in the sentence, with a typeset or a plain minus', () => {
    expect(statesNumber('f = −V·2e(μ + λ/2)(1 + s) = −2.277 N', -2.277)).toBe(true);
    expect(statesNumber('f = -2.277 N', -2.277)).toBe(true);
    expect(statesNumber('(μ + λ/2)/(μ + λ) = 0.70', 0.7)).toBe(true);
  });
  it('does not find a number the sentence does not state', () => {
    expect(statesNumber('a larger young makes the cloth stiffer', 0.91)).toBe(false);
    expect(statesNumber('= 2.277 N', -2.277)).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { drawnRgba } from '../src/sim/material';

describe('drawnRgba (mjv setMaterial)', () => {
  const mat = [1, 0, 0, 1, 0, 0, 1, 0.5];
  it('uses the material colour when the object keeps the default grey', () => {
    expect(drawnRgba([0.5, 0.5, 0.5, 1], 0, 1, mat)).toEqual([0, 0, 1, 0.5]);
  });
  it('keeps an object colour given explicitly over its material', () => {
    expect(drawnRgba([0.5, 0.5, 0.5, 1, 0, 1, 0, 1], 1, 0, mat)).toEqual([0, 1, 0, 1]);
  });
  it('keeps the own colour without a material, or with an id out of range', () => {
    expect(drawnRgba([0.5, 0.5, 0.5, 1], 0, -1, mat)).toEqual([0.5, 0.5, 0.5, 1]);
    expect(drawnRgba([0.5, 0.5, 0.5, 1], 0, 7, mat)).toEqual([0.5, 0.5, 0.5, 1]);
  });
});

/** The plots' y ranges: finite samples only, so a series that starts as NaN cannot blank a chart. */
import { describe, expect, it } from 'vitest';
import type uPlot from 'uplot';
import { finiteRange } from '../src/ui/plots';

/** The parts of a uPlot chart that finiteRange reads. */
function chart(series: Array<{ scale: string; show?: boolean }>, data: ArrayLike<number>[]): uPlot {
  return { series: [{}, ...series], data: [new Float64Array(data[0].length), ...data] } as unknown as uPlot;
}

describe('finiteRange', () => {
  it('skips NaN samples, also at the start of a series', () => {
    const edges = Float64Array.from([0.06, 0.061, 0.059]);
    const selected = Float64Array.from([NaN, NaN, 0.07]);
    const [min, max] = finiteRange(chart([{ scale: 'y' }, { scale: 'y' }], [edges, selected]), 'y');
    expect(min).toBeLessThanOrEqual(0.059);
    expect(max).toBeGreaterThanOrEqual(0.07);
    expect(Number.isFinite(min) && Number.isFinite(max)).toBe(true);
  });

  it('gives a range when a series is NaN throughout (no edge selected)', () => {
    const edges = Float64Array.from([0.05, 0.12]);
    const selected = Float64Array.from([NaN, NaN]);
    const [min, max] = finiteRange(chart([{ scale: 'y' }, { scale: 'y' }], [edges, selected]), 'y');
    expect(min).toBeLessThanOrEqual(0.05);
    expect(max).toBeGreaterThanOrEqual(0.12);
  });

  it('reads only the series on its scale, and falls back to [0, 1] without samples', () => {
    const pen = Float64Array.from([0.001, 0.002]);
    const force = Float64Array.from([10, 80]);
    const u = chart([{ scale: 'm' }, { scale: 'N' }], [pen, force]);
    expect(finiteRange(u, 'm')[1]).toBeLessThan(1);
    expect(finiteRange(u, 'N')[1]).toBeGreaterThanOrEqual(80);
    expect(finiteRange(chart([{ scale: 'y' }], [Float64Array.from([NaN])]), 'y')).toEqual([0, 1]);
  });
});

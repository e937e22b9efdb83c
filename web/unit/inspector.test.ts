/** Which scene object a row of a field stands for, and how URL parameter text is read. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FlexScene, loadEngine } from '../src/engine/flexlab';
import { arrayGroup, FLEXLAB_ONLY, rowKind } from '../src/ui/inspector';
import { parseParam } from '../src/ui/params';

const sizes = { nflex: 2, nflexvert: 21, nflexedge: 19, ngeom: 1, nbody: 21 };

describe('rowKind', () => {
  it('maps per-vertex, per-edge, per-geom, per-body and per-flex fields', () => {
    expect(rowKind('flexvert_xpos', 21, sizes)).toBe('vertex');
    expect(rowKind('flex_vertbodyid', 21, sizes)).toBe('vertex');
    expect(rowKind('flexedge_length', 19, sizes)).toBe('edge');
    expect(rowKind('flex_edge', 19, sizes)).toBe('edge');
    expect(rowKind('geom_xpos', 1, sizes)).toBe('geom');
    expect(rowKind('xpos', 21, sizes)).toBe('body');
    expect(rowKind('flex_vertadr', 2, sizes)).toBe('flex');
    expect(rowKind('contact', 0, sizes)).toBe('contact');
    expect(rowKind('efc_force', 0, sizes)).toBe('efc');
    // a sparse efc_J has a row per nonzero; a dense one a row per constraint, as efc_J_rownnz
    expect(rowKind('efc_J', 40, sizes, true)).toBeNull();
    expect(rowKind('efc_J_colind', 40, sizes, true)).toBeNull();
    expect(rowKind('efc_J_rownnz', 8, sizes, true)).toBe('efc');
    expect(rowKind('efc_J', 8, sizes, false)).toBe('efc');
    expect(rowKind('qpos', 63, sizes)).toBeNull();
    // a per-flex array is never taken for vertices, even by name
    expect(rowKind('flex_vertnum', 2, sizes)).toBe('flex');
  });
});

describe('parseParam', () => {
  it('reads numbers, choices and booleans, and refuses what does not fit', () => {
    expect(parseParam({ name: 't', label: {}, kind: 'number' }, '0.004')).toBe(0.004);
    expect(parseParam({ name: 't', label: {}, kind: 'number' }, 'abc')).toBeNull();
    expect(parseParam({ name: 'i', label: {}, kind: 'choice', choices: ['Euler', 'RK4'] }, 'RK4')).toBe('RK4');
    expect(parseParam({ name: 'i', label: {}, kind: 'choice', choices: ['Euler', 'RK4'] }, 'implicit')).toBeNull();
    expect(parseParam({ name: 's', label: {}, kind: 'bool' }, 'true')).toBe(true);
    expect(parseParam({ name: 's', label: {}, kind: 'bool' }, '0')).toBe(false);
    expect(parseParam({ name: 's', label: {}, kind: 'bool' }, 'maybe')).toBeNull();
  });
});

describe('arrayGroup', () => {
  // MuJoCo 3.15.0's array names, written by scripts/oracle/mujoco-names.py
  const mujoco = JSON.parse(readFileSync(new URL('./mujoco-names.json', import.meta.url), 'utf8')) as {
    engine: string;
    model: string[];
    data: string[];
  };

  it('lists every array where MuJoCo 3.15.0 has it, and only the declared ones as flexlab\'s own', async () => {
    expect(mujoco.engine).toBe('mujoco 3.15.0');
    await loadEngine(readFileSync(new URL('../src/wasm/flexlab_bg.wasm', import.meta.url)));
    const s = FlexScene.compile('<mujoco><worldbody><geom size="1"/></worldbody></mujoco>');
    const names = s.fieldNames();
    s.dispose();
    const inModel = new Set(mujoco.model);
    const inData = new Set(mujoco.data);
    const misplaced: string[] = [];
    for (const n of names.model) {
      const g = arrayGroup(n, true);
      if (g === 'mjModel' ? !inModel.has(n) : g === 'mjData' ? !inData.has(n) : inModel.has(n) || inData.has(n)) misplaced.push(`${n} (${g})`);
    }
    for (const n of names.data) if (arrayGroup(n, false) !== 'mjData' || !inData.has(n)) misplaced.push(`${n} (mjData)`);
    expect(misplaced).toEqual([]);
    // the exceptions are arrays the engine has
    for (const n of FLEXLAB_ONLY) expect(names.model).toContain(n);
  });
});

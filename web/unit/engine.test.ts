/** The typed engine API in Node: compile, step, zero-copy views, errors. */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { contactNormalForce, FlexScene, loadEngine } from '../src/engine/flexlab';

const cable = readFileSync(new URL('../../lessons/b6-flex/scenes/cable.xml', import.meta.url), 'utf8');

beforeAll(async () => {
  await loadEngine(readFileSync(new URL('../src/wasm/flexlab_bg.wasm', import.meta.url)));
});

describe('FlexScene', () => {
  it('compiles a flexcomp and reports MuJoCo sizes', () => {
    const s = FlexScene.compile(cable);
    expect(s.info.sizes.nflexvert).toBe(16);
    expect(s.info.sizes.nv).toBe(45);
    expect(Array.from(s.modelField('flex_vertadr'))).toEqual([0]);
    s.dispose();
  });

  it('reads the files a model names: an included text file and a binary mesh', () => {
    const xml = '<mujoco><include file="parts.xml"/><worldbody><body><freejoint/><geom type="mesh" mesh="tet"/></body></worldbody></mujoco>';
    const parts = '<mujoco><asset><mesh name="tet" file="tet.obj"/></asset><worldbody><geom name="ünïcode" type="plane" size="1 1 .1"/></worldbody></mujoco>';
    const obj = new TextEncoder().encode('v 0 0 0\nv .1 0 0\nv 0 .1 0\nv 0 0 .1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n');
    const s = FlexScene.compile(xml, [['parts.xml', parts], ['tet.obj', obj]]);
    expect(s.info.sizes.ngeom).toBe(2);
    expect(Array.from(s.modelField('mesh_vertnum'))).toEqual([4]);
    s.dispose();
    // a file the model names but the list lacks is MuJoCo's error
    expect(() => FlexScene.compile(xml, [['parts.xml', parts]])).toThrow(/tet\.obj/);
  });

  it('steps and the zero-copy view follows the state', () => {
    const s = FlexScene.compile(cable);
    const x = s.view('flexvert_xpos');
    const z0 = x[3 * 15 + 2];
    s.step(200);
    expect(s.time).toBeCloseTo(0.2, 12);
    // the free end falls under gravity
    expect(x[3 * 15 + 2]).toBeLessThan(z0 - 0.05);
    // pinned vertex 0 stays where it was
    expect(x[2]).toBeCloseTo(0.3, 12);
    s.reset();
    expect(s.time).toBe(0);
    expect(x[3 * 15 + 2]).toBeCloseTo(z0, 12);
    s.dispose();
  });

  it('rejects bad MJCF with a located message', () => {
    expect(() => FlexScene.compile('<mujoco><worldbody><geom type="sphere" sise="1"/></worldbody></mujoco>')).toThrow(
      /unrecognized attribute: 'sise'[\s\S]*line 1/,
    );
    expect(() => FlexScene.compile('<mujoco><worldbody>')).toThrow(/XML parse error/);
  });

  it('reads fields by MuJoCo name', () => {
    const s = FlexScene.compile(cable);
    expect(s.fieldNames().model).toContain('flex_vertbodyid');
    expect(s.fieldCols('flexvert_xpos')).toBe(3);
    expect(() => s.dataField('no_such_field')).toThrow(/no data field/);
    s.dispose();
  });
});

describe('efc_J in MuJoCo\'s layout', () => {
  // a 3×3 cloth lying on the floor: 9 vertices (27 dofs), all touching at the start
  const cloth = (jacobian: string): string =>
    `<mujoco><option jacobian="${jacobian}"/><worldbody><geom type="plane" size="1 1 .1"/>
     <flexcomp name="c" type="grid" dim="2" count="3 3 1" spacing=".1 .1 .1" pos="0 0 .005" radius=".01" mass=".1">
     <edge equality="true"/></flexcomp></worldbody></mujoco>`;

  it('is dense (nefc × nv) where MuJoCo keeps it dense, with the sparse rows\' values', () => {
    const dense = FlexScene.compile(cloth('auto'));
    const sparse = FlexScene.compile(cloth('sparse'));
    expect(dense.info.options.sparse).toBe(false); // auto with nv = 27 < 60
    expect(sparse.info.options.sparse).toBe(true);
    dense.forward();
    sparse.forward();
    const nv = dense.info.sizes.nv;
    const nefc = dense.nefc;
    expect(nefc).toBeGreaterThan(0);
    expect(sparse.nefc).toBe(nefc);
    const J = dense.dataField('efc_J');
    expect(J.length).toBe(nefc * nv);
    expect(dense.fieldCols('efc_J')).toBe(nv);
    // MuJoCo leaves the CSR index arrays unset when the Jacobian is dense: shown as zeros
    expect(Array.from(dense.dataField('efc_J_rownnz'))).toEqual(new Array(nefc).fill(0));
    expect(dense.dataField('efc_J_colind').every((x) => x === 0)).toBe(true);
    // row r of the dense matrix holds exactly the nonzeros of sparse row r, at their dofs
    const vals = sparse.dataField('efc_J');
    const rownnz = sparse.dataField('efc_J_rownnz');
    const rowadr = sparse.dataField('efc_J_rowadr');
    const colind = sparse.dataField('efc_J_colind');
    expect(sparse.fieldCols('efc_J')).toBe(1);
    expect(vals.length).toBe(rowadr[nefc - 1] + rownnz[nefc - 1]);
    for (let r = 0; r < nefc; r++) {
      const expected = new Array<number>(nv).fill(0);
      for (let k = rowadr[r]; k < rowadr[r] + rownnz[r]; k++) expected[colind[k]] = vals[k];
      expect(Array.from(J.subarray(r * nv, (r + 1) * nv))).toEqual(expected);
    }
    dense.dispose();
    sparse.dispose();
  });
});

describe('energies and contacts', () => {
  it('reports MuJoCo energies and an empty contact list while contact is off', () => {
    const s = FlexScene.compile(cable);
    const e0 = s.energies();
    expect(e0.length).toBe(2 + s.info.sizes.nflex);
    expect(e0[1]).toBe(0); // at rest
    s.step(100);
    const e1 = s.energies();
    expect(e1[1]).toBeGreaterThan(0); // falling
    expect(e1[0]).toBeLessThan(e0[0]); // lower
    expect(s.contacts()).toEqual([]);
    expect(s.contactsRaw().length).toBe(0);
    s.dispose();
  });

  it('reads normal forces from efc rows as mj_contactForce does', () => {
    const efc = [1, 2, 3, 4, 5];
    expect(contactNormalForce(efc, { dim: 1, efc_address: 2, adhesion: 0 }, true)).toBe(3);
    expect(contactNormalForce(efc, { dim: 3, efc_address: 0, adhesion: 0 }, true)).toBe(1 + 2 + 3 + 4);
    expect(contactNormalForce(efc, { dim: 3, efc_address: 1, adhesion: 0 }, false)).toBe(2);
    expect(contactNormalForce(efc, { dim: 3, efc_address: -1, adhesion: 0 }, true)).toBe(0);
    // net of the adhesive pull, as mj_contactForce reports it: negative while the contact pulls
    expect(contactNormalForce(efc, { dim: 1, efc_address: 2, adhesion: 5 }, true)).toBe(3 - 5);
    expect(contactNormalForce(efc, { dim: 3, efc_address: 0, adhesion: 2 }, true)).toBe(1 + 2 + 3 + 4 - 2);
    expect(contactNormalForce(efc, { dim: 3, efc_address: -1, adhesion: 2 }, true)).toBe(0);
  });
});

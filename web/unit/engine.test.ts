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
    expect(contactNormalForce(efc, { dim: 1, efc_address: 2 }, true)).toBe(3);
    expect(contactNormalForce(efc, { dim: 3, efc_address: 0 }, true)).toBe(1 + 2 + 3 + 4);
    expect(contactNormalForce(efc, { dim: 3, efc_address: 1 }, false)).toBe(2);
    expect(contactNormalForce(efc, { dim: 3, efc_address: -1 }, true)).toBe(0);
  });
});

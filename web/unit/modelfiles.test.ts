/** A model picked from several files: which file is the model, and the names of the others. */
import { describe, expect, it } from 'vitest';
import { MAX_EXTRA_FILES, pickModel, type PickedFile } from '../src/ui/modelfiles';

const enc = new TextEncoder();
const file = (name: string, text: string): PickedFile => ({ name, bytes: enc.encode(text) });

const MODEL = `<mujoco model="m">
  <include file="scene.xml"/>
  <compiler meshdir='asset/'/>
  <asset><mesh name="b" file="./bunny.obj"/><texture name="t" file="textures/wood.png"/></asset>
</mujoco>`;
const SCENE = '<mujoco><worldbody><geom type="plane" size="1 1 .1"/></worldbody></mujoco>';

describe('pickModel', () => {
  it('takes the XML file no other file includes as the model, in any order', () => {
    for (const order of [[0, 1, 2], [2, 1, 0], [1, 0, 2]]) {
      const all = [file('jelly.xml', MODEL), file('scene.xml', SCENE), file('bunny.obj', 'v 0 0 0')];
      const p = pickModel(order.map((i) => all[i]));
      expect(p.ok).toBe(true);
      if (!p.ok) return;
      expect(p.main).toBe('jelly.xml');
      expect(p.text).toBe(MODEL);
      expect(p.extra.sort()).toEqual(['bunny.obj', 'scene.xml']);
    }
  });

  it('offers each file under the paths the model names it by, meshdir included', () => {
    const p = pickModel([file('jelly.xml', MODEL), file('scene.xml', SCENE), file('bunny.obj', 'v 0 0 0'), file('wood.png', 'x')]);
    if (!p.ok) throw new Error('not picked');
    const names = p.files.map(([n]) => n);
    expect(names).toContain('scene.xml');
    expect(names).toContain('bunny.obj');
    expect(names).toContain('asset/bunny.obj');
    expect(names).toContain('textures/wood.png');
    expect(names).toContain('asset/textures/wood.png');
    // every name of a file carries that file's bytes
    for (const [n, b] of p.files) if (n.endsWith('bunny.obj')) expect(new TextDecoder().decode(b as Uint8Array)).toBe('v 0 0 0');
  });

  it('takes a single file as the model, whatever its name (as a pasted or dropped model)', () => {
    const p = pickModel([file('rope.txt', '<mujoco/>')]);
    expect(p).toEqual({ ok: true, main: 'rope.txt', text: '<mujoco/>', files: [], extra: [] });
  });

  it('says why it cannot pick', () => {
    expect(pickModel([file('bunny.obj', 'v 0 0 0'), file('cap.obj', 'v 0 0 0')])).toEqual({ ok: false, why: 'noXml' });
    expect(pickModel([{ name: 'm.xml', bytes: Uint8Array.from([0xff, 0xfe, 0x3c]) }, file('a.obj', '')])).toEqual({ ok: false, why: 'notText' });
    const many = [file('m.xml', '<mujoco/>'), ...Array.from({ length: MAX_EXTRA_FILES + 1 }, (_, i) => file(`f${i}.obj`, ''))];
    expect(pickModel(many)).toEqual({ ok: false, why: 'tooMany' });
  });
});

/** Controls: the engine's actuator names and ctrl view, and the panel's slider ranges and labels. */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { FlexScene, loadEngine } from '../src/engine/flexlab';
import { actuatorLabel, formatCtrl, sliderRange } from '../src/ui/controls';

const actuated = readFileSync(new URL('../../e2e/fixtures/models/actuated.xml', import.meta.url), 'utf8');

beforeAll(async () => {
  await loadEngine(readFileSync(new URL('../src/wasm/flexlab_bg.wasm', import.meta.url)));
});

describe('actuators in the engine API', () => {
  it('names actuators, starts at keyframe 0 controls, and a written ctrl acts; reset restores it', () => {
    const s = FlexScene.compile(actuated);
    expect(s.info.sizes.nu).toBe(2);
    expect(s.info.actuator).toEqual(['push', '']);
    expect(Array.from(s.modelField('actuator_ctrlrange'))).toEqual([-0.2, 0.2, 0, 0]);
    expect(Array.from(s.modelField('actuator_ctrllimited'))).toEqual([1, 0]);
    const ctrl = s.view('ctrl');
    expect(Array.from(ctrl)).toEqual([0.05, 0]);
    ctrl[0] = -0.15; // zero-copy write, as the worker does
    s.step(1000);
    expect(s.view('qpos')[0]).toBeCloseTo(-0.15, 2);
    s.reset();
    expect(Array.from(s.view('ctrl'))).toEqual([0.05, 0]);
    expect(s.view('qpos')[0]).toBe(0);
    s.dispose();
  });
});

describe('the Controls panel', () => {
  it('uses ctrlrange when limited, else [-1, 1] widened to hold the start value', () => {
    expect(sliderRange({ ctrlrange: [0, 8], ctrllimited: true })).toEqual([0, 8]);
    expect(sliderRange({ ctrlrange: [0, 0], ctrllimited: false })).toEqual([-1, 1]);
    expect(sliderRange({ ctrlrange: [0, 0], ctrllimited: false }, 2.5)).toEqual([-1, 2.5]);
    expect(sliderRange({ ctrlrange: [0.3, 0.3], ctrllimited: true })).toEqual([-1, 1]); // empty range
  });

  it('gives an open side of ctrlrange (inf in the MJCF) the default side, beyond the other bound', () => {
    expect(sliderRange({ ctrlrange: [-Infinity, Infinity], ctrllimited: true })).toEqual([-1, 1]);
    expect(sliderRange({ ctrlrange: [-Infinity, 5], ctrllimited: true })).toEqual([-1, 5]);
    expect(sliderRange({ ctrlrange: [-Infinity, -10], ctrllimited: true })).toEqual([-11, -10]);
    expect(sliderRange({ ctrlrange: [3, Infinity], ctrllimited: true }, 0)).toEqual([3, 4]);
    expect(sliderRange({ ctrlrange: [0, Infinity], ctrllimited: true }, 2.5)).toEqual([0, 2.5]);
  });

  it('compiles an open ctrlrange as MuJoCo does', () => {
    const s = FlexScene.compile(
      '<mujoco><worldbody><body><joint name="j" type="slide"/><geom size=".1"/></body></worldbody>' +
        '<actuator><motor joint="j" ctrlrange="-inf 0x1p1" ctrllimited="true"/></actuator></mujoco>',
    );
    expect(Array.from(s.modelField('actuator_ctrlrange'))).toEqual([-Infinity, 2]);
    s.dispose();
  });

  it('shows values to the range’s precision, never "-0", and labels unnamed actuators', () => {
    expect(formatCtrl(0.05, [-0.2, 0.2])).toBe('0.050');
    expect(formatCtrl(-0.00001, [-0.2, 0.2])).toBe('0.000');
    expect(formatCtrl(0.5, [-1, 1])).toBe('0.50');
    expect(formatCtrl(123.456, [0, 500])).toBe('123');
    expect(actuatorLabel({ name: 'push' }, 0)).toBe('push');
    expect(actuatorLabel({ name: '' }, 3)).toContain('actuator 3');
  });
});

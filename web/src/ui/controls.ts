/**
 * The Controls panel, as MuJoCo simulate's Control section: one slider per actuator writing
 * `mjData.ctrl[i]` in the worker, its value shown beside it, and Clear to zero them all. The
 * range is `actuator_ctrlrange` when `actuator_ctrllimited`, else [-1, 1] (simulate's default).
 * The sliders follow the worker's `ctrl` (carried in every frame), so Reset (keyframe 0's
 * controls), a reload after a crash or MuJoCo's autoreset show what the engine really holds.
 * Shown only when the model has actuators.
 */
import type { LoadedScene, SimClient } from '../sim/client';
import { frameLayout, type ActuatorInfo, type FrameStats } from '../sim/protocol';
import { button, el, uniqueId } from './dom';
import { t } from './i18n';

/** Slider range of an actuator without ctrllimited (MuJoCo simulate's). */
export const DEFAULT_CTRL_RANGE: readonly [number, number] = [-1, 1];

/**
 * The slider range of an actuator: ctrlrange when limited, else the default widened to hold
 * `value`. An open side of a ctrlrange (`inf` in the MJCF) takes the default's side instead,
 * widened to hold `value` and to stay beyond the other bound.
 */
export function sliderRange(a: Pick<ActuatorInfo, 'ctrlrange' | 'ctrllimited'>, value = 0): [number, number] {
  const [lo, hi] = a.ctrlrange;
  if (a.ctrllimited && lo < hi) {
    const low = Number.isFinite(lo) ? lo : Math.min(DEFAULT_CTRL_RANGE[0], value, hi - 1);
    const high = Number.isFinite(hi) ? hi : Math.max(DEFAULT_CTRL_RANGE[1], value, low + 1);
    return [low, high];
  }
  return [Math.min(DEFAULT_CTRL_RANGE[0], value), Math.max(DEFAULT_CTRL_RANGE[1], value)];
}

/** A bound as MJCF writes it: `inf` and `-inf` for the open sides. */
function bound(x: number): string {
  return Number.isFinite(x) ? String(x) : x > 0 ? 'inf' : '-inf';
}

/** A control value with about three significant digits of its range (no "-0"). */
export function formatCtrl(x: number, range: readonly [number, number]): string {
  const span = Math.abs(range[1] - range[0]) || 1;
  const digits = Math.min(8, Math.max(0, 2 - Math.floor(Math.log10(span))));
  const s = x.toFixed(digits);
  return /^-0(\.0*)?$/.test(s) ? s.slice(1) : s;
}

/** Label of actuator `i`: its name, or `actuator i` as MuJoCo names unnamed ones. */
export function actuatorLabel(a: Pick<ActuatorInfo, 'name'>, i: number): string {
  return a.name || t('unnamedActuator', { i });
}

export class ControlPanel {
  readonly root: HTMLElement;
  private list: HTMLElement;
  private sliders: HTMLInputElement[] = [];
  private outputs: HTMLOutputElement[] = [];
  private ranges: Array<[number, number]> = [];
  /** The controls as the panel shows them (what was last set here or seen in a frame). */
  private values = new Float64Array(0);
  /** Where `ctrl` sits in a frame (−1 without actuators). */
  private offset = -1;
  /** `SimClient.sent` after the last edit here: older frames do not reflect it yet. */
  private sentAt = 0;

  constructor(host: HTMLElement, private readonly sim: SimClient) {
    const id = uniqueId('controls');
    this.root = el('section', { class: 'panel controls', 'aria-labelledby': `${id}-h` });
    this.root.hidden = true;
    const clear = button(t('clear'), { 'aria-label': t('clearControls'), class: 'controls-clear' });
    clear.addEventListener('click', () => this.clear());
    this.list = el('div', { class: 'control-list' });
    this.root.append(
      el('div', { class: 'panel-head' }, el('h3', { id: `${id}-h` }, t('controls')), clear),
      el('p', { class: 'hint' }, t('controlsHint')),
      this.list,
    );
    host.append(this.root);
  }

  /** A new scene: one slider per actuator, at the controls it starts with. */
  setScene(s: LoadedScene): void {
    const acts = s.topology.actuators ?? [];
    this.sliders = [];
    this.outputs = [];
    this.ranges = [];
    this.values = Float64Array.from(acts, (a) => a.ctrl0);
    this.offset = acts.length ? frameLayout(s.topology).ctrl : -1;
    this.sentAt = 0;
    this.list.replaceChildren();
    this.root.hidden = acts.length === 0;
    acts.forEach((a, i) => this.list.append(this.control(a, i)));
  }

  private control(a: ActuatorInfo, i: number): HTMLElement {
    const id = uniqueId(`ctrl-${i}`);
    const range = sliderRange(a, a.ctrl0);
    this.ranges.push(range);
    const slider = el('input', { type: 'range', id, min: String(range[0]), max: String(range[1]), step: 'any', 'data-actuator': String(i), 'aria-describedby': `${id}-meta` });
    const out = el('output', { for: id, class: 'control-value', 'aria-hidden': 'true' });
    const name = { name: a.target || String(a.trnid) };
    const where = a.trntype === 0 || a.trntype === 1 ? t('onJoint', name) : a.trntype === 3 ? t('onTendon', name) : a.trntype === 4 ? t('onSite', name) : '';
    const shown = `[${range[0]}, ${range[1]}]`;
    const ctrl = `[${bound(a.ctrlrange[0])}, ${bound(a.ctrlrange[1])}]`;
    const span = !a.ctrllimited ? t('ctrlDefault', { range: shown }) : ctrl === shown ? `ctrlrange ${ctrl}` : t('ctrlOpen', { ctrl, range: shown });
    // pieces wrap as wholes
    const meta = el('span', { id: `${id}-meta`, class: 'control-meta' });
    if (where) meta.append(el('span', {}, where), ' · ');
    meta.append(el('span', {}, span));
    slider.addEventListener('input', () => {
      const v = Number(slider.value);
      if (!Number.isFinite(v)) return;
      this.write(i, v);
    });
    this.sliders.push(slider);
    this.outputs.push(out);
    this.show(i, a.ctrl0);
    return el('div', { class: 'control', 'data-actuator': String(i) },
      el('div', { class: 'control-name' }, el('label', { for: id }, actuatorLabel(a, i)), meta),
      slider,
      out,
    );
  }

  /** Sets control `i` as the slider does (tests, tours). */
  set(i: number, value: number): void {
    if (i < 0 || i >= this.values.length || !Number.isFinite(value)) return;
    this.show(i, value);
    this.write(i, value);
  }

  /** Zeroes every control (MuJoCo simulate's Clear). */
  clear(): void {
    for (let i = 0; i < this.values.length; i++) this.show(i, 0);
    this.sim.clearCtrl();
    this.sentAt = this.sim.sent;
  }

  /** The controls as shown (for tests). */
  get current(): number[] {
    return Array.from(this.values);
  }

  private write(i: number, v: number): void {
    this.values[i] = v;
    this.showValue(i);
    this.sim.ctrl(i, v);
    this.sentAt = this.sim.sent;
  }

  private show(i: number, v: number): void {
    this.values[i] = v;
    const slider = this.sliders[i];
    if (Number(slider.value) !== v) slider.value = String(v);
    this.showValue(i);
  }

  private showValue(i: number): void {
    const text = formatCtrl(this.values[i], this.ranges[i]);
    if (this.outputs[i].value !== text) {
      this.outputs[i].value = text;
      this.sliders[i].setAttribute('aria-valuetext', text);
    }
  }

  /**
   * Follows the worker's `ctrl` in a frame that reflects every edit made here (per frame, no
   * allocation): Reset, a reload or an autoreset moves the sliders; a drag in progress does not
   * fight with older frames.
   */
  sync(frame: Float32Array, stats: FrameStats): void {
    const n = this.values.length;
    if (!n || this.offset < 0 || this.offset + n > frame.length || stats.handled < this.sentAt) return;
    for (let i = 0; i < n; i++) {
      const f = frame[this.offset + i];
      // the frame is Float32: equal within its precision means unchanged
      if (Math.abs(f - this.values[i]) > 1e-6 * Math.max(1, Math.abs(f))) this.show(i, f);
    }
  }
}

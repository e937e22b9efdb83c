/**
 * The bench: one live scene with its viewer, transport controls, status line and messages.
 * Physics runs in the worker; this class only draws, forwards input and reports.
 */
import * as THREE from 'three';
import type { ModelFiles } from '../engine/flexlab';
import { SimClient, type LoadedScene } from '../sim/client';
import type { FrameStats } from '../sim/protocol';
import { Viewer } from '../view/viewer';
import { t } from './i18n';

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

/** State the tests (and the URL) can observe. */
export interface BenchState {
  ready: boolean;
  loaded: boolean;
  running: boolean;
  frames: number;
  time: number;
  stats: FrameStats | null;
  error: string | null;
  info: LoadedScene['info'] | null;
  /** A copy of the first 30 floats of the latest frame (vertex positions), for tests. */
  sample: number[];
}

const _hit = new THREE.Vector3();
const _target = new THREE.Vector3();

export class Bench {
  readonly root: HTMLElement;
  readonly viewer: Viewer;
  readonly sim: SimClient;
  readonly state: BenchState = { ready: false, loaded: false, running: false, frames: 0, time: 0, stats: null, error: null, info: null, sample: [] };
  private status: HTMLElement;
  private message: HTMLElement;
  private playBtn: HTMLButtonElement;
  private pauseBtn: HTMLButtonElement;
  private current: LoadedScene | null = null;
  private dragVertex = -1;
  private dragAnchor = new THREE.Vector3();
  private listeners: Array<(s: BenchState) => void> = [];
  private loadedListeners: Array<(s: LoadedScene) => void> = [];

  constructor(host: HTMLElement) {
    this.root = el('section', { class: 'bench', 'aria-label': t('scene') });
    const canvasWrap = el('div', { class: 'canvas-wrap' });
    const canvas = el('canvas', { class: 'view', role: 'img', 'aria-label': t('scene') });
    canvasWrap.append(canvas);
    const bar = el('div', { class: 'toolbar', role: 'toolbar', 'aria-label': t('scene') });
    this.playBtn = el('button', { type: 'button', class: 'primary' }, t('play'));
    this.pauseBtn = el('button', { type: 'button' }, t('pause'));
    const stepBtn = el('button', { type: 'button' }, t('step'));
    const resetBtn = el('button', { type: 'button' }, t('reset'));
    const speedLabel = el('label', { class: 'speed' }, `${t('speed')} `);
    const speed = el('select', { 'aria-label': t('speed') });
    for (const v of ['0.1', '0.25', '0.5', '1', '2']) {
      const o = el('option', { value: v }, `${v}×`);
      if (v === '1') o.selected = true;
      speed.append(o);
    }
    speedLabel.append(speed);
    const toggles = el('div', { class: 'toggles' });
    const mkToggle = (label: string, key: 'edges' | 'vertices' | 'pins', on: boolean) => {
      const l = el('label', {}, ' ');
      const c = el('input', { type: 'checkbox' });
      c.checked = on;
      c.addEventListener('change', () => this.viewer.setOptions({ [key]: c.checked }));
      l.prepend(c);
      l.append(label);
      toggles.append(l);
    };
    mkToggle(t('edges'), 'edges', false);
    mkToggle(t('vertices'), 'vertices', false);
    mkToggle(t('pins'), 'pins', true);
    bar.append(this.playBtn, this.pauseBtn, stepBtn, resetBtn, speedLabel, toggles);
    this.status = el('div', { class: 'status', role: 'status', 'aria-live': 'polite' }, t('loading'));
    this.message = el('div', { class: 'message', role: 'alert' });
    this.message.hidden = true;
    this.root.append(canvasWrap, bar, this.status, this.message);
    host.append(this.root);

    this.viewer = new Viewer(canvas);
    this.sim = new SimClient({
      onFrame: (data, stats) => this.onFrame(data, stats),
      onCrash: (msg) => this.onCrash(msg),
    });
    this.sim.ready().then(() => {
      this.state.ready = true;
      this.emit();
    });

    this.playBtn.addEventListener('click', () => this.play());
    this.pauseBtn.addEventListener('click', () => this.pause());
    stepBtn.addEventListener('click', () => this.sim.step(1));
    resetBtn.addEventListener('click', () => this.reset());
    speed.addEventListener('change', () => this.sim.speed(Number(speed.value)));
    this.bindDrag(canvas);

    const loop = () => {
      if (this.viewer.render()) this.state.frames = this.viewer.frames;
      requestAnimationFrame(loop);
    };
    requestAnimationFrame(loop);
  }

  onChange(f: (s: BenchState) => void): void {
    this.listeners.push(f);
  }

  onLoaded(f: (s: LoadedScene) => void): void {
    this.loadedListeners.push(f);
  }

  private emit(): void {
    for (const f of this.listeners) f(this.state);
  }

  play(): void {
    this.sim.play();
    this.state.running = true;
    this.updateButtons();
  }

  pause(): void {
    this.sim.pause();
    this.state.running = false;
    this.updateButtons();
  }

  reset(): void {
    this.sim.reset();
    this.hideMessage();
  }

  private updateButtons(): void {
    this.playBtn.setAttribute('aria-pressed', String(this.state.running));
    this.pauseBtn.setAttribute('aria-pressed', String(!this.state.running));
  }

  /** Compiles and shows a scene; compile errors are shown in MuJoCo's words. */
  async load(xml: string, files: ModelFiles = [], elastic3d: Record<string, number> = {}, autoplay = true): Promise<boolean> {
    this.hideMessage();
    try {
      const s = await this.sim.load(xml, files, elastic3d);
      this.current = s;
      this.state.loaded = true;
      this.state.info = s.info;
      this.state.error = null;
      this.viewer.setTopology(s.topology, ...sceneFrame(s));
      for (const f of this.loadedListeners) f(s);
      if (autoplay) this.play();
      else this.pause();
      this.emit();
      return true;
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      this.state.error = msg;
      this.showMessage(`${t('compileError')}:\n${msg}`, 'error');
      this.emit();
      return false;
    }
  }

  private onFrame(data: Float32Array, stats: FrameStats): void {
    this.viewer.setFrame(data);
    this.state.time = stats.time;
    this.state.stats = stats;
    const n = Math.min(30, data.length);
    if (this.state.sample.length !== n) this.state.sample = new Array(n).fill(0);
    for (let i = 0; i < n; i++) this.state.sample[i] = data[i];
    const rt = stats.running ? ` · ${t('realtime')} ${stats.realtime.toFixed(2)}` : '';
    const slow = stats.running && stats.realtime > 0 && stats.realtime < 0.9 ? ` · ${t('slow')}` : '';
    this.status.textContent = `t = ${stats.time.toFixed(3)} s${rt}${slow} · ncon ${stats.ncon} · nefc ${stats.nefc}`;
    const bad = stats.warnings.filter((w) => w.kind.startsWith('mjWARN_BAD'));
    if (bad.length && this.message.hidden) {
      this.showMessage(`${t('diverged')}\n${bad.map((w) => `${w.kind}: ${w.text}`).join('\n')}`, 'warn');
    }
  }

  private onCrash(msg: string): void {
    this.state.running = false;
    this.showMessage(`${t('crashed')}: ${msg}`, 'error');
    this.sim.reloadLast()?.then((s) => {
      this.viewer.setTopology(s.topology);
      this.pause();
    }).catch(() => undefined);
  }

  showMessage(text: string, kind: 'error' | 'warn'): void {
    this.message.hidden = false;
    this.message.className = `message ${kind}`;
    this.message.textContent = text;
  }

  hideMessage(): void {
    this.message.hidden = true;
    this.message.textContent = '';
  }

  /** Grab a vertex with the mouse (or a finger) and pull its body with a spring. */
  private bindDrag(canvas: HTMLCanvasElement): void {
    canvas.addEventListener('pointerdown', (ev) => {
      if (!this.current || (!ev.ctrlKey && !ev.shiftKey && ev.button !== 0)) return;
      const v = this.viewer.pick(ev.clientX, ev.clientY, _hit);
      if (v < 0) return;
      const body = this.current.topology.vertbody[v];
      if (body <= 0) return;
      this.dragVertex = v;
      this.dragAnchor.copy(_hit);
      this.viewer.controls.enabled = false;
      canvas.setPointerCapture(ev.pointerId);
      this.viewer.highlightVertexId(v);
      this.viewer.showDragMarker(_hit);
      this.sim.drag(body, [_hit.x, _hit.y, _hit.z]);
    });
    canvas.addEventListener('pointermove', (ev) => {
      if (this.dragVertex < 0 || !this.current) return;
      if (this.viewer.dragPoint(ev.clientX, ev.clientY, this.dragAnchor, _target)) {
        this.viewer.showDragMarker(_target);
        this.sim.drag(this.current.topology.vertbody[this.dragVertex], [_target.x, _target.y, _target.z]);
      }
    });
    const end = () => {
      if (this.dragVertex < 0) return;
      this.dragVertex = -1;
      this.viewer.controls.enabled = true;
      this.viewer.highlightVertexId(-1);
      this.viewer.showDragMarker(null);
      this.sim.drag(0, null);
    };
    canvas.addEventListener('pointerup', end);
    canvas.addEventListener('pointercancel', end);
  }
}

/** Camera framing from the flex vertices of a scene (centre and extent). */
function sceneFrame(s: LoadedScene): [[number, number, number] | undefined, number | undefined] {
  const st = s.info.stat;
  if (!st || !Number.isFinite(st.extent) || st.extent <= 0) return [undefined, undefined];
  return [st.center, Math.min(st.extent, 3)];
}

/**
 * The bench: one live scene with its viewer, transport controls, view toggles, status line and
 * messages. Physics runs in the worker; this class only draws, forwards input and reports.
 */
import * as THREE from 'three';
import type { ModelFiles } from '../engine/flexlab';
import { SimClient, type LoadedScene } from '../sim/client';
import type { FrameStats } from '../sim/protocol';
import { VIEW_OPTION_KEYS, Viewer, type ViewOptions } from '../view/viewer';
import { button, checkbox, el } from './dom';
import { t, type StringKey } from './i18n';

/** State the tests (and the URL) can observe. */
export interface BenchState {
  ready: boolean;
  loaded: boolean;
  loading: boolean;
  running: boolean;
  frames: number;
  /** Frames received from the worker. */
  received: number;
  time: number;
  steps: number;
  stats: FrameStats | null;
  error: string | null;
  diverged: string | null;
  crashes: number;
  info: LoadedScene['info'] | null;
  /** A copy of the first 30 floats of the latest frame (vertex positions), for tests. */
  sample: number[];
  /** Input events the page handled (proof that the main thread is free). */
  inputs: number;
  /** Scenes loaded and compile errors shown so far. */
  loads: number;
  errors: number;
}

/** Spring stiffness of the perturbation per unit mass (1/s²), as a stiff mouse spring. */
const DRAG_STIFFNESS = 400;

const _hit = new THREE.Vector3();
const _target = new THREE.Vector3();
const _xpos = new THREE.Vector3();

export interface LoadOptions {
  autoplay?: boolean;
  /**
   * The compilation of these very inputs, already asked of the worker (`sim.load`): the page
   * starts its first scene's while it builds the lesson text.
   */
  compiled?: Promise<LoadedScene>;
  /** Keep the camera where the student left it (parameter changes). */
  keepCamera?: boolean;
}

export class Bench {
  readonly root: HTMLElement;
  readonly viewer: Viewer;
  readonly sim: SimClient;
  readonly state: BenchState = {
    ready: false,
    loaded: false,
    loading: false,
    running: false,
    frames: 0,
    received: 0,
    time: 0,
    steps: 0,
    stats: null,
    error: null,
    diverged: null,
    crashes: 0,
    info: null,
    sample: [],
    inputs: 0,
    loads: 0,
    errors: 0,
  };
  /** Where panels (parameters, instruments) attach below the scene. */
  readonly panels: HTMLElement;
  private status: HTMLElement;
  private message: HTMLElement;
  private messageText: HTMLElement;
  private messageReset: HTMLButtonElement;
  private playBtn: HTMLButtonElement;
  private pauseBtn: HTMLButtonElement;
  private title: HTMLElement;
  private toggles = new Map<keyof ViewOptions, HTMLInputElement>();
  private current: LoadedScene | null = null;
  private drag: { body: number; anchor: THREE.Vector3; vertex: number } | null = null;
  private frameListeners: Array<(data: Float32Array, s: FrameStats) => void> = [];
  private loadedListeners: Array<(s: LoadedScene) => void> = [];
  private optionListeners: Array<(o: ViewOptions) => void> = [];
  private resetListeners: Array<() => void> = [];
  private messageKind: 'error' | 'warn' | 'diverged' | 'compileWarnings' | null = null;
  private lastXml: { xml: string; files: ModelFiles; elastic3d: Record<string, number> } | null = null;

  constructor(host: HTMLElement) {
    // first: the worker fetches and compiles the engine while this thread builds the page
    this.sim = new SimClient({
      onFrame: (data, stats) => this.handleFrame(data, stats),
      onCrash: (msg) => this.onCrash(msg),
    });
    this.sim.ready().then(() => {
      this.state.ready = true;
    });
    this.root = el('section', { class: 'bench', id: 'bench', 'aria-labelledby': 'bench-title', tabindex: '-1' });
    this.title = el('h2', { id: 'bench-title', class: 'bench-title' }, t('scene'));
    const canvasWrap = el('div', { class: 'canvas-wrap' });
    const canvas = el('canvas', { class: 'view', role: 'img', 'aria-label': t('sceneView'), tabindex: '0' });
    canvasWrap.append(canvas);
    const bar = el('div', { class: 'toolbar', role: 'toolbar', 'aria-label': t('transport') });
    this.playBtn = button(t('play'), { class: 'primary', 'aria-pressed': 'false' });
    this.pauseBtn = button(t('pause'), { 'aria-pressed': 'true' });
    const stepBtn = button(t('step'));
    const resetBtn = button(t('reset'));
    const speed = el('select', { 'aria-label': t('speed'), class: 'speed-select' });
    for (const v of ['0.1', '0.25', '0.5', '1', '2', '4']) {
      const o = el('option', { value: v }, `${v}×`);
      if (v === '1') o.selected = true;
      speed.append(o);
    }
    const speedLabel = el('label', { class: 'speed' }, `${t('speed')} `, speed);
    bar.append(this.playBtn, this.pauseBtn, stepBtn, resetBtn, speedLabel);
    const toggles = el('fieldset', { class: 'toggles' }, el('legend', {}, t('show')));
    const names: Record<keyof ViewOptions, StringKey> = { edges: 'edges', vertices: 'vertices', pins: 'pins', nodes: 'nodes', contacts: 'contacts', forces: 'forces' };
    this.viewer = new Viewer(canvas);
    const opts = this.viewer.getOptions();
    for (const k of VIEW_OPTION_KEYS) {
      const label = checkbox(t(names[k]), opts[k], (on) => {
        this.viewer.setOptions({ [k]: on });
        this.state.inputs++;
        for (const f of this.optionListeners) f(this.viewer.getOptions());
      }, { 'data-option': k });
      this.toggles.set(k, label.querySelector('input') as HTMLInputElement);
      toggles.append(label);
    }
    this.status = el('div', { class: 'status', role: 'status', 'aria-live': 'polite' }, t('loading'));
    this.messageText = el('div', { class: 'message-text' });
    this.messageReset = button(t('reset'), { class: 'primary' });
    this.messageReset.hidden = true;
    this.message = el('div', { class: 'message', role: 'alert' }, this.messageText, this.messageReset);
    this.message.hidden = true;
    this.panels = el('div', { class: 'panels' });
    // the scene, its transport, status and messages: on a wide screen they stay in view while the
    // panels under them scroll (style.css), so a field or a plot is read beside the running scene
    const stage = el('div', { class: 'stage' }, canvasWrap, bar, this.status, this.message);
    this.root.append(this.title, stage, toggles, this.panels);
    // what is scrolled into view or focused below the stage stops under it (scroll-margin-top)
    new ResizeObserver(() => this.root.style.setProperty('--stage-height', `${stage.offsetHeight}px`)).observe(stage);
    host.append(this.root);

    this.playBtn.addEventListener('click', () => this.play());
    this.pauseBtn.addEventListener('click', () => this.pause());
    stepBtn.addEventListener('click', () => this.step());
    resetBtn.addEventListener('click', () => this.reset());
    this.messageReset.addEventListener('click', () => this.reset());
    speed.addEventListener('change', () => {
      this.sim.speed(Number(speed.value));
      this.state.inputs++;
    });
    // MuJoCo simulate's keys while the scene has focus: space runs/pauses, → steps, ⌫ resets
    canvas.addEventListener('keydown', (ev) => {
      if (ev.key === ' ') {
        ev.preventDefault();
        if (this.state.running) this.pause();
        else this.play();
      } else if (ev.key === 'ArrowRight') {
        ev.preventDefault();
        this.step();
      } else if (ev.key === 'Backspace') {
        ev.preventDefault();
        this.reset();
      }
    });
    this.bindDrag(canvas);

    const loop = () => {
      if (this.viewer.render()) {
        this.state.frames = this.viewer.frames;
        if (this.state.frames === 1) performance.mark('flexlab:first-render');
      }
      requestAnimationFrame(loop);
    };
    requestAnimationFrame(loop);
  }

  onFrame(f: (data: Float32Array, s: FrameStats) => void): void {
    this.frameListeners.push(f);
  }
  onLoaded(f: (s: LoadedScene) => void): void {
    this.loadedListeners.push(f);
  }
  onOptions(f: (o: ViewOptions) => void): void {
    this.optionListeners.push(f);
  }
  onReset(f: () => void): void {
    this.resetListeners.push(f);
  }

  /** The scene now on the bench. */
  get scene(): LoadedScene | null {
    return this.current;
  }

  setTitle(text: string): void {
    this.title.textContent = text || t('scene');
  }

  setViewOptions(o: Partial<ViewOptions>): void {
    this.viewer.setOptions(o);
    const all = this.viewer.getOptions();
    for (const [k, input] of this.toggles) input.checked = all[k];
  }

  play(): void {
    if (!this.current) return;
    this.sim.play();
    this.state.running = true;
    this.state.inputs++;
    this.updateButtons();
  }

  pause(): void {
    this.sim.pause();
    this.state.running = false;
    this.state.inputs++;
    this.updateButtons();
  }

  step(n = 1): void {
    this.sim.step(n);
    this.state.running = false;
    this.state.inputs++;
    this.updateButtons();
  }

  reset(): void {
    // the worker clears its divergence on reset; the next frame tells the page
    this.sim.reset();
    this.state.inputs++;
    this.hideMessage();
    this.showCompileWarnings();
    for (const f of this.resetListeners) f();
  }

  private updateButtons(): void {
    this.playBtn.setAttribute('aria-pressed', String(this.state.running));
    this.pauseBtn.setAttribute('aria-pressed', String(!this.state.running));
  }

  /**
   * Compiles and shows a scene. A compile error is shown inline in MuJoCo's words and the
   * previous scene stays; resolves to whether the new scene loaded.
   */
  async load(xml: string, files: ModelFiles = [], elastic3d: Record<string, number> = {}, opts: LoadOptions = {}): Promise<boolean> {
    this.state.loading = true;
    const wasRunning = this.state.running;
    try {
      const s = await (opts.compiled ?? this.sim.load(xml, files, elastic3d));
      performance.mark('flexlab:scene-compiled');
      this.lastXml = { xml, files, elastic3d };
      this.current = s;
      this.state.loaded = true;
      this.state.info = s.info;
      this.state.error = null;
      this.state.diverged = null;
      this.state.running = false;
      this.state.steps = 0;
      this.state.loads++;
      this.hideMessage();
      this.showCompileWarnings();
      if (opts.keepCamera) this.viewer.setTopology(s.topology);
      else this.viewer.setTopology(s.topology, ...sceneFrame(s));
      for (const f of this.loadedListeners) f(s);
      if (opts.autoplay ?? true) this.play();
      else this.pause();
      return true;
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      this.state.error = msg;
      this.state.errors++;
      this.showMessage(`${t('compileError')}:\n${msg}`, 'error');
      if (wasRunning && this.current) this.play();
      return false;
    } finally {
      this.state.loading = false;
    }
  }

  /**
   * Resolves once a frame of the running scene after its first step has been drawn, at once
   * when no scene is running, and after `ms` at the latest.
   */
  moving(ms = 3000): Promise<void> {
    const end = performance.now() + ms;
    return new Promise((resolve) => {
      let steppedAt = -1;
      const check = () => {
        const s = this.state;
        if (!s.loaded || !s.running || performance.now() > end) return resolve();
        if (steppedAt < 0 && s.steps > 0) steppedAt = s.frames;
        if (steppedAt >= 0 && s.frames > steppedAt) return resolve();
        requestAnimationFrame(check);
      };
      check();
    });
  }

  private handleFrame(data: Float32Array, stats: FrameStats): void {
    this.viewer.setFrame(data);
    this.state.time = stats.time;
    this.state.steps = stats.steps;
    this.state.stats = stats;
    this.state.received++;
    const n = Math.min(30, data.length);
    if (this.state.sample.length !== n) this.state.sample = new Array(n).fill(0);
    for (let i = 0; i < n; i++) this.state.sample[i] = data[i];
    if (!stats.running && this.state.running && stats.diverged) {
      this.state.running = false;
      this.updateButtons();
    }
    const rt = stats.running ? ` · ${t('realtime')} ${stats.realtime.toFixed(2)}` : '';
    const slow = stats.running && stats.realtime > 0 && stats.realtime < 0.9 ? ` · ${t('slow')}` : '';
    this.status.textContent = `t = ${stats.time.toFixed(3)} s${rt}${slow} · ncon ${stats.ncon} · nefc ${stats.nefc}`;
    if (stats.diverged && !this.state.diverged) {
      this.state.diverged = stats.diverged;
      this.showMessage(`${t('diverged')}\n${stats.diverged}`, 'warn', true);
      this.messageKind = 'diverged';
    } else if (!stats.diverged && this.state.diverged) {
      this.state.diverged = null;
      if (this.messageKind === 'diverged') {
        this.hideMessage();
        this.showCompileWarnings();
      }
    }
    for (const f of this.frameListeners) f(data, stats);
  }

  private onCrash(msg: string): void {
    this.state.running = false;
    this.state.crashes++;
    this.updateButtons();
    this.showMessage(`${t('crashed')}\n${msg}`, 'error', true);
    const last = this.lastXml;
    if (!last) return;
    void this.sim.load(last.xml, last.files, last.elastic3d).then((s) => {
      this.current = s;
      this.viewer.setTopology(s.topology);
      for (const f of this.loadedListeners) f(s);
    }).catch(() => undefined);
  }

  /** There is no scene to show (an empty sandbox): once the engine is up, the status says so. */
  showEmpty(): void {
    void this.sim.ready().then(() => {
      if (!this.current) this.status.textContent = t('noScene');
    });
  }

  /** Shows a message; `withReset` adds a Reset button (divergence, crash). */
  showMessage(text: string, kind: 'error' | 'warn', withReset = false): void {
    // an error before any scene loaded: the status line no longer waits for one
    if (kind === 'error' && !this.current) this.status.textContent = t('noScene');
    this.messageKind = kind;
    this.message.hidden = false;
    this.message.className = `message ${kind}`;
    this.messageText.textContent = text;
    this.messageReset.hidden = !withReset;
  }

  /**
   * The loaded scene's compile warnings (MuJoCo's own, or a model MuJoCo 3.15.0 crashes on), in
   * the message box while nothing more urgent is shown there.
   */
  private showCompileWarnings(): void {
    const w = this.current?.info.warnings ?? [];
    if (w.length === 0 || this.messageKind !== null) return;
    this.showMessage(`${t('compileWarning')}:\n${w.join('\n\n')}`, 'warn');
    this.messageKind = 'compileWarnings';
  }

  hideMessage(): void {
    this.messageKind = null;
    this.message.hidden = true;
    this.messageText.textContent = '';
    this.messageReset.hidden = true;
  }

  /**
   * Grab a vertex or a body and pull it with a spring, as MuJoCo simulate's perturbation: the
   * grab point stays fixed in the body, the target follows the pointer in the camera plane.
   */
  private bindDrag(canvas: HTMLCanvasElement): void {
    canvas.addEventListener('pointerdown', (ev) => {
      this.state.inputs++;
      const cur = this.current;
      if (!cur || ev.button !== 0) return;
      const hit = this.viewer.pick(ev.clientX, ev.clientY, _hit);
      let body = -1;
      if (hit.vertex >= 0) body = cur.topology.vertbody[hit.vertex];
      else if (hit.node >= 0) body = cur.topology.nodebody[hit.node];
      else if (hit.geom >= 0) body = cur.topology.geoms[hit.geom].body;
      if (body <= 0) return;
      ev.preventDefault();
      ev.stopImmediatePropagation();
      this.drag = { body, anchor: _hit.clone(), vertex: hit.vertex };
      this.viewer.controls.enabled = false;
      canvas.setPointerCapture(ev.pointerId);
      if (hit.vertex >= 0) this.viewer.highlightVertexId(hit.vertex);
      this.viewer.showDragMarker(_hit);
      this.sim.drag({ body, grab: [_hit.x, _hit.y, _hit.z], target: [_hit.x, _hit.y, _hit.z], stiffness: DRAG_STIFFNESS });
    }, { capture: true });
    canvas.addEventListener('pointermove', (ev) => {
      const d = this.drag;
      if (!d) return;
      if (this.viewer.dragPoint(ev.clientX, ev.clientY, d.anchor, _target)) {
        this.viewer.showDragMarker(_target);
        this.sim.drag({ body: d.body, target: [_target.x, _target.y, _target.z], stiffness: DRAG_STIFFNESS });
      }
    });
    const end = () => {
      if (!this.drag) return;
      this.drag = null;
      this.viewer.controls.enabled = true;
      this.viewer.highlightVertexId(-1);
      this.viewer.showDragMarker(null);
      this.sim.drag(null);
    };
    canvas.addEventListener('pointerup', end);
    canvas.addEventListener('pointercancel', end);
  }

  /** World position of global flex vertex `v` in the latest frame (for tests). */
  vertex(v: number): [number, number, number] | null {
    return this.viewer.vertexPosition(v, _xpos) ? [_xpos.x, _xpos.y, _xpos.z] : null;
  }

  /** World position of interpolation node `n` in the latest frame (for tests). */
  node(n: number): [number, number, number] | null {
    return this.viewer.nodePosition(n, _xpos) ? [_xpos.x, _xpos.y, _xpos.z] : null;
  }

  /** World position of geom `g` in the latest frame (for tests). */
  geom(g: number): [number, number, number] | null {
    return this.viewer.geomPosition(g, _xpos) ? [_xpos.x, _xpos.y, _xpos.z] : null;
  }

  /** Client coordinates of a world point. */
  onScreen(p: [number, number, number]): { x: number; y: number } {
    return this.viewer.project(_xpos.set(p[0], p[1], p[2]));
  }

  /** Client coordinates of global flex vertex `v` (for tests and tours). */
  vertexOnScreen(v: number): { x: number; y: number } | null {
    if (!this.viewer.vertexPosition(v, _xpos)) return null;
    return this.viewer.project(_xpos);
  }

  /** Recompiles the current model unchanged (used after a crash). */
  get lastModel(): { xml: string; files: ModelFiles; elastic3d: Record<string, number> } | null {
    return this.lastXml;
  }
}

/** Camera framing from the model statistics (centre and extent). */
function sceneFrame(s: LoadedScene): [[number, number, number] | undefined, number | undefined] {
  const st = s.info.stat;
  if (!st || !Number.isFinite(st.extent) || st.extent <= 0) return [undefined, undefined];
  return [st.center, Math.min(st.extent, 3)];
}

/**
 * Main-thread side of the physics worker: a small typed proxy. If the worker dies (a wasm
 * panic), it is restarted and the last scene reloaded, so the tab never stays dead.
 */
import { takeWorker } from '../boot';
import type { ModelFiles, ModelInfo } from '../engine/flexlab';
import type { DragSpec, FrameStats, FromWorker, Topology, ToWorker } from './protocol';

export interface LoadedScene {
  info: ModelInfo;
  topology: Topology;
  /** Names of every model and data array the engine offers. */
  fields: { model: string[]; data: string[] };
}

/** A field read from the worker: values (copied), values per row, and where it lives. */
export interface FieldResult {
  values: Float64Array | null;
  cols: number;
  kind: 'model' | 'data' | 'contact';
  error?: string;
}

export interface SimEvents {
  onFrame: (data: Float32Array, stats: FrameStats) => void;
  onCrash: (message: string) => void;
}

export class SimClient {
  private worker: Worker;
  private token = 0;
  private pending = new Map<number, { resolve: (s: LoadedScene) => void; reject: (e: Error) => void }>();
  private fieldReqs = new Map<number, (r: FieldResult) => void>();
  private nextField = 1;
  private readyPromise: Promise<string>;
  private resolveReady!: (v: string) => void;
  private lastLoad: ToWorker | null = null;
  private held: ArrayBuffer | null = null;
  /** Messages sent to the current worker (compare with `FrameStats.handled`). */
  sent = 0;

  constructor(private readonly events: SimEvents) {
    this.readyPromise = new Promise((r) => (this.resolveReady = r));
    this.worker = this.spawn();
  }

  private spawn(): Worker {
    this.sent = 0;
    const w = takeWorker('sim') ?? new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
    w.onmessage = (ev: MessageEvent<FromWorker>) => this.receive(ev.data);
    w.onerror = (ev) => this.crashed(ev.message || 'worker error');
    return w;
  }

  private crashed(message: string): void {
    this.events.onCrash(message);
    this.worker.terminate();
    this.readyPromise = new Promise((r) => (this.resolveReady = r));
    this.worker = this.spawn();
    for (const p of this.pending.values()) p.reject(new Error(message));
    this.pending.clear();
    for (const f of this.fieldReqs.values()) f({ values: null, cols: 0, kind: 'data', error: message });
    this.fieldReqs.clear();
    this.held = null;
  }

  private receive(msg: FromWorker): void {
    switch (msg.type) {
      case 'ready':
        performance.mark('flexlab:sim-ready');
        this.resolveReady(msg.version);
        break;
      case 'loaded':
        this.pending.get(msg.token)?.resolve({ info: msg.info, topology: msg.topology, fields: msg.fields });
        this.pending.delete(msg.token);
        break;
      case 'error':
        this.pending.get(msg.token)?.reject(new Error(msg.message));
        this.pending.delete(msg.token);
        break;
      case 'frame': {
        // the viewer reads the newest buffer until the next one arrives; then the previous
        // one goes back to the worker for reuse
        const previous = this.held;
        this.held = msg.buffer;
        this.events.onFrame(new Float32Array(msg.buffer), msg.stats);
        if (previous) this.send({ type: 'buffer', buffer: previous }, [previous]);
        break;
      }
      case 'field':
        this.fieldReqs.get(msg.id)?.({ values: msg.values, cols: msg.cols, kind: msg.kind, error: msg.error });
        this.fieldReqs.delete(msg.id);
        break;
      case 'crash':
        this.crashed(msg.message);
        break;
    }
  }

  private send(msg: ToWorker, transfer: Transferable[] = []): void {
    this.sent++;
    this.worker.postMessage(msg, transfer);
  }

  /** Resolves with the engine version once the worker has loaded wasm. */
  ready(): Promise<string> {
    return this.readyPromise;
  }

  /** Compiles a scene in the worker; rejects with flexlab's error message. */
  async load(xml: string, files: ModelFiles = [], elastic3d: Record<string, number> = {}): Promise<LoadedScene> {
    await this.readyPromise;
    const token = ++this.token;
    const msg: ToWorker = { type: 'load', xml, files, elastic3d, token };
    return new Promise((resolve, reject) => {
      this.pending.set(token, { resolve, reject });
      this.lastLoad = msg;
      this.held = null;
      this.send(msg);
    });
  }

  /** Recompiles the last scene (after a crash). */
  reloadLast(): Promise<LoadedScene> | null {
    const l = this.lastLoad;
    if (!l || l.type !== 'load') return null;
    return this.load(l.xml, l.files, l.elastic3d);
  }

  play(): void { this.send({ type: 'play' }); }
  pause(): void { this.send({ type: 'pause' }); }
  step(n = 1): void { this.send({ type: 'step', n }); }
  reset(): void { this.send({ type: 'reset' }); }
  speed(value: number): void { this.send({ type: 'speed', value }); }
  /** Pulls a body point toward a target with a spring (null releases it). */
  drag(d: DragSpec | null): void {
    this.send({ type: 'drag', drag: d });
  }
  /** Writes `mjData.ctrl[index]` in the worker's data. */
  ctrl(index: number, value: number): void {
    this.send({ type: 'ctrl', index, value });
  }
  /** Zeroes every control. */
  clearCtrl(): void {
    this.send({ type: 'ctrl-clear' });
  }
  /** Which edge the plots follow (−1 for none). */
  probeEdge(edge: number): void {
    this.send({ type: 'probe', edge });
  }
  /** Where in `sensordata` the plots' sensor values start. */
  sensorWindow(from: number): void {
    this.send({ type: 'sensor-window', from });
  }
  /** Test hook: make the worker fail as a wasm trap would. */
  selftestCrash(): void {
    this.send({ type: 'selftest-crash' });
  }

  /** Reads a model or data field by MuJoCo name (`contact` for the contact list). */
  field(name: string): Promise<FieldResult> {
    const id = this.nextField++;
    return new Promise((resolve) => {
      this.fieldReqs.set(id, resolve);
      this.send({ type: 'field', name, id });
    });
  }
}

/// <reference lib="webworker" />
/** Bench worker for flexlab's wasm engine (the same build and typed API the lab uses). */
import { engineVersion, FlexScene, loadEngine } from '../engine/flexlab';
import { runTimed, type FromBenchWorker, type Stepper, type ToBenchWorker } from './protocol';

declare const self: DedicatedWorkerGlobalScope;

const BAD = new Set(['mjWARN_BADQPOS', 'mjWARN_BADQVEL', 'mjWARN_BADQACC']);
let scene: FlexScene | null = null;

function post(m: FromBenchWorker): void {
  self.postMessage(m);
}

const stepper: Stepper = {
  reset: () => scene?.reset(),
  step: (n) => {
    scene?.step(n);
  },
  counts: () => {
    const s = scene as FlexScene;
    let bad = 0;
    for (const w of s.warnings()) if (BAD.has(w.kind)) bad += w.count;
    return { ncon: s.ncon, nefc: s.nefc, bad };
  },
};

self.onmessage = (ev: MessageEvent<ToBenchWorker>) => {
  const m = ev.data;
  try {
    if (m.type === 'load') {
      scene = FlexScene.compile(m.xml, m.files);
      post({ type: 'loaded', timestep: scene.timestep, nv: scene.info.sizes.nv });
    } else if (scene) {
      post({ type: 'result', result: runTimed(stepper, m.warmup, m.steps) });
    } else {
      post({ type: 'error', message: 'no model loaded' });
    }
  } catch (e) {
    post({ type: 'error', message: e instanceof Error ? e.message : String(e) });
  }
};

loadEngine().then(
  () => post({ type: 'ready', engine: 'flexlab', version: `flexlab ${engineVersion()}` }),
  (e: unknown) => post({ type: 'error', message: `flexlab wasm failed to load: ${String(e)}` }),
);

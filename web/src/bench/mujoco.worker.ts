/// <reference lib="webworker" />
/**
 * Bench worker for MuJoCo's own WebAssembly build (npm `@mujoco/mujoco`, single-threaded).
 * The model and its includes are written to the module's in-memory file system and loaded
 * with `MjModel.from_xml_path`, as `mujoco.MjModel.from_xml_path` does natively.
 */
import loadMujoco, { type MainModule, type MjData, type MjModel } from '@mujoco/mujoco';
import { runTimed, type FromBenchWorker, type Stepper, type ToBenchWorker } from './protocol';

declare const self: DedicatedWorkerGlobalScope;

let mj: MainModule | null = null;
let model: MjModel | null = null;
let data: MjData | null = null;
let dir = 0;
/** Live view of mjData.solver_niter. */
let niterView: Int32Array | null = null;

function post(m: FromBenchWorker): void {
  self.postMessage(m);
}

/** MuJoCo's bad-state warning kinds (mjWARN_BADQPOS, _BADQVEL, _BADQACC). */
function badCount(d: MjData): number {
  const e = (mj as MainModule).mjtWarning;
  // a live view of mjData.warning: never delete() it (that frees MuJoCo's own array)
  const vec = d.warning;
  let n = 0;
  for (const w of [e.mjWARN_BADQPOS.value, e.mjWARN_BADQVEL.value, e.mjWARN_BADQACC.value]) n += vec.get(w)?.number ?? 0;
  return n;
}

const stepper: Stepper = {
  reset: () => {
    const m = model as MjModel;
    const d = data as MjData;
    const lib = mj as MainModule;
    lib.mj_resetData(m, d);
    if (m.nkey > 0) lib.mj_resetDataKeyframe(m, d, 0);
    lib.mj_forward(m, d);
  },
  step: (n) => {
    const m = model as MjModel;
    const d = data as MjData;
    const step = (mj as MainModule).mj_step;
    for (let i = 0; i < n; i++) step(m, d);
  },
  counts: () => {
    const d = data as MjData;
    return { ncon: d.ncon, nefc: d.nefc, bad: badCount(d) };
  },
  niter: () => (niterView as Int32Array)[0],
};

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

self.onmessage = (ev: MessageEvent<ToBenchWorker>) => {
  const m = ev.data;
  const lib = mj;
  if (!lib) {
    post({ type: 'error', message: 'mujoco not loaded' });
    return;
  }
  try {
    if (m.type === 'load') {
      data?.delete();
      model?.delete();
      data = null;
      model = null;
      const root = `/bench${dir++}`;
      lib.FS.mkdir(root);
      for (const [name, text] of m.files) {
        const slash = name.lastIndexOf('/');
        if (slash > 0) lib.FS.mkdirTree(`${root}/${name.slice(0, slash)}`, 0o777);
        lib.FS.writeFile(`${root}/${name}`, text);
      }
      lib.FS.writeFile(`${root}/model.xml`, m.xml);
      model = lib.MjModel.from_xml_path(`${root}/model.xml`);
      data = new lib.MjData(model);
      niterView = data.solver_niter as Int32Array;
      post({ type: 'loaded', timestep: model.opt.timestep, nv: model.nv });
    } else if (model && data) {
      post({ type: 'result', result: runTimed(stepper, m.warmup, m.steps) });
    } else {
      post({ type: 'error', message: 'no model loaded' });
    }
  } catch (e) {
    post({ type: 'error', message: errorText(e) });
  }
};

loadMujoco().then(
  (lib) => {
    mj = lib;
    post({ type: 'ready', engine: 'mujoco', version: `@mujoco/mujoco ${lib.mj_versionString()}` });
  },
  (e: unknown) => post({ type: 'error', message: `@mujoco/mujoco failed to load: ${String(e)}` }),
);

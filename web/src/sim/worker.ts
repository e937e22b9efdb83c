/// <reference lib="webworker" />
/**
 * The physics worker: owns the wasm engine, steps in real time within a per-tick budget, and
 * posts frames. A slow scene lowers its real-time factor instead of blocking the page.
 */
import { engineVersion, FlexScene, loadEngine } from '../engine/flexlab';
import type { FromWorker, Topology, ToWorker } from './protocol';

declare const self: DedicatedWorkerGlobalScope;

/** Wall-clock budget of physics per tick (ms), so input and frames keep flowing. */
const TICK_BUDGET_MS = 12;
/** Largest simulated lag we try to catch up before dropping it (s). */
const MAX_LAG = 0.1;

let scene: FlexScene | null = null;
let running = false;
let speed = 1;
let simStart = 0;
let wallStart = 0;
const buffers: ArrayBuffer[] = [];
let frameFloats = 0;
let stepsCount = 0;
let rateTime = performance.now();
let rateSim = 0;
let lastRate = { rt: 0, sps: 0 };
let drag: { body: number; target: [number, number, number] | null; stiffness: number } | null = null;
let ticking = false;

function post(msg: FromWorker, transfer: Transferable[] = []): void {
  self.postMessage(msg, transfer);
}

function topology(s: FlexScene): Topology {
  const nflex = s.info.sizes.nflex;
  const vertadr = s.modelField('flex_vertadr');
  const vertnum = s.modelField('flex_vertnum');
  const dim = s.modelField('flex_dim');
  const elemadr = s.modelField('flex_elemdataadr');
  const elemnum = s.modelField('flex_elemnum');
  const elem = s.modelField('flex_elem');
  const shelladr = s.modelField('flex_shelldataadr');
  const shellnum = s.modelField('flex_shellnum');
  const shell = s.modelField('flex_shell');
  const radius = s.modelField('flex_radius');
  const rgba = s.modelField('flex_rgba');
  const vertbody = Array.from(s.modelField('flex_vertbodyid'));
  const dofnum = s.modelField('body_dofnum');
  const flexes: Topology['flexes'] = [];
  for (let f = 0; f < nflex; f++) {
    const d = dim[f];
    const triangles: number[] = [];
    const segments: number[] = [];
    if (d === 2) {
      for (let k = 0; k < elemnum[f] * 3; k++) triangles.push(elem[elemadr[f] + k]);
    } else if (d === 3) {
      for (let k = 0; k < shellnum[f] * 3; k++) triangles.push(shell[shelladr[f] + k]);
    } else {
      for (let k = 0; k < elemnum[f] * 2; k++) segments.push(elem[elemadr[f] + k]);
    }
    // a vertex counts as pinned when its body has no dofs of its own or carries other vertices
    const counts = new Map<number, number>();
    for (let v = 0; v < vertnum[f]; v++) {
      const b = vertbody[vertadr[f] + v];
      counts.set(b, (counts.get(b) ?? 0) + 1);
    }
    const pinned: number[] = [];
    for (let v = 0; v < vertnum[f]; v++) {
      const b = vertbody[vertadr[f] + v];
      if (b >= 0 && (dofnum[b] === 0 || (counts.get(b) ?? 0) > 1)) pinned.push(v);
    }
    flexes.push({
      name: s.info.flex[f],
      dim: d,
      vertadr: vertadr[f],
      vertnum: vertnum[f],
      triangles,
      segments,
      radius: radius[f],
      rgba: [rgba[4 * f], rgba[4 * f + 1], rgba[4 * f + 2], rgba[4 * f + 3]],
      pinned,
    });
  }
  const ngeom = s.info.sizes.ngeom;
  const gtype = s.modelField('geom_type');
  const gsize = s.modelField('geom_size');
  const grgba = s.modelField('geom_rgba');
  const gbody = s.modelField('geom_bodyid');
  const geoms: Topology['geoms'] = [];
  for (let g = 0; g < ngeom; g++) {
    geoms.push({
      type: gtype[g],
      size: [gsize[3 * g], gsize[3 * g + 1], gsize[3 * g + 2]],
      rgba: [grgba[4 * g], grgba[4 * g + 1], grgba[4 * g + 2], grgba[4 * g + 3]],
      body: gbody[g],
    });
  }
  return { flexes, geoms, nflexvert: s.info.sizes.nflexvert, ngeom, vertbody };
}

function applyDrag(s: FlexScene): void {
  s.clearForces();
  if (!drag || !drag.target) return;
  const xipos = s.view('xipos');
  const cvel = s.view('cvel');
  const b = drag.body;
  const mass = s.modelField('body_mass')[b] || 1;
  const k = drag.stiffness * mass;
  // spring to the cursor with critical-ish damping on the body's linear velocity
  const c = 2 * Math.sqrt(drag.stiffness) * mass;
  const f: [number, number, number] = [0, 0, 0];
  for (let i = 0; i < 3; i++) f[i] = k * (drag.target[i] - xipos[3 * b + i]) - c * cvel[6 * b + 3 + i];
  s.setBodyForce(b, f);
}

function sendFrame(): void {
  if (!scene) return;
  const buf = buffers.pop();
  if (!buf) return; // the main thread still holds every buffer: skip this frame
  const out = new Float32Array(buf);
  const xpos = scene.view('flexvert_xpos');
  const gpos = scene.view('geom_xpos');
  const gmat = scene.view('geom_xmat');
  out.set(xpos, 0);
  out.set(gpos, xpos.length);
  out.set(gmat, xpos.length + gpos.length);
  post(
    {
      type: 'frame',
      buffer: buf,
      stats: {
        time: scene.time,
        realtime: lastRate.rt,
        stepsPerSecond: lastRate.sps,
        ncon: scene.ncon,
        nefc: scene.nefc,
        running,
        warnings: scene.warnings(),
      },
    },
    [buf],
  );
}

function tick(): void {
  ticking = false;
  if (!scene) return;
  if (running) {
    const t0 = performance.now();
    const target = simStart + ((t0 - wallStart) / 1000) * speed;
    if (target - scene.time > MAX_LAG) {
      // we cannot keep up: drop the backlog so the factor shows the truth, not a spiral
      simStart = scene.time;
      wallStart = t0 - 1;
    }
    const h = scene.timestep;
    while (scene.time + 0.5 * h < simStart + ((performance.now() - wallStart) / 1000) * speed) {
      applyDrag(scene);
      scene.step(1);
      stepsCount++;
      if (performance.now() - t0 > TICK_BUDGET_MS) break;
    }
    const now = performance.now();
    if (now - rateTime > 500) {
      lastRate = { rt: (scene.time - rateSim) / ((now - rateTime) / 1000), sps: stepsCount / ((now - rateTime) / 1000) };
      rateTime = now;
      rateSim = scene.time;
      stepsCount = 0;
    }
  }
  sendFrame();
  schedule();
}

function schedule(): void {
  if (ticking) return;
  ticking = true;
  setTimeout(tick, running ? 0 : 16);
}

function restartClock(): void {
  if (!scene) return;
  simStart = scene.time;
  wallStart = performance.now();
  rateTime = wallStart;
  rateSim = scene.time;
  stepsCount = 0;
}

function handle(msg: ToWorker): void {
  switch (msg.type) {
    case 'load': {
      try {
        const next = FlexScene.compile(msg.xml, msg.files, msg.elastic3d);
        scene?.dispose();
        scene = next;
        const topo = topology(scene);
        frameFloats = 3 * topo.nflexvert + 12 * topo.ngeom;
        buffers.length = 0;
        for (let i = 0; i < 3; i++) buffers.push(new ArrayBuffer(4 * Math.max(1, frameFloats)));
        restartClock();
        post({ type: 'loaded', token: msg.token, info: scene.info, topology: topo });
        sendFrame();
      } catch (e) {
        post({ type: 'error', token: msg.token, message: e instanceof Error ? e.message : String(e) });
      }
      break;
    }
    case 'play':
      running = true;
      restartClock();
      break;
    case 'pause':
      running = false;
      break;
    case 'step':
      if (scene) {
        running = false;
        applyDrag(scene);
        scene.step(Math.max(1, Math.min(msg.n, 10000)));
      }
      break;
    case 'reset':
      if (scene) {
        scene.reset();
        restartClock();
      }
      break;
    case 'speed':
      speed = Math.min(Math.max(msg.value, 0.01), 10);
      restartClock();
      break;
    case 'buffer':
      if (msg.buffer.byteLength === 4 * Math.max(1, frameFloats)) buffers.push(msg.buffer);
      break;
    case 'drag':
      drag = msg.target ? { body: msg.body, target: msg.target, stiffness: msg.stiffness } : null;
      break;
    case 'field': {
      if (!scene) {
        post({ type: 'field', id: msg.id, values: null, cols: 0, error: 'no scene' });
        break;
      }
      try {
        const model = scene.fieldNames().model.includes(msg.name);
        const values = model ? scene.modelField(msg.name) : scene.dataField(msg.name);
        post({ type: 'field', id: msg.id, values, cols: scene.fieldCols(msg.name) });
      } catch (e) {
        post({ type: 'field', id: msg.id, values: null, cols: 0, error: e instanceof Error ? e.message : String(e) });
      }
      break;
    }
  }
  schedule();
}

self.onmessage = (ev: MessageEvent<ToWorker>) => {
  try {
    handle(ev.data);
  } catch (e) {
    // a wasm trap (engine bug) poisons the instance: report it; the page restarts the worker
    running = false;
    post({ type: 'crash', message: e instanceof Error ? e.message : String(e) });
  }
};

loadEngine()
  .then(() => post({ type: 'ready', version: engineVersion() }))
  .catch((e) => post({ type: 'crash', message: `could not load the engine: ${String(e)}` }));

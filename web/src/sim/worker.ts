/// <reference lib="webworker" />
/**
 * The physics worker: owns the wasm engine, steps in real time within a per-tick budget, and
 * posts frames. A slow scene lowers its real-time factor instead of blocking the page; a state
 * that goes bad pauses the scene and says so; a wasm trap is reported so the page can restart us.
 */
import { CONTACT_STRIDE, contactNormalForce, engineVersion, FlexScene, loadEngine } from '../engine/flexlab';
import { CONTACT_FLOATS, frameLayout, MAX_DRAW_CONTACTS, MAX_SENSOR_SERIES, MAX_SENSORS_LISTED, type ActuatorInfo, type SensorInfo, type DragSpec, type FrameLayout, type FromWorker, type Probe, type Topology, type ToWorker } from './protocol';
import { drawnRgba } from './material';

declare const self: DedicatedWorkerGlobalScope;

/** Wall-clock budget of physics per tick (ms), so input and frames keep flowing. */
const TICK_BUDGET_MS = 12;
/** Largest simulated lag we try to catch up before dropping it (s). */
const MAX_LAG = 0.1;

interface Loaded {
  scene: FlexScene;
  topo: Topology;
  layout: FrameLayout;
  /** Constant model arrays the per-frame code reads (copied once). */
  mass: Float64Array;
  nodeBody: Float64Array;
  nodeLocal: Float64Array;
  nodeCentered: boolean[];
  forceDofs: Int32Array;
  forceAxes: Float64Array;
}

let cur: Loaded | null = null;
let running = false;
let speed = 1;
let simStart = 0;
let wallStart = 0;
const buffers: ArrayBuffer[] = [];
let stepsCount = 0;
let stepsTotal = 0;
let rateTime = performance.now();
let rateSim = 0;
let lastRate = { rt: 0, sps: 0 };
let drag: DragSpec | null = null;
/** The grab point of the current drag in its body's frame. */
const dragLocal = new Float64Array(3);
let selEdge = -1;
/** The first value of `sensordata` the plots follow. */
let sensorFrom = 0;
let ticking = false;
let dirty = true;
let diverged: string | null = null;
let handled = 0;
/** A control changed while paused: recompute derived quantities (MuJoCo simulate's paused mj_forward). */
let ctrlForward = false;
const probe: Probe = { potential: 0, kinetic: 0, elastic: 0, edgeMin: 0, edgeMean: 0, edgeMax: 0, edgeSel: NaN, penetration: 0, contactForce: 0, sensors: new Array<number>(MAX_SENSOR_SERIES).fill(NaN) };
const dragAnchor = new Float64Array(3);

function post(msg: FromWorker, transfer: Transferable[] = []): void {
  self.postMessage(msg, transfer);
}

function topology(s: FlexScene): Topology {
  const nflex = s.info.sizes.nflex;
  const vertadr = s.modelField('flex_vertadr');
  const vertnum = s.modelField('flex_vertnum');
  const edgeadr = s.modelField('flex_edgeadr');
  const edgenum = s.modelField('flex_edgenum');
  const edge = s.modelField('flex_edge');
  const dim = s.modelField('flex_dim');
  const interp = s.modelField('flex_interp');
  const elemadr = s.modelField('flex_elemdataadr');
  const elemnum = s.modelField('flex_elemnum');
  const elem = s.modelField('flex_elem');
  const shelladr = s.modelField('flex_shelldataadr');
  const shellnum = s.modelField('flex_shellnum');
  const shell = s.modelField('flex_shell');
  const radius = s.modelField('flex_radius');
  const rgba = s.modelField('flex_rgba');
  const fmat = s.modelField('flex_matid');
  const matRgba = s.modelField('mat_rgba');
  const vertbody = Array.from(s.modelField('flex_vertbodyid'));
  const dofnum = s.modelField('body_dofnum');
  const flexes: Topology['flexes'] = [];
  const edges: number[] = [];
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
    for (let e = 0; e < edgenum[f]; e++) {
      const ge = edgeadr[f] + e;
      edges.push(vertadr[f] + edge[2 * ge], vertadr[f] + edge[2 * ge + 1]);
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
      name: s.info.flex[f] ?? '',
      dim: d,
      vertadr: vertadr[f],
      vertnum: vertnum[f],
      edgeadr: edgeadr[f],
      edgenum: edgenum[f],
      triangles,
      segments,
      radius: radius[f],
      rgba: drawnRgba(rgba, f, fmat[f], matRgba),
      pinned,
      interp: interp[f],
    });
  }
  const ngeom = s.info.sizes.ngeom;
  const gtype = s.modelField('geom_type');
  const gsize = s.modelField('geom_size');
  const grgba = s.modelField('geom_rgba');
  const gmat = s.modelField('geom_matid');
  const gbody = s.modelField('geom_bodyid');
  const gdata = s.modelField('geom_dataid');
  const mvadr = s.modelField('mesh_vertadr');
  const nmesh = mvadr.length;
  const mvnum = nmesh ? s.modelField('mesh_vertnum') : new Float64Array(0);
  const mfadr = nmesh ? s.modelField('mesh_faceadr') : new Float64Array(0);
  const mfnum = nmesh ? s.modelField('mesh_facenum') : new Float64Array(0);
  const mvert = nmesh ? s.modelField('mesh_vert') : new Float64Array(0);
  const mface = nmesh ? s.modelField('mesh_face') : new Float64Array(0);
  const geoms: Topology['geoms'] = [];
  for (let g = 0; g < ngeom; g++) {
    const geom: Topology['geoms'][number] = {
      type: gtype[g],
      size: [gsize[3 * g], gsize[3 * g + 1], gsize[3 * g + 2]],
      rgba: drawnRgba(grgba, g, gmat[g], matRgba),
      body: gbody[g],
    };
    const id = gdata[g];
    // mesh geoms (7) and SDF geoms (8) are drawn with their mesh (an SDF's is its marching-cubes surface)
    if ((gtype[g] === 7 || gtype[g] === 8) && id >= 0 && id < nmesh) {
      const va = mvadr[id], vn = mvnum[id], fa = mfadr[id], fn = mfnum[id];
      geom.mesh = { vert: Array.from(mvert.subarray(3 * va, 3 * (va + vn))), face: Array.from(mface.subarray(3 * fa, 3 * (fa + fn))) };
    }
    geoms.push(geom);
  }
  // vertices on a body moved by exactly three slide joints (flexcomp's usual layout)
  const jntnum = s.modelField('body_jntnum');
  const jntadr = s.modelField('body_jntadr');
  const jtype = s.modelField('jnt_type');
  const forceVerts: number[] = [];
  for (let v = 0; v < vertbody.length; v++) {
    const b = vertbody[v];
    if (b <= 0 || jntnum[b] !== 3 || dofnum[b] !== 3) continue;
    let slides = true;
    for (let j = 0; j < 3; j++) if (jtype[jntadr[b] + j] !== 2) slides = false;
    if (slides) forceVerts.push(v);
  }
  return {
    flexes,
    geoms,
    nu: s.info.sizes.nu ?? 0,
    actuators: actuators(s),
    nflexvert: s.info.sizes.nflexvert,
    nflexedge: s.info.sizes.nflexedge,
    nflexnode: s.info.sizes.nflexnode,
    ngeom,
    nbody: s.info.sizes.nbody,
    vertbody,
    nodebody: Array.from(s.modelField('flex_nodebodyid')),
    edges,
    forceVerts,
    pyramidal: s.info.options.cone === 'pyramidal',
    sensors: sensorList(s),
  };
}

/** MJCF element names of the sensor types the engine computes (`mjtSensor` numbering). */
const SENSOR_ELEMENTS: Record<number, string> = {
  0: 'touch', 1: 'accelerometer', 2: 'velocimeter', 3: 'gyro', 4: 'force', 5: 'torque', 6: 'magnetometer', 9: 'jointpos', 10: 'jointvel', 11: 'tendonpos',
  12: 'tendonvel', 13: 'actuatorpos', 14: 'actuatorvel', 15: 'actuatorfrc', 16: 'jointactuatorfrc',
  17: 'tendonactuatorfrc', 18: 'ballquat', 19: 'ballangvel', 20: 'jointlimitpos', 21: 'jointlimitvel',
  22: 'jointlimitfrc', 23: 'tendonlimitpos', 24: 'tendonlimitvel', 25: 'tendonlimitfrc', 26: 'framepos',
  27: 'framequat', 28: 'framexaxis', 29: 'frameyaxis', 30: 'framezaxis', 31: 'framelinvel',
  32: 'frameangvel', 33: 'framelinacc', 34: 'frameangacc', 35: 'subtreecom', 36: 'subtreelinvel', 37: 'subtreeangmom',
  38: 'insidesite', 43: 'e_potential',
  44: 'e_kinetic', 45: 'clock',
};

/** The sensors the plots can follow (see `Topology.sensors`). */
function sensorList(s: FlexScene): SensorInfo[] {
  const n = Math.min(s.info.sizes.nsensor ?? 0, MAX_SENSORS_LISTED);
  if (!n) return [];
  const dim = s.modelField('sensor_dim');
  const adr = s.modelField('sensor_adr');
  const type = s.modelField('sensor_type');
  const out: SensorInfo[] = [];
  for (let i = 0; i < n; i++) {
    out.push({ label: s.info.sensor[i] || `${SENSOR_ELEMENTS[type[i]] ?? 'sensor'} ${i}`, adr: adr[i], dim: dim[i] });
  }
  return out;
}

/** The actuators the Controls panel drives: names, control ranges and what they act on. */
function actuators(s: FlexScene): ActuatorInfo[] {
  const nu = s.info.sizes.nu ?? 0;
  if (!nu) return [];
  const range = s.modelField('actuator_ctrlrange');
  const limited = s.modelField('actuator_ctrllimited');
  const trntype = s.modelField('actuator_trntype');
  const trnid = s.modelField('actuator_trnid');
  const ctrl = s.view('ctrl');
  const out: ActuatorInfo[] = [];
  for (let i = 0; i < nu; i++) {
    const type = trntype[i];
    const id = trnid[2 * i];
    // mjTRN_JOINT and mjTRN_JOINTINPARENT name a joint, mjTRN_TENDON a tendon
    const target = type === 0 || type === 1 ? s.info.joint[id] ?? '' : type === 3 ? s.info.tendon[id] ?? '' : type === 4 ? s.info.site[id] ?? '' : '';
    out.push({
      name: s.info.actuator[i] ?? '',
      ctrlrange: [range[2 * i], range[2 * i + 1]],
      ctrllimited: limited[i] !== 0,
      trntype: type,
      trnid: id,
      target,
      ctrl0: ctrl[i],
    });
  }
  return out;
}

function prepare(s: FlexScene): Loaded {
  const topo = topology(s);
  const layout = frameLayout(topo);
  const nflex = s.info.sizes.nflex;
  const nodeadr = s.modelField('flex_nodeadr');
  const nodenum = s.modelField('flex_nodenum');
  const centered = s.modelField('flex_centered');
  const nodeCentered: boolean[] = [];
  for (let f = 0; f < nflex; f++) for (let n = 0; n < nodenum[f]; n++) nodeCentered[nodeadr[f] + n] = centered[f] !== 0;
  const bodyDofadr = s.modelField('body_dofadr');
  const bodyJntadr = s.modelField('body_jntadr');
  const axis = s.modelField('jnt_axis');
  const forceDofs = new Int32Array(topo.forceVerts.length);
  const forceAxes = new Float64Array(9 * topo.forceVerts.length);
  topo.forceVerts.forEach((v, i) => {
    const b = topo.vertbody[v];
    forceDofs[i] = bodyDofadr[b];
    for (let k = 0; k < 9; k++) forceAxes[9 * i + k] = axis[3 * bodyJntadr[b] + k];
  });
  return {
    scene: s,
    topo,
    layout,
    mass: s.modelField('body_mass'),
    nodeBody: s.modelField('flex_nodebodyid'),
    nodeLocal: s.modelField('flex_node'),
    nodeCentered,
    forceDofs,
    forceAxes,
  };
}

/** World point of the grab: the body point `dragLocal` in the current pose. */
function grabPoint(c: Loaded, d: DragSpec, out: Float64Array): void {
  const xpos = c.scene.view('xpos');
  const xmat = c.scene.view('xmat');
  const b = d.body;
  for (let i = 0; i < 3; i++) {
    out[i] = xpos[3 * b + i] + xmat[9 * b + 3 * i] * dragLocal[0] + xmat[9 * b + 3 * i + 1] * dragLocal[1] + xmat[9 * b + 3 * i + 2] * dragLocal[2];
  }
}

/** Fixes a world grab point in body `b`'s frame: local = Rᵀ (p − xpos). */
function setGrab(c: Loaded, b: number, p: [number, number, number]): void {
  const xpos = c.scene.view('xpos');
  const xmat = c.scene.view('xmat');
  for (let k = 0; k < 3; k++) {
    let v = 0;
    for (let i = 0; i < 3; i++) v += xmat[9 * b + 3 * i + k] * (p[i] - xpos[3 * b + i]);
    dragLocal[k] = v;
  }
}

/** MuJoCo simulate's perturbation: a damped spring from the grab point to the cursor target. */
function applyDrag(c: Loaded): void {
  c.scene.clearForces();
  if (!drag) return;
  const b = drag.body;
  if (b <= 0 || b >= c.topo.nbody) return;
  const cvel = c.scene.view('cvel');
  const mass = c.mass[b] || 1;
  grabPoint(c, drag, dragAnchor);
  const k = drag.stiffness * mass;
  const damp = 2 * Math.sqrt(drag.stiffness) * mass;
  const f: [number, number, number] = [0, 0, 0];
  for (let i = 0; i < 3; i++) f[i] = k * (drag.target[i] - dragAnchor[i]) - damp * cvel[6 * b + 3 + i];
  c.scene.setBodyForce(b, f);
}

function checkDiverged(c: Loaded): boolean {
  const ws = c.scene.warnings();
  const bad = ws.filter((w) => w.kind.startsWith('mjWARN_BAD'));
  if (bad.length) {
    diverged = bad.map((w) => `${w.kind}: ${w.text}`).join('\n');
    return true;
  }
  const x = c.scene.view('flexvert_xpos');
  const q = c.scene.view('qpos');
  for (let i = 0; i < x.length; i++) {
    if (!Number.isFinite(x[i])) {
      diverged = `flexvert_xpos[${Math.floor(i / 3)}] is not finite`;
      return true;
    }
  }
  for (let i = 0; i < q.length; i++) {
    if (!Number.isFinite(q[i])) {
      diverged = `qpos[${i}] is not finite`;
      return true;
    }
  }
  return false;
}

function measure(c: Loaded): void {
  const e = c.scene.energies();
  probe.potential = e[0];
  probe.kinetic = e[1];
  let el = 0;
  for (let i = 2; i < e.length; i++) el += e[i];
  probe.elastic = el;
  const len = c.scene.view('flexedge_length');
  let mn = Infinity, mx = -Infinity, sum = 0;
  for (let i = 0; i < len.length; i++) {
    const l = len[i];
    if (l < mn) mn = l;
    if (l > mx) mx = l;
    sum += l;
  }
  probe.edgeMin = len.length ? mn : 0;
  probe.edgeMax = len.length ? mx : 0;
  probe.edgeMean = len.length ? sum / len.length : 0;
  probe.edgeSel = selEdge >= 0 && selEdge < len.length ? len[selEdge] : NaN;
  const sd = c.scene.view('sensordata');
  for (let k = 0; k < MAX_SENSOR_SERIES; k++) probe.sensors[k] = sensorFrom + k < sd.length ? sd[sensorFrom + k] : NaN;
}

function fillFrame(c: Loaded, out: Float32Array): void {
  const s = c.scene;
  const L = c.layout;
  out.set(s.view('flexvert_xpos'), L.vert);
  out.set(s.view('geom_xpos'), L.gpos);
  out.set(s.view('geom_xmat'), L.gmat);
  // interpolation nodes: on their bodies, like MuJoCo's node_positions
  const xpos = s.view('xpos');
  const xmat = s.view('xmat');
  for (let n = 0; n < c.topo.nflexnode; n++) {
    const b = c.nodeBody[n];
    for (let i = 0; i < 3; i++) {
      let p = xpos[3 * b + i];
      if (!c.nodeCentered[n]) for (let k = 0; k < 3; k++) p += xmat[9 * b + 3 * i + k] * c.nodeLocal[3 * n + k];
      out[L.node + 3 * n + i] = p;
    }
  }
  // passive force on each vertex moved by three slide joints: Σ qfrc_passive[dof] · axis
  const qfrc = s.view('qfrc_passive');
  for (let i = 0; i < c.forceDofs.length; i++) {
    const d0 = c.forceDofs[i];
    for (let k = 0; k < 3; k++) {
      out[L.vforce + 3 * i + k] = qfrc[d0] * c.forceAxes[9 * i + k] + qfrc[d0 + 1] * c.forceAxes[9 * i + 3 + k] + qfrc[d0 + 2] * c.forceAxes[9 * i + 6 + k];
    }
  }
  if (drag) {
    grabPoint(c, drag, dragAnchor);
    out.set(dragAnchor, L.drag);
    out[L.drag + 3] = drag.target[0];
    out[L.drag + 4] = drag.target[1];
    out[L.drag + 5] = drag.target[2];
    out[L.drag + 6] = 1;
  } else {
    out[L.drag + 6] = 0;
  }
  // contacts: point, normal and normal force; penetration and total force for the plots
  const raw = s.ncon > 0 ? s.contactsRaw() : null;
  let n = 0;
  let pen = 0;
  let force = 0;
  if (raw) {
    const efc = s.nefc > 0 ? s.dataField('efc_force') : new Float64Array(0);
    for (let o = 0; o + CONTACT_STRIDE <= raw.length; o += CONTACT_STRIDE) {
      const dist = raw[o];
      if (-dist > pen) pen = -dist;
      const fn = contactNormalForce(efc, { dim: raw[o + 15], efc_address: raw[o + 17], adhesion: raw[o + 18] }, c.topo.pyramidal);
      force += fn;
      if (n < MAX_DRAW_CONTACTS) {
        const b = L.con + 1 + CONTACT_FLOATS * n;
        for (let k = 0; k < 6; k++) out[b + k] = raw[o + 1 + k];
        out[b + 6] = fn;
        n++;
      }
    }
  }
  out[L.con] = n;
  if (c.topo.nu) out.set(s.view('ctrl'), L.ctrl);
  probe.penetration = pen;
  probe.contactForce = force;
}

function sendFrame(): void {
  const c = cur;
  if (!c) return;
  const buf = buffers.pop();
  if (!buf) return; // the main thread still holds every buffer: skip this frame
  fillFrame(c, new Float32Array(buf));
  measure(c);
  dirty = false;
  post(
    {
      type: 'frame',
      buffer: buf,
      stats: {
        time: c.scene.time,
        realtime: lastRate.rt,
        stepsPerSecond: lastRate.sps,
        ncon: c.scene.ncon,
        nefc: c.scene.nefc,
        running,
        warnings: c.scene.warnings(),
        diverged,
        probe,
        steps: stepsTotal,
        handled,
      },
    },
    [buf],
  );
}

function stepOnce(c: Loaded): void {
  applyDrag(c);
  c.scene.step(1);
  stepsCount++;
  stepsTotal++;
  dirty = true;
}

/**
 * After a batch of steps: a bad state stops the scene. Checked per batch, not per step (it
 * costs about a sixth of a small scene's step); MuJoCo's own autoreset has already put the
 * state back by then, so the student sees the warning and a paused, finite state.
 */
function afterSteps(c: Loaded): void {
  if (!diverged && checkDiverged(c)) running = false;
}

function tick(): void {
  ticking = false;
  const c = cur;
  if (!c) return;
  if (ctrlForward && !running) c.scene.forward();
  ctrlForward = false;
  if (running) {
    const t0 = performance.now();
    const target = simStart + ((t0 - wallStart) / 1000) * speed;
    if (target - c.scene.time > MAX_LAG) {
      // we cannot keep up: drop the backlog so the factor shows the truth, not a spiral
      simStart = c.scene.time;
      wallStart = t0 - 1;
    }
    const h = c.scene.timestep;
    while (running && c.scene.time + 0.5 * h < simStart + ((performance.now() - wallStart) / 1000) * speed) {
      stepOnce(c);
      if (performance.now() - t0 > TICK_BUDGET_MS) break;
    }
    afterSteps(c);
    const now = performance.now();
    if (now - rateTime > 500) {
      lastRate = { rt: (c.scene.time - rateSim) / ((now - rateTime) / 1000), sps: stepsCount / ((now - rateTime) / 1000) };
      rateTime = now;
      rateSim = c.scene.time;
      stepsCount = 0;
    }
  }
  if (running || dirty) sendFrame();
  schedule();
}

function schedule(): void {
  if (ticking) return;
  ticking = true;
  setTimeout(tick, running ? 0 : 16);
}

function restartClock(): void {
  if (!cur) return;
  simStart = cur.scene.time;
  wallStart = performance.now();
  rateTime = wallStart;
  rateSim = cur.scene.time;
  stepsCount = 0;
  lastRate = { rt: 0, sps: 0 };
}

function readField(name: string): { values: Float64Array; cols: number; kind: 'model' | 'data' | 'contact' } {
  const s = (cur as Loaded).scene;
  if (name === 'contact') return { values: s.contactsRaw(), cols: CONTACT_STRIDE, kind: 'contact' };
  const model = s.fieldNames().model.includes(name);
  return { values: model ? s.modelField(name) : s.dataField(name), cols: s.fieldCols(name), kind: model ? 'model' : 'data' };
}

function handle(msg: ToWorker): void {
  switch (msg.type) {
    case 'load': {
      try {
        const next = prepare(FlexScene.compile(msg.xml, msg.files, msg.elastic3d));
        cur?.scene.dispose();
        cur = next;
        running = false;
        drag = null;
        ctrlForward = false;
        selEdge = -1;
        sensorFrom = 0;
        diverged = null;
        stepsTotal = 0;
        buffers.length = 0;
        for (let i = 0; i < 3; i++) buffers.push(new ArrayBuffer(4 * next.layout.total));
        restartClock();
        post({ type: 'loaded', token: msg.token, info: next.scene.info, topology: next.topo, fields: next.scene.fieldNames() });
        dirty = true;
        sendFrame();
      } catch (e) {
        post({ type: 'error', token: msg.token, message: e instanceof Error ? e.message : String(e) });
      }
      break;
    }
    case 'play':
      if (cur && !diverged) {
        running = true;
        restartClock();
        dirty = true;
      }
      break;
    case 'pause':
      running = false;
      dirty = true;
      break;
    case 'step':
      if (cur && !diverged) {
        running = false;
        const n = Math.max(1, Math.min(msg.n, 10000));
        for (let i = 0; i < n; i++) stepOnce(cur);
        afterSteps(cur);
        dirty = true;
      }
      break;
    case 'reset':
      if (cur) {
        cur.scene.reset();
        diverged = null;
        stepsTotal = 0;
        restartClock();
        dirty = true;
      }
      break;
    case 'speed':
      speed = Math.min(Math.max(msg.value, 0.01), 10);
      restartClock();
      break;
    case 'buffer':
      if (cur && msg.buffer.byteLength === 4 * cur.layout.total) buffers.push(msg.buffer);
      break;
    case 'drag':
      drag = msg.drag;
      if (cur && drag && drag.grab && drag.body > 0 && drag.body < cur.topo.nbody) setGrab(cur, drag.body, drag.grab);
      dirty = true;
      break;
    case 'probe':
      selEdge = msg.edge;
      dirty = true;
      break;
    case 'sensor-window':
      if (Number.isInteger(msg.from) && msg.from >= 0) sensorFrom = msg.from;
      dirty = true;
      break;
    case 'ctrl':
      if (cur && Number.isInteger(msg.index) && msg.index >= 0 && msg.index < cur.topo.nu && Number.isFinite(msg.value)) {
        cur.scene.view('ctrl')[msg.index] = msg.value;
        ctrlForward = true;
      }
      break;
    case 'ctrl-clear':
      if (cur && cur.topo.nu) {
        cur.scene.view('ctrl').fill(0);
        ctrlForward = true;
      }
      break;
    case 'field': {
      if (!cur) {
        post({ type: 'field', id: msg.id, values: null, cols: 0, kind: 'data', error: 'no scene' });
        break;
      }
      try {
        const r = readField(msg.name);
        post({ type: 'field', id: msg.id, values: r.values, cols: r.cols, kind: r.kind });
      } catch (e) {
        post({ type: 'field', id: msg.id, values: null, cols: 0, kind: 'data', error: e instanceof Error ? e.message : String(e) });
      }
      break;
    }
    case 'selftest-crash':
      throw new WebAssembly.RuntimeError('unreachable (self-test)');
  }
  schedule();
}

self.onmessage = (ev: MessageEvent<ToWorker>) => {
  handled++;
  dirty = true;
  try {
    handle(ev.data);
  } catch (e) {
    // a wasm trap (engine bug) poisons the instance: report it; the page restarts the worker
    running = false;
    cur = null;
    post({ type: 'crash', message: e instanceof Error ? e.message : String(e) });
  }
};

loadEngine()
  .then(() => post({ type: 'ready', version: engineVersion() }))
  .catch((e) => post({ type: 'crash', message: `could not load the engine: ${String(e)}` }));

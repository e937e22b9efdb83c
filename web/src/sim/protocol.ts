/**
 * Messages between the main thread and the physics worker. Frames carry Float32 buffers that
 * travel back and forth (transferred, never reallocated), so rendering allocates nothing. The
 * page needs no cross-origin isolation: no SharedArrayBuffer, only transfers.
 */
import type { EngineWarning, ModelFiles, ModelInfo } from '../engine/flexlab';

/** One actuator as the Controls panel shows it (MuJoCo's `actuator_*` model arrays). */
export interface ActuatorInfo {
  /** `names_actuator[i]`, empty when unnamed. */
  name: string;
  /** `actuator_ctrlrange[i]` (meaningful when `ctrllimited`). */
  ctrlrange: [number, number];
  ctrllimited: boolean;
  /** `actuator_trntype[i]` (mjtTrn: 0 joint, 1 joint in parent, 3 tendon, …) and `actuator_trnid[i][0]`. */
  trntype: number;
  trnid: number;
  /** Name of the joint or tendon it drives ('' when unnamed or another transmission). */
  target: string;
  /** `ctrl[i]` after load and after Reset: keyframe 0's control, else 0. */
  ctrl0: number;
}

/** Static description of what to draw and drive, sent once per compiled scene. */
export interface Topology {
  flexes: Array<{
    name: string;
    dim: number;
    vertadr: number;
    vertnum: number;
    edgeadr: number;
    edgenum: number;
    /** Triangles (local vertex ids) to draw: elements in 2D, the boundary surface in 3D. */
    triangles: number[];
    /** Segments for 1D flexes (local vertex ids). */
    segments: number[];
    radius: number;
    rgba: [number, number, number, number];
    /** Local ids of vertices that sit on a body other than their own (pins). */
    pinned: number[];
    /** 0 none, 1 trilinear, 2 quadratic (MuJoCo's `flex_interp`). */
    interp: number;
  }>;
  geoms: Array<{
    type: number;
    size: [number, number, number];
    rgba: [number, number, number, number];
    body: number;
    /** For mesh geoms: the mesh's vertices (3 each, mesh frame) and triangles. */
    mesh?: { vert: number[]; face: number[] };
  }>;
  nflexvert: number;
  nflexedge: number;
  nflexnode: number;
  ngeom: number;
  nbody: number;
  /** Body of each flex vertex (−1 for interpolated vertices). */
  vertbody: number[];
  /** Body of each interpolation node (`flex_nodebodyid`). */
  nodebody: number[];
  /** Global vertex ids of each flex edge, two per edge (`flex_edge` + `flex_vertadr`). */
  edges: number[];
  /** Vertices whose body moves by three slide joints: their passive force can be drawn. */
  forceVerts: number[];
  /** True when contacts use pyramidal cones (normal force = sum of the pyramid rows). */
  pyramidal: boolean;
  /** Number of actuators (`nu`): the frame carries `ctrl` (nu floats). */
  nu: number;
  actuators: ActuatorInfo[];
  /** The model's sensors (at most `MAX_SENSORS_LISTED`), for the plots to follow. */
  sensors: SensorInfo[];
}

/** One sensor as the plots list it. */
export interface SensorInfo {
  /** Its name, or its element and id (`framepos 2`). */
  label: string;
  /** Where its values start in `sensordata` (`sensor_adr`), and how many (`sensor_dim`). */
  adr: number;
  dim: number;
}

/** Most sensors the plots list (a model may have thousands; the picker stays usable). */
export const MAX_SENSORS_LISTED = 500;

/** Most contacts a frame carries for drawing (the inspector reads them all). */
export const MAX_DRAW_CONTACTS = 256;
/** Floats per drawn contact: position (3), normal (3), normal force (1). */
export const CONTACT_FLOATS = 7;

/** Where each block sits in a frame buffer (offsets in floats). */
export interface FrameLayout {
  vert: number;
  gpos: number;
  gmat: number;
  node: number;
  /** Passive force at each `forceVerts` vertex (3 each). */
  vforce: number;
  /** The drag spring: anchor point (3), target (3), active flag (1). */
  drag: number;
  /** Number of contacts drawn, then `CONTACT_FLOATS` per contact. */
  con: number;
  /** `mjData.ctrl` as the worker holds it (nu floats), so the Controls panel shows the truth. */
  ctrl: number;
  total: number;
}

export function frameLayout(t: Pick<Topology, 'nflexvert' | 'ngeom' | 'nflexnode' | 'forceVerts' | 'nu'>): FrameLayout {
  const vert = 0;
  const gpos = vert + 3 * t.nflexvert;
  const gmat = gpos + 3 * t.ngeom;
  const node = gmat + 9 * t.ngeom;
  const vforce = node + 3 * t.nflexnode;
  const drag = vforce + 3 * t.forceVerts.length;
  const con = drag + 7;
  const ctrl = con + 1 + CONTACT_FLOATS * MAX_DRAW_CONTACTS;
  const total = ctrl + t.nu;
  return { vert, gpos, gmat, node, vforce, drag, con, ctrl, total };
}

/** A scene parameter value as the URL and the Lesson API carry it. */
export type ParamValue = number | string | boolean;

/** What a drag pulls: a body, from a point fixed in it, toward a world target. */
export interface DragSpec {
  body: number;
  /** World point grabbed, sent when the drag starts; the worker fixes it in the body frame. */
  grab?: [number, number, number];
  target: [number, number, number];
  /** Spring stiffness per unit mass (1/s²). */
  stiffness: number;
}

export type ToWorker =
  | { type: 'load'; xml: string; files: ModelFiles; elastic3d: Record<string, number>; token: number }
  | { type: 'play' }
  | { type: 'pause' }
  | { type: 'step'; n: number }
  | { type: 'reset' }
  | { type: 'speed'; value: number }
  | { type: 'buffer'; buffer: ArrayBuffer }
  | { type: 'drag'; drag: DragSpec | null }
  | { type: 'field'; name: string; id: number }
  | { type: 'probe'; edge: number }
  /** The plots follow `sensordata[from .. from + MAX_SENSOR_SERIES)`. */
  | { type: 'sensor-window'; from: number }
  /** Writes `mjData.ctrl[index]` (a finite value; the engine clamps to ctrlrange when limited). */
  | { type: 'ctrl'; index: number; value: number }
  /** Zeroes every control (MuJoCo simulate's Clear). */
  | { type: 'ctrl-clear' }
  /** Test hook: behave as if the wasm instance had trapped. */
  | { type: 'selftest-crash' };

/** How many values of `sensordata` the plots follow at once (from a sensor's first value). */
export const MAX_SENSOR_SERIES = 8;

/** Numbers the plots follow, measured by the worker each frame. */
export interface Probe {
  /** Potential, kinetic and elastic (all flexes) energy (J). */
  potential: number;
  kinetic: number;
  elastic: number;
  /** Edge lengths over all flex edges (m), and the selected edge (NaN if none). */
  edgeMin: number;
  edgeMean: number;
  edgeMax: number;
  edgeSel: number;
  /** Deepest penetration over the contacts (m, ≥ 0) and the summed normal force (N). */
  penetration: number;
  contactForce: number;
  /** `MAX_SENSOR_SERIES` values of `sensordata` from the plots' window (NaN past its end). */
  sensors: number[];
}

export interface FrameStats {
  time: number;
  /** Simulated seconds per wall second over the last interval. */
  realtime: number;
  stepsPerSecond: number;
  ncon: number;
  nefc: number;
  running: boolean;
  warnings: EngineWarning[];
  /** Set when the state went bad (NaN or MuJoCo's bad-state warnings): physics paused. */
  diverged: string | null;
  probe: Probe;
  /** Steps taken since load (so tests can wait for progress without timing). */
  steps: number;
  /** Messages the worker has handled: a frame reflects every command sent before it. */
  handled: number;
}

export type FromWorker =
  | { type: 'ready'; version: string }
  | { type: 'loaded'; token: number; info: ModelInfo; topology: Topology; fields: { model: string[]; data: string[] } }
  | { type: 'error'; token: number; message: string }
  | { type: 'frame'; buffer: ArrayBuffer; stats: FrameStats }
  | { type: 'field'; id: number; values: Float64Array | null; cols: number; kind: 'model' | 'data' | 'contact'; error?: string }
  | { type: 'crash'; message: string };

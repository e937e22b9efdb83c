/**
 * The typed API over flexlab's wasm engine. The UI (through the worker), the unit tests and the
 * e2e tests all use this module: compile MJCF, step, read fields by MuJoCo's names, and view
 * state arrays such as `flexvert_xpos` directly in wasm memory (no copies).
 */
import init, { initSync, Scene, version, wasm_memory } from '../wasm/flexlab.js';

let ready: Promise<void> | null = null;

/** Loads the wasm module once (browser or worker: fetched next to the JS; node: pass bytes). */
export function loadEngine(bytes?: BufferSource): Promise<void> {
  if (!ready) {
    ready = bytes ? Promise.resolve().then(() => { initSync({ module: bytes }); }) : init().then(() => undefined);
  }
  return ready;
}

/** flexlab's version string. */
export function engineVersion(): string {
  return version();
}

/** Sizes, options and object names of a compiled model. */
export interface ModelInfo {
  name: string;
  sizes: Record<string, number>;
  /**
   * `sparse`: whether MuJoCo keeps the constraint Jacobian sparse (`mj_isSparse`: jacobian
   * "sparse", or "auto" from 60 dofs on); it decides the layout of `efc_J` (see `dataField`).
   */
  options: { timestep: number; integrator: string; solver: string; cone: string; sparse: boolean };
  body: string[];
  flex: string[];
  geom: string[];
  joint: string[];
  /** `names_actuator` and `names_tendon` ('' for unnamed ones). */
  actuator: string[];
  tendon: string[];
  /** Site names (`mjModel.names` of sites). */
  site: string[];
  /** `names_sensor` ('' for unnamed ones). */
  sensor: string[];
  /**
   * Compile warnings (the model loads): MuJoCo 3.15.0's own, and models it crashes on that the
   * engine runs. Each is the message, a newline, then where (element, name, line).
   */
  warnings: string[];
  stat: { center: [number, number, number]; extent: number };
}

/** One MuJoCo warning kind that fired, with its count and MuJoCo's text. */
export interface EngineWarning {
  kind: string;
  count: number;
  text: string;
}

/** One detected contact (MuJoCo's `mjContact`, the fields the lab shows). */
export interface Contact {
  /** Signed distance (m); negative is penetration. */
  dist: number;
  pos: [number, number, number];
  /** Row 0 of the contact frame: the normal, from side 0 to side 1. */
  normal: [number, number, number];
  geom: [number, number];
  flex: [number, number];
  elem: [number, number];
  vert: [number, number];
  dim: number;
  exclude: number;
  efc_address: number;
  /** Pull along the normal (N), from the geoms' or the pair's `adhesion`. */
  adhesion: number;
}

/** Numbers per contact in `Scene.contacts()`. */
export const CONTACT_STRIDE = 19;

/** Decodes contact `o / CONTACT_STRIDE` of a raw contact array. */
export function decodeContact(r: ArrayLike<number>, o: number): Contact {
  return {
    dist: r[o],
    pos: [r[o + 1], r[o + 2], r[o + 3]],
    normal: [r[o + 4], r[o + 5], r[o + 6]],
    geom: [r[o + 7], r[o + 8]],
    flex: [r[o + 9], r[o + 10]],
    elem: [r[o + 11], r[o + 12]],
    vert: [r[o + 13], r[o + 14]],
    dim: r[o + 15],
    exclude: r[o + 16],
    efc_address: r[o + 17],
    adhesion: r[o + 18],
  };
}

/**
 * The normal force of a contact from the constraint forces, as `mj_contactForce` reads it:
 * the first row for frictionless and elliptic contacts, the sum of the pyramid's edge forces
 * for pyramidal ones, less the contact's adhesion (a pulling contact's force is negative).
 * 0 for contacts without rows (excluded or passive).
 */
export function contactNormalForce(efcForce: ArrayLike<number>, c: Pick<Contact, 'dim' | 'efc_address' | 'adhesion'>, pyramidal: boolean): number {
  const a = c.efc_address;
  if (a < 0 || a >= efcForce.length) return 0;
  if (!pyramidal || c.dim === 1) return efcForce[a] - c.adhesion;
  let f = 0;
  for (let k = 0; k < 2 * (c.dim - 1) && a + k < efcForce.length; k++) f += efcForce[a + k];
  return f - c.adhesion;
}

/** Extra files a model refers to (includes, meshes), by the name the MJCF uses. */
export type ModelFiles = Array<[string, string | Uint8Array]>;

/** The arrays of the engine's sparse constraint Jacobian, which MuJoCo fills only when sparse. */
const JACOBIAN_CSR = new Set(['efc_J', 'efc_J_rownnz', 'efc_J_rowadr', 'efc_J_colind']);

/** A compiled scene: one model and its simulation state. */
export class FlexScene {
  private readonly scene: Scene;
  /** Cached zero-copy views, rebuilt if wasm memory ever grows. */
  private views = new Map<string, Float64Array>();
  readonly info: ModelInfo;

  private constructor(scene: Scene) {
    this.scene = scene;
    this.info = JSON.parse(scene.info()) as ModelInfo;
  }

  /**
   * Parses and compiles MJCF. Throws an Error whose message is flexlab's (MuJoCo's words plus
   * file, line, element and attribute).
   */
  static compile(xml: string, files: ModelFiles = [], elastic3d: Record<string, number> = {}): FlexScene {
    // the files travel as one byte buffer with each file's end, text as UTF-8
    const utf8 = new TextEncoder();
    const parts = files.map(([, content]) => (typeof content === 'string' ? utf8.encode(content) : content));
    const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    const ends = new Uint32Array(parts.length);
    let at = 0;
    parts.forEach((p, i) => {
      bytes.set(p, at);
      at += p.length;
      ends[i] = at;
    });
    return new FlexScene(new Scene(xml, files.map(([name]) => name), bytes, ends, JSON.stringify(elastic3d)));
  }

  /** Advances `n` steps (the engine caps one call at 100 000). */
  step(n = 1): number {
    return this.scene.step(n);
  }

  /** Back to the initial state (keyframe 0 if any). */
  reset(): void {
    this.scene.reset();
  }

  /** Recomputes derived quantities without stepping. */
  forward(): void {
    this.scene.forward();
  }

  /** Simulation time (s). */
  get time(): number {
    return this.scene.time();
  }

  /** Time step (s). */
  get timestep(): number {
    return this.scene.timestep();
  }

  /** Contacts and constraint rows of the current state. */
  get ncon(): number {
    return this.scene.ncon();
  }
  get nefc(): number {
    return this.scene.nefc();
  }

  /**
   * A live view of a data array in wasm memory (e.g. `flexvert_xpos`, `qpos`, `geom_xpos`).
   * It reflects every step without copying; do not keep it across `compile` of other scenes.
   * Not for the constraint rows (`efc_*`): their buffers grow when a step has more rows than
   * they hold, and hold more than `nefc`; read those with `dataField`.
   */
  view(name: string): Float64Array {
    if (name.startsWith('efc_')) throw new Error(`${name}: the constraint rows move as they grow; read them with dataField`);
    const buf = (wasm_memory() as WebAssembly.Memory).buffer;
    const cached = this.views.get(name);
    if (cached && cached.buffer === buf) return cached;
    const [ptr, len] = this.scene.data_ptr(name);
    const v = new Float64Array(buf, ptr, len);
    this.views.set(name, v);
    return v;
  }

  /** A model field by MuJoCo name (copied), e.g. `flex_vertadr`, `flex_elem`. */
  modelField(name: string): Float64Array {
    return this.scene.model_field(name);
  }

  /**
   * A data field by MuJoCo name (copied, trimmed to the current rows), laid out as MuJoCo lays
   * it out. The engine always builds the constraint Jacobian sparse (CSR); where MuJoCo keeps it
   * dense (`options.sparse` false), `efc_J` is given as MuJoCo's nefc × nv row-major matrix, and
   * `efc_J_rownnz`, `efc_J_rowadr` and `efc_J_colind`, which MuJoCo then leaves unset (stale
   * memory), as zeros of MuJoCo's lengths (`efc_J_colind` nefc × nv long, as MuJoCo allocates it).
   */
  dataField(name: string): Float64Array {
    const values = this.scene.data_field(name);
    if (this.info.options.sparse || !JACOBIAN_CSR.has(name)) return values;
    const nv = this.info.sizes.nv;
    const nefc = this.nefc;
    if (name === 'efc_J_rownnz' || name === 'efc_J_rowadr') return new Float64Array(nefc);
    const dense = new Float64Array(nefc * nv);
    if (name === 'efc_J_colind') return dense;
    const rownnz = this.scene.data_field('efc_J_rownnz');
    const rowadr = this.scene.data_field('efc_J_rowadr');
    const colind = this.scene.data_field('efc_J_colind');
    for (let r = 0; r < nefc; r++) {
      for (let k = rowadr[r]; k < rowadr[r] + rownnz[r]; k++) dense[r * nv + colind[k]] = values[k];
    }
    return dense;
  }

  /** Values per row of a field (3 for positions, 9 for matrices, …); `nv` for a dense `efc_J`. */
  fieldCols(name: string): number {
    if (!this.info.options.sparse && (name === 'efc_J' || name === 'efc_J_colind')) return this.info.sizes.nv;
    return this.scene.field_cols(name);
  }

  /** Names of all model and data arrays. */
  fieldNames(): { model: string[]; data: string[] } {
    return JSON.parse(this.scene.field_names()) as { model: string[]; data: string[] };
  }

  /** MuJoCo warnings raised so far (bad qacc, too many contacts, …). */
  warnings(): EngineWarning[] {
    return JSON.parse(this.scene.warnings()) as EngineWarning[];
  }

  /**
   * Energies (J) of the current state: `[potential, kinetic, elastic of flex 0, flex 1, …]`.
   * Potential and kinetic are MuJoCo's (`mj_energyPos`/`mj_energyVel`, whatever the `energy`
   * flag); the elastic energy of each flex (stretch and bending) is the one MuJoCo leaves out.
   */
  energies(): Float64Array {
    return this.scene.energies();
  }

  /** The detected contacts (`mjData.contact[:ncon]`), decoded. */
  contacts(): Contact[] {
    const raw = this.scene.contacts();
    const out: Contact[] = [];
    for (let o = 0; o + CONTACT_STRIDE <= raw.length; o += CONTACT_STRIDE) out.push(decodeContact(raw, o));
    return out;
  }

  /** The raw contact array, `CONTACT_STRIDE` numbers per contact (see [[decodeContact]]). */
  contactsRaw(): Float64Array {
    return this.scene.contacts();
  }

  /** Applies a force (N) at a body's centre of mass until cleared. */
  setBodyForce(body: number, f: [number, number, number]): void {
    this.scene.set_body_force(body, f[0], f[1], f[2]);
  }

  clearForces(): void {
    this.scene.clear_forces();
  }

  /** Frees the wasm-side scene. */
  dispose(): void {
    this.views.clear();
    this.scene.free();
  }
}

/**
 * The scene viewer: flexes as real surfaces (2D shaded two-sided, 3D by their boundary
 * `flex_shell`), 1D flexes as tubes, geoms, and on request the flex edges (`flex_edge`),
 * vertices, pins, interpolation nodes, contact points with normals and force arrows, with an
 * orbit camera. MuJoCo is z-up, so the camera is too. Everything drawn per frame is written into
 * buffers made at load, with module-scope scratch objects: the render loop allocates nothing.
 */
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { CONTACT_FLOATS, frameLayout, MAX_DRAW_CONTACTS, type FrameLayout, type Topology } from '../sim/protocol';

const TUBE_SIDES = 8;

/** What the viewer draws beyond the surfaces. */
export interface ViewOptions {
  edges: boolean;
  vertices: boolean;
  pins: boolean;
  nodes: boolean;
  contacts: boolean;
  forces: boolean;
}

export const VIEW_OPTION_KEYS: Array<keyof ViewOptions> = ['edges', 'vertices', 'pins', 'nodes', 'contacts', 'forces'];

/** A MuJoCo free camera: look-at point, distance (m), azimuth and elevation (degrees). */
export interface MjCamera {
  lookat: [number, number, number];
  distance: number;
  azimuth: number;
  elevation: number;
}

interface TubeDraw {
  mesh: THREE.Mesh;
  segments: Uint32Array;
  radius: number;
}

// scratch objects at module scope: the render loop never allocates
const _a = new THREE.Vector3();
const _b = new THREE.Vector3();
const _c = new THREE.Vector3();
const _n = new THREE.Vector3();
const _m = new THREE.Matrix4();
const _p = new THREE.Vector3();
const _t = new THREE.Vector3();
const _u = new THREE.Vector3();
const _w = new THREE.Vector3();
const _q = new THREE.Quaternion();
const _s = new THREE.Vector3();
const _up = new THREE.Vector3(0, 1, 0);
const _ray = new THREE.Raycaster();
const _ndc = new THREE.Vector2();
const _hits: THREE.Intersection[] = [];

/** A fixed-capacity set of arrows (cylinder shaft + cone head) drawn as two instanced meshes. */
class Arrows {
  readonly group = new THREE.Group();
  private shaft: THREE.InstancedMesh;
  private head: THREE.InstancedMesh;
  count = 0;

  constructor(capacity: number, color: number) {
    const mat = new THREE.MeshStandardMaterial({ color, roughness: 0.5 });
    this.shaft = new THREE.InstancedMesh(new THREE.CylinderGeometry(1, 1, 1, 8).translate(0, 0.5, 0), mat, Math.max(1, capacity));
    this.head = new THREE.InstancedMesh(new THREE.ConeGeometry(1, 1, 10).translate(0, 0.5, 0), mat, Math.max(1, capacity));
    for (const m of [this.shaft, this.head]) {
      m.count = 0;
      m.frustumCulled = false;
      this.group.add(m);
    }
  }

  /** Arrow `i` from `from` along `vec` (already scaled to metres); thickness `r` (m). */
  set(i: number, fx: number, fy: number, fz: number, vx: number, vy: number, vz: number, r: number): void {
    const len = Math.hypot(vx, vy, vz);
    if (len < 1e-9) {
      _m.makeScale(0, 0, 0);
      this.shaft.setMatrixAt(i, _m);
      this.head.setMatrixAt(i, _m);
      return;
    }
    _t.set(vx / len, vy / len, vz / len);
    _q.setFromUnitVectors(_up, _t);
    const headLen = Math.min(len * 0.35, 6 * r);
    _p.set(fx, fy, fz);
    _s.set(r, len - headLen, r);
    _m.compose(_p, _q, _s);
    this.shaft.setMatrixAt(i, _m);
    _p.set(fx + _t.x * (len - headLen), fy + _t.y * (len - headLen), fz + _t.z * (len - headLen));
    _s.set(2.5 * r, headLen, 2.5 * r);
    _m.compose(_p, _q, _s);
    this.head.setMatrixAt(i, _m);
  }

  commit(count: number): void {
    this.count = count;
    this.shaft.count = count;
    this.head.count = count;
    this.shaft.instanceMatrix.needsUpdate = true;
    this.head.instanceMatrix.needsUpdate = true;
  }

  dispose(): void {
    this.shaft.geometry.dispose();
    this.head.geometry.dispose();
    (this.shaft.material as THREE.Material).dispose();
    this.shaft.dispose();
    this.head.dispose();
  }
}

export class Viewer {
  readonly renderer: THREE.WebGLRenderer;
  readonly scene = new THREE.Scene();
  readonly camera: THREE.PerspectiveCamera;
  readonly controls: OrbitControls;
  private root = new THREE.Group();
  private topo: Topology | null = null;
  private layout: FrameLayout | null = null;
  private frame: Float32Array | null = null;
  /** Positions and normals of every flex vertex, shared by surfaces, edges and points. */
  private vpos = new Float32Array(0);
  private vnrm = new Float32Array(0);
  private posAttr: THREE.BufferAttribute | null = null;
  private nrmAttr: THREE.BufferAttribute | null = null;
  /** All surface triangles (global vertex ids), for the normals. */
  private allTriangles = new Uint32Array(0);
  private surfaces: THREE.Mesh[] = [];
  private tubes: TubeDraw[] = [];
  private geoms: THREE.Mesh[] = [];
  private wire: THREE.LineSegments | null = null;
  private points: THREE.Points | null = null;
  private nodes: THREE.Points | null = null;
  private pinMesh: THREE.InstancedMesh | null = null;
  private pinIds: number[] = [];
  private contactMesh: THREE.InstancedMesh;
  private normals: Arrows;
  private contactForces: Arrows;
  private vertexForces: Arrows | null = null;
  private dragLine: THREE.Line;
  private dragMarker: THREE.Mesh;
  private dirty = true;
  private options: ViewOptions = { edges: false, vertices: false, pins: true, nodes: false, contacts: false, forces: false };
  private highlight: THREE.Mesh;
  private edgeHighlight: THREE.Mesh;
  private highlightVertex = -1;
  private highlightEdge = -1;
  private highlightGeom = -1;
  private extent = 1;
  private changeListeners: Array<() => void> = [];
  /** Frames rendered (for tests and the status line). */
  frames = 0;

  constructor(private readonly canvas: HTMLCanvasElement) {
    this.renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
    this.scene.background = new THREE.Color(0xeef2f6);
    this.camera = new THREE.PerspectiveCamera(40, 1, 0.005, 100);
    this.camera.up.set(0, 0, 1);
    this.camera.position.set(1.1, -1.3, 0.9);
    this.controls = new OrbitControls(this.camera, canvas);
    this.controls.target.set(0, 0, 0.2);
    this.controls.addEventListener('change', () => {
      this.dirty = true;
      for (const f of this.changeListeners) f();
    });
    this.scene.add(new THREE.HemisphereLight(0xffffff, 0x8090a0, 1.6));
    const sun = new THREE.DirectionalLight(0xffffff, 1.8);
    sun.position.set(1.5, -1, 3);
    this.scene.add(sun);
    this.scene.add(this.root);
    const overlay = new THREE.Group();
    this.scene.add(overlay);
    this.dragMarker = new THREE.Mesh(new THREE.SphereGeometry(1, 12, 8), new THREE.MeshBasicMaterial({ color: 0xff6600 }));
    this.dragMarker.visible = false;
    overlay.add(this.dragMarker);
    const dl = new THREE.BufferGeometry();
    dl.setAttribute('position', new THREE.BufferAttribute(new Float32Array(6), 3).setUsage(THREE.DynamicDrawUsage));
    this.dragLine = new THREE.Line(dl, new THREE.LineBasicMaterial({ color: 0xff6600 }));
    this.dragLine.frustumCulled = false;
    this.dragLine.visible = false;
    overlay.add(this.dragLine);
    this.highlight = new THREE.Mesh(new THREE.SphereGeometry(1, 16, 10), new THREE.MeshBasicMaterial({ color: 0xffb000 }));
    this.highlight.visible = false;
    overlay.add(this.highlight);
    this.edgeHighlight = new THREE.Mesh(new THREE.CylinderGeometry(1, 1, 1, 10).translate(0, 0.5, 0), new THREE.MeshBasicMaterial({ color: 0xffb000 }));
    this.edgeHighlight.visible = false;
    overlay.add(this.edgeHighlight);
    this.contactMesh = new THREE.InstancedMesh(new THREE.SphereGeometry(1, 10, 6), new THREE.MeshBasicMaterial({ color: 0xe0218a }), MAX_DRAW_CONTACTS);
    this.contactMesh.count = 0;
    this.contactMesh.frustumCulled = false;
    overlay.add(this.contactMesh);
    this.normals = new Arrows(MAX_DRAW_CONTACTS, 0xe0218a);
    this.contactForces = new Arrows(MAX_DRAW_CONTACTS, 0x2a9d3a);
    overlay.add(this.normals.group, this.contactForces.group);
    new ResizeObserver(() => this.resize()).observe(canvas);
    this.resize();
  }

  private resize(): void {
    const w = this.canvas.clientWidth || 640;
    const h = this.canvas.clientHeight || 480;
    this.renderer.setSize(w, h, false);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.dirty = true;
  }

  /** Called whenever the student moves the camera. */
  onCameraChange(f: () => void): void {
    this.changeListeners.push(f);
  }

  /** Builds the drawables of a newly compiled scene. */
  setTopology(topo: Topology, center?: [number, number, number], extent?: number): void {
    this.clear();
    this.topo = topo;
    this.layout = frameLayout(topo);
    this.extent = Math.max(extent ?? 1, 0.05);
    const nv = topo.nflexvert;
    this.vpos = new Float32Array(3 * Math.max(nv, 1));
    this.vnrm = new Float32Array(3 * Math.max(nv, 1));
    this.posAttr = new THREE.BufferAttribute(this.vpos, 3).setUsage(THREE.DynamicDrawUsage);
    this.nrmAttr = new THREE.BufferAttribute(this.vnrm, 3).setUsage(THREE.DynamicDrawUsage);
    const tris: number[] = [];
    for (const f of topo.flexes) {
      const color = new THREE.Color(f.rgba[0], f.rgba[1], f.rgba[2]);
      if (f.rgba[0] === 0.5 && f.rgba[1] === 0.5 && f.rgba[2] === 0.5) color.setRGB(0.25, 0.55, 0.85);
      if (f.dim >= 2) {
        const idx = new Uint32Array(f.triangles.length);
        for (let i = 0; i < idx.length; i++) idx[i] = f.vertadr + f.triangles[i];
        for (const v of idx) tris.push(v);
        const g = new THREE.BufferGeometry();
        g.setAttribute('position', this.posAttr);
        g.setAttribute('normal', this.nrmAttr);
        g.setIndex(new THREE.BufferAttribute(idx, 1));
        const mat = new THREE.MeshStandardMaterial({
          color,
          side: THREE.DoubleSide,
          roughness: 0.6,
          metalness: 0.05,
          flatShading: f.dim === 3,
          transparent: f.rgba[3] < 1,
          opacity: f.rgba[3],
          polygonOffset: true,
          polygonOffsetFactor: 1,
          polygonOffsetUnits: 1,
        });
        const mesh = new THREE.Mesh(g, mat);
        mesh.frustumCulled = false;
        this.surfaces.push(mesh);
        this.root.add(mesh);
      } else {
        const segs = new Uint32Array(f.segments.length);
        for (let i = 0; i < segs.length; i++) segs[i] = f.vertadr + f.segments[i];
        const tube = this.makeTube(segs, f.radius, color);
        this.tubes.push(tube);
        this.root.add(tube.mesh);
      }
    }
    this.allTriangles = Uint32Array.from(tris);
    // flex edges (MuJoCo's flex_edge: for 3D flexes these include interior edges)
    if (topo.edges.length) {
      const wg = new THREE.BufferGeometry();
      wg.setAttribute('position', this.posAttr);
      wg.setIndex(new THREE.BufferAttribute(Uint32Array.from(topo.edges), 1));
      this.wire = new THREE.LineSegments(wg, new THREE.LineBasicMaterial({ color: 0x1b2a3a, transparent: true, opacity: 0.55 }));
      this.wire.frustumCulled = false;
      this.root.add(this.wire);
    }
    const pg = new THREE.BufferGeometry();
    pg.setAttribute('position', this.posAttr);
    this.points = new THREE.Points(pg, new THREE.PointsMaterial({ color: 0x102030, size: 5, sizeAttenuation: false }));
    this.points.frustumCulled = false;
    this.root.add(this.points);
    if (topo.nflexnode > 0) {
      const ng = new THREE.BufferGeometry();
      ng.setAttribute('position', new THREE.BufferAttribute(new Float32Array(3 * topo.nflexnode), 3).setUsage(THREE.DynamicDrawUsage));
      this.nodes = new THREE.Points(ng, new THREE.PointsMaterial({ color: 0x8a2be2, size: 9, sizeAttenuation: false }));
      this.nodes.frustumCulled = false;
      this.root.add(this.nodes);
    }
    this.pinIds = [];
    for (const f of topo.flexes) for (const v of f.pinned) this.pinIds.push(f.vertadr + v);
    if (this.pinIds.length) {
      const r = Math.max(0.004, ...topo.flexes.map((f) => f.radius)) * 1.6;
      this.pinMesh = new THREE.InstancedMesh(new THREE.SphereGeometry(r, 12, 8), new THREE.MeshStandardMaterial({ color: 0xd0342c }), this.pinIds.length);
      this.pinMesh.frustumCulled = false;
      this.root.add(this.pinMesh);
    }
    if (topo.forceVerts.length) {
      this.vertexForces = new Arrows(topo.forceVerts.length, 0x7048e8);
      this.root.add(this.vertexForces.group);
    }
    topo.geoms.forEach((g, i) => {
      const obj = this.makeGeom(g.type, g.size, g.rgba, g.mesh);
      obj.userData.geom = i;
      this.geoms.push(obj);
      this.root.add(obj);
    });
    if (center && extent) {
      const e = Math.max(extent, 0.2);
      this.controls.target.set(center[0], center[1], center[2]);
      this.camera.position.set(center[0] + 1.2 * e, center[1] - 1.5 * e, center[2] + 0.9 * e);
      this.controls.update();
    }
    this.applyOptions();
    this.dirty = true;
  }

  private makeTube(segments: Uint32Array, radius: number, color: THREE.Color): TubeDraw {
    const nseg = segments.length / 2;
    const nv = nseg * 2 * TUBE_SIDES;
    const pos = new Float32Array(3 * nv);
    const nrm = new Float32Array(3 * nv);
    const idx = new Uint32Array(nseg * TUBE_SIDES * 6);
    for (let s = 0; s < nseg; s++) {
      for (let k = 0; k < TUBE_SIDES; k++) {
        const a = s * 2 * TUBE_SIDES + k;
        const b = s * 2 * TUBE_SIDES + ((k + 1) % TUBE_SIDES);
        const c = a + TUBE_SIDES;
        const e = b + TUBE_SIDES;
        idx.set([a, b, c, b, e, c], (s * TUBE_SIDES + k) * 6);
      }
    }
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.BufferAttribute(pos, 3).setUsage(THREE.DynamicDrawUsage));
    g.setAttribute('normal', new THREE.BufferAttribute(nrm, 3).setUsage(THREE.DynamicDrawUsage));
    g.setIndex(new THREE.BufferAttribute(idx, 1));
    const mesh = new THREE.Mesh(g, new THREE.MeshStandardMaterial({ color, roughness: 0.5, side: THREE.DoubleSide }));
    mesh.frustumCulled = false;
    return { mesh, segments, radius };
  }

  private makeGeom(type: number, size: [number, number, number], rgba: [number, number, number, number], meshData?: { vert: number[]; face: number[] }): THREE.Mesh {
    const color = new THREE.Color(rgba[0], rgba[1], rgba[2]);
    const mat = new THREE.MeshStandardMaterial({ color, roughness: 0.7, transparent: rgba[3] < 1, opacity: rgba[3] });
    let geo: THREE.BufferGeometry;
    switch (type) {
      case 0: {
        // plane: a finite checker floor (infinite planes drawn 4 m wide)
        const w = size[0] > 0 ? 2 * size[0] : 4;
        const h = size[1] > 0 ? 2 * size[1] : 4;
        const tex = checkerTexture();
        tex.repeat.set(w * 2, h * 2);
        // pushed back in depth so flex lying on the floor (contact) is not hidden by it
        const m = new THREE.MeshStandardMaterial({ map: tex, roughness: 0.9, polygonOffset: true, polygonOffsetFactor: 4, polygonOffsetUnits: 16 });
        const mesh = new THREE.Mesh(new THREE.PlaneGeometry(w, h), m);
        mesh.matrixAutoUpdate = false;
        mesh.userData.plane = true;
        return mesh;
      }
      case 2:
        geo = new THREE.SphereGeometry(size[0], 32, 16);
        break;
      case 3:
        geo = new THREE.CapsuleGeometry(size[0], 2 * size[1], 8, 24).rotateX(Math.PI / 2);
        break;
      case 4:
        geo = new THREE.SphereGeometry(1, 32, 16).scale(size[0], size[1], size[2]);
        break;
      case 5:
        geo = new THREE.CylinderGeometry(size[0], size[0], 2 * size[1], 32).rotateX(Math.PI / 2);
        break;
      case 6:
        geo = new THREE.BoxGeometry(2 * size[0], 2 * size[1], 2 * size[2]);
        break;
      case 7:
      case 8:
        if (meshData && meshData.face.length) {
          geo = new THREE.BufferGeometry();
          geo.setAttribute('position', new THREE.BufferAttribute(Float32Array.from(meshData.vert), 3));
          geo.setIndex(Array.from(meshData.face));
          geo = geo.toNonIndexed();
          geo.computeVertexNormals();
          break;
        }
        geo = new THREE.SphereGeometry(0.01, 8, 6);
        break;
      default:
        geo = new THREE.SphereGeometry(0.01, 8, 6);
    }
    const mesh = new THREE.Mesh(geo, mat);
    mesh.matrixAutoUpdate = false;
    return mesh;
  }

  private clear(): void {
    for (const c of [...this.root.children]) {
      this.root.remove(c);
      c.traverse((o) => {
        const mesh = o as THREE.Mesh;
        mesh.geometry?.dispose();
        const mat = mesh.material as THREE.Material | THREE.Material[] | undefined;
        if (Array.isArray(mat)) mat.forEach((m) => m.dispose());
        else mat?.dispose();
      });
    }
    this.surfaces = [];
    this.tubes = [];
    this.geoms = [];
    this.wire = null;
    this.points = null;
    this.nodes = null;
    this.pinMesh = null;
    this.vertexForces?.dispose();
    this.vertexForces = null;
    this.frame = null;
    this.highlightVertex = -1;
    this.highlightEdge = -1;
    this.highlightGeom = -1;
  }

  /** Takes the newest frame (positions, poses, contacts, forces) from the worker. */
  setFrame(data: Float32Array): void {
    this.frame = data;
    this.dirty = true;
  }

  getOptions(): ViewOptions {
    return { ...this.options };
  }

  setOptions(o: Partial<ViewOptions>): void {
    Object.assign(this.options, o);
    this.applyOptions();
  }

  private applyOptions(): void {
    const o = this.options;
    if (this.wire) this.wire.visible = o.edges;
    if (this.points) this.points.visible = o.vertices;
    if (this.nodes) this.nodes.visible = o.nodes;
    if (this.pinMesh) this.pinMesh.visible = o.pins;
    this.contactMesh.visible = o.contacts;
    this.normals.group.visible = o.contacts;
    this.contactForces.group.visible = o.forces;
    if (this.vertexForces) this.vertexForces.group.visible = o.forces;
    this.dirty = true;
  }

  /** Highlights one global flex vertex (−1 to clear). */
  highlightVertexId(v: number): void {
    this.highlightVertex = v;
    this.dirty = true;
  }

  /** Highlights one global flex edge (−1 to clear). */
  highlightEdgeId(e: number): void {
    this.highlightEdge = e;
    this.dirty = true;
  }

  /** Highlights one geom (−1 to clear). */
  highlightGeomId(g: number): void {
    if (this.highlightGeom >= 0) this.setEmissive(this.highlightGeom, 0x000000);
    this.highlightGeom = g;
    if (g >= 0) this.setEmissive(g, 0x996600);
    this.dirty = true;
  }

  private setEmissive(g: number, color: number): void {
    const mat = this.geoms[g]?.material as THREE.MeshStandardMaterial | undefined;
    mat?.emissive.setHex(color);
  }

  /** World position of global vertex `v` in the latest frame. */
  vertexPosition(v: number, out: THREE.Vector3): boolean {
    if (!this.frame || !this.topo || v < 0 || v >= this.topo.nflexvert) return false;
    out.set(this.frame[3 * v], this.frame[3 * v + 1], this.frame[3 * v + 2]);
    return true;
  }

  /** World position of interpolation node `n` in the latest frame. */
  nodePosition(n: number, out: THREE.Vector3): boolean {
    if (!this.frame || !this.topo || !this.layout || n < 0 || n >= this.topo.nflexnode) return false;
    const o = this.layout.node + 3 * n;
    out.set(this.frame[o], this.frame[o + 1], this.frame[o + 2]);
    return true;
  }

  /** World position of geom `g` in the latest frame. */
  geomPosition(g: number, out: THREE.Vector3): boolean {
    if (!this.frame || !this.topo || !this.layout || g < 0 || g >= this.topo.ngeom) return false;
    const o = this.layout.gpos + 3 * g;
    out.set(this.frame[o], this.frame[o + 1], this.frame[o + 2]);
    return true;
  }

  /** Client (CSS pixel) coordinates of a world point, for tests and labels. */
  project(p: THREE.Vector3): { x: number; y: number } {
    const rect = this.canvas.getBoundingClientRect();
    _a.copy(p).project(this.camera);
    return { x: rect.left + ((_a.x + 1) / 2) * rect.width, y: rect.top + ((1 - _a.y) / 2) * rect.height };
  }

  private update(): void {
    const fr = this.frame;
    const topo = this.topo;
    const L = this.layout;
    if (!fr || !topo || !L) return;
    const nv3 = 3 * topo.nflexvert;
    for (let i = 0; i < nv3; i++) this.vpos[i] = fr[L.vert + i];
    if (this.posAttr) this.posAttr.needsUpdate = true;
    if (this.surfaces.length) {
      computeNormals(this.vpos, this.allTriangles, this.vnrm);
      if (this.nrmAttr) this.nrmAttr.needsUpdate = true;
    }
    for (const t of this.tubes) updateTube(t, this.vpos);
    if (this.nodes) {
      const attr = this.nodes.geometry.getAttribute('position') as THREE.BufferAttribute;
      const arr = attr.array as Float32Array;
      for (let i = 0; i < arr.length; i++) arr[i] = fr[L.node + i];
      attr.needsUpdate = true;
    }
    if (this.pinMesh) {
      for (let i = 0; i < this.pinIds.length; i++) {
        const v = this.pinIds[i];
        _m.makeTranslation(fr[3 * v], fr[3 * v + 1], fr[3 * v + 2]);
        this.pinMesh.setMatrixAt(i, _m);
      }
      this.pinMesh.instanceMatrix.needsUpdate = true;
    }
    for (let g = 0; g < this.geoms.length; g++) {
      const o = L.gmat + 9 * g;
      const p = L.gpos + 3 * g;
      _m.set(fr[o], fr[o + 1], fr[o + 2], fr[p], fr[o + 3], fr[o + 4], fr[o + 5], fr[p + 1], fr[o + 6], fr[o + 7], fr[o + 8], fr[p + 2], 0, 0, 0, 1);
      this.geoms[g].matrix.copy(_m);
      this.geoms[g].matrixWorldNeedsUpdate = true;
    }
    const scale = 0.05 * this.extent;
    const thin = 0.004 * this.extent;
    // contacts: points and normals, and normal forces (scaled to the largest)
    const ncon = Math.min(fr[L.con] | 0, MAX_DRAW_CONTACTS);
    let fmax = 0;
    for (let i = 0; i < ncon; i++) fmax = Math.max(fmax, Math.abs(fr[L.con + 1 + CONTACT_FLOATS * i + 6]));
    for (let i = 0; i < ncon; i++) {
      const b = L.con + 1 + CONTACT_FLOATS * i;
      _m.makeScale(thin * 1.5, thin * 1.5, thin * 1.5).setPosition(fr[b], fr[b + 1], fr[b + 2]);
      this.contactMesh.setMatrixAt(i, _m);
      this.normals.set(i, fr[b], fr[b + 1], fr[b + 2], scale * fr[b + 3], scale * fr[b + 4], scale * fr[b + 5], thin * 0.4);
      const f = fmax > 0 ? (2 * scale * fr[b + 6]) / fmax : 0;
      this.contactForces.set(i, fr[b], fr[b + 1], fr[b + 2], f * fr[b + 3], f * fr[b + 4], f * fr[b + 5], thin * 0.6);
    }
    this.contactMesh.count = ncon;
    this.contactMesh.instanceMatrix.needsUpdate = true;
    this.normals.commit(ncon);
    this.contactForces.commit(ncon);
    // passive force on each vertex, scaled to the largest
    if (this.vertexForces) {
      const n = topo.forceVerts.length;
      let vmax = 0;
      for (let i = 0; i < n; i++) vmax = Math.max(vmax, Math.hypot(fr[L.vforce + 3 * i], fr[L.vforce + 3 * i + 1], fr[L.vforce + 3 * i + 2]));
      const k = vmax > 0 ? (2 * scale) / vmax : 0;
      for (let i = 0; i < n; i++) {
        const v = topo.forceVerts[i];
        const o = L.vforce + 3 * i;
        this.vertexForces.set(i, fr[3 * v], fr[3 * v + 1], fr[3 * v + 2], k * fr[o], k * fr[o + 1], k * fr[o + 2], thin * 0.5);
      }
      this.vertexForces.commit(n);
    }
    // the drag spring, from the grabbed point to the cursor target
    if (fr[L.drag + 6] > 0) {
      const arr = this.dragLine.geometry.getAttribute('position') as THREE.BufferAttribute;
      for (let i = 0; i < 6; i++) (arr.array as Float32Array)[i] = fr[L.drag + i];
      arr.needsUpdate = true;
      this.dragLine.visible = true;
      this.dragMarker.visible = true;
      this.dragMarker.position.set(fr[L.drag + 3], fr[L.drag + 4], fr[L.drag + 5]);
      this.dragMarker.scale.setScalar(thin * 2);
    } else {
      this.dragLine.visible = false;
    }
    const hr = Math.max(thin * 2, (topo.flexes[0]?.radius ?? 0) * 2.2);
    if (this.highlightVertex >= 0 && this.vertexPosition(this.highlightVertex, _p)) {
      this.highlight.visible = true;
      this.highlight.position.copy(_p);
      this.highlight.scale.setScalar(hr);
    } else {
      this.highlight.visible = false;
    }
    const e = this.highlightEdge;
    if (e >= 0 && 2 * e + 1 < topo.edges.length && this.vertexPosition(topo.edges[2 * e], _b) && this.vertexPosition(topo.edges[2 * e + 1], _c)) {
      _t.copy(_c).sub(_b);
      const len = _t.length();
      _q.setFromUnitVectors(_up, _t.normalize());
      _s.set(hr * 0.5, len, hr * 0.5);
      _m.compose(_b, _q, _s);
      this.edgeHighlight.matrix.copy(_m);
      this.edgeHighlight.matrixAutoUpdate = false;
      this.edgeHighlight.matrixWorldNeedsUpdate = true;
      this.edgeHighlight.visible = true;
    } else {
      this.edgeHighlight.visible = false;
    }
  }

  /** Renders if anything changed; returns true when a frame was drawn. */
  render(): boolean {
    if (!this.dirty) return false;
    this.dirty = false;
    this.update();
    this.renderer.render(this.scene, this.camera);
    this.frames++;
    return true;
  }

  private setRay(clientX: number, clientY: number): void {
    const rect = this.canvas.getBoundingClientRect();
    _ndc.set(((clientX - rect.left) / rect.width) * 2 - 1, -((clientY - rect.top) / rect.height) * 2 + 1);
    _ray.setFromCamera(_ndc, this.camera);
  }

  /**
   * What is under a canvas point: the nearest flex vertex close to the ray, else the first geom
   * hit (not planes). Returns the vertex or geom id and writes the hit point.
   */
  pick(clientX: number, clientY: number, hit: THREE.Vector3): { vertex: number; geom: number; node: number } {
    const none = { vertex: -1, geom: -1, node: -1 };
    if (!this.frame || !this.topo || !this.layout) return none;
    this.setRay(clientX, clientY);
    let best = -1;
    let node = -1;
    let bestDepth = Infinity;
    const ray = _ray.ray;
    const near = (o: number): number => {
      _a.set(this.frame![o], this.frame![o + 1], this.frame![o + 2]);
      const dist = ray.distanceSqToPoint(_a);
      const depth = _b.copy(_a).sub(ray.origin).dot(ray.direction);
      const tol = 0.03 * Math.max(depth, 0.1);
      return dist < tol * tol ? depth : Infinity;
    };
    for (let v = 0; v < this.topo.nflexvert; v++) {
      const depth = near(3 * v);
      if (depth < bestDepth && this.topo.vertbody[v] >= 0) {
        bestDepth = depth;
        best = v;
        hit.copy(_a);
      }
    }
    // interpolation nodes carry the dofs of interpolated flexes: grab them when shown
    if (this.options.nodes) {
      for (let n = 0; n < this.topo.nflexnode; n++) {
        const depth = near(this.layout.node + 3 * n);
        if (depth < bestDepth) {
          bestDepth = depth;
          best = -1;
          node = n;
          hit.copy(_a);
        }
      }
    }
    _hits.length = 0;
    for (const g of this.geoms) {
      if (g.userData.plane) continue;
      g.updateMatrixWorld();
      g.raycast(_ray, _hits);
    }
    let geom = -1;
    for (const h of _hits) {
      if (h.distance < bestDepth - 1e-6) {
        bestDepth = h.distance;
        geom = h.object.userData.geom as number;
        hit.copy(h.point);
        best = -1;
        node = -1;
      }
    }
    if (best >= 0) return { vertex: best, geom: -1, node: -1 };
    if (node >= 0) return { vertex: -1, geom: -1, node };
    return geom >= 0 ? { vertex: -1, geom, node: -1 } : none;
  }

  /** Point where the camera ray meets the plane through `anchor` facing the camera. */
  dragPoint(clientX: number, clientY: number, anchor: THREE.Vector3, out: THREE.Vector3): boolean {
    this.setRay(clientX, clientY);
    this.camera.getWorldDirection(_n);
    const denom = _ray.ray.direction.dot(_n);
    if (Math.abs(denom) < 1e-9) return false;
    const t = _c.copy(anchor).sub(_ray.ray.origin).dot(_n) / denom;
    out.copy(_ray.ray.direction).multiplyScalar(t).add(_ray.ray.origin);
    return true;
  }

  showDragMarker(p: THREE.Vector3 | null): void {
    this.dragMarker.visible = !!p;
    if (p) {
      this.dragMarker.position.copy(p);
      this.dragMarker.scale.setScalar(0.008 * this.extent);
    }
    this.dirty = true;
  }

  /** Camera for URLs: target and position (mm precision). */
  cameraState(): number[] {
    const t = this.controls.target;
    const p = this.camera.position;
    return [t.x, t.y, t.z, p.x, p.y, p.z].map((x) => Math.round(x * 1000) / 1000);
  }

  setCameraState(s: number[]): boolean {
    if (s.length !== 6 || s.some((x) => !Number.isFinite(x))) return false;
    this.controls.target.set(s[0], s[1], s[2]);
    this.camera.position.set(s[3], s[4], s[5]);
    this.controls.update();
    this.dirty = true;
    return true;
  }

  /** Places the camera as MuJoCo's free camera would (lookat, distance, azimuth, elevation). */
  setMjCamera(c: MjCamera): void {
    const az = (c.azimuth * Math.PI) / 180;
    const el = (c.elevation * Math.PI) / 180;
    const fx = Math.cos(el) * Math.cos(az), fy = Math.cos(el) * Math.sin(az), fz = Math.sin(el);
    const [x, y, z] = c.lookat;
    this.setCameraState([x, y, z, x - c.distance * fx, y - c.distance * fy, z - c.distance * fz]);
  }
}

/** Area-weighted vertex normals of the triangles, written in place (other vertices get 0). */
function computeNormals(pos: Float32Array, tri: Uint32Array, out: Float32Array): void {
  out.fill(0);
  for (let t = 0; t < tri.length; t += 3) {
    const i = 3 * tri[t], j = 3 * tri[t + 1], k = 3 * tri[t + 2];
    _a.set(pos[j] - pos[i], pos[j + 1] - pos[i + 1], pos[j + 2] - pos[i + 2]);
    _b.set(pos[k] - pos[i], pos[k + 1] - pos[i + 1], pos[k + 2] - pos[i + 2]);
    _n.crossVectors(_a, _b);
    out[i] += _n.x; out[i + 1] += _n.y; out[i + 2] += _n.z;
    out[j] += _n.x; out[j + 1] += _n.y; out[j + 2] += _n.z;
    out[k] += _n.x; out[k + 1] += _n.y; out[k + 2] += _n.z;
  }
  for (let v = 0; v < out.length; v += 3) {
    const l = Math.hypot(out[v], out[v + 1], out[v + 2]);
    if (l > 0) {
      out[v] /= l;
      out[v + 1] /= l;
      out[v + 2] /= l;
    }
  }
}

/** Rings of TUBE_SIDES vertices at both ends of each segment. */
function updateTube(d: TubeDraw, vpos: Float32Array): void {
  const g = d.mesh.geometry;
  const pos = g.getAttribute('position').array as Float32Array;
  const nrm = g.getAttribute('normal').array as Float32Array;
  const r = Math.max(d.radius, 0.002);
  const nseg = d.segments.length / 2;
  for (let s = 0; s < nseg; s++) {
    const i = 3 * d.segments[2 * s], j = 3 * d.segments[2 * s + 1];
    _a.set(vpos[i], vpos[i + 1], vpos[i + 2]);
    _b.set(vpos[j], vpos[j + 1], vpos[j + 2]);
    _t.copy(_b).sub(_a).normalize();
    _u.set(0, 0, 1);
    if (Math.abs(_t.dot(_u)) > 0.9) _u.set(1, 0, 0);
    _u.cross(_t).normalize();
    _w.crossVectors(_t, _u);
    for (let end = 0; end < 2; end++) {
      const c = end === 0 ? _a : _b;
      for (let k = 0; k < TUBE_SIDES; k++) {
        const ang = (2 * Math.PI * k) / TUBE_SIDES;
        const cs = Math.cos(ang), sn = Math.sin(ang);
        const o = 3 * (s * 2 * TUBE_SIDES + end * TUBE_SIDES + k);
        const nx = _u.x * cs + _w.x * sn, ny = _u.y * cs + _w.y * sn, nz = _u.z * cs + _w.z * sn;
        nrm[o] = nx; nrm[o + 1] = ny; nrm[o + 2] = nz;
        pos[o] = c.x + r * nx; pos[o + 1] = c.y + r * ny; pos[o + 2] = c.z + r * nz;
      }
    }
  }
  g.getAttribute('position').needsUpdate = true;
  g.getAttribute('normal').needsUpdate = true;
}

let checker: THREE.Texture | null = null;
function checkerTexture(): THREE.Texture {
  if (checker) return checker.clone();
  const c = document.createElement('canvas');
  c.width = c.height = 64;
  const ctx = c.getContext('2d') as CanvasRenderingContext2D;
  ctx.fillStyle = '#c9d3dd';
  ctx.fillRect(0, 0, 64, 64);
  ctx.fillStyle = '#b3c0cc';
  ctx.fillRect(0, 0, 32, 32);
  ctx.fillRect(32, 32, 32, 32);
  checker = new THREE.CanvasTexture(c);
  checker.wrapS = checker.wrapT = THREE.RepeatWrapping;
  checker.colorSpace = THREE.SRGBColorSpace;
  return checker.clone();
}

/** Exposed for unit tests of the geometry helpers. */
export const _internal = { computeNormals };

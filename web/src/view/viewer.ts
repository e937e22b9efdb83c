/**
 * The scene viewer: flexes as real surfaces (2D shaded two-sided, 3D by their boundary), 1D
 * flexes as tubes, geoms, pins and vertices, with an orbit camera. MuJoCo is z-up, so the
 * camera is too. Every per-frame update writes into buffers made at load: no allocation.
 */
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import type { Topology } from '../sim/protocol';

const TUBE_SIDES = 8;

/** What the viewer draws beyond the surfaces. */
export interface ViewOptions {
  edges: boolean;
  vertices: boolean;
  pins: boolean;
}

interface FlexDraw {
  vertadr: number;
  vertnum: number;
  dim: number;
  mesh: THREE.Mesh | null;
  positions: Float32Array;
  normals: Float32Array;
  triangles: Uint32Array;
  wire: THREE.LineSegments | null;
  tube: THREE.Mesh | null;
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
const _ray = new THREE.Raycaster();
const _ndc = new THREE.Vector2();

export class Viewer {
  readonly renderer: THREE.WebGLRenderer;
  readonly scene = new THREE.Scene();
  readonly camera: THREE.PerspectiveCamera;
  readonly controls: OrbitControls;
  private root = new THREE.Group();
  private flexes: FlexDraw[] = [];
  private geoms: THREE.Object3D[] = [];
  private topo: Topology | null = null;
  private frame: Float32Array | null = null;
  private points: THREE.Points | null = null;
  private pinMesh: THREE.InstancedMesh | null = null;
  private pinIds: number[] = [];
  private dragMarker: THREE.Mesh;
  private dirty = true;
  private options: ViewOptions = { edges: false, vertices: false, pins: true };
  private highlight: THREE.Mesh;
  private highlightVertex = -1;
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
    this.controls.addEventListener('change', () => (this.dirty = true));
    this.scene.add(new THREE.HemisphereLight(0xffffff, 0x8090a0, 1.6));
    const sun = new THREE.DirectionalLight(0xffffff, 1.8);
    sun.position.set(1.5, -1, 3);
    this.scene.add(sun);
    this.scene.add(this.root);
    this.dragMarker = new THREE.Mesh(new THREE.SphereGeometry(0.008, 12, 8), new THREE.MeshBasicMaterial({ color: 0xff6600 }));
    this.dragMarker.visible = false;
    this.scene.add(this.dragMarker);
    this.highlight = new THREE.Mesh(new THREE.SphereGeometry(1, 16, 10), new THREE.MeshBasicMaterial({ color: 0xffcc00 }));
    this.highlight.visible = false;
    this.scene.add(this.highlight);
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

  /** Builds the drawables of a newly compiled scene. */
  setTopology(topo: Topology, center?: [number, number, number], extent?: number): void {
    this.clear();
    this.topo = topo;
    for (const f of topo.flexes) {
      const color = new THREE.Color(f.rgba[0], f.rgba[1], f.rgba[2]);
      if (f.rgba[0] === 0.5 && f.rgba[1] === 0.5 && f.rgba[2] === 0.5) color.setRGB(0.25, 0.55, 0.85);
      const d: FlexDraw = {
        vertadr: f.vertadr,
        vertnum: f.vertnum,
        dim: f.dim,
        mesh: null,
        positions: new Float32Array(3 * f.vertnum),
        normals: new Float32Array(3 * f.vertnum),
        triangles: Uint32Array.from(f.triangles),
        wire: null,
        tube: null,
        segments: Uint32Array.from(f.segments),
        radius: f.radius,
      };
      if (f.dim >= 2) {
        const g = new THREE.BufferGeometry();
        g.setAttribute('position', new THREE.BufferAttribute(d.positions, 3).setUsage(THREE.DynamicDrawUsage));
        g.setAttribute('normal', new THREE.BufferAttribute(d.normals, 3).setUsage(THREE.DynamicDrawUsage));
        g.setIndex(new THREE.BufferAttribute(d.triangles, 1));
        const mat = new THREE.MeshStandardMaterial({ color, side: THREE.DoubleSide, roughness: 0.6, metalness: 0.05, flatShading: f.dim === 3 });
        d.mesh = new THREE.Mesh(g, mat);
        d.mesh.frustumCulled = false;
        d.mesh.userData.flex = this.flexes.length;
        this.root.add(d.mesh);
        const edges = new Uint32Array(d.triangles.length * 2);
        for (let t = 0; t < d.triangles.length / 3; t++) {
          for (let k = 0; k < 3; k++) {
            edges[6 * t + 2 * k] = d.triangles[3 * t + k];
            edges[6 * t + 2 * k + 1] = d.triangles[3 * t + ((k + 1) % 3)];
          }
        }
        const wg = new THREE.BufferGeometry();
        wg.setAttribute('position', g.getAttribute('position'));
        wg.setIndex(new THREE.BufferAttribute(edges, 1));
        d.wire = new THREE.LineSegments(wg, new THREE.LineBasicMaterial({ color: 0x1b2a3a, transparent: true, opacity: 0.5 }));
        d.wire.frustumCulled = false;
        d.wire.visible = this.options.edges;
        this.root.add(d.wire);
      } else {
        d.tube = this.makeTube(d, color);
        this.root.add(d.tube);
      }
      this.flexes.push(d);
    }
    // vertex points (all flexes)
    const pg = new THREE.BufferGeometry();
    pg.setAttribute('position', new THREE.BufferAttribute(new Float32Array(3 * topo.nflexvert), 3).setUsage(THREE.DynamicDrawUsage));
    this.points = new THREE.Points(pg, new THREE.PointsMaterial({ color: 0x102030, size: 5, sizeAttenuation: false }));
    this.points.frustumCulled = false;
    this.points.visible = this.options.vertices;
    this.root.add(this.points);
    // pins
    this.pinIds = [];
    for (const f of topo.flexes) for (const v of f.pinned) this.pinIds.push(f.vertadr + v);
    if (this.pinIds.length) {
      const r = Math.max(0.004, ...topo.flexes.map((f) => f.radius)) * 1.6;
      this.pinMesh = new THREE.InstancedMesh(new THREE.SphereGeometry(r, 12, 8), new THREE.MeshStandardMaterial({ color: 0xd0342c }), this.pinIds.length);
      this.pinMesh.frustumCulled = false;
      this.pinMesh.visible = this.options.pins;
      this.root.add(this.pinMesh);
    }
    for (const g of topo.geoms) {
      const obj = this.makeGeom(g.type, g.size, g.rgba);
      this.geoms.push(obj);
      this.root.add(obj);
    }
    if (center && extent) {
      const e = Math.max(extent, 0.2);
      this.controls.target.set(center[0], center[1], center[2]);
      this.camera.position.set(center[0] + 1.2 * e, center[1] - 1.5 * e, center[2] + 0.9 * e);
      this.controls.update();
    }
    this.dirty = true;
  }

  private makeTube(d: FlexDraw, color: THREE.Color): THREE.Mesh {
    const nseg = d.segments.length / 2;
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
    return mesh;
  }

  private makeGeom(type: number, size: [number, number, number], rgba: [number, number, number, number]): THREE.Object3D {
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
        const m = new THREE.MeshStandardMaterial({ map: tex, roughness: 0.9 });
        const mesh = new THREE.Mesh(new THREE.PlaneGeometry(w, h), m);
        mesh.matrixAutoUpdate = false;
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
    this.flexes = [];
    this.geoms = [];
    this.points = null;
    this.pinMesh = null;
    this.frame = null;
  }

  /** Takes the newest frame (positions and geom poses) from the worker. */
  setFrame(data: Float32Array): void {
    this.frame = data;
    this.dirty = true;
  }

  setOptions(o: Partial<ViewOptions>): void {
    Object.assign(this.options, o);
    for (const f of this.flexes) if (f.wire) f.wire.visible = this.options.edges;
    if (this.points) this.points.visible = this.options.vertices;
    if (this.pinMesh) this.pinMesh.visible = this.options.pins;
    this.dirty = true;
  }

  /** Highlights one global flex vertex (−1 to clear). */
  highlightVertexId(v: number): void {
    this.highlightVertex = v;
    this.dirty = true;
  }

  /** World position of global vertex `v` in the latest frame. */
  vertexPosition(v: number, out: THREE.Vector3): boolean {
    if (!this.frame || !this.topo || v < 0 || v >= this.topo.nflexvert) return false;
    out.set(this.frame[3 * v], this.frame[3 * v + 1], this.frame[3 * v + 2]);
    return true;
  }

  private update(): void {
    const fr = this.frame;
    const topo = this.topo;
    if (!fr || !topo) return;
    for (const d of this.flexes) {
      const src = 3 * d.vertadr;
      for (let i = 0; i < 3 * d.vertnum; i++) d.positions[i] = fr[src + i];
      if (d.mesh) {
        computeNormals(d.positions, d.triangles, d.normals);
        const g = d.mesh.geometry;
        g.getAttribute('position').needsUpdate = true;
        g.getAttribute('normal').needsUpdate = true;
      } else if (d.tube) {
        updateTube(d);
      }
    }
    if (this.points) {
      const attr = this.points.geometry.getAttribute('position') as THREE.BufferAttribute;
      (attr.array as Float32Array).set(fr.subarray(0, 3 * topo.nflexvert));
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
    const gpos = 3 * topo.nflexvert;
    const gmat = gpos + 3 * topo.ngeom;
    for (let g = 0; g < this.geoms.length; g++) {
      const o = gmat + 9 * g;
      _m.set(fr[o], fr[o + 1], fr[o + 2], fr[gpos + 3 * g], fr[o + 3], fr[o + 4], fr[o + 5], fr[gpos + 3 * g + 1], fr[o + 6], fr[o + 7], fr[o + 8], fr[gpos + 3 * g + 2], 0, 0, 0, 1);
      this.geoms[g].matrix.copy(_m);
      this.geoms[g].matrixWorldNeedsUpdate = true;
    }
    if (this.highlightVertex >= 0 && this.vertexPosition(this.highlightVertex, _p)) {
      this.highlight.visible = true;
      this.highlight.position.copy(_p);
      const r = Math.max(0.006, (topo.flexes[0]?.radius ?? 0.005) * 2.5);
      this.highlight.scale.set(r, r, r);
    } else {
      this.highlight.visible = false;
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

  /** Nearest flex vertex under a canvas point, with the hit position. */
  pick(clientX: number, clientY: number, hit: THREE.Vector3): number {
    if (!this.frame || !this.topo) return -1;
    const rect = this.canvas.getBoundingClientRect();
    _ndc.set(((clientX - rect.left) / rect.width) * 2 - 1, -((clientY - rect.top) / rect.height) * 2 + 1);
    _ray.setFromCamera(_ndc, this.camera);
    // closest vertex to the ray within a screen-independent tolerance
    let best = -1;
    let bestD = Infinity;
    const ray = _ray.ray;
    for (const d of this.flexes) {
      for (let v = 0; v < d.vertnum; v++) {
        const gv = d.vertadr + v;
        _a.set(this.frame[3 * gv], this.frame[3 * gv + 1], this.frame[3 * gv + 2]);
        const dist = ray.distanceSqToPoint(_a);
        const depth = _b.copy(_a).sub(ray.origin).dot(ray.direction);
        const tol = 0.03 * Math.max(depth, 0.1);
        if (dist < tol * tol && dist < bestD) {
          bestD = dist;
          best = gv;
          hit.copy(_a);
        }
      }
    }
    return best;
  }

  /** Point where the camera ray meets the plane through `anchor` facing the camera. */
  dragPoint(clientX: number, clientY: number, anchor: THREE.Vector3, out: THREE.Vector3): boolean {
    const rect = this.canvas.getBoundingClientRect();
    _ndc.set(((clientX - rect.left) / rect.width) * 2 - 1, -((clientY - rect.top) / rect.height) * 2 + 1);
    _ray.setFromCamera(_ndc, this.camera);
    this.camera.getWorldDirection(_n);
    const denom = _ray.ray.direction.dot(_n);
    if (Math.abs(denom) < 1e-9) return false;
    const t = _c.copy(anchor).sub(_ray.ray.origin).dot(_n) / denom;
    out.copy(_ray.ray.direction).multiplyScalar(t).add(_ray.ray.origin);
    return true;
  }

  showDragMarker(p: THREE.Vector3 | null): void {
    this.dragMarker.visible = !!p;
    if (p) this.dragMarker.position.copy(p);
    this.dirty = true;
  }

  /** Camera as a compact string for URLs: target and position. */
  cameraState(): number[] {
    const t = this.controls.target;
    const p = this.camera.position;
    return [t.x, t.y, t.z, p.x, p.y, p.z].map((x) => Math.round(x * 1000) / 1000);
  }

  setCameraState(s: number[]): void {
    if (s.length !== 6 || s.some((x) => !Number.isFinite(x))) return;
    this.controls.target.set(s[0], s[1], s[2]);
    this.camera.position.set(s[3], s[4], s[5]);
    this.controls.update();
    this.dirty = true;
  }
}

/** Area-weighted vertex normals, written in place. */
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
    const l = Math.hypot(out[v], out[v + 1], out[v + 2]) || 1;
    out[v] /= l;
    out[v + 1] /= l;
    out[v + 2] /= l;
  }
}

/** Rings of TUBE_SIDES vertices at both ends of each segment. */
function updateTube(d: FlexDraw): void {
  const g = (d.tube as THREE.Mesh).geometry;
  const pos = g.getAttribute('position').array as Float32Array;
  const nrm = g.getAttribute('normal').array as Float32Array;
  const r = Math.max(d.radius, 0.002);
  const nseg = d.segments.length / 2;
  for (let s = 0; s < nseg; s++) {
    const i = 3 * d.segments[2 * s], j = 3 * d.segments[2 * s + 1];
    _a.set(d.positions[i], d.positions[i + 1], d.positions[i + 2]);
    _b.set(d.positions[j], d.positions[j + 1], d.positions[j + 2]);
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

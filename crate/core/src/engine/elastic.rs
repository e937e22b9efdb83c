//! Flex elasticity forces of vertex flexes (MuJoCo 3.15.0's `mj_flexPassiveStretch`,
//! `mj_flexPassiveBend`): StVK on squared edge lengths, Stable Neo-Hookean tetrahedra,
//! discrete-shell bending, and Rayleigh damping; plus the cached PSD stretch Hessian that the
//! effective metric and SNH damping share. Forces are computed per vertex in world space and
//! mapped to generalized forces through the vertex Jacobians (gather/scatter), so pins on
//! moving bodies receive their reaction forces and torques.

use super::jacobian::point_col;
use super::Scratch;
use crate::data::Data;
use crate::model::Model;

/// Local edges of triangles and tetrahedra in the compiler's stiffness order.
pub const STRETCH_EDGES: [[[usize; 2]; 6]; 2] = [
    [[1, 2], [2, 0], [0, 1], [0, 0], [0, 0], [0, 0]],
    [[0, 1], [1, 2], [2, 0], [2, 3], [0, 3], [1, 3]],
];

/// Buffers for the elastic forces and the per-flex stretch Hessian cache.
#[derive(Debug, Clone, Default)]
pub struct ElasticScratch {
    pub frc: Vec<f64>,
    pub dmp: Vec<f64>,
    pub vel: Vec<f64>,
    /// Cached world Hessian blocks, one oriented 3×3 per edge (`flexedge_hessian`).
    pub edge_hessian: Vec<f64>,
    /// Packed symmetric diagonal blocks per vertex (`flexvert_hessian`).
    pub vert_hessian: Vec<f64>,
    pub hessian_valid: Vec<bool>,
    /// World Jacobian columns of the vertices on bodies that are not simple sliders.
    pub vjac: VertJac,
}

/// The world Jacobian columns `∂x_v/∂q_i` of the vertices of non-rigid vertex flexes (dim 2
/// and 3) whose bodies are not simple sliders, computed once per position stage: the gathers
/// and scatters of the passive forces and of every metric CG iteration reuse them instead of
/// walking each vertex's dof chain again. Vertices of simple sliders (the usual vertex bodies)
/// have no entries: their columns are their `cdof` axes, read directly.
#[derive(Debug, Clone, Default)]
pub struct VertJac {
    /// Per flex vertex (global index), its entries are `adr[v]..adr[v + 1]`.
    adr: Vec<usize>,
    /// The dof of each entry, in the chain order (last dof of the body up through its parents).
    dof: Vec<usize>,
    /// The column of each entry (world, per unit of the dof's velocity).
    col: Vec<[f64; 3]>,
}

/// Whether flex `f` is gathered and scattered through [`VertJac::gather`] and [`VertJac::scatter`] (so has [`VertJac`] entries).
fn maps_vertices(m: &Model, f: usize) -> bool {
    m.flex_dim[f] >= 2 && m.flex_interp[f] == 0 && m.flex_rigid[f] == 0
}

impl VertJac {
    /// The entries' layout and dofs, fixed by the model.
    #[cold]
    pub fn new(m: &Model) -> Self {
        let mut adr = crate::data::with_capacity(m.nflexvert + 1);
        let mut dof = Vec::new();
        for f in 0..m.nflex {
            let vadr = m.flex_vertadr[f] as usize;
            for v in vadr..vadr + m.flex_vertnum[f] as usize {
                adr.push(dof.len());
                if !maps_vertices(m, f) {
                    continue;
                }
                let body = m.body_weldid[m.flex_vertbodyid[v] as usize] as usize;
                let nd = m.body_dofnum[body] as usize;
                if nd == 0 || m.body_simple[body] == 2 {
                    continue;
                }
                let mut i = (m.body_dofadr[body] as usize + nd - 1) as i32;
                while i >= 0 {
                    dof.push(i as usize);
                    i = m.dof_parentid[i as usize];
                }
            }
        }
        adr.push(dof.len());
        let col = crate::data::zeros(dof.len());
        VertJac { adr, dof, col }
    }

    /// Recomputes the columns from `cdof`, `subtree_com` and `flexvert_xpos` (after `flex`).
    pub fn update(&mut self, m: &Model, d: &Data) {
        if self.dof.is_empty() {
            return;
        }
        for f in 0..m.nflex {
            if !maps_vertices(m, f) {
                continue;
            }
            let vadr = m.flex_vertadr[f] as usize;
            for v in vadr..vadr + m.flex_vertnum[f] as usize {
                let (a, b) = (self.adr[v], self.adr[v + 1]);
                if a == b {
                    continue;
                }
                let body = m.body_weldid[m.flex_vertbodyid[v] as usize] as usize;
                let root = m.body_rootid[body] as usize;
                let off = [
                    d.flexvert_xpos[3 * v] - d.subtree_com[3 * root],
                    d.flexvert_xpos[3 * v + 1] - d.subtree_com[3 * root + 1],
                    d.flexvert_xpos[3 * v + 2] - d.subtree_com[3 * root + 2],
                ];
                for (col, &i) in self.col[a..b].iter_mut().zip(&self.dof[a..b]) {
                    *col = point_col(&d.cdof[6 * i..6 * i + 6], &off);
                }
            }
        }
    }
}

impl ElasticScratch {
    #[cold]
    pub fn new(m: &Model) -> Self {
        let maxv = (0..m.nflex)
            .map(|f| m.flex_vertnum[f] as usize)
            .max()
            .unwrap_or(0);
        ElasticScratch {
            frc: crate::data::zeros::<f64>(3 * maxv),
            dmp: crate::data::zeros::<f64>(3 * maxv),
            vel: crate::data::zeros::<f64>(3 * maxv),
            edge_hessian: crate::data::zeros::<f64>(9 * m.nflexedge),
            vert_hessian: crate::data::zeros::<f64>(6 * m.nflexvert),
            hessian_valid: crate::data::zeros(m.nflex),
            vjac: VertJac::new(m),
        }
    }
}

impl VertJac {
    /// `res = J·vec` in world vertex coordinates (3 per vertex of flex `f`), each vertex's
    /// velocity summed in registers from zero, in the chain order.
    pub fn gather(&self, m: &Model, d: &Data, f: usize, res: &mut [f64], vec: &[f64]) {
        debug_assert!(maps_vertices(m, f));
        let vadr = m.flex_vertadr[f] as usize;
        for v in 0..m.flex_vertnum[f] as usize {
            let body = m.body_weldid[m.flex_vertbodyid[vadr + v] as usize] as usize;
            let nd = m.body_dofnum[body] as usize;
            let mut r = [0.0; 3];
            if nd == 0 {
                // fixed vertex
            } else if m.body_simple[body] == 2 {
                let da = m.body_dofadr[body] as usize;
                let q = &vec[da..da + nd];
                for (c, &q) in d.cdof[6 * da..6 * (da + nd)].chunks_exact(6).zip(q) {
                    for k in 0..3 {
                        r[k] += c[3 + k] * q;
                    }
                }
            } else {
                let (a, b) = (self.adr[vadr + v], self.adr[vadr + v + 1]);
                for (col, &i) in self.col[a..b].iter().zip(&self.dof[a..b]) {
                    let q = vec[i];
                    for k in 0..3 {
                        r[k] += col[k] * q;
                    }
                }
            }
            res[3 * v..3 * v + 3].copy_from_slice(&r);
        }
    }

    /// `res += scale·Jᵀ·vec` for world vertex forces `vec` of flex `f`.
    pub fn scatter(&self, m: &Model, d: &Data, f: usize, res: &mut [f64], vec: &[f64], scale: f64) {
        debug_assert!(maps_vertices(m, f));
        let vadr = m.flex_vertadr[f] as usize;
        for v in 0..m.flex_vertnum[f] as usize {
            let body = m.body_weldid[m.flex_vertbodyid[vadr + v] as usize] as usize;
            let nd = m.body_dofnum[body] as usize;
            let x = [vec[3 * v], vec[3 * v + 1], vec[3 * v + 2]];
            if nd == 0 {
                // fixed vertex
            } else if m.body_simple[body] == 2 {
                let da = m.body_dofadr[body] as usize;
                for (j, c) in d.cdof[6 * da..6 * (da + nd)].chunks_exact(6).enumerate() {
                    res[da + j] += scale * (c[3] * x[0] + c[4] * x[1] + c[5] * x[2]);
                }
            } else {
                let (a, b) = (self.adr[vadr + v], self.adr[vadr + v + 1]);
                for (col, &i) in self.col[a..b].iter().zip(&self.dof[a..b]) {
                    res[i] += scale * (col[0] * x[0] + col[1] * x[1] + col[2] * x[2]);
                }
            }
        }
    }
}

/// The positions of an element's `NV` vertices (`x` 3 per vertex of the flex).
#[inline(always)]
fn elem_points<const NV: usize>(x: &[f64], vert: &[i32; NV]) -> [[f64; 3]; NV] {
    triples(x, &vert_offsets(vert))
}

/// `3·v` for each of an element's vertices. (Loops rather than `array::map`, which the
/// browser build left as a call per element.)
#[inline(always)]
fn vert_offsets<const NV: usize>(vert: &[i32; NV]) -> [usize; NV] {
    let mut o = [0; NV];
    for (o, &v) in o.iter_mut().zip(vert) {
        *o = 3 * v as usize;
    }
    o
}

/// The 3-vectors of `x` at offsets `o`.
#[inline(always)]
fn triples<const NV: usize>(x: &[f64], o: &[usize; NV]) -> [[f64; 3]; NV] {
    let mut p = [[0.0; 3]; NV];
    for (p, &o) in p.iter_mut().zip(o) {
        *p = crate::math::get_at(x, o);
    }
    p
}

/// The element's edge vectors `x_i − x_j` over its `NE` local edges ([`STRETCH_EDGES`]).
#[inline(always)]
fn edge_vectors<const NV: usize, const NE: usize>(ev: &mut [[f64; 3]; 6], p: &[[f64; 3]; NV]) {
    let edges = &STRETCH_EDGES[NV - 3];
    for a in 0..NE {
        let [i, j] = edges[a];
        for c in 0..3 {
            ev[a][c] = p[i][c] - p[j][c];
        }
    }
}

/// Unpacks the symmetric edge metric (upper triangle, row-major) into `nedge × nedge`.
#[inline]
pub fn unpack_metric(metric: &mut [f64; 36], packed: &[f64], nedge: usize) {
    let mut id = 0;
    for a in 0..nedge {
        for b in a..nedge {
            metric[nedge * a + b] = packed[id];
            metric[nedge * b + a] = packed[id];
            id += 1;
        }
    }
}

/// The squared-length elongations `l² − l0²` of an element's `NE` edges.
#[inline(always)]
fn elongation<const NE: usize>(out: &mut [f64; 6], ee: &[i32; NE], length: &[f64], rest: &[f64]) {
    for a in 0..NE {
        let i = ee[a] as usize;
        out[a] = length[i] * length[i] - rest[i] * rest[i];
    }
}

/// `tension = metric · elongation`.
#[inline]
pub fn tension(out: &mut [f64; 6], metric: &[f64; 36], s: &[f64; 6], nedge: usize) {
    for e in 0..nedge {
        let mut t = 0.0;
        for a in 0..nedge {
            t += metric[nedge * e + a] * s[a];
        }
        out[e] = t;
    }
}

/// Adds the gradient of the SNH cubic Gram term γ·P(s) to the edge tension.
pub fn snh_cubic(t: &mut [f64; 6], s: &[f64; 6], gamma: f64) {
    let (a, b, c) = (s[0], s[2], s[4]);
    let dd = 0.5 * (s[0] + s[2] - s[1]);
    let e = 0.5 * (s[0] + s[4] - s[5]);
    let f = 0.5 * (s[2] + s[4] - s[3]);
    let cof = [
        b * c - f * f,
        a * c - e * e,
        a * b - dd * dd,
        e * f - c * dd,
        dd * f - b * e,
        dd * e - a * f,
    ];
    let g = [
        cof[0] + cof[3] + cof[4],
        -cof[3],
        cof[1] + cof[3] + cof[5],
        -cof[5],
        cof[2] + cof[4] + cof[5],
        -cof[4],
    ];
    for k in 0..6 {
        t[k] += g[k] * (2.0 * gamma);
    }
}

/// Volume ratio J = V/V0 of a tet from its edge vectors and 1/(6·V0), with ∂J/∂x per vertex.
pub fn snh_volume(grad: &mut [[f64; 3]; 4], ev: &[[f64; 3]; 6], k23: f64) -> f64 {
    let a = [-ev[0][0], -ev[0][1], -ev[0][2]]; // x1 - x0
    let b = ev[2]; // x2 - x0
    let c = [-ev[4][0], -ev[4][1], -ev[4][2]]; // x3 - x0
    let bc = crate::math::cross(&b, &c);
    let ca = crate::math::cross(&c, &a);
    let ab = crate::math::cross(&a, &b);
    for k in 0..3 {
        grad[1][k] = bc[k] * k23;
        grad[2][k] = ca[k] * k23;
        grad[3][k] = ab[k] * k23;
        grad[0][k] = -(grad[1][k] + grad[2][k] + grad[3][k]);
    }
    // a·(b×c), the grouping MuJoCo 3.15.0 rounds (its disassembly: `mju_dot3(x1 − x0, (x0 − x3)
    // × (x2 − x0))`), not (a×b)·c
    crate::math::dot3(&a, &bc) * k23
}

/// Index of entry (a, b) of a symmetric `n × n` matrix packed as its upper triangle by rows.
const fn packed_index(n: usize, a: usize, b: usize) -> usize {
    let (r, c) = if a <= b { (a, b) } else { (b, a) };
    r * n - r * (r.saturating_sub(1)) / 2 + c - r
}

/// [`packed_index`] for every entry of the `n × n` edge metric (n = 3 or 6).
const fn packed_table<const N: usize>() -> [[usize; N]; N] {
    let mut t = [[0; N]; N];
    let mut a = 0;
    while a < N {
        let mut b = 0;
        while b < N {
            t[a][b] = packed_index(N, a, b);
            b += 1;
        }
        a += 1;
    }
    t
}

/// The inputs of the per-element stretch forces of one flex ([`stretch`]).
struct StretchElems<'a> {
    /// Packed metrics (and SNH constants), `stride` per element.
    k: &'a [f64],
    stride: usize,
    elem: &'a [i32],
    eelem: &'a [i32],
    nelem: usize,
    /// Vertex positions of the flex (m), 3 per vertex.
    x: &'a [f64],
    /// Edge lengths, rest lengths (m) and elongation rates (m/s) of the flex's edges.
    length: &'a [f64],
    rest: &'a [f64],
    vel: &'a [f64],
    h: f64,
    kd: f64,
    snh: bool,
    spring: bool,
}

impl StretchElems<'_> {
    /// Adds the elements' spring forces to `frc` and damping forces to `dmp` (world, N per
    /// vertex). `NV` vertices and `NE` edges per element; the per-edge force `∓t·(x_i − x_j)`
    /// on the edge's vertices, with each element's vertex forces summed in registers (its
    /// vertices are distinct).
    fn forces<const NV: usize, const NE: usize>(&self, frc: &mut [f64], dmp: &mut [f64]) {
        // constants after monomorphization, so the unrolled loops index registers, not memory
        let edges: [[usize; 2]; 6] = STRETCH_EDGES[NV - 3];
        let pack: [[usize; NE]; NE] = packed_table::<NE>();
        let mut ev = [[0.0; 3]; 6];
        let mut t = [0.0; 6];
        let mut el = [0.0; 6];
        let mut grad = [[0.0; 3]; 4];
        for e in 0..self.nelem {
            let vert: &[i32; NV] = self.elem[NV * e..NV * (e + 1)].try_into().unwrap();
            let ee: &[i32; NE] = self.eelem[NE * e..NE * (e + 1)].try_into().unwrap();
            let o = vert_offsets(vert);
            edge_vectors::<NV, NE>(&mut ev, &triples(self.x, &o));
            elongation::<NE>(&mut el, ee, self.length, self.rest);
            let kk = &self.k[self.stride * e..self.stride * e + self.stride];
            packed_tension::<NE>(&mut t, kk, &pack, &el);
            let mut pressure = 0.0;
            if self.snh {
                snh_cubic(&mut t, &el, kk[21]);
                pressure = 2.0 * kk[22] * (snh_volume(&mut grad, &ev, kk[23]) - 1.0);
            }
            if self.spring {
                let p = self.snh.then_some((&grad, pressure));
                apply_tension::<NV, NE>(frc, &o, &edges, &t, &ev, p);
            }
            if self.snh {
                continue;
            }
            if self.kd != 0.0 {
                for a in 0..NE {
                    let i = ee[a] as usize;
                    let dl = self.vel[i] * self.h;
                    el[a] = dl * (2.0 * self.length[i] - dl) * self.kd;
                }
                packed_tension::<NE>(&mut t, kk, &pack, &el);
                apply_tension::<NV, NE>(dmp, &o, &edges, &t, &ev, None);
            }
        }
    }
}

/// Entries of a packed 6 × 6 edge metric (its upper triangle); a triangle's 3 × 3 metric
/// uses the first 6 and every element's block holds at least these.
const PACKED: usize = 21;

/// `t = metric · s` with the metric read from its packed upper triangle `kk` ([`tension`]).
#[inline(always)]
fn packed_tension<const NE: usize>(
    t: &mut [f64; 6],
    kk: &[f64],
    pack: &[[usize; NE]; NE],
    s: &[f64; 6],
) {
    // as an array, the metric's constant-index reads need no bounds checks (one per
    // multiply-add before)
    let kk: &[f64; PACKED] = kk[..PACKED].try_into().unwrap();
    for a in 0..NE {
        let mut v = 0.0;
        for b in 0..NE {
            v += kk[pack[a][b]] * s[b];
        }
        t[a] = v;
    }
}

/// The edge tensions' vertex forces `−t·∂(l²)/∂x / 2` of one element (vertex offsets `o` into
/// `force`), then the SNH volume term `−pressure·∂J/∂x` when given; each vertex's force is
/// summed in registers.
#[inline(always)]
fn apply_tension<const NV: usize, const NE: usize>(
    force: &mut [f64],
    o: &[usize; NV],
    edges: &[[usize; 2]; 6],
    t: &[f64; 6],
    ev: &[[f64; 3]; 6],
    volume: Option<(&[[f64; 3]; 4], f64)>,
) {
    let mut fv = triples(force, o);
    for a in 0..NE {
        let [v0, v1] = edges[a];
        for c in 0..3 {
            fv[v0][c] -= t[a] * ev[a][c];
        }
        for c in 0..3 {
            fv[v1][c] -= t[a] * -ev[a][c];
        }
    }
    if let Some((grad, pressure)) = volume {
        for v in 0..NV {
            for c in 0..3 {
                fv[v][c] += grad[v][c] * -pressure;
            }
        }
    }
    for (f, &o) in fv.iter().zip(o) {
        force[o..o + 3].copy_from_slice(f);
    }
}

/// Stretch (StVK or SNH) forces and their Rayleigh damping for vertex flex `f`.
pub fn stretch(m: &Model, d: &mut Data, s: &mut Scratch, f: usize, spring: bool, damper: bool) {
    let sadr = m.flex_stiffnessadr[f];
    if sadr < 0 {
        return;
    }
    let k = &m.flex_stiffness[sadr as usize..];
    // strain-equality flexes keep their constraint modes in this block, not a material
    if k[0] == 0.0 || m.flex_edgeequality[f] == 3 {
        return;
    }
    let h = m.opt.timestep;
    let kd = if damper && h > 0.0 {
        m.flex_damping[f] / h
    } else {
        0.0
    };
    if !spring && kd == 0.0 {
        return;
    }
    let dim = m.flex_dim[f] as usize;
    let stride = if dim == 3 { 24 } else { 21 };
    let snh = dim == 3 && k[21] != 0.0;
    let nvert = m.flex_vertnum[f] as usize;
    let vadr = m.flex_vertadr[f] as usize;
    let eadr = m.flex_edgeadr[f] as usize;
    let elem = &m.flex_elem[m.flex_elemdataadr[f] as usize..];
    let eelem = &m.flex_elemedge[m.flex_elemedgeadr[f] as usize..];
    let es = &mut s.elastic;
    let frc = &mut es.frc[..3 * nvert];
    let dmp = &mut es.dmp[..3 * nvert];
    frc.fill(0.0);
    dmp.fill(0.0);
    {
        let el = StretchElems {
            k,
            stride,
            elem,
            eelem,
            nelem: m.flex_elemnum[f] as usize,
            x: &d.flexvert_xpos[3 * vadr..3 * (vadr + nvert)],
            length: &d.flexedge_length[eadr..],
            rest: &m.flexedge_length0[eadr..],
            vel: &d.flexedge_velocity[eadr..],
            h,
            kd,
            snh,
            spring,
        };
        // sizes known at compile time: the element loops unroll without bounds checks
        if dim == 3 {
            el.forces::<4, 6>(frc, dmp);
        } else {
            el.forces::<3, 3>(frc, dmp);
        }
    }
    if snh && kd != 0.0 {
        // SNH damping uses the cached PSD tangent, so its power is never positive
        let mut vel = std::mem::take(&mut es.vel);
        es.vjac.gather(m, d, f, &mut vel[..3 * nvert], &d.qvel);
        flex_hessian(m, d, es, f);
        let mut dmp = std::mem::take(&mut es.dmp);
        hessian_mul(
            m,
            es,
            f,
            &mut dmp[..3 * nvert],
            &vel[..3 * nvert],
            -m.flex_damping[f],
        );
        es.dmp = dmp;
        es.vel = vel;
    }
    let frc = std::mem::take(&mut es.frc);
    let dmp = std::mem::take(&mut es.dmp);
    if spring {
        let mut q = std::mem::take(&mut d.a.qfrc_spring);
        es.vjac.scatter(m, d, f, &mut q, &frc, 1.0);
        d.a.qfrc_spring = q;
    }
    if kd != 0.0 {
        let mut q = std::mem::take(&mut d.a.qfrc_damper);
        es.vjac.scatter(m, d, f, &mut q, &dmp, 1.0);
        d.a.qfrc_damper = q;
    }
    es.frc = frc;
    es.dmp = dmp;
}

/// Discrete-shell bending forces of 2D vertex flex `f` (and their Rayleigh damping).
pub fn bend(m: &Model, d: &mut Data, s: &mut Scratch, f: usize, spring: bool, damper: bool) {
    if m.flex_dim[f] != 2 {
        return;
    }
    let badr = m.flex_bendingadr[f];
    if badr < 0 {
        return;
    }
    let damp = if damper { m.flex_damping[f] } else { 0.0 };
    let damper = damp != 0.0;
    if !spring && !damper {
        return;
    }
    let nvert = m.flex_vertnum[f] as usize;
    let vadr = m.flex_vertadr[f] as usize;
    let eadr = m.flex_edgeadr[f] as usize;
    let b = &m.flex_bending[badr as usize..];
    let es = &mut s.elastic;
    let mut spr = std::mem::take(&mut es.frc);
    let mut dmp = std::mem::take(&mut es.dmp);
    let mut vv = std::mem::take(&mut es.vel);
    spr[..3 * nvert].fill(0.0);
    dmp[..3 * nvert].fill(0.0);
    if damper {
        es.vjac.gather(m, d, f, &mut vv[..3 * nvert], &d.qvel);
    }
    let x = &d.flexvert_xpos[3 * vadr..3 * (vadr + nvert)];
    for e in 0..m.flex_edgenum[f] as usize {
        let Some(v) = bending_stencil(m, eadr + e) else {
            continue;
        };
        let xs = elem_points(x, &v);
        let ed0 = crate::math::sub3(&xs[1], &xs[0]);
        let ed1 = crate::math::sub3(&xs[2], &xs[0]);
        let ed2 = crate::math::sub3(&xs[3], &xs[0]);
        let mut frc = [[0.0; 3]; 4];
        frc[1] = crate::math::cross(&ed1, &ed2);
        frc[2] = crate::math::cross(&ed2, &ed0);
        frc[3] = crate::math::cross(&ed0, &ed1);
        for k in 0..3 {
            frc[0][k] = -(frc[1][k] + frc[2][k] + frc[3][k]);
        }
        let bb = &b[17 * e..17 * e + 17];
        let vs = elem_points(&vv, &v);
        for (i, row) in bb[..16].chunks_exact(4).enumerate() {
            let vi = 3 * v[i] as usize;
            if spring {
                let r = stencil_row(&spr[vi..vi + 3], row, &xs);
                for c in 0..3 {
                    spr[vi + c] = r[c] + bb[16] * frc[i][c];
                }
            }
            if damper {
                let r = stencil_row(&dmp[vi..vi + 3], row, &vs);
                dmp[vi..vi + 3].copy_from_slice(&r);
            }
        }
    }
    if spring {
        let mut q = std::mem::take(&mut d.a.qfrc_spring);
        es.vjac.scatter(m, d, f, &mut q, &spr, -1.0);
        d.a.qfrc_spring = q;
    }
    if damper {
        let mut q = std::mem::take(&mut d.a.qfrc_damper);
        es.vjac.scatter(m, d, f, &mut q, &dmp, -damp);
        d.a.qfrc_damper = q;
    }
    es.frc = spr;
    es.dmp = dmp;
    es.vel = vv;
}

/// The local vertices of flex edge `e`'s bending stencil (`e` a global edge id): the edge's
/// two ends, then the far vertices of its two flaps; None for a boundary edge (one flap).
#[inline]
pub fn bending_stencil(m: &Model, e: usize) -> Option<[i32; 4]> {
    let flap = m.flex_edgeflap[2 * e + 1];
    (flap >= 0).then(|| {
        [
            m.flex_edge[2 * e],
            m.flex_edge[2 * e + 1],
            m.flex_edgeflap[2 * e],
            flap,
        ]
    })
}

/// One row of the 4×4 bending stencil applied to the stencil's vertex vectors `p`:
/// `acc + Σ_j row[j]·p[j]` per component, summed in registers in the stencil order (the order
/// of MuJoCo's accumulation into the force array). Shared by [`bend`] and the metric's product.
#[inline(always)]
pub fn stencil_row(acc: &[f64], row: &[f64], p: &[[f64; 3]; 4]) -> [f64; 3] {
    let mut r = [acc[0], acc[1], acc[2]];
    for (w, pj) in row.iter().zip(p) {
        for k in 0..3 {
            r[k] += w * pj[k];
        }
    }
    r
}

/// Fills the per-flex cached world Hessian of the stretch energy (StVK keeps only tensile
/// geometric terms; SNH projects each element's material Hessian to PSD).
pub fn flex_hessian(m: &Model, d: &Data, es: &mut ElasticScratch, f: usize) {
    if es.hessian_valid[f] {
        return;
    }
    let va = m.flex_vertadr[f] as usize;
    let ea = m.flex_edgeadr[f] as usize;
    let nv = m.flex_vertnum[f] as usize;
    let ne_f = m.flex_edgenum[f] as usize;
    es.vert_hessian[6 * va..6 * (va + nv)].fill(0.0);
    es.edge_hessian[9 * ea..9 * (ea + ne_f)].fill(0.0);
    if m.flex_stiffnessadr[f] >= 0 {
        // sizes known at compile time, as in the forces
        if m.flex_dim[f] == 3 {
            hessian_elems::<4, 6>(m, d, es, f);
        } else {
            hessian_elems::<3, 3>(m, d, es, f);
        }
    }
    for e in 0..ne_f {
        let v0 = m.flex_edge[2 * (ea + e)] as usize;
        let v1 = m.flex_edge[2 * (ea + e) + 1] as usize;
        let mut id = 0;
        for r in 0..3 {
            for c in r..3 {
                es.vert_hessian[6 * (va + v0) + id] -= es.edge_hessian[9 * (ea + e) + 3 * r + c];
                es.vert_hessian[6 * (va + v1) + id] -= es.edge_hessian[9 * (ea + e) + 3 * c + r];
                id += 1;
            }
        }
    }
    es.hessian_valid[f] = true;
}

/// Adds the element blocks of flex `f`'s stretch Hessian to `edge_hessian` (`NV` vertices and
/// `NE` edges per element).
fn hessian_elems<const NV: usize, const NE: usize>(
    m: &Model,
    d: &Data,
    es: &mut ElasticScratch,
    f: usize,
) {
    let va = m.flex_vertadr[f] as usize;
    let ea = m.flex_edgeadr[f] as usize;
    let nv = m.flex_vertnum[f] as usize;
    let k = &m.flex_stiffness[m.flex_stiffnessadr[f] as usize..];
    let dim = NV - 1;
    let pack = packed_table::<NE>();
    let stride = if dim == 2 { 21 } else { 24 };
    let snh = dim == 3 && k[21] != 0.0;
    let edges = &STRETCH_EDGES[dim - 2];
    let elem = &m.flex_elem[m.flex_elemdataadr[f] as usize..];
    let eelem = &m.flex_elemedge[m.flex_elemedgeadr[f] as usize..];
    let x = &d.flexvert_xpos[3 * va..3 * (va + nv)];
    let length = &d.flexedge_length[ea..];
    let rest = &m.flexedge_length0[ea..];
    let mut ev = [[0.0; 3]; 6];
    let mut metric = [0.0; 36];
    let mut t = [0.0; 6];
    let mut el = [0.0; 6];
    for e in 0..m.flex_elemnum[f] as usize {
        let vert: &[i32; NV] = elem[NV * e..NV * (e + 1)].try_into().unwrap();
        let packed = &k[stride * e..stride * e + stride];
        let ee: &[i32; NE] = eelem[NE * e..NE * (e + 1)].try_into().unwrap();
        edge_vectors::<NV, NE>(&mut ev, &elem_points(x, vert));
        let mut proj = super::snh::SnhHessian::default();
        elongation::<NE>(&mut el, ee, length, rest);
        if snh {
            super::snh::project(
                &mut proj,
                packed,
                &ev,
                &el,
                &m.flex_vert0[3 * va..],
                vert,
                &m.flex_size[3 * f..3 * f + 3],
            );
        } else {
            unpack_metric(&mut metric, packed, NE);
            packed_tension::<NE>(&mut t, packed, &pack, &el);
            // only the tensile part enters the metric (mju_max(tension, 0))
            for v in t.iter_mut().take(NE) {
                *v = crate::math::max(*v, 0.0);
            }
        }
        for le in 0..NE {
            let (mut i, mut j) = (edges[le][0], edges[le][1]);
            let id = ee[le] as usize;
            if m.flex_edge[2 * (ea + id)] != vert[i] {
                std::mem::swap(&mut i, &mut j);
            }
            let mut block = [0.0; 9];
            if snh {
                super::snh::projected_block(&mut block, &proj, i, j);
            } else {
                stiffness_block::<NE>(&mut block, &metric, &t, &ev, i, j);
            }
            for q in 0..9 {
                es.edge_hessian[9 * (ea + id) + q] += block[q];
            }
        }
    }
}

/// `res += scale · H · vec` with the cached Hessian of flex `f` (world vertex coordinates).
pub fn hessian_mul(
    m: &Model,
    es: &ElasticScratch,
    f: usize,
    res: &mut [f64],
    vec: &[f64],
    scale: f64,
) {
    let va = m.flex_vertadr[f] as usize;
    let ea = m.flex_edgeadr[f] as usize;
    for v in 0..m.flex_vertnum[f] as usize {
        let a = &es.vert_hessian[6 * (va + v)..6 * (va + v) + 6];
        let x = &vec[3 * v..3 * v + 3];
        res[3 * v] += scale * (a[0] * x[0] + a[1] * x[1] + a[2] * x[2]);
        res[3 * v + 1] += scale * (a[1] * x[0] + a[3] * x[1] + a[4] * x[2]);
        res[3 * v + 2] += scale * (a[2] * x[0] + a[4] * x[1] + a[5] * x[2]);
    }
    for e in 0..m.flex_edgenum[f] as usize {
        let v0 = m.flex_edge[2 * (ea + e)] as usize;
        let v1 = m.flex_edge[2 * (ea + e) + 1] as usize;
        let a = &es.edge_hessian[9 * (ea + e)..9 * (ea + e) + 9];
        for r in 0..3 {
            let y = &vec[3 * v1..3 * v1 + 3];
            let x = &vec[3 * v0..3 * v0 + 3];
            res[3 * v0 + r] +=
                scale * (a[3 * r] * y[0] + a[3 * r + 1] * y[1] + a[3 * r + 2] * y[2]);
            res[3 * v1 + r] += scale * (a[r] * x[0] + a[3 + r] * x[1] + a[6 + r] * x[2]);
        }
    }
}

/// The world 3×3 block of the StVK Hessian between element vertices i and j, for elements of
/// `NE` edges (3: triangles, 6: tetrahedra). The edge count is a constant so that the loops
/// unroll and the edge signs fold: the Hessian assembly runs this for every edge of every
/// element, every step.
#[inline(always)]
fn stiffness_block<const NE: usize>(
    block: &mut [f64; 9],
    metric: &[f64; 36],
    t: &[f64; 6],
    ev: &[[f64; 3]; 6],
    i: usize,
    j: usize,
) {
    let edges = &STRETCH_EDGES[if NE == 3 { 0 } else { 1 }];
    *block = [0.0; 9];
    let sign = |v: usize, e: usize| -> f64 {
        if v == edges[e][0] {
            1.0
        } else if v == edges[e][1] {
            -1.0
        } else {
            0.0
        }
    };
    for a in 0..NE {
        let sa = sign(i, a);
        if sa == 0.0 {
            continue;
        }
        for b in 0..NE {
            let sb = sign(j, b);
            if sb == 0.0 {
                continue;
            }
            let w = 2.0 * metric[NE * a + b] * sa * sb;
            for r in 0..3 {
                for c in 0..3 {
                    block[3 * r + c] += w * ev[a][r] * ev[b][c];
                }
            }
        }
    }
    let mut geo = 0.0;
    for a in 0..NE {
        let sa = sign(i, a);
        let sb = sign(j, a);
        if sa == 0.0 || sb == 0.0 {
            continue;
        }
        geo += t[a] * sa * sb;
    }
    block[0] += geo;
    block[4] += geo;
    block[8] += geo;
}

/// Elastic energy of standard flex `f` (J): StVK or SNH stretch plus bending, the potential
/// whose negative gradient [`stretch`] and [`bend`] apply. MuJoCo's `energy` leaves it out.
pub fn elastic_energy(m: &Model, d: &Data, f: usize) -> f64 {
    if m.flex_rigid[f] != 0 || m.flex_dim[f] < 2 || m.flex_interp[f] != 0 {
        return 0.0;
    }
    let dim = m.flex_dim[f] as usize;
    let va = m.flex_vertadr[f] as usize;
    let nv = m.flex_vertnum[f] as usize;
    let ea = m.flex_edgeadr[f] as usize;
    let x = &d.flexvert_xpos[3 * va..3 * (va + nv)];
    let mut energy = 0.0;
    let sadr = m.flex_stiffnessadr[f];
    if sadr >= 0 && m.flex_stiffness[sadr as usize] != 0.0 && m.flex_edgeequality[f] != 3 {
        if dim == 3 {
            stretch_energy::<4, 6>(m, d, f, &mut energy);
        } else {
            stretch_energy::<3, 3>(m, d, f, &mut energy);
        }
    }
    let badr = m.flex_bendingadr[f];
    if dim == 2 && badr >= 0 {
        let b = &m.flex_bending[badr as usize..];
        for e in 0..m.flex_edgenum[f] as usize {
            let Some(v) = bending_stencil(m, ea + e) else {
                continue;
            };
            let p = elem_points(x, &v);
            let bb = &b[17 * e..17 * e + 17];
            for i in 0..4 {
                for j in 0..4 {
                    energy += 0.5 * bb[4 * i + j] * crate::math::dot3(&p[i], &p[j]);
                }
            }
            let e0 = crate::math::sub3(&p[1], &p[0]);
            let e1 = crate::math::sub3(&p[2], &p[0]);
            let e2 = crate::math::sub3(&p[3], &p[0]);
            energy += bb[16] * crate::math::dot3(&e0, &crate::math::cross(&e1, &e2));
        }
    }
    energy
}

/// Adds the stretch energy of flex `f`'s elements (`NV` vertices and `NE` edges each) to
/// `energy`.
fn stretch_energy<const NV: usize, const NE: usize>(
    m: &Model,
    d: &Data,
    f: usize,
    energy: &mut f64,
) {
    let va = m.flex_vertadr[f] as usize;
    let nv = m.flex_vertnum[f] as usize;
    let ea = m.flex_edgeadr[f] as usize;
    let x = &d.flexvert_xpos[3 * va..3 * (va + nv)];
    let k = &m.flex_stiffness[m.flex_stiffnessadr[f] as usize..];
    let stride = if NV == 4 { 24 } else { 21 };
    let snh = NV == 4 && k[21] != 0.0;
    let pack = packed_table::<NE>();
    let elem = &m.flex_elem[m.flex_elemdataadr[f] as usize..];
    let eelem = &m.flex_elemedge[m.flex_elemedgeadr[f] as usize..];
    let (length, rest) = (&d.flexedge_length[ea..], &m.flexedge_length0[ea..]);
    let mut ev = [[0.0; 3]; 6];
    let mut t = [0.0; 6];
    let mut el = [0.0; 6];
    let mut grad = [[0.0; 3]; 4];
    for e in 0..m.flex_elemnum[f] as usize {
        let ee: &[i32; NE] = eelem[NE * e..NE * (e + 1)].try_into().unwrap();
        let kk = &k[stride * e..stride * e + stride];
        elongation::<NE>(&mut el, ee, length, rest);
        packed_tension::<NE>(&mut t, kk, &pack, &el);
        *energy += 0.25 * (0..NE).map(|a| el[a] * t[a]).sum::<f64>();
        if snh {
            let vert: &[i32; NV] = elem[NV * e..NV * (e + 1)].try_into().unwrap();
            edge_vectors::<NV, NE>(&mut ev, &elem_points(x, vert));
            let (a, b, c) = (el[0], el[2], el[4]);
            let dd = 0.5 * (el[0] + el[2] - el[1]);
            let ex = 0.5 * (el[0] + el[4] - el[5]);
            let fx = 0.5 * (el[2] + el[4] - el[3]);
            let det = a * (b * c - fx * fx) - dd * (dd * c - fx * ex) + ex * (dd * fx - b * ex);
            let j = snh_volume(&mut grad, &ev, kk[23]);
            *energy += kk[21] * det + kk[22] * (j - 1.0) * (j - 1.0);
        }
    }
}

/// Interpolated flex elasticity (corotated cells or shell quads, and shell bending); see
/// [`super::interp`].
pub fn interp(m: &Model, d: &mut Data, s: &mut Scratch, f: usize, spring: bool, damper: bool) {
    super::interp::passive(m, d, s, f, spring, damper);
}

/// Passive penalty contact forces (added with the contact stage).
pub fn contact_passive(m: &Model, d: &mut Data, s: &mut Scratch) {
    if m.opt.disabled(crate::model::disable::CONTACT) || s.metric.con.is_empty() {
        return;
    }
    let mut q = std::mem::take(&mut d.a.qfrc_spring);
    super::metric::passive_contact_force(s, &mut q);
    d.a.qfrc_spring = q;
}

//! Constraint rows (MuJoCo's `engine_core_constraint.c`): equalities (connect, weld, joint,
//! flex edges), dof friction loss, joint limits and contacts (frictionless, pyramidal, elliptic),
//! with their sparse Jacobian, impedance (`efc_KBIP`, `efc_R`, `efc_D`) and reference
//! acceleration `efc_aref`. Under the discrete integrator the spring-damper of each row is
//! evaluated at the end of the step, as MuJoCo 3.15.0 does.

use super::Scratch;
use crate::data::{Data, Warning};
use crate::math::*;
use crate::model::{disable, obj, Cone, Integrator, Model};

/// Row types (`mjtConstraint`), as `crate::data` names them for `efc_type`.
pub use crate::data::cnstr as kind;

/// Row states (`mjtConstraintState`).
pub mod state {
    pub const SATISFIED: i32 = 0;
    pub const QUADRATIC: i32 = 1;
    pub const LINEARNEG: i32 = 2;
    pub const LINEARPOS: i32 = 3;
    pub const CONE: i32 = 4;
}

const MINIMP: f64 = 1e-4;
const MAXIMP: f64 = 0.9999;

/// Capacity of the constraint-row buffers.
pub fn max_rows(m: &Model, maxcon: usize) -> usize {
    let vert_rows: usize = (0..m.nflex)
        .filter(|&f| m.flex_dim[f] == 2 && m.flex_edgeequality[f] == 2)
        .map(|f| 2 * m.flex_vertnum[f] as usize)
        .sum();
    m.nflexedge + vert_rows + 2 * m.njnt + m.nv + 6 * m.neq + 6 * maxcon + 16
}

/// Capacity of the sparse constraint Jacobian.
pub fn max_nnz(m: &Model, maxefc: usize) -> usize {
    (maxefc * 48).max(m.nv * 4).min(maxefc * m.nv.max(1))
}

/// Dense accumulators for one multi-row Jacobian (3 translational + 3 rotational rows), with a
/// list of touched dofs so clearing is proportional to the row size.
#[derive(Debug, Clone, Default)]
pub struct RowScratch {
    jp: Vec<f64>,
    jr: Vec<f64>,
    mark: Vec<bool>,
    touched: Vec<usize>,
    /// The columns of the contact row being made: `touched` in increasing order, less the
    /// dofs both bodies share when MuJoCo skips them (see [`RowScratch::contact_chain`]).
    chain: Vec<usize>,
    rows: Vec<f64>,
    wbody: Vec<(usize, f64)>,
    wvert: Vec<(usize, f64)>,
    /// Per contact with rows, `[translational, rotational]` of its bodies' summed inverse
    /// weights, found while its rows are made so that `diag_approx` need not map the contact
    /// onto its bodies again.
    con_invweight: Vec<[f64; 2]>,
    /// One tendon's Jacobian row (values, dofs), scaled for the row being added.
    tvals: Vec<f64>,
    tcols: Vec<usize>,
}

impl RowScratch {
    #[cold]
    pub fn new(nv: usize, maxcon: usize) -> Self {
        RowScratch {
            jp: crate::data::zeros::<f64>(3 * nv),
            jr: crate::data::zeros::<f64>(3 * nv),
            mark: crate::data::zeros(nv),
            touched: crate::data::with_capacity(nv),
            chain: crate::data::with_capacity(nv),
            // a contact's frame rows (condim ≤ 6) over its chain of at most nv dofs, and after
            // them the two pyramid edges being added
            rows: crate::data::zeros::<f64>(8 * nv.max(1)),
            wbody: crate::data::with_capacity(64),
            wvert: crate::data::with_capacity(8),
            con_invweight: crate::data::zeros(maxcon),
            tvals: crate::data::with_capacity(nv),
            tcols: crate::data::with_capacity(nv),
        }
    }

    fn clear(&mut self, nv: usize) {
        for &i in &self.touched {
            self.mark[i] = false;
            for k in 0..3 {
                self.jp[k * nv + i] = 0.0;
                self.jr[k * nv + i] = 0.0;
            }
        }
        self.touched.clear();
    }

    /// Sorts the touched dofs into `chain`, the columns of contact `c`'s rows. With one body on
    /// each side (a geom or a vertex of a flex that is not interpolated) and a sparse Jacobian,
    /// MuJoCo 3.15.0 makes the rows with `mj_jacDifPair(…, flg_skipcommon=1)`: the dofs the two
    /// bodies share, whose columns are exactly zero, are not in the row. They would be harmless
    /// zeros, but the solver's sums over a row run in lanes, and a row one column longer sums
    /// its products in other groups (an ulp apart). Two simple bodies share no dofs.
    fn contact_chain(&mut self, m: &Model, c: &crate::data::Contact) {
        super::sort::sort_small(&mut self.touched);
        self.chain.clear();
        self.chain.extend_from_slice(&self.touched);
        let single = |side: usize| {
            c.geom[side] >= 0 || (c.vert[side] >= 0 && m.flex_interp[c.flex[side] as usize] == 0)
        };
        if !sparse_jacobian(m) || !single(0) || !single(1) {
            return;
        }
        let body = |side: usize| -> usize {
            if c.geom[side] >= 0 {
                m.geom_bodyid[c.geom[side] as usize] as usize
            } else {
                let f = c.flex[side] as usize;
                m.flex_vertbodyid[m.flex_vertadr[f] as usize + c.vert[side] as usize] as usize
            }
        };
        let (b1, b2) = (body(0), body(1));
        if m.body_simple[b1] != 0 && m.body_simple[b2] != 0 {
            return;
        }
        // the last dof of each weld (-1: none), walked up to where the two chains meet
        let last = |b: usize| {
            let w = m.body_weldid[b] as usize;
            if m.body_dofnum[w] == 0 {
                -1
            } else {
                m.body_dofadr[w] + m.body_dofnum[w] - 1
            }
        };
        let (mut d1, mut d2) = (last(b1), last(b2));
        while d1 != d2 {
            if d1 > d2 {
                d1 = m.dof_parentid[d1 as usize];
            } else {
                d2 = m.dof_parentid[d2 as usize];
            }
        }
        // the shared dofs are the meeting dof and its ancestors; a dof's ancestors come before
        // it, and the dofs between the meeting point and either body after it, so they are the
        // chain's prefix up to the meeting dof
        let shared = self.chain.partition_point(|&i| i as i32 <= d1);
        self.chain.drain(..shared);
    }

    /// Adds `w · J(body, point)` (translation, and rotation if `rot`).
    fn add_body(&mut self, m: &Model, d: &Data, body: usize, point: &Vec3, w: f64, rot: bool) {
        let nv = m.nv;
        let b = m.body_weldid[body] as usize;
        if m.body_dofnum[b] == 0 {
            return;
        }
        let root = m.body_rootid[body] as usize;
        let off = [
            point[0] - d.a.subtree_com[3 * root],
            point[1] - d.a.subtree_com[3 * root + 1],
            point[2] - d.a.subtree_com[3 * root + 2],
        ];
        let mut da = m.body_dofadr[b] + m.body_dofnum[b] - 1;
        while da >= 0 {
            let i = da as usize;
            let c = &d.a.cdof[6 * i..6 * i + 6];
            let t = cross(&[c[0], c[1], c[2]], &off);
            if !self.mark[i] {
                self.mark[i] = true;
                self.touched.push(i);
            }
            for k in 0..3 {
                self.jp[k * nv + i] += w * (c[3 + k] + t[k]);
                if rot {
                    self.jr[k * nv + i] += w * c[k];
                }
            }
            da = m.dof_parentid[i];
        }
    }
}

impl RowScratch {
    /// Adds `J̇(body, point)` (MuJoCo's `mj_jacDot`): the time derivative of the point's
    /// translational Jacobian (and rotational if `rot`), from `cdof_dot` (recomputed from the
    /// body's `cvel` for ball and free-rotation dofs, whose stored `cdof_dot` MuJoCo does not
    /// use here) and the point's own velocity.
    fn add_body_dot(&mut self, m: &Model, d: &Data, body: usize, point: &Vec3, rot: bool) {
        let nv = m.nv;
        let root = m.body_rootid[body] as usize;
        let com = [
            d.a.subtree_com[3 * root],
            d.a.subtree_com[3 * root + 1],
            d.a.subtree_com[3 * root + 2],
        ];
        let off = sub3(point, &com);
        let cv = &d.a.cvel[6 * body..6 * body + 6];
        // the point's linear velocity (mju_transformSpatial of cvel to the point)
        let t = cross(&off, &[cv[0], cv[1], cv[2]]);
        let plin = [cv[3] - t[0], cv[4] - t[1], cv[5] - t[2]];
        let b = m.body_weldid[body] as usize;
        if m.body_dofnum[b] == 0 {
            return;
        }
        let mut da = m.body_dofadr[b] + m.body_dofnum[b] - 1;
        while da >= 0 {
            let i = da as usize;
            let c = &d.a.cdof[6 * i..6 * i + 6];
            let mut cd = [0.0; 6];
            cd.copy_from_slice(&d.a.cdof_dot[6 * i..6 * i + 6]);
            let j = m.dof_jntid[i] as usize;
            let jt = m.jnt_type[j];
            if jt == 1 || (jt == 0 && i >= m.jnt_dofadr[j] as usize + 3) {
                let bi = m.dof_bodyid[i] as usize;
                cd = cross_motion(&d.a.cvel[6 * bi..6 * bi + 6], c);
            }
            if !self.mark[i] {
                self.mark[i] = true;
                self.touched.push(i);
            }
            let t1 = cross(&[cd[0], cd[1], cd[2]], &off);
            let t2 = cross(&[c[0], c[1], c[2]], &plin);
            for k in 0..3 {
                self.jp[k * nv + i] = cd[3 + k] + t1[k] + t2[k];
                if rot {
                    self.jr[k * nv + i] = cd[k];
                }
            }
            da = m.dof_parentid[i];
        }
    }

    /// `J̇·qvel` of the accumulated rows in MuJoCo's summation order: over the merged chain of
    /// the two bodies in AVX lanes (sparse Jacobians), else `mju_dot` over all dofs.
    fn dot_qvel(&self, m: &Model, d: &Data, chain: &[i32], sparse: bool, rows: &[f64]) -> Vec3 {
        let nv = m.nv;
        let q = &d.a.qvel;
        let mut out = [0.0; 3];
        for (k, o) in out.iter_mut().enumerate() {
            let row = &rows[k * nv..k * nv + nv];
            *o = if sparse {
                super::solver::sum_avx(chain.len(), |t| {
                    let i = chain[t] as usize;
                    row[i] * q[i]
                })
            } else {
                super::solver::dot_mj(nv, |i| row[i] * q[i])
            };
        }
        out
    }
}

/// Subtracts `J̇·qvel` from `efc_aref` of the connect and weld rows (MuJoCo 3.15.0's
/// `mj_Jdotv`): the rows' reference acceleration then accounts for the anchors' acceleration
/// that comes from the moving Jacobian, not only for the violation and its rate.
fn jdot_v(m: &Model, d: &mut Data, rs: &mut RowScratch, chain: &mut [i32]) {
    let nv = m.nv;
    let sparse = sparse_jacobian(m);
    let mut row = 0;
    while row < d.ne {
        let id = d.a.efc_id[row] as usize;
        let etype = m.eq_type[id];
        if etype != 0 && etype != 1 {
            while row < d.ne && d.a.efc_id[row] as usize == id {
                row += 1;
            }
            continue;
        }
        let weld = etype == 1;
        let (p1, p2, b1, b2) = eq_anchors(m, d, id);
        let nchain = if sparse {
            super::jacobian::merge_chain(m, chain, b1, b2, false)
        } else {
            0
        };
        rs.clear(nv);
        rs.add_body_dot(m, d, b1, &p1, weld);
        let (jv1, jr1) = (
            rs.dot_qvel(m, d, &chain[..nchain], sparse, &rs.jp),
            rs.dot_qvel(m, d, &chain[..nchain], sparse, &rs.jr),
        );
        rs.clear(nv);
        rs.add_body_dot(m, d, b2, &p2, weld);
        let (jv2, jr2) = (
            rs.dot_qvel(m, d, &chain[..nchain], sparse, &rs.jp),
            rs.dot_qvel(m, d, &chain[..nchain], sparse, &rs.jr),
        );
        rs.clear(nv);
        for k in 0..3 {
            let jdv = jv1[k] - jv2[k];
            d.a.efc_aref[row + k] -= jdv;
        }
        row += 3;
        if weld {
            weld_jdot_v(m, d, id, b1, b2, &jr1, &jr2, row);
            row += 3;
        }
    }
}

/// The rotational part of a weld's `J̇·qvel`: the product rule on ½·q1⁻¹·(ω0 − ω1)·q0·rel.
#[allow(clippy::too_many_arguments)]
fn weld_jdot_v(
    m: &Model,
    d: &mut Data,
    id: usize,
    b1: usize,
    b2: usize,
    jr1: &Vec3,
    jr2: &Vec3,
    row: usize,
) {
    let ts = m.eq_data[11 * id + 10];
    let (f0, f1, rel) = weld_frames(m, d, id, b1, b2);
    let with_rel = |q: Quat| rel.map_or(q, |r| mul_quat(&q, &r));
    let q0r = with_rel(f0);
    let negq1 = neg_quat(&f1);
    let w1 = [d.a.cvel[6 * b1], d.a.cvel[6 * b1 + 1], d.a.cvel[6 * b1 + 2]];
    let w2 = [d.a.cvel[6 * b2], d.a.cvel[6 * b2 + 1], d.a.cvel[6 * b2 + 2]];
    let domega = sub3(&w1, &w2);
    let qdot0r = with_rel(deriv_quat(&f0, &w1));
    let negqdot1 = neg_quat(&deriv_quat(&f1, &w2));
    let djrdv = sub3(jr1, jr2);
    let t1 = mul_quat(&mul_quat_axis(&negqdot1, &domega), &q0r);
    let t2 = mul_quat(&mul_quat_axis(&negq1, &djrdv), &q0r);
    let t3 = mul_quat(&mul_quat_axis(&negq1, &domega), &qdot0r);
    for k in 0..3 {
        let jdv = 0.5 * (t1[1 + k] + t2[1 + k] + t3[1 + k]) * ts;
        d.a.efc_aref[row + k] -= jdv;
    }
}

/// MuJoCo's `mju_derivQuat`: `½·(0, ω)·q`, term for term.
fn deriv_quat(q: &Quat, w: &Vec3) -> Quat {
    [
        0.5 * (-w[0] * q[1] - w[1] * q[2] - w[2] * q[3]),
        0.5 * (w[0] * q[0] + w[1] * q[3] - w[2] * q[2]),
        0.5 * (-w[0] * q[3] + w[1] * q[0] + w[2] * q[1]),
        0.5 * (w[0] * q[2] - w[1] * q[1] + w[2] * q[0]),
    ]
}

/// MuJoCo's `mju_mulQuatAxis`: `q·(0, a)`, term for term.
fn mul_quat_axis(q: &Quat, a: &Vec3) -> Quat {
    [
        -q[1] * a[0] - q[2] * a[1] - q[3] * a[2],
        q[0] * a[0] + q[2] * a[2] - q[3] * a[1],
        q[0] * a[1] + q[3] * a[0] - q[1] * a[2],
        q[0] * a[2] + q[1] * a[1] - q[2] * a[0],
    ]
}

/// Tendon `t`'s Jacobian row times `scale` into `rs.tvals`/`rs.tcols` (`ten_J`'s sparsity).
fn tendon_row(m: &Model, d: &Data, rs: &mut RowScratch, t: usize, scale: f64) {
    rs.tvals.clear();
    rs.tcols.clear();
    let adr = m.ten_J_rowadr[t] as usize;
    for k in adr..adr + m.ten_J_rownnz[t] as usize {
        rs.tvals.push(scale * d.a.ten_J[k]);
        rs.tcols.push(m.ten_J_colind[k] as usize);
    }
}

/// Appends `size` rows sharing the sparsity `chain` (values row-major in `vals`).
fn add_rows(
    d: &mut Data,
    vals: &[f64],
    chain: &[usize],
    pos: &[f64],
    margin: &[f64],
    frictionloss: f64,
    size: usize,
    typ: i32,
    id: usize,
) -> bool {
    let nnz = chain.len();
    let adr0 = if d.nefc > 0 {
        (d.a.efc_J_rowadr[d.nefc - 1] + d.a.efc_J_rownnz[d.nefc - 1]) as usize
    } else {
        0
    };
    let (rows, nonzeros) = (d.nefc + size, adr0 + size * nnz);
    let fits = rows <= d.maxefc && nonzeros <= d.a.efc_J.len();
    if !fits && !d.grow_rows(rows, nonzeros) {
        d.warn(Warning::ConstraintFull, d.nefc as i32);
        return false;
    }
    for r in 0..size {
        let row = d.nefc + r;
        let adr = adr0 + r * nnz;
        d.a.efc_J_rowadr[row] = adr as i32;
        d.a.efc_J_rownnz[row] = nnz as i32;
        for (k, &c) in chain.iter().enumerate() {
            d.a.efc_J_colind[adr + k] = c as i32;
            d.a.efc_J[adr + k] = vals[r * nnz + k];
        }
        d.a.efc_pos[row] = pos[r];
        d.a.efc_margin[row] = margin[r];
        d.a.efc_frictionloss[row] = frictionloss;
        d.a.efc_type[row] = typ;
        d.a.efc_id[row] = id as i32;
    }
    d.nefc += size;
    match typ {
        kind::EQUALITY => d.ne += size,
        kind::FRICTION_DOF | kind::FRICTION_TENDON => d.nf += size,
        kind::LIMIT_JOINT | kind::LIMIT_TENDON => d.nl += size,
        _ => {}
    }
    true
}

/// Inverse-distance weights of the element's vertices at `point`, skipping vertex `skip`
/// (`mj_elemBodyWeight`); returns (global vertex ids, weights) in `out`.
fn elem_weights(
    m: &Model,
    d: &Data,
    f: usize,
    e: usize,
    skip: i32,
    point: &Vec3,
    out: &mut Vec<(usize, f64)>,
) {
    let dim = m.flex_dim[f] as usize;
    let va = m.flex_vertadr[f] as usize;
    let ed = &m.flex_elem[m.flex_elemdataadr[f] as usize + e * (dim + 1)..][..dim + 1];
    let start = out.len();
    for &v in ed {
        if v == skip {
            continue;
        }
        let g = va + v as usize;
        let x = &d.a.flexvert_xpos[3 * g..3 * g + 3];
        let dist =
            ((point[0] - x[0]).powi(2) + (point[1] - x[1]).powi(2) + (point[2] - x[2]).powi(2))
                .sqrt();
        out.push((g, 1.0 / max(dist, MINVAL)));
    }
    let sum: f64 = out[start..].iter().map(|x| x.1).sum();
    // times the reciprocal, as MuJoCo's `mju_scl(weight, weight, 1/sum)` (a division rounds
    // differently)
    let inv = 1.0 / max(sum, MINVAL);
    for x in out[start..].iter_mut() {
        x.1 *= inv;
    }
}

/// `[translational, rotational]` inverse weight of a contact's weighted bodies `wb` (side 1
/// from `side1`), for its rows' `efc_diagA`.
fn contact_invweight(m: &Model, wb: &[(usize, f64)], side1: usize) -> [f64; 2] {
    let (mut tran, mut rot) = (0.0, 0.0);
    for (k, &(b, w)) in wb.iter().enumerate() {
        // MuJoCo sums the unsigned side weights; a shell's interior-node redistribution can
        // make some of them negative
        let w = if k < side1 { -w } else { w };
        tran += m.body_invweight0[2 * b] * w;
        rot += m.body_invweight0[2 * b + 1] * w;
    }
    [tran, rot]
}

/// The weighted bodies of a contact: side 0 negative, side 1 positive (`mj_contactJacobian`).
/// Interpolated flexes are mapped onto their node bodies. Returns where side 1 starts in `out`.
pub fn contact_bodies(
    m: &Model,
    d: &Data,
    vc: &super::flex::VertCols,
    c: &crate::data::Contact,
    out: &mut Vec<(usize, f64)>,
    verts: &mut Vec<(usize, f64)>,
) -> usize {
    out.clear();
    let mut side1 = 0;
    for side in 0..2 {
        let sign = if side == 0 { -1.0 } else { 1.0 };
        if side == 1 {
            side1 = out.len();
        }
        if c.geom[side] >= 0 {
            out.push((m.geom_bodyid[c.geom[side] as usize] as usize, sign));
            continue;
        }
        let f = c.flex[side] as usize;
        verts.clear();
        if c.vert[side] >= 0 {
            verts.push((m.flex_vertadr[f] as usize + c.vert[side] as usize, 1.0));
        } else {
            elem_weights(
                m,
                d,
                f,
                c.elem[side] as usize,
                c.vert[1 - side],
                &c.pos,
                verts,
            );
        }
        if m.flex_interp[f] == 0 {
            for &(v, w) in verts.iter() {
                out.push((m.flex_vertbodyid[v] as usize, sign * w));
            }
        } else {
            super::flex::vert_node_weights(m, vc, f, verts, sign, out);
        }
    }
    side1
}

fn contact_rows(
    m: &Model,
    d: &mut Data,
    rs: &mut RowScratch,
    vc: &super::flex::VertCols,
    i: usize,
) -> bool {
    let nv = m.nv;
    let c = d.contact[i];
    let dim = c.dim as usize;
    let rot = dim > 3;
    rs.clear(nv);
    let mut wb = std::mem::take(&mut rs.wbody);
    let mut wv = std::mem::take(&mut rs.wvert);
    let side1 = contact_bodies(m, d, vc, &c, &mut wb, &mut wv);
    rs.con_invweight[i] = contact_invweight(m, &wb, side1);
    rs.wvert = wv;
    for &(b, w) in &wb {
        rs.add_body(m, d, b, &c.pos, w, rot);
    }
    rs.wbody = wb;
    rs.contact_chain(m, &c);
    if rs.chain.is_empty() {
        d.contact[i].exclude = 3;
        d.contact[i].efc_address = -1;
        rs.clear(nv);
        return true;
    }
    let chain = std::mem::take(&mut rs.chain);
    let n = chain.len();
    // rows of frame · J: normal, tangents, then spin/roll from the rotational Jacobian
    let nr = if dim > 1 { 3 } else { 1 };
    for r in 0..dim {
        for (k, &col) in chain.iter().enumerate() {
            let (src, fr) = if r < nr { (&rs.jp, r) } else { (&rs.jr, r - 3) };
            let v = c.frame[3 * fr] * src[col]
                + c.frame[3 * fr + 1] * src[nv + col]
                + c.frame[3 * fr + 2] * src[2 * nv + col];
            rs.rows[r * n + k] = v;
        }
    }
    let first = d.nefc;
    d.contact[i].efc_address = first as i32;
    let ok = if dim == 1 {
        add_rows(
            d,
            &rs.rows[..n],
            &chain,
            &[c.dist],
            &[c.includemargin],
            0.0,
            1,
            kind::CONTACT_FRICTIONLESS,
            i,
        )
    } else if m.opt.cone == Cone::Pyramidal {
        let mut ok = true;
        for k in 1..dim {
            let mu = c.friction[k - 1];
            // rows J_n ± μ_k J_k, stored after the frame rows
            let (head, tail) = rs.rows.split_at_mut(dim * n);
            for t in 0..n {
                tail[t] = head[t] + mu * head[k * n + t];
                tail[n + t] = head[t] - mu * head[k * n + t];
            }
            ok = add_rows(
                d,
                &tail[..2 * n],
                &chain,
                &[c.dist, c.dist],
                &[c.includemargin, c.includemargin],
                0.0,
                2,
                kind::CONTACT_PYRAMIDAL,
                i,
            );
            if !ok {
                break;
            }
        }
        ok
    } else {
        let mut pos = [0.0; 6];
        let mut mar = [0.0; 6];
        pos[0] = c.dist;
        mar[0] = c.includemargin;
        add_rows(
            d,
            &rs.rows[..dim * n],
            &chain,
            &pos[..dim],
            &mar[..dim],
            0.0,
            dim,
            kind::CONTACT_ELLIPTIC,
            i,
        )
    };
    if !ok {
        // the buffers filled (between two pairs of a pyramidal contact, say): the contact gets
        // no rows, as every later stage reads a contact as all of its rows
        d.nefc = first;
        d.contact[i].efc_address = -1;
    }
    rs.chain = chain;
    rs.clear(nv);
    ok
}

/// Builds the translational normal row `frame[0:3]·J` of contact `c` in `rs` (its columns in
/// `rs.chain`, values in `rs.rows`); returns its length. Used by the passive contact path.
pub fn normal_row(
    m: &Model,
    d: &Data,
    rs: &mut RowScratch,
    vc: &super::flex::VertCols,
    c: &crate::data::Contact,
) -> usize {
    let nv = m.nv;
    rs.clear(nv);
    let mut wb = std::mem::take(&mut rs.wbody);
    let mut wv = std::mem::take(&mut rs.wvert);
    contact_bodies(m, d, vc, c, &mut wb, &mut wv);
    for &(b, w) in &wb {
        rs.add_body(m, d, b, &c.pos, w, false);
    }
    rs.wbody = wb;
    rs.wvert = wv;
    rs.contact_chain(m, c);
    let n = rs.chain.len();
    for (k, &col) in rs.chain.iter().enumerate() {
        rs.rows[k] = c.frame[0] * rs.jp[col]
            + c.frame[1] * rs.jp[nv + col]
            + c.frame[2] * rs.jp[2 * nv + col];
    }
    n
}

/// The dofs and values of the row [`normal_row`] built.
pub fn normal_row_values(rs: &RowScratch, n: usize) -> (&[usize], &[f64]) {
    (&rs.chain[..n], &rs.rows[..n])
}

/// Clears the accumulators after [`normal_row`].
pub fn clear_row(rs: &mut RowScratch, nv: usize) {
    rs.clear(nv);
}

/// The two bodies of connect or weld `i`: its objects, or the bodies of its sites.
fn eq_bodies(m: &Model, i: usize) -> (usize, usize) {
    let (o1, o2) = (m.eq_obj1id[i] as usize, m.eq_obj2id[i] as usize);
    if m.eq_objtype[i] == obj::SITE {
        (m.site_bodyid[o1] as usize, m.site_bodyid[o2] as usize)
    } else {
        (o1, o2)
    }
}

/// World anchors and bodies of connect or weld `i` (`mj_equalityAnchors`): the anchors in
/// `eq_data` carried by the bodies, or the two sites' positions.
pub(crate) fn eq_anchors(m: &Model, d: &Data, i: usize) -> (Vec3, Vec3, usize, usize) {
    let (b1, b2) = eq_bodies(m, i);
    if m.eq_objtype[i] == obj::SITE {
        let site = |s: i32| -> Vec3 { get_at(&d.a.site_xpos, 3 * s as usize) };
        return (site(m.eq_obj1id[i]), site(m.eq_obj2id[i]), b1, b2);
    }
    let x = |b: usize, at: usize| -> Vec3 {
        let anchor: Vec3 = get_at(&m.eq_data, 11 * i + at);
        add3(
            &mul_mat_vec3(&get_at(&d.a.xmat, 9 * b), &anchor),
            &get_at(&d.a.xpos, 3 * b),
        )
    };
    // a weld's anchor on body 1 is data[3..6], a connect's data[0..3]
    let weld = 3 * (m.eq_type[i] != 0) as usize;
    (x(b1, weld), x(b2, 3 - weld), b1, b2)
}

/// The frames whose relative orientation weld `i` holds: the two bodies' and `relpose`, or
/// the two sites' (`xquat·site_quat`, no relpose), as `mj_instantiateEquality` takes them.
fn weld_frames(m: &Model, d: &Data, i: usize, b1: usize, b2: usize) -> (Quat, Quat, Option<Quat>) {
    let xquat = |b: usize| -> Quat { get_at(&d.a.xquat, 4 * b) };
    if m.eq_objtype[i] == obj::SITE {
        let site = |s: i32, b: usize| -> Quat {
            mul_quat(&xquat(b), &get_at(&m.site_quat, 4 * s as usize))
        };
        (site(m.eq_obj1id[i], b1), site(m.eq_obj2id[i], b2), None)
    } else {
        (xquat(b1), xquat(b2), Some(get_at(&m.eq_data, 11 * i + 6)))
    }
}

/// The world torque on body 1 of weld `i` from the forces `f` of its three orientation rows:
/// the transpose of the rows' map from relative angular velocity, `0.5·ts·Im(q̄₁·ω·q)` (so its
/// generalized force is the rows' `Jᵀf`), in the closed form MuJoCo 3.15.0's
/// `mj_rnePostConstraint` evaluates (its disassembly): `0.5·ts·Im(q₁·f·q̄)`, the scale applied
/// last. (Summed axis by axis, as the Jacobian's columns, it parted a weld's torque by an ulp.)
/// Body 2 gets its opposite.
#[inline(never)]
pub(crate) fn weld_torque(m: &Model, d: &Data, i: usize, f: &[f64]) -> Vec3 {
    let (b1, b2) = eq_bodies(m, i);
    let scale = 0.5 * m.eq_data[11 * i + 10];
    let (f0, f1, rel) = weld_frames(m, d, i, b1, b2);
    let quat = rel.map_or(f0, |r| mul_quat(&f0, &r));
    let q = mul_quat(&mul_quat_axis(&f1, &[f[0], f[1], f[2]]), &neg_quat(&quat));
    [scale * q[1], scale * q[2], scale * q[3]]
}

fn equality_rows(
    m: &Model,
    d: &mut Data,
    rs: &mut RowScratch,
    is: &mut super::interp::InterpScratch,
) -> bool {
    let nv = m.nv;
    for i in 0..m.neq {
        if m.eq_active0[i] == 0 {
            continue;
        }
        match m.eq_type[i] {
            0 | 1 => {
                let (p1, p2, b1, b2) = eq_anchors(m, d, i);
                let weld = m.eq_type[i] == 1;
                rs.clear(nv);
                rs.add_body(m, d, b1, &p1, 1.0, weld);
                rs.add_body(m, d, b2, &p2, -1.0, weld);
                if rs.touched.is_empty() {
                    continue;
                }
                super::sort::sort_small(&mut rs.touched);
                let chain = std::mem::take(&mut rs.touched);
                let n = chain.len();
                let mut pos = [0.0; 6];
                let dp = sub3(&p1, &p2);
                pos[..3].copy_from_slice(&dp);
                for r in 0..3 {
                    for (k, &col) in chain.iter().enumerate() {
                        rs.rows[r * n + k] = rs.jp[r * nv + col];
                    }
                }
                let size = if weld {
                    let data = &m.eq_data[11 * i..11 * i + 11];
                    let ts = data[10];
                    // orientation error neg(q1)·q0·relpose, or between the site frames
                    let (f0, f1, rel) = weld_frames(m, d, i, b1, b2);
                    let quat = rel.map_or(f0, |r| mul_quat(&f0, &r));
                    let quat1 = neg_quat(&f1);
                    let q2 = mul_quat(&quat1, &quat);
                    for k in 0..3 {
                        pos[3 + k] = q2[1 + k] * ts;
                    }
                    for (k, &col) in chain.iter().enumerate() {
                        let axis = [rs.jr[col], rs.jr[nv + col], rs.jr[2 * nv + col]];
                        let qa = mul_quat_axis(&quat1, &axis);
                        let q3 = mul_quat(&qa, &quat);
                        for r in 0..3 {
                            rs.rows[(3 + r) * n + k] = 0.5 * q3[1 + r] * ts;
                        }
                    }
                    6
                } else {
                    3
                };
                let zeros = [0.0; 6];
                let ok = add_rows(
                    d,
                    &rs.rows[..size * n],
                    &chain,
                    &pos[..size],
                    &zeros[..size],
                    0.0,
                    size,
                    kind::EQUALITY,
                    i,
                );
                rs.touched = chain;
                rs.clear(nv);
                if !ok {
                    return false;
                }
            }
            2 => {
                let data = &m.eq_data[11 * i..11 * i + 11];
                let j1 = m.eq_obj1id[i] as usize;
                let p1 = d.a.qpos[m.jnt_qposadr[j1] as usize] - m.qpos0[m.jnt_qposadr[j1] as usize];
                let d1 = m.jnt_dofadr[j1] as usize;
                let (pos, chain, vals): (f64, ([usize; 2], usize), [f64; 2]) =
                    if m.eq_obj2id[i] >= 0 {
                        let j2 = m.eq_obj2id[i] as usize;
                        let dif = d.a.qpos[m.jnt_qposadr[j2] as usize]
                            - m.qpos0[m.jnt_qposadr[j2] as usize];
                        let pos = p1
                            - data[0]
                            - (data[1] * dif
                                + data[2] * dif * dif
                                + data[3] * dif * dif * dif
                                + data[4] * dif * dif * dif * dif);
                        let deriv = data[1]
                            + 2.0 * data[2] * dif
                            + 3.0 * data[3] * dif * dif
                            + 4.0 * data[4] * dif * dif * dif;
                        let d2 = m.jnt_dofadr[j2] as usize;
                        if d1 < d2 {
                            (pos, ([d1, d2], 2), [1.0, -deriv])
                        } else if d2 < d1 {
                            (pos, ([d2, d1], 2), [-deriv, 1.0])
                        } else {
                            (pos, ([d1, 0], 1), [1.0 - deriv, 0.0])
                        }
                    } else {
                        (p1 - data[0], ([d1, 0], 1), [1.0, 0.0])
                    };
                let (ch, nc) = chain;
                if !add_rows(
                    d,
                    &vals[..nc],
                    &ch[..nc],
                    &[pos],
                    &[0.0],
                    0.0,
                    1,
                    kind::EQUALITY,
                    i,
                ) {
                    return false;
                }
            }
            4 => {
                let f = m.eq_obj1id[i] as usize;
                let ea = m.flex_edgeadr[f] as usize;
                for e in ea..ea + m.flex_edgenum[f] as usize {
                    if m.flexedge_rigid[e] != 0 {
                        continue;
                    }
                    let adr = m.flexedge_J_rowadr[e] as usize;
                    let nnz = m.flexedge_J_rownnz[e] as usize;
                    if nnz == 0 {
                        continue;
                    }
                    let chain: &mut Vec<usize> = &mut rs.touched;
                    chain.clear();
                    chain.extend(
                        m.flexedge_J_colind[adr..adr + nnz]
                            .iter()
                            .map(|&c| c as usize),
                    );
                    let chain = std::mem::take(&mut rs.touched);
                    let pos = d.a.flexedge_length[e] - m.flexedge_length0[e];
                    let mut tmp = std::mem::take(&mut rs.rows);
                    tmp[..nnz].copy_from_slice(&d.a.flexedge_J[adr..adr + nnz]);
                    let ok = add_rows(
                        d,
                        &tmp[..nnz],
                        &chain,
                        &[pos],
                        &[0.0],
                        0.0,
                        1,
                        kind::EQUALITY,
                        i,
                    );
                    rs.rows = tmp;
                    let mut chain = chain;
                    chain.clear();
                    rs.touched = chain;
                    if !ok {
                        return false;
                    }
                }
            }
            5 => {
                // vertex isometry: two rows per vertex; rows without dofs are skipped
                let f = m.eq_obj1id[i] as usize;
                let vb = m.flex_vertadr[f] as usize;
                for row in 2 * vb..2 * (vb + m.flex_vertnum[f] as usize) {
                    let adr = m.flexvert_J_rowadr[row] as usize;
                    let nnz = m.flexvert_J_rownnz[row] as usize;
                    if nnz == 0 {
                        continue;
                    }
                    let mut chain = std::mem::take(&mut rs.touched);
                    chain.clear();
                    chain.extend(
                        m.flexvert_J_colind[adr..adr + nnz]
                            .iter()
                            .map(|&c| c as usize),
                    );
                    let mut tmp = std::mem::take(&mut rs.rows);
                    tmp[..nnz].copy_from_slice(&d.a.flexvert_J[adr..adr + nnz]);
                    let pos = d.a.flexvert_length[row];
                    let ok = add_rows(
                        d,
                        &tmp[..nnz],
                        &chain,
                        &[pos],
                        &[0.0],
                        0.0,
                        1,
                        kind::EQUALITY,
                        i,
                    );
                    rs.rows = tmp;
                    chain.clear();
                    rs.touched = chain;
                    if !ok {
                        return false;
                    }
                }
            }
            6 => {
                // flex strain (interpolated flexes): one row per stored mode of the element
                let n = super::interp::strain_prepare(m, d, is, i);
                for e in 0..n {
                    let (pos, vals, chain) = super::interp::strain_row(m, is, e);
                    if !add_rows(d, vals, chain, &[pos], &[0.0], 0.0, 1, kind::EQUALITY, i) {
                        return false;
                    }
                }
            }
            _ => {}
        }
    }
    true
}

/// Builds the constraint rows of the current configuration (`mj_makeConstraint`).
pub fn make_constraint(m: &Model, d: &mut Data, s: &mut Scratch) {
    d.nefc = 0;
    d.ne = 0;
    d.nf = 0;
    d.nl = 0;
    if m.opt.disabled(disable::CONSTRAINT) || m.nv == 0 {
        return;
    }
    let mut rs = std::mem::take(&mut s.rows);
    let mut ok = true;
    if !m.opt.disabled(disable::EQUALITY) {
        ok = equality_rows(m, d, &mut rs, &mut s.interp);
    }
    if ok && !m.opt.disabled(disable::FRICTIONLOSS) {
        for i in 0..m.nv {
            // any non-zero value adds a row, as in MuJoCo (a tendon's only when positive)
            if m.dof_frictionloss[i] != 0.0
                && !add_rows(
                    d,
                    &[1.0],
                    &[i],
                    &[0.0],
                    &[0.0],
                    m.dof_frictionloss[i],
                    1,
                    kind::FRICTION_DOF,
                    i,
                )
            {
                ok = false;
                break;
            }
        }
        for t in 0..m.ntendon {
            if !ok || m.tendon_frictionloss[t] <= 0.0 {
                continue;
            }
            tendon_row(m, d, &mut rs, t, 1.0);
            ok = add_rows(
                d,
                &rs.tvals,
                &rs.tcols,
                &[0.0],
                &[0.0],
                m.tendon_frictionloss[t],
                1,
                kind::FRICTION_TENDON,
                t,
            );
        }
    }
    if ok && !m.opt.disabled(disable::LIMIT) {
        'lim: for j in 0..m.njnt {
            if m.jnt_limited[j] == 0 {
                continue;
            }
            let margin = m.jnt_margin[j];
            let jt = m.jnt_type[j];
            if jt == 2 || jt == 3 {
                let value = d.a.qpos[m.jnt_qposadr[j] as usize];
                for side in [-1.0f64, 1.0] {
                    let lim = m.jnt_range[2 * j + if side > 0.0 { 1 } else { 0 }];
                    let dist = side * (lim - value);
                    if dist < margin
                        && !add_rows(
                            d,
                            &[-side],
                            &[m.jnt_dofadr[j] as usize],
                            &[dist],
                            &[margin],
                            0.0,
                            1,
                            kind::LIMIT_JOINT,
                            j,
                        )
                    {
                        ok = false;
                        break 'lim;
                    }
                }
            } else if jt == 1 {
                let a = m.jnt_qposadr[j] as usize;
                let mut q = [
                    d.a.qpos[a],
                    d.a.qpos[a + 1],
                    d.a.qpos[a + 2],
                    d.a.qpos[a + 3],
                ];
                normalize4(&mut q);
                let mut axis = quat_to_vel(&q);
                let value = normalize3(&mut axis);
                let dist = m.jnt_range[2 * j].max(m.jnt_range[2 * j + 1]) - value;
                if dist < margin {
                    let da = m.jnt_dofadr[j] as usize;
                    let vals = [-axis[0], -axis[1], -axis[2]];
                    if !add_rows(
                        d,
                        &vals,
                        &[da, da + 1, da + 2],
                        &[dist],
                        &[margin],
                        0.0,
                        1,
                        kind::LIMIT_JOINT,
                        j,
                    ) {
                        ok = false;
                    }
                }
            }
        }
    }
    if ok && !m.opt.disabled(disable::LIMIT) {
        'tlim: for t in 0..m.ntendon {
            if m.tendon_limited[t] == 0 {
                continue;
            }
            let (value, margin) = (d.a.ten_length[t], m.tendon_margin[t]);
            for side in [-1.0f64, 1.0] {
                let lim = m.tendon_range[2 * t + if side > 0.0 { 1 } else { 0 }];
                let dist = side * (lim - value);
                if dist < margin {
                    tendon_row(m, d, &mut rs, t, -side);
                    if !add_rows(
                        d,
                        &rs.tvals,
                        &rs.tcols,
                        &[dist],
                        &[margin],
                        0.0,
                        1,
                        kind::LIMIT_TENDON,
                        t,
                    ) {
                        ok = false;
                        break 'tlim;
                    }
                }
            }
        }
    }
    // passive flex contacts (mj_nc): flex–flex, or flex against a static geom. The tag replaces
    // any earlier exclusion, so a contact in the gap band (exclude 1) is passive too and pulls
    // with -k·dist, dist > 0 (checked against MuJoCo 3.15.0)
    for i in 0..d.ncon {
        let c = &d.contact[i];
        let passive = |f: i32| f >= 0 && crate::flexkind::flex_contact_possible(m, f as usize);
        if !(passive(c.flex[0]) || passive(c.flex[1])) {
            continue;
        }
        let static_side = |side: usize| {
            c.flex[side] >= 0
                || (c.geom[side] >= 0
                    && m.body_weldid[m.geom_bodyid[c.geom[side] as usize] as usize] == 0)
        };
        if static_side(0) && static_side(1) {
            d.contact[i].exclude = 4;
            d.contact[i].efc_address = -1;
        }
    }
    if ok && !m.opt.disabled(disable::CONTACT) {
        if rs.con_invweight.len() < d.ncon {
            // the contact buffer grew past its first size (`collision::add_contact`)
            rs.con_invweight.resize(d.ncon, [0.0; 2]);
        }
        for i in 0..d.ncon {
            if d.contact[i].exclude != 0 {
                continue;
            }
            if !contact_rows(m, d, &mut rs, &s.vertcols, i) {
                break;
            }
        }
    }
    diag_approx(m, d, &rs);
    s.rows = rs;
    if s.metric.has_diag {
        metric_diag_scale(m, d, &s.metric.efm_sdiag);
    }
    make_impedance(m, d);
}

/// Recomputes every row's `efc_diagA` and impedance once the actuators' metric terms have
/// joined `efm_diag` (MuJoCo 3.15.0 scales the rows by the whole backbone diagonal, actuators
/// included, and skips a force-clamped actuator: both known only after the actuation stage).
pub fn rescale_rows(m: &Model, d: &mut Data, s: &Scratch) {
    diag_approx(m, d, &s.rows);
    metric_diag_scale(m, d, &s.metric.efm_sdiag);
    make_impedance(m, d);
}

/// Under discrete, each row's approximate inverse inertia shrinks as the metric's per-dof
/// diagonal `e = h·D + h²·K` adds to M: by `Σ J²/(M_jj + e_j) / Σ J²/M_jj` over the row's
/// Jacobian (MuJoCo 3.15.0, fitted exactly to `efc_diagA` with joint damping and springs; the
/// friction rows of a contact then follow its first row in `make_impedance`). Rows on dofs
/// with `e = 0` (flex vertices) keep their value.
fn metric_diag_scale(m: &Model, d: &mut Data, e: &[f64]) {
    for r in 0..d.nefc {
        let adr = d.a.efc_J_rowadr[r] as usize;
        let (mut with, mut without) = (0.0, 0.0);
        for k in adr..adr + d.a.efc_J_rownnz[r] as usize {
            let j = d.a.efc_J_colind[k] as usize;
            let mjj = d.a.M[(m.M_rowadr[j] + m.M_rownnz[j] - 1) as usize];
            let jj = d.a.efc_J[k] * d.a.efc_J[k];
            with += jj / (mjj + e[j]);
            without += jj / mjj;
        }
        // a row whose Jacobian is round-off on the damped dofs (a contact normal of 1e-16
        // along a slide) keeps its value in MuJoCo 3.15.0: scaled by 0.9996 it put the arm
        // 4e-6 m off within 0.8 s (random scene 89 with --actuated)
        if without > MINVAL {
            d.a.efc_diagA[r] *= with / without;
        }
    }
}

/// Approximate inverse inertia of each row (`mj_diagApprox`).
fn diag_approx(m: &Model, d: &mut Data, rs: &RowScratch) {
    let mut weldcnt = 0;
    let mut i = 0;
    while i < d.nefc {
        let id = d.a.efc_id[i] as usize;
        match d.a.efc_type[i] {
            kind::EQUALITY => match m.eq_type[id] {
                0 => {
                    let (b1, b2) = eq_bodies(m, id);
                    d.a.efc_diagA[i] = m.body_invweight0[2 * b1] + m.body_invweight0[2 * b2];
                }
                1 => {
                    let (b1, b2) = eq_bodies(m, id);
                    let r = (weldcnt > 2) as usize;
                    d.a.efc_diagA[i] =
                        m.body_invweight0[2 * b1 + r] + m.body_invweight0[2 * b2 + r];
                    weldcnt = (weldcnt + 1) % 6;
                }
                2 => {
                    let mut v = m.dof_invweight0[m.jnt_dofadr[m.eq_obj1id[id] as usize] as usize];
                    if m.eq_obj2id[id] >= 0 {
                        v += m.dof_invweight0[m.jnt_dofadr[m.eq_obj2id[id] as usize] as usize];
                    }
                    d.a.efc_diagA[i] = v;
                }
                4 => {
                    // one row per non-rigid edge with a Jacobian, in edge order
                    let f = m.eq_obj1id[id] as usize;
                    let ea = m.flex_edgeadr[f] as usize;
                    for e in ea..ea + m.flex_edgenum[f] as usize {
                        if m.flexedge_rigid[e] != 0 || m.flexedge_J_rownnz[e] == 0 {
                            continue;
                        }
                        d.a.efc_diagA[i] = m.flexedge_invweight0[e];
                        i += 1;
                    }
                    continue;
                }
                5 => {
                    // MuJoCo writes two values per vertex whether or not its rows exist (a
                    // vertex without dofs has none), so later rows can inherit them
                    let f = m.eq_obj1id[id] as usize;
                    let vb = m.flex_vertadr[f] as usize;
                    for v in vb..vb + m.flex_vertnum[f] as usize {
                        let w = m.body_invweight0[2 * m.flex_vertbodyid[v] as usize];
                        for _ in 0..2 {
                            if i < d.nefc {
                                d.a.efc_diagA[i] = w;
                            }
                            i += 1;
                        }
                    }
                    continue;
                }
                6 => d.a.efc_diagA[i] = super::interp::strain_diag(m, id),
                _ => d.a.efc_diagA[i] = 1.0,
            },
            kind::FRICTION_DOF => d.a.efc_diagA[i] = m.dof_invweight0[id],
            kind::FRICTION_TENDON | kind::LIMIT_TENDON => {
                d.a.efc_diagA[i] = m.tendon_invweight0[id]
            }
            kind::LIMIT_JOINT => d.a.efc_diagA[i] = m.dof_invweight0[m.jnt_dofadr[id] as usize],
            _ => {
                let [tran, rot] = rs.con_invweight[id];
                let c = &d.contact[id];
                let (dim, friction) = (c.dim as usize, c.friction);
                match d.a.efc_type[i] {
                    kind::CONTACT_FRICTIONLESS => {
                        d.a.efc_diagA[i] = tran;
                    }
                    kind::CONTACT_ELLIPTIC => {
                        for j in 0..dim {
                            d.a.efc_diagA[i + j] = if j < 3 { tran } else { rot };
                        }
                        i += dim;
                        continue;
                    }
                    _ => {
                        for j in 0..dim - 1 {
                            let fri = friction[j];
                            let v = tran + fri * fri * if j < 2 { tran } else { rot };
                            d.a.efc_diagA[i + 2 * j] = v;
                            d.a.efc_diagA[i + 2 * j + 1] = v;
                        }
                        i += 2 * (dim - 1);
                        continue;
                    }
                }
            }
        }
        i += 1;
    }
}

/// solref and solimp of row `i`, with MuJoCo's safety adjustments (`getsolparam`).
fn sol_params(m: &Model, d: &Data, i: usize) -> ([f64; 2], [f64; 2], [f64; 5]) {
    let id = d.a.efc_id[i] as usize;
    let (mut solref, mut fric, mut solimp) = match d.a.efc_type[i] {
        kind::EQUALITY => (
            [m.eq_solref[2 * id], m.eq_solref[2 * id + 1]],
            [0.0; 2],
            arr5(&m.eq_solimp[5 * id..]),
        ),
        kind::LIMIT_JOINT => (
            [m.jnt_solref[2 * id], m.jnt_solref[2 * id + 1]],
            [0.0; 2],
            arr5(&m.jnt_solimp[5 * id..]),
        ),
        kind::FRICTION_DOF => (
            [m.dof_solref[2 * id], m.dof_solref[2 * id + 1]],
            [0.0; 2],
            arr5(&m.dof_solimp[5 * id..]),
        ),
        kind::FRICTION_TENDON => (
            [m.tendon_solref_fri[2 * id], m.tendon_solref_fri[2 * id + 1]],
            [0.0; 2],
            arr5(&m.tendon_solimp_fri[5 * id..]),
        ),
        kind::LIMIT_TENDON => (
            [m.tendon_solref_lim[2 * id], m.tendon_solref_lim[2 * id + 1]],
            [0.0; 2],
            arr5(&m.tendon_solimp_lim[5 * id..]),
        ),
        _ => {
            let c = &d.contact[id];
            (c.solref, c.solreffriction, c.solimp)
        }
    };
    if (solref[0] > 0.0) ^ (solref[1] > 0.0) {
        solref = [0.02, 1.0];
    }
    let discrete = m.opt.integrator == Integrator::Discrete;
    let h = m.opt.timestep;
    if !m.opt.disabled(disable::REFSAFE) && solref[0] > 0.0 && !discrete {
        solref[0] = max(solref[0], 2.0 * h);
    }
    if (fric[0] > 0.0) ^ (fric[1] > 0.0) {
        fric = [0.0; 2];
    }
    if !m.opt.disabled(disable::REFSAFE) && fric[0] > 0.0 && !discrete {
        fric[0] = max(fric[0], 2.0 * h);
    }
    solimp[0] = solimp[0].clamp(MINIMP, MAXIMP);
    solimp[1] = solimp[1].clamp(MINIMP, MAXIMP);
    solimp[2] = max(solimp[2], 0.0);
    solimp[3] = solimp[3].clamp(MINIMP, MAXIMP);
    solimp[4] = max(solimp[4], 1.0);
    (solref, fric, solimp)
}

fn arr5(s: &[f64]) -> [f64; 5] {
    [s[0], s[1], s[2], s[3], s[4]]
}

/// Impedance and its derivative (`getimpedance`).
fn impedance(solimp: &[f64; 5], pos: f64, margin: f64) -> (f64, f64) {
    if solimp[0] == solimp[1] || solimp[2] <= MINVAL {
        return (0.5 * (solimp[0] + solimp[1]), 0.0);
    }
    let mut x = (pos - margin) / solimp[2];
    let mut sgn = 1.0;
    if x < 0.0 {
        x = -x;
        sgn = -1.0;
    }
    if x >= 1.0 || x <= 0.0 {
        return (if x >= 1.0 { solimp[1] } else { solimp[0] }, 0.0);
    }
    let pw = |a: f64, b: f64| {
        if b == 1.0 {
            a
        } else if b == 2.0 {
            a * a
        } else {
            a.powf(b)
        }
    };
    let (y, yp) = if solimp[4] == 1.0 {
        (x, 1.0)
    } else if x <= solimp[3] {
        let a = 1.0 / pw(solimp[3], solimp[4] - 1.0);
        (a * pw(x, solimp[4]), solimp[4] * a * pw(x, solimp[4] - 1.0))
    } else {
        let b = 1.0 / pw(1.0 - solimp[3], solimp[4] - 1.0);
        (
            1.0 - b * pw(1.0 - x, solimp[4]),
            solimp[4] * b * pw(1.0 - x, solimp[4] - 1.0),
        )
    };
    (
        solimp[0] + y * (solimp[1] - solimp[0]),
        yp * sgn * (solimp[1] - solimp[0]) / solimp[2],
    )
}

/// `efc_R`, `efc_D`, `efc_KBIP` and the adjusted `efc_diagA` (`mj_makeImpedance`).
fn make_impedance(m: &Model, d: &mut Data) {
    let nefc = d.nefc;
    let discrete = m.opt.integrator == Integrator::Discrete;
    let h = m.opt.timestep;
    let mut i = 0;
    while i < nefc {
        let (solref, fric, solimp) = sol_params(m, d, i);
        let id = d.a.efc_id[i] as usize;
        let (dim, pos) = match d.a.efc_type[i] {
            kind::CONTACT_ELLIPTIC => (d.contact[id].dim as usize, d.a.efc_pos[i]),
            kind::CONTACT_PYRAMIDAL => (2 * (d.contact[id].dim as usize - 1), d.a.efc_pos[i]),
            kind::EQUALITY if m.eq_type[id] == 1 => (6, norm_n(&d.a.efc_pos[i..i + 6])),
            kind::EQUALITY if m.eq_type[id] == 0 => (3, norm_n(&d.a.efc_pos[i..i + 3])),
            _ => (1, d.a.efc_pos[i]),
        };
        let (imp, impp) = impedance(&solimp, pos, d.a.efc_margin[i]);
        for j in 0..dim {
            let r = i + j;
            d.a.efc_R[r] = max(MINVAL, (1.0 - imp) * d.a.efc_diagA[r] / imp);
            let tp = d.a.efc_type[r];
            let ell_fric = tp == kind::CONTACT_ELLIPTIC && j > 0;
            let friction = tp == kind::FRICTION_DOF || tp == kind::FRICTION_TENDON || ell_fric;
            let rf = if ell_fric && (fric[0] != 0.0 || fric[1] != 0.0) {
                fric
            } else {
                solref
            };
            let dmax = solimp[1];
            let mut k = if friction {
                0.0
            } else if rf[0] > 0.0 {
                1.0 / max(MINVAL, dmax * dmax * rf[0] * rf[0] * rf[1] * rf[1])
            } else {
                -rf[0] / max(MINVAL, dmax * dmax)
            };
            let mut b = if rf[1] > 0.0 {
                2.0 / max(MINVAL, dmax * rf[0])
            } else {
                -rf[1] / max(MINVAL, dmax)
            };
            // under discrete (refsafe on), a limit or contact spring stiffer than 1/(h²·imp)
            // is capped there, its damping scaled by the same factor's square root and kept
            // below the bound that leaves R at least its value at impedance mjMAXIMP (MuJoCo
            // 3.15.0's mj_makeImpedance, read off its disassembly: the formulas and their
            // order of operations; scripts/oracle/cap-probe.py shows where the cap starts)
            let limit_or_contact = (kind::LIMIT_JOINT..=kind::CONTACT_ELLIPTIC).contains(&tp);
            if discrete
                && !m.opt.disabled(disable::REFSAFE)
                && rf[0] > 0.0
                && limit_or_contact
                && k > 0.0
            {
                let ratio = imp * (h * h * k);
                if ratio > 1.0 {
                    k = 1.0 / (h * h * imp);
                    let bound = (1.0 - imp) * MAXIMP / max(MINVAL, imp * (1.0 - MAXIMP)) - 2.0;
                    let bound = (if bound <= 0.0 { 0.0 } else { bound }) / h;
                    let scaled = b / ratio.sqrt();
                    b = if scaled <= bound { scaled } else { bound };
                }
            }
            d.a.efc_KBIP[4 * r] = k;
            d.a.efc_KBIP[4 * r + 1] = b;
            d.a.efc_KBIP[4 * r + 2] = imp;
            d.a.efc_KBIP[4 * r + 3] = impp;
            if discrete {
                // end-of-step spring-damper: the row's compliance shrinks by 1 + hB + h²KI, but
                // not below its value at impedance mjMAXIMP; friction rows of a contact then
                // take the normal row's scaled value below
                let floor = max(MINVAL, (1.0 - MAXIMP) * d.a.efc_diagA[r] / MAXIMP);
                let shrunk = d.a.efc_R[r] / (h * h * k * imp + (1.0 + b * h));
                d.a.efc_R[r] = if floor <= shrunk { shrunk } else { floor };
            }
        }
        i += dim;
    }
    // friction dimensions of contacts
    let mut i = d.ne + d.nf;
    while i < nefc {
        let tp = d.a.efc_type[i];
        if tp == kind::CONTACT_PYRAMIDAL || tp == kind::CONTACT_ELLIPTIC {
            let id = d.a.efc_id[i] as usize;
            let dim = d.contact[id].dim as usize;
            let fr = d.contact[id].friction;
            d.a.efc_R[i + 1] = d.a.efc_R[i] / max(MINVAL, m.opt.impratio);
            let mu = fr[0] * (d.a.efc_R[i + 1] / d.a.efc_R[i]).sqrt();
            d.contact[id].mu = mu;
            if tp == kind::CONTACT_ELLIPTIC {
                for j in 1..dim - 1 {
                    d.a.efc_R[i + j + 1] = d.a.efc_R[i + 1] * fr[0] * fr[0] / (fr[j] * fr[j]);
                }
                i += dim;
            } else {
                let rpy = 2.0 * mu * mu * d.a.efc_R[i];
                for j in 0..2 * (dim - 1) {
                    d.a.efc_R[i + j] = rpy;
                }
                i += 2 * (dim - 1);
            }
        } else {
            i += 1;
        }
    }
    for i in 0..nefc {
        let imp = d.a.efc_KBIP[4 * i + 2];
        d.a.efc_diagA[i] = d.a.efc_R[i] * imp / (1.0 - imp);
        d.a.efc_D[i] = 1.0 / d.a.efc_R[i];
    }
}

/// `|v|` as `mju_norm` forms it: the square root of `mju_dot(v, v)` (from four entries on, its
/// four running sums give other roundings than a plain sum: a condim-6 elliptic cone parted
/// from MuJoCo there).
fn norm_n(v: &[f64]) -> f64 {
    super::solver::dot_mj(v.len(), |k| v[k] * v[k]).sqrt()
}

/// Whether MuJoCo stores the constraint Jacobian sparse (`mj_isSparse`): `jacobian="sparse"`,
/// or `auto` from 60 dofs on.
pub fn sparse_jacobian(m: &Model) -> bool {
    use crate::model::JacobianKind;
    match m.opt.jacobian {
        JacobianKind::Sparse => true,
        JacobianKind::Dense => false,
        JacobianKind::Auto => m.nv >= 60,
    }
}

/// `J[r]·x` summed in MuJoCo's order: over the row's nonzeros as `mju_dotSparse` when the
/// Jacobian is sparse, else as `mju_dot` over the whole dense row of `nv` columns (four running
/// sums by column, then the last `nv mod 4` columns), where the zeros leave the sums as they are
/// but each product's column decides which sum it joins.
#[inline]
pub fn jac_row_dot(m: &Model, d: &Data, r: usize, x: &[f64]) -> f64 {
    let adr = d.a.efc_J_rowadr[r] as usize;
    let n = d.a.efc_J_rownnz[r] as usize;
    let (vals, cols) = (&d.a.efc_J[adr..adr + n], &d.a.efc_J_colind[adr..adr + n]);
    if sparse_jacobian(m) {
        return super::solver::dot_sparse_avx(vals, x, cols);
    }
    dense_row_dot(vals, cols, x, m.nv, |c| c)
}

/// `J[r]·x` in a dense model as MuJoCo forms it on an island's own block of J (`mju_block`):
/// `mju_dot` over the island's `n` columns, column `c` of the model being column `local[c]` of
/// the block, or outside it (`usize::MAX`, left out).
#[inline]
pub fn jac_row_dot_local(d: &Data, r: usize, x: &[f64], local: &[usize], n: usize) -> f64 {
    let adr = d.a.efc_J_rowadr[r] as usize;
    let k = d.a.efc_J_rownnz[r] as usize;
    let (vals, cols) = (&d.a.efc_J[adr..adr + k], &d.a.efc_J_colind[adr..adr + k]);
    dense_row_dot(vals, cols, x, n, |c| local[c])
}

/// `Σ vals[t]·x[cols[t]]` in `mju_dot`'s order over a dense row of `nv` columns, model column
/// `c` being column `col(c)` of the row: the product in row column `k` joins running sum
/// `k mod 4` while `k` is below the last multiple of 4, the rest are summed apart and added
/// last. Four named sums, not an indexed array (which went through
/// memory: 19% of a small contact model's step); the columns come in runs, so the branch on
/// `c mod 4` predicts well (rotating four registers per run of columns was slower still).
#[inline]
fn dense_row_dot(
    vals: &[f64],
    cols: &[i32],
    x: &[f64],
    nv: usize,
    col: impl Fn(usize) -> usize,
) -> f64 {
    let body = nv - nv % 4;
    let (mut s0, mut s1, mut s2, mut s3, mut tail) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for (&v, &c) in vals.iter().zip(cols) {
        let p = v * x[c as usize];
        let c = col(c as usize);
        if c == usize::MAX {
            // a column outside the island's block
            continue;
        }
        if c >= body {
            tail += p;
            continue;
        }
        match c & 3 {
            0 => s0 += p,
            1 => s1 += p,
            2 => s2 += p,
            _ => s3 += p,
        }
    }
    ((s0 + s2) + (s1 + s3)) + tail
}

/// `res = J·vec` over the constraint rows.
pub fn mul_jac(m: &Model, d: &Data, res: &mut [f64], vec: &[f64]) {
    for (r, out) in res[..d.nefc].iter_mut().enumerate() {
        *out = jac_row_dot(m, d, r, vec);
    }
}

/// `res = J·vec − aref` over the rows: each row's violation of its reference acceleration at
/// the acceleration `vec` (the solvers' `jar`).
pub fn residual(m: &Model, d: &Data, res: &mut [f64], vec: &[f64]) {
    mul_jac(m, d, res, vec);
    for (r, aref) in res[..d.nefc].iter_mut().zip(&d.a.efc_aref[..d.nefc]) {
        *r -= aref;
    }
}

/// `res = Jᵀ·vec` (res has nv entries).
pub fn mul_jac_t(d: &Data, res: &mut [f64], vec: &[f64]) {
    res.fill(0.0);
    for r in 0..d.nefc {
        let f = vec[r];
        if f == 0.0 {
            continue;
        }
        let adr = d.a.efc_J_rowadr[r] as usize;
        let n = d.a.efc_J_rownnz[r] as usize;
        for (&v, &c) in d.a.efc_J[adr..adr + n]
            .iter()
            .zip(&d.a.efc_J_colind[adr..adr + n])
        {
            res[c as usize] += v * f;
        }
    }
}

/// Velocity stage: `efc_vel = J·qvel` and `efc_aref` (`mj_referenceConstraint`), with the
/// `J̇·qvel` correction of connect and weld rows.
pub fn reference(m: &Model, d: &mut Data, s: &mut Scratch) {
    let n = d.nefc;
    let mut vel = std::mem::take(&mut d.a.efc_vel);
    mul_jac(m, d, &mut vel, &d.a.qvel);
    d.a.efc_vel = vel;
    let discrete = m.opt.integrator == Integrator::Discrete;
    let h = m.opt.timestep;
    for i in 0..n {
        let k = &d.a.efc_KBIP[4 * i..4 * i + 4];
        let v = d.a.efc_vel[i];
        let r = d.a.efc_pos[i] - d.a.efc_margin[i];
        d.a.efc_aref[i] = if discrete {
            -k[1] * v - k[0] * k[2] * (r + h * v)
        } else {
            -k[1] * v - k[0] * k[2] * r
        };
    }
    if d.ne > 0 {
        jdot_v(m, d, &mut s.rows, &mut s.jac.chain);
    }
    // the discrete integrator's spring-damper at the end of the step: the whole reference,
    // J̇·qvel included, over 1 + h·B + h²·K·I (MuJoCo 3.15.0 divides after mj_Jdotv)
    if discrete {
        for i in 0..n {
            let k = &d.a.efc_KBIP[4 * i..4 * i + 4];
            d.a.efc_aref[i] /= 1.0 + h * k[1] + h * h * k[0] * k[2];
        }
    }
    // last: MuJoCo 3.15.0's discrete integrator does not divide the adhesion bias (the other
    // integrators add it before J̇·v, which only equality rows take)
    super::adhesion::reference(m, d);
}

/// Row forces, states and the constraint cost for residuals `jar = J·qacc − aref`
/// (`mj_constraintUpdate_impl`). Elliptic cone Hessians go to `contact.h` when asked.
pub fn update(d: &mut Data, jar: &[f64], cone_hessian: bool) -> f64 {
    let mut s = 0.0;
    let mut i = 0;
    while i < d.nefc {
        i = update_row(d, jar, i, cone_hessian, &mut s);
    }
    s
}

/// `update` over the rows `rows` only (ascending, an elliptic contact's rows together): one
/// island's forces, states and cost.
pub fn update_rows(d: &mut Data, jar: &[f64], rows: &[usize], cone_hessian: bool) -> f64 {
    let mut s = 0.0;
    let mut k = 0;
    while k < rows.len() {
        let i = rows[k];
        k += update_row(d, jar, i, cone_hessian, &mut s) - i;
    }
    s
}

/// Force and state of row `i` (all rows of its contact when elliptic), its cost added to `s`;
/// returns the next row. Inlined into the row loops: a row outside an elliptic cone is a few
/// operations, which the call and its reloads of the row counts used to outweigh.
#[inline(always)]
fn update_row(d: &mut Data, jar: &[f64], i: usize, cone_hessian: bool, s: &mut f64) -> usize {
    let (ne, nf) = (d.ne, d.nf);
    {
        let dd = d.a.efc_D[i];
        d.a.efc_force[i] = -dd * jar[i];
        if i < ne {
            *s += 0.5 * dd * jar[i] * jar[i];
            d.a.efc_state[i] = state::QUADRATIC;
            return i + 1;
        }
        if i < ne + nf {
            let (rr, fl) = (d.a.efc_R[i], d.a.efc_frictionloss[i]);
            if jar[i] <= -rr * fl {
                *s += -0.5 * rr * fl * fl - fl * jar[i];
                d.a.efc_force[i] = fl;
                d.a.efc_state[i] = state::LINEARNEG;
            } else if jar[i] >= rr * fl {
                *s += -0.5 * rr * fl * fl + fl * jar[i];
                d.a.efc_force[i] = -fl;
                d.a.efc_state[i] = state::LINEARPOS;
            } else {
                *s += 0.5 * dd * jar[i] * jar[i];
                d.a.efc_state[i] = state::QUADRATIC;
            }
            return i + 1;
        }
        if d.a.efc_type[i] != kind::CONTACT_ELLIPTIC {
            if jar[i] >= 0.0 {
                d.a.efc_force[i] = 0.0;
                d.a.efc_state[i] = state::SATISFIED;
            } else {
                *s += 0.5 * dd * jar[i] * jar[i];
                d.a.efc_state[i] = state::QUADRATIC;
            }
            return i + 1;
        }
        update_elliptic(d, jar, i, cone_hessian, s)
    }
}

/// [`update_row`] for the first row `i` of an elliptic contact: force, state and cost of all
/// its rows, and its cone Hessian when asked; returns the row after the contact.
#[inline(never)]
fn update_elliptic(d: &mut Data, jar: &[f64], i: usize, cone_hessian: bool, s: &mut f64) -> usize {
    {
        let dd = d.a.efc_D[i];
        let id = d.a.efc_id[i] as usize;
        let (mu, fr, dim) = (
            d.contact[id].mu,
            d.contact[id].friction,
            d.contact[id].dim as usize,
        );
        for j in 1..dim {
            d.a.efc_force[i + j] = -d.a.efc_D[i + j] * jar[i + j];
        }
        let mut u = [0.0; 6];
        u[0] = jar[i] * mu;
        for j in 1..dim {
            u[j] = jar[i + j] * fr[j - 1];
        }
        let nn = u[0];
        let t = norm_n(&u[1..dim]);
        if nn >= mu * t || (t <= 0.0 && nn >= 0.0) {
            for j in 0..dim {
                d.a.efc_force[i + j] = 0.0;
            }
            d.a.efc_state[i] = state::SATISFIED;
        } else if mu * nn + t <= 0.0 || (t <= 0.0 && nn < 0.0) {
            for j in 0..dim {
                *s += 0.5 * d.a.efc_D[i + j] * jar[i + j] * jar[i + j];
            }
            d.a.efc_state[i] = state::QUADRATIC;
        } else {
            let dm = dd / (mu * mu * (1.0 + mu * mu));
            let nmt = nn - mu * t;
            *s += 0.5 * dm * nmt * nmt;
            d.a.efc_force[i] = -dm * nmt * mu;
            for j in 1..dim {
                d.a.efc_force[i + j] = -d.a.efc_force[i] / t * u[j] * fr[j - 1];
            }
            d.a.efc_state[i] = state::CONE;
            if cone_hessian {
                let h = &mut d.contact[id].h;
                h.fill(0.0);
                let scl = -mu / t;
                h[0] = 1.0;
                for j in 1..dim {
                    h[j] = scl * u[j];
                }
                let scl = mu * nn / (t * t * t);
                for k in 1..dim {
                    for j in k..dim {
                        h[k * dim + j] = scl * u[j] * u[k];
                    }
                }
                let scl = mu * mu - mu * nn / t;
                for j in 1..dim {
                    h[j * (dim + 1)] += scl;
                }
                for k in 0..dim {
                    let sk = dm * if k == 0 { mu } else { fr[k - 1] };
                    for j in k..dim {
                        h[k * dim + j] *= sk * if j == 0 { mu } else { fr[j - 1] };
                    }
                }
                for k in 0..dim {
                    for j in k + 1..dim {
                        h[j * dim + k] = h[k * dim + j];
                    }
                }
            }
        }
        for j in 1..dim {
            d.a.efc_state[i + j] = d.a.efc_state[i];
        }
        i + dim
    }
}

/// Rotation vector (axis·angle) of a unit quaternion (`mju_quat2Vel` with dt = 1).
fn quat_to_vel(q: &Quat) -> Vec3 {
    let mut axis = [q[1], q[2], q[3]];
    let sin_a_2 = normalize3(&mut axis);
    let mut speed = 2.0 * sin_a_2.atan2(q[0]);
    if speed > PI {
        speed -= 2.0 * PI;
    }
    scl3(&axis, speed)
}

#[cfg(test)]
mod dense_dot_tests {
    use super::dense_row_dot;

    /// `mju_dot` over the dense row, written plainly: each column's product into sum c mod 4
    /// below the last multiple of 4, the rest apart.
    fn plain(vals: &[f64], cols: &[i32], x: &[f64], nv: usize) -> f64 {
        let body = nv - nv % 4;
        let (mut s, mut tail) = ([0.0; 4], 0.0);
        for (&v, &c) in vals.iter().zip(cols) {
            let c = c as usize;
            if c < body {
                s[c % 4] += v * x[c];
            } else {
                tail += v * x[c];
            }
        }
        ((s[0] + s[2]) + (s[1] + s[3])) + tail
    }

    #[test]
    fn runs_sum_as_the_plain_residue_classes_bit_for_bit() {
        let mut seed = 0x2545f4914f6cdd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for case in 0..2000 {
            let nv = 1 + (next() % 59) as usize;
            let x: Vec<f64> = (0..nv)
                .map(|i| ((i * 7919 + case) % 97) as f64 / 7.0 - 6.3)
                .collect();
            // ascending columns, in runs and gaps
            let cols: Vec<i32> = (0..nv)
                .filter(|_| next() % 3 != 0)
                .map(|c| c as i32)
                .collect();
            let vals: Vec<f64> = cols
                .iter()
                .map(|&c| 1.0 / (c as f64 + 0.37) - ((next() % 1000) as f64) * 1e-3)
                .collect();
            let a = dense_row_dot(&vals, &cols, &x, nv, |c| c);
            let b = plain(&vals, &cols, &x, nv);
            assert_eq!(
                a.to_bits(),
                b.to_bits(),
                "case {case}, nv {nv}, cols {cols:?}"
            );
        }
    }
}

//! Recursive Newton–Euler bias forces (MuJoCo's `mj_rne`): Coriolis, centrifugal and gravity
//! terms `qfrc_bias`, or with `flg_acc` the full inverse dynamics `M·qacc + bias`.

use crate::data::{cnstr, Data};
use crate::math::{self, cross_force, dot, get_at, get_n, mul_inert_vec, set_n};
use crate::model::{disable, Model};

/// Writes the RNE result into `out` (length nv) using `cacc`/`cfrc` scratch of 6·nbody.
///
/// The per-body vectors are read and written whole (`[f64; 6]`, `[f64; 10]`): one bounds
/// check per body instead of one per coordinate, which on a model of a few bodies was much of
/// the pass. The arithmetic and its order are `mj_rne`'s.
pub fn rne(
    m: &Model,
    d: &Data,
    flg_acc: bool,
    cacc: &mut [f64],
    cfrc: &mut [f64],
    out: &mut [f64],
) {
    let a = &d.a;
    let mut acc0 = [0.0; 6];
    if !m.opt.disabled(disable::GRAVITY) {
        for k in 0..3 {
            acc0[3 + k] = -m.opt.gravity[k];
        }
    }
    set_n(cacc, 0, acc0);
    for i in 1..m.nbody {
        let p = m.body_parentid[i] as usize;
        let bda = m.body_dofadr[i].max(0) as usize;
        let n = m.body_dofnum[i] as usize;
        let mut tmp = [0.0; 6];
        mul_dof_vec(&mut tmp, &a.cdof_dot[6 * bda..], &a.qvel[bda..], n);
        let mut acc: [f64; 6] = get_n(cacc, p);
        for r in 0..6 {
            acc[r] += tmp[r];
        }
        if flg_acc {
            mul_dof_vec(&mut tmp, &a.cdof[6 * bda..], &a.qacc[bda..], n);
            for r in 0..6 {
                acc[r] += tmp[r];
            }
        }
        set_n(cacc, i, acc);
        let ci: [f64; 10] = get_n(&a.cinert, i);
        let f1 = mul_inert_vec(&ci, &acc);
        let cv: [f64; 6] = get_n(&a.cvel, i);
        let iv = mul_inert_vec(&ci, &cv);
        let f2 = cross_force(&cv, &iv);
        let mut f = [0.0; 6];
        for r in 0..6 {
            f[r] = f1[r] + f2[r];
        }
        set_n(cfrc, i, f);
    }
    set_n(cfrc, 0, [0.0; 6]);
    for i in (1..m.nbody).rev() {
        let p = m.body_parentid[i] as usize;
        if p > 0 {
            let c: [f64; 6] = get_n(cfrc, i);
            let mut fp: [f64; 6] = get_n(cfrc, p);
            for r in 0..6 {
                fp[r] += c[r];
            }
            set_n(cfrc, p, fp);
        }
    }
    for (i, o) in out[..m.nv].iter_mut().enumerate() {
        let c: [f64; 6] = get_n(&a.cdof, i);
        let f: [f64; 6] = get_n(cfrc, m.dof_bodyid[i] as usize);
        // mju_dot's order (four running sums), as MuJoCo 3.15.0 sums it: the plain sum
        // of the six products parted the two by an ulp on spinning free bodies
        *o = dot(&c, &f);
    }
}

/// `res = Σ_k dof_k · vec_k` over `n` 6-vectors (MuJoCo's `mju_mulDofVec`).
#[inline]
pub fn mul_dof_vec(res: &mut [f64; 6], dof: &[f64], vec: &[f64], n: usize) {
    *res = [0.0; 6];
    if n == 1 {
        for r in 0..6 {
            res[r] = dof[r] * vec[0];
        }
        return;
    }
    for (c, &v) in dof[..6 * n].chunks_exact(6).zip(&vec[..n]) {
        if v != 0.0 {
            for r in 0..6 {
                res[r] += c[r] * v;
            }
        }
    }
}

/// Body accelerations `cacc`, interaction forces `cfrc_int` and external forces `cfrc_ext`
/// after the constraint solve (`mj_rnePostConstraint`), for the sensors that read them:
/// perturbations (`xfrc_applied`), the forces of contacts between two geoms (flex contacts are
/// left out, as in MuJoCo) and of connect and weld rows (a weld's torque as its rows' `Jᵀf`
/// gives it, see [`super::constraint::weld_torque`]) are external; each body's inertial
/// force less its external one is what its parent gives it, summed up the tree.
#[inline(never)]
pub fn rne_post_constraint(m: &Model, d: &mut Data) {
    let nbody = m.nbody;
    let mut acc0 = [0.0; 6];
    if !m.opt.disabled(disable::GRAVITY) {
        for k in 0..3 {
            acc0[3 + k] = -m.opt.gravity[k];
        }
    }
    let mut ext = std::mem::take(&mut d.a.cfrc_ext);
    ext.fill(0.0);
    for b in 1..nbody {
        let x: [f64; 6] = get_at(&d.a.xfrc_applied, 6 * b);
        if x.iter().any(|&v| v != 0.0) {
            let f = [x[3], x[4], x[5], x[0], x[1], x[2]];
            let xipos: [f64; 3] = get_at(&d.a.xipos, 3 * b);
            add_external(m, d, &mut ext, b, &f, &xipos, 1.0);
        }
    }
    for (i, con) in d.contact[..d.ncon].iter().enumerate() {
        if con.efc_address < 0 || con.geom[0] < 0 || con.geom[1] < 0 {
            continue;
        }
        let local = super::support::contact_force(m, d, i);
        let frame: math::Mat3 = con.frame;
        // the contact frame's rows are its axes: frameᵀ·local is the world vector
        let t = math::mul_mat_t_vec3(&frame, &[local[3], local[4], local[5]]);
        let f = math::mul_mat_t_vec3(&frame, &[local[0], local[1], local[2]]);
        let world = [t[0], t[1], t[2], f[0], f[1], f[2]];
        for (side, sign) in [(0, -1.0), (1, 1.0)] {
            let k = m.geom_bodyid[con.geom[side] as usize] as usize;
            if k > 0 {
                add_external(m, d, &mut ext, k, &world, &con.pos, sign);
            }
        }
    }
    for j in 0..d.ne {
        let id = d.a.efc_id[j] as usize;
        let connect_or_weld = matches!(m.eq_type[id], 0 | 1);
        // a constraint's rows are consecutive: act once, at its first
        if !connect_or_weld || (j > 0 && d.a.efc_id[j - 1] as usize == id) {
            continue;
        }
        debug_assert_eq!(d.a.efc_type[j], cnstr::EQUALITY);
        let weld = m.eq_type[id] == 1;
        let mut f = [0.0; 6];
        f[3..].copy_from_slice(&d.a.efc_force[j..j + 3]);
        if weld {
            let t = super::constraint::weld_torque(m, d, id, &d.a.efc_force[j + 3..j + 6]);
            f[..3].copy_from_slice(&t);
        }
        let (p1, p2, b1, b2) = super::constraint::eq_anchors(m, d, id);
        if b1 > 0 {
            add_external(m, d, &mut ext, b1, &f, &p1, 1.0);
        }
        if b2 > 0 {
            add_external(m, d, &mut ext, b2, &f, &p2, -1.0);
        }
    }
    d.a.cfrc_ext = ext;

    let a = &mut d.a;
    set_n(&mut a.cacc, 0, acc0);
    set_n(&mut a.cfrc_int, 0, [0.0; 6]);
    for j in 1..nbody {
        let bda = m.body_dofadr[j].max(0) as usize;
        let n = m.body_dofnum[j] as usize;
        let mut tmp = [0.0; 6];
        mul_dof_vec(&mut tmp, &a.cdof_dot[6 * bda..], &a.qvel[bda..], n);
        let mut acc: [f64; 6] = get_n(&a.cacc, m.body_parentid[j] as usize);
        for r in 0..6 {
            acc[r] += tmp[r];
        }
        mul_dof_vec(&mut tmp, &a.cdof[6 * bda..], &a.qacc[bda..], n);
        for r in 0..6 {
            acc[r] += tmp[r];
        }
        set_n(&mut a.cacc, j, acc);
        let ci: [f64; 10] = get_n(&a.cinert, j);
        let cv: [f64; 6] = get_n(&a.cvel, j);
        let body = mul_inert_vec(&ci, &acc);
        let corr = cross_force(&cv, &mul_inert_vec(&ci, &cv));
        let e: [f64; 6] = get_n(&a.cfrc_ext, j);
        let int: [f64; 6] = std::array::from_fn(|r| body[r] + corr[r] - e[r]);
        set_n(&mut a.cfrc_int, j, int);
    }
    for j in (1..nbody).rev() {
        let p = m.body_parentid[j] as usize;
        for r in 0..6 {
            a.cfrc_int[6 * p + r] += a.cfrc_int[6 * j + r];
        }
    }
}

/// Adds `sign ×` the world-oriented force:torque `f` acting at `point` on body `k` to `ext`
/// (`cfrc_ext`), moved to the centre of mass of the body's subtree root.
#[inline(never)]
fn add_external(
    m: &Model,
    d: &Data,
    ext: &mut [f64],
    k: usize,
    f: &[f64; 6],
    point: &[f64; 3],
    sign: f64,
) {
    let com: [f64; 3] = get_at(&d.a.subtree_com, 3 * m.body_rootid[k] as usize);
    let v = math::transform_spatial(f, true, &com, point, None);
    for (e, x) in ext[6 * k..6 * k + 6].iter_mut().zip(v) {
        *e += sign * x;
    }
}

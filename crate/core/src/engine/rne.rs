//! Recursive Newton–Euler bias forces (MuJoCo's `mj_rne`): Coriolis, centrifugal and gravity
//! terms `qfrc_bias`, or with `flg_acc` the full inverse dynamics `M·qacc + bias`.

use crate::data::Data;
use crate::math::{cross_force, dot, get_n, mul_inert_vec, set_n};
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

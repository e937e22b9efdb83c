//! Recursive Newton–Euler bias forces (MuJoCo's `mj_rne`): Coriolis, centrifugal and gravity
//! terms `qfrc_bias`, or with `flg_acc` the full inverse dynamics `M·qacc + bias`.

use crate::data::Data;
use crate::math::{cross_force, dot6, mul_inert_vec};
use crate::model::{disable, Model};

/// Writes the RNE result into `out` (length nv) using `cacc`/`cfrc` scratch of 6·nbody.
pub fn rne(
    m: &Model,
    d: &Data,
    flg_acc: bool,
    cacc: &mut [f64],
    cfrc: &mut [f64],
    out: &mut [f64],
) {
    let a = &d.a;
    cacc[..6].fill(0.0);
    if !m.opt.disabled(disable::GRAVITY) {
        for k in 0..3 {
            cacc[3 + k] = -m.opt.gravity[k];
        }
    }
    for i in 1..m.nbody {
        let p = m.body_parentid[i] as usize;
        let bda = m.body_dofadr[i].max(0) as usize;
        let n = m.body_dofnum[i] as usize;
        let mut tmp = [0.0; 6];
        mul_dof_vec(&mut tmp, &a.cdof_dot[6 * bda..], &a.qvel[bda..], n);
        for r in 0..6 {
            cacc[6 * i + r] = cacc[6 * p + r] + tmp[r];
        }
        if flg_acc {
            mul_dof_vec(&mut tmp, &a.cdof[6 * bda..], &a.qacc[bda..], n);
            for r in 0..6 {
                cacc[6 * i + r] += tmp[r];
            }
        }
        let ci = &a.cinert[10 * i..10 * i + 10];
        let f1 = mul_inert_vec(ci, &cacc[6 * i..6 * i + 6]);
        let cv = &a.cvel[6 * i..6 * i + 6];
        let iv = mul_inert_vec(ci, cv);
        let f2 = cross_force(cv, &iv);
        for r in 0..6 {
            cfrc[6 * i + r] = f1[r] + f2[r];
        }
    }
    cfrc[..6].fill(0.0);
    for i in (1..m.nbody).rev() {
        let p = m.body_parentid[i] as usize;
        if p > 0 {
            for r in 0..6 {
                cfrc[6 * p + r] += cfrc[6 * i + r];
            }
        }
    }
    for i in 0..m.nv {
        let b = m.dof_bodyid[i] as usize;
        out[i] = dot6(&a.cdof[6 * i..6 * i + 6], &cfrc[6 * b..6 * b + 6]);
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
    for k in 0..n {
        let v = vec[k];
        if v != 0.0 {
            for r in 0..6 {
                res[r] += dof[6 * k + r] * v;
            }
        }
    }
}

//! The implicit-in-velocity integrators (`mj_implicitSkip`): `(M − h·∂f/∂v)·a = f`.
//!
//! `implicitfast` keeps the symmetric passive derivatives (joint damping, flex edge damping)
//! restricted to M's sparsity and factors them like M; `implicit` also differentiates the bias
//! forces (`mjd_rne_vel`), which makes the matrix unsymmetric, and solves it by LU. Flex
//! elasticity never reaches here: MuJoCo 3.15.0 rejects it under both.

use super::inertia::{factor_i, solve_ld};
use super::Scratch;
use crate::data::Data;
use crate::math::mul_inert_vec;
use crate::model::{disable, Integrator, Model};

/// Dense work space of the full `implicit` integrator, allocated on its first use.
#[derive(Debug, Clone, Default)]
pub struct ImplicitScratch {
    a: Vec<f64>,
    dcvel: Vec<f64>,
    dcdofdot: Vec<f64>,
    dcacc: Vec<f64>,
    dcfrc: Vec<f64>,
    tmp: Vec<f64>,
    perm: Vec<usize>,
}

impl ImplicitScratch {
    pub fn ensure(&mut self, m: &Model) {
        let (nv, nb) = (m.nv, m.nbody);
        if self.a.len() != nv * nv {
            self.a = crate::data::zeros::<f64>(nv * nv);
            self.dcvel = crate::data::zeros::<f64>(nb * 6 * nv);
            self.dcdofdot = crate::data::zeros::<f64>(nv * 6 * nv);
            self.dcacc = crate::data::zeros::<f64>(nb * 6 * nv);
            self.dcfrc = crate::data::zeros::<f64>(nb * 6 * nv);
            self.tmp = crate::data::zeros::<f64>(6 * nv);
            self.perm = crate::data::zeros(nv);
        }
    }
}

/// Implicit / implicitfast step.
pub fn implicit(m: &Model, d: &mut Data, s: &mut Scratch) {
    let mut qacc = std::mem::take(&mut s.qacc_tmp);
    for i in 0..m.nv {
        qacc[i] = d.a.qfrc_smooth[i] + d.a.qfrc_constraint[i];
    }
    if m.opt.integrator == Integrator::ImplicitFast {
        fast_matrix(m, d, &s.free.bodies);
        solve_ld(m, &d.a.qH, &d.a.qHDiagInv, &mut qacc);
        // standalone free bodies: their 6 dofs again, with the gyroscopic derivative
        let mut rhs = std::mem::take(&mut s.qfrc_tmp);
        for i in 0..m.nv {
            rhs[i] = d.a.qfrc_smooth[i] + d.a.qfrc_constraint[i];
        }
        s.free.local_solve(m, d, &rhs, &mut qacc, None);
        s.qfrc_tmp = rhs;
    } else {
        let mut w = std::mem::take(&mut s.implicit);
        w.ensure(m);
        full_matrix(m, d, &mut w);
        lu_solve(m.nv, &mut w.a, &mut w.perm, &mut qacc);
        s.implicit = w;
    }
    super::integrator::advance(m, d, &qacc, None);
    s.qacc_tmp = qacc;
}

/// Position of entry (row, col ≤ row) in M's sparse lower layout, if it is stored.
fn m_index(m: &Model, row: usize, col: usize) -> Option<usize> {
    let adr = m.M_rowadr[row] as usize;
    (adr..adr + m.M_rownnz[row] as usize).find(|&a| m.M_colind[a] as usize == col)
}

/// Whether dofs `a` and `b` are related in the dof tree (one is the other or its ancestor):
/// MuJoCo's `qDeriv` sparsity (`D_colind`, `mj_makeDofDofSparse` unreduced). M's layout drops
/// the off-diagonal pairs of simple dofs (a vertex body's three slides), D keeps them.
fn d_related(m: &Model, a: usize, b: usize) -> bool {
    let (mut hi, lo) = if a >= b { (a, b) } else { (b, a) };
    while hi > lo {
        match usize::try_from(m.dof_parentid[hi]) {
            Ok(p) => hi = p,
            Err(_) => return false,
        }
    }
    hi == lo
}

/// `qH = M − h·qDeriv` in M's sparsity, factored (`implicitfast`): qDeriv summed first, then
/// `M + qDeriv·(−h)` (`mju_addScl` after `mjd_smooth_vel`), so each entry rounds as MuJoCo's.
fn fast_matrix(m: &Model, d: &mut Data, free: &[(usize, usize)]) {
    let mut qh = std::mem::take(&mut d.a.qH);
    qh.fill(0.0);
    qderiv_terms(m, d, &mut |r, c, v| {
        if c <= r {
            if let Some(adr) = m_index(m, r, c) {
                qh[adr] += v;
            }
        }
    });
    let h = m.opt.timestep;
    for (q, &mv) in qh.iter_mut().zip(&d.a.M) {
        *q = mv + *q * -h;
    }
    // standalone free bodies keep M in the symmetric factor (their block is solved apart)
    for &(_, adr) in free {
        for r in adr..adr + 6 {
            let ra = m.M_rowadr[r] as usize;
            let n = m.M_rownnz[r] as usize;
            qh[ra..ra + n].copy_from_slice(&d.a.M[ra..ra + n]);
        }
    }
    d.a.qH = qh;
    let (qh, qhd) = (&mut d.a.qH, &mut d.a.qHDiagInv);
    factor_i(m, qh, qhd).warn(d);
}

/// Calls `add(row, col, value)` with the terms of `qDeriv` = ∂(qfrc_actuator + qfrc_passive)/∂qvel
/// as MuJoCo 3.15.0's `mjd_smooth_vel` sums them (without the bias-force derivative), in both
/// triangles and unfiltered (each caller keeps its matrix's sparsity): actuators
/// (`mjd_actuator_vel`), then dof dampers, flex edge dampers and tendon dampers
/// (`mjd_passive_vel`). A term `B·JᵀJ` adds `J[c]·(J[r]·B)` at `(r, c)`, `addJTBJSparse`'s
/// product order. Also used by the free-body block.
pub(crate) fn qderiv_terms(m: &Model, d: &Data, add: &mut dyn FnMut(usize, usize, f64)) {
    fn jtbj(add: &mut dyn FnMut(usize, usize, f64), b: f64, cols: &[i32], vals: &[f64]) {
        for (p, &cp) in cols.iter().enumerate() {
            let jb = vals[p] * b;
            for (q, &cq) in cols.iter().enumerate() {
                add(cp as usize, cq as usize, vals[q] * jb);
            }
        }
    }
    for i in 0..m.nu {
        let s = super::actuation::velocity_derivative(m, d, i);
        if s != 0.0 {
            let (adr, n) = (d.a.moment_rowadr[i] as usize, d.a.moment_rownnz[i] as usize);
            jtbj(
                add,
                s,
                &d.a.moment_colind[adr..adr + n],
                &d.a.actuator_moment[adr..adr + n],
            );
        }
    }
    if m.opt.disabled(disable::DAMPER) {
        return;
    }
    for i in 0..m.nv {
        add(i, i, -m.dof_damping[i]);
    }
    for f in 0..m.nflex {
        let b = m.flex_edgedamping[f];
        if m.flex_rigid[f] != 0 || b == 0.0 {
            continue;
        }
        let ea = m.flex_edgeadr[f] as usize;
        for e in ea..ea + m.flex_edgenum[f] as usize {
            if m.flexedge_rigid[e] != 0 {
                continue;
            }
            let ra = m.flexedge_J_rowadr[e] as usize;
            let n = m.flexedge_J_rownnz[e] as usize;
            jtbj(
                add,
                -b,
                &m.flexedge_J_colind[ra..ra + n],
                &d.a.flexedge_J[ra..ra + n],
            );
        }
    }
    for t in 0..m.ntendon {
        let b = m.tendon_damping[t];
        if b != 0.0 {
            let (adr, n) = (m.ten_J_rowadr[t] as usize, m.ten_J_rownnz[t] as usize);
            jtbj(
                add,
                -b,
                &m.ten_J_colind[adr..adr + n],
                &d.a.ten_J[adr..adr + n],
            );
        }
    }
}

/// Dense `M − h·qDeriv` with the bias-force derivative (`implicit`).
fn full_matrix(m: &Model, d: &Data, w: &mut ImplicitScratch) {
    let nv = m.nv;
    let h = m.opt.timestep;
    let a = &mut w.a;
    a.fill(0.0);
    for i in 0..nv {
        let adr = m.M_rowadr[i] as usize;
        for t in adr..adr + m.M_rownnz[i] as usize {
            let j = m.M_colind[t] as usize;
            a[i * nv + j] = d.a.M[t];
            a[j * nv + i] = d.a.M[t];
        }
    }
    // only pairs in qDeriv's sparsity (ancestor-related dofs) are kept
    qderiv_terms(m, d, &mut |r, c, v| {
        if d_related(m, r, c) {
            a[r * nv + c] += v * -h;
        }
    });
    // qDeriv −= ∂bias/∂v, so A = M − h·qDeriv gains +h·∂bias/∂v
    rne_vel(m, d, w, h);
}

/// `∂(cross_motion(vel, v))/∂vel` (`mjd_crossMotion_vel`), row-major 6×6.
fn cross_motion_vel(v: &[f64]) -> [f64; 36] {
    let mut dm = [0.0; 36];
    dm[2] = -v[1];
    dm[1] = v[2];
    dm[6 + 2] = v[0];
    dm[6] = -v[2];
    dm[12 + 1] = -v[0];
    dm[12] = v[1];
    dm[18 + 2] = -v[4];
    dm[18 + 1] = v[5];
    dm[18 + 5] = -v[1];
    dm[18 + 4] = v[2];
    dm[24 + 2] = v[3];
    dm[24] = -v[5];
    dm[24 + 5] = v[0];
    dm[24 + 3] = -v[2];
    dm[30 + 1] = -v[3];
    dm[30] = v[4];
    dm[30 + 4] = -v[0];
    dm[30 + 3] = v[1];
    dm
}

/// `∂(cross_force(vel, f))/∂vel` (`mjd_crossForce_vel`).
fn cross_force_vel(f: &[f64]) -> [f64; 36] {
    let mut dm = [0.0; 36];
    dm[2] = -f[1];
    dm[1] = f[2];
    dm[5] = -f[4];
    dm[4] = f[5];
    dm[6 + 2] = f[0];
    dm[6] = -f[2];
    dm[6 + 5] = f[3];
    dm[6 + 3] = -f[5];
    dm[12 + 1] = -f[0];
    dm[12] = f[1];
    dm[12 + 4] = -f[3];
    dm[12 + 3] = f[4];
    dm[18 + 2] = -f[4];
    dm[18 + 1] = f[5];
    dm[24 + 2] = f[3];
    dm[24] = -f[5];
    dm[30 + 1] = -f[3];
    dm[30] = f[4];
    dm
}

/// `∂(cross_force(vel, f))/∂f` (`mjd_crossForce_frc`).
fn cross_force_frc(vel: &[f64]) -> [f64; 36] {
    let mut dm = [0.0; 36];
    dm[1] = -vel[2];
    dm[2] = vel[1];
    dm[4] = -vel[5];
    dm[5] = vel[4];
    dm[6] = vel[2];
    dm[6 + 2] = -vel[0];
    dm[6 + 3] = vel[5];
    dm[6 + 5] = -vel[3];
    dm[12] = -vel[1];
    dm[12 + 1] = vel[0];
    dm[12 + 3] = -vel[4];
    dm[12 + 4] = vel[3];
    dm[18 + 4] = -vel[2];
    dm[18 + 5] = vel[1];
    dm[24 + 3] = vel[2];
    dm[24 + 5] = -vel[0];
    dm[30 + 3] = -vel[1];
    dm[30 + 4] = vel[0];
    dm
}

/// `∂(mul_inert_vec(i, v))/∂v` (`mjd_mulInertVec_vel`).
fn mul_inert_vec_vel(i: &[f64]) -> [f64; 36] {
    let mut dm = [0.0; 36];
    dm[0] = i[0];
    dm[1] = i[3];
    dm[2] = i[4];
    dm[4] = -i[8];
    dm[5] = i[7];
    dm[6] = i[3];
    dm[6 + 1] = i[1];
    dm[6 + 2] = i[5];
    dm[6 + 3] = i[8];
    dm[6 + 5] = -i[6];
    dm[12] = i[4];
    dm[12 + 1] = i[5];
    dm[12 + 2] = i[2];
    dm[12 + 3] = -i[7];
    dm[12 + 4] = i[6];
    dm[18 + 1] = i[8];
    dm[18 + 2] = -i[7];
    dm[18 + 3] = i[9];
    dm[24 + 2] = i[6];
    dm[24] = -i[8];
    dm[24 + 4] = i[9];
    dm[30] = i[7];
    dm[30 + 1] = -i[6];
    dm[30 + 5] = i[9];
    dm
}

/// `out(6×nv) = mat(6×6)·x(6×nv)`.
fn mat6_mul(out: &mut [f64], mat: &[f64; 36], x: &[f64], nv: usize) {
    for r in 0..6 {
        let row = &mut out[r * nv..(r + 1) * nv];
        row.fill(0.0);
        for k in 0..6 {
            let c = mat[6 * r + k];
            if c == 0.0 {
                continue;
            }
            let xr = &x[k * nv..(k + 1) * nv];
            for j in 0..nv {
                row[j] += c * xr[j];
            }
        }
    }
}

/// Adds `h·∂qfrc_bias/∂qvel` to `w.a` (dense port of `mjd_rne_vel_dense`).
fn rne_vel(m: &Model, d: &Data, w: &mut ImplicitScratch, h: f64) {
    let (nv, nb) = (m.nv, m.nbody);
    let n6 = 6 * nv;
    let a = &d.a;
    w.dcvel.fill(0.0);
    w.dcdofdot.fill(0.0);
    let mut tmp = std::mem::take(&mut w.tmp);
    for i in 1..nb {
        let p = m.body_parentid[i] as usize;
        let (lo, hi) = w.dcvel.split_at_mut(i * n6);
        hi[..n6].copy_from_slice(&lo[p * n6..p * n6 + n6]);
        let cur = &mut hi[..n6];
        let d0 = m.body_dofadr[i] as usize;
        let dn = m.body_dofnum[i] as usize;
        let mut j = d0;
        while j < d0 + dn {
            let jt = m.jnt_type[m.dof_jntid[j] as usize];
            let add = |cur: &mut [f64], j: usize| {
                for k in 0..6 {
                    cur[k * nv + j] += a.cdof[6 * j + k];
                }
            };
            if jt == 0 {
                for t in 0..3 {
                    add(cur, j + t);
                }
                j += 3;
            }
            if jt == 0 || jt == 1 {
                for k in 0..3 {
                    let mat = cross_motion_vel(&a.cdof[6 * (j + k)..6 * (j + k) + 6]);
                    mat6_mul(&mut tmp, &mat, cur, nv);
                    w.dcdofdot[(j + k) * n6..(j + k + 1) * n6].copy_from_slice(&tmp);
                }
                for t in 0..3 {
                    add(cur, j + t);
                }
                j += 3;
            } else {
                let mat = cross_motion_vel(&a.cdof[6 * j..6 * j + 6]);
                mat6_mul(&mut tmp, &mat, cur, nv);
                w.dcdofdot[j * n6..(j + 1) * n6].copy_from_slice(&tmp);
                add(cur, j);
                j += 1;
            }
        }
    }
    w.dcacc.fill(0.0);
    w.dcfrc.fill(0.0);
    for i in 1..nb {
        let p = m.body_parentid[i] as usize;
        let (lo, hi) = w.dcacc.split_at_mut(i * n6);
        hi[..n6].copy_from_slice(&lo[p * n6..p * n6 + n6]);
        let acc = &mut hi[..n6];
        let d0 = m.body_dofadr[i] as usize;
        for j in d0..d0 + m.body_dofnum[i] as usize {
            for k in 0..6 {
                acc[k * nv + j] += a.cdof_dot[6 * j + k];
            }
            let qv = a.qvel[j];
            let dd = &w.dcdofdot[j * n6..(j + 1) * n6];
            for t in 0..n6 {
                acc[t] += dd[t] * qv;
            }
        }
        let inert = &a.cinert[10 * i..10 * i + 10];
        let dmul = mul_inert_vec_vel(inert);
        let fr = &mut w.dcfrc[i * n6..(i + 1) * n6];
        mat6_mul(fr, &dmul, acc, nv);
        let vel = &a.cvel[6 * i..6 * i + 6];
        let iv = mul_inert_vec(inert, vel);
        let mut mat = cross_force_vel(&iv);
        let mat1 = cross_force_frc(vel);
        for r in 0..6 {
            for c in 0..6 {
                let mut s = 0.0;
                for k in 0..6 {
                    s += mat1[6 * r + k] * dmul[6 * k + c];
                }
                mat[6 * r + c] += s;
            }
        }
        mat6_mul(&mut tmp, &mat, &w.dcvel[i * n6..(i + 1) * n6], nv);
        for t in 0..n6 {
            fr[t] += tmp[t];
        }
    }
    for i in (1..nb).rev() {
        let p = m.body_parentid[i] as usize;
        if p != 0 {
            let (lo, hi) = w.dcfrc.split_at_mut(i * n6);
            let src = &hi[..n6];
            let dst = &mut lo[p * n6..p * n6 + n6];
            for t in 0..n6 {
                dst[t] += src[t];
            }
        }
    }
    w.tmp = tmp;
    for i in 0..nv {
        let b = m.dof_bodyid[i] as usize;
        for k in 0..6 {
            let c = a.cdof[6 * i + k];
            if c == 0.0 {
                continue;
            }
            let row = &w.dcfrc[(b * 6 + k) * nv..(b * 6 + k + 1) * nv];
            for j in 0..nv {
                w.a[i * nv + j] += h * c * row[j];
            }
        }
    }
}

/// Solves `A·x = b` in place by LU with partial pivoting (A is overwritten).
fn lu_solve(n: usize, a: &mut [f64], perm: &mut [usize], x: &mut [f64]) {
    for (i, p) in perm.iter_mut().enumerate() {
        *p = i;
    }
    for k in 0..n {
        let mut piv = k;
        for i in k + 1..n {
            if a[i * n + k].abs() > a[piv * n + k].abs() {
                piv = i;
            }
        }
        if piv != k {
            for j in 0..n {
                a.swap(k * n + j, piv * n + j);
            }
            x.swap(k, piv);
            perm.swap(k, piv);
        }
        let dkk = a[k * n + k];
        if dkk == 0.0 {
            continue;
        }
        for i in k + 1..n {
            let l = a[i * n + k] / dkk;
            if l == 0.0 {
                continue;
            }
            a[i * n + k] = l;
            for j in k + 1..n {
                a[i * n + j] -= l * a[k * n + j];
            }
            x[i] -= l * x[k];
        }
    }
    for k in (0..n).rev() {
        let mut s = x[k];
        for j in k + 1..n {
            s -= a[k * n + j] * x[j];
        }
        let dkk = a[k * n + k];
        x[k] = if dkk != 0.0 { s / dkk } else { 0.0 };
    }
}

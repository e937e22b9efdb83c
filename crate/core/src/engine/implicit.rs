//! The implicit-in-velocity integrators (`mj_implicitSkip`): `(M − h·∂f/∂v)·a = f`.
//!
//! `implicitfast` keeps the symmetric passive derivatives (joint damping, flex edge damping)
//! restricted to M's sparsity and factors them like M; `implicit` also differentiates the bias
//! forces (`mjd_rne_vel`), which makes the matrix unsymmetric, and solves it by LU. Flex
//! elasticity never reaches here: MuJoCo 3.15.0 rejects it under both.

use super::inertia::{factor_i, solve_ld};
use super::Scratch;
use crate::data::{Data, Warning};
use crate::math::{mul_inert_vec, MINVAL};
use crate::model::{disable, Integrator, Model};

/// Work space of `implicit`'s bias-force derivative (`mjd_rne_vel`): 6-vectors on the entries
/// of `D` (`dcdofdot`) and of `B` (the others), allocated on first use.
#[derive(Debug, Clone, Default)]
pub struct ImplicitScratch {
    dcdofdot: Vec<f64>,
    dcvel: Vec<f64>,
    dcacc: Vec<f64>,
    dcfrc: Vec<f64>,
    /// One body's rows of `B` (6 each), and one dof's row of `D`.
    tmp: Vec<f64>,
    row: Vec<f64>,
    remaining: Vec<usize>,
}

impl ImplicitScratch {
    pub fn ensure(&mut self, m: &Model) {
        if self.remaining.len() == m.nv && self.dcvel.len() == 6 * m.nB {
            return;
        }
        self.dcdofdot = crate::data::zeros::<f64>(6 * m.nD);
        self.dcvel = crate::data::zeros::<f64>(6 * m.nB);
        self.dcacc = crate::data::zeros::<f64>(6 * m.nB);
        self.dcfrc = crate::data::zeros::<f64>(6 * m.nB);
        self.tmp = crate::data::zeros::<f64>(6 * m.nv);
        self.row = crate::data::zeros::<f64>(m.nv);
        self.remaining = crate::data::zeros(m.nv);
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
        smooth_vel(m, d, &mut w);
        lu_matrix(m, d);
        if let Some(dof) = factor_lu_sparse(m, &mut d.a.qLU, &mut w.remaining) {
            d.warn(Warning::Inertia, dof as i32);
        }
        s.implicit = w;
        let rhs = std::mem::take(&mut qacc);
        qacc = std::mem::take(&mut s.qfrc_tmp);
        solve_lu_sparse(m, &d.a.qLU, &mut qacc, &rhs);
        s.qfrc_tmp = rhs;
    }
    super::integrator::advance(m, d, &qacc, None);
    s.qacc_tmp = qacc;
}

/// Position of entry (row, col) in `D`'s layout, if the two dofs are related in the dof tree
/// (one is the other or its ancestor): pairs outside it are not in `qDeriv`.
pub(crate) fn d_index(m: &Model, row: usize, col: usize) -> Option<usize> {
    let adr = m.D_rowadr[row] as usize;
    let cols = &m.D_colind[adr..adr + m.D_rownnz[row] as usize];
    cols.binary_search(&(col as i32)).ok().map(|k| adr + k)
}

/// `qH = M − h·qDeriv` in M's sparsity, factored (`implicitfast`): `qDeriv` summed first
/// without the bias derivative (`mjd_smooth_vel(m, d, 0)`), gathered to M's layout and added as
/// `M + qDeriv·(−h)` (`mju_addScl`), so each entry rounds as MuJoCo's.
fn fast_matrix(m: &Model, d: &mut Data, free: &[(usize, usize)]) {
    qderiv(m, d);
    let h = m.opt.timestep;
    let mut qh = std::mem::take(&mut d.a.qH);
    for ((q, &mv), &k) in qh.iter_mut().zip(&d.a.M).zip(&m.mapD2M) {
        *q = mv + d.a.qDeriv[k as usize] * -h;
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

/// `qDeriv` = ∂(qfrc_actuator + qfrc_passive)/∂qvel on `D`'s entries, without the bias-force
/// derivative, as MuJoCo 3.15.0's `mjd_smooth_vel` sums them: actuators (`mjd_actuator_vel`),
/// then dof dampers, flex edge dampers and tendon dampers (`mjd_passive_vel`). A term `B·JᵀJ`
/// adds `J[c]·(J[r]·B)` at `(r, c)`, `addJTBJSparse`'s product order; pairs of dofs that `D`
/// does not relate are dropped.
fn qderiv(m: &Model, d: &mut Data) {
    let mut qd = std::mem::take(&mut d.a.qDeriv);
    qd.fill(0.0);
    for i in 0..m.nu {
        let s = super::actuation::velocity_derivative(m, d, i);
        if s != 0.0 {
            let (adr, n) = (d.a.moment_rowadr[i] as usize, d.a.moment_rownnz[i] as usize);
            add_jtbj(
                m,
                &mut qd,
                s,
                &d.a.moment_colind[adr..adr + n],
                &d.a.actuator_moment[adr..adr + n],
            );
        }
    }
    if !m.opt.disabled(disable::DAMPER) {
        for i in 0..m.nv {
            qd[(m.D_rowadr[i] + m.D_diag[i]) as usize] += -m.dof_damping[i];
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
                add_jtbj(
                    m,
                    &mut qd,
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
                add_jtbj(
                    m,
                    &mut qd,
                    -b,
                    &m.ten_J_colind[adr..adr + n],
                    &d.a.ten_J[adr..adr + n],
                );
            }
        }
    }
    d.a.qDeriv = qd;
}

/// `qd += b·JᵀJ` on `D`'s entries, for one sparse row `J` (`cols`, `vals`). Each entry gets at
/// most one term per row, so the order within the row does not change its rounding. Sorted
/// columns (the Jacobians' chains always are) meet each dof's row of `D` in one merged walk;
/// a flex edge relates only the dofs within each of its two vertex bodies, 18 of its 36 pairs,
/// and searching `D` for each pair was a quarter of a 30×30 cloth's `implicit` step.
fn add_jtbj(m: &Model, qd: &mut [f64], b: f64, cols: &[i32], vals: &[f64]) {
    let sorted = cols.windows(2).all(|w| w[0] < w[1]);
    for (p, &cp) in cols.iter().enumerate() {
        let jb = vals[p] * b;
        let adr = m.D_rowadr[cp as usize] as usize;
        let dcols = &m.D_colind[adr..adr + m.D_rownnz[cp as usize] as usize];
        if sorted {
            let (mut q, mut k) = (0, 0);
            while q < cols.len() && k < dcols.len() {
                match cols[q].cmp(&dcols[k]) {
                    std::cmp::Ordering::Less => q += 1,
                    std::cmp::Ordering::Greater => k += 1,
                    std::cmp::Ordering::Equal => {
                        qd[adr + k] += vals[q] * jb;
                        q += 1;
                        k += 1;
                    }
                }
            }
        } else {
            for (q, cq) in cols.iter().enumerate() {
                if let Ok(k) = dcols.binary_search(cq) {
                    qd[adr + k] += vals[q] * jb;
                }
            }
        }
    }
}

/// `qDeriv` with the bias-force derivative, as `mjd_smooth_vel(m, d, 1)` sums it: the actuator
/// and passive terms ([`qderiv_terms`]) on `D`'s entries, then `mjd_rne_vel`'s subtracted.
fn smooth_vel(m: &Model, d: &mut Data, w: &mut ImplicitScratch) {
    qderiv(m, d);
    let mut qd = std::mem::take(&mut d.a.qDeriv);
    rne_vel(m, d, w, &mut qd);
    d.a.qDeriv = qd;
}

/// `qLU = M − h·qDeriv` on `D`'s entries: M gathered to both triangles (`mju_gatherMasked`
/// through `mapM2D`, zero where M's reduced layout has no entry), then `qDeriv·(−h)` added.
fn lu_matrix(m: &Model, d: &mut Data) {
    let h = m.opt.timestep;
    let a = &mut d.a;
    for ((lu, &map), &qd) in a.qLU.iter_mut().zip(&m.mapM2D).zip(&a.qDeriv) {
        let mv = usize::try_from(map).map_or(0.0, |k| a.M[k]);
        *lu = mv + qd * -h;
    }
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

/// 6×6 transpose (`mju_transpose`).
fn transpose6(a: &[f64; 36]) -> [f64; 36] {
    std::array::from_fn(|k| a[6 * (k % 6) + k / 6])
}

/// `res(r×6) = a(r×6)·b(6×6)` as `mju_mulMatMat` sums it: each row of `res` accumulates the rows
/// of `b` scaled by the row of `a`, skipping its zeros.
fn mul_mat6(res: &mut [f64], a: &[f64], b: &[f64; 36]) {
    for (out, ar) in res.chunks_exact_mut(6).zip(a.chunks_exact(6)) {
        out.fill(0.0);
        for (k, &s) in ar.iter().enumerate() {
            if s != 0.0 {
                for (o, &bv) in out.iter_mut().zip(&b[6 * k..6 * k + 6]) {
                    *o += bv * s;
                }
            }
        }
    }
}

fn add_to(res: &mut [f64], v: &[f64]) {
    for (r, &x) in res.iter_mut().zip(v) {
        *r += x;
    }
}

/// Dofs of the ancestors of body `n` (through the welds), the leading entries of its row of
/// `B`; 0 when `n` hangs on the world (`copyFromParent`'s count).
fn ancestor_dofs(m: &Model, n: usize) -> usize {
    let mut count = 0;
    let mut np = m.body_weldid[m.body_parentid[n] as usize] as usize;
    while np > 0 {
        count += m.body_dofnum[np] as usize;
        np = m.body_weldid[m.body_parentid[np] as usize] as usize;
    }
    count
}

/// Body `n`'s row of `mat` (6-vectors on `B`) starts as its parent's on their shared ancestor
/// dofs (`copyFromParent`).
fn copy_from_parent(m: &Model, mat: &mut [f64], n: usize) {
    let p = m.body_parentid[n] as usize;
    if n == 0 || m.body_weldid[p] == 0 {
        return;
    }
    let len = 6 * ancestor_dofs(m, n);
    let (src, dst) = (6 * m.B_rowadr[p] as usize, 6 * m.B_rowadr[n] as usize);
    mat.copy_within(src..src + len, dst);
}

/// Adds body `n`'s row of `mat` to its parent's, entry by matching dof (`addToParent`): a
/// child's dofs are a subset of its parent's row.
fn add_to_parent(m: &Model, mat: &mut [f64], n: usize) {
    let p = m.body_parentid[n] as usize;
    if n == 0 || m.body_weldid[p] == 0 {
        return;
    }
    let (ca, cn) = (m.B_rowadr[n] as usize, m.B_rownnz[n] as usize);
    let (pa, pn) = (m.B_rowadr[p] as usize, m.B_rownnz[p] as usize);
    let (mut i, mut ip) = (0, 0);
    while i < cn && ip < pn {
        let (c, cp) = (m.B_colind[ca + i], m.B_colind[pa + ip]);
        if c == cp {
            let (src, dst) = (6 * (ca + i), 6 * (pa + ip));
            for k in 0..6 {
                mat[dst + k] += mat[src + k];
            }
            i += 1;
            ip += 1;
        } else {
            debug_assert!(c > cp, "child dofs must be a subset of the parent's");
            ip += 1;
        }
    }
}

/// `∂cvel/∂qvel` per body on `B` and `∂cdof_dot/∂qvel` per dof on `D` (`mjd_comVel_vel`).
fn com_vel_vel(m: &Model, d: &Data, w: &mut ImplicitScratch) {
    let a = &d.a;
    let (dcvel, dcdofdot) = (&mut w.dcvel, &mut w.dcdofdot);
    for i in 1..m.nbody {
        copy_from_parent(m, dcvel, i);
        let bi = 6 * m.B_rowadr[i] as usize;
        let last = (m.body_dofadr[i] + m.body_dofnum[i]).max(0) as usize;
        let mut j = m.body_dofadr[i].max(0) as usize;
        while j < last {
            // j's ancestor dofs: they open its row of D, so their count is D_diag (MuJoCo
            // reads it off dof_Madr)
            let mut jadr = m.D_diag[j] as usize;
            let jtype = m.jnt_type[m.dof_jntid[j] as usize];
            // Dcvel += cdof·D(qvel) on dofs j.., at their places after the ancestors
            let add_cdof = |dcvel: &mut [f64], j: usize, jadr: usize, n: usize| {
                for t in 0..n {
                    let o = bi + 6 * (jadr + t);
                    add_to(&mut dcvel[o..o + 6], &a.cdof[6 * (j + t)..6 * (j + t) + 6]);
                }
            };
            // Dcdofdot(dof k) = Dcvel·(∂ crossMotion(cvel, cdof_k)/∂cvel)ᵀ on k's ancestors
            let dofdot = |dcvel: &[f64], dcdofdot: &mut [f64], k: usize, nrow: usize| {
                let mat = transpose6(&cross_motion_vel(&a.cdof[6 * k..6 * k + 6]));
                let o = 6 * m.D_rowadr[k] as usize;
                mul_mat6(
                    &mut dcdofdot[o..o + 6 * nrow],
                    &dcvel[bi..bi + 6 * nrow],
                    &mat,
                );
            };
            match jtype {
                0 | 1 => {
                    if jtype == 0 {
                        // free: the translations carry no cdof_dot
                        add_cdof(dcvel, j, jadr, 3);
                        j += 3;
                        jadr += 3;
                    }
                    for dj in 0..3 {
                        dofdot(dcvel, dcdofdot, j + dj, jadr + dj);
                    }
                    add_cdof(dcvel, j, jadr, 3);
                    j += 3;
                }
                _ => {
                    dofdot(dcvel, dcdofdot, j, jadr);
                    add_cdof(dcvel, j, jadr, 1);
                    j += 1;
                }
            }
        }
    }
}

/// `qDeriv −= ∂qfrc_bias/∂qvel`, MuJoCo 3.15.0's sparse `mjd_rne_vel`: the derivatives of each
/// body's `cvel`, `cacc` and `cfrc_body` live on its row of `B` (the dofs that can move it or
/// that it carries), so the cost grows with the tree's depth, not with `nv²`.
fn rne_vel(m: &Model, d: &Data, w: &mut ImplicitScratch, qderiv: &mut [f64]) {
    let a = &d.a;
    w.dcdofdot.fill(0.0);
    w.dcvel.fill(0.0);
    w.dcacc.fill(0.0);
    w.dcfrc.fill(0.0);
    com_vel_vel(m, d, w);
    for i in 1..m.nbody {
        copy_from_parent(m, &mut w.dcacc, i);
        let (bi, n6) = (6 * m.B_rowadr[i] as usize, 6 * m.B_rownnz[i] as usize);
        let last = (m.body_dofadr[i] + m.body_dofnum[i]).max(0) as usize;
        for j in m.body_dofadr[i].max(0) as usize..last {
            // Dcacc += cdof_dot·D(qvel) + D(cdof_dot)·qvel (D's row j matches B's row i)
            let o = bi + 6 * m.D_diag[j] as usize;
            add_to(&mut w.dcacc[o..o + 6], &a.cdof_dot[6 * j..6 * j + 6]);
            let dj = 6 * m.D_rowadr[j] as usize;
            let qv = a.qvel[j];
            for (r, &x) in w.dcacc[bi..bi + n6]
                .iter_mut()
                .zip(&w.dcdofdot[dj..dj + n6])
            {
                *r += x * qv;
            }
        }
        // Dcfrc = D(cinert·cacc + cvel ×* (cinert·cvel))
        let inert = &a.cinert[10 * i..10 * i + 10];
        let vel = &a.cvel[6 * i..6 * i + 6];
        let dmul = mul_inert_vec_vel(inert);
        mul_mat6(
            &mut w.dcfrc[bi..bi + n6],
            &w.dcacc[bi..bi + n6],
            &transpose6(&dmul),
        );
        let mut mat = cross_force_vel(&mul_inert_vec(inert, vel));
        let mut mat2 = [0.0; 36];
        mul_mat6(&mut mat2, &cross_force_frc(vel), &dmul);
        add_to(&mut mat, &mat2);
        let tmp = &mut w.tmp[..n6];
        mul_mat6(tmp, &w.dcvel[bi..bi + n6], &transpose6(&mat));
        add_to(&mut w.dcfrc[bi..bi + n6], tmp);
    }
    let n0 = 6 * m.B_rownnz[0] as usize;
    w.dcfrc[..n0].fill(0.0);
    for i in (1..m.nbody).rev() {
        add_to_parent(m, &mut w.dcfrc, i);
    }
    // qDeriv −= D(cdof·cfrc_body), row j on B's row of j's body
    for j in 0..m.nv {
        let i = m.dof_bodyid[j] as usize;
        let (bi, nb) = (6 * m.B_rowadr[i] as usize, m.B_rownnz[i] as usize);
        let cdof = &a.cdof[6 * j..6 * j + 6];
        let row = &mut w.row[..nb];
        for (r, f) in row.iter_mut().zip(w.dcfrc[bi..bi + 6 * nb].chunks_exact(6)) {
            *r = crate::math::dot(f, cdof);
        }
        let dj = m.D_rowadr[j] as usize;
        for (q, &r) in qderiv[dj..dj + nb].iter_mut().zip(row.iter()) {
            *q -= r;
        }
    }
}

/// Factors `lu` (on `D`'s entries) in place as `(U + I)·L`, from the last row up, without
/// pivoting or fill-in, in `mju_factorLUSparse`'s arithmetic: D's rows close under the dof
/// tree, so the elimination stays in its sparsity. A pivot under mjMINVAL in magnitude is set
/// to ±mjMINVAL (its sign, + for zero), as 3.15.0 does; returns the first such row met (the
/// highest), which MuJoCo reports as `mjWARN_INERTIA`.
fn factor_lu_sparse(m: &Model, lu: &mut [f64], remaining: &mut [usize]) -> Option<usize> {
    let mut small = None;
    let (rownnz, rowadr, colind) = (&m.D_rownnz, &m.D_rowadr, &m.D_colind);
    for (r, &n) in remaining.iter_mut().zip(rownnz.iter()) {
        *r = n as usize;
    }
    for i in (0..m.nv).rev() {
        let ii = rowadr[i] as usize + remaining[i] - 1;
        remaining[i] -= 1;
        debug_assert_eq!(colind[ii], i as i32, "missing diagonal element");
        if lu[ii].abs() < MINVAL {
            lu[ii] = if lu[ii] < 0.0 { -MINVAL } else { MINVAL };
            small.get_or_insert(i);
        }
        // MuJoCo scans every row above i for one whose last remaining column is i: those are
        // exactly i's ancestors (a row's columns above its dof are its descendants, and the
        // rows below i have taken theirs), met nearest first. Walking the dof tree visits the
        // same rows in the same order without the scan, which made the factor O(nv²)
        let mut up = m.dof_parentid[i];
        while up >= 0 {
            let j = up as usize;
            up = m.dof_parentid[j];
            let ji = rowadr[j] as usize + remaining[j] - 1;
            debug_assert_eq!(colind[ji], i as i32, "an ancestor's last remaining column");
            remaining[j] -= 1;
            lu[ji] /= lu[ii];
            let luji = lu[ji];
            // (j, k) −= (i, k)·(j, i) for k < i: row i's remaining columns are in row j's
            let (mut icnt, mut jcnt) = (rowadr[i] as usize, rowadr[j] as usize);
            let jend = rowadr[j] as usize + remaining[j];
            while jcnt < jend {
                if colind[icnt] == colind[jcnt] {
                    lu[jcnt] -= lu[icnt] * luji;
                    icnt += 1;
                    jcnt += 1;
                } else {
                    debug_assert!(colind[icnt] > colind[jcnt], "requires fill-in");
                    jcnt += 1;
                }
            }
        }
    }
    small
}

/// Solves `qLU·res = vec` with the factor of [`factor_lu_sparse`] (`mju_solveLUSparse`): first
/// `(U + I)`, last row up, then `L` with its diagonal.
fn solve_lu_sparse(m: &Model, lu: &[f64], res: &mut [f64], vec: &[f64]) {
    let (rownnz, rowadr, diag, colind) = (&m.D_rownnz, &m.D_rowadr, &m.D_diag, &m.D_colind);
    for i in (0..m.nv).rev() {
        res[i] = vec[i];
        let d1 = diag[i] as usize + 1;
        let n = rownnz[i] as usize - d1;
        if n > 0 {
            let adr = rowadr[i] as usize + d1;
            res[i] -= super::solver::dot_sparse_avx(&lu[adr..adr + n], res, &colind[adr..adr + n]);
        }
    }
    for i in 0..m.nv {
        let (dg, adr) = (diag[i] as usize, rowadr[i] as usize);
        if dg > 0 {
            res[i] -=
                super::solver::dot_sparse_avx(&lu[adr..adr + dg], res, &colind[adr..adr + dg]);
        }
        res[i] /= lu[adr + dg];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dof tree with a branch: 0 ← 1 ← 2 and 0 ← 3 ← 4, 5 on its own; D's rows by hand
    /// (each dof's ancestors, itself, its descendants).
    fn tree() -> Model {
        let rows: [&[i32]; 6] = [
            &[0, 1, 2, 3, 4],
            &[0, 1, 2],
            &[0, 1, 2],
            &[0, 3, 4],
            &[0, 3, 4],
            &[5],
        ];
        let mut m = Model {
            nv: 6,
            dof_parentid: vec![-1, 0, 1, 0, 3, -1],
            ..Default::default()
        };
        for (i, row) in rows.iter().enumerate() {
            m.D_rowadr.push(m.D_colind.len() as i32);
            m.D_rownnz.push(row.len() as i32);
            m.D_diag
                .push(row.iter().position(|&c| c == i as i32).unwrap() as i32);
            m.D_colind.extend_from_slice(row);
        }
        m.nD = m.D_colind.len();
        m
    }

    #[test]
    fn sparse_lu_solves_an_unsymmetric_tree_matrix() {
        let m = tree();
        let n = m.nv;
        // an unsymmetric matrix on D's entries, diagonally dominant
        let mut dense = vec![0.0; n * n];
        let mut lu = vec![0.0; m.nD];
        for i in 0..n {
            let adr = m.D_rowadr[i] as usize;
            for k in adr..adr + m.D_rownnz[i] as usize {
                let j = m.D_colind[k] as usize;
                let v = if i == j {
                    4.0 + i as f64
                } else {
                    ((3 * i + 7 * j) as f64).sin()
                };
                dense[i * n + j] = v;
                lu[k] = v;
            }
        }
        let mut remaining = vec![0; n];
        factor_lu_sparse(&m, &mut lu, &mut remaining);
        let b: Vec<f64> = (0..n).map(|i| (i as f64 * 1.7).cos()).collect();
        let mut x = vec![0.0; n];
        solve_lu_sparse(&m, &lu, &mut x, &b);
        for i in 0..n {
            let ax: f64 = (0..n).map(|j| dense[i * n + j] * x[j]).sum();
            assert!((ax - b[i]).abs() < 1e-13, "row {i}: {ax} vs {}", b[i]);
        }
    }

    #[test]
    fn mul_mat6_skips_zero_factors_as_mju_mul_mat_mat() {
        // an infinite entry of b meets only zeros of a: MuJoCo skips them, so no NaN
        let mut b = [1.0; 36];
        b[6] = f64::INFINITY;
        let a = [2.0, 0.0, 1.0, 0.0, 0.0, 0.0];
        let mut res = [0.0; 6];
        mul_mat6(&mut res, &a, &b);
        assert_eq!(res, [3.0; 6]);
    }
}

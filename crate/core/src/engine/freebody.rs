//! Standalone free bodies under `implicitfast` and `discrete` (MuJoCo's `mj_isFreeBody`,
//! `mjd_freeMhat`): both drop the bias-force derivative from their symmetric matrix, but for a
//! body that is alone in its tree on a free joint MuJoCo solves that body's 6×6 block
//! separately with the gyroscopic derivative added, so a tumbling box precesses as it should.

use crate::data::Data;
use crate::flexkind::{flex_metric_possible, flex_simple};
use crate::model::Model;

/// Whether body `b` is a free body alone in its kinematic tree (no child bodies with mass,
/// no other dofs in the tree).
pub fn is_free_body(m: &Model, b: usize) -> bool {
    if m.body_jntnum[b] != 1 || m.jnt_type[m.body_jntadr[b] as usize] != 0 {
        return false;
    }
    let adr = m.jnt_dofadr[m.body_jntadr[b] as usize] as usize;
    let tree = m.dof_treeid[adr];
    let tree_dofs = m.dof_treeid.iter().filter(|&&t| t == tree).count();
    tree_dofs == 6 && m.body_subtreemass[b] == m.body_mass[b]
}

fn mat3_mul(a: &[f64; 9], b: &[f64; 9]) -> [f64; 9] {
    let mut c = [0.0; 9];
    for i in 0..3 {
        for j in 0..3 {
            c[3 * i + j] = (0..3).map(|k| a[3 * i + k] * b[3 * k + j]).sum();
        }
    }
    c
}

fn mat3_tmul(a: &[f64; 9], b: &[f64; 9]) -> [f64; 9] {
    let mut c = [0.0; 9];
    for i in 0..3 {
        for j in 0..3 {
            c[3 * i + j] = (0..3).map(|k| a[3 * k + i] * b[3 * k + j]).sum();
        }
    }
    c
}

/// The 3×3 blocks of `∂qfrc_bias/∂ω` for a free body (`mjd_freeBias_vel`): `lin` (per unit
/// mass, linear rows) and `rot` (rotational rows), in the joint's dof frame. `s` = subtree CoM −
/// body origin and `iw` = the rotational inertia about the subtree CoM (world frame), both as
/// MuJoCo 3.15.0 takes them from `subtree_com` and the composite inertia `crb`, with the mass.
fn bias_vel_blocks(
    mass: f64,
    r: &[f64; 9],
    iw: &[f64; 9],
    s: &[f64; 3],
    qvel_rot: &[f64],
) -> ([f64; 9], [f64; 9]) {
    let w: [f64; 3] =
        std::array::from_fn(|i| (0..3).map(|k| r[3 * i + k] * qvel_rot[k]).sum::<f64>());
    let cross = |a: &[f64; 3], b: &[f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let ws = cross(&w, s);
    let iww: [f64; 3] = std::array::from_fn(|i| (0..3).map(|k| iw[3 * i + k] * w[k]).sum());
    let wds = w[0] * s[0] + w[1] * s[1] + w[2] * s[2];
    // K = s wᵀ − (w·s) I + [w × s]ₓ
    let k = [
        s[0] * w[0] - wds,
        s[0] * w[1] - ws[2],
        s[0] * w[2] + ws[1],
        s[1] * w[0] + ws[2],
        s[1] * w[1] - wds,
        s[1] * w[2] - ws[0],
        s[2] * w[0] - ws[1],
        s[2] * w[1] + ws[0],
        s[2] * w[2] - wds,
    ];
    let lin = mat3_mul(&k, r);
    // C = −mass [s]ₓ K + [w]ₓ Iw − [Iw w]ₓ
    let skew = |v: &[f64; 3]| [0.0, -v[2], v[1], v[2], 0.0, -v[0], -v[1], v[0], 0.0];
    let sk = mat3_mul(&skew(s), &k);
    let wi = mat3_mul(&skew(&w), iw);
    let si = skew(&iww);
    let c: [f64; 9] = std::array::from_fn(|i| -mass * sk[i] + wi[i] - si[i]);
    let rot = mat3_mul(&mat3_tmul(r, &c), r);
    (lin, rot)
}

/// `A = M + scale·D + h·B` on the 6 dofs at `adr` of the free body `b` (row-major), B being
/// `∂qfrc_bias/∂qvel`'s block and `d_block` the block `D`: `qDeriv`'s with `scale = −h`
/// (implicitfast), the metric's diagonal with `scale = 1` (discrete).
fn mhat(
    m: &Model,
    d: &Data,
    b: usize,
    adr: usize,
    h: f64,
    d_block: &[f64; 36],
    scale: f64,
) -> [f64; 36] {
    let mut a = [0.0; 36];
    for r in 0..6 {
        let row = adr + r;
        let ra = m.M_rowadr[row] as usize;
        for k in ra..ra + m.M_rownnz[row] as usize {
            let c = m.M_colind[k] as usize - adr;
            a[6 * r + c] = d.a.M[k];
            a[6 * c + r] = d.a.M[k];
        }
    }
    for (a, q) in a.iter_mut().zip(d_block) {
        *a += scale * q;
    }
    let mut rm = [0.0; 9];
    rm.copy_from_slice(&d.a.xmat[9 * b..9 * b + 9]);
    // crb's inertia is packed (xx, yy, zz, xy, xz, yz), its mass last
    let crb = &d.a.crb[10 * b..10 * b + 10];
    let iw = [
        crb[0], crb[3], crb[4], crb[3], crb[1], crb[5], crb[4], crb[5], crb[2],
    ];
    let s: [f64; 3] = std::array::from_fn(|k| d.a.subtree_com[3 * b + k] - d.a.xpos[3 * b + k]);
    let mass = crb[9];
    let (lin, rot) = bias_vel_blocks(mass, &rm, &iw, &s, &d.a.qvel[adr + 3..adr + 6]);
    // A += h·B with B's rotational columns [−mass·lin; rot] (its linear columns are zero)
    for r in 0..3 {
        for c in 0..3 {
            a[6 * r + 3 + c] += h * (-mass * lin[3 * r + c]);
            a[6 * (3 + r) + 3 + c] += h * rot[3 * r + c];
        }
    }
    a
}

/// Solves `a x = b` in place as `mju_factorLU6` then `mju_solveLU6`: LU with partial pivoting
/// (the first row of largest magnitude), multipliers scaled by the pivot's reciprocal, one
/// subtraction at a time in both substitutions, so the rounding is MuJoCo's. False if a pivot
/// is below `mjMINVAL` (singular), and `x` is then left as it was.
fn solve6(a: &mut [f64; 36], x: &mut [f64; 6]) -> bool {
    let mut pivot = [0usize; 6];
    for k in 0..6 {
        pivot[k] = k;
        let (mut maxval, mut maxrow) = (a[7 * k].abs(), k);
        for i in k + 1..6 {
            if a[6 * i + k].abs() > maxval {
                (maxval, maxrow) = (a[6 * i + k].abs(), i);
            }
        }
        if maxval < crate::math::MINVAL {
            return false;
        }
        if maxrow != k {
            pivot[k] = maxrow;
            for j in 0..6 {
                a.swap(6 * k + j, 6 * maxrow + j);
            }
        }
        let diaginv = 1.0 / a[7 * k];
        for i in k + 1..6 {
            a[6 * i + k] *= diaginv;
            let aik = a[6 * i + k];
            for j in k + 1..6 {
                a[6 * i + j] -= aik * a[6 * k + j];
            }
        }
    }
    for i in 0..6 {
        x.swap(i, pivot[i]);
        for j in 0..i {
            x[i] -= a[6 * i + j] * x[j];
        }
    }
    for i in (0..6).rev() {
        for j in i + 1..6 {
            x[i] -= a[6 * i + j] * x[j];
        }
        x[i] /= a[7 * i];
    }
    true
}

/// Whether a flex with metric terms that are not in the assembled block matrix (a flex with
/// general attachments, or an interpolated flex) has a vertex or node body in kinematic tree
/// `tree`.
fn matrix_free_flex_in_tree(m: &Model, tree: i32) -> bool {
    (0..m.nflex).any(|f| {
        if !flex_metric_possible(m, f) || (m.flex_interp[f] == 0 && flex_simple(m, f)) {
            return false;
        }
        let (bodies, adr, num) = if m.flex_interp[f] != 0 {
            (&m.flex_nodebodyid, m.flex_nodeadr[f], m.flex_nodenum[f])
        } else {
            (&m.flex_vertbodyid, m.flex_vertadr[f], m.flex_vertnum[f])
        };
        bodies[adr as usize..(adr + num) as usize]
            .iter()
            .any(|&b| b >= 0 && m.body_treeid[b as usize] == tree)
    })
}

/// The standalone free bodies of a model, found once, and a per-dof buffer for the discrete
/// rule (which dofs some constraint row touches).
#[derive(Debug, Clone, Default)]
pub struct FreeBodies {
    /// (body, first dof) of each standalone free body.
    pub bodies: Vec<(usize, usize)>,
    /// Per entry of `bodies`: a flex whose stiffness the discrete metric applies matrix-free
    /// (general or interpolated) has a vertex or node in the body's tree, so under `discrete`
    /// the body keeps the metric's acceleration (MuJoCo's `mjd_freeGyroPossible`).
    metric_tied: Vec<bool>,
    /// Per entry of `bodies`: its damping block this step (scratch): `qDeriv`'s under
    /// `implicitfast` (scaled by `−h` in [`mhat`]), `h·D + h²·K` (already scaled) under
    /// `discrete`.
    blocks: Vec<[f64; 36]>,
    constrained: Vec<bool>,
}

impl FreeBodies {
    #[cold]
    pub fn new(m: &Model) -> Self {
        let bodies = (0..m.njnt)
            .filter(|&j| m.jnt_type[j] == 0 && is_free_body(m, m.jnt_bodyid[j] as usize))
            .map(|j| (m.jnt_bodyid[j] as usize, m.jnt_dofadr[j] as usize))
            .collect::<Vec<_>>();
        let constrained = if bodies.is_empty() {
            Vec::new()
        } else {
            vec![false; m.nv]
        };
        let metric_tied = bodies
            .iter()
            .map(|&(b, _)| matrix_free_flex_in_tree(m, m.body_treeid[b]))
            .collect();
        FreeBodies {
            blocks: vec![[0.0; 36]; bodies.len()],
            bodies,
            metric_tied,
            constrained,
        }
    }

    /// Replaces the free-body rows of `qacc` by the local unsymmetric solve with `rhs`.
    ///
    /// `metric_diag` chooses the integrator's block (`mjd_freeMhat`):
    /// - `None` (`implicitfast`): `−h·qDeriv` on the body's dofs, read from this step's
    ///   `qDeriv`: joint, flex-edge and tendon dampers and velocity-dependent actuators
    ///   (qDeriv's sparsity is tree-local);
    /// - `Some(efm_diag)` (`discrete`): the metric's per-dof diagonal `h·D + h²·K`, and a body
    ///   that some constraint row touches, or a matrix-free flex ties to, keeps the metric's
    ///   acceleration. MuJoCo leaves flex edge damping out of this block (checked against it
    ///   with a free body under a damped raw flex: 1e-15 m, 0.1 m with the qDeriv block).
    pub fn local_solve(
        &mut self,
        m: &Model,
        d: &Data,
        rhs: &[f64],
        qacc: &mut [f64],
        metric_diag: Option<&[f64]>,
    ) {
        if self.bodies.is_empty() {
            return;
        }
        let h = m.opt.timestep;
        self.blocks.fill([0.0; 36]);
        match metric_diag {
            None => {
                // the step's qDeriv (`implicit::fast_matrix` made it), on each body's dofs
                for (block, &(_, adr)) in self.blocks.iter_mut().zip(&self.bodies) {
                    for r in 0..6 {
                        for c in 0..6 {
                            let k = super::implicit::d_index(m, adr + r, adr + c)
                                .expect("a free joint's dofs are related");
                            block[6 * r + c] = d.a.qDeriv[k];
                        }
                    }
                }
            }
            Some(diag) => {
                for (block, &(_, adr)) in self.blocks.iter_mut().zip(&self.bodies) {
                    for r in 0..6 {
                        block[7 * r] = diag[adr + r];
                    }
                }
                self.constrained.fill(false);
                let a = &d.a;
                for r in 0..d.nefc {
                    let ra = a.efc_J_rowadr[r] as usize;
                    for &c in &a.efc_J_colind[ra..ra + a.efc_J_rownnz[r] as usize] {
                        self.constrained[c as usize] = true;
                    }
                }
            }
        }
        let discrete = metric_diag.is_some();
        let scale = if discrete { 1.0 } else { -h };
        for (i, &(b, adr)) in self.bodies.iter().enumerate() {
            if discrete
                && (self.metric_tied[i] || self.constrained[adr..adr + 6].iter().any(|&c| c))
            {
                continue;
            }
            let mut a = mhat(m, d, b, adr, h, &self.blocks[i], scale);
            let mut x: [f64; 6] = std::array::from_fn(|k| rhs[adr + k]);
            if solve6(&mut a, &mut x) {
                qacc[adr..adr + 6].copy_from_slice(&x);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solve6_inverts_a_general_matrix() {
        let mut a = [0.0; 36];
        for i in 0..6 {
            for j in 0..6 {
                a[6 * i + j] = if i == j {
                    4.0
                } else {
                    ((i * 7 + j * 3) % 5) as f64 * 0.3 - 0.5
                };
            }
        }
        let x0 = [1.0, -2.0, 0.5, 3.0, -1.5, 2.5];
        let mut b = [0.0; 6];
        for i in 0..6 {
            b[i] = (0..6).map(|k| a[6 * i + k] * x0[k]).sum();
        }
        let mut lu = a;
        assert!(solve6(&mut lu, &mut b));
        for i in 0..6 {
            assert!((b[i] - x0[i]).abs() < 1e-12);
        }
    }
}

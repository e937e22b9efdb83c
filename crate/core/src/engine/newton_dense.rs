//! The Newton Hessian of a dense model (MuJoCo's `mj_isSparse` false: fewer than 60 dofs, or
//! `jacobian="dense"`), as MuJoCo 3.15.0 forms and keeps it per constraint island
//! (`MakeHessian`, `FactorizeHessian`, `HessianIncremental`, `HessianCone` in
//! `engine_solver.c`): `H = Jᵀ·D·J + M` over the island's dofs in a dense lower triangle
//! (`mju_sqrMatTD`, then M's entries), factored `L·Lᵀ` by `mju_cholFactor`, then brought up to
//! date by one rank-1 update or downdate per row that entered or left the quadratic zone
//! (`mju_cholUpdate`, refactored from scratch if one loses rank), with the cone blocks of
//! elliptic contacts added to a copy. Each of these rounds as MuJoCo's does, so Newton's
//! directions, and through them its iterates, are MuJoCo's bit for bit.

use super::constraint::state;
use super::dense_chol;
use crate::data::Data;
use crate::math::MINVAL;
use crate::model::Model;

/// The factor of one island's Newton Hessian.
///
/// The island's rows are read from `efc_J`'s compressed rows, columns mapped to the island's
/// own numbering: an entry MuJoCo's dense block holds as zero adds a zero there, which changes
/// no sum, so skipping it rounds alike.
#[derive(Debug, Clone, Default)]
pub struct DenseHessian {
    /// The island's dof count.
    n: usize,
    /// `L` of `H = L·Lᵀ` without the cone blocks, and with them (`n × n`, lower triangle).
    l: Vec<f64>,
    lcone: Vec<f64>,
    /// Whether some elliptic contact is in its cone zone, so that solves use `lcone`.
    cone: bool,
    /// Rank-1 update vector, the cone's `Lₕᵀ·J` rows, and the solve's right-hand side and result.
    x: Vec<f64>,
    ltj: Vec<f64>,
    rhs: Vec<f64>,
    out: Vec<f64>,
}

/// The island being solved: its dofs and rows (both increasing) and each dof's index within it
/// (`usize::MAX` for the dofs outside it).
#[derive(Clone, Copy)]
pub struct IslandRef<'a> {
    pub dofs: &'a [usize],
    pub rows: &'a [usize],
    pub local: &'a [usize],
}

/// The discrete integrator's part `S` of the Newton Hessian (`M + S + Jᵀ·D·J`): a per-dof
/// diagonal (`efm_sdiag`; empty without one) and lower-triangle entries `(i, j, value)`,
/// dofs `i ≥ j`, summed in their order (flex stiffness and passive-contact terms of a metric
/// that couples dofs; none otherwise).
#[derive(Clone, Copy, Default)]
pub struct MetricTerms<'a> {
    pub diag: &'a [f64],
    pub entries: &'a [(u32, u32, f64)],
}

impl<'a> MetricTerms<'a> {
    pub(super) fn entry_range(&self, r: std::ops::Range<usize>) -> &'a [(u32, u32, f64)] {
        &self.entries[r]
    }
}

/// The island's rows that entered (`true`) or left (`false`) the quadratic zone since
/// `oldstate`: `(index in the island, row, entered)`, in row order (`HessianIncremental`'s).
pub(super) fn zone_changes<'a>(
    d: &'a Data,
    isl: IslandRef<'a>,
    oldstate: &'a [i32],
) -> impl Iterator<Item = (usize, usize, bool)> + 'a {
    isl.rows.iter().enumerate().filter_map(move |(t, &r)| {
        let was = oldstate[r] == state::QUADRATIC;
        let is = d.a.efc_state[r] == state::QUADRATIC;
        (was != is).then_some((t, r, is))
    })
}

/// Row `r` of `efc_J`: its island-local columns and values.
fn row<'a>(d: &'a Data, isl: IslandRef<'a>, r: usize) -> impl Iterator<Item = (usize, f64)> + 'a {
    let adr = d.a.efc_J_rowadr[r] as usize;
    let nnz = d.a.efc_J_rownnz[r] as usize;
    let cols = &d.a.efc_J_colind[adr..adr + nnz];
    // columns of dofs outside the island are not in its block
    cols.iter()
        .zip(&d.a.efc_J[adr..adr + nnz])
        .map(move |(&c, &v)| (isl.local[c as usize], v))
        .filter(|&(k, _)| k != usize::MAX)
}

impl DenseHessian {
    /// Buffers for a model of `nv` dofs.
    #[cold]
    pub fn new(nv: usize) -> Self {
        let z = crate::data::zeros::<f64>;
        DenseHessian {
            l: z(nv * nv),
            lcone: z(nv * nv),
            x: z(nv),
            ltj: z(6 * nv),
            rhs: z(nv),
            out: z(nv),
            ..Default::default()
        }
    }

    /// Forms and factors the island's Hessian at its rows' current states, with the cone
    /// blocks (`MakeHessian`, `FactorizeHessian`): `Jᵀ·D·J` over the rows in the quadratic zone,
    /// a row at a time into the lower triangle (`mju_sqrMatTD`), then M's entries, then the
    /// discrete integrator's `S` (its joints' and actuators' diagonal `h·D + h²·K`, and the
    /// entries of a metric that couples dofs).
    #[inline(never)]
    pub fn start(&mut self, m: &Model, d: &Data, metric: MetricTerms, isl: IslandRef) {
        let n = isl.dofs.len();
        self.n = n;
        let l = &mut self.l[..n * n];
        l.fill(0.0);
        for &r in isl.rows {
            let dr = d.a.efc_D[r];
            if d.a.efc_state[r] != state::QUADRATIC || dr == 0.0 {
                continue;
            }
            for (i, ji) in row(d, isl, r) {
                if ji == 0.0 {
                    continue;
                }
                let s = ji * dr;
                for (k, jk) in row(d, isl, r).filter(|&(k, _)| k <= i) {
                    l[i * n + k] += jk * s;
                }
            }
        }
        for (i, &dof) in isl.dofs.iter().enumerate() {
            let adr = m.M_rowadr[dof] as usize;
            for t in adr..adr + m.M_rownnz[dof] as usize {
                let c = m.M_colind[t] as usize;
                l[i * n + isl.local[c]] += d.a.M[t];
            }
        }
        // then the metric's lower triangle S (FactorizeHessian adds M and S to Jᵀ·D·J one
        // after the other), S summed on its own first
        if metric.entries.is_empty() {
            if !metric.diag.is_empty() {
                for (i, &dof) in isl.dofs.iter().enumerate() {
                    l[i * n + i] += metric.diag[dof];
                }
            }
        } else {
            // S's buffer: `lcone`, free until `add_cones` copies L into it below; each entry
            // summed from zero, the diagonal added to the sum last (as the sparse Hessian's
            // `metric_values`)
            let sb = &mut self.lcone[..n * n];
            sb.fill(0.0);
            for &(i, j, v) in metric.entries {
                let (a, b) = (isl.local[i as usize], isl.local[j as usize]);
                if a != usize::MAX && b != usize::MAX {
                    sb[a * n + b] += v;
                }
            }
            if !metric.diag.is_empty() {
                for (i, &dof) in isl.dofs.iter().enumerate() {
                    sb[i * n + i] += metric.diag[dof];
                }
            }
            for i in 0..n {
                for j in 0..=i {
                    l[i * n + j] += sb[i * n + j];
                }
            }
        }
        dense_chol::factor(l, n, MINVAL);
        self.add_cones(d, isl);
    }

    /// After a line-search step (`HessianIncremental`): one rank-1 update of `L` with
    /// `J[r]·√D[r]` per row `r` that entered the quadratic zone and one downdate per row that
    /// left it (`oldstate` holds the states before the step); if one loses rank, the Hessian
    /// is formed and factored again. Then the cone blocks.
    #[inline(never)]
    pub fn update(
        &mut self,
        m: &Model,
        d: &Data,
        metric: MetricTerms,
        isl: IslandRef,
        oldstate: &[i32],
    ) {
        let n = self.n;
        for (_, r, is) in zone_changes(d, isl, oldstate) {
            let s = d.a.efc_D[r].sqrt();
            let x = &mut self.x[..n];
            x.fill(0.0);
            for (k, v) in row(d, isl, r) {
                x[k] = v * s;
            }
            if dense_chol::update(&mut self.l[..n * n], x, is) < n {
                return self.start(m, d, metric, isl);
            }
        }
        self.add_cones(d, isl);
    }

    /// `lcone = L` with the cone Hessian of every elliptic contact in its cone zone added
    /// (`HessianCone`): one rank-1 update per row of `Lₕᵀ·J`, `Lₕ` the Cholesky factor of the
    /// contact's `dim × dim` Hessian.
    fn add_cones(&mut self, d: &Data, isl: IslandRef) {
        let n = self.n;
        self.cone = false;
        let mut k = 0;
        while k < isl.rows.len() {
            let r = isl.rows[k];
            if d.a.efc_state[r] != state::CONE {
                k += 1;
                continue;
            }
            if !self.cone {
                self.cone = true;
                self.lcone[..n * n].copy_from_slice(&self.l[..n * n]);
            }
            let con = &d.contact[d.a.efc_id[r] as usize];
            let dim = con.dim as usize;
            let mut lh = [0.0; 36];
            lh[..dim * dim].copy_from_slice(&con.h[..dim * dim]);
            dense_chol::factor(&mut lh[..dim * dim], dim, MINVAL);
            let ltj = &mut self.ltj[..dim * n];
            ltj.fill(0.0);
            for a in 0..dim {
                for c in 0..=a {
                    let s = lh[a * dim + c];
                    for (col, v) in row(d, isl, r + a) {
                        ltj[c * n + col] += v * s;
                    }
                }
            }
            for a in 0..dim {
                dense_chol::update(&mut self.lcone[..n * n], &mut ltj[a * n..(a + 1) * n], true);
            }
            k += dim;
        }
    }

    /// `out = H⁻¹·b` on the island's dofs (`mju_cholSolve`, with the cone blocks when some
    /// contact is in its cone zone).
    #[inline(never)]
    pub fn solve(&mut self, b: &[f64], out: &mut [f64], dofs: &[usize]) {
        let n = self.n;
        for (x, &i) in self.rhs[..n].iter_mut().zip(dofs) {
            *x = b[i];
        }
        let l = if self.cone { &self.lcone } else { &self.l };
        dense_chol::solve(&mut self.out[..n], &l[..n * n], &self.rhs[..n]);
        for (&y, &i) in self.out[..n].iter().zip(dofs) {
            out[i] = y;
        }
    }
}

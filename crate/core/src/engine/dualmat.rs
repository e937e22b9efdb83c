//! The dual solver's matrix `AR = J·M⁻¹·Jᵀ + R` (MuJoCo's `efc_AR`), formed as MuJoCo 3.15.0's
//! `mj_projectConstraint` forms it: `Y = J·L⁻¹·D^(-1/2)` from the factor of M (`efc_Y`,
//! `mj_solveM2`/`computeY_backsub`), then `AR = Y·Yᵀ` (`mju_sqrMatTD` or its sparse twin), then
//! `R` on the diagonal. PGS on a contact whose regulariser is near zero drives forces to 1e16
//! that cancel to the net force: there the last bit of every `AR` entry and of every row
//! product shows, so both are formed in MuJoCo's order and rounding, and a row's product with
//! the forces runs over MuJoCo's sparsity pattern of `AR` in a sparse model.

use super::solver::{dot_mj_slices, dot_sparse_avx};
use crate::data::Data;
use crate::model::Model;

/// `AR` of the current rows, dense (`n × n`, row-major), with MuJoCo's sparse pattern beside
/// it when the model's Jacobian is sparse.
#[derive(Debug, Clone, Default)]
pub struct DualMatrix {
    /// Rows (`nefc`) the matrix was built for.
    pub n: usize,
    /// `n × n` values (unitless ratio of acceleration to force: 1/kg, or its rotational kin).
    pub ar: Vec<f64>,
    /// `1 / AR[i][i]` (`ARdiaginv`).
    pub arinv: Vec<f64>,
    /// `Y`, `n × nv`, row-major.
    y: Vec<f64>,
    /// Each row's dofs where `Y` is numerically nonzero, ascending (the terms MuJoCo adds).
    ynz: Vec<u32>,
    ynz_adr: Vec<usize>,
    /// Each row's structural dofs of `Y` (its Jacobian's dofs and their ancestors), any order.
    ys: Vec<u32>,
    ys_adr: Vec<usize>,
    mark: Vec<u32>,
    sqrt_inv_d: Vec<f64>,
    /// Sparse models: `AR`'s pattern (`efc_AR_rowadr`, `efc_AR_colind`) and values in it.
    sparse: bool,
    adr: Vec<usize>,
    col: Vec<i32>,
    val: Vec<f64>,
}

impl DualMatrix {
    /// Builds `AR` for the rows of `d` with the factor `qld` of M (or of the metric's
    /// `M + h·D`), laid out as `qLD`.
    pub fn build(&mut self, m: &Model, d: &Data, qld: &[f64]) {
        let (nv, n) = (m.nv, d.nefc);
        self.n = n;
        self.sparse = super::constraint::sparse_jacobian(m);
        self.sqrt_inv_d.resize(nv, 0.0);
        for i in 0..nv {
            let diag = (m.M_rowadr[i] + m.M_rownnz[i] - 1) as usize;
            self.sqrt_inv_d[i] = 1.0 / qld[diag].sqrt();
        }
        self.build_y(m, d, qld);
        self.ar.clear();
        self.ar.resize(n * n, 0.0);
        // AR = Y·Yᵀ, lower triangle: entry (r, c) sums Y[r,k]·Y[c,k] over the dofs k where
        // Y[r,k] is nonzero, ascending, from zero; the upper triangle is its mirror
        for r in 0..n {
            let yr = &self.y[r * nv..(r + 1) * nv];
            let nz = &self.ynz[self.ynz_adr[r]..self.ynz_adr[r + 1]];
            for c in 0..=r {
                let yc = &self.y[c * nv..(c + 1) * nv];
                let mut v = 0.0;
                for &k in nz {
                    v += yr[k as usize] * yc[k as usize];
                }
                self.ar[r * n + c] = v;
                self.ar[c * n + r] = v;
            }
        }
        self.arinv.resize(n, 0.0);
        for r in 0..n {
            self.ar[r * n + r] += d.a.efc_R[r];
            self.arinv[r] = 1.0 / self.ar[r * n + r];
        }
        if self.sparse {
            self.build_pattern(n, nv);
        }
    }

    /// `Y` row by row: the Jacobian row, `L⁻ᵀ` by the dofs from last to first (each nonzero
    /// entry pushed to its ancestors), then `D^(-1/2)`.
    fn build_y(&mut self, m: &Model, d: &Data, qld: &[f64]) {
        let (nv, n) = (m.nv, d.nefc);
        self.y.clear();
        self.y.resize(n * nv, 0.0);
        self.ynz.clear();
        self.ynz_adr.clear();
        self.ynz_adr.push(0);
        self.ys.clear();
        self.ys_adr.clear();
        self.ys_adr.push(0);
        self.mark.clear();
        self.mark.resize(nv, u32::MAX);
        for r in 0..n {
            let y = &mut self.y[r * nv..(r + 1) * nv];
            let adr = d.a.efc_J_rowadr[r] as usize;
            for k in adr..adr + d.a.efc_J_rownnz[r] as usize {
                let j = d.a.efc_J_colind[k] as usize;
                y[j] = d.a.efc_J[k];
                // the structural pattern: the dof and its ancestors (row j of M)
                let ma = m.M_rowadr[j] as usize;
                for &a in &m.M_colind[ma..ma + m.M_rownnz[j] as usize] {
                    if self.mark[a as usize] != r as u32 {
                        self.mark[a as usize] = r as u32;
                        self.ys.push(a as u32);
                    }
                }
            }
            self.ys_adr.push(self.ys.len());
            super::inertia::solve_lt(m, qld, y);
            for (x, &s) in y.iter_mut().zip(&self.sqrt_inv_d) {
                *x *= s;
            }
            for (k, &x) in y.iter().enumerate() {
                if x != 0.0 {
                    self.ynz.push(k as u32);
                }
            }
            self.ynz_adr.push(self.ynz.len());
        }
    }

    /// MuJoCo's pattern of a sparse `AR` (`mju_sqrMatTDSparseSymbolic`): row `r` holds every
    /// row `c` whose structural `Y` shares a dof with row `r`'s, ascending.
    fn build_pattern(&mut self, n: usize, nv: usize) {
        self.adr.clear();
        self.col.clear();
        self.val.clear();
        self.mark.clear();
        self.mark.resize(nv, u32::MAX);
        for r in 0..n {
            self.adr.push(self.col.len());
            for &k in &self.ys[self.ys_adr[r]..self.ys_adr[r + 1]] {
                self.mark[k as usize] = r as u32;
            }
            for c in 0..n {
                let shared = self.ys[self.ys_adr[c]..self.ys_adr[c + 1]]
                    .iter()
                    .any(|&k| self.mark[k as usize] == r as u32);
                if shared {
                    self.col.push(c as i32);
                    self.val.push(self.ar[r * n + c]);
                }
            }
        }
        self.adr.push(self.col.len());
    }

    /// `AR[r]·f` in MuJoCo's order: `mju_dotSparse` over the pattern in a sparse model,
    /// `mju_dot` over the whole row in a dense one.
    #[inline]
    pub fn row_dot(&self, r: usize, f: &[f64]) -> f64 {
        if self.sparse {
            let (a, b) = (self.adr[r], self.adr[r + 1]);
            dot_sparse_avx(&self.val[a..b], f, &self.col[a..b])
        } else {
            let n = self.n;
            dot_mj_slices(&self.ar[r * n..(r + 1) * n], &f[..n])
        }
    }

    /// `efc_AR` as MuJoCo 3.15.0 lays it out: the values in its sparse pattern (row by row,
    /// columns ascending) in a sparse model, all `n × n` values in a dense one.
    pub fn efc_ar(&self) -> &[f64] {
        if self.sparse {
            &self.val
        } else {
            &self.ar
        }
    }

    /// `AR[r][c]`.
    #[inline]
    pub fn at(&self, r: usize, c: usize) -> f64 {
        self.ar[r * self.n + c]
    }
}

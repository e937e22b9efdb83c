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

/// `AR` of the current rows: dense (`n × n`, row-major) in a dense model, on MuJoCo's sparse
/// pattern when the model's Jacobian is sparse.
#[derive(Debug, Clone, Default)]
pub struct DualMatrix {
    /// Rows (`nefc`) the matrix was built for.
    pub n: usize,
    /// Dense models: `n × n` values (unitless ratio of acceleration to force: 1/kg, or its
    /// rotational kin).
    pub ar: Vec<f64>,
    /// `1 / AR[i][i]` (`ARdiaginv`).
    pub arinv: Vec<f64>,
    /// Dense models: `Y`, `n × nv`, row-major, and each row's dofs where it is numerically
    /// nonzero, ascending (the terms MuJoCo adds).
    y: Vec<f64>,
    ynz: Vec<u32>,
    ynz_adr: Vec<usize>,
    /// Sparse models: each row's structural dofs of `Y` (its Jacobian's dofs and their
    /// ancestors), ascending.
    ys: Vec<u32>,
    ys_adr: Vec<usize>,
    mark: Vec<u32>,
    sqrt_inv_d: Vec<f64>,
    /// Sparse models: `AR`'s pattern (`efc_AR_rowadr`, `efc_AR_colind`) and values in it,
    /// and its diagonal (with `R`) apart, since a row without Jacobian entries is not in its
    /// own pattern. Sparse models keep neither `ar` nor `y` dense (`n²` and `n·nv` values: a
    /// 30×30 cloth held by edge equalities has 2645 rows and 2700 dofs).
    sparse: bool,
    adr: Vec<usize>,
    col: Vec<i32>,
    val: Vec<f64>,
    diag: Vec<f64>,
    /// Sparse models: `Y`'s numerically nonzero entries, row by row (dofs ascending), the same
    /// by dof (rows ascending), the structural entries by dof, and row work space.
    yk: Vec<u32>,
    yv: Vec<f64>,
    y_adr: Vec<usize>,
    by_dof: Vec<(u32, f64)>,
    by_dof_adr: Vec<usize>,
    ys_by_dof: Vec<u32>,
    ys_by_dof_adr: Vec<usize>,
    work: Vec<f64>,
    acc: Vec<f64>,
    seen: Vec<u32>,
    in_row: Vec<u32>,
    next: Vec<usize>,
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
        if self.sparse {
            self.build_sparse(m, d, qld);
            return;
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
    }

    /// A dense model's `Y` row by row: the Jacobian row, `L⁻ᵀ` by the dofs from last to first
    /// (each nonzero entry pushed to its ancestors), then `D^(-1/2)`.
    fn build_y(&mut self, m: &Model, d: &Data, qld: &[f64]) {
        let (nv, n) = (m.nv, d.nefc);
        self.y.clear();
        self.y.resize(n * nv, 0.0);
        self.ynz.clear();
        self.ynz_adr.clear();
        self.ynz_adr.push(0);
        for r in 0..n {
            let y = &mut self.y[r * nv..(r + 1) * nv];
            let adr = d.a.efc_J_rowadr[r] as usize;
            for k in adr..adr + d.a.efc_J_rownnz[r] as usize {
                y[d.a.efc_J_colind[k] as usize] = d.a.efc_J[k];
            }
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

    /// A sparse model's `AR`, touching only what `Y` can reach. Each row of `Y` is its
    /// Jacobian row taken through `L⁻ᵀ` on its structural dofs alone (the Jacobian's dofs and
    /// their ancestors, the only ones `mj_solveLT`'s pushes reach), last to first, then scaled by
    /// `D^(-1/2)`: the dense solve's operations on the entries it changes. An entry `AR[r][c]`
    /// sums `Y[r,k]·Y[c,k]` from zero over the dofs both rows have nonzero, ascending, as the
    /// dense product does (its other terms add zeros). MuJoCo's pattern
    /// (`mju_sqrMatTDSparseSymbolic`): row `r` holds every row `c` whose structural `Y` shares a
    /// dof with row `r`'s, ascending.
    fn build_sparse(&mut self, m: &Model, d: &Data, qld: &[f64]) {
        let (nv, n) = (m.nv, d.nefc);
        self.work.clear();
        self.work.resize(nv, 0.0);
        self.mark.clear();
        self.mark.resize(nv, u32::MAX);
        self.ys.clear();
        self.ys_adr.clear();
        self.ys_adr.push(0);
        self.yk.clear();
        self.yv.clear();
        self.y_adr.clear();
        self.y_adr.push(0);
        for r in 0..n {
            let adr = d.a.efc_J_rowadr[r] as usize;
            let start = self.ys.len();
            for k in adr..adr + d.a.efc_J_rownnz[r] as usize {
                let j = d.a.efc_J_colind[k] as usize;
                self.work[j] = d.a.efc_J[k];
                let ma = m.M_rowadr[j] as usize;
                for &a in &m.M_colind[ma..ma + m.M_rownnz[j] as usize] {
                    if self.mark[a as usize] != r as u32 {
                        self.mark[a as usize] = r as u32;
                        self.ys.push(a as u32);
                    }
                }
            }
            let ys = &mut self.ys[start..];
            ys.sort_unstable();
            // mj_solveLT on the row's structural dofs, last to first
            let rows = ys.iter().rev().map(|&i| i as usize);
            super::inertia::solve_lt_rows(m, qld, &mut self.work, rows);
            for &k in ys.iter() {
                let v = self.work[k as usize] * self.sqrt_inv_d[k as usize];
                self.work[k as usize] = 0.0;
                if v != 0.0 {
                    self.yk.push(k);
                    self.yv.push(v);
                }
            }
            self.ys_adr.push(self.ys.len());
            self.y_adr.push(self.yk.len());
        }
        // the same entries by dof, rows ascending (a counting sort)
        let yv = &self.yv;
        let (y_adr, yk) = (&self.y_adr, &self.yk);
        by_column(
            nv,
            n,
            (y_adr, yk),
            &mut self.next,
            &mut self.by_dof_adr,
            &mut self.by_dof,
            |r, t| (r as u32, yv[t]),
        );
        let (ys_adr, ys) = (&self.ys_adr, &self.ys);
        by_column(
            nv,
            n,
            (ys_adr, ys),
            &mut self.next,
            &mut self.ys_by_dof_adr,
            &mut self.ys_by_dof,
            |r, _| r as u32,
        );
        self.adr.clear();
        self.col.clear();
        self.val.clear();
        self.diag.clear();
        self.acc.clear();
        self.acc.resize(n, 0.0);
        self.seen.clear();
        self.seen.resize(n, u32::MAX);
        self.arinv.clear();
        self.in_row.clear();
        self.in_row.resize(n, u32::MAX);
        for r in 0..n {
            // numeric row r: every row sharing a nonzero dof, terms by dof ascending
            for t in self.y_adr[r]..self.y_adr[r + 1] {
                let (k, yrk) = (self.yk[t] as usize, self.yv[t]);
                for &(c, yck) in &self.by_dof[self.by_dof_adr[k]..self.by_dof_adr[k + 1]] {
                    let c = c as usize;
                    if self.seen[c] != r as u32 {
                        self.seen[c] = r as u32;
                        self.acc[c] = 0.0;
                    }
                    self.acc[c] += yrk * yck;
                }
            }
            let value = |c: usize| {
                if self.seen[c] == r as u32 {
                    self.acc[c]
                } else {
                    0.0
                }
            };
            let diag = value(r) + d.a.efc_R[r];
            self.diag.push(diag);
            self.arinv.push(1.0 / diag);
            // structural row r, ascending
            self.adr.push(self.col.len());
            let from = self.col.len();
            for &k in &self.ys[self.ys_adr[r]..self.ys_adr[r + 1]] {
                let k = k as usize;
                for &c in &self.ys_by_dof[self.ys_by_dof_adr[k]..self.ys_by_dof_adr[k + 1]] {
                    if self.in_row[c as usize] != r as u32 {
                        self.in_row[c as usize] = r as u32;
                        self.col.push(c as i32);
                    }
                }
            }
            self.col[from..].sort_unstable();
            for &c in &self.col[from..] {
                let c = c as usize;
                self.val.push(if c == r { diag } else { value(c) });
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
        if !self.sparse {
            return self.ar[r * self.n + c];
        }
        if r == c {
            return self.diag[r];
        }
        let (a, b) = (self.adr[r], self.adr[r + 1]);
        // outside the pattern the rows share no dof: the entry is zero
        self.col[a..b]
            .binary_search(&(c as i32))
            .map_or(0.0, |k| self.val[a + k])
    }
}

/// Lays the entries of `n` rows (row `r` at `adr[r]..adr[r + 1]` of `dofs`) out by dof, rows
/// ascending within each: `out_adr[k]..out_adr[k + 1]` of `out` holds dof `k`'s, each as
/// `entry(row, index)` makes it. `next` is work space.
fn by_column<T: Copy + Default>(
    nv: usize,
    n: usize,
    (adr, dofs): (&[usize], &[u32]),
    next: &mut Vec<usize>,
    out_adr: &mut Vec<usize>,
    out: &mut Vec<T>,
    entry: impl Fn(usize, usize) -> T,
) {
    out_adr.clear();
    out_adr.resize(nv + 1, 0);
    for &k in &dofs[..adr[n]] {
        out_adr[k as usize + 1] += 1;
    }
    for k in 0..nv {
        out_adr[k + 1] += out_adr[k];
    }
    out.clear();
    out.resize(adr[n], T::default());
    next.clear();
    next.extend_from_slice(&out_adr[..nv]);
    for r in 0..n {
        for t in adr[r]..adr[r + 1] {
            let k = dofs[t] as usize;
            out[next[k]] = entry(r, t);
            next[k] += 1;
        }
    }
}

//! The Newton Hessian of a sparse model (MuJoCo's `mj_isSparse`: 60 dofs or more, or
//! `jacobian="sparse"`), as MuJoCo 3.15.0 forms and keeps it per constraint island
//! (`MakeHessian`, `FactorizeHessian`, `HessianIncremental`, `HessianCone` in
//! `engine_solver.c`, and the sparse routines they call):
//!
//! - `H = Jᵀ·D·J + M` on the pattern of `JᵀJ` over all the island's rows together with M's
//!   (`mju_sqrMatTDSparseSymbolic`/`Numeric`, then `mju_addToMatSparse`);
//! - `H = Lᵀ·L` by reverse Cholesky, the last dof first (`mju_cholFactorSymbolic`,
//!   `mju_cholFactorNumeric`);
//! - one Givens rank-1 update or downdate per row that entered or left the quadratic zone
//!   (`mju_cholUpdateSparse`), formed and factored again if one loses rank;
//! - the cone blocks of elliptic contacts added to a copy;
//! - solves by `mju_cholSolveSparse`.
//!
//! Each step rounds as MuJoCo's does, in its order, so Newton's directions, and through them
//! its iterates, are MuJoCo's bit for bit. The factor's pattern, and with it the order of the
//! factorization's sums, follows from H's exact pattern: a structural entry more or less
//! reorders the elimination walk, so the pattern is MuJoCo's and not a superset of it.

use super::constraint::state;
use super::newton_dense::{zone_changes, IslandRef, MetricTerms};
use super::solver::dot_sparse_avx;
use crate::data::Data;
use crate::math::MINVAL;
use crate::model::Model;

/// "No parent" in the elimination tree, "no row" in the marks.
const NONE: usize = usize::MAX;

/// L's pattern and H's, for [`numeric`] (a macro: borrows fields, not the whole struct).
macro_rules! factor_pattern {
    ($h:expr) => {
        FactorPattern {
            h_adr: &$h.h_adr,
            h_col: &$h.h_col,
            l_adr: &$h.l_adr,
            l_col: &$h.l_col,
            lt_adr: &$h.lt_adr,
            lt_col: &$h.lt_col,
            lt_map: &$h.lt_map,
        }
    };
}

/// One island's Newton Hessian and its reverse-Cholesky factor, in the island's own dof
/// numbering (the island's dofs in increasing order).
#[derive(Debug, Clone, Default)]
pub struct SparseHessian {
    /// The island's dof count.
    n: usize,
    /// The island's rows of `efc_J` in its own columns: row `t` (the island's `t`-th row) holds
    /// `jcol[jadr[t]..jadr[t + 1]]`, increasing, with values `jval[..]`.
    jadr: Vec<usize>,
    jcol: Vec<i32>,
    jval: Vec<f64>,
    /// The same by columns (`Jᵀ`): dof `r` is in rows `jt_row[jt_adr[r]..jt_adr[r + 1]]`
    /// (increasing), at the places `jt_pos[..]` of their values.
    jt_adr: Vec<usize>,
    jt_row: Vec<u32>,
    jt_pos: Vec<usize>,
    /// The weight of each row in `Jᵀ·W·J`, and the rows of the cone Hessian's `J`.
    row_d: Vec<f64>,
    jc: Vec<f64>,
    /// H's lower triangle by rows (columns increasing, the diagonal last).
    h_adr: Vec<usize>,
    h_col: Vec<u32>,
    h_val: Vec<f64>,
    /// H with the cone blocks, on H's pattern.
    hc: Vec<f64>,
    /// The metric's `S` on H's pattern (`s_on`: the solve has one), and its entries grouped
    /// by island row (`s_sorted[s_adr[r]..s_adr[r + 1]]`, `s_order` their places in the input).
    s_on: bool,
    s_val: Vec<f64>,
    s_adr: Vec<usize>,
    s_order: Vec<u32>,
    s_sorted: Vec<(u32, u32, f64)>,
    /// H's strict upper triangle by rows: for dof `r`, the rows `i > r` whose lower row holds
    /// `r`, increasing (`mju_transposeSparse` of the lower triangle).
    ht_adr: Vec<usize>,
    ht_col: Vec<u32>,
    /// `L` by rows (columns increasing, the diagonal last), and `Lᵀ` by rows in the elimination
    /// walk's order (the diagonal first) with each entry's place in `L`.
    l_adr: Vec<usize>,
    l_col: Vec<i32>,
    l: Vec<f64>,
    lt_adr: Vec<usize>,
    lt_col: Vec<u32>,
    lt_map: Vec<usize>,
    /// Per row of L, the entries on its elimination path to the first row (itself included),
    /// the work of a rank-1 update starting there; and `Σ L_rownnz²`. MuJoCo 3.15.0's
    /// `HessianCone` weighs updates against refactoring with them.
    l_path: Vec<usize>,
    l_sq: i64,
    /// `L` with the cone blocks, and whether some elliptic contact is in its cone zone.
    lcone: Vec<f64>,
    cone: bool,
    /// Work: the dense accumulator (all zero between uses), marks, the elimination tree,
    /// counts and write cursors, the walk's visits `(r, i)` (entry `L[i, r]`), and the
    /// rank-1 vector, the cone's `Lₕᵀ·J` rows and the solve's vector.
    dense: Vec<f64>,
    mark: Vec<usize>,
    parent: Vec<usize>,
    cursor: Vec<usize>,
    visits: Vec<(u32, u32)>,
    x: Vec<f64>,
    ltj: Vec<f64>,
    rhs: Vec<f64>,
}

/// Sets `v` to `n` copies of `x`, reusing its buffer.
fn refill<T: Clone>(v: &mut Vec<T>, n: usize, x: T) {
    v.clear();
    v.resize(n, x);
}

/// Turns per-row counts in `adr[1..=n]` into row addresses (`adr[0] = 0`).
fn counts_to_adr(adr: &mut [usize]) {
    for k in 1..adr.len() {
        adr[k] += adr[k - 1];
    }
}

impl SparseHessian {
    /// Buffers for a model of `nv` dofs (those sized by the factor grow when first needed).
    #[cold]
    pub fn new(nv: usize) -> Self {
        let mut h = SparseHessian::default();
        for v in [&mut h.dense, &mut h.x, &mut h.rhs] {
            v.reserve(nv);
        }
        for v in [
            &mut h.jt_adr,
            &mut h.h_adr,
            &mut h.ht_adr,
            &mut h.l_adr,
            &mut h.lt_adr,
            &mut h.mark,
            &mut h.parent,
            &mut h.cursor,
        ] {
            v.reserve(nv + 1);
        }
        h
    }

    /// Forms and factors the island's Hessian at its rows' current states, with the cone
    /// blocks (`MakeHessian`, `FactorizeHessian`); `metric` is the discrete integrator's part
    /// `S`, added after M.
    #[inline(never)]
    pub fn start(&mut self, m: &Model, d: &Data, metric: MetricTerms, isl: IslandRef) {
        self.n = isl.dofs.len();
        self.gather_rows(d, isl);
        let by_row = self.group_metric(metric, isl);
        let grouped = MetricTerms {
            diag: metric.diag,
            entries: &by_row,
        };
        self.pattern(m, grouped, isl);
        self.symbolic();
        self.metric_values(grouped, isl);
        self.s_sorted = by_row;
        self.refactor(m, d, isl);
    }

    /// S's entries grouped by the island row of their dof, in their order within a row (the
    /// buffer is `s_sorted`'s, handed back by [`Self::start`]).
    fn group_metric(&mut self, metric: MetricTerms, isl: IslandRef) -> Vec<(u32, u32, f64)> {
        let n = self.n;
        refill(&mut self.s_adr, n + 1, 0);
        self.s_order.clear();
        for (t, &(i, _, _)) in metric.entries.iter().enumerate() {
            let r = isl.local[i as usize];
            if r != NONE {
                self.s_adr[r + 1] += 1;
                self.s_order.push(t as u32);
            }
        }
        counts_to_adr(&mut self.s_adr);
        refill(&mut self.cursor, n, 0);
        self.cursor.copy_from_slice(&self.s_adr[..n]);
        let mut by_row = std::mem::take(&mut self.s_sorted);
        refill(&mut by_row, self.s_order.len(), (0, 0, 0.0));
        for &t in &self.s_order {
            let e = metric.entries[t as usize];
            let r = isl.local[e.0 as usize];
            by_row[self.cursor[r]] = e;
            self.cursor[r] += 1;
        }
        by_row
    }

    /// H's values at the rows' current states, factored, and the cone blocks added.
    fn refactor(&mut self, m: &Model, d: &Data, isl: IslandRef) {
        self.values(m, d, isl);
        let f = factor_pattern!(self);
        numeric(&mut self.l, &mut self.dense, &self.h_val, f);
        self.add_cones(m, d, isl);
    }

    /// The island's rows in its own columns, and by columns.
    fn gather_rows(&mut self, d: &Data, isl: IslandRef) {
        let n = self.n;
        self.jadr.clear();
        self.jcol.clear();
        self.jval.clear();
        self.jadr.push(0);
        for &r in isl.rows {
            let adr = d.a.efc_J_rowadr[r] as usize;
            let nnz = d.a.efc_J_rownnz[r] as usize;
            let cols = &d.a.efc_J_colind[adr..adr + nnz];
            for (&c, &v) in cols.iter().zip(&d.a.efc_J[adr..adr + nnz]) {
                // columns of dofs outside the island are not in its matrix
                let k = isl.local[c as usize];
                if k != NONE {
                    self.jcol.push(k as i32);
                    self.jval.push(v);
                }
            }
            self.jadr.push(self.jcol.len());
        }
        refill(&mut self.jt_adr, n + 1, 0);
        for &c in &self.jcol {
            self.jt_adr[c as usize + 1] += 1;
        }
        counts_to_adr(&mut self.jt_adr);
        refill(&mut self.jt_row, self.jcol.len(), 0);
        refill(&mut self.jt_pos, self.jcol.len(), 0);
        refill(&mut self.cursor, n, 0);
        self.cursor.copy_from_slice(&self.jt_adr[..n]);
        for t in 0..isl.rows.len() {
            for p in self.jadr[t]..self.jadr[t + 1] {
                let c = self.jcol[p] as usize;
                let q = self.cursor[c];
                self.jt_row[q] = t as u32;
                self.jt_pos[q] = p;
                self.cursor[c] += 1;
            }
        }
    }

    /// H's lower pattern: row `r` holds the columns `c ≤ r` of every row of `J` through dof
    /// `r`, and M's row; then its transpose.
    fn pattern(&mut self, m: &Model, metric: MetricTerms, isl: IslandRef) {
        let n = self.n;
        refill(&mut self.mark, n, NONE);
        self.h_adr.clear();
        self.h_col.clear();
        self.h_adr.push(0);
        for (r, &dof) in isl.dofs.iter().enumerate() {
            let start = self.h_col.len();
            for q in self.jt_adr[r]..self.jt_adr[r + 1] {
                let t = self.jt_row[q] as usize;
                for &c in &self.jcol[self.jadr[t]..self.jadr[t + 1]] {
                    let c = c as usize;
                    if c > r {
                        break;
                    }
                    if self.mark[c] != r {
                        self.mark[c] = r;
                        self.h_col.push(c as u32);
                    }
                }
            }
            let adr = m.M_rowadr[dof] as usize;
            for &c in &m.M_colind[adr..adr + m.M_rownnz[dof] as usize] {
                let c = isl.local[c as usize];
                if self.mark[c] != r {
                    self.mark[c] = r;
                    self.h_col.push(c as u32);
                }
            }
            for &(i, j, _) in metric.entry_range(self.s_adr[r]..self.s_adr[r + 1]) {
                debug_assert_eq!(i as usize, dof);
                let c = isl.local[j as usize];
                if self.mark[c] != r {
                    self.mark[c] = r;
                    self.h_col.push(c as u32);
                }
            }
            self.h_col[start..].sort_unstable();
            self.h_adr.push(self.h_col.len());
        }
        self.transpose_pattern();
    }

    /// S on H's pattern, summed on its own: the entries in their order (`metric` grouped by
    /// row, [`Self::group_metric`]), the diagonal added to their sum last, as 3.15.0's
    /// `mj_solPrimal` merges S (its disassembly: each entry summed from zero, over `efm_K` and
    /// then the rank-1 terms; on the diagonal `efm_sdiag + sum`).
    fn metric_values(&mut self, metric: MetricTerms, isl: IslandRef) {
        self.s_on = !metric.diag.is_empty() || !metric.entries.is_empty();
        refill(
            &mut self.s_val,
            if self.s_on { self.h_col.len() } else { 0 },
            0.0,
        );
        for (r, &dof) in isl.dofs.iter().enumerate().filter(|_| self.s_on) {
            let (lo, hi) = (self.h_adr[r], self.h_adr[r + 1]);
            for &(_, j, v) in metric.entry_range(self.s_adr[r]..self.s_adr[r + 1]) {
                let c = isl.local[j as usize] as u32;
                let k = self.h_col[lo..hi]
                    .binary_search(&c)
                    .expect("S inside H's pattern");
                self.s_val[lo + k] += v;
            }
            if !metric.diag.is_empty() {
                self.s_val[hi - 1] += metric.diag[dof];
            }
        }
    }

    /// H's strict upper pattern from its lower one (`mju_transposeSparse`).
    fn transpose_pattern(&mut self) {
        let n = self.n;
        refill(&mut self.ht_adr, n + 1, 0);
        for &c in &self.h_col {
            self.ht_adr[c as usize + 1] += 1;
        }
        counts_to_adr(&mut self.ht_adr);
        refill(&mut self.ht_col, self.h_col.len(), 0);
        refill(&mut self.cursor, n, 0);
        self.cursor.copy_from_slice(&self.ht_adr[..n]);
        for i in 0..n {
            for p in self.h_adr[i]..self.h_adr[i + 1] {
                let c = self.h_col[p] as usize;
                self.ht_col[self.cursor[c]] = i as u32;
                self.cursor[c] += 1;
            }
        }
    }

    /// `mju_cholFactorSymbolic`: L's pattern by the elimination walk from the last row up.
    fn symbolic(&mut self) {
        let n = self.n;
        refill(&mut self.parent, n, NONE);
        refill(&mut self.mark, n, NONE);
        self.visits.clear();
        for r in (0..n).rev() {
            self.mark[r] = r;
            for p in self.ht_adr[r]..self.ht_adr[r + 1] {
                let mut i = self.ht_col[p] as usize;
                if i <= r {
                    continue;
                }
                while self.mark[i] != r {
                    if self.parent[i] == NONE {
                        self.parent[i] = r;
                    }
                    self.visits.push((r as u32, i as u32));
                    self.mark[i] = r;
                    i = self.parent[i];
                }
            }
        }
        // row i of L: its diagonal and one entry per visit (r, i); row r of Lᵀ: its diagonal
        // and one entry per visit (r, ·)
        refill(&mut self.l_adr, n + 1, 0);
        refill(&mut self.lt_adr, n + 1, 0);
        for k in 0..n {
            self.l_adr[k + 1] = 1;
            self.lt_adr[k + 1] = 1;
        }
        for &(r, i) in &self.visits {
            self.l_adr[i as usize + 1] += 1;
            self.lt_adr[r as usize + 1] += 1;
        }
        counts_to_adr(&mut self.l_adr);
        counts_to_adr(&mut self.lt_adr);
        let nl = self.l_adr[n];
        refill(&mut self.l_col, nl, 0);
        refill(&mut self.l, nl, 0.0);
        refill(&mut self.lt_col, nl, 0);
        refill(&mut self.lt_map, nl, 0);
        // L's rows fill from their diagonal backwards as r falls, so their columns increase;
        // Lᵀ's rows in the walk's order, which the numeric factorization's sums follow
        refill(&mut self.cursor, n, 0);
        for k in 0..n {
            let diag = self.l_adr[k + 1] - 1;
            self.l_col[diag] = k as i32;
            self.cursor[k] = diag;
            self.lt_col[self.lt_adr[k]] = k as u32;
            self.lt_map[self.lt_adr[k]] = diag;
        }
        // the walk visits rows r from the last, so each Lᵀ row's entries are contiguous
        let mut at = 0;
        let mut row = NONE;
        for &(r, i) in &self.visits {
            let (r, i) = (r as usize, i as usize);
            if r != row {
                row = r;
                at = self.lt_adr[r] + 1;
            }
            self.cursor[i] -= 1;
            let li = self.cursor[i];
            self.l_col[li] = r as i32;
            self.lt_col[at] = i as u32;
            self.lt_map[at] = li;
            at += 1;
        }
        // a row's parent is its last column before the diagonal (the walk's first visitor)
        refill(&mut self.l_path, n, 0);
        self.l_sq = 0;
        for k in 0..n {
            let (lo, hi) = (self.l_adr[k], self.l_adr[k + 1]);
            let nnz = hi - lo;
            let up = if nnz >= 2 {
                self.l_path[self.l_col[hi - 2] as usize]
            } else {
                0
            };
            self.l_path[k] = up + nnz;
            self.l_sq += (nnz * nnz) as i64;
        }
    }

    /// H's values at the rows' current states ([`assemble`] with `D` on the rows in the
    /// quadratic zone).
    fn values(&mut self, m: &Model, d: &Data, isl: IslandRef) {
        refill(&mut self.dense, self.n, 0.0);
        self.row_d.clear();
        self.row_d
            .extend(isl.rows.iter().map(|&r| quadratic_d(d, r)));
        self.assemble_rows(false, m, d, isl);
    }

    /// [`assemble`] with this Hessian's pattern and rows weighted by `row_d`: J's into `h_val`,
    /// or with `cone` the cone Hessian's rows `jc` into `hc`.
    fn assemble_rows(&mut self, cone: bool, m: &Model, d: &Data, isl: IslandRef) {
        let (out, val) = if cone {
            (&mut self.hc, &self.jc)
        } else {
            (&mut self.h_val, &self.jval)
        };
        let rows = Rows {
            adr: &self.jadr,
            col: &self.jcol,
            val,
            weight: &self.row_d,
            t_adr: &self.jt_adr,
            t_row: &self.jt_row,
            t_pos: &self.jt_pos,
        };
        let h = Pattern {
            adr: &self.h_adr,
            col: &self.h_col,
        };
        let sv = self.s_on.then_some(&self.s_val[..]);
        assemble(out, &mut self.dense, rows, h, m, d, sv, isl);
    }

    /// After a line-search step (`HessianIncremental`): one rank-1 update of `L` with
    /// `J[r]·√D[r]` per row `r` that entered the quadratic zone and one downdate per row that
    /// left it (`oldstate` holds the states before the step); if one loses rank, H is formed
    /// and factored again. Then the cone blocks.
    #[inline(never)]
    pub fn update(&mut self, m: &Model, d: &Data, isl: IslandRef, oldstate: &[i32]) {
        for (t, r, is) in zone_changes(d, isl, oldstate) {
            let s = d.a.efc_D[r].sqrt();
            let (lo, hi) = (self.jadr[t], self.jadr[t + 1]);
            self.x.clear();
            self.x.extend(self.jval[lo..hi].iter().map(|&v| v * s));
            let rank = chol_update(
                &mut self.l,
                &self.l_adr,
                &self.l_col,
                &mut self.dense,
                &self.x,
                &self.jcol[lo..hi],
                is,
                self.n,
            );
            if rank < self.n {
                return self.refactor(m, d, isl);
            }
        }
        self.add_cones(m, d, isl);
    }

    /// `lcone`, the factor of H with the cone Hessian of every elliptic contact in its cone
    /// zone, as MuJoCo 3.15.0's `HessianCone` makes it in a sparse model (read off its
    /// disassembly: the published sources before 3.15.0 only update). It chooses by a cost
    /// estimate ([`Self::cone_refactor_cheaper`]) between rank-1 updates of a copy of `L`
    /// ([`Self::update_cones`]) and forming and factoring H with the cones whole: each such
    /// contact's rows of J become the rows of `Lₕᵀ·J` (`Lₕ` the Cholesky factor of its
    /// `dim × dim` Hessian) with weight 1, the other rows keep `D` in the quadratic zone and 0
    /// outside it, and the result is assembled on H's pattern as H is and factored on L's
    /// (`mju_transposeSparse`, `mju_sqrMatTDSparseNumeric`, `mju_addToMatSparse`,
    /// `mju_cholFactorNumeric`).
    fn add_cones(&mut self, m: &Model, d: &Data, isl: IslandRef) {
        self.cone = isl.rows.iter().any(|&r| d.a.efc_state[r] == state::CONE);
        if !self.cone {
            return;
        }
        if !self.cone_refactor_cheaper(d, isl) {
            return self.update_cones(d, isl);
        }
        // the updates leave `dense` short and dirty
        refill(&mut self.dense, self.n, 0.0);
        self.jc.clone_from(&self.jval);
        self.row_d.clear();
        self.row_d
            .extend(isl.rows.iter().map(|&r| quadratic_d(d, r)));
        for (t, dim) in cone_contacts(d, isl) {
            let lh = cone_factor(d, isl.rows[t]);
            // row a of Lₕᵀ·J: the sum over c ≥ a of Lₕ[c, a]·J[c], c increasing, from zero
            for a in 0..dim {
                let (ra, rb) = (self.jadr[t + a], self.jadr[t + a + 1]);
                self.jc[ra..rb].fill(0.0);
                for c in a..dim {
                    let s = lh[c * dim + a];
                    let rc = self.jadr[t + c];
                    debug_assert_eq!(
                        self.jadr[t + c + 1] - rc,
                        rb - ra,
                        "a contact's rows share columns"
                    );
                    for k in 0..rb - ra {
                        self.jc[ra + k] += self.jval[rc + k] * s;
                    }
                }
                self.row_d[t + a] = 1.0;
            }
        }
        self.assemble_rows(true, m, d, isl);
        refill(&mut self.lcone, self.l.len(), 0.0);
        let f = factor_pattern!(self);
        numeric(&mut self.lcone, &mut self.dense, &self.hc, f);
    }

    /// MuJoCo 3.15.0's choice in `HessianCone`: refactor when ten times the updates' work
    /// (per cone contact, `dim` times the length of the elimination path from its last column)
    /// exceeds three times a factorization's estimate (twice the rows' `nnz²`, quadratic rows
    /// and cone contacts' rows, plus `Σ L_rownnz²`). It depends on the rows' states only, as
    /// MuJoCo's cached flag does (reset whenever a state changes).
    fn cone_refactor_cheaper(&self, d: &Data, isl: IslandRef) -> bool {
        let (mut updates, mut rows) = (0i64, 0i64);
        let mut t = 0;
        while t < isl.rows.len() {
            let r = isl.rows[t];
            let nnz = (self.jadr[t + 1] - self.jadr[t]) as i64;
            if d.a.efc_state[r] == state::CONE {
                let dim = d.contact[d.a.efc_id[r] as usize].dim as usize;
                let last = self.jcol[self.jadr[t + 1] - 1] as usize;
                updates += dim as i64 * self.l_path[last] as i64;
                rows += nnz * nnz * dim as i64;
                t += dim;
                continue;
            }
            if d.a.efc_state[r] == state::QUADRATIC {
                rows += nnz * nnz;
            }
            t += 1;
        }
        10 * updates > 3 * (2 * rows + self.l_sq)
    }

    /// `lcone = L` plus each cone contact's `dim` rank-1 updates with the rows of `Lₕᵀ·J`
    /// (the sums over `c ≤ a` of `Lₕ[a, c]·J[a]` into row `c`, `a` increasing).
    fn update_cones(&mut self, d: &Data, isl: IslandRef) {
        self.lcone.clone_from(&self.l);
        for (t, dim) in cone_contacts(d, isl) {
            let lh = cone_factor(d, isl.rows[t]);
            let (lo, hi) = (self.jadr[t], self.jadr[t + 1]);
            let nnz = hi - lo;
            refill(&mut self.ltj, dim * nnz, 0.0);
            for a in 0..dim {
                let ra = self.jadr[t + a];
                debug_assert_eq!(
                    self.jadr[t + a + 1] - ra,
                    nnz,
                    "a contact's rows share columns"
                );
                for c in 0..=a {
                    let s = lh[a * dim + c];
                    for k in 0..nnz {
                        self.ltj[c * nnz + k] += self.jval[ra + k] * s;
                    }
                }
            }
            for a in 0..dim {
                let ra = self.jadr[t + a];
                chol_update(
                    &mut self.lcone,
                    &self.l_adr,
                    &self.l_col,
                    &mut self.dense,
                    &self.ltj[a * nnz..(a + 1) * nnz],
                    &self.jcol[ra..ra + nnz],
                    true,
                    self.n,
                );
            }
        }
    }

    /// `out = H⁻¹·b` on the island's dofs (`mju_cholSolveSparse`, with the cone blocks when
    /// some contact is in its cone zone).
    #[inline(never)]
    pub fn solve(&mut self, b: &[f64], out: &mut [f64], dofs: &[usize]) {
        let n = self.n;
        self.rhs.clear();
        self.rhs.extend(dofs.iter().map(|&i| b[i]));
        let l = if self.cone { &self.lcone } else { &self.l };
        let res = &mut self.rhs;
        // res ← L⁻ᵀ·res
        for i in (0..n).rev() {
            if res[i] != 0.0 {
                let (lo, hi) = (self.l_adr[i], self.l_adr[i + 1]);
                res[i] /= l[hi - 1];
                let tmp = res[i];
                for p in lo..hi - 1 {
                    res[self.l_col[p] as usize] -= l[p] * tmp;
                }
            }
        }
        // res ← L⁻¹·res
        for i in 0..n {
            let (lo, hi) = (self.l_adr[i], self.l_adr[i + 1]);
            if hi - lo > 1 {
                res[i] -= dot_sparse_avx(&l[lo..hi - 1], res, &self.l_col[lo..hi - 1]);
            }
            res[i] /= l[hi - 1];
        }
        for (&y, &i) in self.rhs.iter().zip(dofs) {
            out[i] = y;
        }
    }
}

/// The island's elliptic contacts in their cone zone: `(index of the first row in the island,
/// dim)`, in row order.
fn cone_contacts<'a>(d: &'a Data, isl: IslandRef<'a>) -> impl Iterator<Item = (usize, usize)> + 'a {
    let mut t = 0;
    std::iter::from_fn(move || {
        while t < isl.rows.len() {
            let r = isl.rows[t];
            if d.a.efc_state[r] == state::CONE {
                let dim = d.contact[d.a.efc_id[r] as usize].dim as usize;
                let first = t;
                t += dim;
                return Some((first, dim));
            }
            t += 1;
        }
        None
    })
}

/// The Cholesky factor of the cone Hessian of the contact whose first row is `r`
/// (`mju_cholFactor` of its `dim × dim` block, row-major).
fn cone_factor(d: &Data, r: usize) -> [f64; 36] {
    let con = &d.contact[d.a.efc_id[r] as usize];
    let dim = con.dim as usize;
    let mut lh = [0.0; 36];
    lh[..dim * dim].copy_from_slice(&con.h[..dim * dim]);
    super::dense_chol::factor(&mut lh[..dim * dim], dim, MINVAL);
    lh
}

/// `D` of row `r` in the quadratic zone, 0 outside it (`MakeHessian`'s constraint inertia).
fn quadratic_d(d: &Data, r: usize) -> f64 {
    if d.a.efc_state[r] == state::QUADRATIC {
        d.a.efc_D[r]
    } else {
        0.0
    }
}

/// A sparse matrix's rows (`J`) with a weight per row, and its transpose as places in them.
#[derive(Clone, Copy)]
struct Rows<'a> {
    adr: &'a [usize],
    col: &'a [i32],
    val: &'a [f64],
    weight: &'a [f64],
    t_adr: &'a [usize],
    t_row: &'a [u32],
    t_pos: &'a [usize],
}

/// A lower triangle's pattern by rows.
#[derive(Clone, Copy)]
struct Pattern<'a> {
    adr: &'a [usize],
    col: &'a [u32],
}

/// H's and L's patterns, and Lᵀ's with its places in L.
#[derive(Clone, Copy)]
struct FactorPattern<'a> {
    h_adr: &'a [usize],
    h_col: &'a [u32],
    l_adr: &'a [usize],
    l_col: &'a [i32],
    lt_adr: &'a [usize],
    lt_col: &'a [u32],
    lt_map: &'a [usize],
}

/// `out = (Jᵀ·W·J + M) + S` on H's pattern: row `r` through a dense accumulator over the
/// rows through dof `r` in increasing order, those with `W·J[r] = 0` skipped
/// (`mju_sqrMatTDSparseNumeric`), then M's row merged in and then S's (`mju_addToMatSparse`
/// twice; `s` holds S on H's pattern, zero where S has no entry). `dense` is zero on entry and
/// on return.
#[allow(clippy::too_many_arguments)]
fn assemble(
    out: &mut Vec<f64>,
    dense: &mut [f64],
    j: Rows,
    h: Pattern,
    m: &Model,
    d: &Data,
    s: Option<&[f64]>,
    isl: IslandRef,
) {
    refill(out, h.col.len(), 0.0);
    for (r, &dof) in isl.dofs.iter().enumerate() {
        for q in j.t_adr[r]..j.t_adr[r + 1] {
            let t = j.t_row[q] as usize;
            let scale = j.weight[t] * j.val[j.t_pos[q]];
            if scale == 0.0 {
                continue;
            }
            for p in j.adr[t]..j.adr[t + 1] {
                let c = j.col[p] as usize;
                if c > r {
                    break;
                }
                dense[c] += scale * j.val[p];
            }
        }
        let (lo, hi) = (h.adr[r], h.adr[r + 1]);
        for p in lo..hi {
            let c = h.col[p] as usize;
            out[p] = dense[c];
            dense[c] = 0.0;
        }
        // M's row merged in: both patterns increase, and M's is inside H's
        let adr = m.M_rowadr[dof] as usize;
        let mut p = lo;
        for t in adr..adr + m.M_rownnz[dof] as usize {
            let c = isl.local[m.M_colind[t] as usize] as u32;
            while h.col[p] != c {
                p += 1;
            }
            out[p] += d.a.M[t];
        }
        if let Some(s) = s {
            for (o, &v) in out[lo..hi].iter_mut().zip(&s[lo..hi]) {
                *o += v;
            }
        }
    }
}

/// `mju_cholFactorNumeric` with `mindiag` = `mjMINVAL`: `l` from H's values `h`, rows from the
/// last up, each scattered from H and reduced by the rows below it that reach its column, in
/// `Lᵀ`'s order. `dense` is zero on entry and on return. Returns the rank.
fn numeric(l: &mut [f64], dense: &mut [f64], h: &[f64], f: FactorPattern) -> usize {
    let n = f.l_adr.len() - 1;
    assert!(dense.len() >= n, "the accumulator holds a row of L");
    let mut rank = n;
    for r in (0..n).rev() {
        for p in f.h_adr[r]..f.h_adr[r + 1] {
            dense[f.h_col[p] as usize] = h[p];
        }
        for k in f.lt_adr[r] + 1..f.lt_adr[r + 1] {
            let c = f.lt_col[k] as usize;
            let lcr_at = f.lt_map[k];
            let lcr = l[lcr_at];
            let lo = f.l_adr[c];
            for (&col, &v) in f.l_col[lo..=lcr_at].iter().zip(&l[lo..=lcr_at]) {
                // SAFETY: L's columns are below n (`symbolic`), and `dense` holds n entries
                // (asserted above)
                unsafe { *dense.get_unchecked_mut(col as usize) -= lcr * v };
            }
        }
        let (lo, hi) = (f.l_adr[r], f.l_adr[r + 1]);
        let cols = &f.l_col[lo..hi];
        if super::rchol::finish_row(&mut l[lo..hi], |k| cols[k] as usize, dense, MINVAL) {
            rank -= 1;
        }
    }
    rank
}

/// `mju_cholUpdateSparse`: `LᵀL ± x·xᵀ` by Givens rotations from the row of `x`'s last entry
/// up, `x` sparse (`val` at `ind`, increasing) and inside L's pattern. `dense` is scratch of
/// at least `n` entries. Returns the rank (`n` less the pivots raised to `mjMINVAL`).
#[allow(clippy::too_many_arguments)]
fn chol_update(
    mat: &mut [f64],
    l_adr: &[usize],
    l_col: &[i32],
    dense: &mut Vec<f64>,
    val: &[f64],
    ind: &[i32],
    plus: bool,
    n: usize,
) -> usize {
    let Some(&last) = ind.last() else {
        return n;
    };
    let start = last as usize;
    refill(dense, start + 1, 0.0);
    for (&v, &i) in val.iter().zip(ind) {
        dense[i as usize] = v;
    }
    let mut rank = n;
    for row in (0..=start).rev() {
        if dense[row] == 0.0 {
            continue;
        }
        let (adr, end) = (l_adr[row], l_adr[row + 1] - 1);
        let diag = mat[end];
        let xr = dense[row];
        let mut tmp = diag * diag + if plus { xr * xr } else { -xr * xr };
        if tmp < MINVAL {
            tmp = MINVAL;
            rank -= 1;
        }
        let r = tmp.sqrt();
        mat[end] = r;
        let c = diag / r;
        let s = -xr / r;
        let s_signed = if plus { -s } else { s };
        for (&j, mv) in l_col[adr..end].iter().zip(&mut mat[adr..end]) {
            // SAFETY: row `row`'s columns are below `row` ≤ `start` < `dense.len()` (L's
            // rows hold their columns before the diagonal)
            let dj = unsafe { dense.get_unchecked_mut(j as usize) };
            let m0 = *mv;
            *mv = c * m0 + s_signed * *dj;
            *dj = s * m0 + c * *dj;
        }
    }
    rank
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A symmetric positive definite `n × n` matrix with a scattered pattern, dense.
    fn spd(n: usize) -> Vec<f64> {
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..i {
                if (i * 7 + j * 3) % 5 == 0 {
                    let v = ((i * 13 + j * 29) % 17) as f64 / 17.0 - 0.5;
                    a[i * n + j] = v;
                    a[j * n + i] = v;
                }
            }
            a[i * n + i] = n as f64;
        }
        a
    }

    /// A factor of the lower triangle of `a` (every structural entry kept).
    fn factored(a: &[f64], n: usize) -> SparseHessian {
        let mut h = SparseHessian {
            n,
            ..Default::default()
        };
        h.h_adr.push(0);
        for r in 0..n {
            for c in 0..=r {
                if a[r * n + c] != 0.0 {
                    h.h_col.push(c as u32);
                    h.h_val.push(a[r * n + c]);
                }
            }
            h.h_adr.push(h.h_col.len());
        }
        h.transpose_pattern();
        h.symbolic();
        refill(&mut h.dense, n, 0.0);
        let f = factor_pattern!(h);
        let rank = numeric(&mut h.l, &mut h.dense, &h.h_val, f);
        assert_eq!(rank, n);
        h
    }

    /// `LᵀL` of a factor, dense.
    fn product(h: &SparseHessian) -> Vec<f64> {
        let n = h.n;
        let mut l = vec![0.0; n * n];
        for r in 0..n {
            for p in h.l_adr[r]..h.l_adr[r + 1] {
                l[r * n + h.l_col[p] as usize] = h.l[p];
            }
        }
        let mut out = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                out[i * n + j] = (0..n).map(|k| l[k * n + i] * l[k * n + j]).sum();
            }
        }
        out
    }

    fn assert_close(a: &[f64], b: &[f64], tol: f64) {
        for (k, (x, y)) in a.iter().zip(b).enumerate() {
            assert!((x - y).abs() <= tol, "entry {k}: {x} vs {y}");
        }
    }

    #[test]
    fn reverse_cholesky_reproduces_the_matrix() {
        let n = 23;
        let a = spd(n);
        let h = factored(&a, n);
        // each row of L ends on its diagonal, its columns increasing
        for r in 0..n {
            let cols = &h.l_col[h.l_adr[r]..h.l_adr[r + 1]];
            assert_eq!(*cols.last().unwrap() as usize, r);
            assert!(cols.windows(2).all(|w| w[0] < w[1]));
        }
        assert_close(&product(&h), &a, 1e-12);
    }

    #[test]
    fn solve_inverts_the_matrix() {
        let n = 17;
        let a = spd(n);
        let mut h = factored(&a, n);
        let b: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
        let dofs: Vec<usize> = (0..n).collect();
        let mut x = vec![0.0; n];
        h.solve(&b, &mut x, &dofs);
        let ax: Vec<f64> = (0..n)
            .map(|i| (0..n).map(|j| a[i * n + j] * x[j]).sum())
            .collect();
        assert_close(&ax, &b, 1e-12);
    }

    #[test]
    fn rank_one_update_and_downdate_inside_the_pattern() {
        let n = 19;
        let a = spd(n);
        let mut h = factored(&a, n);
        // x on row 12's pattern of H, so inside L's
        let ind: Vec<i32> = h.h_col[h.h_adr[12]..h.h_adr[13]]
            .iter()
            .map(|&c| c as i32)
            .collect();
        let val: Vec<f64> = (0..ind.len()).map(|k| 0.3 + 0.1 * k as f64).collect();
        let mut plus = a.clone();
        for (p, &i) in ind.iter().enumerate() {
            for (q, &j) in ind.iter().enumerate() {
                plus[i as usize * n + j as usize] += val[p] * val[q];
            }
        }
        let mut dense = Vec::new();
        let (l_adr, l_col) = (h.l_adr.clone(), h.l_col.clone());
        let rank = chol_update(&mut h.l, &l_adr, &l_col, &mut dense, &val, &ind, true, n);
        assert_eq!(rank, n);
        assert_close(&product(&h), &plus, 1e-12);
        let rank = chol_update(&mut h.l, &l_adr, &l_col, &mut dense, &val, &ind, false, n);
        assert_eq!(rank, n);
        assert_close(&product(&h), &a, 1e-12);
    }
}

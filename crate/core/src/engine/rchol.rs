//! MuJoCo's sparse reverse Cholesky (`mju_cholFactorSymbolic`, `mju_cholFactorNumeric`):
//! `H = Lᵀ·L` with `L` lower triangular, eliminated from the last row up, stored by rows with
//! each row's diagonal last. Used where MuJoCo 3.15.0 uses it and its rounding is wanted: the
//! discrete metric's constant bending factor `efm0`.

/// A factor's pattern (rows of `L`, and of `Lᵀ` with the map into `L`) and values.
#[derive(Debug, Clone, Default)]
pub struct RevChol {
    pub rownnz: Vec<usize>,
    pub rowadr: Vec<usize>,
    pub colind: Vec<usize>,
    pub val: Vec<f64>,
    lt_rownnz: Vec<usize>,
    lt_rowadr: Vec<usize>,
    lt_colind: Vec<usize>,
    lt_map: Vec<usize>,
}

/// The end of one row of `mju_cholFactorNumeric`, once `dense` holds the row of `H` less the
/// updates of the rows below it: the pivot `√max(mindiag, d)` stored last in `row` (the row's
/// entries, diagonal last, at columns `col(k)`), the off-diagonals scaled by its reciprocal,
/// or cleared when the pivot was raised, as 3.15.0 does (scaling them by a raised pivot's
/// reciprocal overflowed a Newton Hessian with rows of D = 1e15 to NaN). Clears `dense` at
/// the row's columns; returns whether the pivot was raised. Shared by every sparse factor
/// (`efm0` here, Newton's Hessian in `newton_sparse.rs`).
#[inline]
pub(super) fn finish_row(
    row: &mut [f64],
    col: impl Fn(usize) -> usize,
    dense: &mut [f64],
    mindiag: f64,
) -> bool {
    let last = row.len() - 1;
    let diag = dense[col(last)];
    let raised = diag < mindiag;
    let pivot = if raised { mindiag } else { diag }.sqrt();
    if raised {
        row[..last].fill(0.0);
    } else {
        let inv = 1.0 / pivot;
        for (k, v) in row[..last].iter_mut().enumerate() {
            *v = dense[col(k)] * inv;
        }
    }
    row[last] = pivot;
    for k in 0..=last {
        dense[col(k)] = 0.0;
    }
    raised
}

/// Walks the elimination tree of `mju_cholFactorSymbolic` for an `n`×`n` pattern whose
/// strictly upper triangle has, in row `r`, the columns `upper(r)`: `visit(r, i)` for each entry
/// `L[i, r]`, rows `r` from the last, in the order both of its phases meet them.
fn elimination_walk(
    n: usize,
    upper: &impl Fn(usize) -> Vec<usize>,
    mut visit: impl FnMut(usize, usize),
) {
    const NONE: usize = usize::MAX;
    let (mut parent, mut flag) = (vec![NONE; n], vec![NONE; n]);
    for r in (0..n).rev() {
        flag[r] = r;
        for mut i in upper(r).into_iter().filter(|&i| i > r) {
            while flag[i] != r {
                if parent[i] == NONE {
                    parent[i] = r;
                }
                visit(r, i);
                flag[i] = r;
                i = parent[i];
            }
        }
    }
}

impl RevChol {
    /// The pattern of `L` for an `n`×`n` matrix whose strictly upper triangle has, in row `r`,
    /// the columns `upper(r)` (`mju_cholFactorSymbolic`: counting, then filling each row of `L`
    /// from its end, before the diagonal, backwards).
    #[cold]
    pub fn symbolic(n: usize, upper: impl Fn(usize) -> Vec<usize>) -> Self {
        let mut f = RevChol {
            rownnz: vec![1; n],
            lt_rownnz: vec![1; n],
            ..Default::default()
        };
        elimination_walk(n, &upper, |r, i| {
            f.rownnz[i] += 1;
            f.lt_rownnz[r] += 1;
        });
        let mut adr = (0, 0);
        for r in 0..n {
            f.rowadr.push(adr.0);
            f.lt_rowadr.push(adr.1);
            adr = (adr.0 + f.rownnz[r], adr.1 + f.lt_rownnz[r]);
        }
        let nnz = adr.0;
        f.colind = vec![0; nnz];
        f.val = vec![0.0; nnz];
        f.lt_colind = vec![0; nnz];
        f.lt_map = vec![0; nnz];
        // each row's diagonal is last in L and first in Lᵀ; a row of Lᵀ is written as its row
        // of the walk comes, the diagonal before the rest
        let mut cursor: Vec<usize> = (0..n).map(|r| f.rowadr[r] + f.rownnz[r] - 1).collect();
        let mut lt_write = f.lt_rowadr.clone();
        for r in 0..n {
            f.colind[cursor[r]] = r;
            f.lt_colind[lt_write[r]] = r;
            f.lt_map[lt_write[r]] = cursor[r];
            lt_write[r] += 1;
        }
        elimination_walk(n, &upper, |r, i| {
            cursor[i] -= 1;
            f.colind[cursor[i]] = r;
            f.lt_colind[lt_write[r]] = i;
            f.lt_map[lt_write[r]] = cursor[i];
            lt_write[r] += 1;
        });
        f
    }

    /// Factors `H` given by its lower triangle, row `r` being `lower(r)` = `(column, value)`
    /// pairs (`mju_cholFactorNumeric`, one dense row accumulator); pivots below `mindiag` are
    /// raised to it and their rows cleared ([`finish_row`]). Returns the rank.
    #[cold]
    pub fn numeric(&mut self, mindiag: f64, lower: impl Fn(usize) -> Vec<(usize, f64)>) -> usize {
        let n = self.rownnz.len();
        let mut rank = n;
        let mut dense = vec![0.0; n];
        for r in (0..n).rev() {
            for (c, v) in lower(r) {
                dense[c] = v;
            }
            self.eliminate(r, &mut dense);
            let (adr, nnz) = (self.rowadr[r], self.rownnz[r]);
            let cols = &self.colind[adr..adr + nnz];
            if finish_row(
                &mut self.val[adr..adr + nnz],
                |k| cols[k],
                &mut dense,
                mindiag,
            ) {
                rank -= 1;
            }
        }
        rank
    }

    /// Subtracts from row `r`'s dense accumulator the rows already factored that it reaches
    /// (`mju_cholFactorNumeric`'s inner loop). Not generic, so that it is compiled with the
    /// numeric core, not with the caller of [`RevChol::numeric`] (the compiler's crate, built for
    /// size in the browser, where this loop made the 30×30 cloth's load several times slower).
    #[inline(never)]
    fn eliminate(&self, r: usize, dense: &mut [f64]) {
        let (lt_adr, lt_nnz) = (self.lt_rowadr[r], self.lt_rownnz[r]);
        for k in 1..lt_nnz {
            let c = self.lt_colind[lt_adr + k];
            let l_cr_idx = self.lt_map[lt_adr + k];
            let l_cr = self.val[l_cr_idx];
            let span = self.rowadr[c]..l_cr_idx + 1;
            for (&col, &v) in self.colind[span.clone()].iter().zip(&self.val[span]) {
                dense[col] -= l_cr * v;
            }
        }
    }

    /// `x = H⁻¹·x` on the factor's rows (`mju_cholSolveSparse`: `Lᵀ` from the last row, then
    /// `L` with each row's sum in `mju_dotSparse`'s order), where row `r` is `x[pos[r]]` and
    /// entry `k` of `L` multiplies `x[col[k]]` (`col` = `colind` carried over by `pos`, so a
    /// factor of some dofs solves in place in a vector over all of them).
    pub fn solve_at(&self, x: &mut [f64], pos: &[usize], col: &[i32]) {
        for (r, &i) in pos.iter().enumerate().rev() {
            if x[i] != 0.0 {
                let (adr, nnz) = (self.rowadr[r], self.rownnz[r]);
                x[i] /= self.val[adr + nnz - 1];
                let t = x[i];
                for k in adr..adr + nnz - 1 {
                    x[col[k] as usize] -= self.val[k] * t;
                }
            }
        }
        for (r, &i) in pos.iter().enumerate() {
            let (adr, nnz) = (self.rowadr[r], self.rownnz[r]);
            let dn = adr + nnz - 1;
            if nnz > 1 {
                x[i] -= super::solver::dot_sparse_avx(&self.val[adr..dn], x, &col[adr..dn]);
            }
            x[i] /= self.val[dn];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Lᵀ·L` of a factor, dense.
    fn product(f: &RevChol, n: usize) -> Vec<f64> {
        let mut l = vec![0.0; n * n];
        for r in 0..n {
            for k in f.rowadr[r]..f.rowadr[r] + f.rownnz[r] {
                l[r * n + f.colind[k]] = f.val[k];
            }
        }
        let mut h = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                h[i * n + j] = (0..n).map(|k| l[k * n + i] * l[k * n + j]).sum();
            }
        }
        h
    }

    #[test]
    fn factors_a_sparse_spd_matrix_with_fill() {
        // an arrow (dense last row and column) and a chain: the elimination from the last row
        // fills the whole lower triangle
        let n = 6;
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            a[i * n + i] = 10.0 + i as f64;
            if i + 1 < n {
                a[i * n + i + 1] = 0.5;
                a[(i + 1) * n + i] = 0.5;
            }
            a[i * n + n - 1] += 1.0;
            a[(n - 1) * n + i] += 1.0;
        }
        let nz = |r: usize, c: usize| a[r * n + c] != 0.0;
        let mut f = RevChol::symbolic(n, |r| (r + 1..n).filter(|&c| nz(r, c)).collect());
        let rank = f.numeric(1e-15, |r| {
            (0..=r)
                .filter(|&c| nz(r, c))
                .map(|c| (c, a[r * n + c]))
                .collect()
        });
        assert_eq!(rank, n);
        let h = product(&f, n);
        for (x, y) in h.iter().zip(&a) {
            assert!((x - y).abs() < 1e-12, "{x} vs {y}");
        }
        // the last row eliminated first touches every earlier row: all fill
        assert_eq!(f.rownnz.iter().sum::<usize>(), n * (n + 1) / 2);
        // H⁻¹·(H·x0) = x0, rows placed apart in a longer vector
        let x0: Vec<f64> = (0..n).map(|i| 1.0 - 0.3 * i as f64).collect();
        let pos: Vec<usize> = (0..n).map(|r| 2 * r + 1).collect();
        let col: Vec<i32> = f.colind.iter().map(|&c| pos[c] as i32).collect();
        let mut x = vec![7.0; 2 * n + 1];
        for r in 0..n {
            x[pos[r]] = (0..n).map(|c| a[r * n + c] * x0[c]).sum();
        }
        f.solve_at(&mut x, &pos, &col);
        for r in 0..n {
            assert!(
                (x[pos[r]] - x0[r]).abs() < 1e-12,
                "{} vs {}",
                x[pos[r]],
                x0[r]
            );
            assert_eq!(
                x[2 * r],
                7.0,
                "an entry outside the factor's rows was touched"
            );
        }
    }
}

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

impl RevChol {
    /// The pattern of `L` for an `n`×`n` matrix whose strictly upper triangle has, in row `r`,
    /// the columns `upper(r)` (`mju_cholFactorSymbolic`'s elimination tree walk, both phases).
    #[cold]
    pub fn symbolic(n: usize, upper: impl Fn(usize) -> Vec<usize>) -> Self {
        const NONE: usize = usize::MAX;
        let mut f = RevChol {
            rownnz: vec![1; n],
            lt_rownnz: vec![1; n],
            ..Default::default()
        };
        let (mut parent, mut flag) = (vec![NONE; n], vec![NONE; n]);
        // counting
        for r in (0..n).rev() {
            parent[r] = NONE;
            flag[r] = r;
            for mut i in upper(r).into_iter().filter(|&i| i > r) {
                while flag[i] != r {
                    if parent[i] == NONE {
                        parent[i] = r;
                    }
                    f.rownnz[i] += 1;
                    f.lt_rownnz[r] += 1;
                    flag[i] = r;
                    i = parent[i];
                }
            }
        }
        let mut adr = (0, 0);
        for r in 0..n {
            f.rowadr.push(adr.0);
            f.lt_rowadr.push(adr.1);
            adr = (adr.0 + f.rownnz[r], adr.1 + f.lt_rownnz[r]);
        }
        // filling: each row of L from its end (before the diagonal) backwards
        let nnz = adr.0;
        f.colind = vec![0; nnz];
        f.val = vec![0.0; nnz];
        f.lt_colind = vec![0; nnz];
        f.lt_map = vec![0; nnz];
        let mut cursor: Vec<usize> = (0..n).map(|r| f.rowadr[r] + f.rownnz[r] - 1).collect();
        let mut lt_write = f.lt_rowadr.clone();
        parent.fill(NONE);
        flag.fill(NONE);
        for r in (0..n).rev() {
            parent[r] = NONE;
            flag[r] = r;
            let diag = f.rowadr[r] + f.rownnz[r] - 1;
            f.colind[diag] = r;
            f.lt_colind[lt_write[r]] = r;
            f.lt_map[lt_write[r]] = diag;
            lt_write[r] += 1;
            for mut i in upper(r).into_iter().filter(|&i| i > r) {
                while flag[i] != r {
                    if parent[i] == NONE {
                        parent[i] = r;
                    }
                    cursor[i] -= 1;
                    let l_idx = cursor[i];
                    f.colind[l_idx] = r;
                    f.lt_colind[lt_write[r]] = i;
                    f.lt_map[lt_write[r]] = l_idx;
                    lt_write[r] += 1;
                    flag[i] = r;
                    i = parent[i];
                }
            }
        }
        f
    }

    /// Factors `H` given by its lower triangle, row `r` being `lower(r)` = `(column, value)`
    /// pairs (`mju_cholFactorNumeric`, one dense row accumulator); pivots below `mindiag` are
    /// raised to it. Returns the rank.
    #[cold]
    pub fn numeric(&mut self, mindiag: f64, lower: impl Fn(usize) -> Vec<(usize, f64)>) -> usize {
        let n = self.rownnz.len();
        let mut rank = n;
        let mut dense = vec![0.0; n];
        for r in (0..n).rev() {
            for (c, v) in lower(r) {
                dense[c] = v;
            }
            let (lt_adr, lt_nnz) = (self.lt_rowadr[r], self.lt_rownnz[r]);
            for k in 1..lt_nnz {
                let c = self.lt_colind[lt_adr + k];
                let l_cr_idx = self.lt_map[lt_adr + k];
                let l_cr = self.val[l_cr_idx];
                let c_adr = self.rowadr[c];
                for i in c_adr..=l_cr_idx {
                    dense[self.colind[i]] -= l_cr * self.val[i];
                }
            }
            let mut diag = dense[r];
            if diag < mindiag {
                diag = mindiag;
                rank -= 1;
            }
            let l_rr = diag.sqrt();
            let l_rr_inv = 1.0 / l_rr;
            let (adr, nnz) = (self.rowadr[r], self.rownnz[r]);
            for i in adr..adr + nnz - 1 {
                self.val[i] = dense[self.colind[i]] * l_rr_inv;
            }
            self.val[adr + nnz - 1] = l_rr;
            for i in adr..adr + nnz {
                dense[self.colind[i]] = 0.0;
            }
        }
        rank
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
    }
}

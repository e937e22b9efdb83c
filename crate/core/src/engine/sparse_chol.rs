//! Sparse LDLᵀ factorization of a symmetric positive definite matrix (up-looking, after
//! T. A. Davis's LDL): a symbolic analysis (elimination tree and column counts of L) made once
//! per sparsity pattern, then numeric factorizations into the buffers it sized, then solves.
//!
//! The caller gives the pattern of the strict lower triangle row by row (`start`, `push`,
//! `end_row`, `analyze`) and, at each factorization, adds the values of one row at a time into a
//! dense work row (`factor`). No order is imposed on the columns of a row and duplicates are
//! harmless. Nothing here reorders: the caller numbers the unknowns in the elimination order it
//! wants. After the first `analyze` of a pattern no larger than any before, `factor` and `solve`
//! never allocate.

/// "No parent": the root of an elimination tree.
const NONE: usize = usize::MAX;

/// `A = L·D·Lᵀ` with `L` unit lower triangular, stored by columns (strictly below the diagonal),
/// and `D` diagonal.
#[derive(Debug, Clone, Default)]
pub struct SparseLdl {
    n: usize,
    /// Pattern of A's strict lower triangle: row `k` holds columns `ai[ap[k]..ap[k + 1]]`, all `< k`.
    ap: Vec<usize>,
    ai: Vec<u32>,
    /// Elimination tree: `parent[j]` is the row of the first off-diagonal entry of L's column `j`.
    parent: Vec<usize>,
    /// L by columns: column `j` holds rows `li[lp[j]..lp[j + 1]]` with values `lx[..]`.
    lp: Vec<usize>,
    li: Vec<u32>,
    lx: Vec<f64>,
    d: Vec<f64>,
    /// Entries of L on the tree path from each column to the root (the work of a rank-1
    /// update starting there), and the multiply-adds of a numeric factorization.
    path_work: Vec<usize>,
    factor_work: usize,
    /// Work of the numeric factorization: entries of each column filled so far, the dense row
    /// being eliminated (all zero between rows), visit marks, and the row pattern stack.
    lnz: Vec<usize>,
    y: Vec<f64>,
    flag: Vec<usize>,
    stack: Vec<usize>,
}

impl SparseLdl {
    /// Reserves the buffers sized by the dimension alone, for matrices up to `n × n`, and
    /// room for `entries` entries in the pattern and in L.
    pub fn reserve(&mut self, n: usize, entries: usize) {
        self.ai.reserve(entries);
        self.li.reserve(entries);
        self.lx.reserve(entries);
        for v in [
            &mut self.ap,
            &mut self.parent,
            &mut self.lp,
            &mut self.lnz,
            &mut self.flag,
            &mut self.stack,
            &mut self.path_work,
        ] {
            v.reserve(n + 1);
        }
        self.d.reserve(n);
        self.y.reserve(n);
    }

    /// Starts a new pattern of an `n × n` matrix (its rows then follow in order).
    pub fn start(&mut self, n: usize) {
        self.n = n;
        self.ap.clear();
        self.ap.push(0);
        self.ai.clear();
    }

    /// Adds column `j` to the pattern of the current row (`j` below the row index); returns
    /// the entry's index in the pattern, so the caller can keep values of its own beside it.
    #[inline]
    pub fn push(&mut self, j: usize) -> usize {
        debug_assert!(
            j + 1 < self.ap.len(),
            "pattern entry not below the diagonal"
        );
        self.ai.push(j as u32);
        self.ai.len() - 1
    }

    /// Ends the current row of the pattern.
    pub fn end_row(&mut self) {
        self.ap.push(self.ai.len());
    }

    /// Number of rows given so far.
    pub fn rows(&self) -> usize {
        self.ap.len() - 1
    }

    /// Number of entries in the pattern of the strict lower triangle.
    pub fn pattern_len(&self) -> usize {
        self.ai.len()
    }

    /// Number of entries of L strictly below the diagonal (valid after `analyze`).
    #[cfg(test)]
    pub fn nnz(&self) -> usize {
        self.lp.last().copied().unwrap_or(0)
    }

    /// Symbolic analysis of the pattern given since `start`: elimination tree, column counts and
    /// the layout of L (`ldl_symbolic`). Each row `k` walks up the tree from every column of its
    /// pattern until it meets a node already visited in this row; every node passed gains an
    /// entry in row `k` of L, and a root met becomes a child of `k`.
    pub fn analyze(&mut self) {
        let n = self.n;
        assert_eq!(self.rows(), n, "pattern must have n rows");
        let resize = |v: &mut Vec<usize>, len: usize| {
            v.clear();
            v.resize(len, 0);
        };
        resize(&mut self.parent, n);
        resize(&mut self.flag, n);
        resize(&mut self.lnz, n);
        resize(&mut self.stack, n);
        resize(&mut self.lp, n + 1);
        for k in 0..n {
            self.parent[k] = NONE;
            self.flag[k] = k;
            for p in self.ap[k]..self.ap[k + 1] {
                let mut i = self.ai[p] as usize;
                debug_assert!(i < k, "pattern entry ({k}, {i}) not below the diagonal");
                while self.flag[i] != k {
                    if self.parent[i] == NONE {
                        self.parent[i] = k;
                    }
                    self.lnz[i] += 1;
                    self.flag[i] = k;
                    i = self.parent[i];
                }
            }
        }
        for j in 0..n {
            self.lp[j + 1] = self.lp[j] + self.lnz[j];
        }
        // columns on a path have rising indices: fill from the root down
        self.path_work.clear();
        self.path_work.resize(n, 0);
        self.factor_work = 0;
        for j in (0..n).rev() {
            let c = self.lnz[j];
            let up = match self.parent[j] {
                NONE => 0,
                p => self.path_work[p],
            };
            self.path_work[j] = c + 1 + up;
            self.factor_work += c * (c + 1) / 2 + 1;
        }
        let nnz = self.lp[n];
        self.li.clear();
        self.li.resize(nnz, 0);
        self.lx.clear();
        self.lx.resize(nnz, 0.0);
        self.d.clear();
        self.d.resize(n, 0.0);
        self.y.clear();
        self.y.resize(n, 0.0);
    }

    /// Numeric factorization over the analyzed pattern (`ldl_numeric`) of `A = A₀ + A₁`:
    /// `A₀` is given on the pattern (`lower[e]` is the value of pattern entry `e`, as numbered
    /// by `push`; `diag[k]` is `A₀[k][k]`), and for each row `k` in order `fill(k, y)` adds row
    /// `k` of `A₁`, columns `0..=k`, into `y`, touching only `k` and the columns of row `k`'s
    /// pattern (`y` is zero on entry). Pivots below `mindiag` are raised to it, as MuJoCo's
    /// `mju_cholFactorSparse` does, so a semidefinite matrix still gives a usable factor.
    pub fn factor(
        &mut self,
        mindiag: f64,
        lower: &[f64],
        diag: &[f64],
        fill: &mut dyn FnMut(usize, &mut [f64]),
    ) {
        let n = self.n;
        let (ap, ai, parent, lp) = (&self.ap, &self.ai, &self.parent, &self.lp);
        let (li, lx, d) = (&mut self.li, &mut self.lx, &mut self.d);
        let (lnz, y, flag, stack) = (&mut self.lnz, &mut self.y, &mut self.flag, &mut self.stack);
        debug_assert!(lower.len() == ai.len() && diag.len() == n);
        for k in 0..n {
            y[k] += diag[k];
            for (&c, &v) in ai[ap[k]..ap[k + 1]].iter().zip(&lower[ap[k]..ap[k + 1]]) {
                y[c as usize] += v;
            }
            fill(k, y);
            // the pattern of row k of L, in topological order, from the tree paths of A's row
            // (the path being walked is kept at the stack's bottom, the result at its top)
            let mut top = n;
            flag[k] = k;
            lnz[k] = 0;
            for &c in &ai[ap[k]..ap[k + 1]] {
                let mut i = c as usize;
                let mut len = 0;
                while flag[i] != k {
                    stack[len] = i;
                    len += 1;
                    flag[i] = k;
                    i = parent[i];
                }
                while len > 0 {
                    top -= 1;
                    len -= 1;
                    stack[top] = stack[len];
                }
            }
            // row k of L by a sparse triangular solve against the columns already finished
            let mut dk = y[k];
            y[k] = 0.0;
            for &i in &stack[top..n] {
                let yi = y[i];
                y[i] = 0.0;
                let (p0, p1) = (lp[i], lp[i] + lnz[i]);
                for (&r, &v) in li[p0..p1].iter().zip(&lx[p0..p1]) {
                    y[r as usize] -= v * yi;
                }
                let lki = yi / d[i];
                dk -= lki * yi;
                li[p1] = k as u32;
                lx[p1] = lki;
                lnz[i] += 1;
            }
            d[k] = dk.max(mindiag);
        }
    }

    /// Work of a numeric factorization, in multiply-adds (after `analyze`).
    pub fn factor_work(&self) -> usize {
        self.factor_work
    }

    /// Work of a rank-1 update whose vector starts (lowest index) at unknown `j`, in the
    /// units of `factor_work`: a rank-1 update walks the tree path from `j` to the root.
    pub fn update_work(&self, j: usize) -> usize {
        2 * self.path_work[j]
    }

    /// Becomes a copy of `other` (analysis and factor), reusing this one's buffers.
    pub fn copy_from(&mut self, other: &SparseLdl) {
        self.n = other.n;
        self.factor_work = other.factor_work;
        for (a, b) in [
            (&mut self.ap, &other.ap),
            (&mut self.parent, &other.parent),
            (&mut self.lp, &other.lp),
            (&mut self.path_work, &other.path_work),
            (&mut self.lnz, &other.lnz),
            (&mut self.flag, &other.flag),
            (&mut self.stack, &other.stack),
        ] {
            a.clone_from(b);
        }
        self.ai.clone_from(&other.ai);
        self.li.clone_from(&other.li);
        self.lx.clone_from(&other.lx);
        self.d.clone_from(&other.d);
        self.y.clone_from(&other.y);
    }

    /// Rank-1 modification `A ← A + σ·w·wᵀ` of the factor (Gill, Golub, Murray and Saunders'
    /// method C1 for LDLᵀ), where `w` has values `val` at unknowns `idx`. The unknowns of `w`
    /// must be pairwise coupled in the analyzed pattern (a row of a Jacobian whose `Jᵀ·J` the
    /// pattern holds), so L's pattern is unchanged and the update walks one tree path from
    /// `w`'s lowest unknown up to the root.
    ///
    /// Returns false, leaving the factor unusable until the next `factor`, when a pivot of a
    /// downdate (`σ < 0`) falls below `mindiag` or loses more than `1 − min_ratio` of its
    /// value: cancellation that large would leave too few digits, and refactoring is safer.
    pub fn rank1(
        &mut self,
        sigma: f64,
        idx: &[u32],
        val: &[f64],
        mindiag: f64,
        min_ratio: f64,
    ) -> bool {
        let Some(&first) = idx.iter().min() else {
            return true;
        };
        let y = &mut self.y;
        for (&i, &v) in idx.iter().zip(val) {
            y[i as usize] += v;
        }
        let mut alpha = sigma;
        let mut j = first as usize;
        let mut ok = true;
        while j != NONE {
            let p = y[j];
            y[j] = 0.0;
            // a zero entry leaves the column as it is; after a failure the walk only clears
            // the work row (every entry it holds lies on this path)
            if ok && p != 0.0 {
                let dj = self.d[j];
                let dbar = dj + alpha * p * p;
                if dbar < mindiag || dbar < min_ratio * dj {
                    ok = false;
                } else {
                    let beta = p * alpha / dbar;
                    alpha *= dj / dbar;
                    self.d[j] = dbar;
                    for q in self.lp[j]..self.lp[j + 1] {
                        let i = self.li[q] as usize;
                        y[i] -= p * self.lx[q];
                        self.lx[q] += beta * y[i];
                    }
                }
            }
            j = self.parent[j];
        }
        ok
    }

    /// Solves `A·x = b` in place on the unknowns `cols` only (increasing), for a factor whose
    /// `cols` form a block that no other unknown couples to (one constraint island): the same
    /// operations as [`SparseLdl::solve`] on those unknowns, so the same bits, at the block's
    /// cost. Entries of `x` outside `cols` are neither read nor written.
    pub fn solve_block(&self, x: &mut [f64], cols: &[usize]) {
        let (lp, li, lx) = (&self.lp, &self.li, &self.lx);
        for &j in cols {
            let xj = x[j];
            if xj != 0.0 {
                for (&r, &v) in li[lp[j]..lp[j + 1]].iter().zip(&lx[lp[j]..lp[j + 1]]) {
                    x[r as usize] -= v * xj;
                }
            }
        }
        for &j in cols {
            x[j] /= self.d[j];
        }
        for &j in cols.iter().rev() {
            let mut s = x[j];
            for (&r, &v) in li[lp[j]..lp[j + 1]].iter().zip(&lx[lp[j]..lp[j + 1]]) {
                s -= v * x[r as usize];
            }
            x[j] = s;
        }
    }

    /// Solves `A·x = b` in place (`x` holds `b` on entry) with the last factorization.
    pub fn solve(&self, x: &mut [f64]) {
        let n = self.n;
        let (lp, li, lx) = (&self.lp, &self.li, &self.lx);
        for j in 0..n {
            let xj = x[j];
            if xj != 0.0 {
                for (&r, &v) in li[lp[j]..lp[j + 1]].iter().zip(&lx[lp[j]..lp[j + 1]]) {
                    x[r as usize] -= v * xj;
                }
            }
        }
        for j in 0..n {
            x[j] /= self.d[j];
        }
        for j in (0..n).rev() {
            let mut s = x[j];
            for (&r, &v) in li[lp[j]..lp[j + 1]].iter().zip(&lx[lp[j]..lp[j + 1]]) {
                s -= v * x[r as usize];
            }
            x[j] = s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Small deterministic generator (xorshift64*), so the tests need no dependency.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn unit(&mut self) -> f64 {
            (self.next() >> 11) as f64 / (1u64 << 53) as f64
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// A random sparse SPD matrix `BᵀB + εI` (dense storage): B has `rows` random sparse rows,
    /// like constraint Jacobian rows, so A has the fill structure of `Jᵀ·J`.
    fn random_spd(rng: &mut Rng, n: usize, rows: usize, per_row: usize, eps: f64) -> Vec<f64> {
        let mut a = crate::data::zeros::<f64>(n * n);
        for i in 0..n {
            a[i * n + i] = eps;
        }
        let mut cols = Vec::new();
        for _ in 0..rows {
            cols.clear();
            for _ in 0..per_row {
                let c = rng.below(n);
                if !cols.iter().any(|&(x, _)| x == c) {
                    cols.push((c, 2.0 * rng.unit() - 1.0));
                }
            }
            for &(p, vp) in &cols {
                for &(q, vq) in &cols {
                    a[p * n + q] += vp * vq;
                }
            }
        }
        a
    }

    /// Dense Cholesky `A = G·Gᵀ` and a solve with it: the reference.
    fn dense_solve(a: &[f64], n: usize, b: &[f64]) -> Vec<f64> {
        let mut g = crate::data::zeros::<f64>(n * n);
        for i in 0..n {
            for j in 0..=i {
                let mut s = a[i * n + j];
                for k in 0..j {
                    s -= g[i * n + k] * g[j * n + k];
                }
                g[i * n + j] = if i == j { s.sqrt() } else { s / g[j * n + j] };
            }
        }
        let mut x = b.to_vec();
        for i in 0..n {
            for k in 0..i {
                x[i] -= g[i * n + k] * x[k];
            }
            x[i] /= g[i * n + i];
        }
        for i in (0..n).rev() {
            for k in i + 1..n {
                x[i] -= g[k * n + i] * x[k];
            }
            x[i] /= g[i * n + i];
        }
        x
    }

    /// Pattern of `a`'s strict lower triangle, plus `extra` structural zeros per row.
    fn analyze_dense(f: &mut SparseLdl, a: &[f64], n: usize, rng: &mut Rng, extra: usize) {
        f.start(n);
        for k in 0..n {
            for j in 0..k {
                if a[k * n + j] != 0.0 {
                    f.push(j);
                }
            }
            if k > 0 {
                for _ in 0..extra {
                    f.push(rng.below(k));
                }
            }
            f.end_row();
        }
        f.analyze();
    }

    /// Factors `a` (analyzed by `analyze_dense`), giving half of each value on the pattern and
    /// adding the other half through `fill`, so both ways in are exercised.
    fn factor_dense(f: &mut SparseLdl, a: &[f64], n: usize) {
        let mut lower = crate::data::zeros::<f64>(f.pattern_len());
        let mut seen = vec![false; n * n];
        for k in 0..n {
            for p in f.ap[k]..f.ap[k + 1] {
                let j = f.ai[p] as usize;
                if !seen[k * n + j] {
                    seen[k * n + j] = true;
                    lower[p] = 0.5 * a[k * n + j];
                }
            }
        }
        let diag: Vec<f64> = (0..n).map(|k| 0.5 * a[k * n + k]).collect();
        f.factor(0.0, &lower, &diag, &mut |k, y| {
            for j in 0..=k {
                if a[k * n + j] != 0.0 {
                    y[j] += 0.5 * a[k * n + j];
                }
            }
        });
    }

    /// `L·D·Lᵀ` rebuilt densely from the factor.
    fn product(f: &SparseLdl) -> Vec<f64> {
        let n = f.n;
        let mut l = crate::data::zeros::<f64>(n * n);
        for j in 0..n {
            l[j * n + j] = 1.0;
            for p in f.lp[j]..f.lp[j + 1] {
                l[f.li[p] as usize * n + j] = f.lx[p];
            }
        }
        let mut out = crate::data::zeros::<f64>(n * n);
        for i in 0..n {
            for j in 0..n {
                out[i * n + j] = (0..n).map(|k| l[i * n + k] * f.d[k] * l[j * n + k]).sum();
            }
        }
        out
    }

    fn max_rel(a: &[f64], b: &[f64]) -> f64 {
        let scale = b.iter().fold(0.0f64, |m, x| m.max(x.abs())).max(1e-300);
        a.iter()
            .zip(b)
            .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
            / scale
    }

    #[test]
    fn random_sparse_spd_matches_dense_cholesky() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut f = SparseLdl::default();
        for case in 0..60 {
            let n = 1 + rng.below(60);
            let rows = rng.below(2 * n + 1);
            let per_row = 1 + rng.below(6);
            let eps = 0.1 + rng.unit();
            let a = random_spd(&mut rng, n, rows, per_row, eps);
            analyze_dense(&mut f, &a, n, &mut rng, case % 3);
            factor_dense(&mut f, &a, n);
            assert!(max_rel(&product(&f), &a) < 1e-12, "case {case}: L·D·Lᵀ ≠ A");
            let b: Vec<f64> = (0..n).map(|_| 2.0 * rng.unit() - 1.0).collect();
            let mut x = b.clone();
            f.solve(&mut x);
            let want = dense_solve(&a, n, &b);
            assert!(max_rel(&x, &want) < 1e-10, "case {case}: solve differs");
        }
    }

    #[test]
    fn rank1_updates_and_downdates_match_refactoring() {
        // A = E + Σ σᵣ·wᵣ·wᵣᵀ over sparse rows w; the pattern holds every row's clique. Start
        // from the factor of E plus half of the rows, add the others and remove some of the
        // first, and compare with factoring the final sum directly.
        let mut rng = Rng(42);
        for case in 0..30 {
            let n = 2 + rng.below(50);
            let nrows = 1 + rng.below(2 * n);
            let mut rows: Vec<(Vec<u32>, Vec<f64>)> = Vec::new();
            for _ in 0..nrows {
                let mut idx: Vec<u32> = Vec::new();
                for _ in 0..1 + rng.below(5) {
                    let c = rng.below(n) as u32;
                    if !idx.contains(&c) {
                        idx.push(c);
                    }
                }
                let val = idx.iter().map(|_| 2.0 * rng.unit() - 1.0).collect();
                rows.push((idx, val));
            }
            let dense = |inc: &dyn Fn(usize) -> bool| {
                let mut a = crate::data::zeros::<f64>(n * n);
                for i in 0..n {
                    a[i * n + i] = 0.5 + rng_free(i);
                }
                for (r, (idx, val)) in rows.iter().enumerate() {
                    if inc(r) {
                        for (&p, &vp) in idx.iter().zip(val) {
                            for (&q, &vq) in idx.iter().zip(val) {
                                a[p as usize * n + q as usize] += vp * vq;
                            }
                        }
                    }
                }
                a
            };
            let all = dense(&|_| true);
            let mut f = SparseLdl::default();
            analyze_dense(&mut f, &all, n, &mut rng, 0);
            let half = nrows / 2;
            let start = dense(&|r| r < half);
            factor_dense(&mut f, &start, n);
            for (idx, val) in &rows[half..] {
                assert!(
                    f.rank1(1.0, idx, val, 0.0, 0.0),
                    "case {case}: update failed"
                );
            }
            for (idx, val) in rows[..half].iter().step_by(2) {
                assert!(
                    f.rank1(-1.0, idx, val, 0.0, 0.0),
                    "case {case}: downdate failed"
                );
            }
            assert!(
                f.y.iter().all(|&v| v == 0.0),
                "case {case}: work row left dirty"
            );
            let want = dense(&|r| r >= half || r % 2 == 1);
            assert!(max_rel(&product(&f), &want) < 1e-10, "case {case}");
        }
    }

    /// A fixed positive diagonal term per unknown, so the tests' dense sums agree.
    fn rng_free(i: usize) -> f64 {
        ((i * 37) % 11) as f64 / 11.0
    }

    #[test]
    fn a_downdate_that_loses_the_pivot_fails() {
        // A = I + w·wᵀ with w = (1, 1); removing 2·w·wᵀ would make A indefinite
        let mut f = SparseLdl::default();
        let a = [2.0, 1.0, 1.0, 2.0];
        let mut rng = Rng(3);
        analyze_dense(&mut f, &a, 2, &mut rng, 0);
        factor_dense(&mut f, &a, 2);
        assert!(!f.rank1(-2.0, &[0, 1], &[1.0, 1.0], 1e-15, 1e-8));
        assert!(f.y.iter().all(|&v| v == 0.0), "work row left dirty");
        // removing w·wᵀ exactly leaves I, within the ratio guard of 1e-8
        factor_dense(&mut f, &a, 2);
        assert!(f.rank1(-1.0, &[1, 0], &[1.0, 1.0], 1e-15, 1e-8));
        assert!(max_rel(&product(&f), &[1.0, 0.0, 0.0, 1.0]) < 1e-15);
    }

    #[test]
    fn refactoring_reuses_the_analysis() {
        // same pattern, new values (as across Newton iterations): the result equals a fresh
        // analysis and factorization, bit for bit
        let mut rng = Rng(7);
        let n = 40;
        let a = random_spd(&mut rng, n, 70, 4, 0.5);
        let mut f = SparseLdl::default();
        analyze_dense(&mut f, &a, n, &mut rng, 0);
        factor_dense(&mut f, &a, n);
        let scaled: Vec<f64> = a.iter().map(|x| 3.0 * x).collect();
        factor_dense(&mut f, &scaled, n);
        let mut fresh = SparseLdl::default();
        analyze_dense(&mut fresh, &scaled, n, &mut rng, 0);
        factor_dense(&mut fresh, &scaled, n);
        assert_eq!(f.lx, fresh.lx);
        assert_eq!(f.d, fresh.d);
        assert!(f.y.iter().all(|&v| v == 0.0), "work row left dirty");
    }

    #[test]
    fn tree_pattern_has_no_fill_and_small_pivots_are_raised() {
        // an arrowhead whose hub is numbered last (MuJoCo's elimination order for a root dof
        // shared by many leaves) fills nothing
        let n = 8;
        let mut a = crate::data::zeros::<f64>(n * n);
        for i in 0..n {
            a[i * n + i] = 4.0;
            a[i * n + n - 1] = 1.0;
            a[(n - 1) * n + i] = 1.0;
        }
        a[(n - 1) * n + n - 1] = 10.0;
        let mut rng = Rng(1);
        let mut f = SparseLdl::default();
        analyze_dense(&mut f, &a, n, &mut rng, 0);
        assert_eq!(f.nnz(), n - 1);
        // a singular matrix: the zero pivot is raised to mindiag instead of dividing by zero
        let z = [1.0, 0.0];
        f.start(2);
        f.end_row();
        f.end_row();
        f.analyze();
        f.factor(1e-15, &[], &z, &mut |_, _| {});
        assert_eq!(f.d, vec![1.0, 1e-15]);
    }
}

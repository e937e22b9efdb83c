//! MuJoCo's dense Cholesky routines (`engine_util_solve.c`): factor `L·Lᵀ` in place, solve,
//! and rank-1 update or downdate, each in MuJoCo 3.15.0's arithmetic order (inner products by
//! `mju_dot`'s four running sums), so that a solve with them matches MuJoCo's bit for bit.
//!
//! Matrices are row-major `n × n`; the factor lives in the lower triangle (the strict upper
//! one is left as it was).

use super::solver::dot;
use crate::math::MINVAL;

/// In-place Cholesky `mat = L·Lᵀ` (`mju_cholFactor`), reading the lower triangle: a pivot under
/// `mindiag` is raised to it and its column below cleared. Returns the rank (`n` less the
/// raised pivots).
pub fn factor(mat: &mut [f64], n: usize, mindiag: f64) -> usize {
    let mut rank = n;
    for j in 0..n {
        let mut tmp = mat[j * (n + 1)];
        if j > 0 {
            let row = &mat[j * n..j * n + j];
            tmp -= dot(row, row);
        }
        let deficient = tmp < mindiag;
        if deficient {
            tmp = mindiag;
            rank -= 1;
        }
        mat[j * (n + 1)] = tmp.sqrt();
        if deficient {
            for i in j + 1..n {
                mat[i * n + j] = 0.0;
            }
        } else {
            let inv = 1.0 / mat[j * (n + 1)];
            for i in j + 1..n {
                let (top, low) = mat.split_at_mut(i * n);
                let s = dot(&low[..j], &top[j * n..j * n + j]);
                low[j] = (low[j] - s) * inv;
            }
        }
    }
    rank
}

/// `res = (L·Lᵀ)⁻¹·vec` with a factor of [`factor`] (`mju_cholSolve`): `n` is `res.len()`.
pub fn solve(res: &mut [f64], mat: &[f64], vec: &[f64]) {
    let n = res.len();
    res.copy_from_slice(&vec[..n]);
    for i in 0..n {
        if i > 0 {
            let s = dot(&mat[i * n..i * n + i], &res[..i]);
            res[i] -= s;
        }
        res[i] /= mat[i * (n + 1)];
    }
    for i in (0..n).rev() {
        for j in i + 1..n {
            res[i] -= mat[j * n + i] * res[j];
        }
        res[i] /= mat[i * (n + 1)];
    }
}

/// Rank-1 modification `L·Lᵀ ± x·xᵀ` of a factor of [`factor`] (`mju_cholUpdate`; `plus`
/// chooses the sign). Overwrites `x`. A pivot that would fall under `MINVAL` is held there and
/// lowers the returned rank: the caller then refactors, as MuJoCo does.
pub fn update(mat: &mut [f64], x: &mut [f64], plus: bool) -> usize {
    let n = x.len();
    let mut rank = n;
    for k in 0..n {
        if x[k] == 0.0 {
            continue;
        }
        let lkk = mat[k * (n + 1)];
        let mut tmp = lkk * lkk + if plus { x[k] * x[k] } else { -x[k] * x[k] };
        if tmp < MINVAL {
            tmp = MINVAL;
            rank -= 1;
        }
        let r = tmp.sqrt();
        let c = r / lkk;
        let cinv = 1.0 / c;
        let s = x[k] / lkk;
        mat[k * (n + 1)] = r;
        // MuJoCo's downdate subtracts s·x[i]; adding (−s)·x[i] rounds the same
        let sx = if plus { s } else { -s };
        for i in k + 1..n {
            mat[i * n + k] = (mat[i * n + k] + sx * x[i]) * cinv;
        }
        for i in k + 1..n {
            x[i] = c * x[i] - s * mat[i * n + k];
        }
    }
    rank
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A symmetric positive definite matrix `A·Aᵀ + n·I` from a fixed pseudo-random `A`.
    fn spd(n: usize, seed: u64) -> Vec<f64> {
        let mut s = seed;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s % 2001) as f64 / 1000.0 - 1.0
        };
        let a: Vec<f64> = (0..n * n).map(|_| next()).collect();
        let mut m = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                m[i * n + j] = (0..n).map(|k| a[i * n + k] * a[j * n + k]).sum::<f64>();
            }
            m[i * n + i] += n as f64;
        }
        m
    }

    fn mul(m: &[f64], x: &[f64]) -> Vec<f64> {
        let n = x.len();
        (0..n)
            .map(|i| (0..n).map(|j| m[i * n + j] * x[j]).sum())
            .collect()
    }

    #[test]
    fn factor_and_solve_invert_an_spd_matrix() {
        for n in [1, 3, 4, 7, 12] {
            let a = spd(n, 7 + n as u64);
            let mut l = a.clone();
            assert_eq!(factor(&mut l, n, MINVAL), n);
            let b: Vec<f64> = (0..n).map(|i| i as f64 - 1.5).collect();
            let mut x = vec![0.0; n];
            solve(&mut x, &l, &b);
            for (r, b) in mul(&a, &x).iter().zip(&b) {
                assert!((r - b).abs() < 1e-12, "n {n}: {r} vs {b}");
            }
        }
    }

    #[test]
    fn update_then_downdate_restores_the_factor() {
        let n = 9;
        let a = spd(n, 3);
        let mut l = a.clone();
        factor(&mut l, n, MINVAL);
        let v: Vec<f64> = (0..n)
            .map(|i| if i % 3 == 1 { 0.0 } else { 0.3 * i as f64 })
            .collect();
        // the update factors A + v·vᵀ
        let mut up = l.clone();
        assert_eq!(update(&mut up, &mut v.clone(), true), n);
        let mut direct = a.clone();
        for i in 0..n {
            for j in 0..n {
                direct[i * n + j] += v[i] * v[j];
            }
        }
        factor(&mut direct, n, MINVAL);
        for i in 0..n {
            for j in 0..=i {
                let (p, q) = (up[i * n + j], direct[i * n + j]);
                assert!((p - q).abs() < 1e-12, "({i},{j}): {p} vs {q}");
            }
        }
        // and the downdate takes it back
        assert_eq!(update(&mut up, &mut v.clone(), false), n);
        for i in 0..n {
            for j in 0..=i {
                assert!((up[i * n + j] - l[i * n + j]).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn a_downdate_to_singularity_lowers_the_rank() {
        // A = v·vᵀ + e₁e₁ᵀ·tiny: removing v·vᵀ leaves a singular matrix
        let n = 3;
        let mut l = vec![4.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
        factor(&mut l, n, MINVAL);
        let mut x = vec![2.0, 0.0, 0.0];
        assert_eq!(update(&mut l, &mut x, false), n - 1);
    }
}

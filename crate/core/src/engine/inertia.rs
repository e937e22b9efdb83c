//! The joint-space mass matrix: composite rigid bodies into MuJoCo's reduced sparse layout
//! (`M`), its in-place sparse L'DL factorisation (`qLD`) and back-substitution.

use super::solver::dot_sparse_avx;
use crate::data::{Data, Warning};
use crate::math::{dot, mul_inert_vec};
use crate::model::Model;

/// Composite inertias and the mass matrix `M` (`mj_crb`).
pub fn make_m(m: &Model, d: &mut Data) {
    let a = &mut d.a;
    a.crb.copy_from_slice(&a.cinert);
    for i in (1..m.nbody).rev() {
        let p = m.body_parentid[i] as usize;
        if p > 0 {
            for k in 0..10 {
                a.crb[10 * p + k] += a.crb[10 * i + k];
            }
        }
    }
    a.M.fill(0.0);
    for i in 0..m.nv {
        let adr = m.M_rowadr[i] as usize;
        if m.dof_simplenum[i] != 0 {
            a.M[adr] = m.dof_M0[i];
            continue;
        }
        let mut madr = adr + m.M_rownnz[i] as usize - 1;
        a.M[madr] = m.dof_armature[i];
        let b = m.dof_bodyid[i] as usize;
        let buf = mul_inert_vec(&a.crb[10 * b..10 * b + 10], &a.cdof[6 * i..6 * i + 6]);
        let mut j = i as i32;
        while j >= 0 {
            let ju = j as usize;
            // mju_dot's order, as MuJoCo 3.15.0 sums it (a plain sum parted M by an ulp)
            a.M[madr] += dot(&a.cdof[6 * ju..6 * ju + 6], &buf);
            madr = madr.wrapping_sub(1);
            j = m.dof_parentid[ju];
        }
    }
}

/// Pivots that [`factor_i`] raised to `MINVAL`: how many, and the last (lowest) dof.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SmallPivots {
    pub count: u32,
    pub last_dof: usize,
}

impl SmallPivots {
    /// One `mjWARN_INERTIA` per raised pivot, as `mj_factorI` gives them.
    pub fn warn(self, d: &mut Data) {
        for _ in 0..self.count {
            d.warn(Warning::Inertia, self.last_dof as i32);
        }
    }
}

/// In-place sparse L'DL factorisation of an inertia-like matrix in M's layout (`mj_factorI`).
/// A pivot below `MINVAL` is raised to it, as MuJoCo 3.15.0 does (an implicitfast step whose
/// `M − h·∂f/∂v` is indefinite then gives MuJoCo's huge acceleration and its warning, not a
/// finite answer MuJoCo never gives).
pub fn factor_i(m: &Model, mat: &mut [f64], diaginv: &mut [f64]) -> SmallPivots {
    let mut small = SmallPivots::default();
    for k in (0..m.nv).rev() {
        let start = m.M_rowadr[k] as usize;
        let diag = m.M_rownnz[k] as usize - 1;
        let end = start + diag;
        if mat[end] < crate::math::MINVAL {
            mat[end] = crate::math::MINVAL;
            small.count += 1;
            small.last_dof = k;
        }
        let inv_d = 1.0 / mat[end];
        diaginv[k] = inv_d;
        for adr in (start..end).rev() {
            let i = m.M_colind[adr] as usize;
            let s = -mat[adr] * inv_d;
            let ri = m.M_rowadr[i] as usize;
            let n = m.M_rownnz[i] as usize;
            for t in 0..n {
                mat[ri + t] += mat[start + t] * s;
            }
        }
        for t in 0..diag {
            mat[start + t] *= inv_d;
        }
    }
    small
}

/// Factorises `M` into `qLD` (`mj_factorM`).
pub fn factor_m(m: &Model, d: &mut Data) {
    let a = &mut d.a;
    a.qLD.copy_from_slice(&a.M);
    factor_i(m, &mut a.qLD, &mut a.qLDiagInv).warn(d);
}

/// Whether the dofs `dofs` are one run of simple dofs (rows of `M` holding only their diagonal).
pub(super) fn is_simple_run(m: &Model, dofs: &std::ops::Range<usize>) -> bool {
    !dofs.is_empty() && m.dof_simplenum[dofs.start] as usize >= dofs.len()
}

/// `x ← L⁻ᵀ x` with the unit lower factor in `qld` (M's layout): dofs from the last to the
/// first, each nonzero entry pushed to its ancestors (`mj_solveLD`'s and `mj_solveM2`'s first
/// sweep).
pub fn solve_lt(m: &Model, qld: &[f64], x: &mut [f64]) {
    solve_lt_rows(m, qld, x, (0..m.nv).rev());
}

/// [`solve_lt`] on the dofs `rows` alone, given from the last to the first: the whole sweep
/// when `x` is zero elsewhere and `rows` holds its nonzeros' ancestors (what the pushes reach).
pub fn solve_lt_rows(m: &Model, qld: &[f64], x: &mut [f64], rows: impl Iterator<Item = usize>) {
    for i in rows {
        if m.M_rownnz[i] == 1 {
            continue;
        }
        let xi = x[i];
        if xi != 0.0 {
            let start = m.M_rowadr[i] as usize;
            let end = start + m.M_rownnz[i] as usize - 1;
            for adr in start..end {
                x[m.M_colind[adr] as usize] -= qld[adr] * xi;
            }
        }
    }
}

/// In-place solve `x ← (L'DL)⁻¹ x` (`mj_solveLD`, one vector).
pub fn solve_ld(m: &Model, qld: &[f64], diaginv: &[f64], x: &mut [f64]) {
    let nv = m.nv;
    if is_simple_run(m, &(0..nv)) {
        // every dof simple (vertex bodies only): M is diagonal and L empty, one product per dof
        // instead of three passes that test every dof's row
        for (x, &d) in x[..nv].iter_mut().zip(&diaginv[..nv]) {
            *x *= d;
        }
        return;
    }
    solve_lt(m, qld, x);
    for i in 0..nv {
        x[i] *= diaginv[i];
    }
    for i in 0..nv {
        if m.M_rownnz[i] == 1 {
            continue;
        }
        let dn = m.M_rownnz[i] as usize - 1;
        if dn > 0 {
            let adr = m.M_rowadr[i] as usize;
            // mju_dotSparse's order: its tail one product at a time (a grouped tail parted the
            // back-substitution from MuJoCo 3.15.0 by an ulp)
            x[i] -= dot_sparse_avx(&qld[adr..adr + dn], x, &m.M_colind[adr..adr + dn]);
        }
    }
}

/// [`super::solver::dot_sparse_avx`] (`mju_dotSparse`'s order) of a fixed length `N`: the same
/// sums in the same order, through [`super::solver::sum_avx`]; with `N` a constant the loop
/// unrolls and only the reads of `x` are bounds-checked.
#[inline(always)]
pub fn dot_sparse_n<const N: usize>(vals: &[f64; N], x: &[f64], ind: &[i32; N]) -> f64 {
    super::solver::sum_avx(N, |i| vals[i] * x[ind[i] as usize])
}

/// `x = M⁻¹ y` with the current factorisation.
pub fn solve_m(m: &Model, d: &Data, x: &mut [f64]) {
    solve_ld(m, &d.a.qLD, &d.a.qLDiagInv, x);
}

/// `res = M·vec` with the sparse lower-triangle layout, in MuJoCo 3.15.0's `mj_mulM` order
/// (`mju_mulSymVecSparse`, read from its binary): rows in order, each starting from its
/// diagonal product and adding its lower entries from the last to the first, each entry also
/// added, transposed, to its column's row (an ancestor, already started).
pub fn mul_m(m: &Model, mm: &[f64], vec: &[f64], res: &mut [f64]) {
    for r in m_rows(m, 0..m.nv) {
        match r {
            MRows::Simple { dofs, adr } => {
                let vals = &mm[adr..adr + dofs.len()];
                let (r, x) = (&mut res[dofs.clone()], &vec[dofs]);
                for ((r, &x), &v) in r.iter_mut().zip(x).zip(vals) {
                    *r = v * x;
                }
            }
            MRows::Row { dof, entries } => {
                let (lower, diag) = (entries.start..entries.end - 1, entries.end - 1);
                let xi = vec[dof];
                let mut s = mm[diag] * xi;
                for (&v, &j) in mm[lower.clone()].iter().zip(&m.M_colind[lower]).rev() {
                    s += v * vec[j as usize];
                    res[j as usize] += v * xi;
                }
                res[dof] = s;
            }
        }
    }
}

/// Rows of `M`, as [`m_rows`] walks them.
pub(super) enum MRows {
    /// A run of simple dofs: rows holding only their diagonal, stored consecutively from
    /// `adr`, so a product does them as one element-wise loop (a flex's vertex dofs are one
    /// run).
    Simple {
        dofs: std::ops::Range<usize>,
        adr: usize,
    },
    /// Any other row: dof `dof`, its ancestors' entries then its diagonal at `entries` in `M`.
    Row {
        dof: usize,
        entries: std::ops::Range<usize>,
    },
}

/// The rows of `M` for the dofs `dofs`, in order, with runs of simple dofs grouped.
#[inline(always)]
pub(super) fn m_rows(m: &Model, dofs: std::ops::Range<usize>) -> impl Iterator<Item = MRows> + '_ {
    let mut i = dofs.start;
    std::iter::from_fn(move || {
        if i >= dofs.end {
            return None;
        }
        let adr = m.M_rowadr[i] as usize;
        let n = (m.dof_simplenum[i] as usize).min(dofs.end - i);
        let r = if n > 0 {
            MRows::Simple {
                dofs: i..i + n,
                adr,
            }
        } else {
            MRows::Row {
                dof: i,
                entries: adr..adr + m.M_rownnz[i] as usize,
            }
        };
        i += n.max(1);
        Some(r)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fixed-length form sums in `dot_sparse_avx`'s order: the same bits at every tail length.
    fn same_as_dot_sparse<const N: usize>() {
        let x: Vec<f64> = (0..40)
            .map(|i| ((i * 7919) % 97) as f64 / 13.0 - 3.1)
            .collect();
        let vals: [f64; N] = std::array::from_fn(|i| 1.0 / (i as f64 + 0.3) - 0.7);
        let ind: [i32; N] = std::array::from_fn(|i| ((i * 11 + 5) % 40) as i32);
        let a = dot_sparse_n(&vals, &x, &ind);
        let b = dot_sparse_avx(&vals, &x, &ind);
        assert_eq!(a.to_bits(), b.to_bits(), "N = {N}");
    }

    #[test]
    fn dot_sparse_n_matches_dot_sparse() {
        same_as_dot_sparse::<1>();
        same_as_dot_sparse::<2>();
        same_as_dot_sparse::<3>();
        same_as_dot_sparse::<4>();
        same_as_dot_sparse::<6>();
        same_as_dot_sparse::<7>();
        same_as_dot_sparse::<9>();
    }
}

//! Per-vertex isometry measures of 2D flexes with `edge equality="vert"` (the vertex block of
//! MuJoCo's `mj_flex`, after Chen, Kry and Vouga 2019): at each vertex a mass-weighted
//! deformation gradient `F = (Σ w·y Xᵀ)·B⁻¹` from its incident edges, the invariants of
//! `C = FᵀF` as two constraint residuals, `flexvert_length = √m·(tr C − 2, det C − 1)`, and
//! their sparse Jacobians `flexvert_J` (two rows per vertex, layout from `mj_setConst`).

use super::jacobian::{body_chain, jac_sparse, JacScratch};
use crate::data::Data;
use crate::math::MINVAL;
use crate::model::Model;

/// C(3×2) = A(3×2)·B(2×2), row-major.
#[inline]
fn mul_322(a: &[f64; 6], b: &[f64]) -> [f64; 6] {
    [
        a[0] * b[0] + a[1] * b[2],
        a[0] * b[1] + a[1] * b[3],
        a[2] * b[0] + a[3] * b[2],
        a[2] * b[1] + a[3] * b[3],
        a[4] * b[0] + a[5] * b[2],
        a[4] * b[1] + a[5] * b[3],
    ]
}

/// `M(3×2)·x[0..2]`.
#[inline]
fn mul_32v(a: &[f64; 6], x: &[f64; 3]) -> [f64; 3] {
    [
        a[0] * x[0] + a[1] * x[1],
        a[2] * x[0] + a[3] * x[1],
        a[4] * x[0] + a[5] * x[1],
    ]
}

/// Residuals (dimensionless × √kg) and Jacobians of every vertex of flex `f`; `flexvert_J`
/// must have been zeroed.
pub fn vert_lengths(m: &Model, d: &mut Data, s: &mut JacScratch, f: usize) {
    let vb = m.flex_vertadr[f] as usize;
    let e0 = m.flex_edgeadr[f] as usize;
    for v in 0..m.flex_vertnum[f] as usize {
        let vi = vb + v;
        let metric = &m.flex_vertmetric[4 * vi..4 * vi + 4];
        let eadr = m.flex_vertedgeadr[vi] as usize;
        let edges = &m.flex_vertedge[eadr..eadr + m.flex_vertedgenum[vi] as usize];
        let ends = |e: usize| {
            (
                vb + m.flex_edge[2 * e] as usize,
                vb + m.flex_edge[2 * e + 1] as usize,
            )
        };
        let xpos = |i: usize| -> [f64; 3] {
            [
                d.a.flexvert_xpos[3 * i],
                d.a.flexvert_xpos[3 * i + 1],
                d.a.flexvert_xpos[3 * i + 2],
            ]
        };

        // A = Σ w·y Xᵀ over the incident edges (y current, X rest)
        let mut a = [0.0; 6];
        for &le in edges {
            let e = e0 + le as usize;
            let dx = rest_edge(m, f, e);
            let (p1, p2) = ends(e);
            let (x1, x2) = (xpos(p1), xpos(p2));
            let dy = [x2[0] - x1[0], x2[1] - x1[1], x2[2] - x1[2]];
            let w = neighbour_weight(m, f, e, v);
            for r in 0..3 {
                a[2 * r] += w * dy[r] * dx[0];
                a[2 * r + 1] += w * dy[r] * dx[1];
            }
        }
        let fm = mul_322(&a, metric);
        let c00 = fm[0] * fm[0] + fm[2] * fm[2] + fm[4] * fm[4];
        let c01 = fm[0] * fm[1] + fm[2] * fm[3] + fm[4] * fm[5];
        let c10 = fm[1] * fm[0] + fm[3] * fm[2] + fm[5] * fm[4];
        let c11 = fm[1] * fm[1] + fm[3] * fm[3] + fm[5] * fm[5];

        // √m scaling improves the conditioning (MuJoCo's departure from the paper)
        let b = m.flex_vertbodyid[vi];
        let scale = if b >= 0 && m.body_mass[b as usize] > MINVAL {
            m.body_mass[b as usize].sqrt()
        } else {
            1.0
        };
        d.a.flexvert_length[2 * vi] = (c00 + c11 - 2.0) * scale;
        d.a.flexvert_length[2 * vi + 1] = (c00 * c11 - c01 * c10 - 1.0) * scale;

        let fb = mul_322(&fm, metric);
        let fadj = mul_322(&fm, &[c11, -c01, -c10, c00]);
        let fadjb = mul_322(&fadj, metric);
        for &le in edges {
            let e = e0 + le as usize;
            let dx = rest_edge(m, f, e);
            let w = neighbour_weight(m, f, e, v);
            let g1 = mul_32v(&fb, &dx);
            let g2 = mul_32v(&fadjb, &dx);
            let di1 = g1.map(|x| x * (-2.0 * w));
            let di2 = g2.map(|x| x * (-2.0 * w));
            let (p1, p2) = ends(e);
            // the second endpoint's derivatives are the first's negated
            for (p, sign) in [(p1, 1.0), (p2, -1.0)] {
                let body = m.flex_vertbodyid[p] as usize;
                let n = body_chain(m, body, &mut s.chain);
                if n == 0 {
                    continue;
                }
                jac_sparse(m, d, &mut s.jac1, &xpos(p), body, &s.chain[..n], false);
                for j in 0..n {
                    let col = s.chain[j] as usize;
                    let jc = [s.jac1[j], s.jac1[j + n], s.jac1[j + 2 * n]];
                    let mut t0 = 0.0;
                    let mut t1 = 0.0;
                    for r in 0..3 {
                        t0 += jc[r] * (sign * di1[r]);
                        t1 += jc[r] * (sign * di2[r]);
                    }
                    s.dense0[col] += t0;
                    s.dense1[col] += t1;
                }
            }
        }

        for (row, dense) in [(2 * vi, &mut s.dense0), (2 * vi + 1, &mut s.dense1)] {
            let adr = m.flexvert_J_rowadr[row] as usize;
            for k in adr..adr + m.flexvert_J_rownnz[row] as usize {
                let col = m.flexvert_J_colind[k] as usize;
                d.a.flexvert_J[k] += dense[col] * scale;
                dense[col] = 0.0;
            }
        }
    }
}

/// Rest edge vector of edge `e` (global id) of flex `f`, in metres: `flex_vert0` holds
/// coordinates normalised to the flex's half-size box, so the difference is scaled back by
/// `2·flex_size`.
pub fn rest_edge(m: &Model, f: usize, e: usize) -> [f64; 3] {
    let vb = m.flex_vertadr[f] as usize;
    let v1 = vb + m.flex_edge[2 * e] as usize;
    let v2 = vb + m.flex_edge[2 * e + 1] as usize;
    std::array::from_fn(|k| {
        (m.flex_vert0[3 * v2 + k] - m.flex_vert0[3 * v1 + k]) * 2.0 * m.flex_size[3 * f + k]
    })
}

/// Weight of edge `e` (global id) seen from local vertex `v` of flex `f`: the mass of the
/// neighbour's body (floored at `MINVAL`), as MuJoCo weights the metric and the strain.
pub fn neighbour_weight(m: &Model, f: usize, e: usize, v: usize) -> f64 {
    let (v1, v2) = (m.flex_edge[2 * e] as usize, m.flex_edge[2 * e + 1] as usize);
    let other = if v == v1 { v2 } else { v1 };
    let b = m.flex_vertbodyid[m.flex_vertadr[f] as usize + other];
    if b >= 0 {
        m.body_mass[b as usize].max(MINVAL)
    } else {
        1.0
    }
}

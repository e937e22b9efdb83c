//! Material coefficients of vertex flexes, as MuJoCo 3.15.0 compiles them.
//!
//! StVK is stored as a symmetric metric on squared-edge-length changes δ = L² − L0² per element
//! (energy ¼ δᵀKδ), built from per-edge strain bases. MuJoCo's constants differ from the
//! textbook: in 3D the energy density is μ tr E² + λ (tr E)² (λ doubled) and 2D membranes use
//! ¼ of that per unit thickness; the lab teaches both and runs MuJoCo's.

use crate::math::{cross, dot3, sub3};

/// Doubles per triangle in `flex_stiffness`.
pub const STRIDE_2D: usize = 21;
/// Doubles per tetrahedron in `flex_stiffness` (21 metric values + 3 SNH terms).
pub const STRIDE_3D: usize = 24;

/// Triangle faces used by the 2D edge basis: `FACE2D[e]` are the other two edges' endpoints.
const FACE2D: [[usize; 2]; 3] = [[1, 2], [2, 0], [0, 1]];
const EDGE2FACE2D: [[usize; 2]; 3] = [[1, 2], [2, 0], [0, 1]];
/// Tet faces and, per edge, the two faces not containing it.
const FACE3D: [[usize; 3]; 4] = [[2, 1, 0], [0, 1, 3], [1, 2, 3], [2, 0, 3]];
const EDGE2FACE3D: [[usize; 2]; 6] = [[2, 3], [1, 3], [2, 1], [1, 0], [0, 2], [0, 3]];

fn p(x: &[f64], i: i32) -> [f64; 3] {
    let i = i as usize;
    [x[3 * i], x[3 * i + 1], x[3 * i + 2]]
}

/// Area of triangle (v0, v1, v2).
pub fn tri_area(x: &[f64], v: &[i32]) -> f64 {
    let x0 = p(x, v[0]);
    let n = cross(&sub3(&p(x, v[1]), &x0), &sub3(&p(x, v[2]), &x0));
    dot3(&n, &n).sqrt() / 2.0
}

/// Signed volume of tet (v0..v3); non-positive after the compiler's reorientation.
pub fn tet_volume(x: &[f64], v: &[i32]) -> f64 {
    let x0 = p(x, v[0]);
    let n = cross(&sub3(&p(x, v[1]), &x0), &sub3(&p(x, v[2]), &x0));
    dot3(&n, &sub3(&p(x, v[3]), &x0)) / 6.0
}

fn basis_2d(x: &[f64], v: &[i32], e: usize, area: f64) -> [f64; 9] {
    let fl = FACE2D[EDGE2FACE2D[e][0]];
    let fr = FACE2D[EDGE2FACE2D[e][1]];
    let el = sub3(&p(x, v[fl[0]]), &p(x, v[fl[1]]));
    let er = sub3(&p(x, v[fr[1]]), &p(x, v[fr[0]]));
    let mut n = cross(&er, &el);
    super::orient::normvec(&mut n);
    let bl = cross(&n, &el);
    let br = cross(&er, &n);
    let mut b = [0.0; 9];
    for i in 0..3 {
        for j in 0..3 {
            b[3 * i + j] = (bl[i] * br[j] + br[i] * bl[j]) / (8.0 * area * area);
        }
    }
    b
}

fn basis_3d(x: &[f64], v: &[i32], e: usize, vol: f64) -> [f64; 9] {
    let fl = FACE3D[EDGE2FACE3D[e][0]];
    let fr = FACE3D[EDGE2FACE3D[e][1]];
    let l0 = p(x, v[fl[0]]);
    let r0 = p(x, v[fr[0]]);
    let nl = cross(&sub3(&p(x, v[fl[1]]), &l0), &sub3(&p(x, v[fl[2]]), &l0));
    let nr = cross(&sub3(&p(x, v[fr[1]]), &r0), &sub3(&p(x, v[fr[2]]), &r0));
    let mut b = [0.0; 9];
    for i in 0..3 {
        for j in 0..3 {
            b[3 * i + j] = (nl[i] * nr[j] + nr[i] * nl[j]) / (36.0 * 2.0 * vol * vol);
        }
    }
    b
}

/// Writes the upper triangle of K_ab = μ tr(B_a B_b) + λ tr(B_a) tr(B_b) into `out`.
fn metric(out: &mut [f64], basis: &[[f64; 9]], mu: f64, la: f64) {
    let n = basis.len();
    let mut tr = [0.0; 6];
    for e in 0..n {
        for i in 0..3 {
            tr[e] += basis[e][4 * i];
        }
    }
    let mut id = 0;
    for a in 0..n {
        for b in a..n {
            let mut tree = 0.0;
            for i in 0..3 {
                for j in 0..3 {
                    tree += basis[a][3 * i + j] * basis[b][3 * j + i];
                }
            }
            out[id] = mu * tree + la * tr[b] * tr[a];
            id += 1;
        }
    }
}

/// The Lamé parameters times `|size|/4·thickness`, in MuJoCo's rounding (each parameter
/// times the size, then divided by 4, then times the thickness, left to right).
fn lame_scaled(e: f64, nu: f64, size: f64, thickness: f64) -> (f64, f64) {
    let (mu, la) = lame(e, nu);
    (
        mu * size.abs() / 4.0 * thickness,
        la * size.abs() / 4.0 * thickness,
    )
}

fn lame(e: f64, nu: f64) -> (f64, f64) {
    (
        e / (2.0 * (1.0 + nu)),
        e * nu / ((1.0 + nu) * (1.0 - 2.0 * nu)),
    )
}

/// StVK membrane coefficients of one triangle (`elastic2d` stretch or both).
pub fn stvk_triangle(
    out: &mut [f64],
    x: &[f64],
    v: &[i32],
    young: f64,
    poisson: f64,
    thickness: f64,
) {
    let area = tri_area(x, v);
    let (mu, la) = lame_scaled(young, poisson, area, thickness);
    let basis: Vec<[f64; 9]> = (0..3).map(|e| basis_2d(x, v, e, area)).collect();
    metric(out, &basis, mu, la);
}

/// StVK coefficients of one tetrahedron (MuJoCo's default compile thickness of 4 makes the
/// scale μ|V|, λ|V|).
pub fn stvk_tet(out: &mut [f64], x: &[f64], v: &[i32], young: f64, poisson: f64) {
    let vol = tet_volume(x, v);
    let (mu, la) = lame_scaled(young, poisson, vol, 4.0);
    let basis: Vec<[f64; 9]> = (0..6).map(|e| basis_3d(x, v, e, vol)).collect();
    metric(out, &basis, mu, la);
}

/// Stable Neo-Hookean coefficients of one tetrahedron (`elastic3d = 1`): the edge metric with
/// λ replaced by −μ, then the cubic coefficient −μ/(72|V|), the volume stiffness (μ + λ/2)|V|
/// and 1/(6V) with the signed rest volume.
pub fn snh_tet(out: &mut [f64], x: &[f64], v: &[i32], young: f64, poisson: f64) {
    let vol = tet_volume(x, v);
    let (mu, la) = lame(young, poisson);
    let scale = vol.abs() / 4.0 * 4.0;
    let basis: Vec<[f64; 9]> = (0..6).map(|e| basis_3d(x, v, e, vol)).collect();
    metric(out, &basis, mu * scale, -mu * scale);
    out[21] = -mu / (72.0 * vol.abs());
    out[22] = (mu + la / 2.0) * vol.abs();
    out[23] = 1.0 / (6.0 * vol);
}

fn cot(x: &[f64], v0: i32, v1: i32, v2: i32) -> f64 {
    let a = sub3(&p(x, v1), &p(x, v0));
    let b = sub3(&p(x, v2), &p(x, v0));
    let n = cross(&a, &b);
    dot3(&a, &b) / dot3(&n, &n).sqrt()
}

/// Discrete-shell bending coefficients of one edge flap (v0 < v1 the sorted edge,
/// then the two opposite vertices): 16 stencil products and the rest-curvature term.
pub fn bending(out: &mut [f64], x: &[f64], v: &[i32; 4], mu: f64, thickness: f64) {
    if v[3] == -1 {
        return;
    }
    let a01 = cot(x, v[0], v[1], v[2]);
    let a02 = cot(x, v[0], v[3], v[1]);
    let a03 = cot(x, v[1], v[2], v[0]);
    let a04 = cot(x, v[1], v[0], v[3]);
    let c = [a03 + a04, a01 + a02, -(a01 + a03), -(a02 + a04)];
    let area = tri_area(x, &[v[0], v[1], v[2]]) + tri_area(x, &[v[1], v[0], v[3]]);
    // `pow`, as MuJoCo (t·t·t rounds otherwise for about a quarter of thicknesses)
    let stiffness = 3.0 * mu * thickness.powf(3.0) / (24.0 * area);
    let x0 = p(x, v[0]);
    let e0 = sub3(&p(x, v[1]), &x0);
    let e1 = sub3(&p(x, v[2]), &x0);
    let e2 = sub3(&p(x, v[3]), &x0);
    let e3 = sub3(&p(x, v[2]), &p(x, v[1]));
    let e4 = sub3(&p(x, v[3]), &p(x, v[1]));
    let t0 = [
        -(a03 * e1[0] + a01 * e3[0]),
        -(a03 * e1[1] + a01 * e3[1]),
        -(a03 * e1[2] + a01 * e3[2]),
    ];
    let t1 = [
        -(a04 * e2[0] + a02 * e4[0]),
        -(a04 * e2[1] + a02 * e4[1]),
        -(a04 * e2[2] + a02 * e4[2]),
    ];
    let sqr = dot3(&e0, &e0);
    let cos_theta = -dot3(&t0, &t1) / sqr;
    for i in 0..4 {
        for j in 0..4 {
            out[4 * i + j] += c[i] * c[j] * cos_theta * stiffness;
        }
    }
    let n = cross(&e0, &e1);
    out[16] = dot3(&n, &e2) * (a01 - a03) * (a04 - a02) * stiffness / (sqr * sqr.sqrt());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unit right triangle, E=1, ν=0, t=1; expected values printed by MuJoCo 3.15.0.
    #[test]
    fn unit_triangle_membrane_coefficients() {
        let x = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
        let mut k = [0.0; 21];
        stvk_triangle(&mut k, &x, &[0, 1, 2], 1.0, 0.0, 1.0);
        // MuJoCo 3.15.0 on this triangle (deformable flex, E=1, ν=0, t=1)
        let expect = [0.03125, -0.03125, -0.03125, 0.09375, 0.03125, 0.09375];
        for i in 0..6 {
            assert!(
                (k[i] - expect[i]).abs() < 1e-12,
                "{i}: {} vs {}",
                k[i],
                expect[i]
            );
        }
    }

    /// Flat flaps have a planar rest state: the curvature term vanishes.
    #[test]
    fn flat_flap_has_no_rest_curvature() {
        let x = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.3, 0.8, 0.0, 0.6, -0.9, 0.0];
        let mut b = [0.0; 17];
        bending(&mut b, &x, &[0, 1, 2, 3], 1.0, 0.1);
        assert!(b[16].abs() < 1e-15);
        // rows sum to zero: a rigid translation bends nothing
        for i in 0..4 {
            let s: f64 = (0..4).map(|j| b[4 * i + j]).sum();
            assert!(s.abs() < 1e-12);
        }
    }
}

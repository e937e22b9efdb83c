//! Box against box (MuJoCo 3.15.0's `mjc_BoxBox`, `engine_collision_box.c`), in two stages.
//!
//! 1. Separating axes: the 15 candidates (three face normals per box, nine edge crosses); any
//!    separation beyond the margin (plus rounding slack proportional to the boxes' size) means
//!    no contact. Face axes win near-ties: their manifold has several points, which the solver
//!    much prefers to one edge contact of almost the same depth.
//! 2. Manifold: for a face axis, the incident box's face most opposed to the reference face is
//!    clipped by the reference face's four side planes (Sutherland–Hodgman) and every clipped
//!    vertex within the margin band becomes a contact, midway between the surfaces; for an
//!    edge axis, one contact at the midpoint of the two supporting edges' closest points.

use super::PreContact;
use crate::math::*;

/// Slack on the separation tests, times the summed half sizes (rounding of the supports).
const SEP_EPS: f64 = 1e-13;
/// sin² below which an edge-cross axis is rounding noise.
const PAR_EPS: f64 = 1e-16;
/// Axis component below which a supporting corner is ambiguous.
const SGN_EPS: f64 = 1e-9;
/// Squared relative radius for merging clipped vertices.
const DUP_EPS: f64 = 1e-14;
/// Relative penalty on edge axes in near-ties with the best face axis.
const EDGE_BIAS: f64 = 1e-6;
/// A quad clipped by four half-planes has at most 8 vertices.
const MAX_VERT: usize = 12;
const MINVAL: f64 = 1e-15;

/// `aᵀ·b` of row-major 3×3 matrices, summed in `mju_mulMatTMat3`'s order.
fn mul_mat_t_mat3(a: &Mat3, b: &Mat3) -> Mat3 {
    std::array::from_fn(|k| {
        let (i, j) = (k / 3, k % 3);
        a[i] * b[j] + a[3 + i] * b[3 + j] + a[6 + i] * b[6 + j]
    })
}

/// Clips the polygon `poly[..n]` against `sign·v[coord] ≤ limit` into `spare` (when any vertex
/// is outside; the buffers then swap); `z` is interpolated as an attribute. Returns the count.
fn clip_half_plane(
    n: usize,
    poly: &mut [Vec3; MAX_VERT],
    spare: &mut [Vec3; MAX_VERT],
    coord: usize,
    sign: f64,
    limit: f64,
) -> usize {
    let mut d = [0.0; MAX_VERT];
    let mut all_inside = true;
    for k in 0..n {
        d[k] = sign * poly[k][coord] - limit;
        all_inside &= d[k] <= 0.0;
    }
    if all_inside {
        return n;
    }
    let mut m = 0;
    for k in 0..n {
        let p = poly[k];
        let k1 = if k + 1 == n { 0 } else { k + 1 };
        let (dp, dq) = (d[k], d[k1]);
        if dp <= 0.0 && m < MAX_VERT {
            spare[m] = p;
            m += 1;
        }
        if ((dp < 0.0 && dq > 0.0) || (dp > 0.0 && dq < 0.0)) && m < MAX_VERT {
            let q = poly[k1];
            let t = dp / (dp - dq);
            spare[m] = [
                p[0] + t * (q[0] - p[0]),
                p[1] + t * (q[1] - p[1]),
                p[2] + t * (q[2] - p[2]),
            ];
            m += 1;
        }
    }
    std::mem::swap(poly, spare);
    m
}

/// Box (`pos1`, `mat1`, half sizes `size1`) against box 2; appends its contacts, normal from
/// box 1 to box 2. Returns how many.
#[allow(clippy::too_many_arguments)]
pub fn box_box(
    out: &mut Vec<PreContact>,
    margin: f64,
    pos1: &[f64],
    mat1: &[f64],
    size1: &[f64],
    pos2: &[f64],
    mat2: &[f64],
    size2: &[f64],
) -> usize {
    let m1: Mat3 = std::array::from_fn(|k| mat1[k]);
    let m2: Mat3 = std::array::from_fn(|k| mat2[k]);
    let (p1, p2) = ([pos1[0], pos1[1], pos1[2]], [pos2[0], pos2[1], pos2[2]]);
    // rot: box 2's axes in box 1's frame (columns); pos21 / pos12: each centre in the other frame
    let pos21 = mul_mat_t_vec3(&m1, &sub3(&p2, &p1));
    let pos12 = mul_mat_t_vec3(&m2, &sub3(&p1, &p2));
    let rot = mul_mat_t_mat3(&m1, &m2);
    let rotabs: Mat3 = std::array::from_fn(|k| rot[k].abs());

    // ---- stage 1: separating axes
    let septol =
        margin + SEP_EPS * (size1[0] + size1[1] + size1[2] + size2[0] + size2[1] + size2[2]);
    let mut sep_best = -f64::MAX;
    let mut code: i32 = -1;
    for i in 0..3 {
        let r2 =
            rotabs[3 * i] * size2[0] + rotabs[3 * i + 1] * size2[1] + rotabs[3 * i + 2] * size2[2];
        let sep = pos21[i].abs() - size1[i] - r2;
        if sep > septol {
            return 0;
        }
        if sep > sep_best {
            sep_best = sep;
            code = i as i32;
        }
    }
    for j in 0..3 {
        let r1 = rotabs[j] * size1[0] + rotabs[3 + j] * size1[1] + rotabs[6 + j] * size1[2];
        let sep = pos12[j].abs() - size2[j] - r1;
        if sep > septol {
            return 0;
        }
        if sep > sep_best {
            sep_best = sep;
            code = 3 + j as i32;
        }
    }
    let sep_face = sep_best;
    let code_face = code;
    for i in 0..3 {
        for j in 0..3 {
            let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
            let (mut ax1, mut ax2) = (-rot[3 * i2 + j], rot[3 * i1 + j]);
            let norm2 = ax1 * ax1 + ax2 * ax2;
            if norm2 < PAR_EPS {
                continue;
            }
            let inv = 1.0 / norm2.sqrt();
            ax1 *= inv;
            ax2 *= inv;
            let r1 = size1[i1] * ax1.abs() + size1[i2] * ax2.abs();
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            let a21 = ax1 * rot[3 * i1 + j1] + ax2 * rot[3 * i2 + j1];
            let a22 = ax1 * rot[3 * i1 + j2] + ax2 * rot[3 * i2 + j2];
            let r2 = size2[j1] * a21.abs() + size2[j2] * a22.abs();
            let sep = (ax1 * pos21[i1] + ax2 * pos21[i2]).abs() - r1 - r2;
            if sep > septol {
                return 0;
            }
            if sep - EDGE_BIAS * sep.abs() > sep_best && sep > sep_face {
                sep_best = sep;
                code = 6 + 3 * i as i32 + j as i32;
            }
        }
    }
    if code < 0 {
        return 0;
    }
    let edge_axis = |code: i32| {
        let (i, j) = (((code - 6) / 3) as usize, ((code - 6) % 3) as usize);
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        let mut axis = [0.0; 3];
        axis[i1] = -rot[3 * i2 + j];
        axis[i2] = rot[3 * i1 + j];
        normalize3(&mut axis);
        (i, j, axis)
    };
    // an edge axis within ~8° of the best face axis duplicates it: the face wins unless the
    // edge is better by 5% of the face depth (resting stacks would flip between the two)
    if code >= 6 {
        let (_, _, axis) = edge_axis(code);
        let face_dot = if code_face < 3 {
            axis[code_face as usize].abs()
        } else {
            let f = (code_face - 3) as usize;
            (axis[0] * rot[f] + axis[1] * rot[3 + f] + axis[2] * rot[6 + f]).abs()
        };
        if face_dot > 0.99 && sep_best < sep_face + 0.05 * sep_face.abs() + MINVAL {
            code = code_face;
        }
    }

    // ---- stage 2a: edge against edge
    if code >= 6 {
        let (i, j, mut axis) = edge_axis(code);
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
        if dot3(&axis, &pos21) < 0.0 {
            axis = scl3(&axis, -1.0);
        }
        let a2: Vec3 =
            std::array::from_fn(|c| axis[0] * rot[c] + axis[1] * rot[3 + c] + axis[2] * rot[6 + c]);
        // a near-zero component leaves the supporting corner ambiguous: try both signs
        let amb1 = if axis[i1].abs() < SGN_EPS {
            Some(i1)
        } else if axis[i2].abs() < SGN_EPS {
            Some(i2)
        } else {
            None
        };
        let amb2 = if a2[j1].abs() < SGN_EPS {
            Some(j1)
        } else if a2[j2].abs() < SGN_EPS {
            Some(j2)
        } else {
            None
        };
        let d2 = [rot[j], rot[3 + j], rot[6 + j]];
        let b = d2[i];
        let denom = 1.0 - b * b;
        let (mut w1, mut w2) = ([0.0; 3], [0.0; 3]);
        let mut best = f64::MAX;
        for v1 in 0..1 + amb1.is_some() as usize {
            for v2 in 0..1 + amb2.is_some() as usize {
                let mut c1 = [0.0; 3];
                c1[i1] = if axis[i1] >= 0.0 {
                    size1[i1]
                } else {
                    -size1[i1]
                };
                c1[i2] = if axis[i2] >= 0.0 {
                    size1[i2]
                } else {
                    -size1[i2]
                };
                if let (Some(k), 1) = (amb1, v1) {
                    c1[k] = -c1[k];
                }
                let mut cc = [0.0; 3];
                cc[j1] = if a2[j1] >= 0.0 { -size2[j1] } else { size2[j1] };
                cc[j2] = if a2[j2] >= 0.0 { -size2[j2] } else { size2[j2] };
                if let (Some(k), 1) = (amb2, v2) {
                    cc[k] = -cc[k];
                }
                let c2 = add3(&mul_mat_vec3(&rot, &cc), &pos21);
                let e = sub3(&c2, &c1);
                let (d1e, d2e) = (e[i], dot3(&d2, &e));
                let mut s = if denom < MINVAL {
                    0.0
                } else {
                    (d1e - b * d2e) / denom
                };
                s = crate::math::clip(s, -size1[i], size1[i]);
                let t = crate::math::clip(b * s - d2e, -size2[j], size2[j]);
                s = crate::math::clip(d1e + b * t, -size1[i], size1[i]);
                let mut q1 = c1;
                q1[i] += s;
                let mut q2 = c2;
                add_to_scl3(&mut q2, &d2, t);
                let gap = sub3(&q2, &q1);
                let g2 = dot3(&gap, &gap);
                if g2 < best {
                    best = g2;
                    w1 = q1;
                    w2 = q2;
                }
            }
        }
        let dist = dot3(&sub3(&w2, &w1), &axis);
        if dist > septol {
            return 0;
        }
        let mid = [
            0.5 * (w1[0] + w2[0]),
            0.5 * (w1[1] + w2[1]),
            0.5 * (w1[2] + w2[2]),
        ];
        let pos = add3(&mul_mat_vec3(&m1, &mid), &p1);
        out.push(PreContact::new(dist, pos, mul_mat_vec3(&m1, &axis)));
        return 1;
    }

    // ---- stage 2b: face contact; the reference box owns the winning face
    let ref1 = code < 3;
    let a = if ref1 { code } else { code - 3 } as usize;
    let (sizeref, sizeinc) = if ref1 { (size1, size2) } else { (size2, size1) };
    let (posref, matref) = if ref1 { (&p1, &m1) } else { (&p2, &m2) };
    let posoi = if ref1 { pos21 } else { pos12 };
    // incident axes in the reference frame: rinc[3r + c] = component r of incident axis c
    let rinc: Mat3 = if ref1 {
        rot
    } else {
        std::array::from_fn(|k| rot[3 * (k % 3) + k / 3])
    };
    let sgn = if posoi[a] >= 0.0 { 1.0 } else { -1.0 };
    let mut binc = 0;
    for k in 1..3 {
        if rinc[3 * a + k].abs() > rinc[3 * a + binc].abs() {
            binc = k;
        }
    }
    let tinc = if sgn * rinc[3 * a + binc] > 0.0 {
        -1.0
    } else {
        1.0
    };
    // incident face corners as (x, y) on the reference face's other two axes and z = height
    // above the reference face (negative inside), in cyclic order
    let (ax, ay) = ((a + 1) % 3, (a + 2) % 3);
    let (bu, bv) = ((binc + 1) % 3, (binc + 2) % 3);
    let (mut cx, mut du, mut dv) = ([0.0; 3], [0.0; 3], [0.0; 3]);
    for r in 0..3 {
        let c = [ax, ay, a][r];
        cx[r] = posoi[c] + tinc * sizeinc[binc] * rinc[3 * c + binc];
        du[r] = sizeinc[bu] * rinc[3 * c + bu];
        dv[r] = sizeinc[bv] * rinc[3 * c + bv];
    }
    cx[2] = sgn * cx[2] - sizeref[a];
    du[2] *= sgn;
    dv[2] *= sgn;
    let mut poly = [[0.0; 3]; MAX_VERT];
    let mut spare = [[0.0; 3]; MAX_VERT];
    for (k, (su, sv)) in [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)]
        .into_iter()
        .enumerate()
    {
        poly[k] = std::array::from_fn(|r| cx[r] + su * du[r] + sv * dv[r]);
    }
    let mut n = 4;
    n = clip_half_plane(n, &mut poly, &mut spare, 0, 1.0, sizeref[ax]);
    n = clip_half_plane(n, &mut poly, &mut spare, 0, -1.0, sizeref[ax]);
    n = clip_half_plane(n, &mut poly, &mut spare, 1, 1.0, sizeref[ay]);
    n = clip_half_plane(n, &mut poly, &mut spare, 1, -1.0, sizeref[ay]);

    let normal = {
        let s = if ref1 { sgn } else { -sgn };
        [s * matref[a], s * matref[3 + a], s * matref[6 + a]]
    };
    let dupe2 = DUP_EPS * (sizeref[ax] * sizeref[ax] + sizeref[ay] * sizeref[ay]);
    let mut accepted = [[0.0; 3]; MAX_VERT];
    let mut naccept = 0;
    for v in &poly[..n] {
        if v[2] > margin {
            continue;
        }
        let dupe = accepted[..naccept].iter().any(|q| {
            let (dx, dy) = (q[0] - v[0], q[1] - v[1]);
            dx * dx + dy * dy < dupe2
        });
        if !dupe {
            accepted[naccept] = *v;
            naccept += 1;
        }
    }
    for v in &accepted[..naccept] {
        let mut posc = [0.0; 3];
        posc[ax] = v[0];
        posc[ay] = v[1];
        posc[a] = sgn * (sizeref[a] + 0.5 * v[2]);
        let pos = add3(&mul_mat_vec3(matref, &posc), posref);
        out.push(PreContact::new(v[2], pos, normal));
    }
    naccept
}

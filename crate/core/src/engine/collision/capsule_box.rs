//! Capsule against box (MuJoCo 3.15.0's `mjc_CapsuleBox`, `engine_collision_box.c`).
//!
//! The closest feature pair is found first: a capsule end against a box face, or the capsule
//! segment against one of the twelve box edges (closest points of two segments, clamped).
//! A sphere of the capsule's radius at that point of the segment is collided with the box.
//! Depending on how the capsule lies against that corner, edge or face, a second point further
//! along the segment (as far as it stays over the box) gives a second sphere contact, so a
//! capsule lying on a box rests on two points as MuJoCo's does.

use super::primitive::sphere_box;
use super::PreContact;
use crate::math::*;

const MINVAL: f64 = 1e-15;

/// Capsule (`pos1`, `mat1` with the segment along z, `size1` = [radius, half length]) against
/// box 2; appends up to two contacts, normal from capsule to box. Returns how many.
#[allow(clippy::too_many_arguments)]
pub fn capsule_box(
    out: &mut Vec<PreContact>,
    margin: f64,
    pos1: &[f64],
    mat1: &[f64],
    size1: &[f64],
    pos2: &[f64],
    mat2: &[f64],
    size2: &[f64],
) -> usize {
    let m2: Mat3 = std::array::from_fn(|k| mat2[k]);
    let halflength = size1[1];
    let mut secondpos = -4.0;
    // capsule centre and axis in the box frame
    let pos = mul_mat_t_vec3(
        &m2,
        &sub3(&[pos1[0], pos1[1], pos1[2]], &[pos2[0], pos2[1], pos2[2]]),
    );
    let axis = mul_mat_t_vec3(&m2, &[mat1[2], mat1[5], mat1[8]]);
    let halfaxis = scl3(&axis, halflength);
    // octant of the axis; axisdir and 7 − axisdir are the same line
    let axisdir = (halfaxis[0] > 0.0) as i32
        + 2 * (halfaxis[1] > 0.0) as i32
        + 4 * (halfaxis[2] > 0.0) as i32;

    let bestdistmax = margin + 2.0 * (size1[0] + halflength + size2[0] + size2[1] + size2[2]);
    let mut bestdist = bestdistmax;
    let mut bestsegmentpos = 0.0;
    let mut bestboxpos = 0.0;
    let mut cltype = -4; // -3/-1: a capsule end over a face; 0..8: an edge (clamp codes)
    let mut clface = -1;
    let mut clcorner = 0;
    let mut cledge = 0;

    // a capsule end closest to a face (clamped in at most one axis)
    for i in [-1i32, 1] {
        let end = add3(&pos, &scl3(&halfaxis, i as f64));
        let mut p = end;
        let (mut nclamp, mut face) = (0, -1);
        for j in 0..3 {
            if p[j] < -size2[j] {
                nclamp += 1;
                face = j as i32;
                p[j] = -size2[j];
            } else if p[j] > size2[j] {
                nclamp += 1;
                face = j as i32;
                p[j] = size2[j];
            }
        }
        if nclamp > 1 {
            continue;
        }
        let d = sub3(&p, &end);
        let dist = dot3(&d, &d);
        if dist < bestdist {
            bestdist = dist;
            bestsegmentpos = i as f64;
            cltype = -2 + i;
            clface = face;
        }
    }

    // the segment against each box edge along axis j
    for j in 0..3 {
        for i in 0..8i32 {
            if i & (1 << j) != 0 {
                continue;
            }
            let mut corner = [
                if i & 1 != 0 { 1.0 } else { -1.0 } * size2[0],
                if i & 2 != 0 { 1.0 } else { -1.0 } * size2[1],
                if i & 4 != 0 { 1.0 } else { -1.0 } * size2[2],
            ];
            corner[j] = 0.0;
            let dif = sub3(&corner, &pos);
            let ma = size2[j] * size2[j];
            let mb = -size2[j] * halfaxis[j];
            let mc = size1[1] * size1[1];
            let u = -size2[j] * dif[j];
            let v = dot3(&halfaxis, &dif);
            let det = ma * mc - mb * mb;
            if det.abs() < MINVAL {
                continue;
            }
            let idet = 1.0 / det;
            // x1 along the edge, x2 along the segment, both in [-1, 1]; s = 0/1/2: low end,
            // inside, high end
            let mut x1 = (mc * u - mb * v) * idet;
            let mut x2 = (ma * v - mb * u) * idet;
            let (mut s1, mut s2) = (1, 1);
            if x1 > 1.0 {
                x1 = 1.0;
                s1 = 2;
                x2 = (v - mb) * (1.0 / mc);
            } else if x1 < -1.0 {
                x1 = -1.0;
                s1 = 0;
                x2 = (v + mb) * (1.0 / mc);
            }
            let reclamp = |x1: &mut f64, s1: &mut i32| {
                if *x1 > 1.0 {
                    *x1 = 1.0;
                    *s1 = 2;
                } else if *x1 < -1.0 {
                    *x1 = -1.0;
                    *s1 = 0;
                }
            };
            if x2 > 1.0 {
                x2 = 1.0;
                s2 = 2;
                x1 = (u - mb) * (1.0 / ma);
                reclamp(&mut x1, &mut s1);
            } else if x2 < -1.0 {
                x2 = -1.0;
                s2 = 0;
                x1 = (u + mb) * (1.0 / ma);
                reclamp(&mut x1, &mut s1);
            }
            let mut d = sub3(&corner, &pos);
            add_to_scl3(&mut d, &halfaxis, -x2);
            d[j] += size2[j] * x1;
            let dd = dot3(&d, &d);
            let code = s1 * 3 + s2;
            // the −MINVAL keeps an axis numerically parallel to the box from flipping choices
            if dd < bestdist - MINVAL {
                bestdist = dd;
                bestsegmentpos = x2;
                bestboxpos = x1;
                clcorner = i + (1 << j) * (code / 6);
                cledge = j;
                cltype = code;
            }
        }
    }
    if cltype == -4 {
        return 0;
    }

    if cltype >= 0 && cltype / 3 != 1 {
        // a box corner is closest: a second point unless the capsule points at the corner
        let mut c1 = axisdir ^ clcorner;
        if c1 != 0 && c1 != 7 {
            let (mul, de, dp) = if c1 == 1 || c1 == 2 || c1 == 4 {
                (1.0, 1.0 - bestsegmentpos, 1.0 + bestsegmentpos)
            } else {
                c1 = 7 - c1;
                (-1.0, 1.0 + bestsegmentpos, 1.0 - bestsegmentpos)
            };
            let (ax, ax1, ax2) = match c1 {
                1 => (0, 1, 2),
                2 => (1, 2, 0),
                _ => (2, 0, 1),
            };
            if axis[ax] * axis[ax] > 0.5 {
                // along the box edge
                secondpos = de;
                let e1 = 2.0 * size2[ax] / halfaxis[ax].abs();
                if e1 < secondpos {
                    secondpos = e1;
                }
                secondpos *= mul;
            } else {
                // across a box face
                secondpos = dp;
                for a in [ax1, ax2] {
                    let e1 = 2.0 * size2[a] / halfaxis[a].abs();
                    if e1 < secondpos {
                        secondpos = e1;
                    }
                }
                secondpos *= -mul;
            }
        }
    } else if cltype >= 0 {
        // the middle of a box edge is closest: a second point when capsule and edge cross
        let c1 = (axisdir ^ clcorner) & (7 - (1 << cledge));
        if c1 == 1 || c1 == 2 || c1 == 4 {
            let ax = cledge;
            let (mut ax1, ax2_init) = ((ax + 1) % 3, (ax + 2) % 3);
            if axis[ax1].abs() > axis[ax2_init].abs() {
                ax1 = ax2_init;
            }
            let ax2 = 3 - ax - ax1;
            let mul;
            if c1 & (1 << ax2) != 0 {
                mul = 1.0;
                secondpos = 1.0 - bestsegmentpos;
            } else {
                mul = -1.0;
                secondpos = 1.0 + bestsegmentpos;
            }
            let e1 = 2.0 * size2[ax2] / halfaxis[ax2].abs();
            if e1 < secondpos {
                secondpos = e1;
            }
            let e2 = if ((axisdir & (1 << ax)) != 0) == ((c1 & (1 << ax2)) != 0) {
                1.0 - bestboxpos
            } else {
                1.0 + bestboxpos
            };
            let e1 = size2[ax] * e2 / halfaxis[ax].abs();
            if e1 < secondpos {
                secondpos = e1;
            }
            secondpos *= mul;
        }
    } else if clface != -1 {
        // a capsule end over a face: the other end's direction, clamped to stay over the box
        let mul = if cltype == -3 { 1.0 } else { -1.0 };
        secondpos = 2.0;
        let mut p = pos;
        add_to_scl3(&mut p, &halfaxis, -mul);
        for i in 0..3 {
            if i as i32 == clface {
                continue;
            }
            for lim in [size2[i], -size2[i]] {
                let e1 = (lim - p[i]) / halfaxis[i] * mul;
                if e1 > 0.0 && e1 < secondpos {
                    secondpos = e1;
                }
            }
        }
        secondpos *= mul;
    }

    // spheres of the capsule's radius at the chosen points of the segment
    let sphere_at = |out: &mut Vec<PreContact>, s: f64| {
        let mut p = pos;
        add_to_scl3(&mut p, &halfaxis, s);
        let w = add3(&mul_mat_vec3(&m2, &p), &[pos2[0], pos2[1], pos2[2]]);
        sphere_box(out, margin, &w, size1[0], pos2, mat2, size2)
    };
    let mut n = sphere_at(out, bestsegmentpos);
    if secondpos > -3.0 {
        n += sphere_at(out, secondpos + bestsegmentpos);
    }
    n
}

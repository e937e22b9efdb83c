//! More contacts for a convex pair by perturbation (the multi-CCD loop of MuJoCo 3.15.0's
//! `mjc_Convex`): after the first contact, both geoms are turned by ±1e-3 rad about each
//! tangent axis of its frame, around its position (the first geom one way, the second the
//! other), and each turned pair is collided again; a new contact farther than 1e-3 of the
//! smaller bounding radius from all earlier ones is kept, with the first contact's distance.
//! Up to five contacts. The two geoms' support search state carries across the five queries,
//! as MuJoCo's two CCD objects do.
//!
//! The MuJoCo source this port reads runs this for every `mjc_Convex` pair that returns one
//! contact and has neither a sphere nor an ellipsoid; flexlab uses it for mesh against box
//! or mesh when the pair has a margin, where it matches MuJoCo 3.15.0's contacts (with no
//! margin those pairs get MuJoCo's polygon-clipping contacts instead, and in 3.15.0 capsules
//! and cylinders against meshes get two clipped contacts with their own depths: both are
//! refused by `check_supported`).

use super::convex::{collide_warm, EpaScratch, Shape};
use super::meshsupport::Warm;
use super::{make_frame, PreContact};
use crate::math::*;

/// Perturbation angle (rad) and distinctness tolerance relative to the bounding radius.
const ANGLE: f64 = 1e-3;
const RELATIVE_TOLERANCE: f64 = 1e-3;

/// The shape turned by `rot` about `origin` (`mju_rotateFrame`).
fn rotated<'a>(s: &Shape<'a>, rot: &Mat3, origin: &Vec3) -> Shape<'a> {
    let mut t = *s;
    if let Some((c, mat)) = t.core.frame_mut() {
        *mat = mul_mat_mat3(rot, mat);
        let rel = sub3(origin, c);
        let vec = sub3(&mul_mat_vec3(rot, &rel), &rel);
        *c = sub3(c, &vec);
    }
    t
}

/// Collides `a` and `b` as [`super::convex::collide`] does, then adds the perturbed
/// contacts; `rbound` are the geoms' bounding radii (m). Returns the contacts appended.
#[allow(clippy::too_many_arguments)]
pub fn collide_multi(
    sc: &mut EpaScratch,
    out: &mut Vec<PreContact>,
    margin: f64,
    a: &Shape,
    b: &Shape,
    rbound: [f64; 2],
    iterations: usize,
    tol: f64,
) -> usize {
    let (w1, w2) = (Warm::new(), Warm::new());
    let first = out.len();
    if collide_warm(sc, out, margin, a, b, iterations, tol, &w1, &w2) == 0 {
        return 0;
    }
    let con0 = out[first];
    let mut frame = [0.0; 9];
    frame[..3].copy_from_slice(&con0.normal);
    make_frame(&mut frame);
    let tolerance = RELATIVE_TOLERANCE * rbound[0].min(rbound[1]);
    for axis in [
        [frame[3], frame[4], frame[5]],
        [frame[6], frame[7], frame[8]],
    ] {
        for angle in [-ANGLE, ANGLE] {
            let rot = quat_to_mat(&axis_angle_to_quat(&axis, angle));
            let inv = transpose3(&rot);
            let a2 = rotated(a, &rot, &con0.pos);
            let b2 = rotated(b, &inv, &con0.pos);
            if collide_warm(sc, out, margin, &a2, &b2, iterations, tol, &w1, &w2) == 0 {
                continue;
            }
            let new = out.len() - 1;
            let p = out[new].pos;
            let distinct = out[first..new].iter().all(|c| {
                let d = sub3(&c.pos, &p);
                dot3(&d, &d).sqrt() > tolerance
            });
            if distinct {
                out[new].dist = con0.dist;
            } else {
                out.pop();
            }
        }
    }
    out.len() - first
}

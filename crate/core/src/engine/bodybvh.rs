//! The geom hierarchy of a body (MuJoCo's body BVH, built at compile time by
//! `flexlab::compile::bodybvh` in the body's inertial frame) and the oriented-box test of MuJoCo's body–flex walk (`mj_collideTree`) that decides which geom–
//! element pairs reach the narrow phase.
//!
//! The walk prunes a pair of inner nodes within the margin alone: the body's margin (the largest
//! geom margin plus gap) and the flex's margin, without the flex's gap. An element in the flex's
//! gap band is then tested or not depending on the two trees' shapes, and a flex with passive
//! contacts pulls on every contact in that band, so the pairs must be MuJoCo's.

use crate::math::MAXVAL;

/// A binary tree over a body's colliding geoms, nodes in pre-order (children after parents,
/// each subtree contiguous).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BodyBvh {
    /// Children of each node (-1: none).
    pub child: Vec<[i32; 2]>,
    /// Geom of each leaf (model index), -1 for inner nodes.
    pub nodeid: Vec<i32>,
    /// Box of each node (centre, half sizes) in the body's inertial frame (m).
    pub aabb: Vec<[f64; 6]>,
    /// Number of nodes in each node's subtree (the node included).
    pub size: Vec<usize>,
    /// The body's margin for the walk's inner tests (MuJoCo's `body_margin`, m): the largest
    /// geom margin plus gap over all the body's geoms.
    pub margin: f64,
}

/// A box rotated into the world: centre and half sizes `aabb` in the frame `pos`, `mat`
/// (row-major, local to world).
pub struct Obb<'a> {
    pub aabb: &'a [f64],
    pub pos: &'a [f64],
    pub mat: &'a [f64],
}

/// Whether a rotated box and a world-aligned box `b` (centre, half sizes) overlap within
/// `margin` on the six face axes of the two (`mj_collideOBB` as the body–flex walk calls it;
/// the nine edge cross axes are not tested, as in MuJoCo). A rotated box as large as `mjMAXVAL`
/// along all three axes (a plane's) overlaps everything; one infinite along some axis is tested
/// on its own face axes only.
#[inline(never)]
pub fn obb_overlap(r: &Obb, b: &[f64; 6], margin: f64) -> bool {
    let a = r.aabb;
    let inf = [a[3] >= MAXVAL, a[4] >= MAXVAL, a[5] >= MAXVAL];
    if inf[0] && inf[1] && inf[2] {
        return true;
    }
    let mat = r.mat;
    let mut c = [0.0; 3];
    for k in 0..3 {
        c[k] = mat[3 * k] * a[0] + mat[3 * k + 1] * a[1] + mat[3 * k + 2] * a[2] + r.pos[k];
    }
    // the rotated box's face axes (columns of its rotation), then the world's
    let axes = 3 + if inf[0] || inf[1] || inf[2] { 0 } else { 3 };
    for j in 0..axes {
        let n = if j < 3 {
            [mat[j], mat[3 + j], mat[6 + j]]
        } else {
            let mut e = [0.0; 3];
            e[j - 3] = 1.0;
            e
        };
        let dot = |u: [f64; 3]| u[0] * n[0] + u[1] * n[1] + u[2] * n[2];
        let p1 = dot(c);
        let p2 = dot([b[0], b[1], b[2]]);
        let r1 = (a[3] * dot([mat[0], mat[3], mat[6]])).abs()
            + (a[4] * dot([mat[1], mat[4], mat[7]])).abs()
            + (a[5] * dot([mat[2], mat[5], mat[8]])).abs();
        let r2 = (b[3] * n[0]).abs() + (b[4] * n[1]).abs() + (b[5] * n[2]).abs();
        if r1 + r2 + margin < (p2 - p1).abs() {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    const IDENTITY: [f64; 9] = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];

    #[test]
    fn boxes_apart_along_a_face_axis_do_not_overlap_unless_the_margin_bridges_them() {
        let a = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0];
        let r = Obb {
            aabb: &a,
            pos: &[0.0; 3],
            mat: &IDENTITY,
        };
        let b = [2.5, 0.0, 0.0, 1.0, 1.0, 1.0];
        assert!(!obb_overlap(&r, &b, 0.4));
        assert!(obb_overlap(&r, &b, 0.6));
    }

    #[test]
    fn a_rotated_box_is_tested_on_its_own_faces() {
        // a unit cube turned 45 degrees about z: its face axis (1, 1)/sqrt 2 separates it from
        // this box, which no world axis does (along x the cube reaches sqrt 2 > 1.2)
        let c = std::f64::consts::FRAC_1_SQRT_2;
        let rot = [c, -c, 0.0, c, c, 0.0, 0.0, 0.0, 1.0];
        let a = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0];
        let turned = Obb {
            aabb: &a,
            pos: &[0.0; 3],
            mat: &rot,
        };
        let b = [1.7, 1.4, 0.0, 0.5, 0.5, 0.5];
        assert!(!obb_overlap(&turned, &b, 0.0));
        assert!(obb_overlap(&turned, &b, 0.5));
    }

    #[test]
    fn a_box_infinite_in_every_direction_overlaps_everything() {
        let plane = [0.0, 0.0, 0.0, MAXVAL, MAXVAL, MAXVAL];
        let r = Obb {
            aabb: &plane,
            pos: &[0.0; 3],
            mat: &IDENTITY,
        };
        assert!(obb_overlap(&r, &[1e3, 1e3, 1e3, 1.0, 1.0, 1.0], 0.0));
    }
}

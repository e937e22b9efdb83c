//! The geom hierarchy of a body (`mjCBody::ComputeBVH` and
//! `mjCBoundingVolumeHierarchy::MakeBVH`), built once in the body's inertial frame from its
//! colliding geoms' frames and local boxes. Here rather than in the engine: it runs once per
//! load, so it is built at the compiler's size-first optimisation.

use super::bvh::{split, EPS};
use crate::engine::bodybvh::BodyBvh;
use crate::math::rot_vec_quat;
use crate::model::Model;

#[derive(Clone, Copy)]
struct Leaf {
    geom: usize,
    /// Position along the tree's axes: the geom's position in the inertial frame.
    lpos: [f64; 3],
}

/// The hierarchy of body `b` from its geoms' frames and local boxes (`geom_aabb`); empty when
/// no geom collides.
pub fn build(m: &Model, b: usize) -> BodyBvh {
    let mut tree = BodyBvh::default();
    let (adr, num) = (m.body_geomadr[b], m.body_geomnum[b]);
    if adr < 0 || num <= 0 {
        return tree;
    }
    tree.margin = (adr as usize..(adr + num) as usize)
        .map(|g| m.geom_margin[g] + m.geom_gap[g])
        .fold(0.0, f64::max);
    let ipos = [
        m.body_ipos[3 * b],
        m.body_ipos[3 * b + 1],
        m.body_ipos[3 * b + 2],
    ];
    let iq = &m.body_iquat[4 * b..4 * b + 4];
    let qinv = [iq[0], -iq[1], -iq[2], -iq[3]];
    let mut leaves: Vec<Leaf> = (adr as usize..(adr + num) as usize)
        .filter(|&g| m.geom_contype[g] != 0 || m.geom_conaffinity[g] != 0)
        .map(|g| {
            let p = &m.geom_pos[3 * g..3 * g + 3];
            let v = [p[0] - ipos[0], p[1] - ipos[1], p[2] - ipos[2]];
            Leaf {
                geom: g,
                lpos: rot_vec_quat(&v, &qinv),
            }
        })
        .collect();
    if !leaves.is_empty() {
        make(m, &mut tree, &mut leaves, &ipos, &qinv);
    }
    tree
}

/// Adds the node over `leaves` and its subtree; returns its index.
fn make(
    m: &Model,
    tree: &mut BodyBvh,
    leaves: &mut [Leaf],
    ipos: &[f64; 3],
    qinv: &[f64; 4],
) -> i32 {
    let n = leaves.len();
    let mut lo = [f64::MAX; 3];
    let mut hi = [-f64::MAX; 3];
    for l in leaves.iter() {
        let g = l.geom;
        let a = &m.geom_aabb[6 * g..6 * g + 6];
        let q = [
            m.geom_quat[4 * g],
            m.geom_quat[4 * g + 1],
            m.geom_quat[4 * g + 2],
            m.geom_quat[4 * g + 3],
        ];
        for v in 0..8 {
            let corner = [
                if v & 1 != 0 { a[0] + a[3] } else { a[0] - a[3] },
                if v & 2 != 0 { a[1] + a[4] } else { a[1] - a[4] },
                if v & 4 != 0 { a[2] + a[5] } else { a[2] - a[5] },
            ];
            let mut bx = rot_vec_quat(&corner, &q);
            for k in 0..3 {
                bx[k] += m.geom_pos[3 * g + k] - ipos[k];
            }
            let x = rot_vec_quat(&bx, qinv);
            for k in 0..3 {
                lo[k] = lo[k].min(x[k]);
                hi[k] = hi[k].max(x[k]);
            }
        }
    }
    // flat boxes are inflated, as MuJoCo does
    for k in 0..3 {
        if (lo[k] - hi[k]).abs() < EPS {
            lo[k] -= EPS;
            hi[k] += EPS;
        }
    }
    let index = tree.child.len();
    tree.child.push([-1, -1]);
    tree.nodeid.push(-1);
    tree.size.push(1);
    tree.aabb.push([
        (hi[0] + lo[0]) / 2.0,
        (hi[1] + lo[1]) / 2.0,
        (hi[2] + lo[2]) / 2.0,
        (hi[0] - lo[0]) / 2.0,
        (hi[1] - lo[1]) / 2.0,
        (hi[2] - lo[2]) / 2.0,
    ]);
    if n == 1 {
        tree.nodeid[index] = leaves[0].geom as i32;
        return index as i32;
    }
    let mid = split(leaves, &lo, &hi, &|l, axis| l.lpos[axis], &|l| l.geom);
    let (left, right) = leaves.split_at_mut(mid);
    if mid > 0 {
        tree.child[index][0] = make(m, tree, left, ipos, qinv);
    }
    tree.child[index][1] = make(m, tree, right, ipos, qinv);
    tree.size[index] = tree.child.len() - index;
    index as i32
}

//! The element hierarchy of a flex (MuJoCo's flex BVH, built once from the vertex positions at
//! `qpos0` by `flexlab::compile::flexbvh`) and its node boxes of the current configuration.
//!
//! Its shape matters beyond speed: MuJoCo's SDF collision walks it depth first, and when two
//! elements reach the same deepest point (a shared vertex or edge) the first one visited owns
//! the contact, which decides the vertices the contact force acts on.

/// A binary tree over a flex's (active) elements, nodes in pre-order (children after parents).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FlexBvh {
    /// Children of each node (-1: none).
    pub child: Vec<[i32; 2]>,
    /// Element of each leaf (flex-local index), -1 for inner nodes.
    pub nodeid: Vec<i32>,
}

/// Boxes of all nodes (centre, half sizes) from the leaves' current element boxes
/// `elem_aabb` (6 per element of the flex), as MuJoCo's `mj_updateDynamicBVH`.
pub fn node_boxes(tree: &FlexBvh, elem_aabb: &[f64], out: &mut [[f64; 6]]) {
    for i in (0..tree.child.len()).rev() {
        let id = tree.nodeid[i];
        if id >= 0 {
            out[i].copy_from_slice(&elem_aabb[6 * id as usize..6 * id as usize + 6]);
            continue;
        }
        let [c1, c2] = tree.child[i];
        // a node has both children (median split of at least two elements)
        let (a, b) = (out[c1 as usize], out[c2 as usize]);
        let mut bx = [0.0; 6];
        for k in 0..3 {
            let lo = crate::math::min(a[k] - a[k + 3], b[k] - b[k + 3]);
            let hi = crate::math::max(a[k] + a[k + 3], b[k] + b[k + 3]);
            bx[k] = 0.5 * (hi + lo);
            bx[k + 3] = 0.5 * (hi - lo);
        }
        out[i] = bx;
    }
}

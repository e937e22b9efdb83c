//! The element hierarchy of a flex (`mjCFlex::CreateBVH` and
//! `mjCBoundingVolumeHierarchy::MakeBVH`), built once from the vertex positions at `qpos0`.
//! Here rather than in the engine: it runs once per load, so it is built at the compiler's
//! size-first optimisation.

use super::bvh::split;
use crate::engine::flexbvh::FlexBvh;

#[derive(Clone, Copy)]
struct Leaf {
    elem: usize,
    /// Box centre and half sizes (m), the element's vertices' box grown by the flex radius.
    aabb: [f64; 6],
}

/// The hierarchy of flex `f` from its vertices' positions `vert` (3 per flex vertex, m),
/// leaving out the elements of 3D flexes beyond `activelayers`.
pub fn build(
    dim: usize,
    elem: &[i32],
    elemlayer: &[i32],
    activelayers: i32,
    radius: f64,
    vert: &[f64],
) -> FlexBvh {
    let nelem = elemlayer.len();
    let mut leaves = crate::data::with_capacity(nelem);
    for e in 0..nelem {
        if dim == 3 && elemlayer[e] >= activelayers {
            continue;
        }
        let ed = &elem[e * (dim + 1)..(e + 1) * (dim + 1)];
        let first = 3 * ed[0] as usize;
        let (mut lo, mut hi) = ([0.0; 3], [0.0; 3]);
        lo.copy_from_slice(&vert[first..first + 3]);
        hi.copy_from_slice(&vert[first..first + 3]);
        for &v in &ed[1..] {
            for j in 0..3 {
                lo[j] = crate::math::min(lo[j], vert[3 * v as usize + j]);
                hi[j] = crate::math::max(hi[j], vert[3 * v as usize + j]);
            }
        }
        let mut aabb = [0.0; 6];
        for j in 0..3 {
            aabb[j] = 0.5 * (hi[j] + lo[j]);
            aabb[3 + j] = 0.5 * (hi[j] - lo[j]) + radius;
        }
        leaves.push(Leaf { elem: e, aabb });
    }
    let mut tree = FlexBvh::default();
    if !leaves.is_empty() {
        make(&mut tree, &mut leaves);
    }
    tree
}

/// Adds the node over `leaves` and its subtree; returns its index.
fn make(tree: &mut FlexBvh, leaves: &mut [Leaf]) -> i32 {
    let n = leaves.len();
    let mut lo = [f64::MAX; 3];
    let mut hi = [-f64::MAX; 3];
    for l in leaves.iter() {
        for j in 0..3 {
            lo[j] = crate::math::min(lo[j], l.aabb[j] - l.aabb[3 + j]);
            hi[j] = crate::math::max(hi[j], l.aabb[j] + l.aabb[3 + j]);
        }
    }
    let index = tree.child.len();
    tree.child.push([-1, -1]);
    tree.nodeid.push(-1);
    if n == 1 {
        tree.nodeid[index] = leaves[0].elem as i32;
        return index as i32;
    }
    let m = split(leaves, &lo, &hi, &|l, axis| l.aabb[axis], &|l| l.elem);
    let (left, right) = leaves.split_at_mut(m);
    if m > 0 {
        tree.child[index][0] = make(tree, left);
    }
    tree.child[index][1] = make(tree, right);
    index as i32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::flexbvh::node_boxes;

    #[test]
    fn a_strip_of_triangles_splits_at_the_median_along_its_length() {
        // four triangles in a row along x: halves {0,1} and {2,3}, leaves in pre-order
        let vert: Vec<f64> = (0..5)
            .flat_map(|i| [i as f64, 0.0, 0.0, i as f64, 1.0, 0.0])
            .collect();
        let elem: Vec<i32> = (0..4).flat_map(|i| [2 * i, 2 * i + 2, 2 * i + 1]).collect();
        let t = build(2, &elem, &[0; 4], 1, 0.01, &vert);
        assert_eq!(t.child.len(), 7);
        assert_eq!(t.child[0], [1, 4]);
        assert_eq!(t.nodeid, vec![-1, -1, 0, 1, -1, 2, 3]);
        let boxes: Vec<f64> = (0..4)
            .flat_map(|i| [i as f64 + 0.5, 0.5, 0.0, 0.5, 0.5, 0.0])
            .collect();
        let mut out = vec![[0.0; 6]; 7];
        node_boxes(&t, &boxes, &mut out);
        assert_eq!(out[0], [2.0, 0.5, 0.0, 2.0, 0.5, 0.0]);
        assert_eq!(out[4], [3.0, 0.5, 0.0, 1.0, 0.5, 0.0]);
    }
}

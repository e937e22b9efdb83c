//! The element hierarchy of a flex (MuJoCo's flex BVH: `mjCFlex::CreateBVH` and
//! `mjCBoundingVolumeHierarchy::MakeBVH`), built once from the vertex positions at `qpos0`.
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

/// MuJoCo's `mjEPS`: positions closer than this along the split axis tie, and ties go by
/// element order.
const EPS: f64 = 1e-14;

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
    let mut leaves = Vec::with_capacity(nelem);
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
    // longest axis by a margin of at least EPS, then the median along it
    let edges = [hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]];
    let mut axis = 0;
    if edges[1] >= edges[0] + EPS {
        axis = 1;
    }
    if edges[2] >= edges[axis] + EPS {
        axis = 2;
    }
    let m = n / 2;
    leaves.select_nth_unstable_by(m, |a, b| {
        let (pa, pb) = (a.aabb[axis], b.aabb[axis]);
        if (pa - pb).abs() > EPS {
            pa.total_cmp(&pb)
        } else {
            a.elem.cmp(&b.elem)
        }
    });
    let (left, right) = leaves.split_at_mut(m);
    if m > 0 {
        tree.child[index][0] = make(tree, left);
    }
    tree.child[index][1] = make(tree, right);
    index as i32
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

#[cfg(test)]
mod tests {
    use super::*;

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

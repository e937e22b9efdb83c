//! The split rule both of MuJoCo's hierarchies use (`mjCBoundingVolumeHierarchy::MakeBVH`): a
//! node's items are split at the median along the node box's longest axis.

/// MuJoCo's `mjEPS`: edges and positions closer than this tie.
pub const EPS: f64 = 1e-14;

/// The axis to split a node box `lo`..`hi` along: the longest by a margin of at least
/// [`EPS`], else the earlier one.
pub fn split_axis(lo: &[f64; 3], hi: &[f64; 3]) -> usize {
    let edges = [hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]];
    let mut axis = 0;
    if edges[1] >= edges[0] + EPS {
        axis = 1;
    }
    if edges[2] >= edges[axis] + EPS {
        axis = 2;
    }
    axis
}

/// The `n` items in the order of their positions `pos(i)` along the split axis, positions
/// within [`EPS`] going by `id(i)` (MuJoCo's element or pointer order). The first `n / 2` go
/// to the left child: the split `nth_element` makes, by the compiler's one merge sort (less
/// code than a selection).
pub fn median_order(
    n: usize,
    pos: &dyn Fn(usize) -> f64,
    id: &dyn Fn(usize) -> usize,
) -> Vec<usize> {
    crate::sort::sorted_indices(n, &|i, j| {
        let (pi, pj) = (pos(i), pos(j));
        if (pi - pj).abs() > EPS {
            pi.total_cmp(&pj)
        } else {
            id(i).cmp(&id(j))
        }
    })
}

/// Reorders `items` by `order` (a permutation of their indices).
pub fn permute<T: Copy>(items: &mut [T], order: &[usize]) {
    let sorted: Vec<T> = order.iter().map(|&i| items[i]).collect();
    items.copy_from_slice(&sorted);
}

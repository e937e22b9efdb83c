//! The split rule both of MuJoCo's hierarchies use (`mjCBoundingVolumeHierarchy::MakeBVH`): a
//! node's items are split at the median along the node box's longest axis.

/// MuJoCo's `mjEPS`: edges and positions closer than this tie.
pub const EPS: f64 = 1e-14;

/// The axis to split a node box `lo`..`hi` along: the longest by a margin of at least
/// [`EPS`], else the earlier one.
fn split_axis(lo: &[f64; 3], hi: &[f64; 3]) -> usize {
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

/// Splits a node's `items` (whose box is `lo`..`hi`) as MuJoCo does: along [`split_axis`],
/// ordered by `pos(item, axis)` with positions within [`EPS`] going by `id(item)` (MuJoCo's
/// element or pointer order). Returns the size of the left child, `n / 2`: the split
/// `nth_element` makes, by the compiler's one merge sort (less code than a selection).
pub fn split<T: Copy>(
    items: &mut [T],
    lo: &[f64; 3],
    hi: &[f64; 3],
    pos: &dyn Fn(&T, usize) -> f64,
    id: &dyn Fn(&T) -> usize,
) -> usize {
    let axis = split_axis(lo, hi);
    let order = crate::sort::sorted_indices(items.len(), &|i, j| {
        let (pi, pj) = (pos(&items[i], axis), pos(&items[j], axis));
        if (pi - pj).abs() > EPS {
            pi.total_cmp(&pj)
        } else {
            id(&items[i]).cmp(&id(&items[j]))
        }
    });
    let sorted: Vec<T> = order.iter().map(|&i| items[i]).collect();
    items.copy_from_slice(&sorted);
    items.len() / 2
}

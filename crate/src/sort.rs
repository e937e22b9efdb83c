//! Sorting for the code that runs once per load (compiler, lessons), where the size of the
//! browser build matters more than the speed of a sort.
//!
//! The standard library's sorts are instantiated in full (quicksort, partitions, heapsort,
//! sorting networks: 5–6 kB of wasm each) for every element type and comparator. Here one
//! non-generic merge sort orders indices through a `dyn` comparison, and only a short
//! permutation is generic. The sort is stable, so it gives `sort_unstable`'s order wherever
//! that order is determined (no two elements compare equal while being distinguishable).

use std::cmp::Ordering;

/// The indices `0..n` in the stable order of `cmp` (bottom-up merge sort).
pub fn sorted_indices(n: usize, cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut a: Vec<usize> = (0..n).collect();
    let mut b = vec![0; n];
    let mut width = 1;
    while width < n {
        let mut lo = 0;
        while lo < n {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            let (mut i, mut j) = (lo, mid);
            for slot in &mut b[lo..hi] {
                // the left run wins ties: stable
                if j >= hi || (i < mid && cmp(a[i], a[j]) != Ordering::Greater) {
                    *slot = a[i];
                    i += 1;
                } else {
                    *slot = a[j];
                    j += 1;
                }
            }
            lo = hi;
        }
        std::mem::swap(&mut a, &mut b);
        width *= 2;
    }
    a
}

/// Sorts `v` stably by `cmp`.
pub fn sort_by<T>(v: &mut Vec<T>, cmp: impl Fn(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let order = sorted_indices(v.len(), &|i, j| cmp(&v[i], &v[j]));
    let mut old: Vec<Option<T>> = v.drain(..).map(Some).collect();
    v.extend(order.into_iter().filter_map(|i| old[i].take()));
}

/// Sorts `v` stably in ascending order.
pub fn sort<T: Ord>(v: &mut Vec<T>) {
    sort_by(v, T::cmp);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator, so the test needs no dependency.
    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    #[test]
    fn orders_as_the_standard_stable_sort() {
        let mut seed = 7;
        for n in [0, 1, 2, 3, 5, 8, 13, 64, 100, 1000] {
            // few distinct keys, so that stability shows
            let v: Vec<(u64, usize)> = (0..n).map(|i| (lcg(&mut seed) % 7, i)).collect();
            let mut want = v.clone();
            want.sort_by_key(|x| x.0);
            let mut got = v.clone();
            sort_by(&mut got, |a, b| a.0.cmp(&b.0));
            assert_eq!(got, want, "n = {n}");
            let mut got = v;
            sort(&mut got);
            want.sort_unstable();
            assert_eq!(got, want, "n = {n}");
        }
    }
}

//! MuJoCo's stable sort (`mjSORT`, engine_sort.h): insertion-sorted runs of 32, then bottom-up
//! merges through a buffer. The step's sorts (the self-collision sweep, a walk's contacts) use
//! it rather than the standard library's: allocation-free with their own buffers, and one small
//! instantiation (both sort `(u64, u32)` keys) where the standard quicksort added 7 kB to the
//! browser build.

/// Sorts a short slice in place: a descending run (a kinematic chain walked up to its root) is
/// reversed, anything else insertion-sorted. The step's lists of touched dofs and neighbours
/// are a few dozen entries; the standard library's sort cost 3 kB of the browser build.
pub(crate) fn sort_small<T: Ord + Copy>(v: &mut [T]) {
    if v.windows(2).all(|w| w[0] > w[1]) {
        v.reverse();
        return;
    }
    for j in 1..v.len() {
        let tmp = v[j];
        let mut k = j;
        while k > 0 && v[k - 1] > tmp {
            v[k] = v[k - 1];
            k -= 1;
        }
        v[k] = tmp;
    }
}

/// Sorts `key` stably by `le` (MuJoCo's `cmp(a, b) <= 0`), with `buf` at least as long.
pub(crate) fn merge_sort<T: Copy>(key: &mut [T], buf: &mut [T], le: impl Fn(&T, &T) -> bool) {
    const RUN: usize = 32;
    let n = key.len();
    let buf = &mut buf[..n];
    for start in (0..n).step_by(RUN) {
        let end = (start + RUN).min(n);
        for j in start + 1..end {
            let tmp = key[j];
            let mut k = j;
            while k > start && !le(&key[k - 1], &tmp) {
                key[k] = key[k - 1];
                k -= 1;
            }
            key[k] = tmp;
        }
    }
    let mut in_key = true;
    let mut len = RUN;
    while len < n {
        let (src, dst): (&[T], &mut [T]) = if in_key {
            (&*key, &mut *buf)
        } else {
            (&*buf, &mut *key)
        };
        for start in (0..n).step_by(2 * len) {
            let mid = (start + len).min(n);
            let end = (start + 2 * len).min(n);
            let (mut i, mut j, mut k) = (start, mid, start);
            while i < mid && j < end {
                if le(&src[i], &src[j]) {
                    dst[k] = src[i];
                    i += 1;
                } else {
                    dst[k] = src[j];
                    j += 1;
                }
                k += 1;
            }
            dst[k..k + mid - i].copy_from_slice(&src[i..mid]);
            let k = k + mid - i;
            dst[k..k + end - j].copy_from_slice(&src[j..end]);
        }
        in_key = !in_key;
        len *= 2;
    }
    if !in_key {
        key.copy_from_slice(buf);
    }
}

#[cfg(test)]
mod tests {
    use super::{merge_sort, sort_small};

    #[test]
    fn short_sorts_sort() {
        for mut v in [
            vec![],
            vec![3],
            vec![5, 4, 3, 1],
            vec![2, 9, 1, 1, 7, 0],
            vec![1, 2, 3],
        ] {
            let mut want = v.clone();
            want.sort();
            sort_small(&mut v);
            assert_eq!(v, want);
        }
    }

    /// Stable by key across runs and merges (lengths around the run size and its powers of
    /// two), with -0 equal to +0 as in C.
    #[test]
    fn sort_is_stable_by_key() {
        let mut seed = 12345u32;
        for n in [0, 1, 2, 31, 32, 33, 64, 65, 100, 257] {
            let mut key: Vec<(f32, u32)> = (0..n as u32)
                .map(|i| {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    let v = ((seed >> 16) % 7) as f32 - 3.0;
                    (if v == 0.0 && i % 2 == 1 { -0.0 } else { v }, i)
                })
                .collect();
            let mut expect = key.clone();
            // a plain stable sort by value, treating -0 as +0
            expect.sort_by(|a, b| (a.0 + 0.0).total_cmp(&(b.0 + 0.0)));
            let mut buf = vec![(0.0, 0); n];
            merge_sort(&mut key, &mut buf, |a, b| a.0 <= b.0);
            assert_eq!(
                key.iter().map(|k| k.1).collect::<Vec<_>>(),
                expect.iter().map(|k| k.1).collect::<Vec<_>>(),
                "n = {n}"
            );
        }
    }
}

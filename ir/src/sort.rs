//! Stable sorting through one shared instance of the standard library's sort.
//!
//! `slice::sort_by` is generic over the element and the comparator, so every
//! call site with its own closure gets its own copy of the standard library's
//! driftsort, about 4 KB of WebAssembly each. The compiler sorts short lists
//! (loops, blocks, names, spans) in dozens of places, and those copies were
//! a twentieth of the first-load worker's code. These functions sort a list
//! of indices with a `dyn` comparator instead — one instance of the sort for
//! the whole program — and then move the elements into that order, which is
//! a few dozen bytes per element type. The result is the standard sort's:
//! stable, O(n log n).

use std::cmp::Ordering;

/// Sorts `items` stably by `compare` (as `slice::sort_by`).
pub fn by<T>(items: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    let mut order: Vec<usize> = (0..items.len()).collect();
    sort_indices(&mut order, &mut |a, b| compare(&items[a], &items[b]));
    permute(items, &mut order);
}

/// Sorts `items` stably by the key `key` gives each (as `slice::sort_by_key`).
pub fn by_key<T, K: Ord>(items: &mut [T], mut key: impl FnMut(&T) -> K) {
    by(items, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `items` stably in ascending order (as `slice::sort`).
pub fn ascending<T: Ord>(items: &mut [T]) {
    by(items, T::cmp);
}

/// The one instance of the standard library's sort that every call shares.
fn sort_indices(order: &mut [usize], compare: &mut dyn FnMut(usize, usize) -> Ordering) {
    order.sort_by(|&a, &b| compare(a, b));
}

/// Rearranges `items` so that position `i` holds what was at `order[i]`,
/// following each cycle of the permutation with swaps (no copies, no
/// `Clone`); `order` is left as the identity.
fn permute<T>(items: &mut [T], order: &mut [usize]) {
    for start in 0..order.len() {
        let mut at = start;
        loop {
            let from = order[at];
            order[at] = at;
            if from == start {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_as_the_standard_library_does_and_keeps_equal_keys_in_order() {
        // A fixed pseudo-random sequence with many equal keys: stability shows.
        let mut state = 12345u32;
        let mut items: Vec<(u32, usize)> = (0..500)
            .map(|i| {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
                ((state >> 16) % 17, i)
            })
            .collect();
        let mut expected = items.clone();
        expected.sort_by_key(|p| p.0);
        by_key(&mut items, |p| p.0);
        assert_eq!(items, expected);
    }

    #[test]
    fn sorts_empty_single_reversed_and_descending_lists() {
        let mut empty: Vec<i32> = vec![];
        ascending(&mut empty);
        assert!(empty.is_empty());
        let mut one = vec![String::from("x")];
        ascending(&mut one);
        assert_eq!(one, ["x"]);
        let mut reversed: Vec<i64> = (0..40).rev().collect();
        ascending(&mut reversed);
        assert_eq!(reversed, (0..40).collect::<Vec<_>>());
        let mut floats = vec![0.5, -1.0, 3.0, f64::NAN, 2.0];
        by(&mut floats, |a, b| b.total_cmp(a));
        assert!(floats[0].is_nan());
        assert_eq!(&floats[1..], [3.0, 2.0, 0.5, -1.0]);
    }
}

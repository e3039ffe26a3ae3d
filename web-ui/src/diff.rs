//! Line diff between two printed modules (longest common subsequence).

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    Same,
    Added,
    Removed,
}

/// The lines of `b` compared with `a`: kept, added and removed lines in order.
pub fn diff_lines<'a>(a: &'a str, b: &'a str) -> Vec<(Change, &'a str)> {
    let a: Vec<&str> = a.lines().collect();
    let b: Vec<&str> = b.lines().collect();
    // Trim the common prefix and suffix first: schedule steps change little.
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (am, bm) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let (n, m) = (am.len(), bm.len());
    // lcs[i][j] = LCS length of am[i..] and bm[j..].
    let mut lcs = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[at(i, j)] = if am[i] == bm[j] {
                lcs[at(i + 1, j + 1)] + 1
            } else {
                lcs[at(i + 1, j)].max(lcs[at(i, j + 1)])
            };
        }
    }
    let mut out: Vec<(Change, &str)> = a[..prefix].iter().map(|l| (Change::Same, *l)).collect();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && am[i] == bm[j] {
            out.push((Change::Same, am[i]));
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[at(i, j + 1)] >= lcs[at(i + 1, j)]) {
            out.push((Change::Added, bm[j]));
            j += 1;
        } else {
            out.push((Change::Removed, am[i]));
            i += 1;
        }
    }
    out.extend(a[a.len() - suffix..].iter().map(|l| (Change::Same, *l)));
    out
}

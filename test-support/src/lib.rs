//! Golden files and snapshots for the workspace's tests, with one switch:
//! **`BLESS=1 cargo test`** rewrites every golden file and every
//! `expect![[...]]` snapshot to what the code now produces; review the diff
//! and commit it.
//!
//! - [`assert_golden`] / [`check_golden`]: a file holding the expected text
//!   (printer output, WAT, WGSL, ...). On a mismatch the message shows the
//!   first differing line with a little context, unified-diff style.
//! - [`expect!`]: expect-test's macro, used exactly like it. expect-test
//!   itself reads `UPDATE_EXPECT`; this one sets `UPDATE_EXPECT` when
//!   `BLESS` is set, so one variable blesses both kinds.
//!
//! Only for goldens that record Tessel's own output: files written by
//! Apache TVM, NumPy or CPython (`tools/tvm_oracle/`) are regenerated there,
//! never blessed.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Once;

#[doc(hidden)]
pub use expect_test;
pub use expect_test::Expect;

/// The one variable that re-blesses goldens and snapshots.
pub const BLESS_VAR: &str = "BLESS";

/// Whether this run re-blesses: `BLESS` is set to anything but empty or `0`.
pub fn blessing() -> bool {
    std::env::var_os(BLESS_VAR).is_some_and(|v| !v.is_empty() && v != "0")
}

/// Compares `actual` with the golden file at `path`. When [`blessing`],
/// writes `actual` there instead (creating the folder) and succeeds. The
/// error says what differs and how to accept it.
pub fn check_golden(path: impl AsRef<Path>, actual: &str) -> Result<(), String> {
    let path = path.as_ref();
    if blessing() {
        if std::fs::read_to_string(path).ok().as_deref() != Some(actual) {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            }
            std::fs::write(path, actual).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        return Ok(());
    }
    match std::fs::read_to_string(path) {
        Ok(expected) if expected == actual => Ok(()),
        Ok(expected) => Err(format!(
            "{} differs from the output:\n{}re-run with {BLESS_VAR}=1 to accept the output",
            path.display(),
            first_difference(&expected, actual)
        )),
        Err(e) => Err(format!(
            "{}: {e}; re-run with {BLESS_VAR}=1 to create it",
            path.display()
        )),
    }
}

/// [`check_golden`], panicking on a mismatch.
#[track_caller]
pub fn assert_golden(path: impl AsRef<Path>, actual: &str) {
    if let Err(message) = check_golden(path, actual) {
        panic!("{message}");
    }
}

/// The first differing line of `expected` (`-`) and `actual` (`+`) with up
/// to three lines of context on each side, as a unified-diff hunk. Empty
/// when the texts are equal.
pub fn first_difference(expected: &str, actual: &str) -> String {
    const CONTEXT: usize = 3;
    if expected == actual {
        return String::new();
    }
    let old: Vec<&str> = expected.split_inclusive('\n').collect();
    let new: Vec<&str> = actual.split_inclusive('\n').collect();
    let first = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    // Lines equal at the end (after the first difference) are context.
    let same_tail = old[first..]
        .iter()
        .rev()
        .zip(new[first..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (old_end, new_end) = (old.len() - same_tail, new.len() - same_tail);
    let start = first.saturating_sub(CONTEXT);
    let mut out = format!(
        "@@ -{} +{} @@ (first difference at line {}; - golden, + output)\n",
        start + 1,
        start + 1,
        first + 1
    );
    let line = |out: &mut String, sign: char, text: &str| {
        let (body, newline) = match text.strip_suffix('\n') {
            Some(body) => (body, ""),
            None => (text, "\n\\ no newline at end"),
        };
        let _ = writeln!(out, "{sign}{body}{newline}");
    };
    for text in &old[start..first] {
        line(&mut out, ' ', text);
    }
    const SHOWN: usize = 12;
    for text in old[first..old_end].iter().take(SHOWN) {
        line(&mut out, '-', text);
    }
    if old_end - first > SHOWN {
        let _ = writeln!(out, "-... ({} more lines)", old_end - first - SHOWN);
    }
    for text in new[first..new_end].iter().take(SHOWN) {
        line(&mut out, '+', text);
    }
    if new_end - first > SHOWN {
        let _ = writeln!(out, "+... ({} more lines)", new_end - first - SHOWN);
    }
    for text in old[old_end..].iter().take(CONTEXT) {
        line(&mut out, ' ', text);
    }
    out
}

/// Makes expect-test honour `BLESS`: sets `UPDATE_EXPECT` once, before the
/// first snapshot of the test binary is built, when [`blessing`]. Called by
/// [`expect!`]; std serialises its environment accesses, and expect-test
/// reads the variable through std.
#[doc(hidden)]
pub fn forward_bless_to_expect_test() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if blessing() {
            std::env::set_var("UPDATE_EXPECT", "1");
        }
    });
}

/// expect-test's `expect!`, honouring `BLESS=1`: `expect![[r#"..."#]]`
/// snapshots are rewritten in place on a blessing run. The position
/// expect-test records is this macro's call site, as with its own macro.
#[macro_export]
macro_rules! expect {
    ($($snapshot:tt)*) => {{
        $crate::forward_bless_to_expect_test();
        $crate::expect_test::expect!($($snapshot)*)
    }};
}

#[cfg(test)]
mod tests {
    use super::first_difference;

    #[test]
    fn equal_texts_have_no_difference() {
        assert_eq!(first_difference("a\nb\n", "a\nb\n"), "");
    }

    #[test]
    fn shows_the_first_changed_lines_with_context() {
        let old = "1\n2\n3\n4\n5\n6\n7\n";
        let new = "1\n2\n3\n4\nfive\n6\n7\n";
        assert_eq!(
            first_difference(old, new),
            "@@ -2 +2 @@ (first difference at line 5; - golden, + output)\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n"
        );
    }

    #[test]
    fn marks_a_missing_final_newline_and_extra_lines() {
        assert_eq!(
            first_difference("a\nb\n", "a\nb"),
            "@@ -1 +1 @@ (first difference at line 2; - golden, + output)\n a\n-b\n+b\n\\ no newline at end\n"
        );
        assert_eq!(
            first_difference("a\n", "a\nb\n"),
            "@@ -1 +1 @@ (first difference at line 2; - golden, + output)\n a\n+b\n"
        );
    }
}

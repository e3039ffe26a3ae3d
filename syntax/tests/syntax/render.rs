//! `diag`: spans, `LineIndex` and the rustc-style renderer, including the
//! edge cases the renderer must survive (spans past the end, inside UTF-8
//! sequences, reversed, on empty input).

use tessel_syntax::diag::{render, Diagnostic, LineIndex, Severity, Span};
use tessel_test_support::expect;

#[test]
fn span_helpers() {
    let a = Span::new(3, 7);
    let b = Span::new(10, 5);
    assert_eq!(b, Span { start: 5, end: 10 });
    assert_eq!(a.join(b), Span { start: 3, end: 10 });
    assert_eq!(a.len(), 4);
    assert!(Span::empty(4).is_empty());
    assert_eq!(Span::from_range(2..usize::MAX).end, u32::MAX);
    assert_eq!(a.slice("0123456789"), "3456");
    assert_eq!(Span::new(2, 50).slice("short"), "");
    assert_eq!(Span::new(0, 1).slice("é"), "");
}

#[test]
fn line_index() {
    let src = "ab\ncdé\r\nf\rg";
    let index = LineIndex::new(src);
    assert_eq!(index.line_count(), 4);
    assert_eq!(index.line_col(0), (1, 1));
    assert_eq!(index.line_col(2), (1, 3));
    assert_eq!(index.line_col(3), (2, 1));
    // `é` is two bytes but one column.
    assert_eq!(index.line_col(7), (2, 4));
    // Inside `é`: clamped back to its start.
    assert_eq!(index.line_col(6), (2, 3));
    assert_eq!(index.line_text(2), "cdé");
    assert_eq!(index.line_text(3), "f");
    assert_eq!(index.line_text(4), "g");
    assert_eq!(index.line_text(9), "");
    // Past the end: clamped to the end.
    assert_eq!(index.line_col(1000), (4, 2));
    // UTF-16 columns count the emoji as two units.
    let index = LineIndex::new("😀x");
    assert_eq!(index.line_col(4), (1, 2));
    assert_eq!(index.line_col_utf16(4), (1, 3));
}

#[test]
fn render_with_labels_notes_and_tabs() {
    let src = "def f():\n\tx = compute(a,\n\t            b)\n\treturn y\n";
    let d = Diagnostic::error("name `y` is not defined", Span::new(49, 50))
        .with_label(Span::new(49, 50), "not found in this scope")
        .with_label(Span::new(10, 11), "did you mean `x`?")
        .with_note("names are resolved when the function is built")
        .with_note("a second note");
    expect![[r#"
        error: name `y` is not defined
         --> model.py:4:9
          |
        2 |     x = compute(a,
          |     - did you mean `x`?
        3 |                 b)
        4 |     return y
          |            ^ not found in this scope
          |
          = note: names are resolved when the function is built
          = note: a second note
    "#]]
    .assert_eq(&render(&d, src, "model.py"));
}

#[test]
fn render_severities_and_multiline_spans() {
    let src = "x = [\n    1,\n]\n";
    let d = Diagnostic::warning("list spans lines", Span::new(4, 14));
    expect![[r#"
        warning: list spans lines
         --> a.py:1:5
          |
        1 | x = [
          |     ^
    "#]]
    .assert_eq(&render(&d, src, "a.py"));
    let d = Diagnostic::new(Severity::Note, "just so you know", Span::new(0, 1));
    assert!(render(&d, src, "a.py").starts_with("note: just so you know\n"));
    assert_eq!(d.to_string(), "just so you know");
}

#[test]
fn render_clamps_bad_spans() {
    // Past the end of the source.
    let d = Diagnostic::error("past the end", Span::new(100, 200))
        .with_label(Span::new(300, 301), "far");
    expect![[r#"
        error: past the end
         --> x.py:2:4
          |
        2 | def
          |    ^
          |    - far
    "#]]
    .assert_eq(&render(&d, "abc\ndef", "x.py"));
    // Inside a multi-byte character, and reversed.
    let d = Diagnostic::error("odd span", Span { start: 6, end: 2 });
    expect![[r#"
        error: odd span
         --> x.py:1:2
          |
        1 | aéé b
          |  ^^^
    "#]]
    .assert_eq(&render(&d, "aéé b", "x.py"));
    // Empty source.
    let d = Diagnostic::error("empty", Span::new(5, 9));
    expect![[r#"
        error: empty
         --> x.py:1:1
          |
        1 |
          | ^
    "#]]
    .assert_eq(&render(&d, "", "x.py"));
}

#[test]
fn render_wide_line_numbers() {
    let src = "x\n".repeat(120);
    let d = Diagnostic::error("deep in the file", Span::new(230, 231))
        .with_label(Span::new(0, 1), "first line");
    expect![[r#"
        error: deep in the file
           --> big.py:116:1
            |
          1 | x
            | - first line
        ...
        116 | x
            | ^
    "#]]
    .assert_eq(&render(&d, &src, "big.py"));
}

#[test]
fn diagnostic_is_an_error() {
    fn takes_error(_: &dyn std::error::Error) {}
    let d = Diagnostic::error("boom", Span::default());
    takes_error(&d);
    assert!(d.is_error());
    assert_eq!(format!("{d}"), "boom");
}

//! The parser runs in the browser on whatever is in the editor: it must
//! never panic and never overflow the stack. These tests feed it random
//! text, mutated programs and pathological nesting.
//!
//! `PROPTEST_CASES` overrides the number of cases (default 2000).

use proptest::prelude::*;
use tessel_syntax::diag::{render, LineIndex};
use tessel_syntax::dump::{dump_expr, dump_module};
use tessel_syntax::{parse_expr, parse_module};

/// Valid programs that the mutation strategy starts from.
const CORPUS: &[&str] = &[
    r#"@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def mm_relu(A: T.Buffer((128, 128), "float32"),
                B: T.Buffer((128, 128), "float32"),
                C: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "mm_relu", "tir.noalias": True})
        Y = T.alloc_buffer((128, 128), dtype="float32")
        for i, j, k in T.grid(128, 128, 128):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
"#,
    r#"import numpy as np
%pip install tvm
def f(a, /, b=1, *args, c, **kw) -> int:
    """doc"""
    x = [i ** 2 for i in range(10) if i % 2]
    y = {k: v for k, v in zip(a, b)}
    s = f"{x!r:>{w}} {y=} {{lit}}"
    t = a[1:, ::2], b[..., None]
    lambda *i: (yield i)
    try:
        pass
    except (A, B) as e:
        raise C from e
    finally:
        del x
    while (n := g()) is not None:
        global q
    return a if b else -c ** ~d
"#,
    "x = 1\nif x:\n\ty = 'a' 'b', rb'\\x00', 0x_ff, 1e-5, .5, 1.\nelse: pass\n",
];

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000)
}

/// Parses `src` both ways and checks the results are usable: errors have
/// in-bounds spans and render; successful parses dump.
fn check_no_panic(src: &str) {
    for result in [
        parse_module(src).map(|m| dump_module(&m)),
        parse_expr(src).map(|e| dump_expr(&e)),
    ] {
        match result {
            Ok(dump) => drop(dump),
            Err(e) => {
                let (start, end) = (e.span.start as usize, e.span.end as usize);
                assert!(
                    start <= end && end <= src.len(),
                    "span {:?} for {src:?}",
                    e.span
                );
                assert!(
                    src.is_char_boundary(start) && src.is_char_boundary(end),
                    "span {:?} not on char boundaries for {src:?}",
                    e.span
                );
                let text = render(&e, src, "fuzz.py");
                assert!(text.starts_with("error: "));
            }
        }
    }
}

/// Pieces that make random text look more like Python.
const PIECES: &[&str] = &[
    "(", ")", "[", "]", "{", "}", ":", ",", ".", ";", "=", "==", "->", ":=", "**", "*", "@", "+",
    "-", "~", "<", ">=", "!=", "//", "%", "|", "&", "^", "<<", "\n", "\n    ", "\n\t", "\r\n", " ",
    "\\\n", "#c", "'", "\"", "'''", "\"\"\"", "f'", "f\"", "rb'", "{x}", "{{", "}}", "!r", "x",
    "T.Buffer", "1", "0x1f", "1.5e-3", "1_0", "j", "if ", "else ", "elif ", "for ", "in ", "not ",
    "and ", "or ", "is ", "lambda ", "def ", "class ", "return ", "with ", "as ", "try:",
    "except ", "finally:", "yield ", "from ", "import ", "del ", "global ", "pass", "%pip", "!ls",
    "...", "é", "😀", "\u{201c}", "\0",
];

fn token_soup() -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(PIECES), 0..120).prop_map(|v| v.concat())
}

#[derive(Clone, Debug)]
enum Mutation {
    Delete(usize, usize),
    Insert(usize, &'static str),
    InsertChar(usize, char),
    Duplicate(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1usize..12).prop_map(|(p, n)| Mutation::Delete(p, n)),
        (any::<usize>(), proptest::sample::select(PIECES))
            .prop_map(|(p, s)| Mutation::Insert(p, s)),
        (any::<usize>(), any::<char>()).prop_map(|(p, c)| Mutation::InsertChar(p, c)),
        (any::<usize>(), 1usize..40).prop_map(|(p, n)| Mutation::Duplicate(p, n)),
    ]
}

/// The largest char boundary not after `i`.
fn floor_boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(src: &str, mutations: &[Mutation]) -> String {
    let mut s = src.to_string();
    for m in mutations {
        let len = s.len().max(1);
        match *m {
            Mutation::Delete(p, n) => {
                let a = floor_boundary(&s, p % len);
                let b = floor_boundary(&s, a + n);
                s.replace_range(a..b, "");
            }
            Mutation::Insert(p, text) => {
                let a = floor_boundary(&s, p % len);
                s.insert_str(a, text);
            }
            Mutation::InsertChar(p, c) => {
                let a = floor_boundary(&s, p % len);
                s.insert(a, c);
            }
            Mutation::Duplicate(p, n) => {
                let a = floor_boundary(&s, p % len);
                let b = floor_boundary(&s, a + n);
                let piece = s[a..b].to_string();
                s.insert_str(b, &piece);
            }
        }
    }
    s
}

fn mutated_program() -> impl Strategy<Value = String> {
    (
        proptest::sample::select(CORPUS),
        proptest::collection::vec(mutation(), 1..8),
    )
        .prop_map(|(src, muts)| apply(src, &muts))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn random_strings_never_panic(src in any::<String>()) {
        check_no_panic(&src);
    }

    #[test]
    fn token_soup_never_panics(src in token_soup()) {
        check_no_panic(&src);
    }

    #[test]
    fn mutated_programs_never_panic(src in mutated_program()) {
        check_no_panic(&src);
    }

    #[test]
    fn render_never_panics_on_bad_spans(
        src in token_soup(),
        start in any::<u32>(),
        len in 0u32..50,
        label_at in any::<u32>(),
    ) {
        use tessel_syntax::diag::{Diagnostic, Span};
        let d = Diagnostic::error("m", Span { start, end: start.saturating_add(len) })
            .with_label(Span { start: label_at, end: label_at / 2 }, "l")
            .with_note("n");
        let _ = render(&d, &src, "x.py");
        let index = LineIndex::new(&src);
        let _ = index.line_col(start);
        let _ = index.line_col_utf16(start);
        let _ = index.line_text(start as usize);
    }
}

#[test]
fn corpus_parses() {
    for src in CORPUS {
        if let Err(e) = parse_module(src) {
            panic!("{}", render(&e, src, "corpus.py"));
        }
    }
}

/// Runs `f` on a thread with a 1 MiB stack, the default for wasm32. Debug
/// builds use several times more stack per frame than release builds, so
/// passing here in a debug test run leaves a wide margin in the browser.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("parser thread panicked");
}

fn deep_inputs(n: usize) -> Vec<String> {
    let blocks = (0..n.min(99))
        .map(|i| format!("{}if x:\n", " ".repeat(i)))
        .collect::<String>()
        + &" ".repeat(n.min(99))
        + "pass\n";
    vec![
        format!("x = {}1{}", "(".repeat(n), ")".repeat(n)),
        format!("x = {}1{}", "[".repeat(n), "]".repeat(n)),
        format!("x = {}1{}", "{".repeat(n), "}".repeat(n)),
        format!("x = {}1{}", "f(".repeat(n), ")".repeat(n)),
        format!("x = {}1{}", "a[".repeat(n), "]".repeat(n)),
        format!("x = {}1{}", "-(".repeat(n / 2), ")".repeat(n / 2)),
        format!("x = {}1", "-".repeat(n)),
        format!("x = {}1", "not ".repeat(n)),
        format!("x = {}1", "lambda: ".repeat(n)),
        format!("x = {}1", "1 if 2 else ".repeat(n)),
        format!("x = {}1", "2**".repeat(n)),
        format!("x = f'{{{}1{}}}'", "(".repeat(n), ")".repeat(n)),
        format!("x = {}1", "1 + ".repeat(n * 5)),
        format!("x = a{}", ".b".repeat(n * 5)),
        format!("x = a{}", "()".repeat(n * 5)),
        format!("if a: pass\n{}", "elif b: pass\n".repeat(n * 5)),
    ]
    .into_iter()
    .chain((n < 100).then_some(blocks))
    .collect()
}

#[test]
fn nesting_at_the_limit_fits_a_small_stack() {
    on_small_stack(|| {
        for src in deep_inputs(98) {
            check_no_panic(&src);
        }
    });
}

#[test]
fn excessive_nesting_is_an_error_not_a_crash() {
    on_small_stack(|| {
        for src in deep_inputs(20_000) {
            let e = parse_module(&src).expect_err("should be too deep");
            let _ = render(&e, &src, "deep.py");
        }
        // The parser's limit (100) is reached before the lexer's (200).
        let e = parse_module(&"(".repeat(100_000)).unwrap_err();
        assert_eq!(e.message, "code is nested too deeply");
        let e = parse_expr(&"[".repeat(100_000)).unwrap_err();
        assert_eq!(e.message, "code is nested too deeply");
        let e = parse_module(&"-".repeat(100_000)).unwrap_err();
        assert_eq!(e.message, "code is nested too deeply");
        let deep_blocks: String = (0..150)
            .map(|i| format!("{}if x:\n", " ".repeat(i)))
            .collect();
        let e = parse_module(&deep_blocks).unwrap_err();
        assert_eq!(e.message, "too many levels of indentation");
    });
}

/// A large, realistic file: the parser must be linear. (No timing
/// assertion; `cargo test --release -- --nocapture large_file` prints it.)
#[test]
fn large_file() {
    let mut src = String::new();
    while src.lines().count() < 5000 {
        for s in CORPUS {
            src.push_str(s);
            src.push('\n');
        }
    }
    let start = std::time::Instant::now();
    let module = parse_module(&src).expect("parses");
    let elapsed = start.elapsed();
    println!(
        "parsed {} lines ({} bytes, {} statements) in {elapsed:?}",
        src.lines().count(),
        src.len(),
        module.body.len()
    );
}

//! Where a structural mismatch is in each side's printed TVMScript: the
//! comparer's anchors, found by the printer, name the lines a reader sees.

use std::rc::Rc;

use compiler_core::analysis::structural_equal::{assert_structural_equal, EqualOptions};
use compiler_core::ir::{BaseFunc, IRModule, PrimFunc};
use compiler_core::tvmscript::builder::parse_script;
use compiler_core::tvmscript::printer::{print_module_located, Dialect, PrintOptions, TextRange};

fn prim(src: &str) -> Rc<PrimFunc> {
    let module = parse_script(src)
        .unwrap_or_else(|e| panic!("parse error: {} at {:?}", e.message, e.span))
        .to_module();
    let (_, f) = module.prim_funcs().next().expect("a prim_func");
    f.clone()
}

/// One side of a located mismatch: its printed text and highlighted range.
struct Side {
    text: String,
    range: TextRange,
}

impl Side {
    /// The highlighted lines, trimmed.
    fn lines(&self) -> Vec<&str> {
        self.text
            .lines()
            .skip(self.range.first_line - 1)
            .take(self.range.last_line + 1 - self.range.first_line)
            .map(str::trim)
            .collect()
    }
}

/// Compares `yours` with `target` and locates the mismatch in both.
fn locate(yours: &str, target: &str) -> (String, Side, Side) {
    let (a, b) = (prim(yours), prim(target));
    let options = EqualOptions {
        ignore_global_symbol: true,
        ..EqualOptions::default()
    };
    let m = assert_structural_equal(&*a, &*b, options).expect_err("they differ");
    let (at_a, at_b) = *m.at.clone().expect("a function mismatch is located");
    let side = |f: &Rc<PrimFunc>, anchor| {
        let mut module = IRModule::new();
        module.insert("main".to_string(), BaseFunc::Prim(f.clone()));
        let located = print_module_located(&module, &PrintOptions::new(Dialect::Block), &[anchor]);
        let range = located.ranges[0].expect("the anchor is printed");
        Side {
            text: located.text,
            range,
        }
    };
    (m.message.clone(), side(&a, at_a), side(&b, at_b))
}

const MM: &str = r#"
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
"#;

#[test]
fn block_iterator_kind_highlights_the_iterator_lines() {
    // `vk` spatial instead of reduce: both sides print the iterators in one
    // `T.axis.remap` line, which is the highlighted one.
    let yours = MM.replace("\"SSR\"", "\"SSS\"");
    let (message, a, b) = locate(&yours, MM);
    assert!(message.contains("block iterator kinds differ"), "{message}");
    assert_eq!(
        (a.range.first_line, a.range.last_line),
        (12, 12),
        "{}",
        a.text
    );
    assert_eq!(
        (b.range.first_line, b.range.last_line),
        (12, 12),
        "{}",
        b.text
    );
    assert_eq!(a.lines(), ["vi, vj, vk = T.axis.remap(\"SSS\", [i, j, k])"]);
    assert_eq!(b.lines(), ["vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])"]);
}

#[test]
fn loop_extent_highlights_the_loop_header() {
    let split = r#"
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i0 in range(4):
        for i1 in T.parallel(4):
            with T.block("B"):
                vi = T.axis.spatial(16, i0 * 4 + i1)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] * T.float32(2)
"#;
    let yours = split
        .replace("range(4)", "range(2)")
        .replace("T.parallel(4)", "T.parallel(8)")
        .replace("i0 * 4 + i1", "i0 * 8 + i1");
    let (message, a, b) = locate(&yours, split);
    assert!(message.contains("values differ"), "{message}");
    // The outer loop's extent is the first difference.
    assert_eq!(a.range.first_line, 10, "{}", a.text);
    assert_eq!(b.range.first_line, 10, "{}", b.text);
    assert_eq!(a.lines(), ["for i0 in range(2):"]);
    assert_eq!(b.lines(), ["for i0 in range(4):"]);
}

#[test]
fn folded_loop_extent_highlights_the_grid_line() {
    let yours = MM.replace("T.grid(16, 16, 16)", "T.grid(16, 8, 16)");
    let (_, a, b) = locate(&yours, MM);
    assert_eq!(a.range.first_line, 10);
    assert_eq!(a.lines(), ["for i, j, k in T.grid(16, 8, 16):"]);
    assert_eq!(b.lines(), ["for i, j, k in T.grid(16, 16, 16):"]);
}

#[test]
fn buffer_shape_highlights_the_parameter_columns() {
    let yours = MM.replacen(
        "B: T.Buffer((16, 16), \"float32\")",
        "B: T.Buffer((16, 32), \"float32\")",
        1,
    );
    let (message, a, b) = locate(&yours, MM);
    assert!(message.contains("values differ"), "{message}");
    assert_eq!((a.range.first_line, a.range.last_line), (7, 7));
    assert_eq!((b.range.first_line, b.range.last_line), (7, 7));
    let param = |s: &Side| {
        let line = s.text.lines().nth(s.range.first_line - 1).unwrap();
        let (from, to) = s.range.columns.expect("a parameter has columns");
        line.chars().skip(from).take(to - from).collect::<String>()
    };
    assert_eq!(param(&a), "B: T.Buffer((16, 32), \"float32\")");
    assert_eq!(param(&b), "B: T.Buffer((16, 16), \"float32\")");
}

#[test]
fn allocated_buffer_shape_highlights_its_allocation() {
    let target = r#"
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    Y = T.alloc_buffer((16,))
    for i in range(16):
        with T.block("Y"):
            vi = T.axis.spatial(16, i)
            T.reads(A[vi])
            T.writes(Y[vi])
            Y[vi] = A[vi]
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            T.reads(Y[vi])
            T.writes(B[vi])
            B[vi] = Y[vi]
"#;
    let yours = target.replace("T.alloc_buffer((16,))", "T.alloc_buffer((32,))");
    let (_, a, b) = locate(&yours, target);
    assert_eq!(a.range.first_line, 10, "{}", a.text);
    assert_eq!(a.lines(), ["Y = T.alloc_buffer((32,))"]);
    assert_eq!(b.lines(), ["Y = T.alloc_buffer((16,))"]);
}

#[test]
fn a_missing_statement_highlights_the_extra_one() {
    let two = r#"
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i in range(16):
        with T.block("A"):
            vi = T.axis.spatial(16, i)
            T.reads()
            T.writes(A[vi])
            A[vi] = T.float32(1)
    for j in range(8):
        with T.block("A2"):
            vj = T.axis.spatial(8, j)
            T.reads()
            T.writes(A[vj])
            A[vj] = T.float32(2)
"#;
    let three = two.to_string()
        + r#"    for k in range(4):
        with T.block("A3"):
            vk = T.axis.spatial(4, k)
            T.reads()
            T.writes(A[vk])
            A[vk] = T.float32(3)
"#;
    let (message, a, b) = locate(two, &three);
    assert!(
        message.contains("different number of statements"),
        "{message}"
    );
    // Yours has no third loop: its last statement is pointed at.
    assert_eq!(a.lines(), ["for j in range(8):"]);
    assert_eq!(b.range.first_line, 22, "{}", b.text);
    assert_eq!(b.lines(), ["for k in range(4):"]);
}

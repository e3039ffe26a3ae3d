//! Golden files for the TVMScript round trip.
//!
//! For every program in `tests/data/seeds/` (every TVMScript module of the
//! course material): the canonical printing equals the committed golden in
//! `tests/data/seeds_fmt/`, printing is a fixpoint, and parsing the printed
//! text gives a structurally equal module. `BLESS=1 cargo test` rewrites the
//! goldens after a reviewed change (`tessel_test_support::check_golden`).

use std::path::{Path, PathBuf};

use compiler_core::analysis::structural_equal::structural_equal;
use compiler_core::tvmscript::builder::{parse_script, Item, ParsedScript};
use compiler_core::tvmscript::printer::{
    print_graph_func, print_module, print_prim_func, Dialect, PrintOptions,
};
use tessel_test_support::check_golden;

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn format(parsed: &ParsedScript) -> String {
    let opts = PrintOptions::new(Dialect::from(parsed.dialect));
    let mut out = String::new();
    for (i, item) in parsed.items.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        match item {
            Item::Module { module, .. } => out.push_str(&print_module(module, &opts)),
            Item::PrimFunc { name, func } => out.push_str(&print_prim_func(func, name, &opts)),
            Item::GraphFunc { name, func } => out.push_str(&print_graph_func(func, name, &opts)),
        }
    }
    out
}

#[test]
fn seeds_format_to_goldens_and_round_trip() {
    let golden_dir = data_dir().join("seeds_fmt");
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(data_dir().join("seeds"))
        .expect("seeds dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    inputs.sort();
    assert!(
        inputs.len() >= 25,
        "expected the course's TVMScript programs, found {}",
        inputs.len()
    );
    let mut failures = Vec::new();
    for input in &inputs {
        let name = input.file_name().expect("file name");
        let src = std::fs::read_to_string(input).expect("read seed");
        let parsed = match parse_script(&src) {
            Ok(p) => p,
            Err(d) => {
                failures.push(format!(
                    "{}: does not parse: {}",
                    name.to_string_lossy(),
                    d.message
                ));
                continue;
            }
        };
        let printed = format(&parsed);
        if let Err(message) = check_golden(golden_dir.join(name), &printed) {
            failures.push(message);
        }
        // Fixpoint and structural equality of the re-parse.
        let reparsed = match parse_script(&printed) {
            Ok(p) => p,
            Err(d) => {
                failures.push(format!(
                    "{}: printed form does not parse: {}",
                    name.to_string_lossy(),
                    d.message
                ));
                continue;
            }
        };
        if format(&reparsed) != printed {
            failures.push(format!(
                "{}: printing is not a fixpoint",
                name.to_string_lossy()
            ));
        }
        if let Err(m) = structural_equal(&parsed.to_module(), &reparsed.to_module()) {
            failures.push(format!("{}: re-parse differs: {m}", name.to_string_lossy()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} seeds failed:\n{}",
        failures.len(),
        inputs.len(),
        failures.join("\n")
    );
}

/// `T.type_annotation` takes its dtype by position or by keyword (TVM's
/// tests write `T.type_annotation(dtype="float16")`); both read the same.
#[test]
fn type_annotation_dtype_by_keyword() {
    let program = |annotation: &str| {
        format!(
            r#"from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((16,), "float16")):
    T.evaluate(T.call_extern("int32", "fill", T.tvm_access_ptr({annotation}, A.data, 0, 16, 2)))
"#
        )
    };
    let by_position = parse_script(&program("T.type_annotation(\"float16\")")).expect("parses");
    let by_keyword =
        parse_script(&program("T.type_annotation(dtype=\"float16\")")).expect("parses");
    assert_eq!(format(&by_keyword), format(&by_position));
    assert!(format(&by_keyword).contains("T.type_annotation(\"float16\")"));
    assert_eq!(
        structural_equal(&by_keyword.to_module(), &by_position.to_module()),
        Ok(())
    );
    let twice = parse_script(&program(
        "T.type_annotation(\"float16\", dtype=\"float16\")",
    ));
    assert!(twice.is_err());
}

/// Tensor-core fragment calls (`T.tvm_fill_fragment`, `T.tvm_load_matrix_sync`,
/// …) are opaque handle-typed calls: they print as TVM 0.27 prints them
/// (no `dtype=`), read back to the same function, and a wrong arity or
/// result dtype is refused.
#[test]
fn tensor_core_fragment_calls() {
    let program = |fill: &str| {
        format!(
            r#"from tvm.script import tir as T
@T.prim_func
def main(a: T.handle, b: T.handle):
    A = T.match_buffer(a, (16, 16), "float16", offset_factor=1)
    B = T.match_buffer(b, (16, 16), "float16", scope="wmma.matrix_a", offset_factor=1)
    for i, j in T.grid(1, 1):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[0:16, 0:16])
            T.writes(B[0:16, 0:16])
            T.evaluate({fill})
            T.evaluate(T.tvm_load_matrix_sync(B.data, 16, 16, 16, vi // 16, T.tvm_access_ptr(T.type_annotation(dtype="float16"), A.data, vi * 16, 256, 1, dtype="handle"), 16, "row_major", dtype="handle"))
"#
        )
    };
    let parsed = parse_script(&program(
        "T.tvm_fill_fragment(B.data, 16, 16, 16, 0, vi * 16 + vj, dtype=\"handle\")",
    ))
    .expect("parses");
    let printed = format(&parsed);
    // TVM 0.27's printing of the same two calls.
    assert!(
        printed.contains("T.tvm_fill_fragment(B.data, 16, 16, 16, 0, vi * 16 + vj)\n"),
        "{printed}"
    );
    assert!(
        printed.contains("T.tvm_load_matrix_sync(B.data, 16, 16, 16, vi // 16, T.tvm_access_ptr(T.type_annotation(\"float16\"), A.data, vi * 16, 256, 1), 16, \"row_major\")"),
        "{printed}"
    );
    let reparsed = parse_script(&printed).expect("the printing parses");
    assert_eq!(format(&reparsed), printed);
    assert_eq!(
        structural_equal(&parsed.to_module(), &reparsed.to_module()),
        Ok(())
    );
    let short = parse_script(&program("T.tvm_fill_fragment(B.data, 16, 16, 16, 0)"))
        .expect_err("five arguments are too few");
    assert!(
        short.message.contains("takes 6 argument(s), got 5"),
        "{}",
        short.message
    );
    let typed = parse_script(&program(
        "T.tvm_fill_fragment(B.data, 16, 16, 16, 0, 0, dtype=\"float32\")",
    ))
    .expect_err("the call returns a handle");
    assert!(
        typed.message.contains("returns a handle"),
        "{}",
        typed.message
    );
}

/// `T.call_extern(..., dtype="")` is an external call made for its effect:
/// its dtype is void, printed as TVM 0.27 prints it (`"void"` first), and
/// the printing reads back to the same function.
#[test]
fn call_extern_with_empty_dtype_is_void() {
    let src = r#"from tvm.script import tir as T
@T.prim_func
def main(data_io: T.Buffer((64,), "int32")):
    for i0 in range(1):
        with T.block("ext_call"):
            T.reads(data_io[0:64])
            T.writes(data_io[0:64])
            T.evaluate(T.call_extern("call_impl", data_io.data, dtype=""))
"#;
    let parsed = parse_script(src).expect("parses");
    let printed = format(&parsed);
    assert!(
        printed.contains("T.call_extern(\"void\", \"call_impl\", data_io.data)"),
        "{printed}"
    );
    let reparsed = parse_script(&printed).expect("the printing parses");
    assert_eq!(format(&reparsed), printed);
    assert_eq!(
        structural_equal(&parsed.to_module(), &reparsed.to_module()),
        Ok(())
    );
}

/// `T.q_multiply_shift` and `T.q_multiply_shift_per_axis` are opaque int32
/// calls whatever `dtype=` says (as in TVM 0.27); a wrong arity is refused.
#[test]
fn fixed_point_multiply_calls() {
    let program = |call: &str| {
        format!(
            r#"from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((16,), "int32"), S: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = {call}
"#
        )
    };
    let parsed = parse_script(&program(
        "T.q_multiply_shift(T.q_multiply_shift_per_axis(A[vi], S[vi], 1, 2, 31, False, True), 1457846997, 31, 0, dtype=\"int8\")",
    ))
    .expect("parses");
    let printed = format(&parsed);
    assert!(
        printed.contains("T.q_multiply_shift(T.q_multiply_shift_per_axis(A[vi], S[vi], 1, 2, 31, T.bool(False), T.bool(True)), 1457846997, 31, 0)"),
        "{printed}"
    );
    let reparsed = parse_script(&printed).expect("the printing parses");
    assert_eq!(
        structural_equal(&parsed.to_module(), &reparsed.to_module()),
        Ok(())
    );
    assert!(parse_script(&program("T.q_multiply_shift(A[vi], 3, 31)")).is_err());
}

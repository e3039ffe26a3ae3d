//! Shape and dtype inference of graph operators: what each operator deduces
//! (the results TVM 0.27 deduces for the same calls, see
//! `tools/tvm_oracle/README.md`), and the errors for mismatches, reported at
//! the offending statement. Plus robustness: no input makes the graph
//! builder, printer or VM panic.

use compiler_core::diag::render;
use compiler_core::graph::vm::{self, PackedRegistry};
use compiler_core::tvmscript::builder::parse_script;
use compiler_core::tvmscript::builder::print_item;
use compiler_core::tvmscript::printer::{Dialect, PrintOptions};

const SIG: &str = r#"from tvm.script import tir as T
from tvm.script import relax as R

@R.function
def f(x: R.Tensor((2, 3), "float32"), y: R.Tensor((4, 5), "float32"), i: R.Tensor((2, 3), "int32"),
      v: R.Tensor((3,), "float32"), b: R.Tensor((7, 2, 3), "float32"), d: R.Tensor(("n", 3), "float32"),
      u: R.Tensor(ndim=2, dtype="float32"), w: R.Tensor((4, 3, 3, 3), "float32"),
      img: R.Tensor((1, 3, 8, 8), "float32")):
    n = T.int64()
    r = EXPR
    return r
"#;

fn program(expr: &str) -> String {
    SIG.replace("EXPR", expr)
}

/// The printed annotation of `r` (TVM 0.27 dialect).
fn deduced(expr: &str) -> Result<String, String> {
    let src = program(expr);
    let parsed = parse_script(&src).map_err(|d| d.message.clone())?;
    let text = print_item(&parsed.items[0], &PrintOptions::new(Dialect::Tirx));
    let line = text
        .lines()
        .rev()
        .find(|l| l.trim_start().starts_with("r: ") || l.trim_start().starts_with("r = "))
        .ok_or("no binding of r")?;
    let ann = line
        .trim_start()
        .strip_prefix("r: ")
        .and_then(|l| l.split(" = ").next())
        .unwrap_or("");
    Ok(ann.to_string())
}

#[test]
fn operators_deduce_what_tvm_deduces() {
    // (expression, TVM 0.27's deduced struct info, checked with the oracle)
    let cases = [
        ("R.add(x, v)", r#"R.Tensor((2, 3), dtype="float32")"#),
        ("R.add(b, x)", r#"R.Tensor((7, 2, 3), dtype="float32")"#),
        ("R.add(d, x)", r#"R.Tensor(dtype="float32", ndim=2)"#),
        ("R.add(x, u)", r#"R.Tensor(dtype="float32", ndim=2)"#),
        ("R.matmul(x, v)", r#"R.Tensor((2,), dtype="float32")"#),
        ("R.matmul(v, v)", r#"R.Tensor((), dtype="float32")"#),
        (
            "R.matmul(b, R.permute_dims(x))",
            r#"R.Tensor((7, 2, 2), dtype="float32")"#,
        ),
        (
            "R.matmul(d, R.permute_dims(x))",
            r#"R.Tensor((n, 2), dtype="float32")"#,
        ),
        (
            r#"R.matmul(x, R.permute_dims(x), out_dtype="float64")"#,
            r#"R.Tensor((2, 2), dtype="float64")"#,
        ),
        (
            "R.permute_dims(b, axes=[2, 0, 1])",
            r#"R.Tensor((3, 7, 2), dtype="float32")"#,
        ),
        (
            "R.reshape(x, (3, 2))",
            r#"R.Tensor((3, 2), dtype="float32")"#,
        ),
        ("R.reshape(x, (-1,))", r#"R.Tensor((6,), dtype="float32")"#),
        (
            "R.reshape(x, (-1, 2))",
            r#"R.Tensor((3, 2), dtype="float32")"#,
        ),
        (
            "R.reshape(d, (-1,))",
            r#"R.Tensor((n * 3,), dtype="float32")"#,
        ),
        (
            "R.reshape(d, (3, n))",
            r#"R.Tensor((3, n), dtype="float32")"#,
        ),
        (
            "R.sum(b, axis=[0, 2])",
            r#"R.Tensor((2,), dtype="float32")"#,
        ),
        ("R.mean(i, axis=1)", r#"R.Tensor((2,), dtype="int32")"#),
        ("R.mean(x)", r#"R.Tensor((), dtype="float32")"#),
        (
            "R.sum(x, axis=-1, keepdims=True)",
            r#"R.Tensor((2, 1), dtype="float32")"#,
        ),
        (
            "R.nn.conv2d(img, w)",
            r#"R.Tensor((1, 4, 6, 6), dtype="float32")"#,
        ),
        (
            "R.nn.conv2d(img, w, padding=1, strides=2)",
            r#"R.Tensor((1, 4, 4, 4), dtype="float32")"#,
        ),
        ("R.nn.relu(i)", r#"R.Tensor((2, 3), dtype="int32")"#),
        ("R.nn.softmax(x)", r#"R.Tensor((2, 3), dtype="float32")"#),
        (
            "R.ewise_fma(x, x, x)",
            r#"R.Tensor((2, 3), dtype="float32")"#,
        ),
        (
            "R.multiply(x, R.const(2.0))",
            r#"R.Tensor((2, 3), dtype="float32")"#,
        ),
        ("R.add(u, u)", r#"R.Tensor(dtype="float32", ndim=2)"#),
        ("R.linear(x, x)", r#"R.Tensor((2, 2), dtype="float32")"#),
        (
            "R.subtract(i, R.const(1))",
            r#"R.Tensor((2, 3), dtype="int32")"#,
        ),
        (
            "(x, v)",
            r#"R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((3,), dtype="float32"))"#,
        ),
        ("R.shape([2, n])", "R.Shape([2, n])"),
        ("3", r#"R.Tensor((), dtype="int32")"#),
        ("2.5", r#"R.Tensor((), dtype="float32")"#),
    ];
    let mut failures = Vec::new();
    for (expr, want) in cases {
        match deduced(expr) {
            Ok(got) if got == want => {}
            Ok(got) => failures.push(format!("{expr}: deduced {got}, TVM deduces {want}")),
            Err(e) => failures.push(format!("{expr}: error {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn mismatches_are_errors_at_the_statement() {
    // (expression, fragment of the message). TVM 0.27 rejects each of these
    // too, except `R.nn.gelu`, an operator Tessel does not implement, and a
    // Python number as an operator argument, which TVM turns into a scalar
    // `R.prim_value` (Tessel asks for `R.const`).
    let cases = [
        ("R.add(x, y)", "the first input shape at dim 1 is 3 and the second input shape at dim 1 is 5, which are not broadcastable"),
        ("R.add(x, i)", "same datatype for both operands, but R.add gets float32 on the left"),
        ("R.matmul(x, y)", "the reduction dimensions 3 and 4 are not equal"),
        ("R.matmul(x, i)", "same datatype"),
        ("R.permute_dims(b, axes=[0, 1])", "the tensor has 3 dimensions and 2 axes are given"),
        ("R.permute_dims(b, axes=[0, 0, 1])", "multiple given axes referring to axis 0"),
        ("R.reshape(x, (5,))", "the old shape is R.shape([2, 3]), with product 6, while the new shape is R.shape([5]), with product 5"),
        ("R.nn.softmax(x, axis=2)", "the input axis 2 is out of range"),
        ("R.nn.softmax(i)", "float dtype"),
        ("R.sum(b, axis=[3])", "axis should be in range [-3, 3)"),
        ("R.nn.conv2d(x, w)", "layout NCHW requires the input to be a 4-dim tensor"),
        ("R.nn.conv2d(img, w, groups=2)", "the data channel size is 3 while the weight input channel size and number of groups are 3 and 2"),
        ("R.ewise_fma(x, x, v)", "the same number of dimensions"),
        ("R.subtract(i, R.const(2.0))", "same datatype"),
        ("R.nn.gelu(x)", "unknown graph operator `R.nn.gelu`"),
        ("R.add(x)", "is missing the argument `x2`"),
        ("R.sum(x, axes=1)", "unexpected keyword argument `axes`"),
        ("R.call_tir(cls.nothing, (x,), R.Tensor((2, 3), \"float32\"))", "undefined name `cls`"),
        ("R.call_dps_packed(\"f\", (x,), R.Tensor(ndim=2, dtype=\"float32\"))", "must be a tensor of known shape"),
        ("R.reshape(x, R.shape([\"n\"]))", "a string dimension is only allowed"),
        ("q", "undefined name `q`"),
        ("R.add(x, 1.0)", "write constants as `R.const"),
    ];
    let mut failures = Vec::new();
    for (expr, want) in cases {
        let src = program(expr);
        match parse_script(&src) {
            Ok(_) => failures.push(format!("{expr}: accepted")),
            Err(d) => {
                let text = format!("{} {}", d.message, d.notes.join(" "));
                if !text.contains(want) {
                    failures.push(format!("{expr}: {:?} does not contain {want:?}", d.message));
                }
                // The diagnostic points into the `r = ...` line.
                let line_start = src.find("    r = ").expect("line") as u32;
                let line_end = line_start + 8 + expr.len() as u32;
                if d.span.start < line_start || d.span.end > line_end {
                    failures.push(format!(
                        "{expr}: span {:?} is outside the statement\n{}",
                        d.span,
                        render(&d, &src, "f.py")
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn annotations_and_calls_are_checked() {
    let cases: [(&str, &str); 8] = [
        (
            "@R.function\ndef f(x: R.Tensor((2, 3), \"float32\")):\n    y: R.Tensor((3, 2), \"float32\") = R.add(x, x)\n    return y\n",
            "the value does not match the annotation: dimension 0 is 2, not 3",
        ),
        (
            "@R.function\ndef f(x: R.Tensor((2, 3), \"float32\")) -> R.Tensor((2, 3), \"int32\"):\n    return x\n",
            "does not match the return annotation: the dtype is float32, not int32",
        ),
        (
            "@R.function\ndef f(x: R.Tensor((2, 3), \"float32\")):\n    with R.dataflow():\n        y = R.add(x, x)\n        R.output()\n    return y\n",
            "undefined name `y`",
        ),
        (
            "@R.function\ndef f(x: R.Tensor((2, 3), \"float32\")):\n    with R.dataflow():\n        y = R.add(x, x)\n        R.output(z)\n    return y\n",
            "`z` is not bound in this dataflow block",
        ),
        (
            "@R.function\ndef f(x: R.Tensor((2, 3), \"float32\")):\n    y = R.add(x, x)\n",
            "has no `return`",
        ),
        (
            "@R.function\ndef f(x: R.Tensor((2, 3), \"float32\")) -> R.Tensor((\"q\",), \"float32\"):\n    return x\n",
            "symbolic variable `q` in the return annotation is not defined by any parameter",
        ),
        (
            "@R.function\ndef f(x: R.Tensor((2, \"n\"), \"float32\")):\n    y = R.call_dps_packed(\"g\", (x,), R.Tensor((2, n), \"float32\"))\n    return y\n",
            "symbolic variable `n` is not declared in the body",
        ),
        (
            "@R.function\ndef f(x):\n    return x\n",
            "parameter `x` needs a struct info annotation",
        ),
    ];
    for (body, want) in cases {
        let src = format!("from tvm.script import relax as R\n\n{body}");
        match parse_script(&src) {
            Ok(_) => panic!("accepted:\n{src}"),
            Err(d) => assert!(
                d.message.contains(want),
                "{:?} does not contain {want:?}",
                d.message
            ),
        }
    }
}

#[test]
fn call_tir_is_checked_against_the_prim_func() {
    let module = |call: &str| {
        format!(
            r#"from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class M:
    @T.prim_func
    def relu(X: T.Buffer((2, 3), "float32"), Y: T.Buffer((2, 3), "float32")):
        for i, j in T.grid(2, 3):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))

    @R.function
    def main(x: R.Tensor((2, 3), "float32"), z: R.Tensor((3, 3), "float32"), i: R.Tensor((2, 3), "int32")):
        cls = M
        y = {call}
        return y
"#
        )
    };
    let ok = module("R.call_tir(cls.relu, (x,), out_sinfo=R.Tensor((2, 3), \"float32\"))");
    parse_script(&ok).unwrap_or_else(|d| panic!("{}", d.message));
    for (call, want) in [
        (
            "R.call_tir(cls.relu, (x, x), out_sinfo=R.Tensor((2, 3), \"float32\"))",
            "`relu` takes 2 buffers, but this call passes 2 inputs and 1 output",
        ),
        (
            "R.call_tir(cls.relu, (z,), out_sinfo=R.Tensor((2, 3), \"float32\"))",
            "input 1 of `relu` has size 3 in dimension 0, but buffer `X` has 2",
        ),
        (
            "R.call_tir(cls.relu, (i,), out_sinfo=R.Tensor((2, 3), \"float32\"))",
            "input 1 of `relu` is int32, but buffer `X` is float32",
        ),
        (
            "R.call_tir(cls.relu, (x,), out_sinfo=R.Tensor((6,), \"float32\"))",
            "output 1 of `relu` has 1 dimensions, but buffer `Y` has 2",
        ),
        (
            "R.call_tir(cls.main, (x,), out_sinfo=R.Tensor((2, 3), \"float32\"))",
            "`main` is not a PrimFunc of the module",
        ),
        (
            "R.call_tir(cls.nope, (x,), out_sinfo=R.Tensor((2, 3), \"float32\"))",
            "the module has no function `nope`",
        ),
        (
            "cls.relu(x)",
            "`relu` is a PrimFunc: call it with `R.call_tir",
        ),
    ] {
        match parse_script(&module(call)) {
            Ok(_) => panic!("accepted: {call}"),
            Err(d) => assert!(
                d.message.contains(want),
                "{call}: {:?} does not contain {want:?}",
                d.message
            ),
        }
    }
}

/// Every prefix and every one-line deletion of every graph test module
/// parses or fails with a diagnostic; whatever parses also prints and runs
/// (on zero inputs, or fails cleanly) without panicking.
#[test]
fn mutated_graph_modules_never_panic() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/graph");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    let env = PackedRegistry::with_course_env();
    for path in files {
        let src = std::fs::read_to_string(&path).expect("read");
        let lines: Vec<&str> = src.lines().collect();
        let mut variants: Vec<String> = Vec::new();
        for i in 0..lines.len() {
            let mut v = lines.clone();
            v.remove(i);
            variants.push(v.join("\n"));
        }
        for cut in (0..src.len()).step_by(97) {
            if src.is_char_boundary(cut) {
                variants.push(src[..cut].to_string());
            }
        }
        for text in variants {
            let Ok(parsed) = parse_script(&text) else {
                continue;
            };
            for item in &parsed.items {
                let _ = print_item(item, &PrintOptions::new(Dialect::Block));
            }
            let module = parsed.to_module();
            for (name, f) in module.graph_funcs() {
                // Small zero arrays of the annotated rank where the shape is unknown.
                let args: Vec<_> = f
                    .params
                    .iter()
                    .map(|p| {
                        let t = p.sinfo().as_tensor();
                        let shape: Vec<usize> = t
                            .and_then(|t| t.static_shape())
                            .map(|s| s.iter().map(|&d| d.clamp(0, 8) as usize).collect())
                            .unwrap_or_else(|| vec![2; t.and_then(|t| t.ndim).unwrap_or(2)]);
                        compiler_core::eval::NDArray::zeros(
                            t.and_then(|t| t.dtype)
                                .unwrap_or(compiler_core::ir::DataType::f32()),
                            &shape,
                        )
                        .expect("zeros")
                    })
                    .collect();
                let _ = vm::run(&module, name, args, &env);
            }
        }
    }
}

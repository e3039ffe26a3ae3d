//! The graph layer from scripts: `relax.BlockBuilder`, `relax.op.*`,
//! `relax.build` + `relax.VirtualMachine` with `call_tir` (through the
//! script's backend) and `call_dps_packed` (into `tvm.register_func`'d
//! script functions), and the digits MLP end to end.
//!
//! Course-style scripts (`tests/data/scripts/relax_*.py`) must print what
//! TVM 0.27 + NumPy print (`.out`, from `tools/tvm_oracle/script_outputs.py`).

use crate::support::*;

fn check(name: &str) -> Run {
    let path = data_dir("scripts").join(name);
    let src = std::fs::read_to_string(&path).unwrap();
    let expected = std::fs::read_to_string(path.with_extension("out")).unwrap();
    let run = run_file(&path);
    let m = masks(&src);
    let (e, g) = (apply_masks(&expected, &m), apply_masks(&run.output, &m));
    // Byte-identical output needs no structural comparison (which cannot
    // parse printings whose constants TVM left out as `metadata[...]`).
    if e == g {
        return run;
    }
    if let Err(why) = compare_output(&e, &g) {
        panic!(
            "{name}: Tessel's output differs from TVM's: {why}\n\n=== Tessel printed:\n{}",
            run.output
        );
    }
    run
}

/// The integers of the list printed after `label` (`label [2, 0, 4]`).
fn printed_list(output: &str, label: &str) -> Vec<i64> {
    let line = output
        .lines()
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("no line starting with {label:?} in:\n{output}"));
    let inner = line[label.len()..]
        .trim()
        .trim_start_matches('[')
        .trim_end_matches(']');
    inner
        .split(',')
        .map(|s| s.trim().parse::<i64>().expect("an integer"))
        .collect()
}

#[test]
fn mlp_digits_matches_tvm_and_numpy() {
    let run = check("relax_mlp_digits.py");
    assert!(run.error.is_none(), "{}", run.output);
    // The full flow: emit_te -> FuseOps/FuseTIR -> a scheduled fused kernel
    // (split + reorder of the first dense) -> build -> run.
    assert!(
        run.output.contains("R.call_tir(fused_dense_add_relu, (x,"),
        "{}",
        run.output
    );
    assert!(
        run.output.contains(
            "for i0, i1_0, k, i1_1 in T.grid(T.int64(24), T.int64(8), T.int64(64), T.int64(16)):"
        ),
        "{}",
        run.output
    );
    assert!(run.output.contains("fused MLP time for"), "{}", run.output);
    let numpy = printed_list(&run.output, "NumPy predictions:");
    let labels = printed_list(&run.output, "labels:");
    assert_eq!(numpy.len(), labels.len());
    assert!(numpy.len() >= 20, "the script ships at least 20 images");
    for label in [
        "BlockBuilder predictions:",
        "mixture predictions:",
        "constant-weights predictions:",
        "fused + scheduled predictions:",
    ] {
        let got = printed_list(&run.output, label);
        assert_eq!(got, numpy, "{label} differ from NumPy's");
    }
    // The trained model is good: at most one shipped image misclassified.
    let correct = numpy.iter().zip(&labels).filter(|(p, l)| p == l).count();
    assert!(
        correct + 1 >= labels.len(),
        "accuracy {correct}/{}",
        labels.len()
    );
    // Each variant also checked its logits against NumPy's.
    assert_eq!(
        run.output.matches("logits close to NumPy: True").count(),
        4,
        "{}",
        run.output
    );
}

/// Chapter 3: the MLP with `call_tir` into TensorIR (run by the script's
/// backend), with `call_dps_packed` into registered NumPy functions, the
/// mixture with symbolic sizes, and the mixture with its weights bound
/// (`BindParams`).
#[test]
fn book_ch3_end_to_end() {
    let run = check("relax_book_ch3_end_to_end.py");
    assert!(run.error.is_none(), "{}", run.output);
    assert_eq!(
        run.output.matches("close to NumPy: True").count(),
        4,
        "{}",
        run.output
    );
    // §3.8: the weights bound as constants, `main` takes the image alone.
    assert!(
        run.output.contains("parameters of main: 1"),
        "{}",
        run.output
    );
    for m in [
        "MyModule",
        "MyModuleWithExternCall",
        "MyModuleMixture",
        "MyModuleWithParams",
    ] {
        assert!(
            run.output.contains(&format!("{m} Prediction: Pullover")),
            "{}",
            run.output
        );
    }
}

/// Chapter 3 §3.4.3: a Relax function outside a module (its two dataflow
/// blocks joined into one, as TVM's parser does), put into a module with
/// `IRModule.from_expr`.
#[test]
fn book_ch3_bare_function() {
    let run = check("relax_book_ch3_bare_function.py");
    assert!(run.error.is_none(), "{}", run.output);
    assert!(run.output.contains("5 1 3"), "{}", run.output);
}

/// Chapter 7 §7.3: a function walked by attribute — its body, blocks,
/// bindings, a binding's var and value, a call's op and args — printing
/// what TVM 0.27 prints for each.
#[test]
fn book_ch7_ast() {
    let run = check("relax_book_ch7_ast.py");
    assert!(run.error.is_none(), "{}", run.output);
    assert!(run.output.contains("tvm.relax.expr.SeqExpr"));
}

/// Chapter 7: an expression mutator (multiply + add → ewise_fma),
/// `remove_all_unused`, and the MatmulAddFusor module pass; the fused model
/// still computes what NumPy computes.
#[test]
fn book_ch7_mutators() {
    let run = check("relax_book_ch7_mutators.py");
    assert!(run.error.is_none(), "{}", run.output);
    assert_eq!(
        run.output.matches("(1, 10) True").count(),
        2,
        "{}",
        run.output
    );
    assert!(run.output.contains("= R.ewise_fma(x, y, y)"));
    assert!(run.output.contains("cls.fused_matmul_add1("));
}

/// Chapter 7 §7.5-7.6: the LowerToTensorIR mutator (`bb.call_te` with topi,
/// an op map keyed by `tvm.ir.Op`), `relax.transform.FuseTIR`, build and run;
/// the printed modules equal TVM's and the result NumPy's.
#[test]
fn book_ch7_lowering_fuse_tir() {
    let run = check("relax_book_ch7_lowering.py");
    assert!(run.error.is_none(), "{}", run.output);
    assert!(
        run.output.contains("close to NumPy: True"),
        "{}",
        run.output
    );
    // call_te deduplicates names as TVM does (two adds of different shapes).
    assert!(run.output.contains("def add1("), "{}", run.output);
    // After FuseTIR the fused functions are PrimFuncs.
    assert!(
        run.output
            .contains("def fused_matmul_add1(x: T.Buffer((T.int64(1), T.int64(32))"),
        "{}",
        run.output
    );
}

/// Chapter 5 §5.3-5.6: `bb.emit_te` with the book's TE functions and topi
/// (PrimFuncs named and deduplicated as TVM does), the MLP mapped onto topi and
/// onto high-level operators, the latter lowered with a `tvm.transform.Sequential`
/// of LegalizeOps / AnnotateTIROpPattern / FuseOps / FuseTIR, and (ch.3 §3.8)
/// weights bound with BindParams; each built module computes what NumPy computes.
#[test]
fn book_ch5_emit_te() {
    let run = check("relax_book_ch5_emit_te.py");
    assert!(run.error.is_none(), "{}", run.output);
    assert_eq!(
        run.output.matches("close to NumPy: True").count(),
        4,
        "{}",
        run.output
    );
    // te_relu emitted twice on equal shapes is one PrimFunc.
    assert!(run.output.contains("lv2 = R.call_tir(cls.te_relu, (lv1,)"));
    assert!(!run.output.contains("def te_relu1("));
    assert!(run.output.contains("def fused_matmul_add_relu("));
}

fn run(src: &str) -> Run {
    run_source(src, "relax_case.py", limits())
}

const PRELUDE: &str =
    "import numpy as np\nimport tvm\nfrom tvm import relax\nfrom tvm.script import relax as R\n";

fn expect_error(body: &str, kind: &str, needle: &str) {
    let src = format!("{PRELUDE}{body}");
    let r = run(&src);
    let Some(e) = &r.error else {
        panic!(
            "expected {kind} containing {needle:?}, but the script ran:\n{}",
            r.output
        );
    };
    assert!(
        e.traceback.contains(kind) && e.traceback.contains(needle),
        "expected {kind} containing {needle:?}, got:\n{}",
        e.traceback
    );
}

#[test]
fn builder_names_shapes_and_runs_every_operator() {
    let src = format!(
        "{PRELUDE}{}",
        r#"
bb = relax.BlockBuilder()
a = relax.Var("a", relax.TensorStructInfo((2, 3), "float32"))
b = relax.Var("b", R.Tensor((3, 2), "float32"))
with bb.function("main", [a, b]):
    with bb.dataflow():
        s = bb.emit(relax.op.add(a, a))
        d = bb.emit(relax.op.subtract(s, a))
        m = bb.emit(relax.op.multiply(d, relax.const(2.0, "float32")))
        t = bb.emit(relax.op.permute_dims(b))
        f = bb.emit(relax.op.ewise_fma(m, t, a))
        mm = bb.emit(relax.op.matmul(f, b))
        r = bb.emit(relax.op.reshape(mm, (4,)))
        sm = bb.emit(relax.op.nn.softmax(r))
        tot = bb.emit(relax.op.sum(mm, axis=1))
        mean = bb.emit(relax.op.mean(mm, axis=[0], keepdims=True))
        out = bb.emit_output((sm, tot, mean))
    bb.emit_func_output(out)
mod = bb.get()
print("built")
print(s.struct_info, mm.struct_info, tot.struct_info, mean.struct_info)
print(s.name_hint, d.name_hint, out.name_hint)
vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
an = np.arange(6, dtype="float32").reshape(2, 3) / 4
bn = np.arange(6, dtype="float32").reshape(3, 2) / 8 - 0.25
sm, tot, mean = vm["main"](tvm.nd.array(an), tvm.nd.array(bn))
mmn = ((an + an - an) * 2 * bn.T + an) @ bn
e = np.exp(mmn.reshape(4) - mmn.max())
print(np.allclose(sm.numpy(), e / e.sum(), rtol=1e-5, atol=1e-6))
print(np.allclose(tot.numpy(), mmn.sum(axis=1), rtol=1e-5, atol=1e-6))
print(np.allclose(mean.numpy(), mmn.mean(axis=0, keepdims=True), rtol=1e-5, atol=1e-6))
"#
    );
    let r = run(&src);
    assert!(r.error.is_none(), "{}", r.output);
    let lines: Vec<&str> = r.output.lines().collect();
    assert_eq!(
        lines[1],
        "R.Tensor((2, 3), dtype=\"float32\") R.Tensor((2, 2), dtype=\"float32\") R.Tensor((2,), dtype=\"float32\") R.Tensor((1, 2), dtype=\"float32\")"
    );
    assert_eq!(lines[2], "lv lv1 gv");
    assert_eq!(&lines[3..], ["True", "True", "True"], "{}", r.output);
}

#[test]
fn registered_functions_receive_tensors_and_exceptions_propagate() {
    let body = r#"
calls = []
@tvm.register_func("env.scale")
def scale(x, out):
    calls.append(x.shape)
    out.copyfrom(x.numpy() * 3)

@tvm.script.ir_module
class M:
    @R.function
    def main(x: R.Tensor((2, 2), "float32")):
        with R.dataflow():
            y = R.call_dps_packed("env.scale", (x,), R.Tensor((2, 2), dtype="float32"))
            R.output(y)
        return y

vm = relax.VirtualMachine(relax.build(M, target="llvm"), tvm.cpu())
print(vm["main"](tvm.nd.array(np.ones((2, 2), "float32"))).numpy().tolist(), calls)

@tvm.register_func("env.scale", override=True)
def broken(x, out):
    raise ValueError("boom from the script")
vm["main"](tvm.nd.array(np.ones((2, 2), "float32")))
"#;
    let r = run(&format!("{PRELUDE}{body}"));
    assert!(
        r.output.starts_with("[[3.0, 3.0], [3.0, 3.0]] [(2, 2)]"),
        "{}",
        r.output
    );
    let e = r.error.expect("the registered function raised");
    assert!(
        e.traceback.contains("ValueError: boom from the script"),
        "{}",
        e.traceback
    );
}

#[test]
fn misuse_is_a_clear_error() {
    expect_error(
        "tvm.register_func('f', lambda: 0)\ntvm.register_func('f', lambda: 1)\n",
        "TVMError",
        "already registered",
    );
    expect_error(
        "bb = relax.BlockBuilder()\nx = relax.Var('x', R.Tensor((2,), 'float32'))\nbb.emit(relax.op.nn.relu(x))\n",
        "ValueError",
        "inside `with bb.function",
    );
    expect_error(
        "bb = relax.BlockBuilder()\nx = relax.Var('x', R.Tensor((2,), 'float32'))\nwith bb.function('main', [x]):\n    y = bb.emit_output(relax.op.nn.relu(x))\n",
        "ValueError",
        "inside a dataflow block",
    );
    expect_error(
        "bb = relax.BlockBuilder()\nx = relax.Var('x', R.Tensor((2,), 'float32'))\nwith bb.function('main', [x]):\n    with bb.dataflow():\n        y = bb.emit(relax.op.nn.relu(x))\n    bb.emit_func_output(y)\n",
        "ValueError",
        "dataflow variable `lv`",
    );
    expect_error(
        "bb = relax.BlockBuilder()\nx = relax.Var('x', R.Tensor((2,), 'float32'))\nwith bb.function('main', [x]):\n    y = bb.emit(relax.op.nn.relu(x))\n",
        "ValueError",
        "emit_func_output",
    );
    expect_error(
        "bb = relax.BlockBuilder()\nx = relax.Var('x', R.Tensor((2, 3), 'float32'))\nw = relax.Var('w', R.Tensor((4, 5), 'float32'))\nwith bb.function('main', [x, w]):\n    y = bb.emit(relax.op.matmul(x, w))\n",
        "TVMError",
        "matmul",
    );
    expect_error(
        "def f(a):\n    raise ValueError('boom in te')\nbb = relax.BlockBuilder()\nx = relax.Var('x', R.Tensor((2,), 'float32'))\nwith bb.function('main', [x]):\n    bb.emit_te(f, x)\n",
        "ValueError",
        "boom in te",
    );
    expect_error(
        "x = relax.Var('x', R.Tensor((2,), 'float32'))\nrelax.transform.BindParams('main', {'y': np.ones(2, 'float32')})(tvm.IRModule())\n",
        "TVMError",
        "BindParams",
    );
    // Run-time shape checks and unknown extern functions.
    let module = "@tvm.script.ir_module\nclass M:\n    @R.function\n    def main(x: R.Tensor((2,), 'float32')):\n        with R.dataflow():\n            y = R.call_dps_packed('env.missing', (x,), R.Tensor((2,), dtype='float32'))\n            R.output(y)\n        return y\nvm = relax.VirtualMachine(relax.build(M, 'llvm'), tvm.cpu())\n";
    expect_error(
        &format!("{module}vm['main'](tvm.nd.array(np.ones((3,), 'float32')))\n"),
        "TVMError",
        "argument 1 (x)",
    );
    expect_error(
        &format!("{module}vm['main'](tvm.nd.array(np.ones((2,), 'float32')))\n"),
        "TVMError",
        "env.missing",
    );
    expect_error(
        &format!("{module}vm['nope']\n"),
        "AttributeError",
        "no function 'nope'",
    );
}

/// Runs the script in `TESSEL_SCRIPT` (a development aid; does nothing when unset).
#[test]
fn scratch() {
    let Ok(path) = std::env::var("TESSEL_SCRIPT") else {
        return;
    };
    let run = run_file(std::path::Path::new(&path));
    println!("{}", run.output);
}

/// `emit_te` details: `primfunc_name_hint`, keyword arguments, a TE function
/// with two outputs, `call_te` leaving the call unbound, a structurally equal
/// PrimFunc reused; the module runs in the VM and matches NumPy; a Sequential
/// mixes built-in passes with a script module pass, and DeadCodeElimination
/// drops the unused binding and its function.
#[test]
fn emit_te_names_tuples_and_sequential() {
    let body = r#"from tvm import te, topi
def two(A, scale=1.0):
    B = te.compute(A.shape, lambda i: A[i] * scale, name='B')
    C = te.compute(A.shape, lambda i: A[i] + scale, name='C')
    return [B, C]
x = relax.Var('x', R.Tensor((4,), 'float32'))
bb = relax.BlockBuilder()
with bb.function('main', [x]):
    with bb.dataflow():
        t = bb.emit_te(two, x, scale=2.0)
        s = bb.emit_te(topi.add, x, x, primfunc_name_hint='my_add')
        r = bb.emit_te(topi.nn.relu, s)
        r2 = bb.emit_te(topi.nn.relu, bb.emit_te(topi.add, x, x, primfunc_name_hint='my_add'))
        c = bb.call_te(topi.nn.relu, r2)
        print(type(c).__name__)
        o = bb.emit_output(bb.emit(c))
    bb.emit_func_output(o)
mod = bb.get()
print(sorted(str(g.name_hint) for g in mod.get_global_vars()))
@tvm.ir.transform.module_pass(opt_level=0, name='Id')
def ident(m, ctx):
    return m
seq = tvm.transform.Sequential([relax.transform.AnnotateTIROpPattern(), ident, relax.transform.FuseOps(), relax.transform.FuseTIR(), relax.transform.DeadCodeElimination(['main'])])
fused = seq(mod)
print(sorted(str(g.name_hint) for g in fused.get_global_vars()))
xs = np.array([-3.0, -1.0, 0.5, 2.0], 'float32')
for m in [mod, fused]:
    vm = relax.VirtualMachine(relax.build(m, 'llvm'), tvm.cpu())
    out = vm['main'](tvm.nd.array(xs)).numpy()
    print(np.allclose(out, np.maximum(xs + xs, 0)))
"#;
    let r = run(&format!("{PRELUDE}{body}"));
    assert!(
        r.error.is_none(),
        "{}\n{:?}",
        r.output,
        r.error.map(|e| e.traceback)
    );
    let lines: Vec<&str> = r.output.lines().collect();
    assert_eq!(lines[0], "Call", "{}", r.output);
    // `two` is one PrimFunc with two outputs; `my_add` on (4,) is reused
    // (structurally equal), and so is relu.
    assert_eq!(
        lines[1], "['main', 'my_add', 'relu', 'two']",
        "{}",
        r.output
    );
    // After fusion and DCE, `two` (its result unused) is gone (as in TVM 0.27,
    // which prints the same lists for this script).
    assert_eq!(
        lines[2], "['fused_my_add_relu_relu', 'main']",
        "{}",
        r.output
    );
    assert_eq!(&lines[3..], ["True", "True"], "{}", r.output);
}

/// A pass failure is a Python exception at the line that ran the pass.
#[test]
fn pass_errors_point_at_the_script_line() {
    let body = r#"x = relax.Var('x', R.Tensor((2,), 'float32'))
bb = relax.BlockBuilder()
with bb.function('main', [x]):
    bb.emit_func_output(x)
mod = bb.get()
p = relax.transform.BindParams('nope', {})
p(mod)
"#;
    let r = run(&format!("{PRELUDE}{body}"));
    let e = r.error.expect("BindParams on a missing function fails");
    assert!(e.traceback.contains("TVMError"), "{}", e.traceback);
    assert!(
        e.traceback.contains("no graph function `nope`"),
        "{}",
        e.traceback
    );
    assert!(e.traceback.contains("line 11"), "{}", e.traceback);
}

/// A graph-level function (a mutator's result, `mod["main"]`) goes into a
/// module like a PrimFunc does: `tvm.IRModule({...})`, `mod[name] = f`,
/// `mod.update_func(gv, f)`; each module runs in the VM, and a value that
/// is not a function is refused with the reason.
#[test]
fn modules_take_graph_functions_by_dict_item_and_update_func() {
    let body = r#"from tvm.script import tir as T

@tvm.script.ir_module
class M:
    @T.prim_func
    def double(X: T.Buffer((2, 2), "float32"), Y: T.Buffer((2, 2), "float32")):
        for i, j in T.grid(2, 2):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = X[vi, vj] * T.float32(2)

    @R.function
    def main(x: R.Tensor((2, 2), "float32"), y: R.Tensor((2, 2), "float32")):
        with R.dataflow():
            lv0 = R.multiply(x, y)
            gv0 = R.add(lv0, y)
            R.output(gv0)
        return gv0

@R.function
def plus(x: R.Tensor((2, 2), "float32"), y: R.Tensor((2, 2), "float32")):
    with R.dataflow():
        gv0 = R.add(x, y)
        R.output(gv0)
    return gv0

x = tvm.nd.array(np.full((2, 2), 3, "float32"))
y = tvm.nd.array(np.full((2, 2), 2, "float32"))

def result(mod):
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    return vm["main"](x, y).numpy()[0, 0]

by_dict = tvm.IRModule({"main": plus, "double": M["double"]})
print("dict", sorted(g.name_hint for g in by_dict.get_global_vars()), result(by_dict))
copy = tvm.IRModule({"main": M["main"]})
copy["main"] = plus
print("setitem", result(copy))
copy.update_func(copy.get_global_var("main"), M["main"])
print("update_func", result(copy))
tvm.IRModule({"main": 3})
"#;
    let r = run(&format!("{PRELUDE}{body}"));
    let lines: Vec<&str> = r
        .output
        .lines()
        .take_while(|l| !l.starts_with("Traceback"))
        .collect();
    assert_eq!(
        lines,
        [
            "dict ['double', 'main'] 5.0",
            "setitem 5.0",
            "update_func 8.0"
        ],
        "{}",
        r.output
    );
    let e = r.error.expect("a module of an integer is refused");
    assert!(
        e.traceback
            .contains("TypeError: IRModule expects a PrimFunc or a relax.Function"),
        "{}",
        e.traceback
    );
}

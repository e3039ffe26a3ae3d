//! The module tree: `tvm.relax`, `tvm.relax.op`, `tvm.script.relax` and the
//! other importable modules, installed into a run.

use super::*;

// ----------------------------------------------------------------------------
// The module tree

pub(super) use crate::python::value::module_with_note as module;

pub(super) fn set(m: &Value, k: &str, v: Value) {
    if let Value::Module(m) = m {
        m.attrs.borrow_mut().insert(k.to_string(), v);
    }
}

const NOTE: &str = "Tessel's Relax covers Var, TensorStructInfo, const, BlockBuilder, relax.op.*, call_tir, call_dps_packed, build and VirtualMachine";

/// Fills `tvm.relax` and `tvm.script.relax` (after [`crate::bindings::tvm::install`]).
pub fn install(it: &mut Interp) {
    let op = |n: &str| builtin_with(&format!("tvm.relax.op.{n}"), op_call, Value::str(n));
    let nn = module(
        "tvm.relax.op.nn",
        vec![
            ("relu", op("nn.relu")),
            ("softmax", op("nn.softmax")),
            ("conv2d", op("nn.conv2d")),
        ],
        Some(NOTE),
    );
    let mut op_attrs: Vec<(&str, Value)> = vec![("nn", nn.clone())];
    for n in [
        "add",
        "subtract",
        "multiply",
        "divide",
        "matmul",
        "permute_dims",
        "linear",
        "ewise_fma",
        "reshape",
        "sum",
        "mean",
        "call_tir",
        "call_dps_packed",
    ] {
        op_attrs.push((n, op(n)));
    }
    let relax_op = module("tvm.relax.op", op_attrs.clone(), Some(NOTE));
    let var = builtin("tvm.relax.Var", relax_var);
    let tsi = builtin("tvm.relax.TensorStructInfo", tensor_sinfo);
    let konst = builtin("tvm.relax.const", relax_const);
    let build = builtin("tvm.relax.build", relax_build);
    let relax_transform = module(
        "tvm.relax.transform",
        vec![
            ("BindParams", builtin_with("tvm.relax.transform.BindParams", pass_new, Value::str("BindParams"))),
            ("LegalizeOps", builtin_with("tvm.relax.transform.LegalizeOps", pass_new, Value::str("LegalizeOps"))),
            (
                "AnnotateTIROpPattern",
                builtin_with("tvm.relax.transform.AnnotateTIROpPattern", pass_new, Value::str("AnnotateTIROpPattern")),
            ),
            ("FuseOps", builtin_with("tvm.relax.transform.FuseOps", pass_new, Value::str("FuseOps"))),
            ("FuseTIR", builtin_with("tvm.relax.transform.FuseTIR", pass_new, Value::str("FuseTIR"))),
            (
                "DeadCodeElimination",
                builtin_with("tvm.relax.transform.DeadCodeElimination", pass_new, Value::str("DeadCodeElimination")),
            ),
        ],
        Some("Tessel's relax.transform has BindParams, LegalizeOps, AnnotateTIROpPattern, FuseOps, FuseTIR and DeadCodeElimination"),
    );
    let relax = module(
        "tvm.relax",
        vec![
            ("Var", var.clone()),
            ("TensorStructInfo", tsi.clone()),
            // TVM 0.27's name for it.
            ("TensorType", tsi.clone()),
            ("const", konst.clone()),
            (
                "BlockBuilder",
                builtin("tvm.relax.BlockBuilder", builder_new),
            ),
            ("op", relax_op.clone()),
            ("build", build.clone()),
            ("call_tir", op("call_tir")),
            ("call_dps_packed", op("call_dps_packed")),
            ("ShapeExpr", builtin("tvm.relax.ShapeExpr", shape_expr)),
            (
                "VirtualMachine",
                builtin("tvm.relax.VirtualMachine", vm_new),
            ),
            ("transform", relax_transform.clone()),
        ],
        Some(NOTE),
    );
    // `R.*` used outside TVMScript (R.Tensor as struct info, R.add, …).
    let mut r_attrs = op_attrs;
    r_attrs.push(("Tensor", tsi));
    r_attrs.push(("const", konst));
    r_attrs.push(("shape", builtin("tvm.script.relax.shape", shape_expr)));
    r_attrs.push((
        "function",
        builtin(
            crate::bindings::tvm::RELAX_FUNCTION,
            crate::bindings::tvm::relax_function_decorator,
        ),
    ));
    let script_relax = module("tvm.script.relax", r_attrs, Some(NOTE));
    let call_cls = Value::Class(it.types.host_class("tvm.relax.expr.Call"));
    let func_cls = Value::Class(it.types.host_class("tvm.relax.expr.Function"));
    let var_base = it.types.host_class("tvm.relax.expr.Var");
    // A DataflowVar is a Var (`isinstance(C, relax.Var)` in the book).
    if !it.types.host.contains_key("tvm.relax.expr.DataflowVar") {
        let dfv = crate::python::builtins::builtin_class(
            "DataflowVar",
            "tvm.relax.expr",
            crate::python::value::BuiltinType::Host,
            Some(&var_base),
        );
        it.types
            .host
            .insert("tvm.relax.expr.DataflowVar".into(), dfv);
    }
    let var_cls = Value::Class(var_base);
    let mutator_cls = it.types.host_class("tvm.relax.expr_functor.PyExprMutator");
    mutator_cls.dict.borrow_mut().insert(
        "__init__".into(),
        builtin("PyExprMutator.__init__", |_, _| Ok(Value::None)),
    );
    let expr_functor = module(
        "tvm.relax.expr_functor",
        vec![
            ("PyExprMutator", Value::Class(mutator_cls.clone())),
            (
                "mutator",
                builtin("tvm.relax.expr_functor.mutator", mutator_decorator),
            ),
        ],
        Some(NOTE),
    );
    let analysis = module(
        "tvm.relax.analysis",
        vec![(
            "remove_all_unused",
            builtin("tvm.relax.analysis.remove_all_unused", remove_all_unused),
        )],
        Some(NOTE),
    );
    set(&relax, "Call", call_cls);
    set(&relax, "Function", func_cls);
    set(&relax, "Var", var_cls.clone());
    let _ = var;
    set(&relax, "PyExprMutator", Value::Class(mutator_cls));
    set(&relax, "expr_functor", expr_functor.clone());
    set(&relax, "analysis", analysis.clone());
    it.modules
        .insert("tvm.relax.expr_functor".into(), expr_functor);
    it.modules.insert("tvm.relax.analysis".into(), analysis);
    let pass = builtin("tvm.ir.transform.module_pass", module_pass);
    let sequential = builtin("tvm.ir.transform.Sequential", sequential_new);
    let ir_transform = module(
        "tvm.ir.transform",
        vec![
            ("module_pass", pass.clone()),
            ("Sequential", sequential.clone()),
        ],
        Some(NOTE),
    );
    if let Some(t) = it.modules.get("tvm.transform").cloned() {
        set(&t, "module_pass", pass);
        set(&t, "Sequential", sequential);
    }
    if let Some(ir) = it.modules.get("tvm.ir").cloned() {
        set(&ir, "transform", ir_transform.clone());
    }
    it.modules.insert("tvm.ir.transform".into(), ir_transform);
    let op_get = builtin("tvm.ir.Op.get", op_get);
    let op_cls = module("tvm.ir.Op", vec![("get", op_get)], None);

    if let Some(tvm) = it.modules.get("tvm").cloned() {
        set(&tvm, "relax", relax.clone());
        set(
            &tvm,
            "register_func",
            builtin("tvm.register_func", register_func),
        );
        set(
            &tvm,
            "get_global_func",
            builtin("tvm.get_global_func", get_global_func),
        );
    }
    if let Some(s) = it.modules.get("tvm.script").cloned() {
        set(&s, "relax", script_relax.clone());
    }
    if let Some(ir) = it.modules.get("tvm.ir").cloned() {
        set(&ir, "Op", op_cls);
    }
    it.modules.insert("tvm.relax".into(), relax);
    it.modules.insert("tvm.relax.op".into(), relax_op);
    it.modules
        .insert("tvm.relax.transform".into(), relax_transform);
    it.modules.insert("tvm.relax.op.nn".into(), nn);
    it.modules.insert("tvm.script.relax".into(), script_relax);
}

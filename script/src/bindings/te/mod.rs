//! Tensor expressions in scripts: `tvm.te`, `tvm.topi` and the
//! `tvm.tir` expression helpers, as script values over [`compiler_core::te`].
//!
//! A TE object is a host value `Obj::Te(`[`TeObj`]`)`: a tensor, an
//! expression (`tir.Var`, constants, loads, arithmetic), an iteration
//! variable (`te.reduce_axis`, `C.op.axis[i]`), a reduction (`te.sum(...)`,
//! only valid as a compute body), an operation (`C.op`) or a partly indexed
//! tensor (`A[i]` of a 2-D `A`, completed by the next subscript).
//!
//! # API for the rest of the crate (graph helper: `emit_te` / `call_te`)
//!
//! - [`tensor_value`]`(t)` / [`expr_value`]`(e)`: a Rust [`Tensor`] / [`Expr`]
//!   as a script value (what a TE function receives).
//! - [`as_tensor`]`(&v)`: the [`Tensor`] inside a script value, if it is one.
//! - [`to_expr`]`(&v)`: a script value as an expression (Python numbers
//!   convert as TVM converts them; iteration variables give their variable).
//! - [`tensors_of`]`(it, &v)`: the tensors of a result (one tensor, or a
//!   tuple/list of them), else a `TypeError`.
//! - [`call_te_function`]`(it, &f, args, index_dtype)`: calls the Python
//!   function `f` with `args` (tensor values made with [`tensor_value`] of
//!   placeholders, numbers, …) and turns the result into a PrimFunc with
//!   `create_prim_func(inputs + unbound size vars + outputs, index_dtype)`;
//!   `inputs` are the tensors found in `args` (positional then keyword,
//!   through lists and tuples), in order, without duplicates. Returns a
//!   [`TeCall`] (the function, inputs, outputs). Errors in `f` come back as
//!   the Python exception with its traceback. Relax drops the
//!   `global_symbol` attribute afterwards (the caller's business).
//! - [`prim_func_value`]`(f)`: a PrimFunc as a script value (prints as TVM
//!   0.27's `tirx` dialect, as TVM prints TE-made functions).
//!
//! Everything else here is the Python surface: [`install`] fills the
//! `tvm.te`, `tvm.topi` (`tvm.topi.nn`) modules and adds `if_then_else`,
//! `all`, `any`, `const`, `Select`… to `tvm.tir`/`tvm.tirx`.

use std::rc::Rc;

use super::host::{tvm_obj, Obj};
use crate::python::builtins::builtin;
use crate::python::error::{ExcKind, PyErr, Res};
use crate::python::interp::Interp;
use crate::python::value::*;
use compiler_core::te::{
    self, op, topi, BodyItem, ComputeBody, ComputeOptions, FuncArg, Operation, Reduce, TeError,
    TeErrorKind, Tensor,
};
use tessel_ir::printer::{print_expr, Dialect};
use tessel_ir::visit::{VarCollector, Visitor};
use tessel_ir::{DataType, Expr, IterKind, IterVar, PrimFunc, Var};
use tessel_syntax::ast::{BinOp, CmpOp, UnaryOp};

mod objects;
mod te_api;
mod topi_api;

pub use objects::{
    binary, call, call_method, class_name, compare, const_int, get_attr, get_item, repr, truthy,
    unary,
};
use te_api::{
    all_any, float_imm, if_then_else, int_imm, min_max_value, removed, select, te_compute,
    te_create_prim_func, te_math, te_placeholder, te_power, te_reduce, te_reduce_axis, te_var,
    tir_const,
};
use topi_api::{
    operand, operand_value, topi_broadcast, topi_conv2d_nchw, topi_dense, topi_matmul,
    topi_nn_matmul, topi_reduce, topi_relu, topi_reshape, topi_softmax, topi_transpose,
};

/// A TE script object.
pub enum TeObj {
    Tensor(Tensor),
    Expr(Expr),
    IterVar(IterVar),
    Reduce(Reduce),
    Op(Operation),
    /// `A[i]` of a tensor with more dimensions: the indices so far.
    Slice(Tensor, Vec<Expr>),
    /// `te.create_schedule(...)` (see [`super::te_schedule`]).
    Schedule(super::te_schedule::SharedSchedule),
    /// `s[C]`: a stage of a schedule, by index.
    Stage(super::te_schedule::SharedSchedule, usize),
    /// `te.thread_axis("threadIdx.x")`: the tag.
    ThreadAxis(String),
}

/// The result of [`call_te_function`].
pub struct TeCall {
    pub func: PrimFunc,
    pub inputs: Vec<Tensor>,
    pub outputs: Vec<Tensor>,
}

fn te_value(o: TeObj) -> Value {
    Value::Host(Rc::new(Obj::Te(o)))
}

/// A tensor as a script value.
pub fn tensor_value(t: Tensor) -> Value {
    te_value(TeObj::Tensor(t))
}

/// An expression as a script value.
pub fn expr_value(e: Expr) -> Value {
    te_value(TeObj::Expr(e))
}

/// A PrimFunc as a script value (printed in TVM 0.27's dialect).
pub fn prim_func_value(f: PrimFunc) -> Value {
    Value::Host(Rc::new(Obj::PrimFunc {
        func: Rc::new(f),
        dialect: Dialect::Tirx,
    }))
}

fn te_obj(v: &Value) -> Option<&TeObj> {
    match v {
        Value::Host(o) => match tvm_obj(o) {
            Some(Obj::Te(t)) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// The tensor inside a script value.
pub fn as_tensor(v: &Value) -> Option<Tensor> {
    match te_obj(v)? {
        TeObj::Tensor(t) => Some(t.clone()),
        _ => None,
    }
}

/// A TE error as a Python exception: TVM raises `ValueError`/`TypeError`
/// for argument problems and `TVMError` for the rest.
fn te_err(e: TeError) -> Box<PyErr> {
    let kind = match e.kind {
        TeErrorKind::ArgumentType => ExcKind::TypeError,
        TeErrorKind::InvalidValue => ExcKind::ValueError,
        TeErrorKind::Other => ExcKind::TVMError,
    };
    PyErr::new(kind, e.message)
}

/// A script value as an expression.
pub fn to_expr(v: &Value) -> Res<Expr> {
    Ok(match v {
        Value::Bool(b) => op::py_bool(*b),
        Value::Int(i) => op::py_int(*i),
        Value::Float(f) => op::py_float(*f),
        Value::NpScalar(s) => match s.num {
            Num::I(i) if s.dtype.is_bool() => Expr::bool(i != 0),
            Num::I(i) => op::const_int(i, s.dtype).map_err(te_err)?,
            Num::F(f) => op::const_float(f, s.dtype).map_err(te_err)?,
        },
        _ => match te_obj(v) {
            Some(TeObj::Expr(e)) => e.clone(),
            Some(TeObj::IterVar(iv)) => iv.var.to_expr(),
            Some(TeObj::Reduce(_)) => {
                return Err(PyErr::new(ExcKind::TVMError, te::NESTED_REDUCTION_ERROR))
            }
            Some(TeObj::Tensor(t)) if t.ndim() == 0 => t.index(&[]).map_err(te_err)?,
            Some(TeObj::Tensor(t)) => {
                return Err(PyErr::type_error(format!(
                    "tensor {} cannot be used as a scalar expression; index it (`{}[i, …]`)",
                    t.name(),
                    t.name()
                )))
            }
            _ => {
                return Err(PyErr::type_error(format!(
                    "cannot use a '{}' as a TVM expression",
                    v.type_name()
                )))
            }
        },
    })
}

fn is_te(v: &Value) -> bool {
    te_obj(v).is_some()
}

/// The tensors of a TE function's result: one tensor, or a tuple/list.
pub fn tensors_of(it: &mut Interp, v: &Value) -> Res<Vec<Tensor>> {
    if let Some(t) = as_tensor(v) {
        return Ok(vec![t]);
    }
    if matches!(v, Value::Tuple(_) | Value::List(_)) {
        let mut out = Vec::new();
        for x in it.items_of(v)? {
            out.extend(tensors_of(it, &x)?);
        }
        return Ok(out);
    }
    Err(PyErr::type_error(format!(
        "expected a te.Tensor or a tuple of them, found {}",
        v.type_name()
    )))
}

fn collect_tensors(it: &mut Interp, v: &Value, out: &mut Vec<Tensor>, depth: u32) -> Res<()> {
    if let Some(t) = as_tensor(v) {
        if !out.contains(&t) {
            out.push(t);
        }
    } else if depth < 8 && matches!(v, Value::Tuple(_) | Value::List(_)) {
        for x in it.items_of(v)? {
            collect_tensors(it, &x, out, depth + 1)?;
        }
    }
    Ok(())
}

fn shape_vars(ts: &[Tensor]) -> Vec<Var> {
    let mut vars = VarCollector::default();
    for t in ts {
        for d in t.shape() {
            vars.visit_expr(d);
        }
    }
    vars.vars
}

/// Calls a Python TE function and makes a PrimFunc of it (see the module
/// documentation).
pub fn call_te_function(
    it: &mut Interp,
    f: &Value,
    args: Args,
    index_dtype: Option<DataType>,
) -> Res<TeCall> {
    let mut inputs = Vec::new();
    for v in args.pos.iter().chain(args.kw.iter().map(|(_, v)| v)) {
        collect_tensors(it, v, &mut inputs, 0)?;
    }
    let result = it.call(f, args)?;
    let outputs = tensors_of(it, &result)?;
    let in_vars = shape_vars(&inputs);
    let unbound: Vec<Var> = shape_vars(&outputs)
        .into_iter()
        .filter(|v| !in_vars.iter().any(|x| x.id() == v.id()))
        .collect();
    let mut fargs: Vec<FuncArg> = inputs.iter().map(FuncArg::from).collect();
    fargs.extend(unbound.into_iter().map(FuncArg::Var));
    fargs.extend(
        outputs
            .iter()
            .filter(|t| !inputs.contains(t))
            .map(FuncArg::from),
    );
    let func = te::create_prim_func_with(&fargs, index_dtype).map_err(te_err)?;
    Ok(TeCall {
        func,
        inputs,
        outputs,
    })
}

// ----------------------------------------------------------------------------
// Argument helpers

fn dtype_arg(v: &Value) -> Res<DataType> {
    let s = match v {
        Value::Str(s) => s.to_string(),
        Value::NpDType(d) => return Ok(*d),
        other => {
            return Err(PyErr::type_error(format!(
                "dtype must be a string, not {}",
                other.type_name()
            )))
        }
    };
    DataType::parse(&s).ok_or_else(|| PyErr::value_error(format!("unknown dtype {s:?}")))
}

fn str_arg(v: Option<Value>, default: &str) -> Res<String> {
    match v {
        None | Some(Value::None) => Ok(default.to_string()),
        Some(Value::Str(s)) => Ok(s.to_string()),
        Some(other) => Err(PyErr::type_error(format!(
            "expected a string, found {}",
            other.type_name()
        ))),
    }
}

/// A shape: an int, an expression, or a tuple/list of them.
fn shape_arg(it: &mut Interp, v: &Value) -> Res<Vec<Expr>> {
    let items = match v {
        Value::Tuple(_) | Value::List(_) => it.items_of(v)?,
        other => vec![other.clone()],
    };
    if items.len() > 32 {
        return Err(PyErr::value_error(format!(
            "a shape of {} dimensions is too many",
            items.len()
        )));
    }
    items
        .iter()
        .map(|x| {
            let e = to_expr(x)?;
            if !(e.dtype().is_int() || e.dtype().is_uint()) {
                return Err(PyErr::type_error(format!(
                    "shape entries must be integers, found a {}",
                    e.dtype()
                )));
            }
            Ok(e)
        })
        .collect()
}

fn int_list(it: &mut Interp, v: &Value, what: &str) -> Res<Vec<i64>> {
    let items = match v {
        Value::Tuple(_) | Value::List(_) => it.items_of(v)?,
        other => vec![other.clone()],
    };
    items
        .iter()
        .map(|x| match x {
            Value::Int(i) => Ok(*i),
            Value::Bool(b) => Ok(*b as i64),
            other => match te_obj(other) {
                Some(TeObj::Expr(e)) if e.as_int().is_some() => Ok(e.as_int().unwrap_or(0)),
                _ => Err(PyErr::type_error(format!(
                    "{what} must be integers, found {}",
                    other.type_name()
                ))),
            },
        })
        .collect()
}

fn iter_vars(it: &mut Interp, v: &Value) -> Res<Vec<IterVar>> {
    let items = match v {
        Value::Tuple(_) | Value::List(_) => it.items_of(v)?,
        other => vec![other.clone()],
    };
    items
        .iter()
        .map(|x| match te_obj(x) {
            Some(TeObj::IterVar(iv)) => Ok(iv.clone()),
            _ => Err(PyErr::type_error(format!(
                "axis must be te.reduce_axis iteration variables, found {}",
                x.type_name()
            ))),
        })
        .collect()
}

fn is_axis_like(v: &Value) -> bool {
    match v {
        Value::List(l) => l
            .borrow()
            .iter()
            .all(|x| matches!(te_obj(x), Some(TeObj::IterVar(_)))),
        Value::Tuple(t) => t
            .iter()
            .all(|x| matches!(te_obj(x), Some(TeObj::IterVar(_)))),
        _ => matches!(te_obj(v), Some(TeObj::IterVar(iv)) if iv.kind == IterKind::Reduce),
    }
}

fn tensor_arg(v: &Value, what: &str) -> Res<Tensor> {
    as_tensor(v).ok_or_else(|| {
        PyErr::type_error(format!(
            "{what} expects a te.Tensor, found {}",
            v.type_name()
        ))
    })
}

fn opt_dtype(v: Option<Value>) -> Res<Option<DataType>> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(v) => Ok(Some(dtype_arg(&v)?)),
    }
}

// ----------------------------------------------------------------------------
// Installation

fn with(name: &str, f: BuiltinFn, data: &str) -> Value {
    crate::python::builtins::builtin_with(name, f, Value::str(data))
}

fn set_attr(m: &Value, k: &str, v: Value) {
    if let Value::Module(m) = m {
        m.attrs.borrow_mut().insert(k.to_string(), v);
    }
}

const MATH: &[&str] = &[
    "exp", "log", "log2", "log10", "sqrt", "rsqrt", "tanh", "sigmoid", "erf", "floor", "ceil",
    "round", "trunc", "sin", "cos", "tan", "abs",
];

/// Replaces the placeholder `tvm.te` / `tvm.topi` modules and adds the
/// expression helpers to `tvm.tir` / `tvm.tirx` (after `tvm::install`).
pub fn install(it: &mut Interp) {
    let ite = builtin("tvm.tir.if_then_else", if_then_else);
    let all = with("tvm.tir.all", all_any, "all");
    let any = with("tvm.tir.any", all_any, "any");
    let cnst = builtin("tvm.tir.const", tir_const);
    let mut te_attrs: Vec<(&str, Value)> = vec![
        ("placeholder", builtin("tvm.te.placeholder", te_placeholder)),
        ("compute", builtin("tvm.te.compute", te_compute)),
        ("reduce_axis", builtin("tvm.te.reduce_axis", te_reduce_axis)),
        ("var", builtin("tvm.te.var", te_var)),
        ("size_var", builtin("tvm.te.size_var", te_var)),
        ("sum", with("tvm.te.sum", te_reduce, "sum")),
        ("max", with("tvm.te.max", te_reduce, "max")),
        ("min", with("tvm.te.min", te_reduce, "min")),
        ("if_then_else", ite.clone()),
        ("all", all.clone()),
        ("any", any.clone()),
        ("const", cnst.clone()),
        ("power", builtin("tvm.te.power", te_power)),
        ("min_value", with("tvm.te.min_value", min_max_value, "min")),
        ("max_value", with("tvm.te.max_value", min_max_value, "max")),
        (
            "create_prim_func",
            builtin("tvm.te.create_prim_func", te_create_prim_func),
        ),
        (
            "create_schedule",
            builtin(
                "tvm.te.create_schedule",
                super::te_schedule::create_schedule,
            ),
        ),
        (
            "thread_axis",
            builtin("tvm.te.thread_axis", super::te_schedule::thread_axis),
        ),
    ];
    for m in MATH {
        te_attrs.push((m, with(&format!("tvm.te.{m}"), te_math, m)));
    }
    let te_mod = module("tvm.te", te_attrs);
    let _ = removed;
    let nn = module(
        "tvm.topi.nn",
        vec![
            ("relu", builtin("tvm.topi.nn.relu", topi_relu)),
            ("dense", builtin("tvm.topi.nn.dense", topi_dense)),
            ("matmul", builtin("tvm.topi.nn.matmul", topi_nn_matmul)),
            ("softmax", builtin("tvm.topi.nn.softmax", topi_softmax)),
            (
                "conv2d_nchw",
                builtin("tvm.topi.nn.conv2d_nchw", topi_conv2d_nchw),
            ),
        ],
    );
    let mut topi_attrs: Vec<(&str, Value)> = vec![
        ("nn", nn.clone()),
        ("matmul", builtin("tvm.topi.matmul", topi_matmul)),
        ("transpose", builtin("tvm.topi.transpose", topi_transpose)),
        ("reshape", builtin("tvm.topi.reshape", topi_reshape)),
        ("sum", with("tvm.topi.sum", topi_reduce, "sum")),
        ("max", with("tvm.topi.max", topi_reduce, "max")),
        ("min", with("tvm.topi.min", topi_reduce, "min")),
        ("argmax", with("tvm.topi.argmax", topi_reduce, "argmax")),
        ("argmin", with("tvm.topi.argmin", topi_reduce, "argmin")),
    ];
    for n in ["add", "subtract", "multiply", "divide"] {
        topi_attrs.push((n, with(&format!("tvm.topi.{n}"), topi_broadcast, n)));
    }
    let topi_mod = module("tvm.topi", topi_attrs);
    let int_imm = builtin("tvm.tirx.IntImm", int_imm);
    let float_imm = builtin("tvm.tirx.FloatImm", float_imm);
    for tir in ["tvm.tir", "tvm.tirx"] {
        // `tvm.tirx.expr`: the expression node classes, as constructors.
        let expr = module(
            &format!("{tir}.expr"),
            vec![("IntImm", int_imm.clone()), ("FloatImm", float_imm.clone())],
        );
        it.modules.insert(format!("{tir}.expr"), expr.clone());
        if let Some(m) = it.modules.get(tir).cloned() {
            set_attr(&m, "expr", expr);
            set_attr(&m, "IntImm", int_imm.clone());
            set_attr(&m, "FloatImm", float_imm.clone());
            set_attr(&m, "if_then_else", ite.clone());
            set_attr(&m, "all", all.clone());
            set_attr(&m, "any", any.clone());
            set_attr(&m, "const", cnst.clone());
            set_attr(&m, "Select", builtin("tvm.tir.Select", select));
            set_attr(&m, "Var", builtin("tvm.tir.Var", te_var));
            for f in MATH {
                set_attr(&m, f, with(&format!("tvm.tir.{f}"), te_math, f));
            }
        }
    }
    if let Some(tvm) = it.modules.get("tvm").cloned() {
        set_attr(&tvm, "te", te_mod.clone());
        // `tvm.build(s, args, …)` of a TE schedule lowers it first, then
        // builds through the ordinary `tvm.build`.
        if let Value::Module(m) = &tvm {
            let plain = m.attrs.borrow().get("build").cloned();
            if let Some(plain) = plain {
                let build = crate::python::builtins::builtin_with(
                    "tvm.build",
                    super::te_schedule::build,
                    plain,
                );
                set_attr(&tvm, "build", build);
            }
        }
        set_attr(
            &tvm,
            "lower",
            builtin("tvm.lower", super::te_schedule::lower),
        );
        set_attr(&tvm, "topi", topi_mod.clone());
    }
    it.modules.insert("tvm.te".into(), te_mod);
    it.modules.insert("tvm.topi".into(), topi_mod);
    it.modules.insert("tvm.topi.nn".into(), nn);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Interpreter, Limits};
    use tessel_ir::printer::{print_prim_func, PrintOptions};

    const DEFS: &str = "from tvm import te
def te_matmul(A, B):
    k = te.reduce_axis((0, A.shape[1]), name='k')
    return te.compute((A.shape[0], B.shape[1]),
                      lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name='matmul')
def te_take(A, n):
    return te.compute((n,), lambda i: A[i % A.shape[0]], name='take')
def te_bad(A):
    return 3
";

    fn session() -> Interpreter {
        let mut s = Interpreter::new(Limits::default());
        s.run_cell(DEFS, "<defs>").expect("definitions run");
        s
    }

    fn global(s: &Interpreter, name: &str) -> Value {
        s.inner.globals.get(name).cloned().expect("defined")
    }

    #[test]
    fn call_te_function_builds_the_prim_func_of_a_python_function() {
        let mut s = session();
        let f = global(&s, "te_matmul");
        let a = te::placeholder(&[Expr::i64(4), Expr::i64(3)], DataType::f32(), "A").unwrap();
        let b = te::placeholder(&[Expr::i64(3), Expr::i64(5)], DataType::f32(), "B").unwrap();
        let args = Args::new(vec![tensor_value(a.clone()), tensor_value(b.clone())]);
        let call = call_te_function(&mut s.inner, &f, args, Some(DataType::i64()))
            .unwrap_or_else(|_| panic!("call_te_function failed"));
        assert_eq!(call.inputs, vec![a, b]);
        assert_eq!(call.outputs.len(), 1);
        assert_eq!(call.outputs[0].name(), "matmul");
        assert_eq!(call.func.params.len(), 3);
        let text = print_prim_func(&call.func, "main", &PrintOptions::new(Dialect::Tirx));
        assert!(text.contains("T.sblock(\"matmul\")"), "{text}");
        assert!(text.contains("T.int64(4)"), "{text}");
        // And it computes a matmul (reference interpreter).
        use compiler_core::eval::{run_prim_func, EvalOptions, NDArray};
        let av: Vec<f64> = (0..12).map(|x| x as f64 * 0.5 - 2.0).collect();
        let bv: Vec<f64> = (0..15).map(|x| 1.0 - x as f64 * 0.25).collect();
        let mut args = vec![
            NDArray::from_f64_as(DataType::f32(), &[4, 3], &av).unwrap(),
            NDArray::from_f64_as(DataType::f32(), &[3, 5], &bv).unwrap(),
            NDArray::zeros(DataType::f32(), &[4, 5]).unwrap(),
        ];
        assert!(run_prim_func(&call.func, &mut args, &EvalOptions::default()).is_ok());
        let got = args[2].to_f64_vec();
        for i in 0..4 {
            for j in 0..5 {
                let want: f64 = (0..3).map(|k| av[i * 3 + k] * bv[k * 5 + j]).sum();
                assert!((got[i * 5 + j] - want).abs() < 1e-5, "({i}, {j})");
            }
        }
    }

    #[test]
    fn call_te_function_passes_unbound_size_vars_as_scalar_params() {
        let mut s = session();
        let f = global(&s, "te_take");
        let a = te::placeholder(&[Expr::i64(8)], DataType::f32(), "A").unwrap();
        let n = te::var("n", DataType::i64());
        let args = Args::new(vec![tensor_value(a), expr_value(n.to_expr())]);
        let call = call_te_function(&mut s.inner, &f, args, Some(DataType::i64()))
            .unwrap_or_else(|_| panic!("call_te_function failed"));
        // A, n, take
        assert_eq!(call.func.params.len(), 3);
        assert_eq!(call.func.buffer_map.len(), 2);
        assert_eq!(
            call.outputs[0].shape()[0].as_var().map(|v| v.id()),
            Some(n.id())
        );
    }

    #[test]
    fn call_te_function_reports_a_non_tensor_result_as_a_type_error() {
        let mut s = session();
        let f = global(&s, "te_bad");
        let a = te::placeholder(&[Expr::i64(8)], DataType::f32(), "A").unwrap();
        let err = call_te_function(&mut s.inner, &f, Args::new(vec![tensor_value(a)]), None)
            .err()
            .expect("an error");
        assert_eq!(err.lazy_kind(), Some(ExcKind::TypeError));
    }
}

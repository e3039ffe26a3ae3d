//! The graph layer (`tvm.relax`) as scripts see it: variables and struct
//! info, `relax.op.*` expressions, the `BlockBuilder`, `relax.build` and the
//! `VirtualMachine`, and `tvm.register_func` for `R.call_dps_packed`.
//!
//! Expressions are [`compiler_core::graph`] values wrapped in [`RObj`]; the builder
//! normalises them to A-normal form as TVM does (a nested call gets its own
//! binding) and infers struct info with [`compiler_core::graph::infer`]. The VM is
//! [`compiler_core::graph::vm::Vm`]: `call_tir` runs PrimFuncs through the script's
//! [`super::Backend`] (the reference interpreter by default) and
//! `call_dps_packed` finds functions the script registered with
//! `tvm.register_func`, calling them with `tvm.runtime.Tensor` arguments.
//!
//! `bb.emit_te(f, *args)` / `bb.call_te(...)` run the TE function on
//! placeholders named after the graph variables (a constant argument is named
//! after its position, `A`, `B`, …), add the PrimFunc to the builder's module
//! (private, named after `f` or `primfunc_name_hint`, `name1`… when taken, a
//! structurally equal one reused) and give the `R.call_tir` (bound by
//! `emit_te`). `relax.transform.{BindParams, LegalizeOps,
//! AnnotateTIROpPattern, FuseOps, FuseTIR, DeadCodeElimination}` and
//! `tvm.transform.Sequential` are passes callable on modules, running
//! [`compiler_core::graph::transform`]; a pass error is a `TVMError` at the call.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::builtins::{builtin, builtin_with};
use super::error::{ExcKind, PyErr, Res};
use super::host::{Device, Obj};
use super::interp::Interp;
use super::value::*;
use super::{Executable, TargetSpec};
use compiler_core::eval::NDArray;
use compiler_core::graph::infer::expr_sinfo;
use compiler_core::graph::vm::{Kernels, PackedRegistry, Value as VmValue, Vm};
use compiler_core::graph::{
    BinaryOp, Binding, BindingBlock, Conv2dAttrs, Expr, ExprKind, Function, Op, PrimExpr, SeqExpr,
    StructInfo, TensorInfo, Var,
};
use tessel_ir::printer::Dialect;
use tessel_ir::{AttrValue, BaseFunc, DataType, IRModule};

/// Reference-interpreter steps per script step (as for `tvm.build`).
const IR_STEPS_PER_STEP: u64 = 8;
/// Where `tvm.register_func` keeps the script's functions.
const REGISTRY: &str = "tvm.__registered_funcs__";
/// Where symbolic dimensions named by strings (`R.Tensor(("n", 4))`) live.
const SYMBOLS: &str = "tvm.__relax_symbols__";

/// Graph-layer host objects.
pub enum RObj {
    /// `relax.Var` (a parameter) or a variable the builder bound.
    Var(Var),
    /// An expression not bound yet (`relax.op.add(x, y)`).
    Expr(Expr),
    /// `relax.TensorStructInfo(...)`, `R.Tensor(...)`.
    SInfo(StructInfo),
    /// `relax.BlockBuilder()`.
    Builder(RefCell<Builder>),
    /// `tvm.ir.Op.get("relax.add")`.
    OpRef(String),
    /// `relax.build(mod, target)`.
    Exec(Rc<RelaxExec>),
    /// `relax.VirtualMachine(ex, dev)`.
    Vm(Rc<RelaxExec>),
    /// `vm["main"]`.
    VmFunc(Rc<RelaxExec>, String),
    /// `vm.time_evaluator("main", dev, number, repeat)`.
    VmTimer {
        exec: Rc<RelaxExec>,
        name: String,
        number: u64,
        repeat: u64,
    },
    /// A graph function (`mod["main"]`, a mutator's result).
    Func(Rc<Function>),
    /// A mutator's bindings so far (for `lookup_binding`).
    MutState(RefCell<HashMap<tessel_ir::VarId, Expr>>),
    /// A module pass (`@tvm.ir.transform.module_pass`): the script's object.
    ModulePass(Value),
    /// A built-in pass (`relax.transform.FuseOps()`) or `tvm.transform.Sequential`.
    Pass(Rc<GraphPass>),
}

/// The graph passes scripts can create ([`compiler_core::graph::transform`]).
pub enum GraphPass {
    BindParams(String, HashMap<String, NDArray>),
    LegalizeOps,
    AnnotateTIROpPattern,
    FuseOps,
    FuseTIR,
    DeadCodeElimination(Vec<String>),
    Sequential(Vec<Value>),
}

impl GraphPass {
    fn name(&self) -> &'static str {
        match self {
            GraphPass::BindParams(..) => "BindParams",
            GraphPass::LegalizeOps => "LegalizeOps",
            GraphPass::AnnotateTIROpPattern => "AnnotateTIROpPattern",
            GraphPass::FuseOps => "FuseOps",
            GraphPass::FuseTIR => "FuseTIR",
            GraphPass::DeadCodeElimination(_) => "DeadCodeElimination",
            GraphPass::Sequential(_) => "sequential",
        }
    }
}

/// A built graph module: the module and its PrimFuncs built by the backend.
pub struct RelaxExec {
    pub module: IRModule,
    pub kernels: Option<Rc<dyn Executable>>,
    pub target: String,
}

/// The state of a `BlockBuilder`.
#[derive(Default)]
pub struct Builder {
    module: IRModule,
    func: Option<FuncFrame>,
}

struct FuncFrame {
    name: String,
    params: Option<Vec<Var>>,
    private: bool,
    pure: bool,
    blocks: Vec<BindingBlock>,
    cur: Vec<Binding>,
    in_dataflow: bool,
    names: HashMap<String, usize>,
    done: bool,
}

impl FuncFrame {
    fn fresh_name(&mut self, hint: &str) -> String {
        let n = self.names.entry(hint.to_string()).or_insert(0);
        let name = if *n == 0 {
            hint.to_string()
        } else {
            format!("{hint}{n}")
        };
        *n += 1;
        name
    }
    fn flush(&mut self) {
        if !self.cur.is_empty() {
            self.blocks.push(BindingBlock {
                bindings: std::mem::take(&mut self.cur),
                dataflow: self.in_dataflow,
            });
        }
    }
}

impl RObj {
    pub fn class_name(&self) -> &'static str {
        match self {
            RObj::Var(v) if v.is_dataflow() => "tvm.relax.expr.DataflowVar",
            RObj::Var(_) => "tvm.relax.expr.Var",
            RObj::Expr(e) => match e.kind() {
                ExprKind::Call(_) => "tvm.relax.expr.Call",
                ExprKind::Constant(_) => "tvm.relax.expr.Constant",
                ExprKind::Tuple(_) => "tvm.relax.expr.Tuple",
                ExprKind::Shape(_) => "tvm.relax.expr.ShapeExpr",
                _ => "tvm.relax.expr.Expr",
            },
            RObj::SInfo(StructInfo::Tensor(_)) => "tvm.relax.struct_info.TensorStructInfo",
            RObj::SInfo(StructInfo::Tuple(_)) => "tvm.relax.struct_info.TupleStructInfo",
            RObj::SInfo(StructInfo::Shape(_)) => "tvm.relax.struct_info.ShapeStructInfo",
            RObj::SInfo(_) => "tvm.relax.struct_info.StructInfo",
            RObj::Builder(_) => "tvm.relax.block_builder.BlockBuilder",
            RObj::OpRef(_) => "tvm.ir.op.Op",
            RObj::Exec(_) => "tvm.relax.vm_build.VMExecutable",
            RObj::Vm(_) => "tvm.runtime.vm.VirtualMachine",
            RObj::VmFunc(..) | RObj::VmTimer { .. } => "tvm_ffi.core.Function",
            RObj::Func(_) => "tvm.relax.expr.Function",
            RObj::MutState(_) => "tvm.relax.expr_functor.MutatorState",
            RObj::ModulePass(_) => "tvm.ir.transform.ModulePass",
            RObj::Pass(p) if matches!(**p, GraphPass::Sequential(_)) => {
                "tvm.ir.transform.Sequential"
            }
            RObj::Pass(_) => "tvm.ir.transform.ModulePass",
        }
    }

    pub fn is_callable(&self) -> bool {
        matches!(
            self,
            RObj::VmFunc(..) | RObj::VmTimer { .. } | RObj::ModulePass(_) | RObj::Pass(_)
        )
    }

    pub fn repr(&self) -> String {
        match self {
            RObj::Var(v) => v.name().to_string(),
            RObj::Expr(e) => expr_text(e),
            RObj::SInfo(s) => s.describe(),
            RObj::Builder(_) => "<tvm.relax.block_builder.BlockBuilder object>".into(),
            RObj::OpRef(n) => format!("Op({n})"),
            RObj::Exec(_) => "<tvm.relax.vm_build.VMExecutable object>".into(),
            RObj::Vm(_) => "<tvm.runtime.vm.VirtualMachine object>".into(),
            RObj::VmFunc(_, n) | RObj::VmTimer { name: n, .. } => format!("<Function {n}>"),
            RObj::Func(f) => func_print(f, &func_name(f)),
            RObj::MutState(_) => "<mutator state>".into(),
            RObj::ModulePass(_) => "<tvm.ir.transform.ModulePass>".into(),
            RObj::Pass(p) => format!("<tvm.ir.transform.ModulePass {}>", p.name()),
        }
    }

    pub fn eq(&self, other: &RObj) -> Option<bool> {
        Some(match (self, other) {
            (RObj::OpRef(a), RObj::OpRef(b)) => a == b,
            (RObj::Var(a), RObj::Var(b)) => a == b,
            _ => return None,
        })
    }
}

/// A short text of an expression (for `repr` and error messages).
fn expr_text(e: &Expr) -> String {
    match e.kind() {
        ExprKind::Var(v) => v.name().to_string(),
        ExprKind::Constant(a) => format!("R.const(<{} tensor {:?}>)", a.dtype(), a.shape()),
        ExprKind::Tuple(f) => {
            let parts: Vec<String> = f.iter().map(expr_text).collect();
            format!("({})", parts.join(", "))
        }
        ExprKind::TupleGetItem(t, i) => format!("{}[{i}]", expr_text(t)),
        ExprKind::Shape(v) => format!("R.shape({})", compiler_core::graph::op::shape_text(v)),
        ExprKind::PrimValue(_) => "R.prim_value(...)".into(),
        ExprKind::Str(s) => format!("R.str({s:?})"),
        ExprKind::GlobalVar(g) => format!("cls.{}", g.name()),
        ExprKind::ExternFunc(s) => format!("{s:?}"),
        ExprKind::Call(c) => {
            let callee = match &c.callee {
                compiler_core::graph::Callee::Op(op) => format!("R.{}", op.script_name()),
                compiler_core::graph::Callee::Global(g) => format!("cls.{}", g.name()),
            };
            let parts: Vec<String> = c.args.iter().map(expr_text).collect();
            format!("{callee}({})", parts.join(", "))
        }
    }
}

fn host(o: RObj) -> Value {
    Value::Host(Rc::new(Obj::Relax(o)))
}

fn relax_obj(v: &Value) -> Option<&RObj> {
    match v {
        Value::Host(o) => match &**o {
            Obj::Relax(r) => Some(r),
            _ => None,
        },
        _ => None,
    }
}

// ----------------------------------------------------------------------------
// Conversions

/// A script value used as a graph expression.
fn to_expr(it: &mut Interp, v: &Value) -> Res<Expr> {
    if let Some(r) = relax_obj(v) {
        return match r {
            RObj::Var(v) => Ok(v.to_expr()),
            RObj::Expr(e) => Ok(e.clone()),
            other => Err(PyErr::type_error(format!(
                "expected a Relax expression, got {}",
                other.class_name()
            ))),
        };
    }
    match v {
        Value::Tuple(_) | Value::List(_) => {
            let items = it.items_of(v)?;
            let mut out = Vec::with_capacity(items.len());
            for x in &items {
                out.push(to_expr(it, x)?);
            }
            Ok(Expr::tuple(out))
        }
        Value::Array(a) => Ok(Expr::constant(a.borrow().clone())),
        Value::Host(o) => match &**o {
            Obj::Tensor { data, .. } => Ok(Expr::constant(data.borrow().clone())),
            Obj::GlobalVar(n) => Ok(Expr::global(n)),
            _ => Err(PyErr::type_error(format!(
                "expected a Relax expression, got {}",
                o.type_name()
            ))),
        },
        Value::Float(f) => Ok(Expr::constant(
            NDArray::scalar_f64(DataType::f32(), *f).map_err(PyErr::value_error)?,
        )),
        other => Err(PyErr::type_error(format!(
            "expected a Relax expression, got {}",
            other.type_name()
        ))),
    }
}

/// A dimension: an int, or a string naming a symbolic `int64` variable (the
/// same name is the same variable for the whole run).
fn to_dim(it: &mut Interp, v: &Value) -> Res<PrimExpr> {
    match v {
        Value::Int(i) => Ok(PrimExpr::i64(*i)),
        Value::NpScalar(s) if !s.dtype.is_float() => Ok(PrimExpr::i64(s.num.as_i64())),
        Value::Str(name) => {
            let reg = registry_module(it, SYMBOLS);
            let Value::Module(m) = &reg else {
                return Err(PyErr::value_error("no symbol table"));
            };
            if let Some(Value::Host(o)) = m.attrs.borrow().get(&**name) {
                if let Obj::Relax(RObj::Expr(e)) = &**o {
                    if let ExprKind::PrimValue(p) = e.kind() {
                        return Ok(p.clone());
                    }
                }
            }
            let var = tessel_ir::Var::new(name.to_string(), DataType::i64());
            let p: PrimExpr = PrimExpr::from(&var);
            let stored = Expr::new(ExprKind::PrimValue(p.clone()), Default::default());
            m.attrs
                .borrow_mut()
                .insert(name.to_string(), host(RObj::Expr(stored)));
            Ok(p)
        }
        other => Err(PyErr::type_error(format!(
            "a dimension must be an int or a name, not {}",
            other.type_name()
        ))),
    }
}

fn to_dims(it: &mut Interp, v: &Value) -> Res<Vec<PrimExpr>> {
    if let Some(RObj::Expr(e)) = relax_obj(v) {
        if let ExprKind::Shape(s) = e.kind() {
            return Ok(s.clone());
        }
    }
    let items = match v {
        Value::Int(_) => vec![v.clone()],
        _ => it.items_of(v)?,
    };
    items.iter().map(|d| to_dim(it, d)).collect()
}

fn dtype_opt(it: &mut Interp, v: Option<Value>) -> Res<Option<DataType>> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(v) => {
            if v.as_str() == Some("") {
                return Ok(None);
            }
            Ok(Some(super::numpy::dtype_arg(it, &v)?))
        }
    }
}

/// A script value used as struct info.
fn to_sinfo(it: &mut Interp, v: &Value) -> Res<StructInfo> {
    if let Some(RObj::SInfo(s)) = relax_obj(v) {
        return Ok(s.clone());
    }
    match v {
        Value::Tuple(_) | Value::List(_) => {
            let items = it.items_of(v)?;
            let mut out = Vec::with_capacity(items.len());
            for x in &items {
                out.push(to_sinfo(it, x)?);
            }
            Ok(StructInfo::Tuple(out))
        }
        other => Err(PyErr::type_error(format!(
            "expected struct info (relax.TensorStructInfo or R.Tensor), got {}",
            other.type_name()
        ))),
    }
}

fn to_axes(it: &mut Interp, v: Option<Value>) -> Res<Option<Vec<i64>>> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(Value::Int(i)) => Ok(Some(vec![i])),
        Some(v) => {
            let items = it.items_of(&v)?;
            let mut out = Vec::new();
            for x in items {
                out.push(
                    super::ops::num_i64(&x)
                        .ok_or_else(|| PyErr::type_error("axes must be integers"))?,
                );
            }
            Ok(Some(out))
        }
    }
}

fn to_array(it: &mut Interp, v: &Value) -> Res<NDArray> {
    match v {
        Value::Host(o) => match &**o {
            Obj::Tensor { data, .. } => Ok(data.borrow().clone()),
            _ => Err(PyErr::type_error(format!(
                "expected a tensor, got {}",
                o.type_name()
            ))),
        },
        _ => super::numpy::module::array_from(it, v, None),
    }
}

fn tensor_value(it: &mut Interp, arr: NDArray) -> Res<Value> {
    let data = it.array_obj(arr)?;
    Ok(Value::Host(Rc::new(Obj::Tensor {
        data,
        device: Device::cpu(),
    })))
}

fn from_vm(it: &mut Interp, v: VmValue) -> Res<Value> {
    Ok(match v {
        VmValue::Tensor(t) => tensor_value(it, t)?,
        VmValue::Tuple(items) => {
            let mut out = Vec::with_capacity(items.len());
            for x in items {
                out.push(from_vm(it, x)?);
            }
            Value::tuple(out)
        }
        VmValue::Shape(s) => Value::tuple(s.into_iter().map(Value::Int).collect()),
        VmValue::Prim(p) => Value::Int(p),
        VmValue::Str(s) => Value::str(s),
        VmValue::Func(f) => Value::str(f),
    })
}

fn to_vm(it: &mut Interp, v: &Value) -> Res<VmValue> {
    match v {
        Value::Tuple(_) | Value::List(_) => {
            let items = it.items_of(v)?;
            let mut out = Vec::with_capacity(items.len());
            for x in &items {
                out.push(to_vm(it, x)?);
            }
            Ok(VmValue::Tuple(out))
        }
        Value::Int(i) => Ok(VmValue::Prim(*i)),
        _ => Ok(VmValue::Tensor(to_array(it, v)?)),
    }
}

// ----------------------------------------------------------------------------
// Registries kept in hidden modules of the run

fn registry_module(it: &mut Interp, key: &str) -> Value {
    if let Some(m) = it.modules.get(key) {
        return m.clone();
    }
    let m = Value::Module(Rc::new(ModuleObj {
        name: key.to_string(),
        attrs: RefCell::new(HashMap::new()),
        missing_note: None,
    }));
    it.modules.insert(key.to_string(), m.clone());
    m
}

fn registered(it: &mut Interp, name: &str) -> Option<Value> {
    match it.modules.get(REGISTRY)? {
        Value::Module(m) => m.attrs.borrow().get(name).cloned(),
        _ => None,
    }
}

/// `tvm.register_func(name, f=None, override=False)`: a decorator when `f`
/// is missing.
fn register_func(it: &mut Interp, mut a: Args) -> Res<Value> {
    // The decorator's second stage carries the name in `data`.
    if let Some(Value::Tuple(d)) = a.data.clone() {
        let name = d[0].as_str().unwrap_or_default().to_string();
        let overr = matches!(d[1], Value::Bool(true));
        let f = a.req(0, "f", "register_func")?;
        return do_register(it, &name, f, overr);
    }
    let first = a.req(0, "func_name", "register_func")?;
    let f = a.take(1, "f");
    let overr = a
        .take(2, "override")
        .map(|v| matches!(v, Value::Bool(true)))
        .unwrap_or(false);
    a.done("register_func", 3)?;
    match (&first, f) {
        (Value::Str(name), Some(f)) if !matches!(f, Value::None) => do_register(it, name, f, overr),
        (Value::Str(name), _) => Ok(builtin_with(
            "tvm.register_func.<decorator>",
            register_func,
            Value::tuple(vec![Value::str(&**name), Value::Bool(overr)]),
        )),
        // `@tvm.register_func` on a function: registered under its own name.
        (f, _) => {
            let name = match f {
                Value::Func(func) => func.name.to_string(),
                _ => {
                    return Err(PyErr::type_error(
                        "register_func() takes a name or a function",
                    ))
                }
            };
            do_register(it, &name, f.clone(), overr)
        }
    }
}

fn do_register(it: &mut Interp, name: &str, f: Value, overr: bool) -> Res<Value> {
    if registered(it, name).is_some() && !overr {
        return Err(PyErr::new(
            ExcKind::TVMError,
            format!(
                "Global Function `{name}` is already registered (pass override=True to replace it)"
            ),
        ));
    }
    let reg = registry_module(it, REGISTRY);
    if let Value::Module(m) = &reg {
        m.attrs.borrow_mut().insert(name.to_string(), f.clone());
    }
    Ok(f)
}

fn get_global_func(it: &mut Interp, mut a: Args) -> Res<Value> {
    let name = a.req(0, "name", "get_global_func")?;
    let allow_missing = a
        .take(1, "allow_missing")
        .map(|v| matches!(v, Value::Bool(true)))
        .unwrap_or(false);
    let name = name.as_str().unwrap_or_default().to_string();
    match registered(it, &name) {
        Some(f) => Ok(f),
        None if allow_missing => Ok(Value::None),
        None => Err(PyErr::value_error(format!(
            "Cannot find global function {name}"
        ))),
    }
}

// ----------------------------------------------------------------------------
// Constructors

fn relax_var(it: &mut Interp, mut a: Args) -> Res<Value> {
    let name = a.req(0, "name_hint", "Var")?;
    let sinfo = a.take(1, "struct_info");
    a.done("Var", 2)?;
    let name = it.str_of(&name)?;
    let sinfo = match sinfo {
        Some(v) if !matches!(v, Value::None) => to_sinfo(it, &v)?,
        _ => StructInfo::Object,
    };
    Ok(host(RObj::Var(Var::new(name, sinfo))))
}

fn tensor_sinfo(it: &mut Interp, mut a: Args) -> Res<Value> {
    let shape = a.take(0, "shape");
    let dtype = a.take(1, "dtype").unwrap_or(Value::str("float32"));
    let ndim = a.take_kw("ndim");
    let _ = a.take_kw("vdevice");
    a.done("TensorStructInfo", 2)?;
    let dtype = dtype_opt(it, Some(dtype))?;
    let info = match shape {
        Some(s) if !matches!(s, Value::None) => TensorInfo::new(to_dims(it, &s)?, dtype),
        _ => TensorInfo::with_ndim(
            ndim.and_then(|v| super::ops::num_i64(&v))
                .filter(|&n| n >= 0)
                .map(|n| n as usize),
            dtype,
        ),
    };
    Ok(host(RObj::SInfo(StructInfo::Tensor(info))))
}

fn relax_const(it: &mut Interp, mut a: Args) -> Res<Value> {
    let v = a.req(0, "value", "const")?;
    let dtype = a.take(1, "dtype");
    a.done("const", 2)?;
    let dtype = dtype_opt(it, dtype)?;
    let arr =
        match &v {
            Value::Float(f) => NDArray::scalar_f64(dtype.unwrap_or(DataType::f32()), *f)
                .map_err(PyErr::value_error)?,
            Value::Int(i) => NDArray::scalar_i64(dtype.unwrap_or(DataType::i32()), *i)
                .map_err(PyErr::value_error)?,
            _ => {
                let arr = to_array(it, &v)?;
                match dtype {
                    Some(d) if d != arr.dtype() => {
                        NDArray::from_f64_as(d, arr.shape(), &arr.to_f64_vec())
                            .map_err(PyErr::value_error)?
                    }
                    _ => arr,
                }
            }
        };
    Ok(host(RObj::Expr(Expr::constant(arr))))
}

fn shape_expr(it: &mut Interp, mut a: Args) -> Res<Value> {
    let v = a.req(0, "values", "shape")?;
    let dims = to_dims(it, &v)?;
    Ok(host(RObj::Expr(Expr::shape(dims))))
}

fn op_get(it: &mut Interp, mut a: Args) -> Res<Value> {
    let name = a.req(0, "op_name", "Op.get")?;
    let name = it.str_of(&name)?;
    let known = name
        .strip_prefix("relax.")
        .map(|n| compiler_core::graph::op::OP_NAMES.contains(&n) || n == "linear")
        .unwrap_or(false);
    if !known {
        return Err(PyErr::value_error(format!(
            "Cannot find op `{name}` (Tessel knows relax.{})",
            compiler_core::graph::op::OP_NAMES.join(", relax.")
        )));
    }
    Ok(host(RObj::OpRef(name)))
}

// ----------------------------------------------------------------------------
// relax.op.*

/// One builder for every operator; the operator's name is the data.
fn op_call(it: &mut Interp, mut a: Args) -> Res<Value> {
    let name = a
        .data
        .as_ref()
        .and_then(|d| d.as_str().map(str::to_string))
        .unwrap_or_default();
    let f = name.as_str();
    let arg = |a: &mut Args, it: &mut Interp, i: usize, n: &str| -> Res<Expr> {
        let v = a.req(i, n, f)?;
        to_expr(it, &v)
    };
    let binary = |b| Op::Binary(b);
    let e = match f {
        "add" | "subtract" | "multiply" | "divide" => {
            let x = arg(&mut a, it, 0, "x1")?;
            let y = arg(&mut a, it, 1, "x2")?;
            a.done(f, 2)?;
            let b = match f {
                "add" => BinaryOp::Add,
                "subtract" => BinaryOp::Subtract,
                "multiply" => BinaryOp::Multiply,
                _ => BinaryOp::Divide,
            };
            Expr::op(binary(b), vec![x, y])
        }
        "nn.relu" => {
            let x = arg(&mut a, it, 0, "data")?;
            a.done(f, 1)?;
            Expr::op(Op::Relu, vec![x])
        }
        "matmul" => {
            let x = arg(&mut a, it, 0, "x1")?;
            let y = arg(&mut a, it, 1, "x2")?;
            let out_dtype = dtype_opt(it, a.take(2, "out_dtype"))?;
            a.done(f, 3)?;
            Expr::op(Op::Matmul { out_dtype }, vec![x, y])
        }
        "permute_dims" => {
            let x = arg(&mut a, it, 0, "x")?;
            let axes = to_axes(it, a.take(1, "axes"))?;
            a.done(f, 2)?;
            Expr::op(Op::PermuteDims { axes }, vec![x])
        }
        "linear" => {
            let x = arg(&mut a, it, 0, "data")?;
            let w = arg(&mut a, it, 1, "weight")?;
            let b = match a.take(2, "bias") {
                None | Some(Value::None) => None,
                Some(v) => Some(to_expr(it, &v)?),
            };
            let out_dtype = dtype_opt(it, a.take(3, "out_dtype"))?;
            a.done(f, 4)?;
            compiler_core::graph::op::linear(x, w, b, out_dtype)
        }
        "ewise_fma" => {
            let x = arg(&mut a, it, 0, "x1")?;
            let y = arg(&mut a, it, 1, "x2")?;
            let z = arg(&mut a, it, 2, "x3")?;
            a.done(f, 3)?;
            Expr::op(Op::EwiseFma, vec![x, y, z])
        }
        "reshape" => {
            let x = arg(&mut a, it, 0, "x")?;
            let s = a.req(1, "shape", f)?;
            a.done(f, 2)?;
            let dims = to_dims(it, &s)?;
            Expr::op(Op::Reshape, vec![x, Expr::shape(dims)])
        }
        "nn.softmax" => {
            let x = arg(&mut a, it, 0, "data")?;
            let axis = a
                .take(1, "axis")
                .and_then(|v| super::ops::num_i64(&v))
                .unwrap_or(-1);
            a.done(f, 2)?;
            Expr::op(Op::Softmax { axis }, vec![x])
        }
        "sum" | "mean" => {
            let x = arg(&mut a, it, 0, "x")?;
            let axis = to_axes(it, a.take(1, "axis"))?;
            let keepdims = a
                .take(2, "keepdims")
                .map(|v| matches!(v, Value::Bool(true)))
                .unwrap_or(false);
            a.done(f, 3)?;
            if f == "sum" {
                Expr::op(Op::Sum { axis, keepdims }, vec![x])
            } else {
                Expr::op(Op::Mean { axis, keepdims }, vec![x])
            }
        }
        "nn.conv2d" => {
            let x = arg(&mut a, it, 0, "data")?;
            let w = arg(&mut a, it, 1, "weight")?;
            let mut attrs = Conv2dAttrs::default();
            let pair = |it: &mut Interp, v: Option<Value>, d: [i64; 2]| -> Res<[i64; 2]> {
                Ok(match to_axes(it, v)? {
                    None => d,
                    Some(v) if v.len() == 1 => [v[0], v[0]],
                    Some(v) if v.len() == 2 => [v[0], v[1]],
                    Some(v) => {
                        return Err(PyErr::value_error(format!(
                            "conv2d expects 1 or 2 values, got {v:?}"
                        )))
                    }
                })
            };
            attrs.strides = pair(it, a.take(2, "strides"), [1, 1])?;
            attrs.padding = match to_axes(it, a.take(3, "padding"))? {
                None => [0; 4],
                Some(v) if v.len() == 1 => [v[0]; 4],
                Some(v) if v.len() == 2 => [v[0], v[1], v[0], v[1]],
                Some(v) if v.len() == 4 => [v[0], v[1], v[2], v[3]],
                Some(v) => {
                    return Err(PyErr::value_error(format!(
                        "conv2d padding takes 1, 2 or 4 values, got {v:?}"
                    )))
                }
            };
            attrs.dilation = pair(it, a.take(4, "dilation"), [1, 1])?;
            if let Some(g) = a.take(5, "groups").and_then(|v| super::ops::num_i64(&v)) {
                attrs.groups = g;
            }
            for (i, key) in ["data_layout", "kernel_layout", "out_layout"]
                .iter()
                .enumerate()
            {
                if let Some(v) = a.take(6 + i, key) {
                    let s = it.str_of(&v)?;
                    match i {
                        0 => attrs.data_layout = s,
                        1 => attrs.kernel_layout = s,
                        _ => attrs.out_layout = s,
                    }
                }
            }
            attrs.out_dtype = dtype_opt(it, a.take(9, "out_dtype"))?;
            a.done(f, 10)?;
            Expr::op(Op::Conv2d(attrs), vec![x, w])
        }
        "call_tir" | "call_dps_packed" => {
            let callee = a.req(0, "gvar", f)?;
            let args = a.req(1, "args", f)?;
            let out = a
                .take(2, "out_sinfo")
                .ok_or_else(|| PyErr::type_error(format!("{f}() needs out_sinfo")))?;
            let tir_vars = a.take(3, "tir_vars");
            a.done(f, 4)?;
            let name = match (&callee, relax_obj(&callee)) {
                (Value::Str(s), _) => s.to_string(),
                (Value::Host(o), _) if matches!(&**o, Obj::GlobalVar(_)) => {
                    let Obj::GlobalVar(n) = &**o else {
                        unreachable!()
                    };
                    n.clone()
                }
                _ => {
                    return Err(PyErr::type_error(format!(
                        "{f}() takes a GlobalVar or a function name, not {}",
                        callee.type_name()
                    )))
                }
            };
            let args = match to_expr(it, &args)? {
                e if matches!(e.kind(), ExprKind::Tuple(_)) => e,
                e => Expr::tuple(vec![e]),
            };
            let ExprKind::Tuple(items) = args.kind().clone() else {
                unreachable!()
            };
            let out = match to_sinfo(it, &out)? {
                StructInfo::Tuple(v) if v.len() == 1 => v[0].clone(),
                s => s,
            };
            let mut e = if f == "call_tir" {
                Expr::call_tir(&name, items, out)
            } else {
                Expr::call_dps_packed(&name, items, out)
            };
            if let Some(tv) = tir_vars.filter(|v| !matches!(v, Value::None)) {
                let dims = to_dims(it, &tv)?;
                if let ExprKind::Call(c) = e.kind() {
                    let mut c = c.clone();
                    c.args.push(Expr::shape(dims));
                    e = Expr::call(c);
                }
            }
            e
        }
        _ => {
            return Err(PyErr::attribute_error(format!(
                "relax.op.{f} is not supported by Tessel"
            )))
        }
    };
    Ok(host(RObj::Expr(e)))
}

// ----------------------------------------------------------------------------
// BlockBuilder

fn builder_new(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let m = a.take(0, "mod");
    let module = match m {
        Some(Value::Host(o)) => match &*o {
            Obj::IRModule { module, .. } => module.borrow().clone(),
            _ => IRModule::new(),
        },
        _ => IRModule::new(),
    };
    Ok(host(RObj::Builder(RefCell::new(Builder {
        module,
        func: None,
    }))))
}

fn bb_of(v: &Value) -> Res<&RefCell<Builder>> {
    match relax_obj(v) {
        Some(RObj::Builder(b)) => Ok(b),
        _ => Err(PyErr::type_error("expected a BlockBuilder")),
    }
}

/// A `with` scope: an instance whose `__enter__`/`__exit__` are builtins
/// carrying the builder and the scope's kind.
fn scope(it: &mut Interp, bb: &Value, kind: &str) -> Value {
    let class = it
        .types
        .host_class("tvm.relax.block_builder.BlockBuilderScope");
    let data = Value::tuple(vec![bb.clone(), Value::str(kind)]);
    let mut dict = HashMap::new();
    dict.insert(
        "__enter__".to_string(),
        builtin_with("BlockBuilder.__enter__", scope_enter, data.clone()),
    );
    dict.insert(
        "__exit__".to_string(),
        builtin_with("BlockBuilder.__exit__", scope_exit, data),
    );
    Value::Instance(Rc::new(Instance {
        class,
        dict: RefCell::new(dict),
    }))
}

fn scope_data(a: &Args) -> Res<(Value, String)> {
    match &a.data {
        Some(Value::Tuple(d)) if d.len() == 2 => {
            Ok((d[0].clone(), d[1].as_str().unwrap_or_default().to_string()))
        }
        _ => Err(PyErr::type_error("not a BlockBuilder scope")),
    }
}

fn scope_enter(_it: &mut Interp, a: Args) -> Res<Value> {
    let (bbv, kind) = scope_data(&a)?;
    let bb = bb_of(&bbv)?;
    let mut b = bb.borrow_mut();
    if kind == "dataflow" {
        let Some(f) = b.func.as_mut() else {
            return Err(PyErr::value_error(
                "bb.dataflow() must be inside `with bb.function(...)`",
            ));
        };
        if f.in_dataflow {
            return Err(PyErr::value_error("dataflow blocks cannot nest"));
        }
        f.flush();
        f.in_dataflow = true;
    }
    Ok(Value::None)
}

fn scope_exit(_it: &mut Interp, a: Args) -> Res<Value> {
    let (bbv, kind) = scope_data(&a)?;
    let failing = !matches!(a.pos.first(), None | Some(Value::None));
    let bb = bb_of(&bbv)?;
    let mut b = bb.borrow_mut();
    if kind == "dataflow" {
        if let Some(f) = b.func.as_mut() {
            f.flush();
            f.in_dataflow = false;
        }
        return Ok(Value::Bool(false));
    }
    let f = b.func.take();
    if failing {
        return Ok(Value::Bool(false));
    }
    match f {
        Some(f) if f.done => Ok(Value::Bool(false)),
        Some(f) => Err(PyErr::value_error(format!(
            "function `{}` was not finished: call bb.emit_func_output(...) inside `with bb.function(...)`",
            f.name
        ))),
        None => Ok(Value::Bool(false)),
    }
}

fn flag(v: Option<Value>) -> Option<bool> {
    v.map(|v| matches!(v, Value::Bool(true)))
}

fn params_arg(it: &mut Interp, v: Option<Value>) -> Res<Option<Vec<Var>>> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(v) => {
            let items = match relax_obj(&v) {
                Some(RObj::Var(_)) => vec![v.clone()],
                _ => it.items_of(&v)?,
            };
            let mut out = Vec::new();
            for x in items {
                match relax_obj(&x) {
                    Some(RObj::Var(var)) => out.push(var.clone()),
                    _ => {
                        return Err(PyErr::type_error(format!(
                            "function parameters must be relax.Var, not {}",
                            x.type_name()
                        )))
                    }
                }
            }
            Ok(Some(out))
        }
    }
}

/// Binds `e` (normalising nested calls first) in the current block.
fn emit_expr(b: &mut Builder, e: Expr, hint: Option<&str>, output: bool) -> Res<Var> {
    let e = normalize_args(b, e)?;
    let sinfo = expr_sinfo(&e, &b.module).map_err(|m| PyErr::new(ExcKind::TVMError, m))?;
    let Some(f) = b.func.as_mut() else {
        return Err(PyErr::value_error(
            "bb.emit must be inside `with bb.function(...)`",
        ));
    };
    // A dataflow variable may not escape its block.
    let mut escaped = None;
    e.for_each_var(&mut |v| {
        if v.is_dataflow() && !f.in_dataflow {
            escaped = Some(v.name().to_string());
        }
    });
    if let Some(n) = escaped {
        return Err(PyErr::value_error(format!(
            "the dataflow variable `{n}` is used outside its dataflow block (emit it with bb.emit_output)"
        )));
    }
    let dataflow = f.in_dataflow && !output;
    let default = if dataflow { "lv" } else { "gv" };
    let name = f.fresh_name(hint.filter(|h| !h.is_empty()).unwrap_or(default));
    let var = Var::with(name, sinfo, dataflow, Default::default());
    f.cur.push(Binding::new(var.clone(), e));
    Ok(var)
}

/// The arguments of a call that are themselves calls get their own bindings.
fn normalize_args(b: &mut Builder, e: Expr) -> Res<Expr> {
    match e.kind() {
        ExprKind::Call(c) => {
            let mut c = c.clone();
            for a in c.args.iter_mut() {
                *a = leaf(b, a.clone())?;
            }
            Ok(Expr::call(c))
        }
        ExprKind::Tuple(fields) => {
            let mut out = Vec::with_capacity(fields.len());
            for x in fields {
                out.push(leaf(b, x.clone())?);
            }
            Ok(Expr::tuple(out))
        }
        _ => Ok(e),
    }
}

fn leaf(b: &mut Builder, e: Expr) -> Res<Expr> {
    match e.kind() {
        ExprKind::Call(_) => Ok(emit_expr(b, e, None, false)?.to_expr()),
        ExprKind::Tuple(_) => normalize_args(b, e),
        _ => Ok(e),
    }
}

fn builder_method(it: &mut Interp, bbv: &Value, name: &str, mut a: Args) -> Res<Value> {
    let bb = bb_of(bbv)?;
    match name {
        "function" => {
            let fname = a.req(0, "name", "function")?;
            let fname = it.str_of(&fname)?;
            let params = params_arg(it, a.take(1, "params"))?;
            let _attrs = a.take(2, "attrs");
            let pure = flag(a.take(3, "pure")).unwrap_or(true);
            let private = flag(a.take(4, "private")).unwrap_or(false);
            a.done("function", 5)?;
            let mut b = bb.borrow_mut();
            if b.func.is_some() {
                return Err(PyErr::value_error(
                    "bb.function scopes cannot nest: finish the current function first",
                ));
            }
            let mut names = HashMap::new();
            for p in params.iter().flatten() {
                names.insert(p.name().to_string(), 1);
            }
            b.func = Some(FuncFrame {
                name: fname,
                params,
                private,
                pure,
                blocks: Vec::new(),
                cur: Vec::new(),
                in_dataflow: false,
                names,
                done: false,
            });
            drop(b);
            Ok(scope(it, bbv, "function"))
        }
        "dataflow" => {
            a.done("dataflow", 0)?;
            Ok(scope(it, bbv, "dataflow"))
        }
        "emit" | "emit_output" | "emit_normalized" => {
            let v = a.req(0, "expr", name)?;
            let hint = a.take(1, "name_hint");
            a.done(name, 2)?;
            let hint = match hint {
                Some(h) if !matches!(h, Value::None) => Some(it.str_of(&h)?),
                _ => None,
            };
            let e = to_expr(it, &v)?;
            let output = name == "emit_output";
            let mut b = bb.borrow_mut();
            if output && !b.func.as_ref().map(|f| f.in_dataflow).unwrap_or(false) {
                return Err(PyErr::value_error(
                    "bb.emit_output must be called inside a dataflow block (`with bb.dataflow():`)",
                ));
            }
            let var = emit_expr(&mut b, e, hint.as_deref(), output)?;
            Ok(host(RObj::Var(var)))
        }
        "emit_func_output" => {
            let out = a.req(0, "output", name)?;
            let params = params_arg(it, a.take(1, "params"))?;
            a.done(name, 2)?;
            let e = to_expr(it, &out)?;
            let mut b = bb.borrow_mut();
            {
                let Some(f) = b.func.as_mut() else {
                    return Err(PyErr::value_error(
                        "bb.emit_func_output must be inside `with bb.function(...)`",
                    ));
                };
                if f.in_dataflow {
                    return Err(PyErr::value_error(
                        "bb.emit_func_output must be called outside the dataflow block",
                    ));
                }
                if f.done {
                    return Err(PyErr::value_error(
                        "bb.emit_func_output was already called for this function",
                    ));
                }
                if let Some(p) = params {
                    if f.params.is_some() {
                        return Err(PyErr::value_error(
                            "the parameters were given to bb.function already",
                        ));
                    }
                    f.params = Some(p);
                }
            }
            let body = match e.kind() {
                ExprKind::Call(_) => emit_expr(&mut b, e, None, false)?.to_expr(),
                _ => normalize_args(&mut b, e)?,
            };
            let ret = expr_sinfo(&body, &b.module).map_err(|m| PyErr::new(ExcKind::TVMError, m))?;
            let Some(f) = b.func.as_mut() else {
                return Err(PyErr::value_error("no function"));
            };
            let mut escaped = None;
            body.for_each_var(&mut |v| {
                if v.is_dataflow() {
                    escaped = Some(v.name().to_string());
                }
            });
            if let Some(n) = escaped {
                return Err(PyErr::value_error(format!(
                    "the function returns the dataflow variable `{n}`: emit it with bb.emit_output first"
                )));
            }
            let Some(params) = f.params.clone() else {
                return Err(PyErr::value_error(format!(
                    "function `{}` has no parameters: pass params= to bb.function or bb.emit_func_output",
                    f.name
                )));
            };
            f.flush();
            f.done = true;
            let mut attrs = std::collections::BTreeMap::new();
            if !f.private {
                attrs.insert("global_symbol".to_string(), AttrValue::Str(f.name.clone()));
            }
            let func = Function {
                params,
                body: SeqExpr {
                    blocks: std::mem::take(&mut f.blocks),
                    body,
                },
                ret,
                attrs,
                pure: f.pure,
                span: Default::default(),
            };
            let fname = f.name.clone();
            b.module.insert(fname, BaseFunc::Graph(Rc::new(func)));
            Ok(Value::None)
        }
        "get" | "finalize" => {
            a.done(name, 0)?;
            let b = bb.borrow();
            Ok(Value::Host(Rc::new(Obj::IRModule {
                module: RefCell::new(b.module.clone()),
                dialect: Dialect::Tirx,
            })))
        }
        "add_func" => {
            let f = a.req(0, "func", name)?;
            let fname = a.req(1, "func_name", name)?;
            a.done(name, 2)?;
            let fname = it.str_of(&fname)?;
            let func = match &f {
                Value::Host(o) => match &**o {
                    Obj::PrimFunc { func, .. } => BaseFunc::Prim(func.clone()),
                    Obj::Relax(RObj::Func(g)) => BaseFunc::Graph(g.clone()),
                    _ => {
                        return Err(PyErr::type_error(format!(
                            "add_func() takes a PrimFunc, not {}",
                            o.type_name()
                        )))
                    }
                },
                other => {
                    return Err(PyErr::type_error(format!(
                        "add_func() takes a PrimFunc, not {}",
                        other.type_name()
                    )))
                }
            };
            bb.borrow_mut().module.insert(fname.clone(), func);
            Ok(Value::Host(Rc::new(Obj::GlobalVar(fname))))
        }
        "update_func" => {
            let gv = a.req(0, "gv", name)?;
            let f = a.req(1, "updated_func", name)?;
            a.done(name, 2)?;
            let gname = super::tvm::func_name_arg(&gv)?;
            let func = match &f {
                Value::Host(o) => match &**o {
                    Obj::PrimFunc { func, .. } => BaseFunc::Prim(func.clone()),
                    Obj::Relax(RObj::Func(g)) => BaseFunc::Graph(g.clone()),
                    _ => return Err(PyErr::type_error("update_func() takes a function")),
                },
                _ => return Err(PyErr::type_error("update_func() takes a function")),
            };
            bb.borrow_mut().module.insert(gname, func);
            Ok(Value::None)
        }
        "emit_te" | "call_te" => {
            let e = te_call_expr(it, bb, name, a)?;
            if name == "call_te" {
                return Ok(host(RObj::Expr(e)));
            }
            let mut b = bb.borrow_mut();
            let var = emit_expr(&mut b, e, None, false)?;
            Ok(host(RObj::Var(var)))
        }
        "normalize" => {
            let v = a.req(0, "expr", name)?;
            Ok(v)
        }
        _ => Err(PyErr::attribute_error(format!(
            "'BlockBuilder' object has no attribute '{name}'"
        ))),
    }
}

/// A graph argument of `emit_te` as what the TE function receives: tensors
/// become placeholders named after the variable (kept in `map` with their
/// graph expression), tuples and lists convert item by item, anything else
/// (numbers, strings) passes through.
fn te_arg(
    it: &mut Interp,
    v: &Value,
    index: usize,
    map: &mut Vec<(compiler_core::te::Tensor, Expr)>,
) -> Res<Value> {
    if let Some(r) = relax_obj(v) {
        // TVM names the placeholder of an expression that is not a variable
        // after the argument's position (`A`, `B`, …).
        let (e, name) = match r {
            RObj::Var(var) => (var.to_expr(), var.name().to_string()),
            RObj::Expr(e) => (
                e.clone(),
                char::from_u32('A' as u32 + (index % 26) as u32)
                    .unwrap_or('A')
                    .to_string(),
            ),
            _ => return Ok(v.clone()),
        };
        if let Some((t, _)) = map.iter().find(|(_, x)| same_expr(x, &e)) {
            return Ok(super::te::tensor_value(t.clone()));
        }
        let info = match &e.kind() {
            ExprKind::Var(var) => var.sinfo().clone(),
            ExprKind::Constant(arr) => StructInfo::tensor_of(
                arr.shape()
                    .iter()
                    .map(|&d| PrimExpr::i64(d as i64))
                    .collect(),
                arr.dtype(),
            ),
            _ => StructInfo::Tensor(TensorInfo::with_ndim(None, None)),
        };
        let StructInfo::Tensor(ti) = info else {
            return Err(PyErr::type_error(format!(
                "emit_te: argument `{name}` is not a tensor (only tensors, numbers and lists of them convert to tensor expressions)"
            )));
        };
        let (Some(shape), Some(dtype)) = (ti.shape.clone(), ti.dtype) else {
            return Err(PyErr::value_error(format!(
                "emit_te: argument `{name}` needs a known shape and dtype"
            )));
        };
        let t = compiler_core::te::placeholder(&shape, dtype, &name)
            .map_err(|e| PyErr::value_error(e.message))?;
        map.push((t.clone(), e));
        return Ok(super::te::tensor_value(t));
    }
    match v {
        Value::Tuple(_) | Value::List(_) => {
            let items = it.items_of(v)?;
            let mut out = Vec::with_capacity(items.len());
            for x in &items {
                out.push(te_arg(it, x, index, map)?);
            }
            Ok(Value::tuple(out))
        }
        Value::Host(o) if matches!(&**o, Obj::Tensor { .. }) => Err(PyErr::type_error(
            "emit_te: pass tensors as Relax expressions (relax.const(...)), not runtime tensors",
        )),
        other => Ok(other.clone()),
    }
}

fn same_expr(a: &Expr, b: &Expr) -> bool {
    match (a.kind(), b.kind()) {
        (ExprKind::Var(x), ExprKind::Var(y)) => x.id() == y.id(),
        _ => false,
    }
}

/// `bb.emit_te(f, *args, **kwargs)` / `bb.call_te(...)`: runs the TE function
/// on placeholders for the graph arguments, adds the PrimFunc it makes to the
/// builder's module (private, named after `f` or `primfunc_name_hint`, reusing
/// a structurally equal one as TVM does) and returns the `R.call_tir`.
fn te_call_expr(it: &mut Interp, bb: &RefCell<Builder>, what: &str, mut a: Args) -> Res<Expr> {
    if a.pos.is_empty() {
        return Err(PyErr::type_error(format!(
            "{what}() missing 1 required positional argument: 'func'"
        )));
    }
    let f = a.pos.remove(0);
    let hint = a.take_kw("primfunc_name_hint");
    let _ = a.take_kw("name_hint");
    let _ = a.take_kw("primfunc_attrs");
    let mut map = Vec::new();
    let mut pos = Vec::with_capacity(a.pos.len());
    for (i, v) in a.pos.iter().enumerate() {
        pos.push(te_arg(it, v, i, &mut map)?);
    }
    let mut kw = Vec::with_capacity(a.kw.len());
    for (i, (k, v)) in a.kw.iter().enumerate() {
        kw.push((k.clone(), te_arg(it, v, a.pos.len() + i, &mut map)?));
    }
    let base = match hint {
        Some(Value::Str(s)) => s.to_string(),
        _ => match it.get_attr(&f, "__name__")? {
            Value::Str(s) => s.to_string(),
            _ => "te_func".to_string(),
        },
    };
    let call = super::te::call_te_function(
        it,
        &f,
        Args {
            pos,
            kw,
            data: None,
        },
        Some(DataType::i64()),
    )?;
    let mut func = call.func;
    func.attrs.remove("global_symbol");
    let mut args = Vec::with_capacity(call.inputs.len());
    for t in &call.inputs {
        let Some((_, e)) = map.iter().find(|(x, _)| x == t) else {
            return Err(PyErr::value_error(format!(
                "{what}: tensor `{}` is not an argument of the call",
                t.name()
            )));
        };
        args.push(e.clone());
    }
    let outs: Vec<StructInfo> = call
        .outputs
        .iter()
        .map(|t| {
            let dims = t
                .shape()
                .iter()
                .map(|d| d.as_int().map_or_else(|| d.clone(), PrimExpr::i64))
                .collect();
            StructInfo::tensor_of(dims, t.dtype())
        })
        .collect();
    let out = if outs.len() == 1 {
        outs[0].clone()
    } else {
        StructInfo::Tuple(outs)
    };
    let n_params = func.params.len();
    if n_params != call.inputs.len() + call.outputs.len() {
        return Err(PyErr::new(
            ExcKind::NotImplementedError,
            format!("{what}: tensor expressions with symbolic sizes not bound by an input are not supported yet"),
        ));
    }
    let mut b = bb.borrow_mut();
    let name = 'found: {
        for (n, g) in b.module.prim_funcs() {
            if compiler_core::analysis::structural_equal::prim_func_equal(g, &func).is_ok() {
                break 'found n.to_string();
            }
        }
        let taken: std::collections::HashSet<String> =
            b.module.names().map(str::to_string).collect();
        let name = if taken.contains(&base) {
            (1..)
                .map(|i| format!("{base}{i}"))
                .find(|n| !taken.contains(n))
                .unwrap_or(base)
        } else {
            base
        };
        b.module.insert(name.clone(), BaseFunc::Prim(Rc::new(func)));
        name
    };
    Ok(Expr::call_tir(&name, args, out))
}

// ----------------------------------------------------------------------------
// relax.build and the VM

fn relax_build(it: &mut Interp, mut a: Args) -> Res<Value> {
    let m = a.req(0, "mod", "build")?;
    let target = a.take(1, "target");
    let _ = a.take_kw("params");
    let _ = a.take_kw("exec_mode");
    let _ = a.take_kw("relax_pipeline");
    let _ = a.take_kw("tir_pipeline");
    a.done("build", 2)?;
    let module = match &m {
        Value::Host(o) => match &**o {
            Obj::IRModule { module, .. } => module.borrow().clone(),
            _ => {
                return Err(PyErr::type_error(format!(
                    "relax.build takes an IRModule, not {}",
                    o.type_name()
                )))
            }
        },
        other => {
            return Err(PyErr::type_error(format!(
                "relax.build takes an IRModule, not {}",
                other.type_name()
            )))
        }
    };
    if module.graph_funcs().next().is_none() {
        return Err(PyErr::value_error(
            "the module has no Relax function to build (use tvm.build for PrimFuncs)",
        ));
    }
    let target = target_spec(it, target)?;
    it.charge_steps(1000)?;
    let kernels = if module.prim_funcs().next().is_some() {
        let mut prims = IRModule::new();
        for (n, f) in module.prim_funcs() {
            prims.insert(n.to_string(), BaseFunc::Prim(f.clone()));
        }
        Some(
            it.backend
                .build(&prims, &target)
                .map_err(|e| PyErr::new(ExcKind::TVMError, e))?,
        )
    } else {
        None
    };
    Ok(host(RObj::Exec(Rc::new(RelaxExec {
        module,
        kernels,
        target: target.kind,
    }))))
}

fn target_spec(it: &mut Interp, v: Option<Value>) -> Res<TargetSpec> {
    let (kind, text) = match &v {
        None | Some(Value::None) => ("llvm".to_string(), "llvm".to_string()),
        Some(Value::Str(s)) => {
            let kind = s.split_whitespace().next().unwrap_or("llvm").to_string();
            (kind, s.to_string())
        }
        Some(Value::Host(o)) => match &**o {
            Obj::Target { kind, text } => (kind.clone(), text.clone()),
            _ => {
                return Err(PyErr::type_error(format!(
                    "target must be a string or tvm.target.Target, not {}",
                    o.type_name()
                )))
            }
        },
        Some(other) => {
            let s = it.str_of(other)?;
            (s.clone(), s)
        }
    };
    Ok(TargetSpec { kind, text })
}

fn vm_new(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let ex = a.req(0, "rt_mod", "VirtualMachine")?;
    let _dev = a.take(1, "device");
    let _ = a.take_kw("memory_cfg");
    let _ = a.take_kw("profile");
    match relax_obj(&ex) {
        Some(RObj::Exec(e)) => Ok(host(RObj::Vm(e.clone()))),
        _ => Err(PyErr::type_error(format!(
            "VirtualMachine takes the result of relax.build, not {}",
            ex.type_name()
        ))),
    }
}

/// The VM's backend seam for a script: PrimFuncs through the built kernels,
/// extern functions through `tvm.register_func`.
struct ScriptKernels<'a> {
    it: &'a mut Interp,
    exec: Option<Rc<dyn Executable>>,
    err: Option<Box<PyErr>>,
}

impl Kernels for ScriptKernels<'_> {
    fn call_prim_func(
        &mut self,
        name: &str,
        _func: &Rc<tessel_ir::PrimFunc>,
        args: &mut [NDArray],
    ) -> Result<(), String> {
        let Some(exec) = self.exec.clone() else {
            return Err(format!("`{name}` was not built"));
        };
        let budget = self.it.steps_left().saturating_mul(IR_STEPS_PER_STEP);
        let used = exec.run(name, args, budget)?;
        if let Err(e) = self.it.charge_steps(used / IR_STEPS_PER_STEP) {
            self.err = Some(e);
            return Err("the step budget is exhausted".into());
        }
        Ok(())
    }

    fn call_extern(&mut self, name: &str, args: &mut [NDArray]) -> Option<Result<(), String>> {
        let f = registered(self.it, name)?;
        Some(self.call_script(&f, args))
    }
}

impl ScriptKernels<'_> {
    fn call_script(&mut self, f: &Value, args: &mut [NDArray]) -> Result<(), String> {
        let mut objs = Vec::with_capacity(args.len());
        let mut vals = Vec::with_capacity(args.len());
        for a in args.iter() {
            match self.it.array_obj(a.clone()) {
                Ok(o) => {
                    objs.push(o.clone());
                    vals.push(Value::Host(Rc::new(Obj::Tensor {
                        data: o,
                        device: Device::cpu(),
                    })));
                }
                Err(e) => {
                    self.err = Some(e);
                    return Err("out of memory".into());
                }
            }
        }
        if let Err(e) = self.it.call(f, Args::new(vals)) {
            self.err = Some(e);
            return Err("the registered function raised an exception".into());
        }
        for (a, o) in args.iter_mut().zip(objs) {
            let new = o.borrow().clone();
            if new.shape() != a.shape() || new.dtype() != a.dtype() {
                return Err(format!(
                    "the function changed an argument's shape or dtype ({:?} {} → {:?} {})",
                    a.shape(),
                    a.dtype(),
                    new.shape(),
                    new.dtype()
                ));
            }
            *a = new;
        }
        Ok(())
    }
}

fn vm_call(it: &mut Interp, exec: &Rc<RelaxExec>, name: &str, a: Args) -> Res<Value> {
    if !a.kw.is_empty() {
        return Err(PyErr::type_error(
            "VM functions take positional arguments only",
        ));
    }
    let mut args = Vec::with_capacity(a.pos.len());
    for v in &a.pos {
        args.push(to_vm(it, v)?);
    }
    it.charge_steps(100)?;
    let registry = PackedRegistry::new();
    let mut k = ScriptKernels {
        it,
        exec: exec.kernels.clone(),
        err: None,
    };
    let r = Vm::new(&exec.module, &registry, &mut k).call(name, args);
    let err = k.err.take();
    match r {
        Ok(v) => from_vm(it, v),
        Err(e) => Err(match err {
            Some(pe) => pe,
            None => PyErr::new(ExcKind::TVMError, e.message),
        }),
    }
}

fn vm_time(
    it: &mut Interp,
    exec: &Rc<RelaxExec>,
    name: &str,
    number: u64,
    repeat: u64,
    a: Args,
) -> Res<Value> {
    let mut results = Vec::with_capacity(repeat as usize);
    for _ in 0..repeat.max(1) {
        let t0 = it.host.now_seconds();
        for _ in 0..number.max(1) {
            vm_call(it, exec, name, Args::new(a.pos.clone()))?;
        }
        let t1 = it.host.now_seconds();
        results.push((t1 - t0).max(0.0) / number.max(1) as f64);
    }
    Ok(Value::Host(Rc::new(Obj::BenchmarkResult(results))))
}

// ----------------------------------------------------------------------------
// Host-object protocol (called from `host.rs`)

pub fn call(it: &mut Interp, r: &RObj, a: Args) -> Res<Value> {
    match r {
        RObj::VmFunc(e, n) => {
            let (e, n) = (e.clone(), n.clone());
            vm_call(it, &e, &n, a)
        }
        RObj::VmTimer {
            exec,
            name,
            number,
            repeat,
        } => {
            let (e, n) = (exec.clone(), name.clone());
            vm_time(it, &e, &n, *number, *repeat, a)
        }
        RObj::ModulePass(p) => {
            let p = p.clone();
            run_pass(it, &p, a)
        }
        RObj::Pass(p) => {
            let p = p.clone();
            run_graph_pass(it, &p, a)
        }
        other => Err(PyErr::type_error(format!(
            "'{}' object is not callable",
            other.class_name().rsplit('.').next().unwrap_or("object")
        ))),
    }
}

pub fn get_attr(it: &mut Interp, r: &RObj, v: &Value, name: &str) -> Res<Value> {
    let method = || Ok(Value::BoundMethod(Rc::new((v.clone(), name.into()))));
    match (r, name) {
        (RObj::Var(var), "name_hint") => Ok(Value::str(var.name())),
        (RObj::Var(var), "struct_info" | "ty") => Ok(host(RObj::SInfo(var.sinfo().clone()))),
        (RObj::Expr(e), "struct_info" | "ty") => {
            let s = expr_sinfo(e, &compiler_core::graph::infer::NoGlobals)
                .map_err(|m| PyErr::new(ExcKind::TVMError, m))?;
            Ok(host(RObj::SInfo(s)))
        }
        (RObj::Expr(e), "op") => match e.kind() {
            ExprKind::Call(c) => match &c.callee {
                compiler_core::graph::Callee::Op(op) => {
                    let n = if matches!(op, Op::CallTir) {
                        "relax.call_tir".to_string()
                    } else {
                        op.name()
                    };
                    Ok(host(RObj::OpRef(n)))
                }
                compiler_core::graph::Callee::Global(g) => {
                    Ok(Value::Host(Rc::new(Obj::GlobalVar(g.name().to_string()))))
                }
            },
            _ => Err(PyErr::attribute_error("this expression is not a call")),
        },
        (RObj::Expr(e), "args") => match e.kind() {
            ExprKind::Call(c) => {
                let args: Vec<Value> = c.args.iter().map(|x| wrap_expr(x.clone())).collect();
                it.new_list(args)
            }
            _ => Err(PyErr::attribute_error("this expression is not a call")),
        },
        (RObj::Expr(e), "data") => match e.kind() {
            ExprKind::Constant(a) => tensor_value(it, (**a).clone()),
            _ => Err(PyErr::attribute_error("only constants have data")),
        },
        (RObj::SInfo(StructInfo::Tensor(t)), "shape") => match &t.shape {
            Some(s) => Ok(host(RObj::Expr(Expr::shape(s.clone())))),
            None => Ok(Value::None),
        },
        (RObj::SInfo(StructInfo::Tensor(t)), "dtype") => Ok(Value::str(
            t.dtype.map(|d| d.to_string()).unwrap_or_default(),
        )),
        (RObj::SInfo(StructInfo::Tensor(t)), "ndim") => {
            Ok(Value::Int(t.ndim.map(|n| n as i64).unwrap_or(-1)))
        }
        (RObj::OpRef(n), "name") => Ok(Value::str(n.as_str())),
        (RObj::Func(f), "attrs") => {
            let mut d = super::dict::Dict::new();
            for (k, x) in &f.attrs {
                d.insert(Value::str(k.as_str()), simple_attr(x))?;
            }
            Ok(it.new_dict(d))
        }
        (RObj::Func(f), "params") => {
            let ps: Vec<Value> = f
                .params
                .iter()
                .map(|p| host(RObj::Var(p.clone())))
                .collect();
            it.new_list(ps)
        }
        (RObj::Func(f), "ret_struct_info" | "ret_ty") => Ok(host(RObj::SInfo(f.ret.clone()))),
        (RObj::Func(_), "show" | "script" | "with_attr" | "without_attr") => method(),
        (RObj::ModulePass(_), "transform_module") => method(),
        (RObj::Builder(_), _) => method(),
        (RObj::Vm(_), "time_evaluator" | "invoke_closure" | "set_input" | "invoke_stateful") => {
            method()
        }
        (RObj::Exec(_), "as_text" | "stats") => method(),
        _ => Err(PyErr::attribute_error(format!(
            "'{}' object has no attribute '{name}'",
            r.class_name().rsplit('.').next().unwrap_or("object")
        ))),
    }
}

fn wrap_expr(e: Expr) -> Value {
    match e.kind() {
        ExprKind::Var(v) => host(RObj::Var(v.clone())),
        _ => host(RObj::Expr(e)),
    }
}

pub fn call_method(it: &mut Interp, r: &RObj, recv: &Value, name: &str, mut a: Args) -> Res<Value> {
    match r {
        RObj::Builder(_) => builder_method(it, recv, name, a),
        RObj::Vm(e) if name == "time_evaluator" => {
            let f = a.req(0, "func_name", name)?;
            let f = it.str_of(&f)?;
            let _dev = a.take(1, "dev");
            let number = a
                .take(2, "number")
                .and_then(|v| super::ops::num_i64(&v))
                .unwrap_or(10)
                .max(1) as u64;
            let repeat = a
                .take(3, "repeat")
                .and_then(|v| super::ops::num_i64(&v))
                .unwrap_or(1)
                .max(1) as u64;
            let _ = a.take_kw("min_repeat_ms");
            if e.module.get_graph(&f).is_none() {
                return Err(PyErr::attribute_error(format!(
                    "the VM has no function '{f}'"
                )));
            }
            Ok(host(RObj::VmTimer {
                exec: e.clone(),
                name: f,
                number,
                repeat,
            }))
        }
        RObj::Func(f) => match name {
            "show" | "script" => {
                a.done(name, 0)?;
                let text = func_print(f, &func_name(f));
                if name == "show" {
                    it.write(super::Stream::Stdout, format!("{text}\n"));
                    Ok(Value::None)
                } else {
                    Ok(Value::str(text))
                }
            }
            "with_attr" => {
                let k = a.req(0, "attr_key", name)?;
                let v = a.req(1, "attr_value", name)?;
                let k = it.str_of(&k)?;
                let v = to_attr(it, &v)?;
                let mut g = (**f).clone();
                g.attrs.insert(k, v);
                Ok(func_value(&Rc::new(g)))
            }
            "without_attr" => {
                let k = a.req(0, "attr_key", name)?;
                let k = it.str_of(&k)?;
                let mut g = (**f).clone();
                g.attrs.remove(&k);
                Ok(func_value(&Rc::new(g)))
            }
            _ => Err(PyErr::attribute_error(format!(
                "'Function' object has no attribute '{name}'"
            ))),
        },
        RObj::Exec(e) if name == "as_text" || name == "stats" => {
            let names: Vec<&str> = e.module.names().collect();
            Ok(Value::str(format!(
                "VMExecutable for {} with functions: {}",
                e.target,
                names.join(", ")
            )))
        }
        _ => Err(PyErr::attribute_error(format!(
            "'{}' object has no attribute '{name}'",
            r.class_name().rsplit('.').next().unwrap_or("object")
        ))),
    }
}

pub fn get_item(it: &mut Interp, r: &RObj, idx: Value) -> Res<Value> {
    match r {
        RObj::Vm(e) => {
            let n = it.str_of(&idx)?;
            if e.module.get_graph(&n).is_none() {
                return Err(PyErr::attribute_error(format!(
                    "the VM has no function '{n}'"
                )));
            }
            Ok(host(RObj::VmFunc(e.clone(), n)))
        }
        RObj::Var(v) => {
            let i = super::ops::num_i64(&idx)
                .ok_or_else(|| PyErr::type_error("tuple indices must be integers"))?;
            Ok(host(RObj::Expr(Expr::new(
                ExprKind::TupleGetItem(v.to_expr(), i.max(0) as usize),
                Default::default(),
            ))))
        }
        other => Err(PyErr::type_error(format!(
            "'{}' object is not subscriptable",
            other.class_name().rsplit('.').next().unwrap_or("object")
        ))),
    }
}

// ----------------------------------------------------------------------------
// The module tree

fn module(name: &str, attrs: Vec<(&str, Value)>, note: Option<&'static str>) -> Value {
    Value::Module(Rc::new(ModuleObj {
        name: name.to_string(),
        attrs: RefCell::new(attrs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()),
        missing_note: note,
    }))
}

fn set(m: &Value, k: &str, v: Value) {
    if let Value::Module(m) = m {
        m.attrs.borrow_mut().insert(k.to_string(), v);
    }
}

const NOTE: &str = "Tessel's Relax covers Var, TensorStructInfo, const, BlockBuilder, relax.op.*, call_tir, call_dps_packed, build and VirtualMachine";

/// Fills `tvm.relax` and `tvm.script.relax` (after [`super::tvm::install`]).
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
    let script_relax = module("tvm.script.relax", r_attrs, Some(NOTE));
    let call_cls = Value::Class(it.types.host_class("tvm.relax.expr.Call"));
    let func_cls = Value::Class(it.types.host_class("tvm.relax.expr.Function"));
    let var_base = it.types.host_class("tvm.relax.expr.Var");
    // A DataflowVar is a Var (`isinstance(C, relax.Var)` in the book).
    if !it.types.host.contains_key("tvm.relax.expr.DataflowVar") {
        let dfv = super::builtins::builtin_class(
            "DataflowVar",
            "tvm.relax.expr",
            super::value::BuiltinType::Host,
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

// ----------------------------------------------------------------------------
// Graph functions as values, expression mutators, module passes

/// A graph function as a script value (`mod["main"]`).
pub fn func_value(f: &Rc<Function>) -> Value {
    host(RObj::Func(f.clone()))
}

fn func_arg(v: &Value, what: &str) -> Res<Rc<Function>> {
    match relax_obj(v) {
        Some(RObj::Func(f)) => Ok(f.clone()),
        _ => Err(PyErr::type_error(format!(
            "{what} takes a relax.Function, not {}",
            v.type_name()
        ))),
    }
}

fn simple_attr(v: &AttrValue) -> Value {
    match v {
        AttrValue::Bool(b) => Value::Bool(*b),
        AttrValue::Int(i) => Value::Int(*i),
        AttrValue::Float(f) => Value::Float(*f),
        AttrValue::Str(s) => Value::str(s.as_str()),
        other => Value::str(format!("{other:?}")),
    }
}

fn to_attr(it: &mut Interp, v: &Value) -> Res<AttrValue> {
    Ok(match v {
        Value::Bool(b) => AttrValue::Bool(*b),
        Value::Int(i) => AttrValue::Int(*i),
        Value::Float(f) => AttrValue::Float(*f),
        Value::Str(s) => AttrValue::Str(s.to_string()),
        other => AttrValue::Str(it.str_of(other)?),
    })
}

fn func_print(f: &Function, name: &str) -> String {
    let opts = tessel_ir::printer::PrintOptions::new(Dialect::Tirx);
    tessel_ir::printer::print_graph_func(f, name, &opts)
}

fn func_name(f: &Function) -> String {
    match f.attrs.get("global_symbol") {
        Some(AttrValue::Str(s)) => s.clone(),
        _ => "main".to_string(),
    }
}

/// `relax.Call(op, args, attrs=None, sinfo_args=None)`.
fn make_call(it: &mut Interp, mut a: Args) -> Res<Value> {
    let op = a.req(0, "op", "Call")?;
    let args = a.req(1, "args", "Call")?;
    let _attrs = a.take(2, "attrs");
    let sinfo_args = a.take(3, "sinfo_args");
    a.done("Call", 4)?;
    let items = it.items_of(&args)?;
    let mut exprs = Vec::with_capacity(items.len());
    for x in &items {
        exprs.push(to_expr(it, x)?);
    }
    let sinfo_args = match sinfo_args {
        None | Some(Value::None) => Vec::new(),
        Some(v) => {
            let items = it.items_of(&v)?;
            let mut out = Vec::new();
            for x in &items {
                out.push(to_sinfo(it, x)?);
            }
            out
        }
    };
    let callee = match (&op, relax_obj(&op)) {
        (_, Some(RObj::OpRef(n))) => {
            let op = match n.as_str() {
                "relax.add" => Op::Binary(BinaryOp::Add),
                "relax.subtract" => Op::Binary(BinaryOp::Subtract),
                "relax.multiply" => Op::Binary(BinaryOp::Multiply),
                "relax.divide" => Op::Binary(BinaryOp::Divide),
                "relax.nn.relu" => Op::Relu,
                "relax.matmul" => Op::Matmul { out_dtype: None },
                "relax.permute_dims" => Op::PermuteDims { axes: None },
                "relax.ewise_fma" => Op::EwiseFma,
                "relax.reshape" => Op::Reshape,
                "relax.nn.softmax" => Op::Softmax { axis: -1 },
                "relax.sum" => Op::Sum {
                    axis: None,
                    keepdims: false,
                },
                "relax.mean" => Op::Mean {
                    axis: None,
                    keepdims: false,
                },
                "relax.call_tir" => Op::CallTir,
                "relax.call_dps_packed" => Op::CallDpsPacked,
                other => {
                    return Err(PyErr::value_error(format!(
                        "relax.Call of `{other}` is not supported by Tessel"
                    )))
                }
            };
            compiler_core::graph::Callee::Op(op)
        }
        (Value::Host(o), _) if matches!(&**o, Obj::GlobalVar(_)) => {
            let Obj::GlobalVar(n) = &**o else {
                return Err(PyErr::type_error("not a GlobalVar"));
            };
            compiler_core::graph::Callee::Global(compiler_core::graph::GlobalVar::new(n))
        }
        _ => {
            return Err(PyErr::type_error(format!(
                "relax.Call takes an Op or a GlobalVar, not {}",
                op.type_name()
            )))
        }
    };
    Ok(host(RObj::Expr(Expr::call(compiler_core::graph::Call {
        callee,
        args: exprs,
        sinfo_args,
    }))))
}

const CONSTRUCTIBLE: &[&str] = &[
    "tvm.relax.expr.Call",
    "tvm.relax.expr.Var",
    "tvm.relax.expr_functor.PyExprMutator",
];

/// Whether [`construct`] creates instances of this host class.
pub fn constructs(c: &Class) -> bool {
    CONSTRUCTIBLE.contains(&c.display_name().as_str())
}

/// Host-class construction (`relax.Call(...)`, `relax.Var(...)`).
pub fn construct(it: &mut Interp, c: &Class, a: Args) -> Res<Value> {
    match c.display_name().as_str() {
        "tvm.relax.expr.Call" => make_call(it, a),
        "tvm.relax.expr.Var" => relax_var(it, a),
        _ => Err(PyErr::type_error(
            "create a PyExprMutator by subclassing it under @relax.expr_functor.mutator",
        )),
    }
}

/// `relax.analysis.remove_all_unused(func)`: drops the dataflow bindings
/// nothing uses (every operator here is pure).
fn remove_all_unused(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let f = a.req(0, "func", "remove_all_unused")?;
    let f = func_arg(&f, "remove_all_unused")?;
    Ok(func_value(&Rc::new(dce(&f))))
}

fn dce(f: &Function) -> Function {
    let mut used: std::collections::HashSet<tessel_ir::VarId> = Default::default();
    f.body.body.for_each_var(&mut |v| {
        used.insert(v.id());
    });
    let mut blocks = f.body.blocks.clone();
    for block in blocks.iter_mut().rev() {
        let mut kept = Vec::with_capacity(block.bindings.len());
        for b in block.bindings.iter().rev() {
            let keep = !block.dataflow || !b.var.is_dataflow() || used.contains(&b.var.id());
            if keep {
                b.value.for_each_var(&mut |v| {
                    used.insert(v.id());
                });
                kept.push(b.clone());
            }
        }
        kept.reverse();
        block.bindings = kept;
    }
    blocks.retain(|b| !b.bindings.is_empty());
    Function {
        body: SeqExpr {
            blocks,
            body: f.body.body.clone(),
        },
        ..f.clone()
    }
}

/// Replaces variables by their new versions.
fn remap(e: &Expr, map: &HashMap<tessel_ir::VarId, Var>) -> Expr {
    match e.kind() {
        ExprKind::Var(v) => match map.get(&v.id()) {
            Some(n) => n.to_expr(),
            None => e.clone(),
        },
        ExprKind::Tuple(fields) => Expr::tuple(fields.iter().map(|x| remap(x, map)).collect()),
        ExprKind::TupleGetItem(t, i) => {
            Expr::new(ExprKind::TupleGetItem(remap(t, map), *i), e.span())
        }
        ExprKind::Call(c) => {
            let mut c = c.clone();
            c.args = c.args.iter().map(|x| remap(x, map)).collect();
            Expr::new(ExprKind::Call(c), e.span())
        }
        _ => e.clone(),
    }
}

/// `@relax.expr_functor.mutator`: the class is returned wrapped so that
/// constructing it also sets up the mutator's state (`builder_`,
/// `visit_expr`, `lookup_binding`, `visit_expr_post_order`).
fn mutator_decorator(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let cls = a.req(0, "cls", "mutator")?;
    if !matches!(cls, Value::Class(_)) {
        return Err(PyErr::type_error(
            "@relax.expr_functor.mutator decorates a class",
        ));
    }
    Ok(builtin_with(
        "tvm.relax.expr_functor.mutator.<class>",
        mutator_new,
        cls,
    ))
}

fn mutator_new(it: &mut Interp, a: Args) -> Res<Value> {
    let Some(cls) = a.data.clone() else {
        return Err(PyErr::type_error("no class"));
    };
    let inst = it.call(
        &cls,
        Args {
            pos: a.pos.clone(),
            kw: a.kw.clone(),
            data: None,
        },
    )?;
    let Value::Instance(i) = &inst else {
        return Err(PyErr::type_error(
            "the mutator class did not create an instance",
        ));
    };
    let builder = host(RObj::Builder(RefCell::new(Builder::default())));
    let state = host(RObj::MutState(RefCell::new(HashMap::new())));
    let data = Value::tuple(vec![inst.clone(), builder.clone(), state]);
    let mut d = i.dict.borrow_mut();
    d.entry("builder_".into()).or_insert(builder);
    for (n, f) in [
        ("visit_expr", mutator_visit_expr as BuiltinFn),
        ("visit_expr_post_order", mutator_post_order as BuiltinFn),
        ("lookup_binding", mutator_lookup as BuiltinFn),
    ] {
        d.insert(
            n.to_string(),
            builtin_with(&format!("PyExprMutator.{n}"), f, data.clone()),
        );
    }
    drop(d);
    Ok(inst)
}

fn mut_data(a: &Args) -> Res<(Value, Value, Value)> {
    match &a.data {
        Some(Value::Tuple(d)) if d.len() == 3 => Ok((d[0].clone(), d[1].clone(), d[2].clone())),
        _ => Err(PyErr::type_error("not a mutator")),
    }
}

fn mutator_post_order(_it: &mut Interp, mut a: Args) -> Res<Value> {
    // Arguments are leaves (variables) already remapped by visit_expr.
    a.req(0, "expr", "visit_expr_post_order")
}

fn mutator_lookup(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let (_, _, state) = mut_data(&a)?;
    let v = a.req(0, "var", "lookup_binding")?;
    let Some(RObj::MutState(m)) = relax_obj(&state) else {
        return Ok(Value::None);
    };
    Ok(match relax_obj(&v) {
        Some(RObj::Var(var)) => match m.borrow().get(&var.id()) {
            Some(e) => wrap_expr(e.clone()),
            None => Value::None,
        },
        _ => Value::None,
    })
}

/// Rewrites a function binding by binding: each call goes through the
/// script's `visit_call_` (its arguments already rewritten); the result is
/// normalised and re-bound, keeping the variable when its struct info is
/// unchanged (as TVM's ExprMutator does).
fn mutator_visit_expr(it: &mut Interp, mut a: Args) -> Res<Value> {
    let (inst, builder, state) = mut_data(&a)?;
    let f = a.req(0, "expr", "visit_expr")?;
    let f = func_arg(&f, "visit_expr")?;
    let Some(RObj::MutState(bindings)) = relax_obj(&state) else {
        return Err(PyErr::type_error("not a mutator"));
    };
    let visit_call = it.get_attr(&inst, "visit_call_").ok();
    let bb = bb_of(&builder)?;
    let mut map: HashMap<tessel_ir::VarId, Var> = HashMap::new();
    let mut blocks = Vec::new();
    for block in &f.body.blocks {
        {
            let mut b = bb.borrow_mut();
            let mut names = HashMap::new();
            for p in &f.params {
                names.insert(p.name().to_string(), 1);
            }
            for x in f.body.bindings() {
                names.insert(x.var.name().to_string(), 1);
            }
            b.func = Some(FuncFrame {
                name: func_name(&f),
                params: Some(f.params.clone()),
                private: false,
                pure: f.pure,
                blocks: Vec::new(),
                cur: Vec::new(),
                in_dataflow: block.dataflow,
                names,
                done: false,
            });
        }
        for binding in &block.bindings {
            let value = remap(&binding.value, &map);
            let new_value = match (value.kind(), &visit_call) {
                (ExprKind::Call(_), Some(vc)) => {
                    let r = it.call(vc, Args::new(vec![wrap_expr(value.clone())]))?;
                    to_expr(it, &r)?
                }
                _ => value,
            };
            let mut b = bb.borrow_mut();
            let new_value = normalize_args(&mut b, new_value)?;
            let sinfo =
                expr_sinfo(&new_value, &b.module).map_err(|m| PyErr::new(ExcKind::TVMError, m))?;
            let var = if compiler_core::analysis::structural_equal::graph::sinfo_equal(
                &sinfo,
                binding.var.sinfo(),
            ) {
                binding.var.clone()
            } else {
                let v = Var::with(
                    binding.var.name(),
                    sinfo,
                    binding.var.is_dataflow(),
                    binding.var.span(),
                );
                map.insert(binding.var.id(), v.clone());
                v
            };
            bindings.borrow_mut().insert(var.id(), new_value.clone());
            if let Some(fr) = b.func.as_mut() {
                fr.cur.push(Binding {
                    var,
                    value: new_value,
                    span: binding.span,
                });
            }
        }
        let mut b = bb.borrow_mut();
        if let Some(mut fr) = b.func.take() {
            fr.flush();
            blocks.extend(fr.blocks);
        }
    }
    let body = remap(&f.body.body, &map);
    let ret = {
        let b = bb.borrow();
        expr_sinfo(&body, &b.module).map_err(|m| PyErr::new(ExcKind::TVMError, m))?
    };
    Ok(func_value(&Rc::new(Function {
        params: f.params.clone(),
        body: SeqExpr { blocks, body },
        ret,
        attrs: f.attrs.clone(),
        pure: f.pure,
        span: f.span,
    })))
}

/// `@tvm.ir.transform.module_pass(opt_level=..., name=...)`.
fn module_pass(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let first = a.take(0, "pass_func");
    let name = a.take_kw("name").unwrap_or(Value::None);
    let _ = a.take_kw("opt_level");
    let _ = a.take_kw("required");
    let _ = a.take_kw("traceable");
    match first {
        Some(Value::Class(_)) | Some(Value::Func(_)) => pass_decorate(
            _it,
            Args {
                pos: vec![first.unwrap_or(Value::None)],
                kw: Vec::new(),
                data: Some(name),
            },
        ),
        _ => Ok(builtin_with(
            "tvm.ir.transform.module_pass.<decorator>",
            pass_decorate,
            name,
        )),
    }
}

fn pass_decorate(_it: &mut Interp, mut a: Args) -> Res<Value> {
    let target = a.req(0, "pass_func", "module_pass")?;
    match &target {
        // A function `(mod, ctx) -> mod` is the pass itself.
        Value::Func(_) => Ok(host(RObj::ModulePass(target.clone()))),
        // A class: calling it creates the pass.
        Value::Class(_) => Ok(builtin_with(
            "tvm.ir.transform.module_pass.<class>",
            pass_class_new,
            target.clone(),
        )),
        other => Err(PyErr::type_error(format!(
            "module_pass decorates a function or a class, not {}",
            other.type_name()
        ))),
    }
}

fn pass_class_new(it: &mut Interp, a: Args) -> Res<Value> {
    let Some(cls) = a.data.clone() else {
        return Err(PyErr::type_error("no class"));
    };
    let inst = it.call(
        &cls,
        Args {
            pos: a.pos.clone(),
            kw: a.kw.clone(),
            data: None,
        },
    )?;
    Ok(host(RObj::ModulePass(inst)))
}

fn run_pass(it: &mut Interp, p: &Value, a: Args) -> Res<Value> {
    let m = a
        .pos
        .first()
        .cloned()
        .ok_or_else(|| PyErr::type_error("a pass takes an IRModule"))?;
    let r = match p {
        Value::Func(_) => it.call(p, Args::new(vec![m, Value::None]))?,
        _ => {
            let f = it.get_attr(p, "transform_module")?;
            it.call(&f, Args::new(vec![m, Value::None]))?
        }
    };
    Ok(r)
}

// ----------------------------------------------------------------------------
// Built-in graph passes

/// `relax.transform.FuseOps()` and the others: the pass's name is the builtin's data.
fn pass_new(it: &mut Interp, mut a: Args) -> Res<Value> {
    let which = match &a.data {
        Some(Value::Str(s)) => s.to_string(),
        _ => return Err(PyErr::type_error("no pass")),
    };
    let p = match which.as_str() {
        "BindParams" => {
            let fname = a.req(0, "func_name", "BindParams")?;
            let fname = it.str_of(&fname)?;
            let params = a.req(1, "params", "BindParams")?;
            a.done("BindParams", 2)?;
            let Value::Dict(d) = &params else {
                return Err(PyErr::type_error(format!(
                    "BindParams: params must be a dict of name -> tensor, not {}",
                    params.type_name()
                )));
            };
            let items = d.borrow().items();
            let mut map = HashMap::new();
            for (k, v) in items {
                let k = match (&k, relax_obj(&k)) {
                    (Value::Str(s), _) => s.to_string(),
                    (_, Some(RObj::Var(var))) => var.name().to_string(),
                    _ => {
                        return Err(PyErr::type_error(format!(
                            "BindParams: parameter keys must be names or relax.Var, not {}",
                            k.type_name()
                        )))
                    }
                };
                map.insert(k, to_array(it, &v)?);
            }
            GraphPass::BindParams(fname, map)
        }
        "DeadCodeElimination" => {
            let entries = a.take(0, "entry_functions");
            a.done("DeadCodeElimination", 1)?;
            let names = match entries {
                None | Some(Value::None) => vec!["main".to_string()],
                Some(v) => {
                    let mut out = Vec::new();
                    for x in it.items_of(&v)? {
                        out.push(it.str_of(&x)?);
                    }
                    out
                }
            };
            GraphPass::DeadCodeElimination(names)
        }
        other => {
            a.done(other, 0)?;
            match other {
                "LegalizeOps" => GraphPass::LegalizeOps,
                "AnnotateTIROpPattern" => GraphPass::AnnotateTIROpPattern,
                "FuseOps" => GraphPass::FuseOps,
                "FuseTIR" => GraphPass::FuseTIR,
                _ => return Err(PyErr::attribute_error(format!("no pass {other}"))),
            }
        }
    };
    Ok(host(RObj::Pass(Rc::new(p))))
}

/// `tvm.transform.Sequential([p1, p2, ...])`.
fn sequential_new(it: &mut Interp, mut a: Args) -> Res<Value> {
    let passes = a.req(0, "passes", "Sequential")?;
    let _ = a.take(1, "opt_level");
    let _ = a.take(2, "name");
    let _ = a.take_kw("required");
    let _ = a.take_kw("traceable");
    a.done("Sequential", 3)?;
    let items = it.items_of(&passes)?;
    for p in &items {
        let ok = matches!(relax_obj(p), Some(RObj::Pass(_) | RObj::ModulePass(_)));
        if !ok {
            return Err(PyErr::type_error(format!(
                "Sequential takes a list of passes, found {}",
                p.type_name()
            )));
        }
    }
    Ok(host(RObj::Pass(Rc::new(GraphPass::Sequential(items)))))
}

fn run_graph_pass(it: &mut Interp, p: &GraphPass, mut a: Args) -> Res<Value> {
    let m = a.req(0, "mod", p.name())?;
    let _ = a.take(1, "ctx");
    if let GraphPass::Sequential(items) = p {
        let mut cur = m;
        for q in items {
            cur = it.call(q, Args::new(vec![cur]))?;
        }
        return Ok(cur);
    }
    let (module, dialect) = match &m {
        Value::Host(o) => match &**o {
            Obj::IRModule { module, dialect } => (module.borrow().clone(), *dialect),
            _ => {
                return Err(PyErr::type_error(format!(
                    "{}: expected an IRModule, got {}",
                    p.name(),
                    o.type_name()
                )))
            }
        },
        other => {
            return Err(PyErr::type_error(format!(
                "{}: expected an IRModule, got {}",
                p.name(),
                other.type_name()
            )))
        }
    };
    use compiler_core::graph::transform as t;
    let r = match p {
        GraphPass::BindParams(f, params) => t::bind_params(&module, f, params),
        GraphPass::LegalizeOps => t::legalize_ops(&module),
        GraphPass::AnnotateTIROpPattern => Ok(t::annotate_tir_op_pattern(&module)),
        GraphPass::FuseOps => t::fuse_ops(&module),
        GraphPass::FuseTIR => t::fuse_tir(&module),
        GraphPass::DeadCodeElimination(names) => {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            t::dead_code_elimination(&module, &names)
        }
        GraphPass::Sequential(_) => unreachable!(),
    };
    let out = r.map_err(|d| PyErr::new(ExcKind::TVMError, d.message))?;
    Ok(Value::Host(Rc::new(Obj::IRModule {
        module: RefCell::new(out),
        dialect,
    })))
}

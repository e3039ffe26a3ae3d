//! The graph virtual machine: runs a graph function of a module on host
//! arrays.
//!
//! It interprets the function's bindings in order:
//!
//! - `R.call_tir(cls.f, (x, w), out_sinfo=...)` allocates the outputs (their
//!   shapes evaluated with the symbolic sizes bound so far) and runs the
//!   PrimFunc in destination-passing style through [`Kernels`], normally
//!   [`ExecutableKernels`]: the module built by a [`tessel_tir::target::Backend`]
//!   (the reference interpreter in [`run`]; the wasm and WGSL backends in
//!   scripts and the playground);
//! - `R.call_dps_packed("env.linear", ...)` allocates the outputs the same
//!   way and calls, in TVM's lookup order, a PrimFunc of the module with that
//!   name or else a function registered under it in the [`PackedRegistry`]
//!   (the script interpreter registers Python functions there;
//!   [`PackedRegistry::with_course_env`] has native `env.linear` / `env.relu`);
//! - built-in operators run their reference implementations
//!   ([`super::reference`]), unless a pass legalized them to `call_tir`;
//! - calls of other graph functions run recursively.
//!
//! Shapes are checked at run time like TVM's VM does: each argument against
//! its parameter's struct info (binding the symbolic sizes, `m = 784`), each
//! bound value against its variable's struct info, and the result against
//! the function's return struct info. Every error names the place
//! (`main: argument 2 (w0)`) and carries the span of the binding.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::rc::Rc;

use tessel_tir::diag::{Diagnostic, Span};
use tessel_tir::eval::NDArray;
use tessel_tir::ir::{BinOp, ExprKind as PrimKind, IRModule, VarId};
use tessel_tir::target::{Backend, BuildError, BuildOptions, Executable, ReferenceBackend, Target};

use super::ir::{Callee, Expr, ExprKind, Function, PrimExpr, StructInfo};
use super::op::Op;
use super::reference;

/// A run-time value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Tensor(NDArray),
    Tuple(Vec<Value>),
    Shape(Vec<i64>),
    /// A scalar (`R.prim_value`).
    Prim(i64),
    Str(String),
    /// A function of the module or an extern function, by name.
    Func(String),
}

impl Value {
    pub fn as_tensor(&self) -> Option<&NDArray> {
        match self {
            Value::Tensor(t) => Some(t),
            _ => None,
        }
    }
    pub fn into_tensor(self) -> Option<NDArray> {
        match self {
            Value::Tensor(t) => Some(t),
            _ => None,
        }
    }
    fn describe(&self) -> String {
        match self {
            Value::Tensor(t) => format!("a {} tensor of shape {:?}", t.dtype(), t.shape()),
            Value::Tuple(v) => format!("a tuple of {} values", v.len()),
            Value::Shape(s) => format!("the shape {s:?}"),
            Value::Prim(v) => format!("the scalar {v}"),
            Value::Str(s) => format!("the string {s:?}"),
            Value::Func(f) => format!("the function `{f}`"),
        }
    }
}

impl From<NDArray> for Value {
    fn from(a: NDArray) -> Value {
        Value::Tensor(a)
    }
}

/// A run-time error with the span of the binding at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VmError {
    pub message: String,
    pub span: Span,
}

impl VmError {
    fn new(message: impl Into<String>, span: Span) -> VmError {
        VmError {
            message: message.into(),
            span,
        }
    }
    pub fn to_diagnostic(&self) -> Diagnostic {
        Diagnostic::error(self.message.clone(), self.span)
    }
}

impl fmt::Display for VmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for VmError {}

type Result<T> = std::result::Result<T, VmError>;

/// How the VM calls out: PrimFuncs for `call_tir` (and for
/// `call_dps_packed` of a module function), and functions outside the
/// module. Arguments are the inputs then the outputs, one array per buffer
/// parameter (then 0-d arrays for `tir_vars`); outputs are written in place.
pub trait Kernels {
    fn call_prim_func(
        &mut self,
        name: &str,
        args: &mut [NDArray],
    ) -> std::result::Result<(), String>;

    /// A function `R.call_dps_packed` finds by name outside the module,
    /// asked before the [`PackedRegistry`] (the script interpreter answers
    /// with the functions a script registered with `tvm.register_func`).
    /// `None` when this backend does not know the name.
    fn call_extern(
        &mut self,
        name: &str,
        args: &mut [NDArray],
    ) -> Option<std::result::Result<(), String>> {
        let _ = (name, args);
        None
    }
}

/// PrimFuncs run by the executable a target backend built from the module.
pub struct ExecutableKernels {
    pub exec: Rc<dyn Executable>,
    /// Steps one PrimFunc call may take (counted by the reference
    /// interpreter; compiled backends ignore it).
    pub step_budget: u64,
}

impl ExecutableKernels {
    /// Builds `module`'s PrimFuncs with `backend` for `target`.
    pub fn build(
        backend: &dyn Backend,
        module: &IRModule,
        target: &Target,
    ) -> std::result::Result<ExecutableKernels, BuildError> {
        Ok(ExecutableKernels {
            exec: backend.build(module, target, &BuildOptions::default())?,
            step_budget: u64::MAX,
        })
    }
}

impl Kernels for ExecutableKernels {
    fn call_prim_func(
        &mut self,
        name: &str,
        args: &mut [NDArray],
    ) -> std::result::Result<(), String> {
        self.exec.run(name, args, self.step_budget).map(|_| ())
    }
}

/// A destination-passing function: inputs then outputs, outputs written in
/// place.
pub type PackedFunc = Rc<dyn Fn(&mut [NDArray]) -> std::result::Result<(), String>>;

/// Functions `R.call_dps_packed` finds by name (TVM's global function
/// registry; the host or one run of a script owns it).
#[derive(Clone, Default)]
pub struct PackedRegistry {
    funcs: BTreeMap<String, PackedFunc>,
}

impl fmt::Debug for PackedRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.funcs.keys()).finish()
    }
}

impl PackedRegistry {
    pub fn new() -> PackedRegistry {
        PackedRegistry::default()
    }
    /// The course's environment functions, natively: `env.linear(x, w, b,
    /// out)` computes `x @ w.T + b`, `env.relu(x, out)` computes `max(x, 0)`.
    pub fn with_course_env() -> PackedRegistry {
        let mut r = PackedRegistry::new();
        r.register("env.linear", |args: &mut [NDArray]| {
            let [x, w, b, out] = args else {
                return Err(format!(
                    "env.linear takes 4 arrays (x, w, b, out), got {}",
                    args.len()
                ));
            };
            Ok(reference::linear_into(x, w, b, out)?)
        });
        r.register("env.relu", |args: &mut [NDArray]| {
            let [x, out] = args else {
                return Err(format!(
                    "env.relu takes 2 arrays (x, out), got {}",
                    args.len()
                ));
            };
            Ok(reference::relu_into(x, out)?)
        });
        r
    }
    /// Registers (or replaces, like `override=True`) a function.
    pub fn register(
        &mut self,
        name: impl Into<String>,
        f: impl Fn(&mut [NDArray]) -> std::result::Result<(), String> + 'static,
    ) {
        self.funcs.insert(name.into(), Rc::new(f));
    }
    pub fn get(&self, name: &str) -> Option<&PackedFunc> {
        self.funcs.get(name)
    }
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.funcs.keys().map(String::as_str)
    }
}

/// Runs graph function `name` of `module` on tensors, with the reference
/// interpreter for PrimFuncs.
pub fn run(
    module: &IRModule,
    name: &str,
    args: Vec<NDArray>,
    packed: &PackedRegistry,
) -> Result<Value> {
    let mut kernels =
        ExecutableKernels::build(&ReferenceBackend::default(), module, &Target::llvm())
            .map_err(|e| VmError::new(e.to_string(), Span::default()))?;
    Vm::new(module, packed, &mut kernels).call(name, args.into_iter().map(Value::Tensor).collect())
}

/// Deepest chain of graph-function calls before the VM gives up.
const MAX_CALL_DEPTH: usize = 64;

/// A virtual machine over one module.
pub struct Vm<'a> {
    module: &'a IRModule,
    packed: &'a PackedRegistry,
    kernels: &'a mut dyn Kernels,
    depth: usize,
}

/// The values of one function activation.
struct Frame {
    vars: HashMap<VarId, Value>,
    syms: HashMap<VarId, i64>,
    func: String,
}

impl<'a> Vm<'a> {
    pub fn new(
        module: &'a IRModule,
        packed: &'a PackedRegistry,
        kernels: &'a mut dyn Kernels,
    ) -> Vm<'a> {
        Vm {
            module,
            packed,
            kernels,
            depth: 0,
        }
    }

    /// Calls a graph function of the module.
    pub fn call(&mut self, name: &str, args: Vec<Value>) -> Result<Value> {
        let Some(func) = self.module.get_graph(name) else {
            let msg = match self.module.get(name) {
                Some(_) => format!("`{name}` is a PrimFunc; the VM runs graph functions"),
                None => format!("the module has no function `{name}`"),
            };
            return Err(VmError::new(msg, Span::default()));
        };
        let func = func.clone();
        self.call_func(name, &func, args)
    }

    fn call_func(&mut self, name: &str, f: &Function, args: Vec<Value>) -> Result<Value> {
        if self.depth >= MAX_CALL_DEPTH {
            return Err(VmError::new(
                format!("graph function calls nest deeper than {MAX_CALL_DEPTH} (recursion?)"),
                f.span,
            ));
        }
        if args.len() != f.params.len() {
            return Err(VmError::new(
                format!(
                    "`{name}` takes {} argument{}, but {} were given",
                    f.params.len(),
                    if f.params.len() == 1 { "" } else { "s" },
                    args.len()
                ),
                f.span,
            ));
        }
        let mut frame = Frame {
            vars: HashMap::new(),
            syms: HashMap::new(),
            func: name.to_string(),
        };
        for (i, (p, a)) in f.params.iter().zip(args).enumerate() {
            match_value(&mut frame.syms, p.sinfo(), &a).map_err(|m| {
                VmError::new(
                    format!("{name}: argument {} ({}): {m}", i + 1, p.name()),
                    p.span(),
                )
            })?;
            frame.vars.insert(p.id(), a);
        }
        self.depth += 1;
        let r = self.run_body(f, &mut frame);
        self.depth -= 1;
        let v = r?;
        match_value(&mut frame.syms, &f.ret, &v).map_err(|m| {
            VmError::new(
                format!("{name}: the returned value: {m}"),
                f.body.body.span(),
            )
        })?;
        Ok(v)
    }

    fn run_body(&mut self, f: &Function, frame: &mut Frame) -> Result<Value> {
        for b in f.body.bindings() {
            let v = self.eval(&b.value, frame, b.span)?;
            match_value(&mut frame.syms, b.var.sinfo(), &v).map_err(|m| {
                VmError::new(
                    format!("{}: the value bound to `{}`: {m}", frame.func, b.var.name()),
                    b.span,
                )
            })?;
            frame.vars.insert(b.var.id(), v);
        }
        self.eval(&f.body.body, frame, f.body.body.span())
    }

    fn eval(&mut self, e: &Expr, frame: &mut Frame, span: Span) -> Result<Value> {
        let span = if e.span() == Span::default() {
            span
        } else {
            e.span()
        };
        match e.kind() {
            ExprKind::Var(v) => {
                frame.vars.get(&v.id()).cloned().ok_or_else(|| {
                    VmError::new(format!("variable `{}` has no value", v.name()), span)
                })
            }
            ExprKind::Constant(a) => Ok(Value::Tensor((**a).clone())),
            ExprKind::Tuple(fields) => {
                let mut out = Vec::with_capacity(fields.len());
                for x in fields {
                    out.push(self.eval(x, frame, span)?);
                }
                Ok(Value::Tuple(out))
            }
            ExprKind::TupleGetItem(t, i) => match self.eval(t, frame, span)? {
                Value::Tuple(mut items) if *i < items.len() => Ok(items.swap_remove(*i)),
                other => Err(VmError::new(
                    format!("cannot take item {i} of {}", other.describe()),
                    span,
                )),
            },
            ExprKind::Shape(values) => {
                let mut out = Vec::with_capacity(values.len());
                for d in values {
                    out.push(eval_dim(&frame.syms, d).map_err(|m| VmError::new(m, span))?);
                }
                Ok(Value::Shape(out))
            }
            ExprKind::PrimValue(p) => Ok(Value::Prim(
                eval_dim(&frame.syms, p).map_err(|m| VmError::new(m, span))?,
            )),
            ExprKind::Str(s) => Ok(Value::Str(s.clone())),
            ExprKind::GlobalVar(g) => Ok(Value::Func(g.name().to_string())),
            ExprKind::ExternFunc(s) => Ok(Value::Func(s.clone())),
            ExprKind::Call(call) => {
                let mut args = Vec::with_capacity(call.args.len());
                for a in &call.args {
                    args.push(self.eval(a, frame, span)?);
                }
                match &call.callee {
                    Callee::Global(g) => {
                        let Some(f) = self.module.get_graph(g.name()) else {
                            return Err(VmError::new(
                                format!("`{}` is not a graph function of the module", g.name()),
                                span,
                            ));
                        };
                        let f = f.clone();
                        self.call_func(g.name(), &f, args)
                            .map_err(|e| VmError::new(e.message, span))
                    }
                    Callee::Op(Op::CallTir) | Callee::Op(Op::CallDpsPacked) => {
                        self.dps_call(call, args, frame, span)
                    }
                    Callee::Op(op) => {
                        let mut tensors = Vec::with_capacity(args.len());
                        let mut shape = None;
                        for a in args {
                            match a {
                                Value::Tensor(t) => tensors.push(t),
                                Value::Shape(s) if matches!(op, Op::Reshape) => {
                                    let dims: std::result::Result<Vec<usize>, _> =
                                        s.iter().map(|&d| usize::try_from(d)).collect();
                                    shape = Some(dims.map_err(|_| {
                                        VmError::new(
                                            format!("R.reshape: negative dimension in {s:?}"),
                                            span,
                                        )
                                    })?);
                                }
                                other => {
                                    return Err(VmError::new(
                                        format!(
                                            "R.{} takes tensors, not {}",
                                            op.script_name(),
                                            other.describe()
                                        ),
                                        span,
                                    ))
                                }
                            }
                        }
                        reference::eval_op(op, &tensors, shape.as_deref())
                            .map(Value::Tensor)
                            .map_err(|m| VmError::new(format!("{}: {m}", frame.func), span))
                    }
                }
            }
        }
    }

    /// `call_tir` / `call_dps_packed`.
    fn dps_call(
        &mut self,
        call: &super::ir::Call,
        args: Vec<Value>,
        frame: &mut Frame,
        span: Span,
    ) -> Result<Value> {
        let err = |m: String| VmError::new(m, span);
        let mut it = args.into_iter();
        let name = match it.next() {
            Some(Value::Func(n)) => n,
            other => {
                return Err(err(format!(
                    "the callee of a destination-passing call must be a function, not {}",
                    other
                        .map(|v| v.describe())
                        .unwrap_or_else(|| "nothing".into())
                )))
            }
        };
        let inputs = match it.next() {
            Some(Value::Tuple(items)) => items,
            Some(other) => vec![other],
            None => Vec::new(),
        };
        let tir_vars = match it.next() {
            Some(Value::Shape(s)) => s,
            Some(other) => {
                return Err(err(format!(
                    "`tir_vars` must be a shape, not {}",
                    other.describe()
                )))
            }
            None => Vec::new(),
        };
        let mut arrays: Vec<NDArray> = Vec::with_capacity(inputs.len() + 2);
        for (i, v) in inputs.into_iter().enumerate() {
            match v {
                Value::Tensor(t) => arrays.push(t),
                other => {
                    return Err(err(format!(
                        "argument {} of `{name}` must be a tensor, not {}",
                        i + 1,
                        other.describe()
                    )))
                }
            }
        }
        let n_in = arrays.len();
        let outs: Vec<&StructInfo> = match call.sinfo_args.first() {
            Some(StructInfo::Tuple(fields)) => fields.iter().collect(),
            Some(s) => vec![s],
            None => {
                return Err(err(format!(
                    "the call of `{name}` has no output struct info"
                )))
            }
        };
        for (i, s) in outs.iter().enumerate() {
            arrays.push(
                alloc(&frame.syms, s).map_err(|m| {
                    err(format!("{}: output {} of `{name}`: {m}", frame.func, i + 1))
                })?,
            );
        }
        for v in &tir_vars {
            arrays.push(
                NDArray::scalar_i64(tessel_tir::ir::DataType::i64(), *v)
                    .map_err(|e| err(e.to_string()))?,
            );
        }
        let is_tir = matches!(call.callee, Callee::Op(Op::CallTir));
        match self.module.get_prim(&name) {
            Some(_) => {
                self.kernels
                    .call_prim_func(&name, &mut arrays)
                    .map_err(|m| err(format!("{}: in `{name}`: {m}", frame.func)))?;
            }
            None if is_tir => {
                return Err(err(format!("`{name}` is not a PrimFunc of the module")));
            }
            None => match self.kernels.call_extern(&name, &mut arrays) {
                Some(r) => r.map_err(|m| err(format!("{}: in `{name}`: {m}", frame.func)))?,
                None => match self.packed.get(&name) {
                    Some(f) => f(&mut arrays)
                        .map_err(|m| err(format!("{}: in `{name}`: {m}", frame.func)))?,
                    None => {
                        return Err(err(format!(
                            "no function named `{name}`: it is neither a PrimFunc of the module nor registered"
                        ))
                        .with_note_text("register it with `tvm.register_func` (a PackedRegistry from Rust)"))
                    }
                },
            },
        }
        let mut outputs: Vec<Value> = arrays
            .into_iter()
            .skip(n_in)
            .take(outs.len())
            .map(Value::Tensor)
            .collect();
        match call.sinfo_args.first() {
            Some(StructInfo::Tuple(_)) => Ok(Value::Tuple(outputs)),
            _ => outputs
                .pop()
                .ok_or_else(|| err(format!("`{name}` produced no output"))),
        }
    }
}

impl VmError {
    fn with_note_text(mut self, note: &str) -> VmError {
        self.message.push_str(" (");
        self.message.push_str(note);
        self.message.push(')');
        self
    }
}

/// Evaluates a dimension with the symbolic sizes bound so far.
pub fn eval_dim(syms: &HashMap<VarId, i64>, e: &PrimExpr) -> std::result::Result<i64, String> {
    match e.kind() {
        PrimKind::Int(v) => Ok(*v),
        PrimKind::Var(v) => syms
            .get(&v.id())
            .copied()
            .ok_or_else(|| format!("the symbolic size `{}` is not known here", v.name())),
        PrimKind::Binary(op, a, b) => {
            let (x, y) = (eval_dim(syms, a)?, eval_dim(syms, b)?);
            let overflow = || {
                format!(
                    "overflow in the size {}",
                    tessel_tir::ir::printer::describe_dim(e)
                )
            };
            match op {
                BinOp::Add => x.checked_add(y).ok_or_else(overflow),
                BinOp::Sub => x.checked_sub(y).ok_or_else(overflow),
                BinOp::Mul => x.checked_mul(y).ok_or_else(overflow),
                BinOp::Min => Ok(x.min(y)),
                BinOp::Max => Ok(x.max(y)),
                BinOp::FloorDiv | BinOp::FloorMod | BinOp::Div | BinOp::Mod if y == 0 => {
                    Err("division by zero in a size".into())
                }
                BinOp::FloorDiv => floor_div(x, y).ok_or_else(overflow),
                BinOp::FloorMod => floor_div(x, y)
                    .and_then(|q| q.checked_mul(y))
                    .and_then(|p| x.checked_sub(p))
                    .ok_or_else(overflow),
                BinOp::Div => x.checked_div(y).ok_or_else(overflow),
                BinOp::Mod => x.checked_rem(y).ok_or_else(overflow),
            }
        }
        _ => Err(format!(
            "cannot evaluate the size {}",
            tessel_tir::ir::printer::describe_dim(e)
        )),
    }
}

/// Python's `x // y` (`y != 0`).
fn floor_div(x: i64, y: i64) -> Option<i64> {
    let q = x.checked_div(y)?;
    if x % y != 0 && ((x < 0) != (y < 0)) {
        q.checked_sub(1)
    } else {
        Some(q)
    }
}

/// A zeroed array for an output struct info.
fn alloc(syms: &HashMap<VarId, i64>, s: &StructInfo) -> std::result::Result<NDArray, String> {
    let StructInfo::Tensor(t) = s else {
        return Err(format!("outputs must be tensors, not {}", s.describe()));
    };
    let (Some(shape), Some(dtype)) = (&t.shape, t.dtype) else {
        return Err(format!(
            "the output {} needs a known shape and dtype",
            s.describe()
        ));
    };
    let mut dims = Vec::with_capacity(shape.len());
    for d in shape {
        let v = eval_dim(syms, d)?;
        dims.push(
            usize::try_from(v).map_err(|_| format!("negative size {v} in {}", s.describe()))?,
        );
    }
    Ok(reference::zeros(dtype, &dims)?)
}

/// Checks a value against a struct info, binding unbound symbolic sizes.
pub fn match_value(
    syms: &mut HashMap<VarId, i64>,
    s: &StructInfo,
    v: &Value,
) -> std::result::Result<(), String> {
    match (s, v) {
        (StructInfo::Object, _) => Ok(()),
        (StructInfo::Tensor(t), Value::Tensor(a)) => {
            if let Some(d) = t.dtype {
                if d != a.dtype() {
                    return Err(format!(
                        "expected dtype {d}, got {} (a tensor of shape {:?})",
                        a.dtype(),
                        a.shape()
                    ));
                }
            }
            if let Some(n) = t.ndim {
                if n != a.ndim() {
                    return Err(format!(
                        "expected a {n}-d tensor, got shape {:?}",
                        a.shape()
                    ));
                }
            }
            if let Some(shape) = &t.shape {
                match_dims(syms, shape, a.shape(), s)?;
            }
            Ok(())
        }
        (StructInfo::Shape(sh), Value::Shape(vals)) => {
            if let Some(n) = sh.ndim {
                if n != vals.len() {
                    return Err(format!("expected a shape of {n} dimensions, got {vals:?}"));
                }
            }
            if let Some(values) = &sh.values {
                let u: Vec<usize> = vals.iter().map(|&x| x.max(0) as usize).collect();
                match_dims(syms, values, &u, s)?;
            }
            Ok(())
        }
        (StructInfo::Tuple(fields), Value::Tuple(items)) => {
            if fields.len() != items.len() {
                return Err(format!(
                    "expected a tuple of {} fields, got {}",
                    fields.len(),
                    items.len()
                ));
            }
            for (i, (f, x)) in fields.iter().zip(items).enumerate() {
                match_value(syms, f, x).map_err(|m| format!("field {i}: {m}"))?;
            }
            Ok(())
        }
        (StructInfo::Prim(_), Value::Prim(_)) => Ok(()),
        (StructInfo::Func(_), Value::Func(_)) => Ok(()),
        (s, v) => Err(format!("expected {}, got {}", s.describe(), v.describe())),
    }
}

fn match_dims(
    syms: &mut HashMap<VarId, i64>,
    dims: &[PrimExpr],
    actual: &[usize],
    s: &StructInfo,
) -> std::result::Result<(), String> {
    if dims.len() != actual.len() {
        return Err(format!("expected {}, got shape {actual:?}", s.describe()));
    }
    for (i, (d, &a)) in dims.iter().zip(actual).enumerate() {
        let a = a as i64;
        if let PrimKind::Var(v) = d.kind() {
            match syms.get(&v.id()) {
                Some(&bound) if bound != a => {
                    return Err(format!(
                        "dimension {i} is {a}, but {} needs `{}` = {bound}, as bound earlier (got shape {actual:?})",
                        s.describe(),
                        v.name()
                    ))
                }
                Some(_) => {}
                None => {
                    syms.insert(v.id(), a);
                }
            }
            continue;
        }
        match eval_dim(syms, d) {
            Ok(x) if x == a => {}
            Ok(x) => {
                return Err(format!(
                    "expected {}, got shape {actual:?}: dimension {i} must be {x}",
                    s.describe()
                ))
            }
            // A composite size of still unknown variables is not checked.
            Err(_) => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessel_tir::ir::{DataType, Var};

    #[test]
    fn sizes_evaluate_like_python() {
        let n = Var::new("n", DataType::i64());
        let mut syms = HashMap::new();
        syms.insert(n.id(), -7);
        let e = |op, b| PrimExpr::binary(op, n.to_expr(), PrimExpr::i64(b));
        assert_eq!(eval_dim(&syms, &e(BinOp::FloorDiv, 2)), Ok(-4));
        assert_eq!(eval_dim(&syms, &e(BinOp::FloorMod, 2)), Ok(1));
        assert_eq!(eval_dim(&syms, &e(BinOp::FloorDiv, -2)), Ok(3));
        assert_eq!(eval_dim(&syms, &e(BinOp::Mul, 3)), Ok(-21));
        assert!(eval_dim(&syms, &e(BinOp::FloorDiv, 0)).is_err());
        assert!(eval_dim(&HashMap::new(), &n.to_expr()).is_err());
        let big = PrimExpr::binary(BinOp::Mul, PrimExpr::i64(i64::MAX), PrimExpr::i64(2));
        assert!(eval_dim(&syms, &big).is_err());
    }

    #[test]
    fn values_bind_symbolic_sizes_once() {
        let n = Var::new("n", DataType::i64());
        let s = StructInfo::tensor_of(vec![n.to_expr(), PrimExpr::i64(2)], DataType::f32());
        let mut syms = HashMap::new();
        let a = NDArray::zeros(DataType::f32(), &[3, 2]).expect("a");
        assert!(match_value(&mut syms, &s, &Value::Tensor(a.clone())).is_ok());
        assert_eq!(syms.get(&n.id()), Some(&3));
        let b = NDArray::zeros(DataType::f32(), &[4, 2]).expect("b");
        let err = match_value(&mut syms, &s, &Value::Tensor(b)).expect_err("n is 3");
        assert!(err.contains("`n` = 3"), "{err}");
        let c = NDArray::zeros(DataType::f32(), &[3, 5]).expect("c");
        let err = match_value(&mut syms, &s, &Value::Tensor(c)).expect_err("2 != 5");
        assert!(err.contains("dimension 1 must be 2"), "{err}");
    }

    #[test]
    fn oversized_outputs_are_refused() {
        let s = StructInfo::tensor(&[1 << 20, 1 << 20], DataType::f32());
        let err = alloc(&HashMap::new(), &s).expect_err("too large");
        assert!(err.contains("limit"), "{err}");
    }
}

//! The graph-level IR: Relax-like functions over tensors.
//!
//! A [`Function`] takes [`Var`] parameters annotated with [`StructInfo`]
//! (`R.Tensor((1, "m"), "float32")`) and has a body that is a [`SeqExpr`]:
//! binding blocks (dataflow or not) of `var = value` bindings, then the
//! returned expression. Values are in A-normal form as TVM normalises them:
//! the arguments of a [`Call`] are leaves (variables, constants, tuples of
//! leaves, shapes, global functions), and every call is bound to a variable.
//!
//! Symbolic dimensions are TensorIR variables ([`SymVar`], normally
//! `int64`), the same type the PrimFuncs use, so a pass that lowers a graph
//! operator to a PrimFunc (LegalizeOps) moves shapes across levels without
//! conversion. A symbolic variable is *defined* where it first appears in a
//! parameter's struct info (TVM's rule); every later use refers to it.
//!
//! Values are immutable `Rc` trees like the TIR: "before" and "after" of a
//! pass share untouched subtrees. Variables have identity (an id), names only
//! matter to the printer.
//!
//! [`op`] holds the built-in operators; their inference, the passes and the
//! VM are compiler-core's.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::rc::Rc;

use crate::expr::fresh_id;
use crate::values::NDArray;
use crate::visit::{VarCollector, Visitor};
use crate::{AttrValue, DataType, VarId};
use tessel_syntax::diag::Span;

pub mod op;

use op::Op;

/// A TensorIR expression used as a dimension (`1`, `n`, `n * 3`).
pub type PrimExpr = crate::Expr;
/// A TensorIR variable used as a symbolic dimension (`n = T.int64()`).
pub type SymVar = crate::Var;

// ---------------------------------------------------------------------------
// Struct info

/// What is statically known about a value (TVM's `StructInfo`; TVM 0.27
/// calls it a "type": `out_ty=`, `relax.TensorType`).
#[derive(Clone, Debug)]
pub enum StructInfo {
    /// Anything (`R.Object`; TVM 0.27 prints `R.Any`).
    Object,
    /// A scalar of a TensorIR dtype (`R.Prim("int64")`, printed `T.int64`).
    Prim(DataType),
    /// A shape value (`R.Shape([1, n])`, or `R.Shape(ndim=2)`).
    Shape(ShapeInfo),
    /// A tensor (`R.Tensor((1, n), dtype="float32")`).
    Tensor(TensorInfo),
    /// A tuple (`R.Tuple(R.Tensor(...), ...)`).
    Tuple(Vec<StructInfo>),
    /// A function (`R.Callable((params...), ret)`).
    Func(FuncInfo),
}

/// `R.Shape(...)`.
#[derive(Clone, Debug, Default)]
pub struct ShapeInfo {
    /// The dimensions, when known.
    pub values: Option<Vec<PrimExpr>>,
    /// The rank, when known (always `values.len()` when `values` is known).
    pub ndim: Option<usize>,
}

/// `R.Tensor(shape, dtype)`.
#[derive(Clone, Debug, Default)]
pub struct TensorInfo {
    /// The shape, when known (each dimension an `int64` expression).
    pub shape: Option<Vec<PrimExpr>>,
    /// The element type; `None` is TVM's unknown dtype (`void`).
    pub dtype: Option<DataType>,
    /// The rank, when known (always `shape.len()` when `shape` is known).
    pub ndim: Option<usize>,
}

/// `R.Callable(params, ret)`.
#[derive(Clone, Debug)]
pub struct FuncInfo {
    /// Parameter struct infos; `None` for an opaque function.
    pub params: Option<Vec<StructInfo>>,
    pub ret: Box<StructInfo>,
    pub pure: bool,
}

impl TensorInfo {
    /// A tensor of known shape and dtype.
    pub fn new(shape: Vec<PrimExpr>, dtype: Option<DataType>) -> TensorInfo {
        TensorInfo {
            ndim: Some(shape.len()),
            shape: Some(shape),
            dtype,
        }
    }
    /// A tensor of known rank only.
    pub fn with_ndim(ndim: Option<usize>, dtype: Option<DataType>) -> TensorInfo {
        TensorInfo {
            shape: None,
            dtype,
            ndim,
        }
    }
    /// The constant dimensions, when every dimension is a constant.
    pub fn static_shape(&self) -> Option<Vec<i64>> {
        self.shape.as_ref()?.iter().map(|d| d.as_int()).collect()
    }
}

impl StructInfo {
    /// `R.Tensor(shape, dtype)` with constant dimensions.
    pub fn tensor(shape: &[i64], dtype: DataType) -> StructInfo {
        StructInfo::Tensor(TensorInfo::new(
            shape.iter().map(|&d| PrimExpr::i64(d)).collect(),
            Some(dtype),
        ))
    }
    /// `R.Tensor(shape, dtype)` with the given dimension expressions.
    pub fn tensor_of(shape: Vec<PrimExpr>, dtype: DataType) -> StructInfo {
        StructInfo::Tensor(TensorInfo::new(shape, Some(dtype)))
    }
    pub fn as_tensor(&self) -> Option<&TensorInfo> {
        match self {
            StructInfo::Tensor(t) => Some(t),
            _ => None,
        }
    }
    /// Calls `f` on every dimension expression inside, in order.
    pub fn for_each_dim(&self, f: &mut impl FnMut(&PrimExpr)) {
        match self {
            StructInfo::Object | StructInfo::Prim(_) => {}
            StructInfo::Shape(s) => {
                for d in s.values.iter().flatten() {
                    f(d)
                }
            }
            StructInfo::Tensor(t) => {
                for d in t.shape.iter().flatten() {
                    f(d)
                }
            }
            StructInfo::Tuple(fields) => {
                for x in fields {
                    x.for_each_dim(f)
                }
            }
            StructInfo::Func(fi) => {
                for p in fi.params.iter().flatten() {
                    p.for_each_dim(f)
                }
                fi.ret.for_each_dim(f)
            }
        }
    }
    /// The same struct info with every dimension rewritten by `f`.
    pub fn map_dims(&self, f: &mut impl FnMut(&PrimExpr) -> PrimExpr) -> StructInfo {
        match self {
            StructInfo::Object => StructInfo::Object,
            StructInfo::Prim(d) => StructInfo::Prim(*d),
            StructInfo::Shape(s) => StructInfo::Shape(ShapeInfo {
                values: s.values.as_ref().map(|v| v.iter().map(&mut *f).collect()),
                ndim: s.ndim,
            }),
            StructInfo::Tensor(t) => StructInfo::Tensor(TensorInfo {
                shape: t.shape.as_ref().map(|v| v.iter().map(&mut *f).collect()),
                dtype: t.dtype,
                ndim: t.ndim,
            }),
            StructInfo::Tuple(fields) => {
                StructInfo::Tuple(fields.iter().map(|x| x.map_dims(f)).collect())
            }
            StructInfo::Func(fi) => StructInfo::Func(FuncInfo {
                params: fi
                    .params
                    .as_ref()
                    .map(|ps| ps.iter().map(|p| p.map_dims(f)).collect()),
                ret: Box::new(fi.ret.map_dims(f)),
                pure: fi.pure,
            }),
        }
    }
    /// The symbolic variables used in the dimensions, in order of first use.
    pub fn sym_vars(&self) -> Vec<SymVar> {
        let mut vars = VarCollector::default();
        self.for_each_dim(&mut |d| vars.visit_expr(d));
        vars.vars
    }
}

// ---------------------------------------------------------------------------
// Variables

/// A graph-level variable: a function parameter or the left-hand side of a
/// binding. Compared and hashed by identity.
#[derive(Clone)]
pub struct Var(Rc<VarNode>);

#[derive(Debug)]
pub struct VarNode {
    pub id: VarId,
    pub name: String,
    /// What the variable holds (its annotation, or what was deduced).
    pub sinfo: StructInfo,
    /// A `DataflowVar`: defined in a dataflow block and not one of its
    /// outputs, so it is invisible outside the block.
    pub dataflow: bool,
    pub span: Span,
}

impl Var {
    pub fn new(name: impl Into<String>, sinfo: StructInfo) -> Var {
        Var::with(name, sinfo, false, Span::default())
    }
    /// A dataflow variable (local to its dataflow block).
    pub fn dataflow(name: impl Into<String>, sinfo: StructInfo) -> Var {
        Var::with(name, sinfo, true, Span::default())
    }
    pub fn with(name: impl Into<String>, sinfo: StructInfo, dataflow: bool, span: Span) -> Var {
        Var(Rc::new(VarNode {
            id: VarId(fresh_id()),
            name: name.into(),
            sinfo,
            dataflow,
            span,
        }))
    }
    pub fn id(&self) -> VarId {
        self.0.id
    }
    pub fn name(&self) -> &str {
        &self.0.name
    }
    pub fn sinfo(&self) -> &StructInfo {
        &self.0.sinfo
    }
    pub fn is_dataflow(&self) -> bool {
        self.0.dataflow
    }
    pub fn span(&self) -> Span {
        self.0.span
    }
    /// This variable used as an expression.
    pub fn to_expr(&self) -> Expr {
        Expr::new(ExprKind::Var(self.clone()), self.span())
    }
}

impl PartialEq for Var {
    fn eq(&self, other: &Self) -> bool {
        self.0.id == other.0.id
    }
}
impl Eq for Var {}
impl std::hash::Hash for Var {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.id.hash(state)
    }
}
impl fmt::Debug for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}#{}", self.0.name, self.0.id.0)
    }
}

/// A reference to a function of the module (`cls.linear0`), by name.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlobalVar(Rc<str>);

impl GlobalVar {
    pub fn new(name: &str) -> GlobalVar {
        GlobalVar(Rc::from(name))
    }
    pub fn name(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for GlobalVar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@{}", self.0)
    }
}

// ---------------------------------------------------------------------------
// Expressions

/// A graph-level expression.
#[derive(Clone)]
pub struct Expr(Rc<ExprNode>);

#[derive(Debug)]
pub struct ExprNode {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Var(Var),
    /// A tensor constant (`R.const(1.5, "float32")`, or bound parameters).
    Constant(Rc<NDArray>),
    /// `(a, b)`.
    Tuple(Vec<Expr>),
    /// `t[0]`.
    TupleGetItem(Expr, usize),
    /// A shape value: `R.shape([1, n])`.
    Shape(Vec<PrimExpr>),
    /// A scalar value: `R.prim_value(n)`.
    PrimValue(PrimExpr),
    /// A string value: `R.str("...")`.
    Str(String),
    /// A function of the module used as a value (`cls.linear0` as the first
    /// argument of `R.call_tir`).
    GlobalVar(GlobalVar),
    /// A function found by name at run time (the first argument of
    /// `R.call_dps_packed("env.linear", ...)`).
    ExternFunc(String),
    Call(Call),
}

/// A call of a built-in operator or of a graph function of the module.
#[derive(Clone, Debug)]
pub struct Call {
    pub callee: Callee,
    pub args: Vec<Expr>,
    /// Struct info arguments: the output of `call_tir` / `call_dps_packed`.
    pub sinfo_args: Vec<StructInfo>,
}

#[derive(Clone, Debug)]
pub enum Callee {
    /// A built-in operator with its attributes (`R.add`, `R.call_tir`, …).
    Op(Op),
    /// A graph function of the module (`cls.fused_matmul_add0(x, w, b)`).
    Global(GlobalVar),
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr(Rc::new(ExprNode { kind, span }))
    }
    pub fn kind(&self) -> &ExprKind {
        &self.0.kind
    }
    pub fn span(&self) -> Span {
        self.0.span
    }
    pub fn same_node(&self, other: &Expr) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
    pub fn var(v: &Var) -> Expr {
        v.to_expr()
    }
    pub fn tuple(fields: Vec<Expr>) -> Expr {
        Expr::new(ExprKind::Tuple(fields), Span::default())
    }
    pub fn constant(a: NDArray) -> Expr {
        Expr::new(ExprKind::Constant(Rc::new(a)), Span::default())
    }
    pub fn shape(values: Vec<PrimExpr>) -> Expr {
        Expr::new(ExprKind::Shape(values), Span::default())
    }
    pub fn global(name: &str) -> Expr {
        Expr::new(ExprKind::GlobalVar(GlobalVar::new(name)), Span::default())
    }
    pub fn extern_func(name: &str) -> Expr {
        Expr::new(ExprKind::ExternFunc(name.to_string()), Span::default())
    }
    /// A call of a built-in operator.
    pub fn op(op: Op, args: Vec<Expr>) -> Expr {
        Expr::call(Call {
            callee: Callee::Op(op),
            args,
            sinfo_args: Vec::new(),
        })
    }
    pub fn call(call: Call) -> Expr {
        Expr::new(ExprKind::Call(call), Span::default())
    }
    /// `R.call_tir(cls.func, (args...), out_sinfo=out)`.
    pub fn call_tir(func: &str, args: Vec<Expr>, out: StructInfo) -> Expr {
        Expr::call(Call {
            callee: Callee::Op(Op::CallTir),
            args: vec![Expr::global(func), Expr::tuple(args)],
            sinfo_args: vec![out],
        })
    }
    /// `R.call_dps_packed("name", (args...), out_sinfo=out)`.
    pub fn call_dps_packed(func: &str, args: Vec<Expr>, out: StructInfo) -> Expr {
        Expr::call(Call {
            callee: Callee::Op(Op::CallDpsPacked),
            args: vec![Expr::extern_func(func), Expr::tuple(args)],
            sinfo_args: vec![out],
        })
    }
    pub fn with_span(&self, span: Span) -> Expr {
        Expr::new(self.kind().clone(), span)
    }
    pub fn as_var(&self) -> Option<&Var> {
        match self.kind() {
            ExprKind::Var(v) => Some(v),
            _ => None,
        }
    }
    pub fn as_call(&self) -> Option<&Call> {
        match self.kind() {
            ExprKind::Call(c) => Some(c),
            _ => None,
        }
    }
    /// Whether this is a leaf in A-normal form (not a call).
    pub fn is_leaf(&self) -> bool {
        match self.kind() {
            ExprKind::Call(_) => false,
            ExprKind::Tuple(fields) => fields.iter().all(Expr::is_leaf),
            ExprKind::TupleGetItem(t, _) => t.is_leaf(),
            _ => true,
        }
    }
    /// Calls `f` on every graph variable used (not defined) in this expression.
    pub fn for_each_var(&self, f: &mut impl FnMut(&Var)) {
        match self.kind() {
            ExprKind::Var(v) => f(v),
            ExprKind::Tuple(fields) => {
                for x in fields {
                    x.for_each_var(f)
                }
            }
            ExprKind::TupleGetItem(t, _) => t.for_each_var(f),
            ExprKind::Call(c) => {
                for a in &c.args {
                    a.for_each_var(f)
                }
            }
            _ => {}
        }
    }
    /// Calls `f` on every module function this expression refers to.
    pub fn for_each_global(&self, f: &mut impl FnMut(&GlobalVar)) {
        match self.kind() {
            ExprKind::GlobalVar(g) => f(g),
            ExprKind::Tuple(fields) => {
                for x in fields {
                    x.for_each_global(f)
                }
            }
            ExprKind::TupleGetItem(t, _) => t.for_each_global(f),
            ExprKind::Call(c) => {
                if let Callee::Global(g) = &c.callee {
                    f(g)
                }
                for a in &c.args {
                    a.for_each_global(f)
                }
            }
            _ => {}
        }
    }
}

impl fmt::Debug for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.kind.fmt(f)
    }
}

impl From<&Var> for Expr {
    fn from(v: &Var) -> Expr {
        v.to_expr()
    }
}

// ---------------------------------------------------------------------------
// Bindings and functions

/// `var = value` (TVM's `VarBinding`).
#[derive(Clone, Debug)]
pub struct Binding {
    pub var: Var,
    pub value: Expr,
    pub span: Span,
}

impl Binding {
    pub fn new(var: Var, value: Expr) -> Binding {
        Binding {
            var,
            value,
            span: Span::default(),
        }
    }
}

/// A sequence of bindings; a dataflow block (`with R.dataflow():`) holds
/// only pure operations and its non-dataflow variables are its outputs.
#[derive(Clone, Debug)]
pub struct BindingBlock {
    pub bindings: Vec<Binding>,
    pub dataflow: bool,
}

/// Binding blocks, then a result.
#[derive(Clone, Debug)]
pub struct SeqExpr {
    pub blocks: Vec<BindingBlock>,
    pub body: Expr,
}

impl SeqExpr {
    /// All bindings in order.
    pub fn bindings(&self) -> impl Iterator<Item = &Binding> {
        self.blocks.iter().flat_map(|b| b.bindings.iter())
    }
}

/// A graph-level function (`@R.function`).
#[derive(Clone, Debug)]
pub struct Function {
    pub params: Vec<Var>,
    pub body: SeqExpr,
    /// The struct info of the result (the `-> ...` annotation, or deduced).
    pub ret: StructInfo,
    /// `R.func_attr({...})` and `global_symbol` (absent for a private function).
    pub attrs: BTreeMap<String, AttrValue>,
    /// `@R.function(pure=False)` makes this false.
    pub pure: bool,
    pub span: Span,
}

impl Function {
    /// The function's own struct info (`R.Callable`).
    pub fn sinfo(&self) -> StructInfo {
        StructInfo::Func(FuncInfo {
            params: Some(self.params.iter().map(|p| p.sinfo().clone()).collect()),
            ret: Box::new(self.ret.clone()),
            pure: self.pure,
        })
    }
    /// Whether this function has no `global_symbol` (`@R.function(private=True)`).
    pub fn is_private(&self) -> bool {
        !self.attrs.contains_key("global_symbol")
    }
    /// The symbolic variables the parameters define, in order of first appearance.
    pub fn defined_sym_vars(&self) -> Vec<SymVar> {
        let mut vars = VarCollector::default();
        for p in &self.params {
            p.sinfo().for_each_dim(&mut |d| vars.visit_expr(d));
        }
        vars.vars
    }
    /// The module functions this function refers to, in order of first use.
    pub fn globals(&self) -> Vec<GlobalVar> {
        let mut out: Vec<GlobalVar> = Vec::new();
        let mut push = |g: &GlobalVar| {
            if !out.contains(g) {
                out.push(g.clone())
            }
        };
        for b in self.body.bindings() {
            b.value.for_each_global(&mut push);
        }
        self.body.body.for_each_global(&mut push);
        out
    }
    /// The binding that defines each variable of the body.
    pub fn binding_map(&self) -> HashMap<VarId, &Binding> {
        self.body.bindings().map(|b| (b.var.id(), b)).collect()
    }
}

/// Whether two struct infos are the same, dimensions compared as trees with
/// variables by identity (no variable mapping): the printer's "annotation
/// equals what inference would give" test.
pub fn sinfo_equal(a: &StructInfo, b: &StructInfo) -> bool {
    fn dims(p: &[PrimExpr], q: &[PrimExpr]) -> bool {
        p.len() == q.len()
            && p.iter()
                .zip(q)
                .all(|(x, y)| crate::deep_equal::expr_deep_equal(x, y))
    }
    fn opt_dims(p: &Option<Vec<PrimExpr>>, q: &Option<Vec<PrimExpr>>) -> bool {
        match (p, q) {
            (None, None) => true,
            (Some(p), Some(q)) => dims(p, q),
            _ => false,
        }
    }
    match (a, b) {
        (StructInfo::Object, StructInfo::Object) => true,
        (StructInfo::Prim(x), StructInfo::Prim(y)) => x == y,
        (StructInfo::Shape(x), StructInfo::Shape(y)) => {
            x.ndim == y.ndim && opt_dims(&x.values, &y.values)
        }
        (StructInfo::Tensor(x), StructInfo::Tensor(y)) => {
            x.dtype == y.dtype && x.ndim == y.ndim && opt_dims(&x.shape, &y.shape)
        }
        (StructInfo::Tuple(x), StructInfo::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| sinfo_equal(p, q))
        }
        (StructInfo::Func(x), StructInfo::Func(y)) => {
            x.pure == y.pure
                && match (&x.params, &y.params) {
                    (None, None) => true,
                    (Some(p), Some(q)) => {
                        p.len() == q.len() && p.iter().zip(q).all(|(s, t)| sinfo_equal(s, t))
                    }
                    _ => false,
                }
                && sinfo_equal(&x.ret, &y.ret)
        }
        _ => false,
    }
}

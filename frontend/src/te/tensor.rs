//! Tensors and the operations that produce them: `te.placeholder`,
//! `te.compute`, reductions (`te.sum` / `te.max` / `te.min` / custom
//! combiners) and `te.reduce_axis`.
//!
//! A [`Tensor`] is one output of an [`Operation`]. Indexing a tensor
//! (`A[i, j]`) gives an ordinary [`Expr`] load of the tensor's *proxy buffer*,
//! a buffer that stands for the tensor until [`create_prim_func`] gives it a
//! real one; so TE bodies are plain TensorIR expressions and every `Expr`
//! helper (printing, simplification, substitution) works on them.
//!
//! [`create_prim_func`]: super::create_prim_func

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::rc::{Rc, Weak};

use tessel_tir::arith::Analyzer;
use tessel_tir::ir::mutate::substitute_expr;
use tessel_tir::ir::{
    AttrValue, Buffer, BufferId, DataType, Expr, ExprKind, IterKind, IterVar, Range, Var,
};

use super::op;
use super::{TeError, TeResult};

// ------------------------------------------------------------------ tensors

/// What an operation is.
#[derive(Debug)]
pub enum OpKind {
    /// `te.placeholder`: an input.
    Placeholder,
    /// `te.compute`.
    Compute(ComputeOp),
}

/// The body of a `te.compute`.
#[derive(Debug)]
pub struct ComputeOp {
    /// One spatial iterator per output dimension (`i`, `j` / `i0`, `i1` / `ax0`…).
    pub axis: Vec<IterVar>,
    /// The reduction iterators of the body's reduction, if any.
    pub reduce_axis: Vec<IterVar>,
    /// One entry per output: plain expressions, or the outputs of one reduction.
    pub body: Vec<BodyItem>,
    /// The tensors the body reads, in TVM's `InputTensors` order (first load
    /// in post-order).
    pub inputs: Vec<Tensor>,
}

/// A node of the TE graph: a placeholder or a compute, with its outputs'
/// shapes and dtypes.
pub struct OpNode {
    pub name: String,
    pub tag: String,
    /// `attrs=` of `te.compute`; they become block annotations.
    pub attrs: BTreeMap<String, OpAttr>,
    pub kind: OpKind,
    /// One proxy buffer per output (name, dtype and shape of the output).
    pub outputs: Vec<Buffer>,
}

/// A value in `te.compute(..., attrs={...})`. Tensors are allowed (TVM's
/// `layout_free_placeholders`), everything else is an attribute value.
#[derive(Clone, Debug)]
pub enum OpAttr {
    Value(AttrValue),
    Tensors(Vec<Tensor>),
}

impl From<AttrValue> for OpAttr {
    fn from(v: AttrValue) -> OpAttr {
        OpAttr::Value(v)
    }
}

impl fmt::Debug for OpNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Operation({:?}, {} outputs)",
            self.name,
            self.outputs.len()
        )
    }
}

/// An operation; compared by identity.
#[derive(Clone, Debug)]
pub struct Operation(pub(crate) Rc<OpNode>);

impl Operation {
    pub fn node(&self) -> &OpNode {
        &self.0
    }
    pub fn name(&self) -> &str {
        &self.0.name
    }
    pub fn tag(&self) -> &str {
        &self.0.tag
    }
    pub fn num_outputs(&self) -> usize {
        self.0.outputs.len()
    }
    /// Every output tensor, in order.
    pub fn outputs(&self) -> impl Iterator<Item = Tensor> + '_ {
        (0..self.num_outputs()).map(|value_index| Tensor {
            op: self.clone(),
            value_index,
        })
    }
    pub fn output(&self, i: usize) -> Option<Tensor> {
        (i < self.num_outputs()).then(|| Tensor {
            op: self.clone(),
            value_index: i,
        })
    }
    pub fn as_compute(&self) -> Option<&ComputeOp> {
        match &self.0.kind {
            OpKind::Compute(c) => Some(c),
            OpKind::Placeholder => None,
        }
    }
    pub fn is_placeholder(&self) -> bool {
        matches!(self.0.kind, OpKind::Placeholder)
    }
    /// `C.op.axis` (empty for a placeholder).
    pub fn axis(&self) -> &[IterVar] {
        self.as_compute().map(|c| &c.axis[..]).unwrap_or(&[])
    }
    /// `C.op.reduce_axis` (empty for a placeholder).
    pub fn reduce_axis(&self) -> &[IterVar] {
        self.as_compute().map(|c| &c.reduce_axis[..]).unwrap_or(&[])
    }
    /// The tensors this operation reads.
    pub fn input_tensors(&self) -> &[Tensor] {
        self.as_compute().map(|c| &c.inputs[..]).unwrap_or(&[])
    }
    fn key(&self) -> *const OpNode {
        Rc::as_ptr(&self.0)
    }
    pub fn same_as(&self, other: &Operation) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// One output of an operation (`te.Tensor`).
#[derive(Clone)]
pub struct Tensor {
    op: Operation,
    value_index: usize,
}

impl PartialEq for Tensor {
    fn eq(&self, other: &Tensor) -> bool {
        self.op.same_as(&other.op) && self.value_index == other.value_index
    }
}
impl Eq for Tensor {}
impl std::hash::Hash for Tensor {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.op.key().hash(state);
        self.value_index.hash(state);
    }
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Tensor(shape={:?}, op.name={})",
            self.shape()
                .iter()
                .map(tessel_tir::ir::printer::print_expr)
                .collect::<Vec<_>>(),
            self.op.name()
        )
    }
}

impl Tensor {
    pub fn op(&self) -> &Operation {
        &self.op
    }
    pub fn value_index(&self) -> usize {
        self.value_index
    }
    /// The proxy buffer that loads of this tensor use.
    pub fn proxy(&self) -> &Buffer {
        &self.op.0.outputs[self.value_index]
    }
    pub fn shape(&self) -> &[Expr] {
        &self.proxy().shape
    }
    pub fn ndim(&self) -> usize {
        self.shape().len()
    }
    pub fn dtype(&self) -> DataType {
        self.proxy().dtype
    }
    /// `tensor.name`: the op's name, or `name.v<i>` for one output of several
    /// (TVM's `GetNameHint`).
    pub fn name(&self) -> String {
        if self.op.num_outputs() == 1 {
            self.op.name().to_string()
        } else {
            format!("{}.v{}", self.op.name(), self.value_index)
        }
    }
    /// `A[i, j]` / `A(i, j)`: a load of one element.
    pub fn index(&self, indices: &[Expr]) -> TeResult<Expr> {
        if indices.len() != self.ndim() {
            return Err(TeError::new(format!(
                "Need to provide {} index in tensor but {} was provided",
                self.ndim(),
                indices.len()
            )));
        }
        for ix in indices {
            if !(ix.dtype().is_int() || ix.dtype().is_uint()) || ix.dtype().lanes != 1 {
                return Err(TeError::argument_type(format!(
                    "tensor {} indexed with a {} value; indices must be integers",
                    self.name(),
                    ix.dtype()
                )));
            }
        }
        Ok(Expr::load(self.proxy(), indices.to_vec()))
    }
    /// `A[i, j]` with the index variables of a compute (convenience).
    pub fn at(&self, vars: &[Var]) -> TeResult<Expr> {
        let ix: Vec<Expr> = vars.iter().map(Var::to_expr).collect();
        self.index(&ix)
    }
}

// ------------------------------------------------------------ proxy registry

thread_local! {
    /// Proxy buffer → its operation (weakly) and output index. This is an
    /// identity map, not state: it only lets a compute find the tensors its
    /// body loads from, which the body's `Expr`s name by proxy buffer.
    static PROXIES: RefCell<HashMap<BufferId, (Weak<OpNode>, usize)>> = RefCell::new(HashMap::new());
}

fn register(op: &Operation) {
    PROXIES.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() > 4096 {
            m.retain(|_, (w, _)| w.strong_count() > 0);
        }
        for (i, b) in op.0.outputs.iter().enumerate() {
            m.insert(b.id(), (Rc::downgrade(&op.0), i));
        }
    });
}

/// The tensor a proxy buffer stands for, if it is one of a live tensor.
pub fn tensor_of_buffer(buffer: &Buffer) -> Option<Tensor> {
    PROXIES.with(|m| {
        let m = m.borrow();
        let (w, i) = m.get(&buffer.id())?;
        let node = w.upgrade()?;
        Some(Tensor {
            op: Operation(node),
            value_index: *i,
        })
    })
}

// -------------------------------------------------------------- placeholder

/// `te.placeholder(shape, dtype, name)`. Shape entries are integer
/// expressions (constants or symbolic sizes).
pub fn placeholder(shape: &[Expr], dtype: DataType, name: &str) -> TeResult<Tensor> {
    check_shape(shape, name)?;
    if dtype.lanes != 1 || dtype.is_handle() {
        return Err(TeError::new(format!(
            "placeholder {name}: unsupported dtype {dtype}"
        )));
    }
    let node = OpNode {
        name: name.to_string(),
        tag: String::new(),
        attrs: BTreeMap::new(),
        kind: OpKind::Placeholder,
        outputs: vec![Buffer::new(name, dtype, shape.to_vec())],
    };
    let op = Operation(Rc::new(node));
    register(&op);
    Ok(Tensor { op, value_index: 0 })
}

/// `te.placeholder` with a constant shape (convenience).
pub fn placeholder_const(shape: &[i64], dtype: DataType, name: &str) -> TeResult<Tensor> {
    let shape: Vec<Expr> = shape.iter().map(|d| op::py_int(*d)).collect();
    placeholder(&shape, dtype, name)
}

fn check_shape(shape: &[Expr], name: &str) -> TeResult<()> {
    for d in shape {
        if !(d.dtype().is_int() || d.dtype().is_uint()) || d.dtype().lanes != 1 {
            return Err(TeError::argument_type(format!(
                "{name}: shape entries must be integers, found a {}",
                d.dtype()
            )));
        }
        if let Some(v) = d.as_int() {
            if v < 0 {
                return Err(TeError::invalid_value(format!(
                    "{name}: negative dimension {v} in shape"
                )));
            }
        }
    }
    Ok(())
}

// ----------------------------------------------------------------- iterators

/// `te.var(name, dtype)` / `tvm.tir.Var`: a symbolic size or scalar.
pub fn var(name: &str, dtype: DataType) -> Var {
    Var::new(name, dtype)
}

/// An iterator over `[min, min + extent)` the way `tvm.tir.IterVar((lo, hi),
/// name, kind)` builds it: extent `hi` when `lo` is zero, else the simplified
/// `hi - lo`; the variable takes the extent's dtype.
fn make_iter_var(lo: &Expr, hi: &Expr, name: &str, kind: IterKind) -> TeResult<IterVar> {
    for e in [lo, hi] {
        if !(e.dtype().is_int() || e.dtype().is_uint()) || e.dtype().lanes != 1 {
            return Err(TeError::argument_type(format!(
                "the range of {name} must be integers, found a {}",
                e.dtype()
            )));
        }
    }
    let extent = if lo.is_const_int(0) {
        hi.clone()
    } else {
        Analyzer::new().simplify(&op::sub(hi, lo)?)
    };
    let var = Var::new(name, extent.dtype());
    Ok(IterVar {
        var,
        dom: Range::new(lo.clone(), extent),
        kind,
    })
}

/// `te.reduce_axis((lo, hi), name)`.
pub fn reduce_axis(lo: &Expr, hi: &Expr, name: &str) -> TeResult<IterVar> {
    make_iter_var(lo, hi, name, IterKind::Reduce)
}

/// `te.reduce_axis((0, extent), name)` with constant bounds (convenience).
pub fn reduce_axis_const(lo: i64, hi: i64, name: &str) -> TeResult<IterVar> {
    reduce_axis(&op::py_int(lo), &op::py_int(hi), name)
}

// ---------------------------------------------------------------- reductions

/// A commutative reducer (`tvm.tir.CommReducer`): `result` combines the
/// accumulators `lhs` with the new values `rhs`; `identity` starts them.
#[derive(Clone, Debug)]
pub struct Combiner {
    pub lhs: Vec<Var>,
    pub rhs: Vec<Var>,
    pub result: Vec<Expr>,
    pub identity: Vec<Expr>,
}

impl Combiner {
    /// A general reducer (`te.comm_reducer(fcombine, fidentity)` applied to
    /// concrete dtypes): every list has one entry per reduced value.
    pub fn new(
        lhs: Vec<Var>,
        rhs: Vec<Var>,
        result: Vec<Expr>,
        identity: Vec<Expr>,
    ) -> TeResult<Combiner> {
        let n = lhs.len();
        if n == 0 || rhs.len() != n || result.len() != n || identity.len() != n {
            return Err(TeError::new(
                "a reducer needs as many lhs, rhs, results and identities as values",
            ));
        }
        for i in 0..n {
            let dt = lhs[i].dtype();
            if rhs[i].dtype() != dt || result[i].dtype() != dt || identity[i].dtype() != dt {
                return Err(TeError::new(format!(
                    "reducer value {i}: lhs, rhs, result and identity must share one dtype"
                )));
            }
        }
        Ok(Combiner {
            lhs,
            rhs,
            result,
            identity,
        })
    }

    fn binary(dtype: DataType, f: impl Fn(&Expr, &Expr) -> Expr, identity: Expr) -> Combiner {
        let x = Var::new("x", dtype);
        let y = Var::new("y", dtype);
        let result = f(&x.to_expr(), &y.to_expr());
        Combiner {
            lhs: vec![x],
            rhs: vec![y],
            result: vec![result],
            identity: vec![identity],
        }
    }

    /// `te.sum`'s reducer: `x + y` from `0`.
    pub fn sum(dtype: DataType) -> TeResult<Combiner> {
        let zero = op::const_int(0, dtype)?;
        Ok(Combiner::binary(
            dtype,
            |a, b| Expr::binary(tessel_tir::ir::BinOp::Add, a.clone(), b.clone()),
            zero,
        ))
    }
    /// `te.max`'s reducer: `max(x, y)` from the type's smallest value.
    pub fn max(dtype: DataType) -> TeResult<Combiner> {
        let id = op::min_value(dtype)?;
        Ok(Combiner::binary(
            dtype,
            |a, b| Expr::binary(tessel_tir::ir::BinOp::Max, a.clone(), b.clone()),
            id,
        ))
    }
    /// `te.min`'s reducer: `min(x, y)` from the type's largest value.
    pub fn min(dtype: DataType) -> TeResult<Combiner> {
        let id = op::max_value(dtype)?;
        Ok(Combiner::binary(
            dtype,
            |a, b| Expr::binary(tessel_tir::ir::BinOp::Min, a.clone(), b.clone()),
            id,
        ))
    }

    /// The combined values for accumulators `lhs` and new values `rhs`.
    pub fn apply(&self, lhs: &[Expr], rhs: &[Expr]) -> Vec<Expr> {
        let mut map = HashMap::new();
        for (v, e) in self.lhs.iter().zip(lhs) {
            map.insert(v.id(), e.clone());
        }
        for (v, e) in self.rhs.iter().zip(rhs) {
            map.insert(v.id(), e.clone());
        }
        self.result
            .iter()
            .map(|r| substitute_expr(r, &map))
            .collect()
    }

    fn same_as(&self, other: &Combiner) -> bool {
        self.lhs.len() == other.lhs.len()
            && self.lhs.iter().zip(&other.lhs).all(|(a, b)| a == b)
            && self.rhs.iter().zip(&other.rhs).all(|(a, b)| a == b)
    }
}

/// A reduction (`tvm.tir.Reduce`): one output of a reducer over `axis`.
#[derive(Clone, Debug)]
pub struct Reduce {
    pub combiner: Rc<Combiner>,
    pub source: Vec<Expr>,
    pub axis: Vec<IterVar>,
    /// `where=`; `true` when absent. (TVM 0.27's `create_prim_func` drops it.)
    pub condition: Expr,
    /// `init=`; empty when absent. (TVM 0.27's `create_prim_func` drops it.)
    pub init: Vec<Expr>,
    pub value_index: usize,
}

impl Reduce {
    pub fn dtype(&self) -> DataType {
        self.source[self.value_index].dtype()
    }
}

fn check_reduce_axes(axis: &[IterVar]) -> TeResult<()> {
    if axis.is_empty() {
        return Err(TeError::new("a reduction needs at least one reduce axis"));
    }
    for a in axis {
        if a.kind != IterKind::Reduce {
            return Err(TeError::new(format!(
                "{} is not a reduce axis (make it with te.reduce_axis)",
                a.var.name()
            )));
        }
    }
    Ok(())
}

/// Applies `combiner` as `te.comm_reducer`'s reducer does with an axis:
/// one [`Reduce`] per reduced value.
pub fn comm_reduce(
    combiner: Combiner,
    source: Vec<Expr>,
    axis: &[IterVar],
    condition: Option<&Expr>,
    init: Vec<Expr>,
) -> TeResult<Vec<Reduce>> {
    check_reduce_axes(axis)?;
    if source.len() != combiner.lhs.len() {
        return Err(TeError::new(format!(
            "the reducer combines {} values but {} were given",
            combiner.lhs.len(),
            source.len()
        )));
    }
    for (s, v) in source.iter().zip(&combiner.lhs) {
        if s.dtype() != v.dtype() {
            return Err(TeError::new(format!(
                "reduction source has dtype {} but the reducer expects {}",
                s.dtype(),
                v.dtype()
            )));
        }
    }
    if !init.is_empty() && init.len() != source.len() {
        return Err(TeError::new("init must give one value per reduced value"));
    }
    let condition = match condition {
        Some(c) if c.dtype().is_bool() => c.clone(),
        Some(c) => {
            return Err(TeError::argument_type(format!(
                "where= must be a boolean condition, found {}",
                c.dtype()
            )))
        }
        None => Expr::bool(true),
    };
    let combiner = Rc::new(combiner);
    Ok((0..source.len())
        .map(|i| Reduce {
            combiner: combiner.clone(),
            source: source.clone(),
            axis: axis.to_vec(),
            condition: condition.clone(),
            init: init.clone(),
            value_index: i,
        })
        .collect())
}

fn single(
    combiner: TeResult<Combiner>,
    source: &Expr,
    axis: &[IterVar],
    condition: Option<&Expr>,
    init: Option<&Expr>,
) -> TeResult<Reduce> {
    let mut init_v = Vec::new();
    if let Some(i) = init {
        init_v.push(op::cast(source.dtype(), i)?);
    }
    let mut v = comm_reduce(combiner?, vec![source.clone()], axis, condition, init_v)?;
    Ok(v.remove(0))
}

/// `te.sum(expr, axis=[...], where=..., init=...)`.
pub fn sum(
    source: &Expr,
    axis: &[IterVar],
    condition: Option<&Expr>,
    init: Option<&Expr>,
) -> TeResult<Reduce> {
    single(Combiner::sum(source.dtype()), source, axis, condition, init)
}

/// `te.max(expr, axis=[...], where=..., init=...)`.
pub fn max(
    source: &Expr,
    axis: &[IterVar],
    condition: Option<&Expr>,
    init: Option<&Expr>,
) -> TeResult<Reduce> {
    single(Combiner::max(source.dtype()), source, axis, condition, init)
}

/// `te.min(expr, axis=[...], where=..., init=...)`.
pub fn min(
    source: &Expr,
    axis: &[IterVar],
    condition: Option<&Expr>,
    init: Option<&Expr>,
) -> TeResult<Reduce> {
    single(Combiner::min(source.dtype()), source, axis, condition, init)
}

/// TVM's message when a reduction is used inside a larger expression.
pub const NESTED_REDUCTION_ERROR: &str =
    "Reductions are only allowed at the top level of compute. \
     Please create another tensor for further composition.";

// ------------------------------------------------------------------- compute

/// One output value of a compute body.
#[derive(Clone, Debug)]
pub enum BodyItem {
    Expr(Expr),
    Reduce(Reduce),
}

/// What an `fcompute` returns: one value, or a tuple (several outputs).
#[derive(Clone, Debug)]
pub struct ComputeBody(pub Vec<BodyItem>);

impl From<Expr> for ComputeBody {
    fn from(e: Expr) -> ComputeBody {
        ComputeBody(vec![BodyItem::Expr(e)])
    }
}
impl From<Reduce> for ComputeBody {
    fn from(r: Reduce) -> ComputeBody {
        ComputeBody(vec![BodyItem::Reduce(r)])
    }
}
impl From<Vec<Expr>> for ComputeBody {
    fn from(v: Vec<Expr>) -> ComputeBody {
        ComputeBody(v.into_iter().map(BodyItem::Expr).collect())
    }
}
impl From<Vec<Reduce>> for ComputeBody {
    fn from(v: Vec<Reduce>) -> ComputeBody {
        ComputeBody(v.into_iter().map(BodyItem::Reduce).collect())
    }
}

/// The optional arguments of `te.compute`.
#[derive(Clone, Debug)]
pub struct ComputeOptions {
    /// `name=` (default `"compute"`).
    pub name: String,
    /// `tag=`.
    pub tag: String,
    /// `attrs=`.
    pub attrs: BTreeMap<String, OpAttr>,
    /// The index variables' names, one per output dimension; `None` gives
    /// `i0, i1, …`. See [`compute_arg_names`] for Python's rules.
    pub arg_names: Option<Vec<String>>,
}

impl Default for ComputeOptions {
    fn default() -> Self {
        ComputeOptions {
            name: "compute".to_string(),
            tag: String::new(),
            attrs: BTreeMap::new(),
            arg_names: None,
        }
    }
}

impl ComputeOptions {
    pub fn named(name: &str) -> ComputeOptions {
        ComputeOptions {
            name: name.to_string(),
            ..ComputeOptions::default()
        }
    }
    pub fn with_names<S: AsRef<str>>(mut self, names: &[S]) -> ComputeOptions {
        self.arg_names = Some(names.iter().map(|s| s.as_ref().to_string()).collect());
        self
    }
    pub fn with_tag(mut self, tag: &str) -> ComputeOptions {
        self.tag = tag.to_string();
        self
    }
    pub fn with_attr(mut self, key: &str, value: impl Into<OpAttr>) -> ComputeOptions {
        self.attrs.insert(key.to_string(), value.into());
        self
    }
}

/// The index-variable names `te.compute` gives an `fcompute` lambda, and the
/// number of output dimensions, following Python's rules:
/// - no parameters and no `*args`: `i0, i1, …` for every dimension;
/// - `*args` (after `params`): the remaining dimensions are `i0, i1, …` (or
///   `varargs_names`), so `lambda *i` gives `i0, i1` and `lambda n, *r` gives
///   `n, i0, i1`;
/// - only named parameters: their names, and the output has as many
///   dimensions as there are parameters (extra shape entries are dropped,
///   as TVM does).
pub fn compute_arg_names(
    ndim: usize,
    params: &[String],
    has_varargs: bool,
    varargs_names: Option<&[String]>,
) -> TeResult<(Vec<String>, usize)> {
    if params.is_empty() && !has_varargs {
        return Ok(((0..ndim).map(|i| format!("i{i}")).collect(), ndim));
    }
    if has_varargs {
        let remaining = ndim.checked_sub(params.len()).ok_or_else(|| {
            TeError::invalid_value(format!(
                "Number of args to fcompute does not match dimension, args={}, dimension={ndim}",
                params.len()
            ))
        })?;
        let mut names = params.to_vec();
        match varargs_names {
            Some(v) => {
                if v.len() != remaining {
                    return Err(TeError::invalid_value(format!(
                        "Number of varargs ({remaining}) does not matchnumber of varargs_names ({})",
                        v.len()
                    )));
                }
                names.extend(v.iter().cloned());
            }
            None => names.extend((0..remaining).map(|i| format!("i{i}"))),
        }
        return Ok((names, ndim));
    }
    if params.len() > ndim {
        return Err(TeError::invalid_value(format!(
            "Number of args to fcompute does not match dimension, args={}, dimension={}",
            params.len(),
            params.len()
        )));
    }
    Ok((params.to_vec(), params.len()))
}

/// `te.compute(shape, fcompute, name)` with one output.
pub fn compute(
    shape: &[Expr],
    name: &str,
    fcompute: impl FnOnce(&[Expr]) -> TeResult<ComputeBody>,
) -> TeResult<Tensor> {
    let mut outs = compute_with(shape, ComputeOptions::named(name), fcompute)?;
    if outs.len() != 1 {
        return Err(TeError::new(format!(
            "compute {name} has {} outputs; use compute_with",
            outs.len()
        )));
    }
    Ok(outs.remove(0))
}

/// `te.compute(shape, fcompute, name, tag, attrs)` with index names given:
/// every output tensor (one unless `fcompute` returns a tuple).
///
/// The index variables are `int32`-or-shape-dtype variables named from
/// `opts.arg_names` (default `i0, i1, …`), ranging over `[0, shape[d])` with a
/// Python `0` (an `int32`) as the minimum, as Python's `te.compute` builds
/// them.
pub fn compute_with(
    shape: &[Expr],
    opts: ComputeOptions,
    fcompute: impl FnOnce(&[Expr]) -> TeResult<ComputeBody>,
) -> TeResult<Vec<Tensor>> {
    let names = match &opts.arg_names {
        Some(n) => {
            if n.len() > shape.len() {
                return Err(TeError::invalid_value(format!(
                    "Number of args to fcompute does not match dimension, args={}, dimension={}",
                    n.len(),
                    shape.len()
                )));
            }
            n.clone()
        }
        None => (0..shape.len()).map(|i| format!("i{i}")).collect(),
    };
    let shape = &shape[..names.len()];
    check_shape(shape, &opts.name)?;
    let axis = shape
        .iter()
        .zip(&names)
        .map(|(s, n)| make_iter_var(&Expr::i32(0), s, n, IterKind::Spatial))
        .collect::<TeResult<Vec<_>>>()?;
    build_compute(axis, opts, fcompute)
}

/// `te.compute(shape, lambda <names>: ..., name=name)`: one output, index
/// variables named `names` (see [`compute_arg_names`] for Python's rules).
pub fn compute_with_names<S: AsRef<str>>(
    shape: &[Expr],
    names: &[S],
    name: &str,
    fcompute: impl FnOnce(&[Expr]) -> TeResult<ComputeBody>,
) -> TeResult<Tensor> {
    let mut outs = compute_with(
        shape,
        ComputeOptions::named(name).with_names(names),
        fcompute,
    )?;
    if outs.len() != 1 {
        return Err(TeError::new(format!(
            "compute {name} has {} outputs; use compute_with",
            outs.len()
        )));
    }
    Ok(outs.remove(0))
}

/// TVM's C++ `te::compute` (what topi's C++ operators use): index variables
/// `ax0, ax1, …` whose range minimum has the shape entry's dtype.
pub fn compute_cpp(
    shape: &[Expr],
    name: &str,
    tag: &str,
    fcompute: impl FnOnce(&[Expr]) -> TeResult<ComputeBody>,
) -> TeResult<Tensor> {
    let mut outs = compute_cpp_multi(shape, name, tag, fcompute)?;
    if outs.len() != 1 {
        return Err(TeError::new("a C++-style compute has one output"));
    }
    Ok(outs.remove(0))
}

/// [`compute_cpp`] with one output per value of the body (a tuple
/// reduction's).
pub fn compute_cpp_multi(
    shape: &[Expr],
    name: &str,
    tag: &str,
    fcompute: impl FnOnce(&[Expr]) -> TeResult<ComputeBody>,
) -> TeResult<Vec<Tensor>> {
    check_shape(shape, name)?;
    let axis: Vec<IterVar> = shape
        .iter()
        .enumerate()
        .map(|(i, s)| IterVar {
            var: Var::new(format!("ax{i}"), s.dtype()),
            dom: Range::new(Expr::int(0, s.dtype()), s.clone()),
            kind: IterKind::Spatial,
        })
        .collect();
    let opts = ComputeOptions::named(name).with_tag(tag);
    build_compute(axis, opts, fcompute)
}

fn build_compute(
    axis: Vec<IterVar>,
    opts: ComputeOptions,
    fcompute: impl FnOnce(&[Expr]) -> TeResult<ComputeBody>,
) -> TeResult<Vec<Tensor>> {
    let vars: Vec<Expr> = axis.iter().map(|a| a.var.to_expr()).collect();
    let ComputeBody(body) = fcompute(&vars)?;
    if body.is_empty() {
        return Err(TeError::new(format!(
            "compute {}: fcompute returned no value",
            opts.name
        )));
    }
    // TVM's ComputeVerifier: reductions only at the top level, and the
    // outputs of one reduction together.
    let reduces = body
        .iter()
        .filter(|b| matches!(b, BodyItem::Reduce(_)))
        .count();
    if reduces != 0 && reduces != body.len() {
        return Err(TeError::new(NESTED_REDUCTION_ERROR));
    }
    let reduce_axis = match &body[0] {
        BodyItem::Reduce(r0) => {
            for (i, item) in body.iter().enumerate() {
                match item {
                    BodyItem::Reduce(r)
                        if r.combiner.same_as(&r0.combiner)
                            && r.value_index == i
                            && r.source.len() == body.len()
                            && r.axis.len() == r0.axis.len()
                            && r.axis.iter().zip(&r0.axis).all(|(a, b)| a.var == b.var) => {}
                    BodyItem::Reduce(_) => {
                        return Err(TeError::new(
                            "The Reduce inputs of ComputeOp should have the same attribute \
                             except value_index",
                        ))
                    }
                    BodyItem::Expr(_) => return Err(TeError::new(NESTED_REDUCTION_ERROR)),
                }
            }
            r0.axis.clone()
        }
        BodyItem::Expr(_) => {
            if body.iter().any(|b| matches!(b, BodyItem::Reduce(_))) {
                return Err(TeError::new(NESTED_REDUCTION_ERROR));
            }
            Vec::new()
        }
    };
    let shape: Vec<Expr> = axis.iter().map(|a| a.dom.extent.clone()).collect();
    let n = body.len();
    let outputs: Vec<Buffer> = body
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let dtype = match item {
                BodyItem::Expr(e) => e.dtype(),
                BodyItem::Reduce(r) => r.dtype(),
            };
            let name = if n == 1 {
                opts.name.clone()
            } else {
                format!("{}.v{i}", opts.name)
            };
            Buffer::new(name, dtype, shape.clone())
        })
        .collect();
    for b in &outputs {
        if b.dtype.lanes != 1 || b.dtype.is_handle() {
            return Err(TeError::argument_type(format!(
                "compute {}: the body must be a scalar value, found {}",
                opts.name, b.dtype
            )));
        }
    }
    let inputs = input_tensors(&body)?;
    let node = OpNode {
        name: opts.name,
        tag: opts.tag,
        attrs: opts.attrs,
        kind: OpKind::Compute(ComputeOp {
            axis,
            reduce_axis,
            body,
            inputs,
        }),
        outputs,
    };
    let op = Operation(Rc::new(node));
    register(&op);
    Ok((0..n)
        .map(|i| Tensor {
            op: op.clone(),
            value_index: i,
        })
        .collect())
}

/// Every expression of a body, in TVM's visiting order for `Reduce` nodes
/// (axis ranges, sources, condition, init).
pub(crate) fn body_exprs(body: &[BodyItem]) -> Vec<Expr> {
    let mut out = Vec::new();
    for item in body {
        match item {
            BodyItem::Expr(e) => out.push(e.clone()),
            BodyItem::Reduce(r) => {
                for a in &r.axis {
                    out.push(a.dom.min.clone());
                    out.push(a.dom.extent.clone());
                }
                out.extend(r.source.iter().cloned());
                out.push(r.condition.clone());
                out.extend(r.init.iter().cloned());
            }
        }
    }
    out
}

/// The tensors a body loads, in order of first load in post-order (a load's
/// indices before the load itself).
fn input_tensors(body: &[BodyItem]) -> TeResult<Vec<Tensor>> {
    let mut out: Vec<Tensor> = Vec::new();
    let mut error = None;
    for e in body_exprs(body) {
        post_order(&e, &mut |x| {
            if let ExprKind::Load { buffer, .. } = x.kind() {
                match tensor_of_buffer(buffer) {
                    Some(t) => {
                        if !out.contains(&t) {
                            out.push(t);
                        }
                    }
                    None => {
                        error.get_or_insert_with(|| {
                            TeError::new(format!(
                                "the compute body loads from {}, which is not a tensor",
                                buffer.name
                            ))
                        });
                    }
                }
            }
        });
    }
    match error {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

fn post_order(e: &Expr, f: &mut impl FnMut(&Expr)) {
    e.for_each_child(|c| post_order(c, f));
    f(e);
}

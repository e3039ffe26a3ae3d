//! Expressions: immutable trees shared through `Rc`.
//!
//! Every node knows its [`DataType`] and the source [`Span`] it came from
//! (`Span::default()` for nodes a transformation made). Variables and buffers
//! have identity: two `Var`s with the same name are different variables unless
//! they share an id. Names only matter to the printer.

use std::fmt;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::buffer::Buffer;
use super::dtype::{DataType, ScalarKind};
use tessel_syntax::diag::Span;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A fresh identity for a variable or buffer. Ids are unique within a process.
pub(crate) fn fresh_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u64);

/// A variable: loop variable, block iterator, let binding, function parameter,
/// or symbolic size (`n = T.int64()`). Compared and hashed by identity.
#[derive(Clone)]
pub struct Var(Rc<VarNode>);

#[derive(Debug)]
pub struct VarNode {
    pub id: VarId,
    pub name: String,
    pub dtype: DataType,
}

impl Var {
    pub fn new(name: impl Into<String>, dtype: DataType) -> Var {
        Var(Rc::new(VarNode {
            id: VarId(fresh_id()),
            name: name.into(),
            dtype,
        }))
    }
    /// A new variable with the same name and type but a fresh identity.
    pub fn fresh_copy(&self) -> Var {
        Var::new(self.name.clone(), self.dtype)
    }
    /// A new variable of the same type under another name.
    pub fn renamed(&self, name: impl Into<String>) -> Var {
        Var::new(name, self.dtype)
    }
    pub fn id(&self) -> VarId {
        self.0.id
    }
    pub fn name(&self) -> &str {
        &self.0.name
    }
    pub fn dtype(&self) -> DataType {
        self.0.dtype
    }
    /// This variable used as an expression.
    pub fn to_expr(&self) -> Expr {
        Expr::new(ExprKind::Var(self.clone()), self.dtype(), Span::default())
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
impl std::ops::Deref for Var {
    type Target = VarNode;
    fn deref(&self) -> &VarNode {
        &self.0
    }
}
impl fmt::Debug for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}: {}", self.0.name, self.0.id.0, self.0.dtype)
    }
}

/// Binary arithmetic. `Div`/`Mod` truncate towards zero on integers (TVM's
/// `truncdiv`/`truncmod`); `FloorDiv`/`FloorMod` are Python's `//` and `%`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    FloorDiv,
    FloorMod,
    Min,
    Max,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

/// Intrinsic (built-in) functions callable from TensorIR.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Intrinsic {
    Exp,
    Exp2,
    Exp10,
    Log,
    Log2,
    Log10,
    Log1p,
    Sqrt,
    Rsqrt,
    Tanh,
    Sigmoid,
    Erf,
    Fabs,
    Pow,
    Floor,
    Ceil,
    Round,
    Trunc,
    Sin,
    Cos,
    Tan,
    Atan,
    /// `T.if_then_else(cond, a, b)`: unlike `Select`, only the chosen branch is evaluated.
    IfThenElse,
    /// Any other call, kept by name (e.g. `T.call_extern` targets).
    Other(String),
}

impl Intrinsic {
    /// The TVMScript name after `T.`.
    pub fn name(&self) -> &str {
        match self {
            Intrinsic::Exp => "exp",
            Intrinsic::Exp2 => "exp2",
            Intrinsic::Exp10 => "exp10",
            Intrinsic::Log => "log",
            Intrinsic::Log2 => "log2",
            Intrinsic::Log10 => "log10",
            Intrinsic::Log1p => "log1p",
            Intrinsic::Sqrt => "sqrt",
            Intrinsic::Rsqrt => "rsqrt",
            Intrinsic::Tanh => "tanh",
            Intrinsic::Sigmoid => "sigmoid",
            Intrinsic::Erf => "erf",
            Intrinsic::Fabs => "fabs",
            Intrinsic::Pow => "pow",
            Intrinsic::Floor => "floor",
            Intrinsic::Ceil => "ceil",
            Intrinsic::Round => "round",
            Intrinsic::Trunc => "trunc",
            Intrinsic::Sin => "sin",
            Intrinsic::Cos => "cos",
            Intrinsic::Tan => "tan",
            Intrinsic::Atan => "atan",
            Intrinsic::IfThenElse => "if_then_else",
            Intrinsic::Other(name) => name,
        }
    }

    /// A known math intrinsic by its TVMScript name (`None` for unknown names).
    pub fn from_name(name: &str) -> Option<Intrinsic> {
        Some(match name {
            "exp" => Intrinsic::Exp,
            "exp2" => Intrinsic::Exp2,
            "exp10" => Intrinsic::Exp10,
            "log" => Intrinsic::Log,
            "log2" => Intrinsic::Log2,
            "log10" => Intrinsic::Log10,
            "log1p" => Intrinsic::Log1p,
            "sqrt" => Intrinsic::Sqrt,
            "rsqrt" => Intrinsic::Rsqrt,
            "tanh" => Intrinsic::Tanh,
            "sigmoid" => Intrinsic::Sigmoid,
            "erf" => Intrinsic::Erf,
            "fabs" => Intrinsic::Fabs,
            "pow" => Intrinsic::Pow,
            "floor" => Intrinsic::Floor,
            "ceil" => Intrinsic::Ceil,
            "round" => Intrinsic::Round,
            "trunc" => Intrinsic::Trunc,
            "sin" => Intrinsic::Sin,
            "cos" => Intrinsic::Cos,
            "tan" => Intrinsic::Tan,
            "atan" => Intrinsic::Atan,
            "if_then_else" => Intrinsic::IfThenElse,
            _ => return None,
        })
    }

    /// Number of arguments, for the known intrinsics.
    pub fn arity(&self) -> Option<usize> {
        match self {
            Intrinsic::Pow => Some(2),
            Intrinsic::IfThenElse => Some(3),
            Intrinsic::Other(_) => None,
            _ => Some(1),
        }
    }
}

/// An expression node.
#[derive(Clone)]
pub struct Expr(Rc<ExprNode>);

#[derive(Debug)]
pub struct ExprNode {
    pub kind: ExprKind,
    pub dtype: DataType,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum ExprKind {
    Var(Var),
    /// Integer or bool constant; the node's dtype gives its width.
    Int(i64),
    Float(f64),
    Str(String),
    Binary(BinOp, Expr, Expr),
    Cmp(CmpOp, Expr, Expr),
    And(Expr, Expr),
    Or(Expr, Expr),
    Not(Expr),
    /// `T.Select(cond, a, b)`: both sides evaluated.
    Select {
        cond: Expr,
        then: Expr,
        otherwise: Expr,
    },
    /// Conversion to the node's dtype.
    Cast(Expr),
    Call {
        op: Intrinsic,
        args: Vec<Expr>,
    },
    Load {
        buffer: Buffer,
        indices: Vec<Expr>,
    },
    Let {
        var: Var,
        value: Expr,
        body: Expr,
    },
    /// `base, base+stride, …` over the node's lanes (vectorized lowering).
    Ramp {
        base: Expr,
        stride: Expr,
    },
    /// One scalar repeated over the node's lanes.
    Broadcast(Expr),
}

impl Expr {
    pub fn new(kind: ExprKind, dtype: DataType, span: Span) -> Expr {
        Expr(Rc::new(ExprNode { kind, dtype, span }))
    }
    pub fn kind(&self) -> &ExprKind {
        &self.0.kind
    }
    pub fn dtype(&self) -> DataType {
        self.0.dtype
    }
    pub fn span(&self) -> Span {
        self.0.span
    }
    /// The same node with another span.
    pub fn with_span(&self, span: Span) -> Expr {
        Expr::new(self.0.kind.clone(), self.0.dtype, span)
    }
    /// Whether both handles point at the very same node (cheap change detection).
    pub fn same_node(&self, other: &Expr) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }

    pub fn int(value: i64, dtype: DataType) -> Expr {
        Expr::new(ExprKind::Int(value), dtype, Span::default())
    }
    pub fn i32(value: i64) -> Expr {
        Expr::int(value, DataType::i32())
    }
    pub fn i64(value: i64) -> Expr {
        Expr::int(value, DataType::i64())
    }
    pub fn bool(value: bool) -> Expr {
        Expr::int(value as i64, DataType::bool())
    }
    pub fn float(value: f64, dtype: DataType) -> Expr {
        Expr::new(ExprKind::Float(value), dtype, Span::default())
    }
    pub fn f32(value: f64) -> Expr {
        Expr::float(value, DataType::f32())
    }

    /// The constant integer value, if this is an integer or bool literal.
    pub fn as_int(&self) -> Option<i64> {
        match self.kind() {
            ExprKind::Int(v) => Some(*v),
            _ => None,
        }
    }
    pub fn as_var(&self) -> Option<&Var> {
        match self.kind() {
            ExprKind::Var(v) => Some(v),
            _ => None,
        }
    }
    pub fn is_const_int(&self, value: i64) -> bool {
        self.as_int() == Some(value)
    }

    /// `a op b`. Operands must already agree on dtype; the result has it.
    pub fn binary(op: BinOp, a: Expr, b: Expr) -> Expr {
        let dtype = a.dtype();
        Expr::new(ExprKind::Binary(op, a, b), dtype, Span::default())
    }
    pub fn cmp(op: CmpOp, a: Expr, b: Expr) -> Expr {
        let lanes = a.dtype().lanes;
        Expr::new(
            ExprKind::Cmp(op, a, b),
            DataType::bool().with_lanes(lanes),
            Span::default(),
        )
    }
    pub fn and(a: Expr, b: Expr) -> Expr {
        let dtype = a.dtype();
        Expr::new(ExprKind::And(a, b), dtype, Span::default())
    }
    pub fn or(a: Expr, b: Expr) -> Expr {
        let dtype = a.dtype();
        Expr::new(ExprKind::Or(a, b), dtype, Span::default())
    }
    pub fn logical_not(a: Expr) -> Expr {
        let dtype = a.dtype();
        Expr::new(ExprKind::Not(a), dtype, Span::default())
    }
    pub fn cast(dtype: DataType, value: Expr) -> Expr {
        if value.dtype() == dtype {
            return value;
        }
        Expr::new(ExprKind::Cast(value), dtype, Span::default())
    }
    pub fn select(cond: Expr, then: Expr, otherwise: Expr) -> Expr {
        let dtype = then.dtype();
        Expr::new(
            ExprKind::Select {
                cond,
                then,
                otherwise,
            },
            dtype,
            Span::default(),
        )
    }
    pub fn load(buffer: &Buffer, indices: Vec<Expr>) -> Expr {
        let dtype = buffer.dtype;
        Expr::new(
            ExprKind::Load {
                buffer: buffer.clone(),
                indices,
            },
            dtype,
            Span::default(),
        )
    }
    pub fn call(op: Intrinsic, args: Vec<Expr>, dtype: DataType) -> Expr {
        Expr::new(ExprKind::Call { op, args }, dtype, Span::default())
    }

    /// Visits the direct children of this expression.
    pub fn for_each_child(&self, mut f: impl FnMut(&Expr)) {
        match self.kind() {
            ExprKind::Var(_) | ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_) => {}
            ExprKind::Binary(_, a, b)
            | ExprKind::Cmp(_, a, b)
            | ExprKind::And(a, b)
            | ExprKind::Or(a, b) => {
                f(a);
                f(b);
            }
            ExprKind::Not(a) | ExprKind::Cast(a) | ExprKind::Broadcast(a) => f(a),
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                f(cond);
                f(then);
                f(otherwise);
            }
            ExprKind::Call { args, .. } => args.iter().for_each(f),
            ExprKind::Load { indices, .. } => indices.iter().for_each(f),
            ExprKind::Let { value, body, .. } => {
                f(value);
                f(body);
            }
            ExprKind::Ramp { base, stride } => {
                f(base);
                f(stride);
            }
        }
    }

    /// Calls `f` on this expression and every sub-expression, parents first.
    pub fn walk(&self, f: &mut impl FnMut(&Expr)) {
        f(self);
        self.for_each_child(|c| c.walk(f));
    }

    /// Whether `var` occurs free in this expression.
    pub fn uses_var(&self, var: &Var) -> bool {
        let mut found = false;
        self.walk(&mut |e| {
            if let ExprKind::Var(v) = e.kind() {
                found |= v == var;
            }
        });
        found
    }
}

impl std::ops::Deref for Expr {
    type Target = ExprNode;
    fn deref(&self) -> &ExprNode {
        &self.0
    }
}

impl fmt::Debug for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0.kind)
    }
}

impl From<&Var> for Expr {
    fn from(v: &Var) -> Expr {
        v.to_expr()
    }
}

/// A half-open integer interval `[min, min + extent)`.
#[derive(Clone, Debug)]
pub struct Range {
    pub min: Expr,
    pub extent: Expr,
}

impl Range {
    pub fn new(min: Expr, extent: Expr) -> Range {
        Range { min, extent }
    }
    /// `[0, extent)` in the extent's dtype.
    pub fn from_extent(extent: Expr) -> Range {
        Range {
            min: Expr::int(0, extent.dtype()),
            extent,
        }
    }
    /// The single point `[index, index + 1)`.
    pub fn point(index: Expr) -> Range {
        let one = Expr::int(1, index.dtype());
        Range {
            min: index,
            extent: one,
        }
    }
}

/// The largest (`max`) or smallest finite value of `dt` as a constant: the
/// identity of min/max reductions. `None` for types without one.
pub fn extreme_value(dt: DataType, max: bool) -> Option<Expr> {
    Some(match (dt.kind, dt.bits, max) {
        (ScalarKind::Float, 16, true) => Expr::float(65504.0, dt),
        (ScalarKind::Float, 16, false) => Expr::float(-65504.0, dt),
        (ScalarKind::Float, 32, true) => Expr::float(f32::MAX as f64, dt),
        (ScalarKind::Float, 32, false) => Expr::float(f32::MIN as f64, dt),
        (ScalarKind::Float, 64, true) => Expr::float(f64::MAX, dt),
        (ScalarKind::Float, 64, false) => Expr::float(f64::MIN, dt),
        (ScalarKind::Int, bits, true) if bits <= 64 => {
            Expr::int(((1u128 << (bits - 1)) - 1) as i64, dt)
        }
        (ScalarKind::Int, bits, false) if bits <= 64 => {
            Expr::int((-(1i128 << (bits - 1))) as i64, dt)
        }
        (ScalarKind::UInt, bits, true) if bits < 64 => Expr::int(((1u128 << bits) - 1) as i64, dt),
        (ScalarKind::UInt, _, false) => Expr::int(0, dt),
        _ => return None,
    })
}

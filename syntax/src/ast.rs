//! The Python-subset abstract syntax tree.
//!
//! The shapes follow CPython's `ast` module closely (so that TVM's parser and
//! the MLC course material translate directly), with a few simplifications:
//!
//! * every node carries a [`Span`] (byte offsets into the source) instead of
//!   line/column pairs; identifiers that callers point at in diagnostics
//!   (function and class names, attribute names, keyword-argument names,
//!   parameters) carry their own span as well;
//! * parameter defaults are stored on each [`Param`] rather than in parallel
//!   lists;
//! * adjacent string literals are already concatenated, and f-strings are
//!   parsed into [`FStringPart`]s (including their format specs);
//! * integer literals are `i64` (the parser reports an error for literals that
//!   do not fit);
//! * IPython magics (`%pip install x`, `!ls`) found in notebook cells become
//!   [`StmtKind::Magic`].
//!
//! Boxes are used only where recursion requires them. All types are plain
//! data: `Clone + Debug + PartialEq`.

pub use crate::diag::Span;

/// A whole source file or notebook cell.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Module {
    pub body: Vec<Stmt>,
}

/// An identifier together with where it was written.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

// ---------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------

/// A statement with its span (from its first token, including decorators, to
/// the end of its last token; trailing newlines are not included).
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// An expression evaluated for its effect (or a docstring).
    Expr(Expr),
    /// `a = b = value`: `targets` are in source order (`[a, b]`).
    Assign {
        targets: Vec<Expr>,
        value: Expr,
    },
    /// `target op= value`.
    AugAssign {
        target: Expr,
        op: BinOp,
        value: Expr,
    },
    /// `target: annotation [= value]`.
    AnnAssign {
        target: Expr,
        annotation: Expr,
        value: Option<Expr>,
    },
    FunctionDef(Box<FunctionDef>),
    ClassDef(Box<ClassDef>),
    Return(Option<Expr>),
    If {
        test: Expr,
        body: Vec<Stmt>,
        /// The `else` block; an `elif` is a single nested [`StmtKind::If`].
        orelse: Vec<Stmt>,
    },
    For {
        target: Expr,
        iter: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    While {
        test: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    Break,
    Continue,
    Pass,
    With {
        items: Vec<WithItem>,
        body: Vec<Stmt>,
    },
    /// `import a.b as c, d`.
    Import(Vec<Alias>),
    /// `from ..module import a as b, c` / `from x import *` (a single alias
    /// named `*`).
    ImportFrom {
        module: Option<Ident>,
        names: Vec<Alias>,
        /// Number of leading dots.
        level: u32,
    },
    Assert {
        test: Expr,
        msg: Option<Expr>,
    },
    Try {
        body: Vec<Stmt>,
        handlers: Vec<ExceptHandler>,
        orelse: Vec<Stmt>,
        finalbody: Vec<Stmt>,
    },
    Raise {
        exc: Option<Expr>,
        cause: Option<Expr>,
    },
    Delete(Vec<Expr>),
    Global(Vec<Ident>),
    Nonlocal(Vec<Ident>),
    /// An IPython line magic or shell escape, e.g. `%pip install mlc-ai` or
    /// `!nvidia-smi`; the text is the whole line including the `%`/`!`.
    Magic(String),
}

/// `def name(params) -> returns: body`, with its decorators.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDef {
    pub name: String,
    pub name_span: Span,
    /// Decorator expressions in source order (outermost first).
    pub decorators: Vec<Expr>,
    pub params: Params,
    pub returns: Option<Expr>,
    pub body: Vec<Stmt>,
}

/// `class name(bases, keywords): body`, with its decorators.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassDef {
    pub name: String,
    pub name_span: Span,
    pub decorators: Vec<Expr>,
    pub bases: Vec<Expr>,
    /// `metaclass=...` and other keyword arguments in the class header.
    pub keywords: Vec<Keyword>,
    pub body: Vec<Stmt>,
}

/// One `context as vars` item of a `with` statement.
#[derive(Clone, Debug, PartialEq)]
pub struct WithItem {
    pub context: Expr,
    pub vars: Option<Expr>,
    pub span: Span,
}

/// `name as asname` in an import; `name` may be dotted (`a.b.c`).
#[derive(Clone, Debug, PartialEq)]
pub struct Alias {
    pub name: Ident,
    pub asname: Option<Ident>,
    pub span: Span,
}

/// `except type_ as name: body`.
#[derive(Clone, Debug, PartialEq)]
pub struct ExceptHandler {
    pub type_: Option<Expr>,
    pub name: Option<Ident>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

/// A function's or lambda's parameter list.
///
/// `def f(a, /, b=1, *args, c, d=2, **kw)` has `posonly = [a]`,
/// `args = [b]`, `vararg = Some(args)`, `kwonly = [c, d]`, `kwarg = Some(kw)`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Params {
    /// Positional-only parameters (before a `/`).
    pub posonly: Vec<Param>,
    /// Ordinary positional-or-keyword parameters.
    pub args: Vec<Param>,
    /// `*args`.
    pub vararg: Option<Param>,
    /// Keyword-only parameters (after `*` or `*args`).
    pub kwonly: Vec<Param>,
    /// `**kwargs`.
    pub kwarg: Option<Param>,
}

impl Params {
    /// True when there are no parameters at all.
    pub fn is_empty(&self) -> bool {
        self.posonly.is_empty()
            && self.args.is_empty()
            && self.vararg.is_none()
            && self.kwonly.is_empty()
            && self.kwarg.is_none()
    }

    /// All parameters in source order.
    pub fn iter(&self) -> impl Iterator<Item = &Param> {
        self.posonly
            .iter()
            .chain(&self.args)
            .chain(&self.vararg)
            .chain(&self.kwonly)
            .chain(&self.kwarg)
    }
}

/// A single parameter: `name: annotation = default`.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub name_span: Span,
    /// Lambdas never have annotations.
    pub annotation: Option<Expr>,
    /// `*args` and `**kwargs` never have defaults.
    pub default: Option<Expr>,
    /// The whole parameter, including `*`/`**`, annotation and default.
    pub span: Span,
}

// ---------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------

/// An expression with its span. For a parenthesized expression the span is
/// that of the inner expression (parentheses are not included), except for
/// tuples written with parentheses, whose span covers them.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }

    /// The identifier if this is a plain name.
    pub fn as_name(&self) -> Option<&str> {
        match &self.kind {
            ExprKind::Name(n) => Some(n),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Name(String),
    Int(i64),
    Float(f64),
    /// Imaginary literal such as `2j` (the value is the imaginary part).
    Imag(f64),
    /// A string literal (adjacent non-f literals already concatenated).
    Str(String),
    Bytes(Vec<u8>),
    /// An f-string (adjacent literals, f or not, concatenated into one).
    FString(Vec<FStringPart>),
    Bool(bool),
    NoneLit,
    Ellipsis,
    /// `a and b and c` (flattened).
    BoolOp {
        op: BoolOp,
        values: Vec<Expr>,
    },
    BinOp {
        left: Box<Expr>,
        op: BinOp,
        right: Box<Expr>,
    },
    UnaryOp {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    /// `left op0 c0 op1 c1 ...` (chained comparison).
    Compare {
        left: Box<Expr>,
        ops: Vec<CmpOp>,
        comparators: Vec<Expr>,
    },
    Call {
        func: Box<Expr>,
        args: Vec<Arg>,
    },
    /// `value.attr`.
    Attribute {
        value: Box<Expr>,
        attr: String,
        attr_span: Span,
    },
    /// `value[index]`; `a[i, j]` has a [`ExprKind::Tuple`] index, `a[1:2]` a
    /// [`ExprKind::Slice`] index, `a[1:, ::2]` a tuple of slices.
    Subscript {
        value: Box<Expr>,
        index: Box<Expr>,
    },
    /// `lower:upper:step`; only valid as (part of) a subscript index.
    Slice {
        lower: Option<Box<Expr>>,
        upper: Option<Box<Expr>>,
        step: Option<Box<Expr>>,
    },
    /// `*value` in a call, display, assignment target or subscript.
    Starred(Box<Expr>),
    Tuple(Vec<Expr>),
    List(Vec<Expr>),
    /// `{k: v, **rest}`: a `None` key means `**value`.
    Dict(Vec<(Option<Expr>, Expr)>),
    Set(Vec<Expr>),
    ListComp {
        elt: Box<Expr>,
        generators: Vec<Comprehension>,
    },
    SetComp {
        elt: Box<Expr>,
        generators: Vec<Comprehension>,
    },
    GeneratorExp {
        elt: Box<Expr>,
        generators: Vec<Comprehension>,
    },
    DictComp {
        key: Box<Expr>,
        value: Box<Expr>,
        generators: Vec<Comprehension>,
    },
    /// `body if test else orelse`.
    IfExp {
        test: Box<Expr>,
        body: Box<Expr>,
        orelse: Box<Expr>,
    },
    Lambda {
        params: Box<Params>,
        body: Box<Expr>,
    },
    /// `target := value`.
    NamedExpr {
        target: Box<Expr>,
        value: Box<Expr>,
    },
    /// `yield value` (only inside functions; the parser does not check).
    Yield(Option<Box<Expr>>),
    /// `yield from value`.
    YieldFrom(Box<Expr>),
}

/// A piece of an f-string.
#[derive(Clone, Debug, PartialEq)]
pub enum FStringPart {
    /// Literal text (escapes and `{{`/`}}` already processed).
    Literal(String),
    /// A `{expr!conv:spec}` replacement field.
    Field(FStringField),
}

/// `{expr=!conv:spec}` inside an f-string.
#[derive(Clone, Debug, PartialEq)]
pub struct FStringField {
    pub expr: Box<Expr>,
    /// For the self-documenting form `{x + 1 = }` this is the text `x + 1 = `
    /// (printed before the value).
    pub debug_text: Option<String>,
    /// `!r`, `!s` or `!a`.
    pub conversion: Option<char>,
    /// The format spec after `:`, which may itself contain fields
    /// (`{x:{width}.{prec}}`). `None` when there is no `:`.
    pub format_spec: Option<Vec<FStringPart>>,
    /// From `{` to `}` inclusive.
    pub span: Span,
}

/// `for target in iter if cond1 if cond2` inside a comprehension.
#[derive(Clone, Debug, PartialEq)]
pub struct Comprehension {
    pub target: Expr,
    pub iter: Expr,
    pub ifs: Vec<Expr>,
    pub span: Span,
}

/// An argument in a call (or a class header).
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    Positional(Expr),
    /// `*value`.
    Starred(Expr),
    Keyword(Keyword),
    /// `**value`.
    DoubleStarred(Expr),
}

impl Arg {
    /// The span of the whole argument (including `*`, `**` or `name=`).
    pub fn span(&self) -> Span {
        match self {
            Arg::Positional(e) | Arg::Starred(e) | Arg::DoubleStarred(e) => e.span,
            Arg::Keyword(k) => k.span,
        }
    }
}

/// `name=value` in a call or class header.
#[derive(Clone, Debug, PartialEq)]
pub struct Keyword {
    pub name: String,
    pub name_span: Span,
    pub value: Expr,
    /// From the name to the end of the value.
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoolOp {
    And,
    Or,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    MatMul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    LShift,
    RShift,
    BitOr,
    BitXor,
    BitAnd,
}

impl BinOp {
    /// The operator as written in Python (`+`, `//`, `**`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::MatMul => "@",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "**",
            BinOp::LShift => "<<",
            BinOp::RShift => ">>",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::BitAnd => "&",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Not,
    Neg,
    Pos,
    Invert,
}

impl UnaryOp {
    pub fn as_str(self) -> &'static str {
        match self {
            UnaryOp::Not => "not",
            UnaryOp::Neg => "-",
            UnaryOp::Pos => "+",
            UnaryOp::Invert => "~",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    NotEq,
    Lt,
    LtE,
    Gt,
    GtE,
    In,
    NotIn,
    Is,
    IsNot,
}

impl CmpOp {
    pub fn as_str(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::NotEq => "!=",
            CmpOp::Lt => "<",
            CmpOp::LtE => "<=",
            CmpOp::Gt => ">",
            CmpOp::GtE => ">=",
            CmpOp::In => "in",
            CmpOp::NotIn => "not in",
            CmpOp::Is => "is",
            CmpOp::IsNot => "is not",
        }
    }
}

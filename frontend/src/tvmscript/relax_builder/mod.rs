//! TVMScript → graph IR: builds `@R.function`s (the Relax dialect of
//! TVMScript) into [`crate::graph::Function`]s.
//!
//! Accepted spellings (the course's and TVM 0.27's):
//!
//! - decorators `@R.function`, `@R.function(private=True)`, `(pure=False)`;
//! - annotations `R.Tensor((1, "m"), "float32")`, `R.Tensor((1, 784),
//!   dtype="float32")`, `R.Tensor(dtype="float32", ndim=2)`, `R.Tensor`,
//!   `R.Shape([...])`, `R.Tuple(...)`, `R.Object`/`R.Any`, `R.Prim("int64")`
//!   or `T.int64`, and the course's oldest bare `Tensor((1, 784), "float32")`;
//! - symbolic dimensions: a string in a signature (`"m"`, `"n * 2"`) or a
//!   bare name there defines/uses a symbolic `int64` variable; in the body
//!   `m, n = T.int64(), T.int64()` names the signature's variables (TVM
//!   binds an existing variable of that name) or introduces new ones;
//! - `with R.dataflow():` … `R.output(a, b)` (`relax.output` too);
//! - `R.call_tir(cls.f, (x, w), out_sinfo=R.Tensor(...))` (`out_ty=` in TVM
//!   0.27, a list for several outputs, the old `R.call_tir(f, (x,), (1, 128),
//!   dtype="float32")` form, `tir_vars=`), `R.call_dps_packed("env.linear",
//!   (x, w), R.Tensor(...))`, `cls.f(x)` calls of graph functions, the
//!   built-in operators `R.add(...)`, `R.nn.relu(...)`, … (also spelled
//!   `relax.op.add`, `relax.op.nn.relu`), `R.linear` (expanded, as TVM does,
//!   into `permute_dims`, `matmul` and `add`), `R.const`, `R.shape`,
//!   `R.prim_value`, `R.str`, tuples and `t[i]`;
//! - `cls = Module` (any alias of the class), `R.func_attr({...})`.
//!
//! Normalisation follows TVM's parser: nested calls are bound to fresh
//! variables first (named `lv`, `lv1`, … inside a dataflow block and `gv`,
//! `gv1`, … outside, one counter per function that every binding advances),
//! so the result is in A-normal form; a non-leaf returned value is bound the
//! same way. Variables of a dataflow block are `DataflowVar`s unless listed
//! in its `R.output(...)`, and are not visible after the block.

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use crate::graph::infer::{check_compatible, expr_sinfo, Globals};
use crate::graph::ir::{
    Binding, BindingBlock, Call, Callee, Expr, ExprKind, FuncInfo, Function, PrimExpr, SeqExpr,
    ShapeInfo, StructInfo, SymVar, TensorInfo, Var,
};
use crate::graph::op::{BinaryOp, Conv2dAttrs, Op};
use tessel_tir::diag::{Diagnostic, Span};
use tessel_tir::eval::NDArray;
use tessel_tir::ir::{AttrValue, BaseFunc, BinOp, DataType, IRModule, PrimFunc};
use tessel_tir::syntax::ast;

mod calls;
mod expr;
mod function;
mod sinfo;

type Result<T> = std::result::Result<T, Diagnostic>;

/// The script namespaces the builder recognises.
#[derive(Clone, Debug)]
pub(crate) struct Aliases {
    /// Names bound to `tvm.script.tir`/`tirx` (usually `T`).
    pub tir: Vec<String>,
    /// Names bound to `tvm.script.relax` (usually `R`).
    pub relax: Vec<String>,
    /// Names bound to the `tvm.relax` Python package (`relax.op.add`,
    /// `relax.output`).
    pub relax_py: Vec<String>,
}

impl Aliases {
    fn is_tir(&self, n: &str) -> bool {
        self.tir.iter().any(|x| x == n)
    }
    fn is_relax(&self, n: &str) -> bool {
        self.relax.iter().any(|x| x == n)
    }
    fn is_relax_py(&self, n: &str) -> bool {
        self.relax_py.iter().any(|x| x == n)
    }
}

/// What a module function looks like from a call site.
#[derive(Clone)]
enum GlobalEntry {
    Prim(Rc<PrimFunc>),
    Graph(FuncInfo),
}

struct GlobalTable(HashMap<String, GlobalEntry>);

impl Globals for GlobalTable {
    fn global_sinfo(&self, name: &str) -> Option<StructInfo> {
        match self.0.get(name)? {
            GlobalEntry::Graph(fi) => Some(StructInfo::Func(fi.clone())),
            GlobalEntry::Prim(_) => Some(StructInfo::Func(FuncInfo {
                params: None,
                ret: Box::new(StructInfo::Object),
                pure: false,
            })),
        }
    }
}

/// Builds the `@R.function`s of a class into `module` (whose PrimFuncs are
/// already built), in source order.
pub(crate) fn build_graph_functions(
    aliases: &Aliases,
    class_name: &str,
    defs: &[&ast::FunctionDef],
    module: &mut IRModule,
) -> Result<()> {
    let mut table = GlobalTable(HashMap::new());
    for (name, f) in &module.functions {
        if let BaseFunc::Prim(p) = f {
            table.0.insert(name.clone(), GlobalEntry::Prim(p.clone()));
        }
    }
    // Signatures first, so that functions can call functions defined later.
    for def in defs {
        let sig = {
            let mut b = GraphBuilder::new(aliases, Some(class_name), &table);
            b.signature(def)?
        };
        table.0.insert(def.name.clone(), GlobalEntry::Graph(sig));
    }
    for def in defs {
        let func = GraphBuilder::new(aliases, Some(class_name), &table).build(def)?;
        table
            .0
            .insert(def.name.clone(), GlobalEntry::Graph(fi_of(&func)));
        module.insert(def.name.clone(), BaseFunc::Graph(Rc::new(func)));
    }
    Ok(())
}

fn fi_of(f: &Function) -> FuncInfo {
    match f.sinfo() {
        StructInfo::Func(fi) => fi,
        _ => FuncInfo {
            params: None,
            ret: Box::new(StructInfo::Object),
            pure: f.pure,
        },
    }
}

/// Builds a bare `@R.function` (outside a module).
pub(crate) fn build_bare_function(aliases: &Aliases, def: &ast::FunctionDef) -> Result<Function> {
    let table = GlobalTable(HashMap::new());
    GraphBuilder::new(aliases, None, &table).build(def)
}

/// A name in scope inside a graph function.
#[derive(Clone)]
enum Bound {
    Var(Var),
    Sym(SymVar),
    /// The module itself (`cls = Module`).
    Module,
}

/// A value while evaluating script expressions.
#[derive(Clone)]
enum Val {
    /// A graph expression (a call is not yet bound).
    Expr(Expr),
    Int(i64, Span),
    Float(f64, Span),
    Bool(bool, Span),
    Str(String, Span),
    None(Span),
    /// A Python tuple or list of values.
    Seq(Vec<Val>, Span),
    /// A struct info (`R.Tensor(...)`).
    Sinfo(StructInfo, Span),
    /// A dimension expression built from symbolic variables.
    Prim(PrimExpr, Span),
    /// A function of the module (`cls.linear0`, or a bare name in the old
    /// spelling).
    Global(String, Span),
    /// The module (`cls`).
    Module(Span),
}

impl Val {
    fn span(&self) -> Span {
        match self {
            Val::Expr(e) => e.span(),
            Val::Int(_, s)
            | Val::Float(_, s)
            | Val::Bool(_, s)
            | Val::Str(_, s)
            | Val::None(s)
            | Val::Seq(_, s)
            | Val::Sinfo(_, s)
            | Val::Prim(_, s)
            | Val::Global(_, s)
            | Val::Module(s) => *s,
        }
    }
    fn describe(&self) -> &'static str {
        match self {
            Val::Expr(_) => "a graph expression",
            Val::Int(..) => "an integer",
            Val::Float(..) => "a float",
            Val::Bool(..) => "a bool",
            Val::Str(..) => "a string",
            Val::None(_) => "None",
            Val::Seq(..) => "a tuple or list",
            Val::Sinfo(..) => "a struct info annotation",
            Val::Prim(..) => "a symbolic dimension",
            Val::Global(..) => "a module function",
            Val::Module(_) => "the module",
        }
    }
}

/// Keyword-or-positional argument access for script calls.
struct Args<'e> {
    pos: Vec<&'e ast::Expr>,
    kw: Vec<(&'e str, &'e ast::Expr, Span)>,
    span: Span,
    what: String,
}

impl<'e> Args<'e> {
    fn new(args: &'e [ast::Arg], span: Span, what: impl Into<String>) -> Result<Args<'e>> {
        let mut pos = Vec::new();
        let mut kw = Vec::new();
        for a in args {
            match a {
                ast::Arg::Positional(e) => {
                    if !kw.is_empty() {
                        return Err(Diagnostic::error(
                            "positional argument after a keyword argument",
                            e.span,
                        ));
                    }
                    pos.push(e)
                }
                ast::Arg::Keyword(k) => kw.push((k.name.as_str(), &k.value, k.span)),
                other => {
                    return Err(Diagnostic::error(
                        "`*args` / `**kwargs` are not supported here",
                        other.span(),
                    ))
                }
            }
        }
        Ok(Args {
            pos,
            kw,
            span,
            what: what.into(),
        })
    }
    /// Takes parameter `i` named `name` (positional or keyword).
    fn get(&self, i: usize, name: &str) -> Result<Option<&'e ast::Expr>> {
        let by_kw = self
            .kw
            .iter()
            .find(|(k, _, _)| *k == name)
            .map(|(_, e, _)| *e);
        match (self.pos.get(i), by_kw) {
            (Some(_), Some(e)) => Err(Diagnostic::error(
                format!("{} got multiple values for argument `{name}`", self.what),
                e.span,
            )),
            (Some(e), None) => Ok(Some(*e)),
            (None, e) => Ok(e),
        }
    }
    fn required(&self, i: usize, name: &str) -> Result<&'e ast::Expr> {
        self.get(i, name)?.ok_or_else(|| {
            Diagnostic::error(
                format!("{} is missing the argument `{name}`", self.what),
                self.span,
            )
        })
    }
    /// Fails on positional arguments beyond `n` or unknown keywords.
    fn check(&self, names: &[&str]) -> Result<()> {
        if let Some(e) = self.pos.get(names.len()) {
            return Err(Diagnostic::error(
                format!(
                    "{} takes at most {} positional argument{}",
                    self.what,
                    names.len(),
                    if names.len() == 1 { "" } else { "s" }
                ),
                e.span,
            ));
        }
        for (k, _, span) in &self.kw {
            if !names.contains(k) {
                return Err(Diagnostic::error(
                    format!("{} got an unexpected keyword argument `{k}`", self.what),
                    *span,
                )
                .with_note(format!("it takes {}", names.join(", "))));
            }
        }
        Ok(())
    }
}

struct GraphBuilder<'a> {
    aliases: &'a Aliases,
    class_name: Option<&'a str>,
    globals: &'a GlobalTable,
    scopes: Vec<HashMap<String, Bound>>,
    /// Symbolic variables of the function, by name.
    syms: HashMap<String, SymVar>,
    /// Whether struct info being read is in the signature (strings define
    /// symbolic variables there).
    in_sig: bool,
    /// Finished blocks and the one being filled.
    blocks: Vec<BindingBlock>,
    current: Vec<Binding>,
    in_dataflow: bool,
    /// Names of the current dataflow block's outputs, with the index of the
    /// statement that binds each last.
    outputs: HashMap<String, usize>,
    stmt_index: usize,
    /// Auto-name counters ("lv" in dataflow blocks, "gv" outside).
    lv_count: usize,
    gv_count: usize,
}

impl<'a> GraphBuilder<'a> {
    fn new(aliases: &'a Aliases, class_name: Option<&'a str>, globals: &'a GlobalTable) -> Self {
        GraphBuilder {
            aliases,
            class_name,
            globals,
            scopes: vec![HashMap::new()],
            syms: HashMap::new(),
            in_sig: false,
            blocks: Vec::new(),
            current: Vec::new(),
            in_dataflow: false,
            outputs: HashMap::new(),
            stmt_index: 0,
            lv_count: 0,
            gv_count: 0,
        }
    }

    fn lookup(&self, name: &str) -> Option<&Bound> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    fn define(&mut self, name: &str, b: Bound) {
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name.to_string(), b);
        }
    }
}

fn pair(v: &[i64], span: Span, what: &str) -> Result<[i64; 2]> {
    match v {
        [x] => Ok([*x, *x]),
        [a, b] => Ok([*a, *b]),
        _ => Err(Diagnostic::error(
            format!("`{what}` takes 1 or 2 integers"),
            span,
        )),
    }
}

fn prim_binop(op: ast::BinOp, a: PrimExpr, b: PrimExpr, span: Span) -> Result<PrimExpr> {
    let op = match op {
        ast::BinOp::Add => BinOp::Add,
        ast::BinOp::Sub => BinOp::Sub,
        ast::BinOp::Mul => BinOp::Mul,
        ast::BinOp::FloorDiv => BinOp::FloorDiv,
        ast::BinOp::Mod => BinOp::FloorMod,
        _ => return Err(Diagnostic::error("dimensions support + - * // %", span)),
    };
    if a.dtype() != b.dtype() {
        return Err(Diagnostic::error(
            format!("mixed dimension types {} and {}", a.dtype(), b.dtype()),
            span,
        ));
    }
    Ok(PrimExpr::binary(op, a, b).with_span(span))
}

/// The array of `R.const(value, dtype)`. Python scalars default to
/// `float32` / `int32` / `bool` (TVM's `relax.const`), lists to the same.
fn const_array(v: Val, dtype: Option<DataType>, span: Span) -> Result<NDArray> {
    fn flatten(v: Val, shape: &mut Vec<usize>, depth: usize, out: &mut Vec<Val>) -> Result<()> {
        match v {
            Val::Seq(items, span) => {
                if shape.len() == depth {
                    shape.push(items.len());
                } else if shape.get(depth) != Some(&items.len()) {
                    return Err(Diagnostic::error(
                        "a constant must be a rectangular array",
                        span,
                    ));
                }
                for x in items {
                    flatten(x, shape, depth + 1, out)?;
                }
                Ok(())
            }
            other => {
                if depth != shape.len() {
                    return Err(Diagnostic::error(
                        "a constant must be a rectangular array",
                        other.span(),
                    ));
                }
                out.push(other);
                Ok(())
            }
        }
    }
    let mut shape = Vec::new();
    let mut items = Vec::new();
    flatten(v, &mut shape, 0, &mut items)?;
    let any_float = items.iter().any(|x| matches!(x, Val::Float(..)));
    let all_bool = !items.is_empty() && items.iter().all(|x| matches!(x, Val::Bool(..)));
    let dtype = dtype.unwrap_or(if any_float {
        DataType::f32()
    } else if all_bool {
        DataType::bool()
    } else {
        DataType::i32()
    });
    let mut ints = Vec::with_capacity(items.len());
    let mut floats = Vec::with_capacity(items.len());
    for x in items {
        let (i, f) = match x {
            Val::Int(i, _) => (i, i as f64),
            Val::Float(v, _) => (v as i64, v),
            Val::Bool(b, _) => (i64::from(b), f64::from(u8::from(b))),
            other => {
                return Err(Diagnostic::error(
                    format!("R.const takes numbers, found {}", other.describe()),
                    other.span(),
                ))
            }
        };
        ints.push(i);
        floats.push(f);
    }
    if dtype.is_float() {
        NDArray::from_f64_as(dtype, &shape, &floats)
    } else {
        NDArray::from_i64(dtype, &shape, &ints)
    }
    .map_err(|m| Diagnostic::error(m, span))
}

/// A `func_attr` value: literals, lists and dicts.
fn attr_value(e: &ast::Expr) -> Result<AttrValue> {
    Ok(match &e.kind {
        ast::ExprKind::Bool(b) => AttrValue::Bool(*b),
        ast::ExprKind::Int(i) => AttrValue::Int(*i),
        ast::ExprKind::Float(f) => AttrValue::Float(*f),
        ast::ExprKind::Str(s) => AttrValue::Str(s.clone()),
        ast::ExprKind::UnaryOp {
            op: ast::UnaryOp::Neg,
            operand,
        } => match attr_value(operand)? {
            AttrValue::Int(i) => AttrValue::Int(i.wrapping_neg()),
            AttrValue::Float(f) => AttrValue::Float(-f),
            _ => return Err(Diagnostic::error("cannot negate this", e.span)),
        },
        ast::ExprKind::List(items) | ast::ExprKind::Tuple(items) => {
            AttrValue::Array(items.iter().map(attr_value).collect::<Result<_>>()?)
        }
        ast::ExprKind::Dict(items) => {
            let mut m = BTreeMap::new();
            for (k, v) in items {
                let Some(k) = k else {
                    return Err(Diagnostic::error("`**` is not supported here", v.span));
                };
                let ast::ExprKind::Str(key) = &k.kind else {
                    return Err(Diagnostic::error("attribute keys are strings", k.span));
                };
                m.insert(key.clone(), attr_value(v)?);
            }
            AttrValue::Map(m)
        }
        _ => {
            return Err(Diagnostic::error(
                "unsupported attribute value (use literals, lists and dicts)",
                e.span,
            ))
        }
    })
}

/// `a.b.c` as `["a", "b", "c"]`.
fn dotted(e: &ast::Expr) -> Option<Vec<&str>> {
    match &e.kind {
        ast::ExprKind::Name(n) => Some(vec![n.as_str()]),
        ast::ExprKind::Attribute { value, attr, .. } => {
            let mut v = dotted(value)?;
            v.push(attr.as_str());
            Some(v)
        }
        _ => None,
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// Whether a decorator call passes `flag=<value>`.
fn decorator_flag(d: &ast::Expr, flag: &str, value: bool) -> bool {
    let ast::ExprKind::Call { args, .. } = &d.kind else {
        return false;
    };
    args.iter().any(|a| {
        matches!(a, ast::Arg::Keyword(k) if k.name == flag && matches!(k.value.kind, ast::ExprKind::Bool(b) if b == value))
    })
}

fn decorator_flag_false(def: &ast::FunctionDef, flag: &str) -> bool {
    def.decorators
        .iter()
        .any(|d| decorator_flag(d, flag, false))
}

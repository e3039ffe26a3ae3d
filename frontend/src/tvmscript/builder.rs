//! TVMScript → IR: walks the Python AST of `@I.ir_module` classes and
//! `@T.prim_func` functions and builds [`IRModule`]s.
//!
//! The builder accepts all three API generations the course uses:
//! `T.block` and `T.sblock`; `from tvm.script import tir` and `tirx`;
//! `@T.prim_func` and `@T.prim_func(s_tir=True)`; `T.Buffer((…), dt)` and
//! `T.Buffer[(…), dt]`; function-level `T.alloc_buffer` and
//! `T.sblock_alloc_buffer` (both become allocations of the root block).
//!
//! Names are resolved lexically; the builder reports the first problem it
//! meets as a [`Diagnostic`] with the span of the offending source. Semantic
//! checks that need the whole function (dtype agreement, iterator domains,
//! scoping across blocks) are the verifier's job
//! ([`tessel_tir::analysis::verify`]); every IR node keeps its source span so the
//! verifier can point back at the text.
//!
//! Python literals stay untyped until they meet a typed expression: `i * 4`
//! gives `4` the dtype of `i`, `A[vi] + 1` gives `1` the buffer's dtype, and a
//! literal stored into a buffer takes the buffer's dtype. This is how TVM's
//! parser behaves, and it keeps printed programs free of spurious casts.

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use crate::tvmscript::printer::{
    print_graph_func, print_module, print_prim_func, Dialect, PrintOptions,
};
use crate::tvmscript::relax_builder;
use tessel_tir::analysis::regions::infer_access_regions;
use tessel_tir::analysis::verify::ApiGeneration;
use tessel_tir::arith::Analyzer;
use tessel_tir::diag::{Diagnostic, Span};
use tessel_tir::ir::expr::extreme_value;
use tessel_tir::ir::*;
use tessel_tir::syntax::ast;

// FuncBuilder's methods, one file per part of the language.
mod buffers;
mod calls;
mod expressions;
mod functions;
mod regions;
mod statements;

type Result<T> = std::result::Result<T, Diagnostic>;

/// Which spelling of the block API the source used; the printer answers in kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SourceDialect {
    /// `T.sblock` rather than `T.block`.
    pub sblock: bool,
    /// `from tvm.script import tirx` (TVM 0.27).
    pub tirx: bool,
}

impl SourceDialect {
    /// The block-API generation of this spelling (see [`ApiGeneration`]).
    pub fn api_generation(self) -> ApiGeneration {
        if self.sblock || self.tirx {
            ApiGeneration::SBlock
        } else {
            ApiGeneration::Block
        }
    }
}

impl From<SourceDialect> for Dialect {
    /// The dialect a parsed script was written in.
    fn from(d: SourceDialect) -> Dialect {
        if d.tirx {
            Dialect::Tirx
        } else if d.sblock {
            Dialect::SBlock
        } else {
            Dialect::Block
        }
    }
}

/// Prints one top-level item of a parsed script.
pub fn print_item(item: &Item, opts: &PrintOptions) -> String {
    match item {
        Item::Module { module, .. } => print_module(module, opts),
        Item::PrimFunc { name, func } => print_prim_func(func, name, opts),
        Item::GraphFunc { name, func } => print_graph_func(func, name, opts),
    }
}

/// One top-level TVMScript item of a file.
#[derive(Clone, Debug)]
pub enum Item {
    /// A decorated class: `@I.ir_module class Name:`.
    Module { name: String, module: IRModule },
    /// A bare `@T.prim_func def name(...)`.
    PrimFunc { name: String, func: Rc<PrimFunc> },
    /// A bare `@R.function def name(...)` (graph level).
    GraphFunc {
        name: String,
        func: Rc<crate::graph::Function>,
    },
}

/// The result of parsing a TVMScript file.
#[derive(Clone, Debug, Default)]
pub struct ParsedScript {
    pub items: Vec<Item>,
    pub dialect: SourceDialect,
}

impl ParsedScript {
    /// The block-API generation the script was written in, which decides
    /// the verifier's rules: TVM 0.27's when the script uses `T.sblock`,
    /// `@T.prim_func(s_tir=True)` or `tirx`, the course's otherwise.
    pub fn api_generation(&self) -> ApiGeneration {
        self.dialect.api_generation()
    }

    /// All items as one module (bare functions under their own names).
    pub fn to_module(&self) -> IRModule {
        let mut out = IRModule::new();
        for item in &self.items {
            match item {
                Item::Module { module, .. } => {
                    for (n, f) in &module.functions {
                        out.insert(n.clone(), f.clone());
                    }
                }
                Item::PrimFunc { name, func } => {
                    out.insert(name.clone(), BaseFunc::Prim(func.clone()))
                }
                Item::GraphFunc { name, func } => {
                    out.insert(name.clone(), BaseFunc::Graph(func.clone()))
                }
            }
        }
        out
    }
}

/// Parses TVMScript source text into IR.
pub fn parse_script(src: &str) -> Result<ParsedScript> {
    let module = tessel_tir::syntax::parse_module(src)?;
    build_script(&module)
}

/// Builds IR from an already parsed Python module. Statements that are not
/// TVMScript (imports, docstrings, `pass`) are accepted and skipped; any other
/// statement is an error, since a TVMScript file holds only definitions.
pub fn build_script(module: &ast::Module) -> Result<ParsedScript> {
    let mut ns = Namespaces::default();
    let mut out = ParsedScript::default();
    for stmt in &module.body {
        match &stmt.kind {
            ast::StmtKind::Import(_) | ast::StmtKind::ImportFrom { .. } => ns.record_import(stmt, &mut out.dialect),
            ast::StmtKind::ClassDef(class) => {
                if !class.decorators.iter().any(|d| ns.is_ir_module_decorator(d)) {
                    return Err(Diagnostic::error(
                        format!("class `{}` is not a TVMScript module", class.name),
                        class.name_span,
                    )
                    .with_note("decorate it with `@I.ir_module` or `@tvm.script.ir_module`"));
                }
                let module = build_ir_module(&ns, class, &mut out.dialect)?;
                out.items.push(Item::Module { name: class.name.clone(), module });
            }
            ast::StmtKind::FunctionDef(def) => {
                if def.decorators.iter().any(|d| ns.is_relax_function_decorator(d)) {
                    let func = relax_builder::build_bare_function(&ns.graph_aliases(), def)?;
                    out.items.push(Item::GraphFunc { name: def.name.clone(), func: Rc::new(func) });
                    continue;
                }
                if !def.decorators.iter().any(|d| ns.is_prim_func_decorator(d)) {
                    return Err(Diagnostic::error(
                        format!("function `{}` is not a TVMScript function", def.name),
                        def.name_span,
                    )
                    .with_note("decorate it with `@T.prim_func` or `@R.function`"));
                }
                let func = FuncBuilder::new(&ns, &mut out.dialect).build(def)?;
                out.items.push(Item::PrimFunc { name: def.name.clone(), func: Rc::new(func) });
            }
            ast::StmtKind::Pass | ast::StmtKind::Magic(_) => {}
            ast::StmtKind::Expr(e) if matches!(e.kind, ast::ExprKind::Str(_)) => {}
            _ => {
                return Err(Diagnostic::error(
                    "expected a TVMScript module (`@I.ir_module class …`) or function (`@T.prim_func def …`)",
                    stmt.span,
                ))
            }
        }
    }
    Ok(out)
}

/// The local names a Python script bound to TVM's script namespaces, for
/// [`build_item`]: `from tvm.script import tir as T` puts `T` in `tir`.
#[derive(Clone, Debug, Default)]
pub struct ScriptAliases {
    /// Names bound to `tvm.script.tir` or `tvm.script.tirx`.
    pub tir: Vec<String>,
    /// Whether one of them is `tirx` (TVM 0.27 spelling).
    pub tirx: bool,
    /// Names bound to `tvm.script.ir`.
    pub ir: Vec<String>,
    /// Names bound to `tvm.script.relax`.
    pub relax: Vec<String>,
    /// Python values the TVMScript may read from the enclosing script (as
    /// TVM's parser reads closure variables): `n = 128` then `T.Buffer((n,), …)`.
    pub consts: Vec<(String, PyConst)>,
}

/// A Python value visible to TVMScript from the enclosing script.
#[derive(Clone, Debug, PartialEq)]
pub enum PyConst {
    /// A typed TIR constant (`tvm.tirx.IntImm("int8", 0)`).
    IntImm(i64, DataType),
    /// A typed float constant (`tvm.tirx.FloatImm("float16", 0.5)`).
    FloatImm(f64, DataType),
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    Tuple(Vec<PyConst>),
}

/// Builds one decorated statement of a Python script: an `@I.ir_module`
/// class or a `@T.prim_func` function (the script interpreter has already
/// decided, from the decorators' values, that it is TVMScript). The usual
/// aliases `T`, `I` and `R` are always known; `aliases` adds the script's own.
pub fn build_item(stmt: &ast::Stmt, aliases: &ScriptAliases) -> Result<ParsedScript> {
    let mut ns = Namespaces::default();
    ns.tir.extend(aliases.tir.iter().cloned());
    ns.ir.extend(aliases.ir.iter().cloned());
    ns.relax.extend(aliases.relax.iter().cloned());
    ns.consts = aliases.consts.iter().cloned().collect();
    let mut out = ParsedScript::default();
    out.dialect.tirx = aliases.tirx;
    match &stmt.kind {
        ast::StmtKind::ClassDef(class) => {
            let module = build_ir_module(&ns, class, &mut out.dialect)?;
            out.items.push(Item::Module { name: class.name.clone(), module });
        }
        ast::StmtKind::FunctionDef(def)
            if def.decorators.iter().any(|d| ns.is_relax_function_decorator(d)) =>
        {
            let func = relax_builder::build_bare_function(&ns.graph_aliases(), def)?;
            out.items.push(Item::GraphFunc { name: def.name.clone(), func: Rc::new(func) });
        }
        ast::StmtKind::FunctionDef(def) => {
            let func = FuncBuilder::new(&ns, &mut out.dialect).build(def)?;
            out.items.push(Item::PrimFunc { name: def.name.clone(), func: Rc::new(func) });
        }
        _ => {
            return Err(Diagnostic::error(
                "expected a TVMScript module (`@I.ir_module class …`) or function (`@T.prim_func def …`)",
                stmt.span,
            ))
        }
    }
    Ok(out)
}

fn build_ir_module(
    ns: &Namespaces,
    class: &ast::ClassDef,
    dialect: &mut SourceDialect,
) -> Result<IRModule> {
    let mut module = IRModule::new();
    // Graph functions are built after the PrimFuncs (they refer to them by
    // name); `order` restores the source order.
    let mut graph_defs: Vec<&ast::FunctionDef> = Vec::new();
    let mut order: Vec<&str> = Vec::new();
    for stmt in &class.body {
        match &stmt.kind {
            ast::StmtKind::FunctionDef(def) => {
                let is_prim = def.decorators.iter().any(|d| ns.is_prim_func_decorator(d));
                let is_graph = def
                    .decorators
                    .iter()
                    .any(|d| ns.is_relax_function_decorator(d));
                if (is_prim || is_graph) && order.contains(&def.name.as_str()) {
                    return Err(Diagnostic::error(
                        format!("function `{}` is defined twice", def.name),
                        def.name_span,
                    ));
                }
                if is_prim {
                    let func = FuncBuilder::new(ns, dialect).build(def)?;
                    module.insert(def.name.clone(), BaseFunc::Prim(Rc::new(func)));
                } else if is_graph {
                    graph_defs.push(def);
                } else {
                    return Err(Diagnostic::error(
                        format!(
                            "method `{}` of a TVMScript module must be a `@T.prim_func` or an `@R.function`",
                            def.name
                        ),
                        def.name_span,
                    ));
                }
                order.push(def.name.as_str());
            }
            ast::StmtKind::Pass => {}
            ast::StmtKind::Expr(e) if matches!(e.kind, ast::ExprKind::Str(_)) => {}
            _ => {
                return Err(Diagnostic::error(
                    "a TVMScript module holds only function definitions",
                    stmt.span,
                ));
            }
        }
    }
    if !graph_defs.is_empty() {
        relax_builder::build_graph_functions(
            &ns.graph_aliases(),
            &class.name,
            &graph_defs,
            &mut module,
        )?;
        tessel_ir::sort::by_key(&mut module.functions, |(n, _)| {
            order.iter().position(|o| o == n).unwrap_or(usize::MAX)
        });
    }
    Ok(module)
}

/// Which local names refer to TVM's script namespaces.
struct Namespaces {
    /// Names bound to `tvm.script.tir`/`tirx` (usually `T`).
    tir: Vec<String>,
    /// Names bound to `tvm.script.ir` (usually `I`).
    ir: Vec<String>,
    /// Names bound to `tvm.script.relax` (usually `R`).
    relax: Vec<String>,
    /// Python values of the enclosing script (see [`ScriptAliases::consts`]).
    consts: HashMap<String, PyConst>,
    /// Names bound to the `tvm.relax` package (`from tvm import relax`).
    relax_py: Vec<String>,
}

impl Default for Namespaces {
    fn default() -> Self {
        // Pasted snippets often omit the imports: assume the usual aliases.
        Namespaces {
            tir: vec!["T".into()],
            ir: vec!["I".into()],
            relax: vec!["R".into()],
            consts: HashMap::new(),
            relax_py: vec!["relax".into()],
        }
    }
}

impl Namespaces {
    fn record_import(&mut self, stmt: &ast::Stmt, dialect: &mut SourceDialect) {
        if let ast::StmtKind::ImportFrom {
            module: Some(m),
            names,
            ..
        } = &stmt.kind
        {
            if m.name == "tvm" {
                for alias in names {
                    if alias.name.name == "relax" {
                        let local = alias.asname.as_ref().unwrap_or(&alias.name).name.clone();
                        self.relax_py.push(local);
                    }
                }
            }
            if m.name == "tvm.script" {
                for alias in names {
                    let local = alias.asname.as_ref().unwrap_or(&alias.name).name.clone();
                    match alias.name.name.as_str() {
                        "tir" => self.tir.push(local),
                        "tirx" => {
                            dialect.tirx = true;
                            self.tir.push(local)
                        }
                        "ir" => self.ir.push(local),
                        "relax" => self.relax.push(local),
                        _ => {}
                    }
                }
            }
        }
    }

    fn is_tir(&self, name: &str) -> bool {
        self.tir.iter().any(|n| n == name)
    }

    /// The aliases the graph-function builder needs.
    fn graph_aliases(&self) -> relax_builder::Aliases {
        relax_builder::Aliases {
            tir: self.tir.clone(),
            relax: self.relax.clone(),
            relax_py: self.relax_py.clone(),
        }
    }

    fn is_ir_module_decorator(&self, e: &ast::Expr) -> bool {
        match dotted(e).as_deref() {
            Some([first, "ir_module"]) => self.ir.iter().any(|n| n == first),
            Some(["tvm", "script", "ir_module"]) | Some(["ir_module"]) => true,
            _ => false,
        }
    }

    fn is_prim_func_decorator(&self, e: &ast::Expr) -> bool {
        let target = match &e.kind {
            ast::ExprKind::Call { func, .. } => func,
            _ => e,
        };
        matches!(dotted(target).as_deref(), Some([t, "prim_func"]) if self.is_tir(t))
    }

    fn is_relax_function_decorator(&self, e: &ast::Expr) -> bool {
        let target = match &e.kind {
            ast::ExprKind::Call { func, .. } => func,
            _ => e,
        };
        matches!(dotted(target).as_deref(), Some([r, "function"]) if self.relax.iter().any(|n| n == r))
    }
}

fn const_value(c: &PyConst, span: Span) -> Value {
    match c {
        PyConst::IntImm(v, dt) => Value::Expr(Expr::int(*v, *dt).with_span(span)),
        PyConst::FloatImm(v, dt) => Value::Expr(Expr::float(*v, *dt).with_span(span)),
        PyConst::Int(i) => Value::PyInt(*i, span),
        PyConst::Float(f) => Value::PyFloat(*f, span),
        PyConst::Bool(b) => Value::PyBool(*b, span),
        PyConst::Str(s) => Value::Str(s.clone(), span),
        PyConst::Tuple(items) => {
            Value::Tuple(items.iter().map(|i| const_value(i, span)).collect(), span)
        }
    }
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

/// A value the builder can hold while evaluating TVMScript expressions.
#[derive(Clone, Debug)]
enum Value {
    Expr(Expr),
    /// A Python integer literal, typed when it meets a typed expression.
    PyInt(i64, Span),
    PyFloat(f64, Span),
    PyBool(bool, Span),
    Str(String, Span),
    Buffer(Buffer, Span),
    Tuple(Vec<Value>, Span),
    /// A dtype name used as a value (`T.float32` without a call).
    DType(DataType, Span),
    None(Span),
}

impl Value {
    fn span(&self) -> Span {
        match self {
            Value::Expr(e) => e.span(),
            Value::PyInt(_, s)
            | Value::PyFloat(_, s)
            | Value::PyBool(_, s)
            | Value::Str(_, s)
            | Value::Buffer(_, s)
            | Value::Tuple(_, s)
            | Value::DType(_, s)
            | Value::None(s) => *s,
        }
    }
    fn describe(&self) -> &'static str {
        match self {
            Value::Expr(_) => "an expression",
            Value::PyInt(..) => "an integer",
            Value::PyFloat(..) => "a float",
            Value::PyBool(..) => "a bool",
            Value::Str(..) => "a string",
            Value::Buffer(..) => "a buffer",
            Value::Tuple(..) => "a tuple",
            Value::DType(..) => "a dtype",
            Value::None(_) => "None",
        }
    }
}

/// A name in scope inside a function.
#[derive(Clone, Debug)]
enum Binding {
    Var(Var),
    Buffer(Buffer),
}

/// A block under construction: declarations gathered from its body.
#[derive(Default)]
struct BlockFrame {
    iter_vars: Vec<IterVar>,
    iter_values: Vec<Expr>,
    predicate: Option<Expr>,
    reads: Option<Vec<BufferRegion>>,
    writes: Option<Vec<BufferRegion>>,
    alloc_buffers: Vec<Buffer>,
    match_buffers: Vec<MatchBufferRegion>,
    annotations: Annotations,
    init: Option<Stmt>,
}

struct FuncBuilder<'a> {
    ns: &'a Namespaces,
    dialect: &'a mut SourceDialect,
    scopes: Vec<HashMap<String, Binding>>,
    /// The range of each enclosing loop variable (for `T.axis.remap`).
    loop_ranges: HashMap<VarId, Range>,
    frames: Vec<BlockFrame>,
    uses_blocks: bool,
    /// For each block written directly in the function body (outside any
    /// block): whether its reads and its writes were inferred rather than
    /// given. An explicit root block keeps none inferred (TVM's script
    /// completion leaves the root's access regions as written).
    top_block_inferred: Vec<(bool, bool)>,
    /// `@T.prim_func(private=True)`: no `global_symbol`.
    private: bool,
}

/// Statements that only declare something for the enclosing block or function.
enum Built {
    Stmt(Stmt),
    /// A `name = value` binding whose body is the rest of the statement list.
    Let(Var, Expr, Span),
    /// An allocation (TVM 0.27's statement-level `T.alloc_buffer`) whose
    /// scope is the rest of the statement list.
    Alloc(Buffer, Span),
    Nothing,
}

impl<'a> FuncBuilder<'a> {
    fn new(ns: &'a Namespaces, dialect: &'a mut SourceDialect) -> Self {
        FuncBuilder {
            ns,
            dialect,
            scopes: vec![HashMap::new()],
            loop_ranges: HashMap::new(),
            frames: Vec::new(),
            uses_blocks: false,
            top_block_inferred: Vec::new(),
            private: false,
        }
    }

    fn lookup(&self, name: &str) -> Option<&Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    fn define(&mut self, name: &str, b: Binding) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name.to_string(), b);
        }
    }

    fn with_scope<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.scopes.push(HashMap::new());
        let r = f(self);
        self.scopes.pop();
        r
    }
}

enum ParamKind {
    Buffer(BufferSpec),
    Scalar(DataType),
}

struct BufferSpec {
    shape: Vec<Expr>,
    dtype: DataType,
    scope: Option<String>,
    strides: Vec<Expr>,
    elem_offset: Option<Expr>,
    align: Option<i64>,
    offset_factor: Option<i64>,
}

fn positional(a: &ast::Arg) -> Result<&ast::Expr> {
    match a {
        ast::Arg::Positional(e) => Ok(e),
        other => Err(Diagnostic::error(
            "expected a positional argument",
            other.span(),
        )),
    }
}

fn spanned(e: Expr, span: Span) -> Expr {
    if e.span() == span {
        e
    } else {
        e.with_span(span)
    }
}

fn zero_of(dtype: DataType) -> Expr {
    if dtype.is_float() {
        Expr::float(0.0, dtype)
    } else {
        Expr::int(0, dtype)
    }
}

/// `@T.prim_func(private=True)`.
fn is_private_decorator(d: &ast::Expr) -> bool {
    decorator_flag(d, "private")
}

/// Whether a decorator call passes `flag=True`.
fn decorator_flag(d: &ast::Expr, flag: &str) -> bool {
    let ast::ExprKind::Call { args, .. } = &d.kind else {
        return false;
    };
    args.iter().any(|a| matches!(a, ast::Arg::Keyword(k) if k.name == flag && matches!(k.value.kind, ast::ExprKind::Bool(true))))
}

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
//! ([`crate::analysis::verify`]); every IR node keeps its source span so the
//! verifier can point back at the text.
//!
//! Python literals stay untyped until they meet a typed expression: `i * 4`
//! gives `4` the dtype of `i`, `A[vi] + 1` gives `1` the buffer's dtype, and a
//! literal stored into a buffer takes the buffer's dtype. This is how TVM's
//! parser behaves, and it keeps printed programs free of spurious casts.

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use crate::analysis::regions::infer_access_regions;
use crate::arith::Analyzer;
use crate::diag::{Diagnostic, Span};
use crate::ir::expr::extreme_value;
use crate::ir::*;
use crate::syntax::ast;
use crate::tvmscript::printer::{
    print_graph_func, print_module, print_prim_func, Dialect, PrintOptions,
};
use crate::tvmscript::relax_builder;

type Result<T> = std::result::Result<T, Diagnostic>;

/// Which spelling of the block API the source used; the printer answers in kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SourceDialect {
    /// `T.sblock` rather than `T.block`.
    pub sblock: bool,
    /// `from tvm.script import tirx` (TVM 0.27).
    pub tirx: bool,
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
    let module = crate::syntax::parse_module(src)?;
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
        module
            .functions
            .sort_by_key(|(n, _)| order.iter().position(|o| o == n).unwrap_or(usize::MAX));
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

    // ----- functions --------------------------------------------------------

    fn build(mut self, def: &ast::FunctionDef) -> Result<PrimFunc> {
        self.private = def.decorators.iter().any(is_private_decorator);
        // `@T.prim_func(s_tir=True)` only exists in TVM 0.27's dialect.
        if def.decorators.iter().any(|d| decorator_flag(d, "s_tir")) {
            self.dialect.tirx = true;
            self.dialect.sblock = true;
        }
        let mut params = Vec::new();
        let mut buffer_map = Vec::new();
        if def.params.vararg.is_some() || def.params.kwarg.is_some() {
            return Err(Diagnostic::error(
                "a prim_func takes plain parameters only",
                def.name_span,
            ));
        }
        for p in def.params.iter() {
            let Some(ann) = &p.annotation else {
                return Err(Diagnostic::error(
                    format!("parameter `{}` needs a type annotation", p.name),
                    p.name_span,
                )
                .with_note(
                    "e.g. `A: T.Buffer((128,), \"float32\")`, `a: T.handle` or `n: T.int32`",
                ));
            };
            match self.param_annotation(ann)? {
                ParamKind::Buffer(spec) => {
                    let handle = Var::new(p.name.clone(), DataType::handle());
                    let buffer = self.make_buffer(&p.name, spec, ann.span)?;
                    params.push(handle.clone());
                    buffer_map.push((handle, buffer.clone()));
                    self.define(&p.name, Binding::Buffer(buffer));
                }
                ParamKind::Scalar(dtype) => {
                    let v = Var::new(p.name.clone(), dtype);
                    params.push(v.clone());
                    self.define(&p.name, Binding::Var(v));
                }
            }
        }

        // The function's own frame collects root-block allocations.
        self.frames.push(BlockFrame::default());
        let mut attrs = BTreeMap::new();
        let mut body_stmts: Vec<&ast::Stmt> = Vec::new();
        for stmt in &def.body {
            // Function-level declarations.
            if let Some(handled) =
                self.function_decl(stmt, &mut params, &mut buffer_map, &mut attrs)?
            {
                if handled {
                    continue;
                }
            }
            body_stmts.push(stmt);
        }
        let body = self.build_stmt_list(&body_stmts)?;
        let root = self.frames.pop().unwrap_or_default();

        let body = if self.uses_blocks || !root.alloc_buffers.is_empty() {
            self.wrap_root(body, root)
        } else {
            body
        };
        // Like TVM's parser: a public function carries its own name as its
        // `global_symbol` (which is why printers omit it when it matches).
        if !self.private && !attrs.contains_key("global_symbol") {
            attrs.insert(
                "global_symbol".to_string(),
                AttrValue::Str(def.name.clone()),
            );
        }
        Ok(PrimFunc {
            params,
            buffer_map,
            body,
            attrs,
            span: def.name_span,
        })
    }

    /// Wraps a function body in the implicit root block, unless the body is
    /// already a single block without iterators (an explicit root).
    fn wrap_root(&mut self, body: Stmt, root: BlockFrame) -> Stmt {
        if root.alloc_buffers.is_empty() {
            if let StmtKind::BlockRealize(r) = body.kind() {
                if r.block.iter_vars.is_empty() {
                    return body;
                }
            }
        }
        let block = Block {
            name: "root".into(),
            iter_vars: vec![],
            reads: vec![],
            writes: vec![],
            alloc_buffers: root.alloc_buffers,
            match_buffers: vec![],
            annotations: root.annotations,
            init: None,
            body,
            span: Span::default(),
        };
        Stmt::new(
            StmtKind::BlockRealize(BlockRealize {
                iter_values: vec![],
                predicate: Expr::bool(true),
                block,
            }),
            Span::default(),
        )
    }

    /// Handles `T.func_attr`, `x = T.int64()`, `X = T.match_buffer(x, …)` at
    /// function level. Returns `Some(true)` when the statement was consumed.
    fn function_decl(
        &mut self,
        stmt: &ast::Stmt,
        params: &mut [Var],
        buffer_map: &mut Vec<(Var, Buffer)>,
        attrs: &mut BTreeMap<String, AttrValue>,
    ) -> Result<Option<bool>> {
        match &stmt.kind {
            ast::StmtKind::Expr(e) => {
                if let Some((path, args)) = self.tir_call(e) {
                    if path == "func_attr" {
                        let [arg] = args else {
                            return Err(Diagnostic::error("`T.func_attr` takes one dict", e.span));
                        };
                        let AttrValue::Map(map) = self.attr_value(positional(arg)?)? else {
                            return Err(Diagnostic::error(
                                "`T.func_attr` takes a dict",
                                arg.span(),
                            ));
                        };
                        attrs.extend(map);
                        return Ok(Some(true));
                    }
                }
                if matches!(e.kind, ast::ExprKind::Str(_)) {
                    return Ok(Some(true));
                }
                Ok(None)
            }
            ast::StmtKind::Assign { targets, value } if targets.len() == 1 => {
                let target = &targets[0];
                // `m, n = T.int64(), T.int64()` and `n = T.int64()`.
                let pairs: Vec<(&ast::Expr, &ast::Expr)> = match (&target.kind, &value.kind) {
                    (ast::ExprKind::Tuple(ts), ast::ExprKind::Tuple(vs))
                        if ts.len() == vs.len() =>
                    {
                        ts.iter().zip(vs.iter()).collect()
                    }
                    _ => vec![(target, value)],
                };
                if pairs.iter().all(|(_, v)| self.is_size_var_decl(v)) {
                    for (t, v) in pairs {
                        let Some(name) = t.as_name() else {
                            return Err(Diagnostic::error("expected a name", t.span));
                        };
                        let dtype = self.size_var_dtype(v)?;
                        self.define(name, Binding::Var(Var::new(name, dtype)));
                    }
                    return Ok(Some(true));
                }
                if let Some((path, args)) = self.tir_call(value) {
                    if path == "match_buffer" {
                        let Some(name) = target.as_name() else {
                            return Err(Diagnostic::error("expected a name", target.span));
                        };
                        let Some(first) = args.first() else {
                            return Err(Diagnostic::error(
                                "`T.match_buffer` needs a handle",
                                value.span,
                            ));
                        };
                        let handle_expr = positional(first)?;
                        let handle = match handle_expr.as_name().and_then(|n| self.lookup(n)) {
                            Some(Binding::Var(v)) if v.dtype().is_handle() => v.clone(),
                            _ => {
                                // `T.match_buffer(B[vi, 0:16], …)` inside blocks is handled there.
                                return Err(Diagnostic::error(
                                    "`T.match_buffer` at function level takes a `T.handle` parameter",
                                    handle_expr.span,
                                ));
                            }
                        };
                        if !params.contains(&handle) {
                            return Err(Diagnostic::error(
                                "not a parameter of this function",
                                handle_expr.span,
                            ));
                        }
                        if buffer_map.iter().any(|(v, _)| *v == handle) {
                            return Err(Diagnostic::error(
                                "this handle is already matched to a buffer",
                                handle_expr.span,
                            ));
                        }
                        let spec = self.buffer_spec(&args[1..], value.span)?;
                        let buffer = self.make_buffer(name, spec, value.span)?;
                        buffer_map.push((handle, buffer.clone()));
                        self.define(name, Binding::Buffer(buffer));
                        return Ok(Some(true));
                    }
                }
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    fn is_size_var_decl(&self, e: &ast::Expr) -> bool {
        match self.tir_call(e) {
            Some((path, args)) => {
                args.is_empty() && DataType::parse(&path).is_some_and(|d| d.is_integer())
            }
            None => false,
        }
    }

    fn size_var_dtype(&self, e: &ast::Expr) -> Result<DataType> {
        match self.tir_call(e) {
            Some((path, _)) => {
                DataType::parse(&path).ok_or_else(|| Diagnostic::error("unknown dtype", e.span))
            }
            None => Err(Diagnostic::error("expected `T.int64()`", e.span)),
        }
    }

    // ----- buffers ------------------------------------------------------------

    fn param_annotation(&mut self, ann: &ast::Expr) -> Result<ParamKind> {
        // `T.Buffer((..), "dt")`, `T.Buffer[(..), "dt"]`, `T.handle`, `T.int32`.
        match &ann.kind {
            ast::ExprKind::Call { func, args } if self.is_tir_attr(func, "Buffer") => {
                Ok(ParamKind::Buffer(self.buffer_spec(args, ann.span)?))
            }
            ast::ExprKind::Subscript { value, index } if self.is_tir_attr(value, "Buffer") => {
                let parts: Vec<ast::Arg> = match &index.kind {
                    // `T.Buffer[(128, 128), "float32"]`: a tuple of shape and dtype.
                    ast::ExprKind::Tuple(items) => {
                        items.iter().cloned().map(ast::Arg::Positional).collect()
                    }
                    _ => vec![ast::Arg::Positional((**index).clone())],
                };
                Ok(ParamKind::Buffer(self.buffer_spec(&parts, ann.span)?))
            }
            _ => {
                let path = dotted(ann).unwrap_or_default();
                match path.as_slice() {
                    [t, name] if self.ns.is_tir(t) => {
                        if *name == "handle" {
                            return Ok(ParamKind::Scalar(DataType::handle()));
                        }
                        if let Some(dt) = DataType::parse(name) {
                            return Ok(ParamKind::Scalar(dt));
                        }
                        Err(Diagnostic::error(format!("unknown parameter type `T.{name}`"), ann.span))
                    }
                    _ => Err(Diagnostic::error("unsupported parameter annotation", ann.span)
                        .with_note("use `T.Buffer(shape, dtype)`, `T.handle` or a scalar type like `T.int32`")),
                }
            }
        }
    }

    /// Reads the arguments of `T.Buffer`, `T.match_buffer` (after the handle)
    /// and `T.alloc_buffer`: shape, dtype and keyword options.
    fn buffer_spec(&mut self, args: &[ast::Arg], span: Span) -> Result<BufferSpec> {
        let mut spec = BufferSpec {
            shape: vec![],
            dtype: DataType::f32(),
            scope: None,
            strides: vec![],
            elem_offset: None,
            align: None,
            offset_factor: None,
        };
        let mut positional_index = 0;
        let mut have_shape = false;
        for arg in args {
            let (key, value) = match arg {
                ast::Arg::Positional(e) => {
                    let key = match positional_index {
                        0 => "shape",
                        1 => "dtype",
                        2 => "data",
                        3 => "strides",
                        4 => "elem_offset",
                        5 => "scope",
                        6 => "align",
                        7 => "offset_factor",
                        _ => return Err(Diagnostic::error("too many arguments", e.span)),
                    };
                    positional_index += 1;
                    (key, e)
                }
                ast::Arg::Keyword(k) => (k.name.as_str(), &k.value),
                other => return Err(Diagnostic::error("unsupported argument form", other.span())),
            };
            match key {
                "shape" => {
                    have_shape = true;
                    spec.shape = match self.eval(value)? {
                        Value::Tuple(items, _) => items
                            .into_iter()
                            .map(|v| self.index_expr(v))
                            .collect::<Result<_>>()?,
                        v => vec![self.index_expr(v)?],
                    };
                }
                "dtype" => spec.dtype = self.dtype_arg(value)?,
                "scope" => match self.eval(value)? {
                    Value::Str(s, _) => spec.scope = Some(s),
                    v => return Err(Diagnostic::error("`scope` must be a string", v.span())),
                },
                "strides" => {
                    spec.strides = match self.eval(value)? {
                        // `strides=("sa", -1)`: a string names a symbolic stride variable.
                        Value::Tuple(items, _) => items
                            .into_iter()
                            .map(|v| match v {
                                Value::Str(name, _) => Ok(self.symbolic_var(&name)),
                                v => self.index_expr(v),
                            })
                            .collect::<Result<_>>()?,
                        Value::None(_) => vec![],
                        v => vec![self.index_expr(v)?],
                    }
                }
                "elem_offset" => match self.eval(value)? {
                    Value::None(_) => {}
                    v => spec.elem_offset = Some(self.index_expr(v)?),
                },
                "align" => spec.align = Some(self.const_int_arg(value)?),
                "offset_factor" => spec.offset_factor = Some(self.const_int_arg(value)?),
                "data" | "buffer_type" | "axis_separators" => {}
                other => {
                    let span = match arg {
                        ast::Arg::Keyword(k) => k.name_span,
                        _ => value.span,
                    };
                    return Err(Diagnostic::error(
                        format!("unknown buffer option `{other}`"),
                        span,
                    ));
                }
            }
        }
        if !have_shape {
            return Err(Diagnostic::error("a buffer needs a shape", span));
        }
        Ok(spec)
    }

    fn make_buffer(&mut self, name: &str, spec: BufferSpec, span: Span) -> Result<Buffer> {
        let index_dtype = spec
            .shape
            .first()
            .map(|e| e.dtype())
            .unwrap_or(DataType::i32());
        let node = BufferNode {
            id: BufferId(0),
            name: name.to_string(),
            data: Var::new(name, DataType::handle()),
            dtype: spec.dtype,
            shape: spec.shape,
            strides: spec.strides,
            // With an `offset_factor`, the element offset is a variable the
            // caller supplies (TVM names it `<buffer>_elem_offset`).
            elem_offset: match (spec.elem_offset, spec.offset_factor) {
                (Some(e), _) => e,
                (None, Some(f)) if f != 0 => {
                    Var::new(format!("{name}_elem_offset"), index_dtype).to_expr()
                }
                (None, _) => Expr::int(0, index_dtype),
            },
            scope: spec.scope.unwrap_or_else(|| "global".into()),
            align: spec.align.unwrap_or(64),
            offset_factor: spec.offset_factor.unwrap_or(1),
            span,
        };
        Ok(Buffer::from_node(node))
    }

    /// The size or stride variable `name`, created (int32) on first mention.
    fn symbolic_var(&mut self, name: &str) -> Expr {
        if let Some(Binding::Var(v)) = self.lookup(name) {
            return v.to_expr();
        }
        let v = Var::new(name, DataType::i32());
        if let Some(scope) = self.scopes.first_mut() {
            scope.insert(name.to_string(), Binding::Var(v.clone()));
        }
        v.to_expr()
    }

    fn dtype_arg(&mut self, e: &ast::Expr) -> Result<DataType> {
        match self.eval(e)? {
            Value::Str(s, span) => DataType::parse(&s)
                .ok_or_else(|| Diagnostic::error(format!("unknown dtype `{s}`"), span)),
            Value::DType(dt, _) => Ok(dt),
            v => Err(Diagnostic::error(
                format!("expected a dtype string, found {}", v.describe()),
                v.span(),
            )),
        }
    }

    fn const_int_arg(&mut self, e: &ast::Expr) -> Result<i64> {
        match self.eval(e)? {
            Value::PyInt(v, _) => Ok(v),
            Value::Expr(x) if x.as_int().is_some() => Ok(x.as_int().unwrap_or(0)),
            v => Err(Diagnostic::error(
                format!("expected an integer constant, found {}", v.describe()),
                v.span(),
            )),
        }
    }

    // ----- statements ---------------------------------------------------------

    fn build_stmt_list(&mut self, stmts: &[&ast::Stmt]) -> Result<Stmt> {
        let mut out: Vec<Stmt> = Vec::new();
        let mut i = 0;
        while i < stmts.len() {
            match self.build_stmt(stmts[i])? {
                Built::Stmt(s) => out.push(s),
                Built::Nothing => {}
                Built::Alloc(buffer, span) => {
                    let body = self.with_scope(|b| {
                        b.define(&buffer.name, Binding::Buffer(buffer.clone()));
                        b.build_stmt_list(&stmts[i + 1..])
                    })?;
                    out.push(Stmt::new(StmtKind::Allocate { buffer, body }, span));
                    break;
                }
                Built::Let(var, value, span) => {
                    // The rest of the list is the let's body.
                    let body = self.with_scope(|b| {
                        b.define(var.name(), Binding::Var(var.clone()));
                        b.build_stmt_list(&stmts[i + 1..])
                    })?;
                    out.push(Stmt::new(StmtKind::Let { var, value, body }, span));
                    break;
                }
            }
            i += 1;
        }
        Ok(match out.len() {
            0 => Stmt::evaluate_zero(),
            1 => out.pop().unwrap_or_else(Stmt::evaluate_zero),
            _ => Stmt::seq(out),
        })
    }

    fn build_body(&mut self, stmts: &[ast::Stmt]) -> Result<Stmt> {
        let refs: Vec<&ast::Stmt> = stmts.iter().collect();
        self.with_scope(|b| b.build_stmt_list(&refs))
    }

    fn build_stmt(&mut self, stmt: &ast::Stmt) -> Result<Built> {
        match &stmt.kind {
            ast::StmtKind::For {
                target,
                iter,
                body,
                orelse,
            } => {
                if !orelse.is_empty() {
                    return Err(Diagnostic::error(
                        "`for … else` is not TVMScript",
                        stmt.span,
                    ));
                }
                self.build_for(stmt.span, target, iter, body)
                    .map(Built::Stmt)
            }
            ast::StmtKind::With { items, body } => self.build_with(stmt.span, items, body),
            ast::StmtKind::Assign { targets, value } => {
                let [target] = targets.as_slice() else {
                    return Err(Diagnostic::error(
                        "chained assignment is not TVMScript",
                        stmt.span,
                    ));
                };
                self.build_assign(stmt.span, target, value)
            }
            ast::StmtKind::AnnAssign {
                target,
                annotation,
                value,
            } => {
                let Some(value) = value else {
                    return Err(Diagnostic::error("a declaration needs a value", stmt.span));
                };
                let Some(name) = target.as_name() else {
                    return Err(Diagnostic::error("expected a name", target.span));
                };
                // `x: T.int32 = v`, and TVM 0.27's explicit `x: T.let[T.int32] = v`
                // / `x: T.let = v` (the type of `v`).
                let scalar = |ns: &Self, e: &ast::Expr| match dotted(e).as_deref() {
                    Some([t, d]) if ns.ns.is_tir(t) && *d != "let" => DataType::parse(d),
                    _ => None,
                };
                let is_let = |ns: &Self, e: &ast::Expr| matches!(dotted(e).as_deref(), Some([t, "let"]) if ns.ns.is_tir(t));
                let dtype = match &annotation.kind {
                    ast::ExprKind::Subscript { value: ann, index } if is_let(self, ann) => {
                        Some(scalar(self, index).ok_or_else(|| {
                            Diagnostic::error(
                                "expected a scalar type like `T.let[T.int32]`",
                                index.span,
                            )
                        })?)
                    }
                    _ if is_let(self, annotation) => None,
                    _ => Some(scalar(self, annotation).ok_or_else(|| {
                        Diagnostic::error("expected a scalar type like `T.int32`", annotation.span)
                    })?),
                };
                let v = self.eval(value)?;
                let value = match dtype {
                    Some(dt) => self.expr_as(v, dt)?,
                    None => self.expr_of(v)?,
                };
                let dtype = value.dtype();
                Ok(Built::Let(Var::new(name, dtype), value, stmt.span))
            }
            ast::StmtKind::AugAssign { target, op, value } => {
                let ast::ExprKind::Subscript { value: buf, index } = &target.kind else {
                    return Err(Diagnostic::error(
                        "only buffer elements can be updated in place",
                        target.span,
                    ));
                };
                let buffer = self.buffer_ref(buf)?;
                let indices = self.indices(&buffer, index)?;
                let old = Expr::new(
                    ExprKind::Load {
                        buffer: buffer.clone(),
                        indices: indices.clone(),
                    },
                    buffer.dtype,
                    target.span,
                );
                let rhs = self.eval(value)?;
                let new = self.binary(*op, Value::Expr(old), rhs, stmt.span)?;
                let new = self.expr_as(new, buffer.dtype)?;
                Ok(Built::Stmt(Stmt::new(
                    StmtKind::Store {
                        buffer,
                        value: new,
                        indices,
                    },
                    stmt.span,
                )))
            }
            ast::StmtKind::If { test, body, orelse } => {
                let cond = self.eval(test)?;
                let cond = self.bool_expr(cond)?;
                let then = self.build_body(body)?;
                let otherwise = if orelse.is_empty() {
                    None
                } else {
                    Some(self.build_body(orelse)?)
                };
                Ok(Built::Stmt(Stmt::new(
                    StmtKind::If {
                        cond,
                        then,
                        otherwise,
                    },
                    stmt.span,
                )))
            }
            ast::StmtKind::Expr(e) => self.build_expr_stmt(stmt.span, e),
            ast::StmtKind::Pass => Ok(Built::Nothing),
            ast::StmtKind::Assert { .. } => Err(Diagnostic::error(
                "`assert` is not supported in TVMScript yet",
                stmt.span,
            )),
            ast::StmtKind::Return(_) => Err(Diagnostic::error(
                "a prim_func returns nothing; write results into an output buffer",
                stmt.span,
            )),
            _ => Err(Diagnostic::error(
                "this statement is not TVMScript",
                stmt.span,
            )),
        }
    }

    fn build_expr_stmt(&mut self, span: Span, e: &ast::Expr) -> Result<Built> {
        if matches!(e.kind, ast::ExprKind::Str(_)) {
            return Ok(Built::Nothing);
        }
        let Some((path, args)) = self.tir_call(e) else {
            return Err(Diagnostic::error(
                "this expression statement is not TVMScript",
                span,
            ));
        };
        match path.as_str() {
            "reads" | "writes" => {
                let regions = self.regions(args)?;
                let frame = self.block_frame(span, &path)?;
                let slot = if path == "reads" {
                    &mut frame.reads
                } else {
                    &mut frame.writes
                };
                if slot.is_some() {
                    return Err(Diagnostic::error(format!("`T.{path}` given twice"), span));
                }
                *slot = Some(regions);
                Ok(Built::Nothing)
            }
            "where" => {
                let [arg] = args else {
                    return Err(Diagnostic::error("`T.where` takes one condition", span));
                };
                let cond = self.eval(positional(arg)?)?;
                let cond = self.bool_expr(cond)?;
                let frame = self.block_frame(span, "where")?;
                frame.predicate = Some(cond);
                Ok(Built::Nothing)
            }
            "block_attr" | "sblock_attr" => {
                let [arg] = args else {
                    return Err(Diagnostic::error("`T.block_attr` takes one dict", span));
                };
                let AttrValue::Map(map) = self.attr_value(positional(arg)?)? else {
                    return Err(Diagnostic::error("`T.block_attr` takes a dict", arg.span()));
                };
                let frame = self.block_frame(span, "block_attr")?;
                frame.annotations.extend(map);
                Ok(Built::Nothing)
            }
            "func_attr" => Err(Diagnostic::error(
                "`T.func_attr` must come first in the function body",
                span,
            )),
            "evaluate" => {
                let [arg] = args else {
                    return Err(Diagnostic::error("`T.evaluate` takes one expression", span));
                };
                let v = self.eval(positional(arg)?)?;
                let v = self.expr_of(v)?;
                Ok(Built::Stmt(Stmt::new(StmtKind::Evaluate(v), span)))
            }
            _ => {
                // Any other expression (e.g. an intrinsic call) as a statement.
                let v = self.eval(e)?;
                let v = self.expr_of(v)?;
                Ok(Built::Stmt(Stmt::new(StmtKind::Evaluate(v), span)))
            }
        }
    }

    fn block_frame(&mut self, span: Span, what: &str) -> Result<&mut BlockFrame> {
        if self.frames.len() < 2 {
            return Err(Diagnostic::error(
                format!("`T.{what}` is only allowed inside a block"),
                span,
            ));
        }
        Ok(self.frames.last_mut().expect("length checked"))
    }

    fn build_assign(&mut self, span: Span, target: &ast::Expr, value: &ast::Expr) -> Result<Built> {
        // Buffer element store: `C[vi, vj] = …`.
        if let ast::ExprKind::Subscript { value: buf, index } = &target.kind {
            let buffer = self.buffer_ref(buf)?;
            let indices = self.indices(&buffer, index)?;
            let v = self.eval(value)?;
            let v = self.expr_as(v, buffer.dtype)?;
            return Ok(Built::Stmt(Stmt::new(
                StmtKind::Store {
                    buffer,
                    value: v,
                    indices,
                },
                span,
            )));
        }
        if let Some((path, args)) = self.tir_call(value) {
            match path.as_str() {
                "axis.remap" => return self.axis_remap(span, target, args, value.span),
                p if p.starts_with("axis.") => {
                    let kind = match &p[5..] {
                        "spatial" | "S" => IterKind::Spatial,
                        "reduce" | "R" => IterKind::Reduce,
                        "scan" => IterKind::Scan,
                        "opaque" => IterKind::Opaque,
                        other => {
                            return Err(Diagnostic::error(
                                format!("unknown axis kind `T.axis.{other}`"),
                                value.span,
                            ))
                        }
                    };
                    return self.axis_decl(span, target, kind, args, value.span);
                }
                "alloc_buffer" | "sblock_alloc_buffer" => {
                    let Some(name) = target.as_name() else {
                        return Err(Diagnostic::error("expected a name", target.span));
                    };
                    let spec = self.buffer_spec(args, value.span)?;
                    let buffer = self.make_buffer(name, spec, value.span)?;
                    // TVM 0.27 spells block allocations `T.sblock_alloc_buffer`;
                    // its plain `T.alloc_buffer` is a statement. The older
                    // dialects attach both to the enclosing block.
                    if self.dialect.tirx && path == "alloc_buffer" {
                        return Ok(Built::Alloc(buffer, span));
                    }
                    match self.frames.last_mut() {
                        Some(frame) => frame.alloc_buffers.push(buffer.clone()),
                        None => {
                            return Err(Diagnostic::error("allocation outside a function", span))
                        }
                    }
                    self.define(name, Binding::Buffer(buffer));
                    return Ok(Built::Nothing);
                }
                "match_buffer" => {
                    let Some(name) = target.as_name() else {
                        return Err(Diagnostic::error("expected a name", target.span));
                    };
                    let Some(first) = args.first() else {
                        return Err(Diagnostic::error(
                            "`T.match_buffer` needs a source region",
                            value.span,
                        ));
                    };
                    let source = self.region(positional(first)?)?;
                    let spec = self.buffer_spec(&args[1..], value.span)?;
                    let buffer = self.make_buffer(name, spec, value.span)?;
                    let frame = self.block_frame(span, "match_buffer")?;
                    frame.match_buffers.push(MatchBufferRegion {
                        buffer: buffer.clone(),
                        source,
                    });
                    self.define(name, Binding::Buffer(buffer));
                    return Ok(Built::Nothing);
                }
                _ => {}
            }
        }
        // `k = T.int32()` inside a body declares a size variable there.
        if self.is_size_var_decl(value) {
            let Some(name) = target.as_name() else {
                return Err(Diagnostic::error("expected a name", target.span));
            };
            let dtype = self.size_var_dtype(value)?;
            self.define(name, Binding::Var(Var::new(name, dtype)));
            return Ok(Built::Nothing);
        }
        // `x = expr`: a let binding over the rest of the body.
        let Some(name) = target.as_name() else {
            return Err(Diagnostic::error(
                "expected a name on the left of `=`",
                target.span,
            ));
        };
        let v = self.eval(value)?;
        let e = self.expr_of(v)?;
        Ok(Built::Let(Var::new(name, e.dtype()), e, span))
    }

    fn axis_decl(
        &mut self,
        span: Span,
        target: &ast::Expr,
        kind: IterKind,
        args: &[ast::Arg],
        call_span: Span,
    ) -> Result<Built> {
        let Some(name) = target.as_name() else {
            return Err(Diagnostic::error("expected one name", target.span));
        };
        let mut dom_arg = None;
        let mut binding_arg = None;
        let mut dtype_arg = None;
        for (i, a) in args.iter().enumerate() {
            match a {
                ast::Arg::Positional(e) if i == 0 => dom_arg = Some(e),
                ast::Arg::Positional(e) if i == 1 => binding_arg = Some(e),
                ast::Arg::Keyword(k) if k.name == "dom" => dom_arg = Some(&k.value),
                ast::Arg::Keyword(k) if k.name == "binding" => binding_arg = Some(&k.value),
                ast::Arg::Keyword(k) if k.name == "dtype" => dtype_arg = Some(&k.value),
                other => return Err(Diagnostic::error("unexpected argument", other.span())),
            }
        }
        let (Some(dom_arg), Some(binding_arg)) = (dom_arg, binding_arg) else {
            return Err(Diagnostic::error(
                format!("`T.axis.{}` takes a domain and a binding", kind.axis_name()),
                call_span,
            ));
        };
        let binding = self.eval(binding_arg)?;
        let mut binding = self.index_expr(binding)?;
        if let Some(d) = dtype_arg {
            let dt = self.dtype_arg(d)?;
            binding = Expr::cast(dt, binding);
        }
        let dom = self.eval(dom_arg)?;
        let dom = self.domain(dom, binding.dtype())?;
        self.push_iter(span, name, kind, dom, binding)
    }

    fn domain(&mut self, dom: Value, dtype: DataType) -> Result<Range> {
        Ok(match dom {
            Value::Tuple(items, span) => {
                let [lo, hi] = <[Value; 2]>::try_from(items)
                    .map_err(|_| Diagnostic::error("a domain tuple is `(begin, end)`", span))?;
                let lo = self.expr_as(lo, dtype)?;
                let hi = self.expr_as(hi, dtype)?;
                let extent = Analyzer::new().simplify(&Expr::binary(BinOp::Sub, hi, lo.clone()));
                Range::new(lo, extent)
            }
            v => Range::from_extent(self.expr_as(v, dtype)?),
        })
    }

    fn push_iter(
        &mut self,
        span: Span,
        name: &str,
        kind: IterKind,
        dom: Range,
        binding: Expr,
    ) -> Result<Built> {
        let var = Var::new(name, binding.dtype());
        let frame = self.block_frame(span, "axis")?;
        frame.iter_vars.push(IterVar {
            var: var.clone(),
            dom,
            kind,
        });
        frame.iter_values.push(binding);
        self.define(name, Binding::Var(var));
        Ok(Built::Nothing)
    }

    fn axis_remap(
        &mut self,
        span: Span,
        target: &ast::Expr,
        args: &[ast::Arg],
        call_span: Span,
    ) -> Result<Built> {
        let [kinds_arg, vars_arg] = args else {
            return Err(Diagnostic::error(
                "`T.axis.remap` takes a kind string and a list of loop variables",
                call_span,
            ));
        };
        let kinds = match self.eval(positional(kinds_arg)?)? {
            Value::Str(s, _) => s,
            v => {
                return Err(Diagnostic::error(
                    "expected a string like \"SSR\"",
                    v.span(),
                ))
            }
        };
        let vars_expr = positional(vars_arg)?;
        let bindings: Vec<&ast::Expr> = match &vars_expr.kind {
            ast::ExprKind::List(items) | ast::ExprKind::Tuple(items) => items.iter().collect(),
            _ => {
                return Err(Diagnostic::error(
                    "expected a list of loop variables",
                    vars_expr.span,
                ))
            }
        };
        let targets: Vec<&ast::Expr> = match &target.kind {
            ast::ExprKind::Tuple(items) => items.iter().collect(),
            _ => vec![target],
        };
        if kinds.chars().count() != bindings.len() || targets.len() != bindings.len() {
            return Err(Diagnostic::error(
                format!(
                    "`T.axis.remap` got {} kinds, {} loop variables and {} names; they must agree",
                    kinds.chars().count(),
                    bindings.len(),
                    targets.len()
                ),
                span,
            ));
        }
        for ((kind_char, t), b) in kinds.chars().zip(targets).zip(bindings) {
            let kind = match kind_char {
                'S' => IterKind::Spatial,
                'R' => IterKind::Reduce,
                other => {
                    return Err(Diagnostic::error(
                        format!("unknown iterator kind `{other}`: use `S` or `R`"),
                        positional(kinds_arg)?.span,
                    ))
                }
            };
            let Some(name) = t.as_name() else {
                return Err(Diagnostic::error("expected a name", t.span));
            };
            let loop_var = match b.as_name().and_then(|n| self.lookup(n)) {
                Some(Binding::Var(v)) => v.clone(),
                _ => {
                    return Err(Diagnostic::error(
                        "`T.axis.remap` takes loop variables",
                        b.span,
                    ))
                }
            };
            let Some(range) = self.loop_ranges.get(&loop_var.id()).cloned() else {
                return Err(Diagnostic::error(
                    format!("`{}` is not a loop variable", loop_var.name()),
                    b.span,
                ));
            };
            let binding = Expr::new(ExprKind::Var(loop_var.clone()), loop_var.dtype(), b.span);
            self.push_iter(span, name, kind, range, binding)?;
        }
        Ok(Built::Nothing)
    }

    fn build_for(
        &mut self,
        span: Span,
        target: &ast::Expr,
        iter: &ast::Expr,
        body: &[ast::Stmt],
    ) -> Result<Stmt> {
        let names: Vec<&ast::Expr> = match &target.kind {
            ast::ExprKind::Tuple(items) => items.iter().collect(),
            _ => vec![target],
        };
        let ast::ExprKind::Call { func, args } = &iter.kind else {
            return Err(Diagnostic::error(
                "expected `range(…)`, `T.grid(…)` or a `T.serial`-style loop",
                iter.span,
            ));
        };
        let func_path = dotted(func).unwrap_or_default();
        // Each loop: (extent-or-range values, kind, thread tag, annotations).
        let mut loops: Vec<(Range, ForKind, Option<String>, Annotations)> = Vec::new();
        let kind_name: &str = match func_path.as_slice() {
            ["range"] => "serial",
            [t, k] if self.ns.is_tir(t) => k,
            _ => {
                return Err(Diagnostic::error(
                    "expected `range(…)`, `T.grid(…)` or a `T.serial`-style loop",
                    func.span,
                ))
            }
        };
        let mut positional_args: Vec<&ast::Expr> = Vec::new();
        let mut thread: Option<String> = None;
        let mut annotations = Annotations::new();
        for a in args {
            match a {
                ast::Arg::Positional(e) => positional_args.push(e),
                ast::Arg::Keyword(k) if k.name == "thread" => match self.eval(&k.value)? {
                    Value::Str(s, _) => thread = Some(s),
                    v => {
                        return Err(Diagnostic::error(
                            "`thread` must be a string like \"threadIdx.x\"",
                            v.span(),
                        ))
                    }
                },
                ast::Arg::Keyword(k) if k.name == "annotations" => {
                    match self.attr_value(&k.value)? {
                        AttrValue::Map(m) => annotations = m,
                        _ => {
                            return Err(Diagnostic::error(
                                "`annotations` must be a dict",
                                k.value.span,
                            ))
                        }
                    }
                }
                other => return Err(Diagnostic::error("unexpected argument", other.span())),
            }
        }
        match kind_name {
            "grid" => {
                for e in &positional_args {
                    let v = self.eval(e)?;
                    let extent = self.index_expr(v)?;
                    loops.push((
                        Range::from_extent(extent),
                        ForKind::Serial,
                        None,
                        Annotations::new(),
                    ));
                }
            }
            "serial" | "parallel" | "vectorized" | "unroll" | "thread_binding" => {
                let kind = match kind_name {
                    "serial" => ForKind::Serial,
                    "parallel" => ForKind::Parallel,
                    "vectorized" => ForKind::Vectorized,
                    "unroll" => ForKind::Unrolled,
                    _ => ForKind::ThreadBinding,
                };
                let mut values = Vec::new();
                for e in &positional_args {
                    match self.eval(e)? {
                        // `T.thread_binding(0, 8, "threadIdx.x")`
                        Value::Str(s, _) if kind == ForKind::ThreadBinding => thread = Some(s),
                        v => values.push(v),
                    }
                }
                let range = match values.len() {
                    1 => Range::from_extent(self.index_expr(values.remove(0))?),
                    2 => {
                        let hi = values.pop().expect("two values");
                        let lo = values.pop().expect("two values");
                        let (lo, hi) = self.unify_pair(lo, hi)?;
                        let extent =
                            Analyzer::new().simplify(&Expr::binary(BinOp::Sub, hi, lo.clone()));
                        Range::new(lo, extent)
                    }
                    _ => {
                        return Err(Diagnostic::error(
                            "expected `(extent)` or `(begin, end)`",
                            iter.span,
                        ))
                    }
                };
                if kind == ForKind::ThreadBinding && thread.is_none() {
                    return Err(Diagnostic::error(
                        "`T.thread_binding` needs `thread=\"…\"`",
                        iter.span,
                    ));
                }
                loops.push((range, kind, thread.clone(), annotations.clone()));
            }
            other => {
                return Err(Diagnostic::error(
                    format!("unknown loop kind `T.{other}`"),
                    func.span,
                ))
            }
        }
        if loops.len() != names.len() {
            return Err(Diagnostic::error(
                format!("{} loop variables for {} loops", names.len(), loops.len()),
                target.span,
            ));
        }
        self.with_scope(|b| {
            let mut vars = Vec::new();
            for (name_expr, (range, ..)) in names.iter().zip(&loops) {
                let Some(name) = name_expr.as_name() else {
                    return Err(Diagnostic::error(
                        "expected a loop variable name",
                        name_expr.span,
                    ));
                };
                let var = Var::new(name, range.extent.dtype());
                b.define(name, Binding::Var(var.clone()));
                b.loop_ranges.insert(var.id(), range.clone());
                vars.push(var);
            }
            let mut stmt = b.build_body(body)?;
            for (var, (range, kind, thread_tag, annotations)) in vars.into_iter().zip(loops).rev() {
                stmt = Stmt::new(
                    StmtKind::For(For {
                        loop_var: var,
                        min: range.min,
                        extent: range.extent,
                        kind,
                        thread_tag,
                        annotations,
                        body: stmt,
                    }),
                    span,
                );
            }
            Ok(stmt)
        })
    }

    fn build_with(
        &mut self,
        span: Span,
        items: &[ast::WithItem],
        body: &[ast::Stmt],
    ) -> Result<Built> {
        let [item] = items else {
            return Err(Diagnostic::error("expected a single `with` item", span));
        };
        if item.vars.is_some() {
            return Err(Diagnostic::error(
                "`with … as` is not used in TVMScript blocks",
                item.span,
            ));
        }
        let Some((path, args)) = self.tir_call(&item.context) else {
            return Err(Diagnostic::error(
                "expected `with T.block(…)` or `with T.init()`",
                item.context.span,
            ));
        };
        match path.as_str() {
            "block" | "sblock" => {
                self.dialect.sblock |= path == "sblock";
                self.uses_blocks = true;
                let name = match args.first() {
                    None => String::new(),
                    Some(a) => match self.eval(positional(a)?)? {
                        Value::Str(s, _) => s,
                        v => return Err(Diagnostic::error("a block name is a string", v.span())),
                    },
                };
                self.build_block(span, name, body).map(Built::Stmt)
            }
            "init" => {
                if self.frames.len() < 2 {
                    return Err(Diagnostic::error(
                        "`T.init()` is only allowed inside a block",
                        item.context.span,
                    ));
                }
                let init = self.build_body(body)?;
                let frame = self.frames.last_mut().expect("length checked");
                if frame.init.is_some() {
                    return Err(Diagnostic::error(
                        "a block has one `T.init()`",
                        item.context.span,
                    ));
                }
                frame.init = Some(init);
                Ok(Built::Nothing)
            }
            other => Err(Diagnostic::error(
                format!("unsupported `with T.{other}(…)`"),
                item.context.span,
            )),
        }
    }

    fn build_block(&mut self, span: Span, name: String, body: &[ast::Stmt]) -> Result<Stmt> {
        self.frames.push(BlockFrame::default());
        let built = self.build_body(body);
        let frame = self.frames.pop().unwrap_or_default();
        let body = built?;
        let mut block = Block {
            name,
            iter_vars: frame.iter_vars,
            reads: vec![],
            writes: vec![],
            alloc_buffers: frame.alloc_buffers,
            match_buffers: frame.match_buffers,
            annotations: frame.annotations,
            init: frame.init,
            body,
            span,
        };
        if frame.reads.is_none() || frame.writes.is_none() {
            let (reads, writes) = infer_access_regions(&block);
            block.reads = reads;
            block.writes = writes;
        }
        if let Some(r) = frame.reads {
            block.reads = r;
        }
        if let Some(w) = frame.writes {
            block.writes = w;
        }
        let predicate = frame.predicate.unwrap_or_else(|| Expr::bool(true));
        Ok(Stmt::new(
            StmtKind::BlockRealize(BlockRealize {
                iter_values: frame.iter_values,
                predicate,
                block,
            }),
            span,
        ))
    }

    // ----- regions ------------------------------------------------------------

    fn regions(&mut self, args: &[ast::Arg]) -> Result<Vec<BufferRegion>> {
        let mut out = Vec::new();
        for a in args {
            let e = positional(a)?;
            match &e.kind {
                ast::ExprKind::List(items) | ast::ExprKind::Tuple(items) => {
                    for item in items {
                        out.push(self.region(item)?);
                    }
                }
                _ => out.push(self.region(e)?),
            }
        }
        Ok(out)
    }

    /// `A[vi, 0:128]` or a bare buffer `A` (the whole buffer).
    fn region(&mut self, e: &ast::Expr) -> Result<BufferRegion> {
        match &e.kind {
            ast::ExprKind::Subscript { value, index } => {
                let buffer = self.buffer_ref(value)?;
                let items: Vec<&ast::Expr> = match &index.kind {
                    ast::ExprKind::Tuple(items) => items.iter().collect(),
                    _ => vec![index],
                };
                if items.len() != buffer.ndim() {
                    return Err(Diagnostic::error(
                        format!(
                            "buffer `{}` has {} dimensions but the region gives {}",
                            buffer.name,
                            buffer.ndim(),
                            items.len()
                        ),
                        index.span,
                    ));
                }
                let mut region = Vec::new();
                for (dim, item) in items.into_iter().enumerate() {
                    match &item.kind {
                        ast::ExprKind::Slice { lower, upper, step } => {
                            if step.is_some() {
                                return Err(Diagnostic::error(
                                    "a region slice has no step",
                                    item.span,
                                ));
                            }
                            let dtype = buffer
                                .shape
                                .get(dim)
                                .map(|s| s.dtype())
                                .unwrap_or(DataType::i32());
                            let lo = match lower {
                                Some(l) => self.eval(l)?,
                                None => Value::PyInt(0, item.span),
                            };
                            let hi = match upper {
                                Some(u) => self.eval(u)?,
                                None => Value::Expr(buffer.shape[dim].clone()),
                            };
                            let (lo, hi) = self.unify_pair_default(lo, hi, dtype)?;
                            let extent =
                                Analyzer::new().simplify(&Expr::binary(BinOp::Sub, hi, lo.clone()));
                            region.push(Range::new(lo, extent));
                        }
                        _ => {
                            let v = self.eval(item)?;
                            region.push(Range::point(self.index_expr(v)?));
                        }
                    }
                }
                Ok(BufferRegion { buffer, region })
            }
            _ => {
                let buffer = self.buffer_ref(e)?;
                let region = buffer.full_region();
                Ok(BufferRegion { buffer, region })
            }
        }
    }

    fn buffer_ref(&mut self, e: &ast::Expr) -> Result<Buffer> {
        let Some(name) = e.as_name() else {
            return Err(Diagnostic::error("expected a buffer name", e.span));
        };
        match self.lookup(name) {
            Some(Binding::Buffer(b)) => Ok(b.clone()),
            Some(Binding::Var(_)) => Err(Diagnostic::error(
                format!("`{name}` is a variable, not a buffer"),
                e.span,
            )),
            None => Err(Diagnostic::error(
                format!("undefined buffer `{name}`"),
                e.span,
            )),
        }
    }

    fn indices(&mut self, buffer: &Buffer, index: &ast::Expr) -> Result<Vec<Expr>> {
        let items: Vec<&ast::Expr> = match &index.kind {
            ast::ExprKind::Tuple(items) => items.iter().collect(),
            _ => vec![index],
        };
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            if let ast::ExprKind::Slice { lower, upper, step } = &item.kind {
                // `A[i:i + 4]` as an index: a vector access (a `T.Ramp`).
                out.push(self.slice_ramp(
                    lower.as_deref(),
                    upper.as_deref(),
                    step.as_deref(),
                    item.span,
                )?);
                continue;
            }
            let v = self.eval(item)?;
            out.push(self.index_expr(v)?);
        }
        // Rank is checked by the verifier, which reports it with both spans.
        let _ = buffer;
        Ok(out)
    }

    /// A constant-length slice used as an element index, as a ramp.
    fn slice_ramp(
        &mut self,
        lower: Option<&ast::Expr>,
        upper: Option<&ast::Expr>,
        step: Option<&ast::Expr>,
        span: Span,
    ) -> Result<Expr> {
        let (Some(lower), Some(upper)) = (lower, upper) else {
            return Err(Diagnostic::error(
                "a vector index needs both bounds, like `A[i:i + 4]`",
                span,
            ));
        };
        let lo = self.eval(lower)?;
        let hi = self.eval(upper)?;
        let (lo, hi) = self.unify_pair(lo, hi)?;
        let stride = match step {
            Some(st) => {
                let v = self.eval(st)?;
                self.expr_as(v, lo.dtype())?
            }
            None => Expr::int(1, lo.dtype()),
        };
        let len = Analyzer::new().simplify(&Expr::binary(BinOp::Sub, hi, lo.clone()));
        let (Some(len), Some(st)) = (len.as_int(), stride.as_int()) else {
            return Err(Diagnostic::error(
                "a vector index needs a constant length and step",
                span,
            ));
        };
        if st <= 0 || len <= 0 {
            return Err(Diagnostic::error(
                "a vector index needs a positive length and step",
                span,
            ));
        }
        let lanes = (len + st - 1) / st;
        let lanes = u16::try_from(lanes).map_err(|_| Diagnostic::error("too many lanes", span))?;
        let dt = lo.dtype().with_lanes(lanes);
        Ok(Expr::new(ExprKind::Ramp { base: lo, stride }, dt, span))
    }

    // ----- expressions --------------------------------------------------------

    /// `T.<path>(args)` calls, with the path after the `T.` alias.
    fn tir_call<'e>(&self, e: &'e ast::Expr) -> Option<(String, &'e [ast::Arg])> {
        let ast::ExprKind::Call { func, args } = &e.kind else {
            return None;
        };
        let path = dotted(func)?;
        let (first, rest) = path.split_first()?;
        if !self.ns.is_tir(first) || rest.is_empty() {
            return None;
        }
        Some((rest.join("."), args))
    }

    fn is_tir_attr(&self, e: &ast::Expr, attr: &str) -> bool {
        matches!(dotted(e).as_deref(), Some([t, a]) if self.ns.is_tir(t) && *a == attr)
    }

    fn eval(&mut self, e: &ast::Expr) -> Result<Value> {
        let span = e.span;
        Ok(match &e.kind {
            ast::ExprKind::Int(v) => Value::PyInt(*v, span),
            ast::ExprKind::Float(v) => Value::PyFloat(*v, span),
            ast::ExprKind::Bool(v) => Value::PyBool(*v, span),
            ast::ExprKind::Str(s) => Value::Str(s.clone(), span),
            ast::ExprKind::NoneLit => Value::None(span),
            ast::ExprKind::Name(n) => match self.lookup(n) {
                Some(Binding::Var(v)) => {
                    Value::Expr(Expr::new(ExprKind::Var(v.clone()), v.dtype(), span))
                }
                Some(Binding::Buffer(b)) => Value::Buffer(b.clone(), span),
                None => match self.ns.consts.get(n) {
                    Some(c) => const_value(c, span),
                    None => return Err(Diagnostic::error(format!("undefined name `{n}`"), span)),
                },
            },
            ast::ExprKind::Tuple(items) | ast::ExprKind::List(items) => Value::Tuple(
                items.iter().map(|i| self.eval(i)).collect::<Result<_>>()?,
                span,
            ),
            ast::ExprKind::BinOp { left, op, right } => {
                let l = self.eval(left)?;
                let r = self.eval(right)?;
                self.binary(*op, l, r, span)?
            }
            ast::ExprKind::UnaryOp { op, operand } => {
                let v = self.eval(operand)?;
                match (op, v) {
                    (ast::UnaryOp::Neg, Value::PyInt(x, _)) => Value::PyInt(x.wrapping_neg(), span),
                    (ast::UnaryOp::Neg, Value::PyFloat(x, _)) => Value::PyFloat(-x, span),
                    (ast::UnaryOp::Pos, v) => v,
                    (ast::UnaryOp::Neg, v) => {
                        let x = self.expr_of(v)?;
                        let zero = zero_of(x.dtype());
                        Value::Expr(spanned(Expr::binary(BinOp::Sub, zero, x), span))
                    }
                    (ast::UnaryOp::Not, Value::PyBool(b, _)) => Value::PyBool(!b, span),
                    (ast::UnaryOp::Not, v) => {
                        let x = self.bool_expr(v)?;
                        Value::Expr(spanned(Expr::logical_not(x), span))
                    }
                    (ast::UnaryOp::Invert, _) => {
                        return Err(Diagnostic::error("`~` is not supported", span))
                    }
                }
            }
            ast::ExprKind::BoolOp { op, values } => {
                let mut acc: Option<Expr> = None;
                for v in values {
                    let x = self.eval(v)?;
                    let x = self.bool_expr(x)?;
                    acc = Some(match acc {
                        None => x,
                        Some(a) => spanned(
                            match op {
                                ast::BoolOp::And => Expr::and(a, x),
                                ast::BoolOp::Or => Expr::or(a, x),
                            },
                            span,
                        ),
                    });
                }
                Value::Expr(acc.ok_or_else(|| Diagnostic::error("empty boolean expression", span))?)
            }
            ast::ExprKind::Compare {
                left,
                ops,
                comparators,
            } => {
                let mut lhs = self.eval(left)?;
                let mut acc: Option<Expr> = None;
                for (op, c) in ops.iter().zip(comparators) {
                    let rhs = self.eval(c)?;
                    let cmp = match op {
                        ast::CmpOp::Eq => CmpOp::Eq,
                        ast::CmpOp::NotEq => CmpOp::Ne,
                        ast::CmpOp::Lt => CmpOp::Lt,
                        ast::CmpOp::LtE => CmpOp::Le,
                        ast::CmpOp::Gt => CmpOp::Gt,
                        ast::CmpOp::GtE => CmpOp::Ge,
                        _ => {
                            return Err(Diagnostic::error("this comparison is not TVMScript", span))
                        }
                    };
                    let (a, b) = self.unify_pair(lhs, rhs.clone())?;
                    let e = spanned(Expr::cmp(cmp, a, b), span);
                    acc = Some(match acc {
                        None => e,
                        Some(prev) => spanned(Expr::and(prev, e), span),
                    });
                    lhs = rhs;
                }
                Value::Expr(acc.ok_or_else(|| Diagnostic::error("empty comparison", span))?)
            }
            ast::ExprKind::Subscript { value, index } => {
                let base = self.eval(value)?;
                match base {
                    Value::Buffer(buffer, _) => {
                        let indices = self.indices(&buffer, index)?;
                        // A vector index (`T.Ramp`, a slice) makes a vector load.
                        let lanes = indices.iter().map(|i| i.dtype().lanes).max().unwrap_or(1);
                        Value::Expr(Expr::new(
                            ExprKind::Load {
                                buffer: buffer.clone(),
                                indices,
                            },
                            buffer.dtype.with_lanes(lanes),
                            span,
                        ))
                    }
                    Value::Tuple(items, _) => {
                        let i = match self.eval(index)? {
                            Value::PyInt(i, _) => i,
                            v => {
                                return Err(Diagnostic::error(
                                    "a tuple index is an integer",
                                    v.span(),
                                ))
                            }
                        };
                        let n = items.len() as i64;
                        let k = if i < 0 { i + n } else { i };
                        if k < 0 || k >= n {
                            return Err(Diagnostic::error(
                                format!("index {i} is out of range for {n} items"),
                                index.span,
                            ));
                        }
                        items[k as usize].clone()
                    }
                    other => {
                        return Err(Diagnostic::error(
                            format!("cannot index {}", other.describe()),
                            other.span(),
                        ))
                    }
                }
            }
            ast::ExprKind::Slice { .. } => {
                return Err(Diagnostic::error(
                    "a slice is only allowed in a region like `A[0:128]`",
                    span,
                ))
            }
            ast::ExprKind::Attribute { value, attr, .. }
                if matches!(self.eval_quiet(value), Some(Value::Buffer(..))) =>
            {
                let Some(Value::Buffer(b, _)) = self.eval_quiet(value) else {
                    return Err(Diagnostic::error("expected a buffer", value.span));
                };
                match attr.as_str() {
                    "data" => Value::Expr(Expr::new(
                        ExprKind::Var(b.data.clone()),
                        DataType::handle(),
                        span,
                    )),
                    "elem_offset" => Value::Expr(b.elem_offset.with_span(span)),
                    "strides" => Value::Tuple(
                        b.strides.iter().map(|x| Value::Expr(x.clone())).collect(),
                        span,
                    ),
                    "shape" => Value::Tuple(
                        b.shape.iter().map(|x| Value::Expr(x.clone())).collect(),
                        span,
                    ),
                    "dtype" => Value::Str(b.dtype.to_string(), span),
                    other => {
                        return Err(Diagnostic::error(
                            format!("buffers have no attribute `{other}`"),
                            span,
                        ))
                    }
                }
            }
            ast::ExprKind::Attribute { .. } => {
                let path = dotted(e).unwrap_or_default();
                match path.as_slice() {
                    [t, name] if self.ns.is_tir(t) => match DataType::parse(name) {
                        Some(dt) => Value::DType(dt, span),
                        None => {
                            return Err(Diagnostic::error(format!("unknown name `T.{name}`"), span))
                        }
                    },
                    _ => return Err(Diagnostic::error("unsupported attribute access", span)),
                }
            }
            ast::ExprKind::Call { .. } => self.eval_call(e)?,
            ast::ExprKind::IfExp { .. } => {
                return Err(Diagnostic::error(
                    "use `T.if_then_else(cond, a, b)` or `T.Select` instead of `a if c else b`",
                    span,
                ))
            }
            _ => return Err(Diagnostic::error("this expression is not TVMScript", span)),
        })
    }

    fn eval_call(&mut self, e: &ast::Expr) -> Result<Value> {
        let span = e.span;
        if let Some(v) = self.buffer_method(e)? {
            return Ok(v);
        }
        let Some((path, args)) = self.tir_call(e) else {
            let ast::ExprKind::Call { func, .. } = &e.kind else {
                return Err(Diagnostic::error("expected a call", span));
            };
            return Err(Diagnostic::error(
                "only `T.*` functions can be called in TVMScript",
                func.span,
            ));
        };
        let mut vals = Vec::new();
        let mut kwargs: Vec<(&str, &ast::Expr)> = Vec::new();
        for a in args {
            match a {
                ast::Arg::Positional(x) => vals.push(self.eval(x)?),
                ast::Arg::Keyword(k) => kwargs.push((k.name.as_str(), &k.value)),
                other => return Err(Diagnostic::error("unsupported argument form", other.span())),
            }
        }
        let nargs = vals.len();
        let want = |n: usize| -> Result<()> {
            if nargs == n {
                Ok(())
            } else {
                Err(Diagnostic::error(
                    format!("`T.{path}` takes {n} argument(s), got {nargs}"),
                    span,
                ))
            }
        };
        // `T.float32(0)`, `T.int64(5)`, `T.bool(True)`: typed constants and casts.
        if let Some(dt) = DataType::parse(&path) {
            if nargs == 0 {
                return Err(Diagnostic::error(
                    format!("`T.{path}()` declares a size variable; it is only allowed at the top of a function"),
                    span,
                ));
            }
            want(1)?;
            let v = vals.pop().expect("one argument");
            return Ok(Value::Expr(spanned(self.cast_value(v, dt)?, span)));
        }
        Ok(Value::Expr(spanned(
            match path.as_str() {
                "Add" | "Sub" | "Mul" | "Min" | "Max" => {
                    // Explicit operator forms, printed where a literal
                    // expression would otherwise fold on re-parse.
                    want(2)?;
                    let b = vals.pop().expect("two");
                    let a = vals.pop().expect("two");
                    let (a, b) = self.unify_pair(a, b)?;
                    let op = match path.as_str() {
                        "Add" => BinOp::Add,
                        "Sub" => BinOp::Sub,
                        "Mul" => BinOp::Mul,
                        "Min" => BinOp::Min,
                        _ => BinOp::Max,
                    };
                    Expr::binary(op, a, b)
                }
                "EQ" | "NE" | "LT" | "LE" | "GT" | "GE" => {
                    want(2)?;
                    let b = vals.pop().expect("two");
                    let a = vals.pop().expect("two");
                    let (a, b) = self.unify_pair(a, b)?;
                    let op = match path.as_str() {
                        "EQ" => CmpOp::Eq,
                        "NE" => CmpOp::Ne,
                        "LT" => CmpOp::Lt,
                        "LE" => CmpOp::Le,
                        "GT" => CmpOp::Gt,
                        _ => CmpOp::Ge,
                    };
                    Expr::cmp(op, a, b)
                }
                "Ramp" => {
                    want(3)?;
                    let lanes = vals.pop().expect("three");
                    let stride = vals.pop().expect("three");
                    let base = vals.pop().expect("three");
                    let Value::PyInt(lanes, lspan) = lanes else {
                        return Err(Diagnostic::error(
                            "`T.Ramp` lanes must be an integer",
                            lanes.span(),
                        ));
                    };
                    let lanes = u16::try_from(lanes)
                        .ok()
                        .filter(|l| *l >= 1)
                        .ok_or_else(|| {
                            Diagnostic::error("lanes must be between 1 and 65535", lspan)
                        })?;
                    let (base, stride) = self.unify_pair(base, stride)?;
                    let dt = base.dtype().with_lanes(lanes);
                    Expr::new(ExprKind::Ramp { base, stride }, dt, span)
                }
                "Broadcast" => {
                    want(2)?;
                    let lanes = vals.pop().expect("two");
                    let value = vals.pop().expect("two");
                    let Value::PyInt(lanes, lspan) = lanes else {
                        return Err(Diagnostic::error(
                            "`T.Broadcast` lanes must be an integer",
                            lanes.span(),
                        ));
                    };
                    let lanes = u16::try_from(lanes)
                        .ok()
                        .filter(|l| *l >= 1)
                        .ok_or_else(|| {
                            Diagnostic::error("lanes must be between 1 and 65535", lspan)
                        })?;
                    let value = self.expr_of(value)?;
                    let dt = value.dtype().with_lanes(lanes);
                    Expr::new(ExprKind::Broadcast(value), dt, span)
                }
                "max" | "min" => {
                    want(2)?;
                    let b = vals.pop().expect("two");
                    let a = vals.pop().expect("two");
                    let (a, b) = self.unify_pair(a, b)?;
                    Expr::binary(
                        if path == "max" {
                            BinOp::Max
                        } else {
                            BinOp::Min
                        },
                        a,
                        b,
                    )
                }
                "floordiv" | "floormod" | "truncdiv" | "truncmod" | "Div" | "Mod" | "FloorDiv"
                | "FloorMod" => {
                    want(2)?;
                    let b = vals.pop().expect("two");
                    let a = vals.pop().expect("two");
                    let (a, b) = self.unify_pair(a, b)?;
                    let op = match path.as_str() {
                        "floordiv" | "FloorDiv" => BinOp::FloorDiv,
                        "floormod" | "FloorMod" => BinOp::FloorMod,
                        "truncdiv" | "Div" => BinOp::Div,
                        _ => BinOp::Mod,
                    };
                    Expr::binary(op, a, b)
                }
                "Select" | "if_then_else" => {
                    want(3)?;
                    let f = vals.pop().expect("three");
                    let t = vals.pop().expect("three");
                    let c = vals.pop().expect("three");
                    let c = self.bool_expr(c)?;
                    let (t, f) = self.unify_pair(t, f)?;
                    if path == "Select" {
                        Expr::select(c, t, f)
                    } else {
                        let dt = t.dtype();
                        Expr::call(Intrinsic::IfThenElse, vec![c, t, f], dt)
                    }
                }
                "Cast" | "cast" => {
                    want(2)?;
                    // `T.Cast("float32", x)` and `T.cast(x, "float32")`.
                    let (dt_v, x) = if path == "Cast" {
                        let x = vals.pop().expect("two");
                        (vals.pop().expect("two"), x)
                    } else {
                        let d = vals.pop().expect("two");
                        (d, vals.pop().expect("two"))
                    };
                    let dt = match dt_v {
                        Value::Str(s, sp) => DataType::parse(&s)
                            .ok_or_else(|| Diagnostic::error(format!("unknown dtype `{s}`"), sp))?,
                        Value::DType(d, _) => d,
                        v => return Err(Diagnostic::error("expected a dtype", v.span())),
                    };
                    let x = self.expr_of(x)?;
                    Expr::new(ExprKind::Cast(x), dt, span)
                }
                "And" | "Or" => {
                    want(2)?;
                    let b = vals.pop().expect("two");
                    let a = vals.pop().expect("two");
                    let (a, b) = (self.bool_expr(a)?, self.bool_expr(b)?);
                    if path == "And" {
                        Expr::and(a, b)
                    } else {
                        Expr::or(a, b)
                    }
                }
                "Not" => {
                    want(1)?;
                    let a = vals.pop().expect("one");
                    Expr::logical_not(self.bool_expr(a)?)
                }
                "abs" => {
                    want(1)?;
                    let a = vals.pop().expect("one");
                    let a = self.float_or_expr(a)?;
                    if a.dtype().is_float() {
                        let dt = a.dtype();
                        Expr::call(Intrinsic::Fabs, vec![a], dt)
                    } else {
                        let zero = zero_of(a.dtype());
                        let neg = Expr::binary(BinOp::Sub, zero.clone(), a.clone());
                        Expr::select(Expr::cmp(CmpOp::Ge, a.clone(), zero), a, neg)
                    }
                }
                "max_value" | "min_value" => {
                    want(1)?;
                    let dt = match vals.pop().expect("one") {
                        Value::Str(s, sp) => DataType::parse(&s)
                            .ok_or_else(|| Diagnostic::error(format!("unknown dtype `{s}`"), sp))?,
                        Value::DType(d, _) => d,
                        v => return Err(Diagnostic::error("expected a dtype", v.span())),
                    };
                    extreme_value(dt, path == "max_value")
                        .ok_or_else(|| Diagnostic::error("no such value for this dtype", span))?
                }
                "call_extern" | "call_pure_extern" => {
                    // `T.call_extern("int32", "f", …)` (TVM 0.27) or
                    // `T.call_extern("f", …, dtype="int32")` (the course).
                    let mut dtype = None;
                    for (k, v) in &kwargs {
                        if *k == "dtype" {
                            dtype = Some(self.dtype_arg(v)?);
                        }
                    }
                    let mut rest = vals.into_iter();
                    let dtype = match dtype {
                        Some(d) => d,
                        None => match rest.next() {
                            Some(Value::Str(s, sp)) => DataType::parse(&s).ok_or_else(|| {
                                Diagnostic::error(format!("unknown dtype `{s}`"), sp)
                            })?,
                            _ => {
                                return Err(Diagnostic::error(
                                    "`T.call_extern` needs a result dtype",
                                    span,
                                ))
                            }
                        },
                    };
                    let mut args = Vec::new();
                    for v in rest {
                        args.push(self.expr_of(v)?);
                    }
                    Expr::call(Intrinsic::Other(path.clone()), args, dtype)
                }
                "type_annotation" => {
                    want(1)?;
                    let dt = match vals.pop().expect("one") {
                        Value::Str(s, sp) => DataType::parse(&s)
                            .ok_or_else(|| Diagnostic::error(format!("unknown dtype `{s}`"), sp))?,
                        Value::DType(d, _) => d,
                        v => return Err(Diagnostic::error("expected a dtype", v.span())),
                    };
                    Expr::call(Intrinsic::Other("type_annotation".into()), vec![], dt)
                }
                "tvm_access_ptr" => {
                    want(5)?;
                    let mut args = Vec::new();
                    for v in vals {
                        args.push(self.index_or_expr(v)?);
                    }
                    Expr::call(
                        Intrinsic::Other("tvm_access_ptr".into()),
                        args,
                        DataType::handle(),
                    )
                }
                name => {
                    let Some(op) = Intrinsic::from_name(name) else {
                        return Err(Diagnostic::error(
                            format!("unknown function `T.{name}`"),
                            span,
                        ));
                    };
                    if let Some(n) = op.arity() {
                        want(n)?;
                    }
                    let mut exprs = Vec::new();
                    for v in vals {
                        exprs.push(self.float_or_expr(v)?);
                    }
                    // Two-argument intrinsics take a common dtype.
                    if exprs.len() == 2 {
                        let b = exprs.pop().expect("two");
                        let a = exprs.pop().expect("two");
                        let (a, b) = self.unify_pair(Value::Expr(a), Value::Expr(b))?;
                        exprs = vec![a, b];
                    }
                    let dt = exprs.first().map(|x| x.dtype()).unwrap_or(DataType::f32());
                    Expr::call(op, exprs, dt)
                }
            },
            span,
        )))
    }

    /// Evaluates without reporting errors (to ask "is this a buffer?").
    fn eval_quiet(&mut self, e: &ast::Expr) -> Option<Value> {
        match &e.kind {
            ast::ExprKind::Name(n) => match self.lookup(n) {
                Some(Binding::Buffer(b)) => Some(Value::Buffer(b.clone(), e.span)),
                _ => None,
            },
            _ => None,
        }
    }

    /// `C.access_ptr("w")`: a `T.tvm_access_ptr` over the whole buffer.
    fn buffer_method(&mut self, e: &ast::Expr) -> Result<Option<Value>> {
        let ast::ExprKind::Call { func, args } = &e.kind else {
            return Ok(None);
        };
        let ast::ExprKind::Attribute {
            value,
            attr,
            attr_span,
        } = &func.kind
        else {
            return Ok(None);
        };
        let Some(Value::Buffer(b, _)) = self.eval_quiet(value) else {
            return Ok(None);
        };
        if attr != "access_ptr" {
            return Err(Diagnostic::error(
                format!("buffers have no method `{attr}`"),
                *attr_span,
            ));
        }
        let mask = match args.first().map(positional).transpose()? {
            Some(a) => match self.eval(a)? {
                Value::Str(s, sp) => match s.as_str() {
                    "r" => 1,
                    "w" => 2,
                    "rw" => 3,
                    _ => {
                        return Err(Diagnostic::error(
                            "the access mask is \"r\", \"w\" or \"rw\"",
                            sp,
                        ))
                    }
                },
                Value::PyInt(i, _) => i,
                v => return Err(Diagnostic::error("expected an access mask", v.span())),
            },
            None => 3,
        };
        let index_dtype = b
            .shape
            .first()
            .map(|x| x.dtype())
            .unwrap_or(DataType::i32());
        // The extent in elements: the outermost stride times its extent for
        // strided buffers, the product of the shape otherwise.
        let extent = match (b.strides.first(), b.shape.first()) {
            (Some(st), Some(sh)) => Expr::binary(BinOp::Mul, st.clone(), sh.clone()),
            _ => {
                let mut acc: Option<Expr> = None;
                for d in &b.shape {
                    acc = Some(match acc {
                        None => d.clone(),
                        Some(a) => Expr::binary(BinOp::Mul, a, d.clone()),
                    });
                }
                acc.unwrap_or_else(|| Expr::int(1, index_dtype))
            }
        };
        let extent = match (extent.kind(), extent.as_int()) {
            (ExprKind::Binary(BinOp::Mul, a, c), _)
                if a.as_int().is_some() && c.as_int().is_some() =>
            {
                Expr::int(
                    a.as_int()
                        .unwrap_or(0)
                        .wrapping_mul(c.as_int().unwrap_or(0)),
                    index_dtype,
                )
            }
            _ => extent,
        };
        let args = vec![
            Expr::call(Intrinsic::Other("type_annotation".into()), vec![], b.dtype),
            b.data.to_expr(),
            b.elem_offset.clone(),
            extent,
            Expr::int(mask, DataType::i32()),
        ];
        Ok(Some(Value::Expr(spanned(
            Expr::call(
                Intrinsic::Other("tvm_access_ptr".into()),
                args,
                DataType::handle(),
            ),
            e.span,
        ))))
    }

    fn index_or_expr(&mut self, v: Value) -> Result<Expr> {
        match v {
            Value::PyInt(x, s) => Ok(Expr::int(x, DataType::i32()).with_span(s)),
            v => self.expr_of(v),
        }
    }

    fn binary(&mut self, op: ast::BinOp, l: Value, r: Value, span: Span) -> Result<Value> {
        // Fold Python literals the way Python would.
        if let (Value::PyInt(a, _), Value::PyInt(b, _)) = (&l, &r) {
            let (a, b) = (*a, *b);
            let v = match op {
                ast::BinOp::Add => a.checked_add(b),
                ast::BinOp::Sub => a.checked_sub(b),
                ast::BinOp::Mul => a.checked_mul(b),
                ast::BinOp::FloorDiv if b != 0 => {
                    Some(a.div_euclid(b) - if b < 0 && a.rem_euclid(b) != 0 { 1 } else { 0 })
                }
                ast::BinOp::Mod if b != 0 => Some(
                    a - b * (a.div_euclid(b) - if b < 0 && a.rem_euclid(b) != 0 { 1 } else { 0 }),
                ),
                ast::BinOp::Pow if (0..64).contains(&b) => a.checked_pow(b as u32),
                ast::BinOp::Div if b != 0 => return Ok(Value::PyFloat(a as f64 / b as f64, span)),
                _ => None,
            };
            if let Some(v) = v {
                return Ok(Value::PyInt(v, span));
            }
            return Err(Diagnostic::error(
                "cannot fold this integer expression",
                span,
            ));
        }
        let bin = match op {
            ast::BinOp::Add => BinOp::Add,
            ast::BinOp::Sub => BinOp::Sub,
            ast::BinOp::Mul => BinOp::Mul,
            ast::BinOp::Div => BinOp::Div,
            ast::BinOp::FloorDiv => BinOp::FloorDiv,
            ast::BinOp::Mod => BinOp::FloorMod,
            ast::BinOp::Pow => {
                let (a, b) = self.unify_pair(l, r)?;
                let dt = a.dtype();
                return Ok(Value::Expr(spanned(
                    Expr::call(Intrinsic::Pow, vec![a, b], dt),
                    span,
                )));
            }
            _ => {
                return Err(Diagnostic::error(
                    "this operator is not supported in TVMScript",
                    span,
                ))
            }
        };
        let (a, b) = self.unify_pair(l, r)?;
        Ok(Value::Expr(spanned(Expr::binary(bin, a, b), span)))
    }

    /// Converts two values to expressions of one dtype, typing literals from
    /// the other side and widening int32 to int64 when they meet.
    fn unify_pair(&mut self, a: Value, b: Value) -> Result<(Expr, Expr)> {
        self.unify_pair_default(a, b, DataType::i32())
    }

    fn unify_pair_default(
        &mut self,
        a: Value,
        b: Value,
        default_int: DataType,
    ) -> Result<(Expr, Expr)> {
        let typed = |v: &Value| matches!(v, Value::Expr(_));
        match (typed(&a), typed(&b)) {
            (true, false) => {
                let a = self.expr_of(a)?;
                let b = self.expr_as(b, a.dtype())?;
                Ok((a, b))
            }
            (false, true) => {
                let b = self.expr_of(b)?;
                let a = self.expr_as(a, b.dtype())?;
                Ok((a, b))
            }
            (false, false) => {
                let dt = if matches!(a, Value::PyFloat(..)) || matches!(b, Value::PyFloat(..)) {
                    DataType::f32()
                } else {
                    default_int
                };
                Ok((self.expr_as(a, dt)?, self.expr_as(b, dt)?))
            }
            (true, true) => {
                let (a, b) = (self.expr_of(a)?, self.expr_of(b)?);
                let (da, db) = (a.dtype(), b.dtype());
                if da == db {
                    return Ok((a, b));
                }
                // Integer widening, the one promotion TVM applies silently.
                if da.is_integer() && db.is_integer() {
                    let wide = if da.bits >= db.bits { da } else { db };
                    return Ok((Expr::cast(wide, a), Expr::cast(wide, b)));
                }
                // Leave other mismatches for the verifier to report with both spans.
                Ok((a, b))
            }
        }
    }

    fn expr_of(&mut self, v: Value) -> Result<Expr> {
        match v {
            Value::Expr(e) => Ok(e),
            Value::PyInt(x, s) => Ok(Expr::int(x, DataType::i32()).with_span(s)),
            Value::PyFloat(x, s) => Ok(Expr::float(x, DataType::f32()).with_span(s)),
            Value::PyBool(b, s) => Ok(Expr::bool(b).with_span(s)),
            Value::Str(x, s) => Ok(Expr::new(ExprKind::Str(x), DataType::handle(), s)),
            other => Err(Diagnostic::error(
                format!("expected a scalar expression, found {}", other.describe()),
                other.span(),
            )),
        }
    }

    fn float_or_expr(&mut self, v: Value) -> Result<Expr> {
        match v {
            Value::PyInt(x, s) => Ok(Expr::float(x as f64, DataType::f32()).with_span(s)),
            v => self.expr_of(v),
        }
    }

    /// A value in a context that expects `dtype` (literal typing).
    fn expr_as(&mut self, v: Value, dtype: DataType) -> Result<Expr> {
        match v {
            Value::PyInt(x, s) if dtype.is_float() => Ok(Expr::float(x as f64, dtype).with_span(s)),
            Value::PyInt(x, s) if dtype.is_integer() || dtype.is_bool() => {
                Ok(Expr::int(x, dtype).with_span(s))
            }
            Value::PyFloat(x, s) if dtype.is_float() => Ok(Expr::float(x, dtype).with_span(s)),
            Value::PyBool(b, s) if dtype.is_bool() => Ok(Expr::bool(b).with_span(s)),
            Value::Expr(e)
                if e.dtype() != dtype
                    && e.dtype().is_integer()
                    && dtype.is_integer()
                    && e.as_int().is_some() =>
            {
                Ok(Expr::int(e.as_int().unwrap_or(0), dtype).with_span(e.span()))
            }
            v => self.expr_of(v),
        }
    }

    /// `T.float32(x)`: a typed constant for literals, a cast otherwise.
    fn cast_value(&mut self, v: Value, dtype: DataType) -> Result<Expr> {
        match v {
            Value::PyInt(x, s) if dtype.is_float() => Ok(Expr::float(x as f64, dtype).with_span(s)),
            Value::PyInt(x, s) if dtype.is_integer() => Ok(Expr::int(x, dtype).with_span(s)),
            Value::PyInt(x, s) if dtype.is_bool() => Ok(Expr::bool(x != 0).with_span(s)),
            Value::PyFloat(x, s) if dtype.is_float() => Ok(Expr::float(x, dtype).with_span(s)),
            Value::PyFloat(x, s) if dtype.is_integer() => {
                Ok(Expr::int(x as i64, dtype).with_span(s))
            }
            Value::PyBool(b, s) => Ok(Expr::int(b as i64, dtype).with_span(s)),
            Value::Str(text, s) if dtype.is_float() => {
                // `T.float32("inf")` / `T.float32("-inf")`.
                let x: f64 = match text.as_str() {
                    "inf" => f64::INFINITY,
                    "-inf" => f64::NEG_INFINITY,
                    "nan" => f64::NAN,
                    t => t.parse().map_err(|_| Diagnostic::error("not a float", s))?,
                };
                Ok(Expr::float(x, dtype).with_span(s))
            }
            v => {
                let e = self.expr_of(v)?;
                Ok(Expr::cast(dtype, e))
            }
        }
    }

    fn bool_expr(&mut self, v: Value) -> Result<Expr> {
        match v {
            Value::PyBool(b, s) => Ok(Expr::bool(b).with_span(s)),
            v => self.expr_of(v),
        }
    }

    /// An index or extent: literals become int32.
    fn index_expr(&mut self, v: Value) -> Result<Expr> {
        match v {
            Value::PyInt(x, s) => Ok(Expr::int(x, DataType::i32()).with_span(s)),
            v @ Value::Expr(_) => self.expr_of(v),
            other => Err(Diagnostic::error(
                format!("expected an integer expression, found {}", other.describe()),
                other.span(),
            )),
        }
    }

    fn attr_value(&mut self, e: &ast::Expr) -> Result<AttrValue> {
        Ok(match &e.kind {
            ast::ExprKind::Dict(items) => {
                let mut map = BTreeMap::new();
                for (k, v) in items {
                    let Some(k) = k else {
                        return Err(Diagnostic::error(
                            "`**` is not allowed in attributes",
                            v.span,
                        ));
                    };
                    let ast::ExprKind::Str(key) = &k.kind else {
                        return Err(Diagnostic::error("attribute keys are strings", k.span));
                    };
                    map.insert(key.clone(), self.attr_value(v)?);
                }
                AttrValue::Map(map)
            }
            ast::ExprKind::List(items) | ast::ExprKind::Tuple(items) => AttrValue::Array(
                items
                    .iter()
                    .map(|i| self.attr_value(i))
                    .collect::<Result<_>>()?,
            ),
            ast::ExprKind::Bool(b) => AttrValue::Bool(*b),
            ast::ExprKind::Str(s) => AttrValue::Str(s.clone()),
            _ => match self.eval(e)? {
                Value::PyInt(x, _) => AttrValue::Int(x),
                Value::PyFloat(x, _) => AttrValue::Float(x),
                Value::Expr(x) => AttrValue::Expr(x),
                other => {
                    return Err(Diagnostic::error(
                        format!("unsupported attribute value: {}", other.describe()),
                        other.span(),
                    ))
                }
            },
        })
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

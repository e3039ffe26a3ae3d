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

use crate::diag::{Diagnostic, Span};
use crate::eval::NDArray;
use crate::graph::infer::{check_compatible, expr_sinfo, Globals};
use crate::graph::ir::{
    Binding, BindingBlock, Call, Callee, Expr, ExprKind, FuncInfo, Function, PrimExpr, SeqExpr,
    ShapeInfo, StructInfo, SymVar, TensorInfo, Var,
};
use crate::graph::op::{BinaryOp, Conv2dAttrs, Op};
use crate::ir::{AttrValue, BaseFunc, BinOp, DataType, IRModule, PrimFunc};
use crate::syntax::ast;

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

    // ----- function --------------------------------------------------------

    fn check_params(&self, def: &ast::FunctionDef) -> Result<()> {
        if def.params.vararg.is_some() || def.params.kwarg.is_some() {
            return Err(Diagnostic::error(
                "an R.function takes plain parameters only",
                def.name_span,
            ));
        }
        for p in def.params.iter() {
            if p.default.is_some() {
                return Err(Diagnostic::error(
                    "parameters of an R.function cannot have defaults",
                    p.span,
                ));
            }
        }
        Ok(())
    }

    /// Reads the parameters (defining symbolic variables) and returns the
    /// declared return struct info, if any.
    fn params(&mut self, def: &ast::FunctionDef) -> Result<(Vec<Var>, Option<StructInfo>)> {
        self.check_params(def)?;
        self.in_sig = true;
        let mut params = Vec::new();
        for p in def.params.iter() {
            let Some(ann) = &p.annotation else {
                return Err(Diagnostic::error(
                    format!("parameter `{}` needs a struct info annotation", p.name),
                    p.name_span,
                )
                .with_note("e.g. `x: R.Tensor((1, 784), \"float32\")`"));
            };
            let sinfo = self.sinfo_expr(ann)?;
            let v = Var::with(p.name.clone(), sinfo, false, p.name_span);
            if params.iter().any(|q: &Var| q.name() == p.name) {
                return Err(Diagnostic::error(
                    format!("duplicate parameter `{}`", p.name),
                    p.name_span,
                ));
            }
            params.push(v);
        }
        // The return annotation may only use variables the parameters define.
        let ret = match &def.returns {
            Some(r) => {
                let before: Vec<String> = self.syms.keys().cloned().collect();
                let s = self.sinfo_expr(r)?;
                if let Some(new) = self.syms.keys().find(|k| !before.contains(k)) {
                    return Err(Diagnostic::error(
                        format!(
                            "symbolic variable `{new}` in the return annotation is not defined by any parameter"
                        ),
                        r.span,
                    ));
                }
                Some(s)
            }
            None => None,
        };
        self.in_sig = false;
        Ok((params, ret))
    }

    fn signature(&mut self, def: &ast::FunctionDef) -> Result<FuncInfo> {
        let (params, ret) = self.params(def)?;
        Ok(FuncInfo {
            params: Some(params.iter().map(|p| p.sinfo().clone()).collect()),
            ret: Box::new(ret.unwrap_or(StructInfo::Object)),
            pure: !decorator_flag_false(def, "pure"),
        })
    }

    fn build(mut self, def: &ast::FunctionDef) -> Result<Function> {
        let private = def
            .decorators
            .iter()
            .any(|d| decorator_flag(d, "private", true));
        let pure = !decorator_flag_false(def, "pure");
        let (params, ret_ann) = self.params(def)?;
        for p in &params {
            self.define(p.name(), Bound::Var(p.clone()));
        }
        let mut attrs = BTreeMap::new();
        let mut result: Option<Expr> = None;
        let n = def.body.len();
        for (i, stmt) in def.body.iter().enumerate() {
            if let ast::StmtKind::Return(value) = &stmt.kind {
                if i + 1 != n {
                    return Err(Diagnostic::error(
                        "`return` must be the last statement of an R.function",
                        stmt.span,
                    ));
                }
                let Some(value) = value else {
                    return Err(Diagnostic::error(
                        "an R.function must return a value",
                        stmt.span,
                    ));
                };
                let v = self.eval(value)?;
                let e = self.bound_expr(v)?;
                result = Some(self.normalize_result(e)?);
                continue;
            }
            self.function_stmt(stmt, &mut attrs)?;
        }
        let Some(body) = result else {
            return Err(Diagnostic::error(
                format!("R.function `{}` has no `return`", def.name),
                def.name_span,
            ));
        };
        self.flush_block();
        let deduced = self.sinfo_of(&body, body.span())?;
        let ret = match ret_ann {
            Some(ann) => {
                check_compatible(&ann, &deduced).map_err(|m| {
                    Diagnostic::error(
                        format!("the returned value does not match the return annotation: {m}"),
                        def.returns
                            .as_ref()
                            .map(|r| r.span)
                            .unwrap_or(def.name_span),
                    )
                    .with_note(format!("the value is {}", deduced.describe()))
                })?;
                ann
            }
            None => deduced,
        };
        if !private {
            attrs
                .entry("global_symbol".to_string())
                .or_insert_with(|| AttrValue::Str(def.name.clone()));
        }
        Ok(Function {
            params,
            body: SeqExpr {
                blocks: std::mem::take(&mut self.blocks),
                body,
            },
            ret,
            attrs,
            pure,
            span: def.name_span,
        })
    }

    /// Ends the current block. Like TVM's parser, a block that directly
    /// follows one of the same kind is merged into it (two consecutive
    /// `with R.dataflow():` blocks make one dataflow block).
    fn flush_block(&mut self) {
        if self.current.is_empty() && !self.in_dataflow {
            return;
        }
        let bindings = std::mem::take(&mut self.current);
        match self.blocks.last_mut() {
            Some(last) if last.dataflow == self.in_dataflow => last.bindings.extend(bindings),
            _ => self.blocks.push(BindingBlock {
                bindings,
                dataflow: self.in_dataflow,
            }),
        }
    }

    /// A returned value: calls are bound first (`gv` names), tuples keep
    /// their shape.
    fn normalize_result(&mut self, e: Expr) -> Result<Expr> {
        match e.kind() {
            ExprKind::Call(_) => {
                let span = e.span();
                let v = self.emit(e, None, None, span)?;
                Ok(v.to_expr().with_span(span))
            }
            _ => self.normalize_leaf(e),
        }
    }

    /// Makes `e` a leaf: nested calls are bound to fresh variables.
    fn normalize_leaf(&mut self, e: Expr) -> Result<Expr> {
        match e.kind() {
            ExprKind::Call(_) => {
                let span = e.span();
                let v = self.emit(e, None, None, span)?;
                Ok(v.to_expr().with_span(span))
            }
            ExprKind::Tuple(fields) => {
                if fields.iter().all(Expr::is_leaf) {
                    return Ok(e);
                }
                let mut out = Vec::with_capacity(fields.len());
                for f in fields {
                    out.push(self.normalize_leaf(f.clone())?);
                }
                Ok(Expr::new(ExprKind::Tuple(out), e.span()))
            }
            ExprKind::TupleGetItem(t, i) => {
                if t.is_leaf() {
                    return Ok(e);
                }
                let t = self.normalize_leaf(t.clone())?;
                Ok(Expr::new(ExprKind::TupleGetItem(t, *i), e.span()))
            }
            _ => Ok(e),
        }
    }

    /// Binds `value` to a new variable: its call arguments are normalised
    /// first, its struct info inferred (and checked against `ann`).
    fn emit(
        &mut self,
        value: Expr,
        name: Option<(&str, Span)>,
        ann: Option<(StructInfo, Span)>,
        span: Span,
    ) -> Result<Var> {
        let value = match value.kind() {
            ExprKind::Call(c) => {
                let mut args = Vec::with_capacity(c.args.len());
                for a in &c.args {
                    args.push(self.normalize_leaf(a.clone())?);
                }
                Expr::new(
                    ExprKind::Call(Call {
                        callee: c.callee.clone(),
                        args,
                        sinfo_args: c.sinfo_args.clone(),
                    }),
                    value.span(),
                )
            }
            _ => self.normalize_leaf(value)?,
        };
        let deduced = self.sinfo_of(&value, span)?;
        let sinfo = match ann {
            Some((a, aspan)) => {
                check_compatible(&a, &deduced).map_err(|m| {
                    Diagnostic::error(
                        format!("the value does not match the annotation: {m}"),
                        aspan,
                    )
                    .with_label(value.span(), format!("this is {}", deduced.describe()))
                })?;
                a
            }
            None => deduced,
        };
        let (prefix, count) = if self.in_dataflow {
            ("lv", &mut self.lv_count)
        } else {
            ("gv", &mut self.gv_count)
        };
        let auto = if *count == 0 {
            prefix.to_string()
        } else {
            format!("{prefix}{count}")
        };
        *count += 1;
        let (vname, vspan) = match name {
            Some((n, s)) => (n.to_string(), s),
            None => (auto, span),
        };
        let dataflow = self.in_dataflow
            && !(name.is_some() && self.outputs.get(&vname) == Some(&self.stmt_index));
        let var = Var::with(vname, sinfo, dataflow, vspan);
        self.current.push(Binding {
            var: var.clone(),
            value,
            span,
        });
        Ok(var)
    }

    fn sinfo_of(&self, e: &Expr, span: Span) -> Result<StructInfo> {
        expr_sinfo(e, self.globals).map_err(|m| Diagnostic::error(m, span))
    }

    /// A statement of the function body (not `return`).
    fn function_stmt(
        &mut self,
        stmt: &ast::Stmt,
        attrs: &mut BTreeMap<String, AttrValue>,
    ) -> Result<()> {
        match &stmt.kind {
            ast::StmtKind::With { items, body } => {
                let [item] = items.as_slice() else {
                    return Err(Diagnostic::error(
                        "expected `with R.dataflow():`",
                        stmt.span,
                    ));
                };
                if !self.is_relax_call(&item.context, "dataflow") || item.vars.is_some() {
                    return Err(Diagnostic::error(
                        "only `with R.dataflow():` blocks are allowed in an R.function",
                        item.context.span,
                    ));
                }
                if self.in_dataflow {
                    return Err(Diagnostic::error(
                        "dataflow blocks cannot be nested",
                        stmt.span,
                    ));
                }
                self.dataflow_block(body, stmt.span)
            }
            ast::StmtKind::Expr(e) => {
                if matches!(e.kind, ast::ExprKind::Str(_)) {
                    return Ok(());
                }
                if let ast::ExprKind::Call { func, args } = &e.kind {
                    if self.relax_path(func).as_deref() == Some("func_attr") {
                        let [ast::Arg::Positional(d)] = args.as_slice() else {
                            return Err(Diagnostic::error("`R.func_attr` takes one dict", e.span));
                        };
                        let AttrValue::Map(m) = attr_value(d)? else {
                            return Err(Diagnostic::error("`R.func_attr` takes a dict", d.span));
                        };
                        attrs.extend(m);
                        return Ok(());
                    }
                    if self.is_output(func) {
                        return Err(Diagnostic::error(
                            "`R.output` is only allowed at the end of a dataflow block",
                            e.span,
                        ));
                    }
                }
                Err(Diagnostic::error(
                    "an expression statement has no effect in an R.function; bind its value to a name",
                    e.span,
                ))
            }
            ast::StmtKind::Pass => Ok(()),
            _ => self.binding_stmt(stmt),
        }
    }

    fn is_output(&self, func: &ast::Expr) -> bool {
        match dotted(func).as_deref() {
            Some([r, "output"]) => self.aliases.is_relax(r) || self.aliases.is_relax_py(r),
            _ => false,
        }
    }

    fn dataflow_block(&mut self, body: &[ast::Stmt], span: Span) -> Result<()> {
        // The outputs come from the final `R.output(...)`.
        let mut outputs: Vec<(String, Span)> = Vec::new();
        let mut stmts: Vec<&ast::Stmt> = Vec::new();
        for (i, s) in body.iter().enumerate() {
            if let ast::StmtKind::Expr(e) = &s.kind {
                if let ast::ExprKind::Call { func, args } = &e.kind {
                    if self.is_output(func) {
                        if i + 1 != body.len() {
                            return Err(Diagnostic::error(
                                "`R.output(...)` must be the last statement of a dataflow block",
                                s.span,
                            ));
                        }
                        for a in args {
                            match a {
                                ast::Arg::Positional(x) => match x.as_name() {
                                    Some(n) => outputs.push((n.to_string(), x.span)),
                                    None => {
                                        return Err(Diagnostic::error(
                                            "`R.output` takes the names of variables bound in the block",
                                            x.span,
                                        ))
                                    }
                                },
                                other => {
                                    return Err(Diagnostic::error(
                                        "`R.output` takes the names of variables bound in the block",
                                        other.span(),
                                    ))
                                }
                            }
                        }
                        continue;
                    }
                }
            }
            stmts.push(s);
        }
        // Which statement binds each output last.
        let mut last: HashMap<String, usize> = HashMap::new();
        for (i, s) in stmts.iter().enumerate() {
            let target = match &s.kind {
                ast::StmtKind::Assign { targets, .. } if targets.len() == 1 => &targets[0],
                ast::StmtKind::AnnAssign { target, .. } => target,
                _ => continue,
            };
            if let Some(n) = target.as_name() {
                last.insert(n.to_string(), i);
            }
        }
        let mut out_map = HashMap::new();
        for (n, s) in &outputs {
            match last.get(n) {
                Some(i) => {
                    out_map.insert(n.clone(), *i);
                }
                None => {
                    return Err(Diagnostic::error(
                        format!("`{n}` is not bound in this dataflow block"),
                        *s,
                    ))
                }
            }
        }
        self.flush_block();
        self.in_dataflow = true;
        self.outputs = out_map;
        self.scopes.push(HashMap::new());
        let mut result = Ok(());
        for (i, s) in stmts.iter().enumerate() {
            self.stmt_index = i;
            if let Err(e) = self.function_stmt(s, &mut BTreeMap::new()) {
                result = Err(e);
                break;
            }
        }
        let scope = self.scopes.pop().unwrap_or_default();
        self.flush_block();
        self.in_dataflow = false;
        self.outputs.clear();
        result?;
        if self.blocks.last().is_some_and(|b| b.bindings.is_empty()) {
            return Err(Diagnostic::error(
                "a dataflow block must bind something",
                span,
            ));
        }
        // Outputs (and symbolic names) stay visible; dataflow variables do not.
        for (name, b) in scope {
            match &b {
                Bound::Var(v) if v.is_dataflow() => {}
                _ => self.define(&name, b),
            }
        }
        Ok(())
    }

    fn binding_stmt(&mut self, stmt: &ast::Stmt) -> Result<()> {
        let (target, ann, value) = match &stmt.kind {
            ast::StmtKind::Assign { targets, value } => {
                let [t] = targets.as_slice() else {
                    return Err(Diagnostic::error(
                        "chained assignment is not supported in an R.function",
                        stmt.span,
                    ));
                };
                (t, None, value)
            }
            ast::StmtKind::AnnAssign {
                target,
                annotation,
                value: Some(value),
            } => (target, Some(annotation), value),
            _ => {
                return Err(Diagnostic::error(
                    "unsupported statement in an R.function",
                    stmt.span,
                )
                .with_note("an R.function holds bindings `x = ...`, `with R.dataflow():` blocks and a final `return`"))
            }
        };
        // `m, n = T.int64(), T.int64()` and `n = T.int64()`.
        let pairs: Vec<(&ast::Expr, &ast::Expr)> = match (&target.kind, &value.kind) {
            (ast::ExprKind::Tuple(ts), ast::ExprKind::Tuple(vs)) if ts.len() == vs.len() => {
                ts.iter().zip(vs.iter()).collect()
            }
            _ => vec![(target, value)],
        };
        if ann.is_none() && pairs.iter().all(|(_, v)| self.is_sym_decl(v)) {
            for (t, v) in pairs {
                let Some(name) = t.as_name() else {
                    return Err(Diagnostic::error("expected a name", t.span));
                };
                let dtype = self.sym_decl_dtype(v)?;
                let var = match self.syms.get(name) {
                    Some(existing) if existing.dtype() == dtype => existing.clone(),
                    _ => {
                        let var = SymVar::new(name, dtype);
                        self.syms.insert(name.to_string(), var.clone());
                        var
                    }
                };
                self.define(name, Bound::Sym(var));
            }
            return Ok(());
        }
        let Some(name) = target.as_name() else {
            return Err(Diagnostic::error(
                "bind a value to a single name (tuple unpacking is not supported)",
                target.span,
            ));
        };
        // `cls = Module`: an alias of the module.
        if ann.is_none() {
            if let Some(rhs) = value.as_name() {
                let is_module = Some(rhs) == self.class_name || rhs == "Module";
                if is_module && self.lookup(rhs).is_none() {
                    if self.class_name.is_none() {
                        return Err(Diagnostic::error(
                            "a function outside a module cannot refer to a module",
                            value.span,
                        ));
                    }
                    self.define(name, Bound::Module);
                    return Ok(());
                }
            }
        }
        let ann = match ann {
            Some(a) => Some((self.sinfo_expr(a)?, a.span)),
            None => None,
        };
        let v = self.eval(value)?;
        let e = self.bound_expr(v)?;
        let var = self.emit(e, Some((name, target.span)), ann, stmt.span)?;
        self.define(name, Bound::Var(var));
        Ok(())
    }

    // ----- paths -----------------------------------------------------------

    /// `R.xxx.yyy` → `xxx.yyy` (also `relax.op.xxx`).
    fn relax_path(&self, e: &ast::Expr) -> Option<String> {
        let d = dotted(e)?;
        match d.as_slice() {
            [r, rest @ ..] if self.aliases.is_relax(r) && !rest.is_empty() => Some(rest.join(".")),
            [r, "op", rest @ ..] if self.aliases.is_relax_py(r) && !rest.is_empty() => {
                Some(rest.join("."))
            }
            ["tvm", "relax", "op", rest @ ..] if !rest.is_empty() => Some(rest.join(".")),
            _ => None,
        }
    }

    fn is_relax_call(&self, e: &ast::Expr, name: &str) -> bool {
        match &e.kind {
            ast::ExprKind::Call { func, args } => {
                args.is_empty() && self.relax_path(func).as_deref() == Some(name)
            }
            _ => false,
        }
    }

    fn tir_dtype_path(&self, e: &ast::Expr) -> Option<DataType> {
        match dotted(e).as_deref() {
            Some([t, name]) if self.aliases.is_tir(t) => DataType::parse(name),
            _ => None,
        }
    }

    fn is_sym_decl(&self, e: &ast::Expr) -> bool {
        match &e.kind {
            ast::ExprKind::Call { func, args } if args.is_empty() => self
                .tir_dtype_path(func)
                .is_some_and(|d| d.is_integer() && d.is_scalar()),
            _ => false,
        }
    }

    fn sym_decl_dtype(&self, e: &ast::Expr) -> Result<DataType> {
        match &e.kind {
            ast::ExprKind::Call { func, .. } => self
                .tir_dtype_path(func)
                .ok_or_else(|| Diagnostic::error("expected `T.int64()`", e.span)),
            _ => Err(Diagnostic::error("expected `T.int64()`", e.span)),
        }
    }

    // ----- struct info -----------------------------------------------------

    /// Reads an annotation (`R.Tensor(...)`, …).
    fn sinfo_expr(&mut self, e: &ast::Expr) -> Result<StructInfo> {
        match self.eval(e)? {
            Val::Sinfo(s, _) => Ok(s),
            Val::Expr(x) if matches!(x.kind(), ExprKind::Tuple(_)) => Err(Diagnostic::error(
                "expected a struct info annotation",
                e.span,
            )),
            other => Err(Diagnostic::error(
                format!(
                    "expected a struct info annotation such as `R.Tensor((2, 3), \"float32\")`, found {}",
                    other.describe()
                ),
                e.span,
            )),
        }
    }

    fn is_tensor_ctor(&self, func: &ast::Expr) -> bool {
        match dotted(func).as_deref() {
            Some([r, "Tensor"]) => self.aliases.is_relax(r),
            // The course's oldest spelling: a bare `Tensor(...)`.
            Some(["Tensor"]) => self.lookup("Tensor").is_none(),
            _ => false,
        }
    }

    fn tensor_sinfo(&mut self, args: &[ast::Arg], span: Span) -> Result<StructInfo> {
        let a = Args::new(args, span, "R.Tensor")?;
        a.check(&["shape", "dtype", "vdevice", "ndim"])?;
        let dtype = match a.get(1, "dtype")? {
            Some(d) => self.dtype_arg(d)?,
            None => None,
        };
        if let Some(v) = a.get(2, "vdevice")? {
            return Err(Diagnostic::error(
                "virtual devices are not supported",
                v.span,
            ));
        }
        let ndim = match a.get(3, "ndim")? {
            Some(n) => match self.eval(n)? {
                Val::Int(-1, _) => None,
                Val::Int(k, _) if k >= 0 => Some(k as usize),
                _ => return Err(Diagnostic::error("`ndim` must be an integer >= -1", n.span)),
            },
            None => None,
        };
        let shape = match a.get(0, "shape")? {
            None => None,
            Some(s) => match self.eval(s)? {
                Val::None(_) => None,
                v => Some(self.dims_of(v, s.span)?),
            },
        };
        if let (Some(s), Some(n)) = (&shape, ndim) {
            if s.len() != n {
                return Err(Diagnostic::error(
                    format!("the shape has {} dimensions but ndim={n}", s.len()),
                    span,
                ));
            }
        }
        Ok(StructInfo::Tensor(match shape {
            Some(s) => TensorInfo::new(s, dtype),
            None => TensorInfo::with_ndim(ndim, dtype),
        }))
    }

    fn dtype_arg(&mut self, e: &ast::Expr) -> Result<Option<DataType>> {
        match self.eval(e)? {
            Val::Str(s, span) => {
                if s.is_empty() || s == "void" {
                    return Ok(None);
                }
                DataType::parse(&s)
                    .map(Some)
                    .ok_or_else(|| Diagnostic::error(format!("unknown dtype \"{s}\""), span))
            }
            Val::None(_) => Ok(None),
            other => Err(Diagnostic::error(
                format!("expected a dtype string, found {}", other.describe()),
                e.span,
            )),
        }
    }

    /// A shape: a tuple/list of dimensions or an `R.shape(...)` value.
    fn dims_of(&mut self, v: Val, span: Span) -> Result<Vec<PrimExpr>> {
        match v {
            Val::Seq(items, _) => items.into_iter().map(|x| self.dim_of(x)).collect(),
            Val::Expr(e) => match e.kind() {
                ExprKind::Shape(values) => Ok(values.clone()),
                _ => Err(Diagnostic::error("expected a shape", span)),
            },
            other => Err(Diagnostic::error(
                format!(
                    "expected a shape (a tuple of dimensions), found {}",
                    other.describe()
                ),
                span,
            )),
        }
    }

    /// One dimension: an integer, a symbolic variable or an expression of them.
    fn dim_of(&mut self, v: Val) -> Result<PrimExpr> {
        match v {
            Val::Int(i, span) => Ok(PrimExpr::i64(i).with_span(span)),
            Val::Prim(e, _) => {
                if e.dtype() != DataType::i64() {
                    return Err(Diagnostic::error(
                        format!("dimensions are int64, but this is {}", e.dtype()),
                        e.span(),
                    ));
                }
                Ok(e)
            }
            Val::Str(s, span) => self.string_dim(&s, span),
            other => Err(Diagnostic::error(
                format!("expected a dimension, found {}", other.describe()),
                other.span(),
            )),
        }
    }

    /// A string dimension (`"n"`, `"n * 2"`): only in a signature.
    fn string_dim(&mut self, s: &str, span: Span) -> Result<PrimExpr> {
        if !self.in_sig {
            return Err(Diagnostic::error(
                "a string dimension is only allowed in a function's parameter and return annotations",
                span,
            )
            .with_note("declare the variable in the body (`n = T.int64()`) and use the name"));
        }
        if is_identifier(s) {
            return Ok(self.sig_sym(s).to_expr().with_span(span));
        }
        let parsed = crate::syntax::parse_expr(s).map_err(|d| {
            Diagnostic::error(format!("in the dimension {s:?}: {}", d.message), span)
        })?;
        self.prim_from_ast(&parsed, span)
    }

    /// The symbolic variable `name` of the signature (created on first use).
    fn sig_sym(&mut self, name: &str) -> SymVar {
        if let Some(v) = self.syms.get(name) {
            return v.clone();
        }
        let v = SymVar::new(name, DataType::i64());
        self.syms.insert(name.to_string(), v.clone());
        v
    }

    /// A dimension expression parsed from a string, with names as symbolic
    /// variables.
    fn prim_from_ast(&mut self, e: &ast::Expr, span: Span) -> Result<PrimExpr> {
        match &e.kind {
            ast::ExprKind::Int(i) => Ok(PrimExpr::i64(*i)),
            ast::ExprKind::Name(n) => Ok(self.sig_sym(n).to_expr()),
            ast::ExprKind::UnaryOp {
                op: ast::UnaryOp::Neg,
                operand,
            } => {
                let x = self.prim_from_ast(operand, span)?;
                Ok(PrimExpr::binary(BinOp::Sub, PrimExpr::i64(0), x))
            }
            ast::ExprKind::BinOp { left, op, right } => {
                let a = self.prim_from_ast(left, span)?;
                let b = self.prim_from_ast(right, span)?;
                prim_binop(*op, a, b, span)
            }
            _ => Err(Diagnostic::error("unsupported dimension expression", span)),
        }
    }

    // ----- expressions -----------------------------------------------------

    /// A value bound to a name or returned: like TVM, a Python number or
    /// bool becomes a scalar constant (`r = 3` is `R.const(3, "int32")`).
    fn bound_expr(&self, v: Val) -> Result<Expr> {
        match v {
            v @ (Val::Int(..) | Val::Float(..) | Val::Bool(..)) => {
                let span = v.span();
                let arr = const_array(v, None, span)?;
                Ok(Expr::new(ExprKind::Constant(Rc::new(arr)), span))
            }
            v => self.to_expr(v),
        }
    }

    fn to_expr(&self, v: Val) -> Result<Expr> {
        match v {
            Val::Expr(e) => Ok(e),
            Val::Seq(items, span) => {
                let mut fields = Vec::with_capacity(items.len());
                for x in items {
                    fields.push(self.to_expr(x)?);
                }
                Ok(Expr::new(ExprKind::Tuple(fields), span))
            }
            Val::Global(name, span) => Ok(Expr::global(&name).with_span(span)),
            other => Err(Diagnostic::error(
                format!("expected a graph value, found {}", other.describe()),
                other.span(),
            )
            .with_note(match other {
                Val::Int(..) | Val::Float(..) | Val::Bool(..) => {
                    "write constants as `R.const(value, \"dtype\")`"
                }
                _ => "graph values are variables, calls, constants and tuples of them",
            })),
        }
    }

    fn eval(&mut self, e: &ast::Expr) -> Result<Val> {
        let span = e.span;
        match &e.kind {
            ast::ExprKind::Int(i) => Ok(Val::Int(*i, span)),
            ast::ExprKind::Float(f) => Ok(Val::Float(*f, span)),
            ast::ExprKind::Bool(b) => Ok(Val::Bool(*b, span)),
            ast::ExprKind::Str(s) => Ok(Val::Str(s.clone(), span)),
            ast::ExprKind::NoneLit => Ok(Val::None(span)),
            ast::ExprKind::Tuple(items) | ast::ExprKind::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                for x in items {
                    out.push(self.eval(x)?);
                }
                Ok(Val::Seq(out, span))
            }
            ast::ExprKind::UnaryOp {
                op: ast::UnaryOp::Neg,
                operand,
            } => match self.eval(operand)? {
                Val::Int(i, _) => Ok(Val::Int(i.wrapping_neg(), span)),
                Val::Float(f, _) => Ok(Val::Float(-f, span)),
                Val::Prim(p, _) => Ok(Val::Prim(
                    PrimExpr::binary(BinOp::Sub, PrimExpr::i64(0), p),
                    span,
                )),
                other => Err(Diagnostic::error(
                    format!("cannot negate {}", other.describe()),
                    span,
                )),
            },
            ast::ExprKind::Name(n) => self.eval_name(n, span),
            ast::ExprKind::Attribute { value, attr, .. } => self.eval_attribute(e, value, attr),
            ast::ExprKind::Subscript { value, index } => {
                if value.as_name() == Some("metadata") {
                    return Err(Diagnostic::error(
                        "`metadata[...]` constants are not available: the printing that produced this text omitted them",
                        span,
                    )
                    .with_note("write small constants as `R.const(...)`"));
                }
                let t = self.eval(value)?;
                let t = self.to_expr(t)?;
                let i = match self.eval(index)? {
                    Val::Int(i, _) if i >= 0 => i as usize,
                    _ => {
                        return Err(Diagnostic::error(
                            "a tuple index must be a non-negative integer",
                            index.span,
                        ))
                    }
                };
                let item = Expr::new(ExprKind::TupleGetItem(t, i), span);
                Ok(Val::Expr(item))
            }
            ast::ExprKind::BinOp { left, op, right } => {
                let a = self.eval(left)?;
                let b = self.eval(right)?;
                match (a, b) {
                    (Val::Int(x, _), Val::Int(y, _)) => {
                        let v = match op {
                            ast::BinOp::Add => x.checked_add(y),
                            ast::BinOp::Sub => x.checked_sub(y),
                            ast::BinOp::Mul => x.checked_mul(y),
                            ast::BinOp::FloorDiv if y != 0 => Some(x.div_euclid(y)),
                            ast::BinOp::Mod if y != 0 => Some(x.rem_euclid(y)),
                            _ => None,
                        };
                        v.map(|v| Val::Int(v, span)).ok_or_else(|| {
                            Diagnostic::error("unsupported integer arithmetic", span)
                        })
                    }
                    (a @ (Val::Int(..) | Val::Prim(..)), b @ (Val::Int(..) | Val::Prim(..))) => {
                        let x = self.dim_of(a)?;
                        let y = self.dim_of(b)?;
                        Ok(Val::Prim(prim_binop(*op, x, y, span)?, span))
                    }
                    (Val::Expr(x), Val::Expr(y)) => {
                        let op = match op {
                            ast::BinOp::Add => BinaryOp::Add,
                            ast::BinOp::Sub => BinaryOp::Subtract,
                            ast::BinOp::Mul => BinaryOp::Multiply,
                            ast::BinOp::Div => BinaryOp::Divide,
                            _ => {
                                return Err(Diagnostic::error(
                                    "unsupported operator on graph values",
                                    span,
                                ))
                            }
                        };
                        Ok(Val::Expr(self.op_call(Op::Binary(op), vec![x, y], span)?))
                    }
                    _ => Err(Diagnostic::error("unsupported operands", span)),
                }
            }
            ast::ExprKind::Call { func, args } => self.eval_call(func, args, span),
            _ => Err(Diagnostic::error(
                "unsupported expression in an R.function",
                span,
            )),
        }
    }

    fn eval_name(&mut self, n: &str, span: Span) -> Result<Val> {
        if let Some(b) = self.lookup(n) {
            return Ok(match b {
                Bound::Var(v) => Val::Expr(v.to_expr().with_span(span)),
                Bound::Sym(s) => Val::Prim(s.to_expr().with_span(span), span),
                Bound::Module => Val::Module(span),
            });
        }
        if let Some(s) = self.syms.get(n) {
            if self.in_sig {
                return Ok(Val::Prim(s.to_expr().with_span(span), span));
            }
        }
        if self.in_sig && is_identifier(n) {
            // A bare name in a signature (TVM 0.27 prints module-level
            // `n = TypeVar("n")` and uses the name): a symbolic variable.
            if n != "Tensor" {
                return Ok(Val::Prim(self.sig_sym(n).to_expr().with_span(span), span));
            }
        }
        if self.globals.0.contains_key(n) {
            // The course's old `R.call_tir(linear0, ...)` names the function.
            return Ok(Val::Global(n.to_string(), span));
        }
        if Some(n) == self.class_name || (self.class_name.is_some() && n == "Module") {
            return Ok(Val::Module(span));
        }
        if let Some(s) = self.syms.get(n) {
            return Err(Diagnostic::error(
                format!("symbolic variable `{n}` is not declared in the body"),
                span,
            )
            .with_note(format!("add `{} = T.{}()` before using it", n, s.dtype())));
        }
        Err(Diagnostic::error(format!("undefined name `{n}`"), span))
    }

    fn eval_attribute(&mut self, whole: &ast::Expr, value: &ast::Expr, attr: &str) -> Result<Val> {
        let span = whole.span;
        // `cls.linear0` (or `Module.linear0`).
        if let Some(n) = value.as_name() {
            let is_module = match self.lookup(n) {
                Some(Bound::Module) => true,
                Some(_) => false,
                None => self.class_name.is_some() && (Some(n) == self.class_name || n == "Module"),
            };
            if is_module {
                if !self.globals.0.contains_key(attr) {
                    return Err(Diagnostic::error(
                        format!("the module has no function `{attr}`"),
                        span,
                    ));
                }
                return Ok(Val::Global(attr.to_string(), span));
            }
        }
        if let Some(path) = self.relax_path(whole) {
            return match path.as_str() {
                "Tensor" => Ok(Val::Sinfo(
                    StructInfo::Tensor(TensorInfo::with_ndim(None, None)),
                    span,
                )),
                "Object" | "Any" => Ok(Val::Sinfo(StructInfo::Object, span)),
                "Shape" => Ok(Val::Sinfo(StructInfo::Shape(ShapeInfo::default()), span)),
                "Tuple" => Ok(Val::Sinfo(StructInfo::Tuple(Vec::new()), span)),
                "Callable" => Ok(Val::Sinfo(
                    StructInfo::Func(FuncInfo {
                        params: None,
                        ret: Box::new(StructInfo::Object),
                        pure: false,
                    }),
                    span,
                )),
                _ => Err(Diagnostic::error(
                    format!("`R.{path}` is not a value"),
                    span,
                )),
            };
        }
        if let Some(d) = self.tir_dtype_path(whole) {
            // `p: T.int64` annotates a scalar parameter.
            return Ok(Val::Sinfo(StructInfo::Prim(d), span));
        }
        if let Some(n) = value.as_name() {
            if self.lookup(n).is_none() {
                // Reports `undefined name` for `cls.f` without `cls = ...`.
                self.eval_name(n, value.span)?;
            }
        }
        Err(Diagnostic::error(
            format!("unknown attribute `{attr}`"),
            span,
        ))
    }

    fn eval_call(&mut self, func: &ast::Expr, args: &[ast::Arg], span: Span) -> Result<Val> {
        if self.is_tensor_ctor(func) {
            return Ok(Val::Sinfo(self.tensor_sinfo(args, span)?, span));
        }
        if let Some(path) = self.relax_path(func) {
            return self.relax_call(&path, args, span);
        }
        // `cls.f(...)`: a call of a graph function of the module.
        match self.eval(func)? {
            Val::Global(name, gspan) => {
                if !matches!(self.globals.0.get(&name), Some(GlobalEntry::Graph(_))) {
                    return Err(Diagnostic::error(
                        format!("`{name}` is a PrimFunc: call it with `R.call_tir(cls.{name}, (args...), out_sinfo=...)`"),
                        gspan,
                    ));
                }
                let a = Args::new(args, span, format!("`{name}`"))?;
                if !a.kw.is_empty() {
                    return Err(Diagnostic::error(
                        "graph functions take positional arguments",
                        a.kw[0].2,
                    ));
                }
                let mut exprs = Vec::new();
                for x in &a.pos {
                    let v = self.eval(x)?;
                    exprs.push(self.to_expr(v)?);
                }
                let call = Expr::new(
                    ExprKind::Call(Call {
                        callee: Callee::Global(crate::graph::GlobalVar::new(&name)),
                        args: exprs,
                        sinfo_args: Vec::new(),
                    }),
                    span,
                );
                self.check_call(&call)?;
                Ok(Val::Expr(call))
            }
            Val::Sinfo(..) => Err(Diagnostic::error("unexpected call", span)),
            other => Err(Diagnostic::error(
                format!("{} is not callable", other.describe()),
                func.span,
            )),
        }
    }

    /// Checks that a call's struct info can be inferred (reporting shape and
    /// dtype errors where the call is written).
    fn check_call(&self, call: &Expr) -> Result<()> {
        // Arguments may themselves be calls: infer through them.
        self.sinfo_of(call, call.span()).map(|_| ())
    }

    fn op_call(&self, op: Op, args: Vec<Expr>, span: Span) -> Result<Expr> {
        let e = Expr::new(
            ExprKind::Call(Call {
                callee: Callee::Op(op),
                args,
                sinfo_args: Vec::new(),
            }),
            span,
        );
        self.check_call(&e)?;
        Ok(e)
    }

    fn expr_arg(&mut self, e: &ast::Expr) -> Result<Expr> {
        let v = self.eval(e)?;
        self.to_expr(v)
    }

    fn int_list(&mut self, e: &ast::Expr, what: &str) -> Result<Vec<i64>> {
        match self.eval(e)? {
            Val::Int(i, _) => Ok(vec![i]),
            Val::Seq(items, _) => items
                .into_iter()
                .map(|x| match x {
                    Val::Int(i, _) => Ok(i),
                    other => Err(Diagnostic::error(
                        format!("`{what}` takes integers"),
                        other.span(),
                    )),
                })
                .collect(),
            _ => Err(Diagnostic::error(
                format!("`{what}` takes an integer or a list of integers"),
                e.span,
            )),
        }
    }

    fn opt_int_list(&mut self, e: Option<&ast::Expr>, what: &str) -> Result<Option<Vec<i64>>> {
        match e {
            None => Ok(None),
            Some(x) if matches!(x.kind, ast::ExprKind::NoneLit) => Ok(None),
            Some(x) => Ok(Some(self.int_list(x, what)?)),
        }
    }

    fn bool_arg(&mut self, e: Option<&ast::Expr>, default: bool) -> Result<bool> {
        match e {
            None => Ok(default),
            Some(x) => match self.eval(x)? {
                Val::Bool(b, _) => Ok(b),
                _ => Err(Diagnostic::error("expected True or False", x.span)),
            },
        }
    }

    fn int_arg(&mut self, e: Option<&ast::Expr>, default: i64) -> Result<i64> {
        match e {
            None => Ok(default),
            Some(x) => match self.eval(x)? {
                Val::Int(i, _) => Ok(i),
                _ => Err(Diagnostic::error("expected an integer", x.span)),
            },
        }
    }

    fn str_arg(&mut self, e: Option<&ast::Expr>) -> Result<Option<String>> {
        match e {
            None => Ok(None),
            Some(x) => match self.eval(x)? {
                Val::Str(s, _) => Ok(Some(s)),
                Val::None(_) => Ok(None),
                _ => Err(Diagnostic::error("expected a string", x.span)),
            },
        }
    }

    /// The output struct info of `call_tir`/`call_dps_packed`: a struct info
    /// or a list of them (a tuple output).
    fn out_sinfo(&mut self, e: &ast::Expr) -> Result<StructInfo> {
        match self.eval(e)? {
            Val::Sinfo(s, _) => Ok(s),
            Val::Seq(items, _)
                if !items.is_empty() && items.iter().all(|x| matches!(x, Val::Sinfo(..))) =>
            {
                Ok(StructInfo::Tuple(
                    items
                        .into_iter()
                        .filter_map(|x| match x {
                            Val::Sinfo(s, _) => Some(s),
                            _ => None,
                        })
                        .collect(),
                ))
            }
            other => Err(Diagnostic::error(
                format!(
                    "expected the output struct info (`R.Tensor(...)` or a list of them), found {}",
                    other.describe()
                ),
                e.span,
            )),
        }
    }

    fn relax_call(&mut self, path: &str, args: &[ast::Arg], span: Span) -> Result<Val> {
        let what = format!("R.{path}");
        let a = Args::new(args, span, what.clone())?;
        match path {
            "Tensor" => Ok(Val::Sinfo(self.tensor_sinfo(args, span)?, span)),
            "Tuple" => {
                let mut fields = Vec::new();
                for x in &a.pos {
                    fields.push(self.sinfo_expr(x)?);
                }
                if let Some((_, _, s)) = a.kw.first() {
                    return Err(Diagnostic::error("R.Tuple takes struct infos", *s));
                }
                Ok(Val::Sinfo(StructInfo::Tuple(fields), span))
            }
            "Shape" => {
                a.check(&["values", "ndim"])?;
                let ndim = match a.get(1, "ndim")? {
                    Some(n) => match self.eval(n)? {
                        Val::Int(-1, _) => None,
                        Val::Int(k, _) if k >= 0 => Some(k as usize),
                        _ => return Err(Diagnostic::error("bad `ndim`", n.span)),
                    },
                    None => None,
                };
                let values = match a.get(0, "values")? {
                    Some(v) => {
                        let val = self.eval(v)?;
                        Some(self.dims_of(val, v.span)?)
                    }
                    None => None,
                };
                Ok(Val::Sinfo(
                    StructInfo::Shape(ShapeInfo {
                        ndim: values.as_ref().map(|v| v.len()).or(ndim),
                        values,
                    }),
                    span,
                ))
            }
            "Prim" => {
                a.check(&["dtype"])?;
                let d = a.required(0, "dtype")?;
                match self.dtype_arg(d)? {
                    Some(dt) => Ok(Val::Sinfo(StructInfo::Prim(dt), span)),
                    None => Err(Diagnostic::error("R.Prim needs a dtype", d.span)),
                }
            }
            "shape" => {
                a.check(&["value"])?;
                let v = a.required(0, "value")?;
                let val = self.eval(v)?;
                let dims = self.dims_of(val, v.span)?;
                Ok(Val::Expr(Expr::new(ExprKind::Shape(dims), span)))
            }
            "prim_value" => {
                a.check(&["value"])?;
                let v = a.required(0, "value")?;
                let val = self.eval(v)?;
                let p = match val {
                    Val::Int(i, _) => PrimExpr::i64(i),
                    Val::Prim(p, _) => p,
                    other => {
                        return Err(Diagnostic::error(
                            format!(
                                "R.prim_value takes an integer expression, found {}",
                                other.describe()
                            ),
                            v.span,
                        ))
                    }
                };
                Ok(Val::Expr(Expr::new(ExprKind::PrimValue(p), span)))
            }
            "str" => {
                a.check(&["value"])?;
                let v = a.required(0, "value")?;
                match self.eval(v)? {
                    Val::Str(s, _) => Ok(Val::Expr(Expr::new(ExprKind::Str(s), span))),
                    _ => Err(Diagnostic::error("R.str takes a string", v.span)),
                }
            }
            "tuple" => {
                a.check(&[])?;
                Ok(Val::Expr(Expr::new(ExprKind::Tuple(Vec::new()), span)))
            }
            "const" => {
                a.check(&["value", "dtype"])?;
                let v = a.required(0, "value")?;
                let dtype = match a.get(1, "dtype")? {
                    Some(d) => self.dtype_arg(d)?,
                    None => None,
                };
                let val = self.eval(v)?;
                let arr = const_array(val, dtype, v.span)?;
                Ok(Val::Expr(Expr::new(ExprKind::Constant(Rc::new(arr)), span)))
            }
            "call_tir" | "call_dps_packed" => self.dps_call(path, &a, span),
            "linear" => {
                a.check(&["data", "weight", "bias", "out_dtype"])?;
                let x = self.expr_arg(a.required(0, "data")?)?;
                let w = self.expr_arg(a.required(1, "weight")?)?;
                let b = match a.get(2, "bias")? {
                    Some(e) if !matches!(e.kind, ast::ExprKind::NoneLit) => Some(self.expr_arg(e)?),
                    _ => None,
                };
                let out_dtype = match a.get(3, "out_dtype")? {
                    Some(d) => self.dtype_arg(d)?,
                    None => None,
                };
                let wt = self.op_call(Op::PermuteDims { axes: None }, vec![w], span)?;
                let mm = self.op_call(Op::Matmul { out_dtype }, vec![x, wt], span)?;
                let out = match b {
                    Some(b) => self.op_call(Op::Binary(BinaryOp::Add), vec![mm, b], span)?,
                    None => mm,
                };
                Ok(Val::Expr(out))
            }
            "dataflow" | "output" | "func_attr" | "function" => Err(Diagnostic::error(
                format!("`R.{path}` cannot be used as a value"),
                span,
            )),
            _ => {
                let op = self.op_from_call(path, &a, span)?;
                let names: &[&str] = match &op {
                    Op::Binary(_) | Op::Matmul { .. } => &["x1", "x2"],
                    Op::EwiseFma => &["x1", "x2", "x3"],
                    Op::Reshape => &["x"],
                    Op::Conv2d(_) => &["data", "weight"],
                    Op::Relu | Op::Softmax { .. } => &["data"],
                    _ => &["x"],
                };
                let mut exprs = Vec::new();
                for (i, n) in names.iter().enumerate() {
                    let e = a.required(i, n)?;
                    exprs.push(self.expr_arg(e)?);
                }
                if let Op::Reshape = op {
                    let s = a.required(1, "shape")?;
                    let x_sinfo = exprs.first().map(|x| self.sinfo_of(x, span)).transpose()?;
                    exprs.push(self.reshape_shape(s, x_sinfo)?);
                }
                Ok(Val::Expr(self.op_call(op, exprs, span)?))
            }
        }
    }

    /// The new shape of `R.reshape`: a tuple (with at most one `-1`, resolved
    /// from the input's shape) or a shape value.
    fn reshape_shape(&mut self, e: &ast::Expr, x: Option<StructInfo>) -> Result<Expr> {
        let v = self.eval(e)?;
        if let Val::Expr(x) = &v {
            return Ok(x.clone());
        }
        let Val::Seq(items, span) = v else {
            return Err(Diagnostic::error(
                "R.reshape takes the new shape as a tuple or `R.shape([...])`",
                e.span,
            ));
        };
        let mut dims = Vec::with_capacity(items.len());
        let mut infer_at = None;
        for item in items {
            if let Val::Int(-1, s) = item {
                if infer_at.is_some() {
                    return Err(Diagnostic::error("at most one dimension can be -1", s));
                }
                infer_at = Some(dims.len());
                dims.push(PrimExpr::i64(-1));
                continue;
            }
            dims.push(self.dim_of(item)?);
        }
        if let Some(i) = infer_at {
            let old = match x
                .as_ref()
                .and_then(StructInfo::as_tensor)
                .and_then(|t| t.shape.clone())
            {
                Some(s) => s,
                None => {
                    return Err(Diagnostic::error(
                        "a -1 dimension needs an input of known shape",
                        span,
                    ))
                }
            };
            let total = old.iter().fold(PrimExpr::i64(1), |acc, d| {
                PrimExpr::binary(BinOp::Mul, acc, d.clone())
            });
            let known = dims
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .fold(PrimExpr::i64(1), |acc, (_, d)| {
                    PrimExpr::binary(BinOp::Mul, acc, d.clone())
                });
            let ana = crate::arith::Analyzer::new();
            let (t, k) = (ana.simplify(&total), ana.simplify(&known));
            let inferred = match (t.as_int(), k.as_int()) {
                (Some(a), Some(b)) if b != 0 && a % b == 0 => PrimExpr::i64(a / b),
                (Some(_), Some(_)) => {
                    return Err(Diagnostic::error(
                        format!(
                            "cannot reshape {} elements into a shape with {} elements per -1",
                            crate::ir::printer::describe_dim(&t),
                            crate::ir::printer::describe_dim(&k)
                        ),
                        span,
                    ))
                }
                _ => ana.simplify(&PrimExpr::binary(BinOp::FloorDiv, t, k)),
            };
            if let Some(slot) = dims.get_mut(i) {
                *slot = inferred;
            }
        }
        Ok(Expr::new(ExprKind::Shape(dims), span))
    }

    fn op_from_call(&mut self, path: &str, a: &Args, span: Span) -> Result<Op> {
        let op = match path {
            "add" | "subtract" | "multiply" | "divide" => {
                a.check(&["x1", "x2"])?;
                Op::Binary(match path {
                    "add" => BinaryOp::Add,
                    "subtract" => BinaryOp::Subtract,
                    "multiply" => BinaryOp::Multiply,
                    _ => BinaryOp::Divide,
                })
            }
            "nn.relu" => {
                a.check(&["data"])?;
                Op::Relu
            }
            "matmul" => {
                a.check(&["x1", "x2", "out_dtype"])?;
                let out_dtype = match a.get(2, "out_dtype")? {
                    Some(d) => self.dtype_arg(d)?,
                    None => None,
                };
                Op::Matmul { out_dtype }
            }
            "permute_dims" => {
                a.check(&["x", "axes"])?;
                Op::PermuteDims {
                    axes: self.opt_int_list(a.get(1, "axes")?, "axes")?,
                }
            }
            "ewise_fma" => {
                a.check(&["x1", "x2", "x3"])?;
                Op::EwiseFma
            }
            "reshape" => {
                a.check(&["x", "shape"])?;
                Op::Reshape
            }
            "nn.softmax" => {
                a.check(&["data", "axis"])?;
                Op::Softmax {
                    axis: self.int_arg(a.get(1, "axis")?, -1)?,
                }
            }
            "sum" | "mean" => {
                a.check(&["x", "axis", "keepdims"])?;
                let axis = self.opt_int_list(a.get(1, "axis")?, "axis")?;
                let keepdims = self.bool_arg(a.get(2, "keepdims")?, false)?;
                if path == "sum" {
                    Op::Sum { axis, keepdims }
                } else {
                    Op::Mean { axis, keepdims }
                }
            }
            "nn.conv2d" => {
                a.check(&[
                    "data",
                    "weight",
                    "strides",
                    "padding",
                    "dilation",
                    "groups",
                    "data_layout",
                    "kernel_layout",
                    "out_layout",
                    "out_dtype",
                ])?;
                let mut attrs = Conv2dAttrs::default();
                if let Some(e) = a.get(2, "strides")? {
                    attrs.strides = pair(&self.int_list(e, "strides")?, e.span, "strides")?;
                }
                if let Some(e) = a.get(3, "padding")? {
                    let p = self.int_list(e, "padding")?;
                    attrs.padding = match p.as_slice() {
                        [x] => [*x, *x, *x, *x],
                        [h, w] => [*h, *w, *h, *w],
                        [t, l, b, r] => [*t, *l, *b, *r],
                        _ => {
                            return Err(Diagnostic::error(
                                "`padding` takes 1, 2 or 4 integers",
                                e.span,
                            ))
                        }
                    };
                }
                if let Some(e) = a.get(4, "dilation")? {
                    attrs.dilation = pair(&self.int_list(e, "dilation")?, e.span, "dilation")?;
                }
                attrs.groups = self.int_arg(a.get(5, "groups")?, 1)?;
                if let Some(s) = self.str_arg(a.get(6, "data_layout")?)? {
                    attrs.data_layout = s;
                }
                if let Some(s) = self.str_arg(a.get(7, "kernel_layout")?)? {
                    attrs.kernel_layout = s;
                }
                attrs.out_layout = self
                    .str_arg(a.get(8, "out_layout")?)?
                    .unwrap_or_else(|| attrs.data_layout.clone());
                if let Some(d) = a.get(9, "out_dtype")? {
                    attrs.out_dtype = self.dtype_arg(d)?;
                }
                Op::Conv2d(attrs)
            }
            _ => {
                return Err(
                    Diagnostic::error(format!("unknown graph operator `R.{path}`"), span)
                        .with_note(format!(
                            "Tessel supports {}",
                            crate::graph::op::OP_NAMES
                                .iter()
                                .map(|n| format!("R.{n}"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )),
                )
            }
        };
        Ok(op)
    }

    /// `R.call_tir(f, args, out_sinfo)` and `R.call_dps_packed(f, args, out_sinfo)`.
    fn dps_call(&mut self, path: &str, a: &Args, span: Span) -> Result<Val> {
        let is_tir = path == "call_tir";
        let out_key = if a.kw.iter().any(|(k, _, _)| *k == "out_ty") {
            "out_ty"
        } else {
            "out_sinfo"
        };
        let mut allowed = vec!["func", "args", out_key, "dtype"];
        if is_tir {
            allowed[0] = "gvar";
            allowed.push("tir_vars");
        }
        // `tir_vars` is the 4th positional of call_tir.
        a.check(&allowed)?;
        let fe = a.required(0, allowed[0])?;
        if let Some(n) = fe.as_name() {
            if self.lookup(n).is_none() && !self.globals.0.contains_key(n) {
                let mut d =
                    Diagnostic::error(format!("`{n}` is not a function of this module"), fe.span);
                if is_tir {
                    d = d.with_note(format!(
                        "R.call_tir calls a PrimFunc defined in the same class (`cls.{n}`)"
                    ));
                }
                return Err(d);
            }
        }
        let callee = match self.eval(fe)? {
            Val::Global(name, gspan) if is_tir => {
                match self.globals.0.get(&name) {
                    Some(GlobalEntry::Prim(_)) => {}
                    _ => {
                        return Err(Diagnostic::error(
                            format!("`{name}` is not a PrimFunc of the module"),
                            gspan,
                        ))
                    }
                }
                Expr::global(&name).with_span(gspan)
            }
            Val::Str(s, sspan) if !is_tir => Expr::extern_func(&s).with_span(sspan),
            Val::Global(name, gspan) => Expr::global(&name).with_span(gspan),
            other => {
                return Err(Diagnostic::error(
                    if is_tir {
                        format!(
                            "R.call_tir calls a PrimFunc of the module (`cls.name`), not {}",
                            other.describe()
                        )
                    } else {
                        format!(
                            "R.call_dps_packed takes the function's name as a string, not {}",
                            other.describe()
                        )
                    },
                    fe.span,
                ))
            }
        };
        let ae = a.required(1, "args")?;
        let args_val = self.eval(ae)?;
        let args_expr = match args_val {
            Val::Seq(items, sspan) => {
                let mut fields = Vec::with_capacity(items.len());
                for x in items {
                    fields.push(self.to_expr(x)?);
                }
                Expr::new(ExprKind::Tuple(fields), sspan)
            }
            other => {
                let e = self.to_expr(other)?;
                match e.kind() {
                    ExprKind::Tuple(_) => e,
                    _ => Expr::new(ExprKind::Tuple(vec![e.clone()]), e.span()),
                }
            }
        };
        let oe = a.required(2, out_key)?;
        // The oldest spelling: an output shape and `dtype=`.
        let out = match (self.eval(oe)?, a.get(3, "dtype")?) {
            (Val::Seq(items, _), Some(d)) if !items.iter().any(|x| matches!(x, Val::Sinfo(..))) => {
                let dtype = self.dtype_arg(d)?;
                let dims = self.dims_of(Val::Seq(items, oe.span), oe.span)?;
                StructInfo::Tensor(TensorInfo::new(dims, dtype))
            }
            (_, Some(d)) => {
                return Err(Diagnostic::error(
                    "`dtype=` goes with an output shape (the old spelling); with a struct info, put the dtype in it",
                    d.span,
                ))
            }
            _ => self.out_sinfo(oe)?,
        };
        let mut call_args = vec![callee, args_expr];
        if is_tir {
            if let Some(tv) = a.get(4, "tir_vars")? {
                let v = self.eval(tv)?;
                let e = match v {
                    Val::Expr(e) if matches!(e.kind(), ExprKind::Shape(_)) => e,
                    Val::Seq(items, s) => {
                        let dims = self.dims_of(Val::Seq(items, s), s)?;
                        Expr::new(ExprKind::Shape(dims), s)
                    }
                    _ => {
                        return Err(Diagnostic::error(
                            "`tir_vars` takes `R.shape([...])`",
                            tv.span,
                        ))
                    }
                };
                call_args.push(e);
            }
        }
        let op = if is_tir {
            Op::CallTir
        } else {
            Op::CallDpsPacked
        };
        let call = Expr::new(
            ExprKind::Call(Call {
                callee: Callee::Op(op),
                args: call_args,
                sinfo_args: vec![out],
            }),
            span,
        );
        self.check_call(&call)?;
        if is_tir {
            self.check_call_tir(&call, span)?;
        }
        Ok(Val::Expr(call))
    }

    /// Checks a `call_tir` against the PrimFunc it calls: one parameter per
    /// input and output, with matching ranks, dtypes and constant sizes.
    fn check_call_tir(&self, call: &Expr, span: Span) -> Result<()> {
        let Some(c) = call.as_call() else {
            return Ok(());
        };
        let (Some(f), Some(args)) = (c.args.first(), c.args.get(1)) else {
            return Ok(());
        };
        let ExprKind::GlobalVar(g) = f.kind() else {
            return Ok(());
        };
        let Some(GlobalEntry::Prim(pf)) = self.globals.0.get(g.name()) else {
            return Ok(());
        };
        let ExprKind::Tuple(inputs) = args.kind() else {
            return Ok(());
        };
        let mut sinfos = Vec::new();
        for x in inputs {
            sinfos.push(self.sinfo_of(x, x.span())?);
        }
        let outs: Vec<StructInfo> = match c.sinfo_args.first() {
            Some(StructInfo::Tuple(fields)) => fields.clone(),
            Some(s) => vec![s.clone()],
            None => Vec::new(),
        };
        let n_scalar_extra = if c.args.len() > 2 { 1 } else { 0 };
        let buffers: Vec<_> = pf.params.iter().map(|p| pf.param_buffer(p)).collect();
        let expected = sinfos.len() + outs.len();
        let n_buffers = buffers.iter().filter(|b| b.is_some()).count();
        if n_buffers != expected || (n_scalar_extra == 0 && pf.params.len() != expected) {
            return Err(Diagnostic::error(
                format!(
                    "`{}` takes {} buffer{}, but this call passes {} input{} and {} output{}",
                    g.name(),
                    n_buffers,
                    if n_buffers == 1 { "" } else { "s" },
                    sinfos.len(),
                    if sinfos.len() == 1 { "" } else { "s" },
                    outs.len(),
                    if outs.len() == 1 { "" } else { "s" },
                ),
                span,
            ));
        }
        let all = sinfos.iter().chain(outs.iter());
        for (i, (s, b)) in all.zip(buffers.iter().flatten()).enumerate() {
            let what = if i < sinfos.len() {
                format!("input {}", i + 1)
            } else {
                format!("output {}", i - sinfos.len() + 1)
            };
            let StructInfo::Tensor(t) = s else {
                return Err(Diagnostic::error(
                    format!(
                        "{what} of `{}` must be a tensor, not {}",
                        g.name(),
                        s.describe()
                    ),
                    span,
                ));
            };
            if let Some(d) = t.dtype {
                if d != b.dtype {
                    return Err(Diagnostic::error(
                        format!(
                            "{what} of `{}` is {d}, but buffer `{}` is {}",
                            g.name(),
                            b.name,
                            b.dtype
                        ),
                        span,
                    ));
                }
            }
            if let Some(n) = t.ndim {
                if n != b.shape.len() {
                    return Err(Diagnostic::error(
                        format!(
                            "{what} of `{}` has {n} dimensions, but buffer `{}` has {}",
                            g.name(),
                            b.name,
                            b.shape.len()
                        ),
                        span,
                    ));
                }
            }
            if let Some(shape) = &t.shape {
                for (j, (x, y)) in shape.iter().zip(&b.shape).enumerate() {
                    if let (Some(p), Some(q)) = (x.as_int(), y.as_int()) {
                        if p != q {
                            return Err(Diagnostic::error(
                                format!(
                                    "{what} of `{}` has size {p} in dimension {j}, but buffer `{}` has {q}",
                                    g.name(),
                                    b.name
                                ),
                                span,
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
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

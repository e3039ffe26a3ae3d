//! The tree-walking evaluator: statements, expressions, scopes and calls.
//!
//! Scopes follow Python: a function's locals are the names it binds anywhere
//! in its body (found by [`CodeInfo::analyze`] when the `def` runs), so
//! reading one before assignment is an `UnboundLocalError`; other names are
//! looked up in enclosing functions (closures see later assignments, like
//! Python's cells), then the module globals, then the builtins.
//!
//! Control flow travels as `Err(Ctrl)` through statement execution; raised
//! exceptions carry the span of the innermost node that saw them and collect
//! one traceback entry per function they leave.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::dict::Dict;
use super::error::{Exc, ExcKind, PyErr, Res, TbEntry};
use super::host_object::{CoreObj, DefinitionKind, HostLibrary};
use super::source::Source;
use super::value::*;
use crate::{Backend, Host, Limits, Mime, OutputChunk, Stream};
use tessel_syntax::ast::{self, Expr, ExprKind, Stmt, StmtKind};
use tessel_syntax::diag::Span;

/// A subscript index evaluated by [`Interp::int_indices`].
enum IntIndex {
    /// Every item an integer (up to 8).
    Ints([i64; 8], usize),
    /// A tuple with other items.
    Other(Value),
    /// Not a plain tuple: evaluate it the general way.
    NotATuple,
}

/// Non-local control flow out of a statement.
pub enum Ctrl {
    Err(Box<PyErr>),
    Return(Value),
    Break,
    Continue,
}

impl From<Box<PyErr>> for Ctrl {
    fn from(e: Box<PyErr>) -> Ctrl {
        Ctrl::Err(e)
    }
}

pub type Flow = Result<(), Ctrl>;

/// Which names a function (or comprehension) binds, in slot order
/// (parameters first).
#[derive(Debug, Default)]
pub struct CodeInfo {
    pub locals: Vec<String>,
    pub globals: Vec<String>,
    pub nonlocals: Vec<String>,
    /// The body contains `yield`: calling the function runs it to the end
    /// and returns an iterator over what it yielded (generators are eager).
    pub generator: bool,
}

/// Name equality without a `memcmp` call (names are short; this is the
/// interpreter's hottest comparison).
#[inline]
pub(crate) fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// FNV-1a: a fast hasher for the short string keys of namespaces.
#[derive(Default, Clone, Copy)]
pub struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for b in bytes {
            h ^= *b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

/// A namespace map (globals, builtins).
pub type NameMap<K> = HashMap<K, Value, std::hash::BuildHasherDefault<Fnv>>;

impl CodeInfo {
    #[inline]
    pub fn slot(&self, name: &str) -> Option<usize> {
        self.locals.iter().position(|n| same_name(n, name))
    }

    /// Scope analysis of a function: parameters, then every other name the
    /// body binds, minus `global`/`nonlocal` declarations.
    pub fn analyze(params: &ast::Params, body: &[Stmt]) -> CodeInfo {
        let mut info = CodeInfo::default();
        for p in params.iter() {
            push_unique(&mut info.locals, &p.name);
        }
        let mut bound = Vec::new();
        for s in body {
            collect_stmt(s, &mut bound, &mut info.globals, &mut info.nonlocals);
        }
        for n in bound {
            if !info.globals.contains(&n) && !info.nonlocals.contains(&n) {
                push_unique(&mut info.locals, &n);
            }
        }
        info.generator = body.iter().any(stmt_yields);
        info
    }

    fn lambda(params: &ast::Params) -> CodeInfo {
        let mut info = CodeInfo::default();
        for p in params.iter() {
            push_unique(&mut info.locals, &p.name);
        }
        info
    }
}

/// Does a statement (outside nested functions and classes) contain `yield`?
fn stmt_yields(s: &Stmt) -> bool {
    let any = |b: &[Stmt]| b.iter().any(stmt_yields);
    match &s.kind {
        StmtKind::Expr(e) | StmtKind::Return(Some(e)) => expr_yields(e),
        StmtKind::Assign { targets, value } => {
            expr_yields(value) || targets.iter().any(expr_yields)
        }
        StmtKind::AugAssign { value, .. } => expr_yields(value),
        StmtKind::AnnAssign { value: Some(v), .. } => expr_yields(v),
        StmtKind::If { test, body, orelse } | StmtKind::While { test, body, orelse } => {
            expr_yields(test) || any(body) || any(orelse)
        }
        StmtKind::For {
            iter, body, orelse, ..
        } => expr_yields(iter) || any(body) || any(orelse),
        StmtKind::With { items, body } => {
            items.iter().any(|i| expr_yields(&i.context)) || any(body)
        }
        StmtKind::Try {
            body,
            handlers,
            orelse,
            finalbody,
        } => any(body) || handlers.iter().any(|h| any(&h.body)) || any(orelse) || any(finalbody),
        _ => false,
    }
}

fn expr_yields(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Yield(_) | ExprKind::YieldFrom(_) => true,
        ExprKind::Lambda { .. } => false,
        ExprKind::BinOp { left, right, .. } => expr_yields(left) || expr_yields(right),
        ExprKind::UnaryOp { operand, .. } => expr_yields(operand),
        ExprKind::BoolOp { values, .. } => values.iter().any(expr_yields),
        ExprKind::Compare {
            left, comparators, ..
        } => expr_yields(left) || comparators.iter().any(expr_yields),
        ExprKind::Call { func, args } => {
            expr_yields(func)
                || args.iter().any(|a| match a {
                    ast::Arg::Positional(x) | ast::Arg::Starred(x) | ast::Arg::DoubleStarred(x) => {
                        expr_yields(x)
                    }
                    ast::Arg::Keyword(k) => expr_yields(&k.value),
                })
        }
        ExprKind::Attribute { value, .. } => expr_yields(value),
        ExprKind::Subscript { value, index } => expr_yields(value) || expr_yields(index),
        ExprKind::Tuple(items) | ExprKind::List(items) | ExprKind::Set(items) => {
            items.iter().any(expr_yields)
        }
        ExprKind::IfExp { test, body, orelse } => {
            expr_yields(test) || expr_yields(body) || expr_yields(orelse)
        }
        ExprKind::NamedExpr { value, .. } => expr_yields(value),
        ExprKind::Starred(x) => expr_yields(x),
        _ => false,
    }
}

fn push_unique(v: &mut Vec<String>, n: &str) {
    if !v.iter().any(|x| x == n) {
        v.push(n.to_string());
    }
}

fn collect_target(e: &Expr, out: &mut Vec<String>) {
    match &e.kind {
        ExprKind::Name(n) => push_unique(out, n),
        ExprKind::Tuple(items) | ExprKind::List(items) => {
            for i in items {
                collect_target(i, out);
            }
        }
        ExprKind::Starred(inner) => collect_target(inner, out),
        _ => {}
    }
}

fn collect_stmt(
    s: &Stmt,
    out: &mut Vec<String>,
    globals: &mut Vec<String>,
    nonlocals: &mut Vec<String>,
) {
    let body = |b: &[Stmt], out: &mut Vec<String>, g: &mut Vec<String>, n: &mut Vec<String>| {
        for s in b {
            collect_stmt(s, out, g, n);
        }
    };
    match &s.kind {
        StmtKind::Assign { targets, .. } => {
            for t in targets {
                collect_target(t, out);
            }
        }
        StmtKind::AugAssign { target, .. } | StmtKind::AnnAssign { target, .. } => {
            collect_target(target, out)
        }
        StmtKind::For {
            target,
            body: b,
            orelse,
            ..
        } => {
            collect_target(target, out);
            body(b, out, globals, nonlocals);
            body(orelse, out, globals, nonlocals);
        }
        StmtKind::While {
            body: b, orelse, ..
        } => {
            body(b, out, globals, nonlocals);
            body(orelse, out, globals, nonlocals);
        }
        StmtKind::If {
            body: b, orelse, ..
        } => {
            body(b, out, globals, nonlocals);
            body(orelse, out, globals, nonlocals);
        }
        StmtKind::With { items, body: b } => {
            for i in items {
                if let Some(v) = &i.vars {
                    collect_target(v, out);
                }
            }
            body(b, out, globals, nonlocals);
        }
        StmtKind::Try {
            body: b,
            handlers,
            orelse,
            finalbody,
        } => {
            body(b, out, globals, nonlocals);
            for h in handlers {
                if let Some(n) = &h.name {
                    push_unique(out, &n.name);
                }
                body(&h.body, out, globals, nonlocals);
            }
            body(orelse, out, globals, nonlocals);
            body(finalbody, out, globals, nonlocals);
        }
        StmtKind::FunctionDef(d) => push_unique(out, &d.name),
        StmtKind::ClassDef(c) => push_unique(out, &c.name),
        StmtKind::Import(aliases) => {
            for a in aliases {
                match &a.asname {
                    Some(n) => push_unique(out, &n.name),
                    None => push_unique(out, a.name.name.split('.').next().unwrap_or("")),
                }
            }
        }
        StmtKind::ImportFrom { names, .. } => {
            for a in names {
                let n = a.asname.as_ref().unwrap_or(&a.name);
                if n.name != "*" {
                    push_unique(out, &n.name);
                }
            }
        }
        StmtKind::Delete(targets) => {
            for t in targets {
                collect_target(t, out);
            }
        }
        StmtKind::Global(names) => {
            for n in names {
                push_unique(globals, &n.name);
            }
        }
        StmtKind::Nonlocal(names) => {
            for n in names {
                push_unique(nonlocals, &n.name);
            }
        }
        _ => {}
    }
}

/// The local variables of one function activation (or comprehension).
pub struct Env {
    pub code: Rc<CodeInfo>,
    pub values: RefCell<Vec<Option<Value>>>,
    pub parent: Option<Rc<Env>>,
    /// A comprehension's scope: stores of other names go to the enclosing one.
    pub comprehension: bool,
}

/// The frame being executed.
#[derive(Clone)]
pub(crate) struct Frame {
    pub env: Option<Rc<Env>>,
    /// A class body's namespace.
    pub class_ns: Option<Rc<RefCell<HashMap<String, Value>>>>,
    pub source: Rc<Source>,
    /// The function being run (for `super()`).
    pub func: Option<Rc<Function>>,
}

/// The interpreter state: globals, imported modules, budgets, output.
/// Where output goes as it is produced (the UI streams it).
pub(crate) type OutputSink = Box<dyn FnMut(&OutputChunk)>;

pub struct Interp {
    pub(crate) globals: NameMap<String>,
    pub(crate) builtins: NameMap<&'static str>,
    pub(crate) types: super::builtins::Types,
    pub(crate) exc_classes: HashMap<ExcKind, Rc<Class>>,
    pub(crate) modules: HashMap<String, Value>,
    pub(crate) output: Vec<OutputChunk>,
    pub(crate) sink: Option<OutputSink>,
    pub(crate) limits: Limits,
    pub(crate) steps: u64,
    pub(crate) depth: u32,
    pub(crate) mem: Rc<MemTracker>,
    pub(crate) host: Rc<dyn Host>,
    pub(crate) backend: Rc<dyn Backend>,
    /// The host library's classes, decorators and operators (TVM's).
    pub(crate) library: Rc<dyn HostLibrary>,
    pub(crate) frame: Frame,
    /// Exceptions being handled, innermost last (for a bare `raise`): the
    /// exception, its traceback and its location in the raising frame.
    pub(crate) handling: Vec<(Value, Vec<TbEntry>, Option<Span>)>,
    pub(crate) next_cell: u32,
    pub(crate) code_cache: HashMap<(u32, u32), Rc<CodeInfo>>,
    pub(crate) def_cache: HashMap<(u32, u32), Rc<ast::FunctionDef>>,
    pub(crate) lambda_cache: HashMap<(u32, u32), (Rc<ast::Params>, Rc<Expr>)>,
    pub(crate) np_rng: super::numpy::random::Mt19937,
    /// Counter for host object ids (schedules, tensors).
    pub(crate) next_id: u64,
    /// Values yielded by the generator functions being run, innermost last.
    pub(crate) yields: Vec<Vec<Value>>,
    /// Bytes of output written by the current cell.
    pub(crate) out_bytes: u64,
    /// Tensor intrinsics registered by the session (`TensorIntrin.register`).
    pub(crate) intrins: compiler_core::schedule::TensorIntrinTable,
    /// The stack address when the cell started (see [`stack_addr`]).
    pub(crate) stack_base: usize,
    /// Deepest stack use seen in this cell, in bytes.
    pub(crate) stack_peak: usize,
}

/// An address on the current stack (the stack grows down on every target
/// Tessel runs on: x86-64, AArch64 and wasm32's shadow stack).
#[inline(always)]
pub(crate) fn stack_addr() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// `true` if `e` ran out of budget (no handler may catch it).
fn catchable(e: &PyErr) -> bool {
    !e.fatal
}

impl Interp {
    // ------------------------------------------------------------------
    // Budgets

    #[inline]
    pub(crate) fn tick(&mut self) -> Res<()> {
        self.steps += 1;
        if self.steps > self.limits.steps {
            return Err(PyErr::step_budget(self.limits.steps));
        }
        Ok(())
    }

    /// Charges `n` steps of built-in work (array operations, IR execution).
    pub(crate) fn charge_steps(&mut self, n: u64) -> Res<()> {
        self.steps = self.steps.saturating_add(n);
        if self.steps > self.limits.steps {
            return Err(PyErr::step_budget(self.limits.steps));
        }
        Ok(())
    }

    /// Fails when a cell's output would pass an eighth of the memory budget
    /// (64 MiB by default): output is kept in memory for the host.
    pub(crate) fn check_output(&self, more: usize) -> Res<()> {
        let limit = self.limits.memory / 8;
        if self.out_bytes.saturating_add(more as u64) > limit {
            return Err(PyErr::new(
                ExcKind::MemoryError,
                format!(
                    "script printed more than {} in one cell",
                    super::error::human_bytes(limit)
                ),
            ));
        }
        Ok(())
    }

    /// Records yielded values (generators run eagerly to the end).
    fn collect_yield(&mut self, items: Vec<Value>) -> Res<()> {
        let n = items.len() as u64;
        let Some(top) = self.yields.last_mut() else {
            return Err(PyErr::new(ExcKind::SyntaxError, "'yield' outside function"));
        };
        top.extend(items);
        let len = top.len() as u64;
        if len.is_power_of_two() || n > 1 {
            self.check_alloc(len * SLOT_BYTES)?;
        }
        Ok(())
    }

    /// Fails with `RecursionError` before the native stack runs out.
    #[inline]
    pub(crate) fn check_stack(&mut self) -> Res<()> {
        let used = self.stack_base.abs_diff(stack_addr());
        if used > self.stack_peak {
            self.stack_peak = used;
        }
        if used as u64 > self.limits.stack_bytes {
            return Err(PyErr::new(
                ExcKind::RecursionError,
                format!(
                    "maximum recursion depth exceeded (the script used {} KiB of its {} KiB native stack)",
                    used / 1024,
                    self.limits.stack_bytes / 1024
                ),
            ));
        }
        Ok(())
    }

    pub(crate) fn steps_left(&self) -> u64 {
        self.limits.steps.saturating_sub(self.steps)
    }

    // ------------------------------------------------------------------
    // Output

    pub(crate) fn write(&mut self, stream: Stream, text: String) {
        self.write_as(stream, text, Mime::Plain)
    }

    fn write_as(&mut self, stream: Stream, text: String, mime: Mime) {
        if text.is_empty() {
            return;
        }
        self.out_bytes = self.out_bytes.saturating_add(text.len() as u64);
        // Merge consecutive writes to the same stream.
        let chunk = OutputChunk { stream, text, mime };
        if let Some(sink) = &mut self.sink {
            sink(&chunk);
        }
        if let Some(last) = self.output.last_mut() {
            if last.stream == chunk.stream && stream != Stream::Display {
                last.text.push_str(&chunk.text);
                return;
            }
        }
        self.output.push(chunk);
    }

    pub(crate) fn stdout(&mut self, text: String) {
        self.write(Stream::Stdout, text)
    }

    // ------------------------------------------------------------------
    // Allocation helpers

    pub(crate) fn new_list(&mut self, items: Vec<Value>) -> Res<Value> {
        let charge = Charge::new(&self.mem);
        charge.set(items.len() as u64 * SLOT_BYTES)?;
        Ok(Value::List(Rc::new(List {
            items: RefCell::new(items),
            charge,
        })))
    }

    /// Re-charges a list after it changed size.
    pub(crate) fn recharge(&mut self, list: &List) -> Res<()> {
        let n = list.items.borrow().len() as u64;
        list.charge.set(n * SLOT_BYTES)
    }

    pub(crate) fn new_array(&mut self, a: compiler_core::eval::NDArray) -> Res<Value> {
        let charge = Charge::new(&self.mem);
        charge.set(array_bytes(&a))?;
        Ok(Value::Array(Rc::new(ArrayObj {
            data: RefCell::new(a),
            charge,
            base: None,
        })))
    }

    pub(crate) fn array_obj(&mut self, a: compiler_core::eval::NDArray) -> Res<Rc<ArrayObj>> {
        let charge = Charge::new(&self.mem);
        charge.set(array_bytes(&a))?;
        Ok(Rc::new(ArrayObj {
            data: RefCell::new(a),
            charge,
            base: None,
        }))
    }

    /// A view of `base` (itself possibly a view) at the given flat offsets.
    pub(crate) fn new_view(
        &mut self,
        base: &Rc<ArrayObj>,
        offs: Vec<usize>,
        data: compiler_core::eval::NDArray,
    ) -> Res<Value> {
        let (root, offs): (Rc<ArrayObj>, Vec<usize>) = match base.view_of() {
            Some((root, parent)) => (
                root.clone(),
                offs.iter()
                    .map(|&o| parent.get(o).copied().unwrap_or(0))
                    .collect(),
            ),
            None => (base.clone(), offs),
        };
        let charge = Charge::new(&self.mem);
        charge.set(array_bytes(&data))?;
        Ok(Value::Array(Rc::new(ArrayObj {
            data: RefCell::new(data),
            charge,
            base: Some((root, offs.into())),
        })))
    }

    /// Checks that an allocation of `bytes` would fit in the memory budget.
    pub(crate) fn check_alloc(&self, bytes: u64) -> Res<()> {
        self.mem.check(bytes)
    }

    pub(crate) fn new_dict(&self, d: Dict) -> Value {
        Value::Dict(Rc::new(RefCell::new(d)))
    }

    // ------------------------------------------------------------------
    // Running code

    /// Executes a cell's statements in the module frame. With `display_last`,
    /// a final expression statement's value is displayed like IPython does.
    pub(crate) fn exec_module(
        &mut self,
        module: &ast::Module,
        source: Rc<Source>,
        display_last: bool,
    ) -> Res<()> {
        self.frame = Frame {
            env: None,
            class_ns: None,
            source: source.clone(),
            func: None,
        };
        self.depth = 0;
        self.handling.clear();
        let n = module.body.len();
        for (i, stmt) in module.body.iter().enumerate() {
            let r = match (&stmt.kind, display_last && i + 1 == n) {
                (StmtKind::Expr(e), true) => self
                    .tick()
                    .and_then(|_| self.eval(e))
                    .and_then(|v| self.display_value(&v))
                    .map_err(Ctrl::Err),
                _ => self.exec_stmt(stmt),
            };
            match r {
                Ok(()) => {}
                Err(Ctrl::Err(mut e)) => {
                    let span = e.pending.take().unwrap_or(stmt.span);
                    e.tb.push(TbEntry {
                        source: source.clone(),
                        span,
                        func: "<module>".into(),
                    });
                    return Err(e);
                }
                Err(Ctrl::Return(_)) => {
                    return Err(
                        PyErr::new(ExcKind::SyntaxError, "'return' outside function").at(stmt.span),
                    )
                }
                Err(Ctrl::Break) | Err(Ctrl::Continue) => {
                    return Err(PyErr::new(
                        ExcKind::SyntaxError,
                        "'break' or 'continue' outside loop",
                    )
                    .at(stmt.span))
                }
            }
        }
        Ok(())
    }

    pub(crate) fn exec_block(&mut self, body: &[Stmt]) -> Flow {
        for s in body {
            self.exec_stmt(s)?;
        }
        Ok(())
    }

    pub(crate) fn exec_stmt(&mut self, s: &Stmt) -> Flow {
        self.check_stack().map_err(|e| Ctrl::Err(e.at(s.span)))?;
        self.tick().map_err(|e| Ctrl::Err(e.at(s.span)))?;
        match self.exec_stmt_inner(s) {
            Ok(()) => Ok(()),
            Err(Ctrl::Err(e)) => Err(Ctrl::Err(e.at(s.span))),
            Err(c) => Err(c),
        }
    }

    fn exec_stmt_inner(&mut self, s: &Stmt) -> Flow {
        match &s.kind {
            StmtKind::Expr(e) => {
                self.eval(e)?;
                Ok(())
            }
            StmtKind::Assign { targets, value } => {
                let v = self.eval(value)?;
                if let [t] = targets.as_slice() {
                    self.assign(t, v)?;
                } else {
                    for t in targets {
                        self.assign(t, v.clone())?;
                    }
                }
                Ok(())
            }
            StmtKind::AugAssign { target, op, value } => self.aug_assign(target, *op, value),
            StmtKind::AnnAssign { target, value, .. } => {
                if let Some(v) = value {
                    let v = self.eval(v)?;
                    self.assign(target, v)?;
                }
                Ok(())
            }
            StmtKind::FunctionDef(def) => self.exec_def(s, def),
            StmtKind::ClassDef(class) => self.exec_class(s, class),
            StmtKind::Return(v) => {
                let v = match v {
                    Some(e) => self.eval(e)?,
                    None => Value::None,
                };
                Err(Ctrl::Return(v))
            }
            StmtKind::If { test, body, orelse } => {
                let t = self.eval(test)?;
                if self.truthy(&t).map_err(|e| e.at(test.span))? {
                    self.exec_block(body)
                } else {
                    self.exec_block(orelse)
                }
            }
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
            } => self.exec_for(target, iter, body, orelse),
            StmtKind::While { test, body, orelse } => self.exec_while(test, body, orelse),
            StmtKind::Break => Err(Ctrl::Break),
            StmtKind::Continue => Err(Ctrl::Continue),
            StmtKind::Pass | StmtKind::Global(_) | StmtKind::Nonlocal(_) => Ok(()),
            StmtKind::Magic(_) => Ok(()),
            StmtKind::With { items, body } => self.exec_with(items, body),
            StmtKind::Import(aliases) => self.exec_import(aliases),
            StmtKind::ImportFrom {
                module,
                names,
                level,
            } => self.exec_import_from(module, names, *level),
            StmtKind::Assert { test, msg } => self.exec_assert(test, msg),
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
            } => self.exec_try(body, handlers, orelse, finalbody),
            StmtKind::Raise { exc, .. } => self.exec_raise(exc),
            StmtKind::Delete(targets) => {
                for t in targets {
                    self.delete(t)?;
                }
                Ok(())
            }
        }
    }

    #[inline(never)]
    fn exec_while(&mut self, test: &Expr, body: &[Stmt], orelse: &[Stmt]) -> Flow {
        loop {
            let t = self.eval(test)?;
            if !self.truthy(&t).map_err(|e| e.at(test.span))? {
                break;
            }
            self.tick()?;
            match self.exec_block(body) {
                Ok(()) | Err(Ctrl::Continue) => {}
                Err(Ctrl::Break) => return Ok(()),
                Err(e) => return Err(e),
            }
        }
        self.exec_block(orelse)
    }

    #[inline(never)]
    fn exec_import(&mut self, aliases: &[ast::Alias]) -> Flow {
        for a in aliases {
            let module = self.import_module(&a.name.name).map_err(|e| e.at(a.span))?;
            match &a.asname {
                Some(n) => self.store_name(&n.name, module)?,
                None => {
                    let top = a.name.name.split('.').next().unwrap_or("");
                    let top_mod = self.import_module(top).map_err(|e| e.at(a.span))?;
                    self.store_name(top, top_mod)?;
                }
            }
        }
        Ok(())
    }

    #[inline(never)]
    fn exec_import_from(
        &mut self,
        module: &Option<ast::Ident>,
        names: &[ast::Alias],
        level: u32,
    ) -> Flow {
        if level > 0 {
            return Err(PyErr::new(
                ExcKind::ImportError,
                "relative imports are not supported in a script",
            )
            .into());
        }
        let Some(m) = module else {
            return Err(PyErr::new(ExcKind::ImportError, "missing module name").into());
        };
        let module = self.import_module(&m.name).map_err(|e| e.at(m.span))?;
        for a in names {
            if a.name.name == "*" {
                if let Value::Module(mo) = &module {
                    let attrs: Vec<(String, Value)> = mo
                        .attrs
                        .borrow()
                        .iter()
                        .filter(|(k, _)| !k.starts_with('_'))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect();
                    for (k, v) in attrs {
                        self.store_name(&k, v)?;
                    }
                }
                continue;
            }
            let v = match self.get_attr(&module, &a.name.name) {
                Ok(v) => v,
                Err(_) => {
                    // `from a import b` where b is a submodule.
                    let full = format!("{}.{}", m.name, a.name.name);
                    self.import_module(&full).map_err(|_| {
                        PyErr::new(
                            ExcKind::ImportError,
                            format!("cannot import name '{}' from '{}'", a.name.name, m.name),
                        )
                        .at(a.span)
                    })?
                }
            };
            let local = a.asname.as_ref().unwrap_or(&a.name);
            self.store_name(&local.name, v)?;
        }
        Ok(())
    }

    #[inline(never)]
    fn exec_assert(&mut self, test: &Expr, msg: &Option<Expr>) -> Flow {
        let t = self.eval(test)?;
        if !self.truthy(&t)? {
            let args = match msg {
                Some(m) => vec![self.eval(m)?],
                None => vec![],
            };
            return Err(PyErr::with_args(ExcKind::AssertionError, args)
                .at(test.span)
                .into());
        }
        Ok(())
    }

    #[inline(never)]
    fn exec_raise(&mut self, exc: &Option<Expr>) -> Flow {
        let Some(exc) = exc else {
            return match self.handling.last() {
                Some((v, tb, pending)) => {
                    let mut e = PyErr::from_value(v.clone());
                    e.tb = tb.clone();
                    e.pending = *pending;
                    Err(e.into())
                }
                None => {
                    Err(PyErr::new(ExcKind::RuntimeError, "No active exception to reraise").into())
                }
            };
        };
        let v = self.eval(exc)?;
        let exc_value = self.make_exception(v)?;
        Err(PyErr::from_value(exc_value).into())
    }

    #[inline(never)]
    fn exec_for(&mut self, target: &Expr, iter: &Expr, body: &[Stmt], orelse: &[Stmt]) -> Flow {
        let it = self.eval(iter)?;
        let mut state = self.make_iter(&it).map_err(|e| e.at(iter.span))?;
        loop {
            let Some(item) = self.iter_next(&mut state).map_err(|e| e.at(iter.span))? else {
                break;
            };
            self.tick()?;
            self.assign(target, item)?;
            match self.exec_block(body) {
                Ok(()) | Err(Ctrl::Continue) => {}
                Err(Ctrl::Break) => return Ok(()),
                Err(e) => return Err(e),
            }
        }
        self.exec_block(orelse)
    }

    #[inline(never)]
    fn exec_with(&mut self, items: &[ast::WithItem], body: &[Stmt]) -> Flow {
        let Some((first, rest)) = items.split_first() else {
            return self.exec_block(body);
        };
        let ctx = self.eval(&first.context)?;
        let entered = match &ctx {
            Value::Instance(_) => {
                let enter = self
                    .get_attr(&ctx, "__enter__")
                    .map_err(|e| e.at(first.span))?;
                self.call(&enter, Args::default())?
            }
            _ => ctx.clone(),
        };
        if let Some(v) = &first.vars {
            self.assign(v, entered)?;
        }
        let r = if rest.is_empty() {
            self.exec_block(body)
        } else {
            self.exec_with(rest, body)
        };
        if let Value::Instance(_) = &ctx {
            let exit = self.get_attr(&ctx, "__exit__")?;
            let (args, suppress_allowed) = match &r {
                Err(Ctrl::Err(e)) if catchable(e) => {
                    let ev = self.exception_value(e);
                    let ty = self.type_of(&ev);
                    (vec![ty, ev, Value::None], true)
                }
                _ => (vec![Value::None, Value::None, Value::None], false),
            };
            let out = self.call(&exit, Args::new(args))?;
            if suppress_allowed && self.truthy(&out)? {
                return Ok(());
            }
        }
        r
    }

    #[inline(never)]
    fn exec_try(
        &mut self,
        body: &[Stmt],
        handlers: &[ast::ExceptHandler],
        orelse: &[Stmt],
        finalbody: &[Stmt],
    ) -> Flow {
        let result = match self.exec_block(body) {
            Err(Ctrl::Err(e)) if catchable(&e) => self.handle_exception(e, handlers),
            Ok(()) => self.exec_block(orelse),
            other => other,
        };
        if !finalbody.is_empty() {
            if let Err(Ctrl::Err(e)) = &result {
                if !catchable(e) {
                    return result;
                }
            }
            self.exec_block(finalbody)?;
        }
        result
    }

    #[inline(never)]
    fn handle_exception(&mut self, err: Box<PyErr>, handlers: &[ast::ExceptHandler]) -> Flow {
        let exc_value = self.exception_value(&err);
        for h in handlers {
            let matches = match &h.type_ {
                None => true,
                Some(t) => {
                    let tv = self.eval(t)?;
                    self.exception_matches(&exc_value, &tv)
                        .map_err(|e| e.at(t.span))?
                }
            };
            if !matches {
                continue;
            }
            if let Some(n) = &h.name {
                self.store_name(&n.name, exc_value.clone())?;
            }
            self.handling
                .push((exc_value.clone(), err.tb.clone(), err.pending));
            let r = self.exec_block(&h.body);
            self.handling.pop();
            if let Some(n) = &h.name {
                let _ = self.delete_name(&n.name);
            }
            return r;
        }
        // Not handled: keep the (materialized) exception and its traceback.
        let mut err = err;
        err.exc = Exc::Obj(exc_value);
        Err(Ctrl::Err(err))
    }

    /// Does the exception instance match an `except` clause's class (or tuple)?
    fn exception_matches(&mut self, exc: &Value, clause: &Value) -> Res<bool> {
        match clause {
            Value::Class(c) => {
                if c.exc_kind().is_none() {
                    return Err(PyErr::type_error(
                        "catching classes that do not inherit from BaseException is not allowed",
                    ));
                }
                let ec = self.class_of(exc);
                Ok(ec.is_subclass(c))
            }
            Value::Tuple(items) => {
                for i in items.iter() {
                    if self.exception_matches(exc, i)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            _ => Err(PyErr::type_error(
                "catching classes that do not inherit from BaseException is not allowed",
            )),
        }
    }

    /// The exception as a Python object (materializing a lazy one).
    pub(crate) fn exception_value(&mut self, e: &PyErr) -> Value {
        match &e.exc {
            Exc::Obj(v) => v.clone(),
            Exc::Lazy { kind, args } => self.new_exception(*kind, args.clone()),
        }
    }

    pub(crate) fn new_exception(&mut self, kind: ExcKind, args: Vec<Value>) -> Value {
        let class = self.exc_class(kind);
        let mut dict = HashMap::new();
        dict.insert("args".to_string(), Value::tuple(args));
        Value::Instance(Rc::new(Instance {
            class,
            dict: RefCell::new(dict),
        }))
    }

    pub(crate) fn exc_class(&self, kind: ExcKind) -> Rc<Class> {
        match self.exc_classes.get(&kind) {
            Some(c) => c.clone(),
            None => self.types.object.clone(),
        }
    }

    /// `raise X` / `raise X(...)`: the value to raise.
    fn make_exception(&mut self, v: Value) -> Res<Value> {
        match &v {
            Value::Class(c) if c.exc_kind().is_some() => self.call(&v, Args::default()),
            Value::Instance(i) if i.class.exc_kind().is_some() => Ok(v),
            _ => Err(PyErr::type_error(
                "exceptions must derive from BaseException",
            )),
        }
    }

    // ------------------------------------------------------------------
    // Assignment

    pub(crate) fn assign(&mut self, target: &Expr, v: Value) -> Res<()> {
        match &target.kind {
            ExprKind::Name(n) => self.store_name(n, v),
            ExprKind::Tuple(items) | ExprKind::List(items) => self.unpack(target, items, v),
            ExprKind::Attribute { value, attr, .. } => {
                let obj = self.eval(value)?;
                self.set_attr(&obj, attr, v).map_err(|e| e.at(target.span))
            }
            ExprKind::Subscript { value, index } => {
                let obj = self.eval(value)?;
                if let Value::Array(arr) = &obj {
                    match self.int_indices(index)? {
                        IntIndex::Ints(idx, n) => {
                            return super::numpy::set_scalar_fast(self, arr, &idx[..n], v)
                                .map_err(|e| e.at(target.span));
                        }
                        IntIndex::Other(idx) => {
                            return self.set_item(&obj, idx, v).map_err(|e| e.at(target.span))
                        }
                        IntIndex::NotATuple => {}
                    }
                }
                let idx = self.eval_index(index)?;
                self.set_item(&obj, idx, v).map_err(|e| e.at(target.span))
            }
            ExprKind::Starred(_) => Err(PyErr::new(
                ExcKind::SyntaxError,
                "starred assignment target must be in a list or tuple",
            )),
            _ => Err(PyErr::new(
                ExcKind::SyntaxError,
                "cannot assign to expression",
            )),
        }
    }

    #[inline(never)]
    fn unpack(&mut self, target: &Expr, items: &[Expr], v: Value) -> Res<()> {
        let values = self.items_of(&v).map_err(|_| {
            PyErr::type_error(format!(
                "cannot unpack non-iterable {} object",
                v.type_name()
            ))
            .at(target.span)
        })?;
        let star = items
            .iter()
            .position(|i| matches!(i.kind, ExprKind::Starred(_)));
        match star {
            None => {
                if values.len() != items.len() {
                    let msg = if values.len() > items.len() {
                        format!("too many values to unpack (expected {})", items.len())
                    } else {
                        format!(
                            "not enough values to unpack (expected {}, got {})",
                            items.len(),
                            values.len()
                        )
                    };
                    return Err(PyErr::value_error(msg).at(target.span));
                }
                for (t, x) in items.iter().zip(values) {
                    self.assign(t, x)?;
                }
                Ok(())
            }
            Some(si) => {
                let after = items.len() - si - 1;
                if values.len() < si + after {
                    return Err(PyErr::value_error(format!(
                        "not enough values to unpack (expected at least {}, got {})",
                        si + after,
                        values.len()
                    ))
                    .at(target.span));
                }
                let mut values = values;
                let tail = values.split_off(values.len() - after);
                let middle = values.split_off(si);
                for (t, x) in items[..si].iter().zip(values) {
                    self.assign(t, x)?;
                }
                if let Some(ExprKind::Starred(inner)) = items.get(si).map(|e| &e.kind) {
                    let list = self.new_list(middle)?;
                    self.assign(inner, list)?;
                }
                for (t, x) in items[si + 1..].iter().zip(tail) {
                    self.assign(t, x)?;
                }
                Ok(())
            }
        }
    }

    #[inline(never)]
    fn aug_assign(&mut self, target: &Expr, op: ast::BinOp, value: &Expr) -> Flow {
        match &target.kind {
            ExprKind::Name(n) => {
                let cur = self.load_name(n).map_err(|e| e.at(target.span))?;
                let rhs = self.eval(value)?;
                let v = self.inplace_op(op, cur, rhs)?;
                self.store_name(n, v)?;
            }
            ExprKind::Attribute {
                value: obj, attr, ..
            } => {
                let o = self.eval(obj)?;
                let cur = self.get_attr(&o, attr).map_err(|e| e.at(target.span))?;
                let rhs = self.eval(value)?;
                let v = self.inplace_op(op, cur, rhs)?;
                self.set_attr(&o, attr, v)?;
            }
            ExprKind::Subscript { value: obj, index } => {
                let o = self.eval(obj)?;
                let idx = self.eval_index(index)?;
                let cur = self
                    .get_item(&o, idx.clone())
                    .map_err(|e| e.at(target.span))?;
                let rhs = self.eval(value)?;
                let v = self.inplace_op(op, cur, rhs)?;
                self.set_item(&o, idx, v)?;
            }
            _ => {
                return Err(PyErr::new(
                    ExcKind::SyntaxError,
                    "illegal expression for augmented assignment",
                )
                .into())
            }
        }
        Ok(())
    }

    /// `a op= b`: lists extend in place, arrays update in place.
    fn inplace_op(&mut self, op: ast::BinOp, cur: Value, rhs: Value) -> Res<Value> {
        match (&cur, op) {
            (Value::List(l), ast::BinOp::Add) => {
                let items = self.items_of(&rhs)?;
                l.borrow_mut().extend(items);
                self.recharge(l)?;
                Ok(cur)
            }
            (Value::Array(a), _) => {
                let result = self.binary_op(op, cur.clone(), rhs)?;
                super::numpy::assign_all(self, a, &result)?;
                Ok(cur)
            }
            _ => self.binary_op(op, cur, rhs),
        }
    }

    #[inline(never)]
    fn delete(&mut self, target: &Expr) -> Res<()> {
        match &target.kind {
            ExprKind::Name(n) => self.delete_name(n).map_err(|e| e.at(target.span)),
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                for i in items {
                    self.delete(i)?;
                }
                Ok(())
            }
            ExprKind::Subscript { value, index } => {
                let obj = self.eval(value)?;
                let idx = self.eval_index(index)?;
                self.del_item(&obj, idx).map_err(|e| e.at(target.span))
            }
            ExprKind::Attribute { value, attr, .. } => {
                let obj = self.eval(value)?;
                match &obj {
                    Value::Instance(i) => {
                        if i.dict.borrow_mut().remove(attr.as_str()).is_none() {
                            return Err(PyErr::attribute_error(format!(
                                "'{}' object has no attribute '{}'",
                                i.class.name, attr
                            )));
                        }
                        Ok(())
                    }
                    _ => Err(PyErr::attribute_error(format!(
                        "cannot delete attribute '{attr}' of '{}' object",
                        obj.type_name()
                    ))),
                }
            }
            _ => Err(PyErr::new(ExcKind::SyntaxError, "cannot delete expression")),
        }
    }

    // ------------------------------------------------------------------
    // Names

    pub(crate) fn load_name(&self, name: &str) -> Res<Value> {
        if let Some(ns) = &self.frame.class_ns {
            if let Some(v) = ns.borrow().get(name) {
                return Ok(v.clone());
            }
        }
        let mut env = self.frame.env.as_ref();
        let mut own = true;
        while let Some(e) = env {
            if let Some(i) = e.code.slot(name) {
                if let Some(Some(v)) = e.values.borrow().get(i) {
                    return Ok(v.clone());
                }
                return Err(if own {
                    PyErr::new(
                ExcKind::UnboundLocalError,
                format!("cannot access local variable '{name}' where it is not associated with a value"),
            )
                } else {
                    PyErr::new(
                ExcKind::NameError,
                format!("cannot access free variable '{name}' where it is not associated with a value in enclosing scope"),
            )
                });
            }
            if e.code.globals.iter().any(|g| g == name) {
                break;
            }
            if !e.comprehension {
                own = false;
            }
            env = e.parent.as_ref();
        }
        if let Some(v) = self.globals.get(name) {
            return Ok(v.clone());
        }
        if let Some(v) = self.builtins.get(name) {
            return Ok(v.clone());
        }
        Err(PyErr::new(
            ExcKind::NameError,
            format!("name '{name}' is not defined"),
        ))
    }

    pub(crate) fn store_name(&mut self, name: &str, v: Value) -> Res<()> {
        if let Some(ns) = &self.frame.class_ns {
            ns.borrow_mut().insert(name.to_string(), v);
            return Ok(());
        }
        let mut env = self.frame.env.as_ref();
        while let Some(e) = env {
            if let Some(i) = e.code.slot(name) {
                if let Some(slot) = e.values.borrow_mut().get_mut(i) {
                    *slot = Some(v);
                }
                return Ok(());
            }
            if e.code.nonlocals.iter().any(|n| n == name) {
                let mut p = e.parent.as_ref();
                while let Some(pe) = p {
                    if let Some(i) = pe.code.slot(name) {
                        if let Some(slot) = pe.values.borrow_mut().get_mut(i) {
                            *slot = Some(v);
                        }
                        return Ok(());
                    }
                    p = pe.parent.as_ref();
                }
                return Err(PyErr::new(
                    ExcKind::SyntaxError,
                    format!("no binding for nonlocal '{name}' found"),
                ));
            }
            if e.comprehension {
                env = e.parent.as_ref();
                continue;
            }
            break;
        }
        match self.globals.get_mut(name) {
            Some(slot) => *slot = v,
            None => {
                self.globals.insert(name.to_string(), v);
            }
        }
        Ok(())
    }

    fn delete_name(&mut self, name: &str) -> Res<()> {
        if let Some(ns) = &self.frame.class_ns {
            if ns.borrow_mut().remove(name).is_some() {
                return Ok(());
            }
        }
        if let Some(e) = &self.frame.env {
            if let Some(i) = e.code.slot(name) {
                if let Some(slot) = e.values.borrow_mut().get_mut(i) {
                    if slot.take().is_some() {
                        return Ok(());
                    }
                }
                return Err(PyErr::new(
            ExcKind::UnboundLocalError,
            format!("cannot access local variable '{name}' where it is not associated with a value"),
        ));
            }
        }
        if self.globals.remove(name).is_none() {
            return Err(PyErr::new(
                ExcKind::NameError,
                format!("name '{name}' is not defined"),
            ));
        }
        Ok(())
    }

    // ------------------------------------------------------------------
    // Definitions

    fn cached_def(&mut self, def: &ast::FunctionDef, span: Span) -> Rc<ast::FunctionDef> {
        let key = (self.frame.source.id, span.start);
        if let Some(d) = self.def_cache.get(&key) {
            return d.clone();
        }
        let d = Rc::new(def.clone());
        self.def_cache.insert(key, d.clone());
        d
    }

    fn cached_code(&mut self, span: Span, make: impl FnOnce() -> CodeInfo) -> Rc<CodeInfo> {
        let key = (self.frame.source.id, span.start);
        if let Some(c) = self.code_cache.get(&key) {
            return c.clone();
        }
        let c = Rc::new(make());
        self.code_cache.insert(key, c.clone());
        c
    }

    fn eval_defaults(&mut self, params: &ast::Params) -> Res<Vec<Option<Value>>> {
        let mut out = Vec::new();
        for p in params
            .posonly
            .iter()
            .chain(&params.args)
            .chain(&params.kwonly)
        {
            out.push(match &p.default {
                Some(d) => Some(self.eval(d)?),
                None => None,
            });
        }
        Ok(out)
    }

    fn qualname(&self, name: &str) -> Rc<str> {
        match &self.frame.func {
            Some(f) if self.frame.class_ns.is_none() => {
                format!("{}.<locals>.{name}", f.qualname).into()
            }
            _ => match &self.frame.class_ns {
                Some(ns) => match ns.borrow().get("__qualname__") {
                    Some(Value::Str(q)) => format!("{q}.{name}").into(),
                    _ => name.into(),
                },
                None => name.into(),
            },
        }
    }

    #[inline(never)]
    fn exec_def(&mut self, s: &Stmt, def: &ast::FunctionDef) -> Flow {
        let mut decorators = Vec::with_capacity(def.decorators.len());
        for d in &def.decorators {
            decorators.push(self.eval(d)?);
        }
        if let Some(k) = decorators.iter().position(|d| {
            self.library
                .is_source_decorator(d, DefinitionKind::Function)
        }) {
            let at = def.decorators.get(k).map_or(def.name_span, |d| d.span);
            let library = self.library.clone();
            let v = library.build_definition(self, s).map_err(|e| e.at(at))?;
            self.store_name(&def.name, v)?;
            return Ok(());
        }
        let defaults = self.eval_defaults(&def.params)?;
        let d = self.cached_def(def, s.span);
        let code = self.cached_code(s.span, || CodeInfo::analyze(&d.params, &d.body));
        let f = Value::Func(Rc::new(Function {
            name: def.name.as_str().into(),
            qualname: self.qualname(&def.name),
            params: Rc::new(d.params.clone()),
            body: FuncBody::Def(d),
            code,
            defaults,
            closure: self.frame.env.clone(),
            source: self.frame.source.clone(),
            span: def.name_span,
            attrs: RefCell::new(HashMap::new()),
            owner: RefCell::new(None),
        }));
        let mut v = f;
        for (dec, expr) in decorators.iter().zip(&def.decorators).rev() {
            v = self
                .call(dec, Args::new(vec![v]))
                .map_err(|e| e.at(expr.span))?;
        }
        self.store_name(&def.name, v)?;
        Ok(())
    }

    #[inline(never)]
    fn exec_class(&mut self, s: &Stmt, class: &ast::ClassDef) -> Flow {
        let mut decorators = Vec::with_capacity(class.decorators.len());
        for d in &class.decorators {
            decorators.push(self.eval(d)?);
        }
        if let Some(k) = decorators
            .iter()
            .position(|d| self.library.is_source_decorator(d, DefinitionKind::Class))
        {
            let at = class.decorators.get(k).map_or(class.name_span, |d| d.span);
            let library = self.library.clone();
            let v = library.build_definition(self, s).map_err(|e| e.at(at))?;
            self.store_name(&class.name, v)?;
            return Ok(());
        }
        let mut bases = Vec::new();
        for b in &class.bases {
            match self.eval(b)? {
                Value::Class(c) => bases.push(c),
                other => {
                    return Err(PyErr::type_error(format!(
                        "a class can only derive from classes, not {}",
                        other.type_name()
                    ))
                    .at(b.span)
                    .into())
                }
            }
        }
        let qualname = self.qualname(&class.name);
        let ns = Rc::new(RefCell::new(HashMap::new()));
        ns.borrow_mut()
            .insert("__qualname__".to_string(), Value::str(qualname.clone()));
        ns.borrow_mut()
            .insert("__module__".to_string(), Value::str("__main__"));
        let saved = self.frame.clone();
        self.frame.class_ns = Some(ns.clone());
        let r = self.exec_block(&class.body);
        self.frame = saved;
        r?;
        let mut dict = std::mem::take(&mut *ns.borrow_mut());
        dict.remove("__qualname__");
        let cls =
            super::builtins::make_class(&class.name, "__main__", bases, dict, &self.types.object);
        // Functions defined in the body remember their class (for `super()`).
        for v in cls.dict.borrow().values() {
            if let Some(f) = super::builtins::underlying_function(v) {
                *f.owner.borrow_mut() = Some(Rc::downgrade(&cls));
            }
        }
        let mut v = Value::Class(cls);
        for (dec, expr) in decorators.iter().zip(&class.decorators).rev() {
            v = self
                .call(dec, Args::new(vec![v]))
                .map_err(|e| e.at(expr.span))?;
        }
        self.store_name(&class.name, v)?;
        Ok(())
    }

    // ------------------------------------------------------------------
    // Expressions

    #[inline]
    pub(crate) fn eval(&mut self, e: &Expr) -> Res<Value> {
        match &e.kind {
            // Fast paths that cannot fail.
            ExprKind::Int(i) => Ok(Value::Int(*i)),
            _ => self.eval_inner(e).map_err(|err| err.at(e.span)),
        }
    }

    fn eval_inner(&mut self, e: &Expr) -> Res<Value> {
        match &e.kind {
            ExprKind::Name(n) => self.load_name(n),
            ExprKind::Int(i) => Ok(Value::Int(*i)),
            ExprKind::Float(f) => Ok(Value::Float(*f)),
            ExprKind::Str(s) => Ok(Value::str(s.as_str())),
            ExprKind::Bool(b) => Ok(Value::Bool(*b)),
            ExprKind::NoneLit => Ok(Value::None),
            ExprKind::Ellipsis => Ok(CoreObj::Ellipsis.value()),
            ExprKind::Imag(_) => Err(PyErr::type_error("complex numbers are not supported")),
            ExprKind::Bytes(_) => Err(PyErr::type_error("bytes literals are not supported")),
            ExprKind::FString(parts) => self.eval_fstring(parts),
            ExprKind::BoolOp { op, values } => self.eval_boolop(op, values),
            ExprKind::BinOp { left, op, right } => {
                let l = self.eval(left)?;
                let r = self.eval(right)?;
                self.binary_op(*op, l, r)
            }
            ExprKind::UnaryOp { op, operand } => {
                let v = self.eval(operand)?;
                self.unary_op(*op, v)
            }
            ExprKind::Compare {
                left,
                ops,
                comparators,
            } => self.eval_compare(left, ops, comparators),
            ExprKind::Call { func, args } => self.eval_call(func, args),
            ExprKind::Attribute { value, attr, .. } => {
                let v = self.eval(value)?;
                self.get_attr(&v, attr)
            }
            ExprKind::Subscript { value, index } => self.eval_subscript(value, index),
            ExprKind::Slice { .. } => Err(PyErr::new(
                ExcKind::SyntaxError,
                "a slice is only valid inside `[...]`",
            )),
            ExprKind::Starred(_) => Err(PyErr::new(
                ExcKind::SyntaxError,
                "can't use starred expression here",
            )),
            ExprKind::Tuple(items) => Ok(Value::tuple(self.eval_items(items)?)),
            ExprKind::List(items) => {
                let v = self.eval_items(items)?;
                self.new_list(v)
            }
            ExprKind::Set(items) => self.eval_set(items),
            ExprKind::Dict(entries) => self.eval_dict(entries),
            ExprKind::ListComp { .. }
            | ExprKind::GeneratorExp { .. }
            | ExprKind::SetComp { .. }
            | ExprKind::DictComp { .. } => self.eval_comp(e),
            ExprKind::IfExp { test, body, orelse } => {
                let t = self.eval(test)?;
                if self.truthy(&t)? {
                    self.eval(body)
                } else {
                    self.eval(orelse)
                }
            }
            ExprKind::Lambda { params, body } => self.make_lambda(e.span, params, body),
            ExprKind::NamedExpr { target, value } => {
                let v = self.eval(value)?;
                self.assign(target, v.clone())?;
                Ok(v)
            }
            ExprKind::Yield(v) => {
                let v = match v {
                    Some(x) => self.eval(x)?,
                    None => Value::None,
                };
                self.collect_yield(vec![v])?;
                Ok(Value::None)
            }
            ExprKind::YieldFrom(x) => {
                let v = self.eval(x)?;
                let items = self.items_of(&v)?;
                self.collect_yield(items)?;
                Ok(Value::None)
            }
        }
    }

    #[inline(never)]
    fn eval_boolop(&mut self, op: &ast::BoolOp, values: &[Expr]) -> Res<Value> {
        let mut last = Value::None;
        for (i, v) in values.iter().enumerate() {
            last = self.eval(v)?;
            if i + 1 == values.len() {
                break;
            }
            let t = self.truthy(&last)?;
            match op {
                ast::BoolOp::And if !t => return Ok(last),
                ast::BoolOp::Or if t => return Ok(last),
                _ => {}
            }
        }
        Ok(last)
    }

    #[inline(never)]
    fn eval_compare(
        &mut self,
        left: &Expr,
        ops: &[ast::CmpOp],
        comparators: &[Expr],
    ) -> Res<Value> {
        let mut l = self.eval(left)?;
        let mut result = Value::Bool(true);
        for (op, c) in ops.iter().zip(comparators) {
            let r = self.eval(c)?;
            result = self.compare(*op, &l, &r)?;
            if ops.len() > 1 && !self.truthy(&result)? {
                return Ok(result);
            }
            l = r;
        }
        Ok(result)
    }

    #[inline(never)]
    fn eval_set(&mut self, items: &[Expr]) -> Res<Value> {
        let v = self.eval_items(items)?;
        let mut d = Dict::new();
        for x in v {
            d.insert(x, Value::None)?;
        }
        Ok(Value::Set(Rc::new(RefCell::new(d))))
    }

    #[inline(never)]
    fn eval_dict(&mut self, entries: &[(Option<Expr>, Expr)]) -> Res<Value> {
        let mut d = Dict::new();
        for (k, v) in entries {
            match k {
                Some(k) => {
                    let kv = self.eval(k)?;
                    let vv = self.eval(v)?;
                    d.insert(kv, vv).map_err(|e| e.at(k.span))?;
                }
                None => {
                    let m = self.eval(v)?;
                    for (k, v) in self.dict_items(&m).map_err(|e| e.at(v.span))? {
                        d.insert(k, v)?;
                    }
                }
            }
        }
        Ok(self.new_dict(d))
    }

    #[inline(never)]
    fn eval_comp(&mut self, e: &Expr) -> Res<Value> {
        match &e.kind {
            ExprKind::ListComp { elt, generators } => {
                let mut out = Vec::new();
                self.comprehension(e.span, generators, &mut |it| {
                    out.push(it.eval(elt)?);
                    if out.len() % 4096 == 0 {
                        it.check_alloc(out.len() as u64 * SLOT_BYTES)?;
                    }
                    Ok(())
                })?;
                self.new_list(out)
            }
            ExprKind::GeneratorExp { elt, generators } => {
                let mut out = Vec::new();
                self.comprehension(e.span, generators, &mut |it| {
                    out.push(it.eval(elt)?);
                    it.check_alloc(out.len() as u64 * SLOT_BYTES)?;
                    Ok(())
                })?;
                Ok(Value::Iter(Rc::new(RefCell::new(IterState::Seq {
                    items: out.into(),
                    index: 0,
                }))))
            }
            ExprKind::SetComp { elt, generators } => {
                let mut d = Dict::new();
                self.comprehension(e.span, generators, &mut |it| {
                    let v = it.eval(elt)?;
                    if d.len() % 4096 == 4095 {
                        it.check_alloc((d.len() as u64 + 1) * 3 * SLOT_BYTES)?;
                    }
                    d.insert(v, Value::None)
                })?;
                Ok(Value::Set(Rc::new(RefCell::new(d))))
            }
            ExprKind::DictComp {
                key,
                value,
                generators,
            } => {
                let mut d = Dict::new();
                self.comprehension(e.span, generators, &mut |it| {
                    let k = it.eval(key)?;
                    let v = it.eval(value)?;
                    if d.len() % 4096 == 4095 {
                        it.check_alloc((d.len() as u64 + 1) * 4 * SLOT_BYTES)?;
                    }
                    d.insert(k, v)
                })?;
                Ok(self.new_dict(d))
            }
            _ => Ok(Value::None),
        }
    }

    #[inline(never)]
    fn eval_subscript(&mut self, value: &Expr, index: &Expr) -> Res<Value> {
        let v = self.eval(value)?;
        if let Value::Array(arr) = &v {
            match self.int_indices(index)? {
                IntIndex::Ints(idx, n) => {
                    if let Some(r) = super::numpy::get_scalar_fast(arr, &idx[..n]) {
                        return r;
                    }
                    let vals = idx[..n].iter().map(|&i| Value::Int(i)).collect();
                    return self.get_item(&v, Value::tuple(vals));
                }
                IntIndex::Other(idx) => return self.get_item(&v, idx),
                IntIndex::NotATuple => {}
            }
        }
        let idx = self.eval_index(index)?;
        self.get_item(&v, idx)
    }

    /// Evaluates a tuple index `[i, j, …]` without allocating when every
    /// item is an integer (the inner loops of NumPy-style code).
    fn int_indices(&mut self, index: &Expr) -> Res<IntIndex> {
        let ExprKind::Tuple(items) = &index.kind else {
            return Ok(IntIndex::NotATuple);
        };
        if items.len() > 8
            || items
                .iter()
                .any(|i| matches!(i.kind, ExprKind::Slice { .. } | ExprKind::Starred(_)))
        {
            return Ok(IntIndex::NotATuple);
        }
        let mut idx = [0i64; 8];
        for (k, item) in items.iter().enumerate() {
            match self.eval(item)? {
                Value::Int(i) => idx[k] = i,
                other => {
                    // Not all integers: build the tuple from what we have.
                    let mut vals: Vec<Value> = idx[..k].iter().map(|&i| Value::Int(i)).collect();
                    vals.push(other);
                    for rest in &items[k + 1..] {
                        vals.push(self.eval(rest)?);
                    }
                    return Ok(IntIndex::Other(Value::tuple(vals)));
                }
            }
        }
        Ok(IntIndex::Ints(idx, items.len()))
    }

    #[inline(never)]
    fn make_lambda(&mut self, span: Span, params: &ast::Params, body: &Expr) -> Res<Value> {
        let defaults = self.eval_defaults(params)?;
        let key = (self.frame.source.id, span.start);
        let (p, b) = match self.lambda_cache.get(&key) {
            Some(x) => x.clone(),
            None => {
                let x = (Rc::new(params.clone()), Rc::new(body.clone()));
                self.lambda_cache.insert(key, x.clone());
                x
            }
        };
        let code = self.cached_code(span, || CodeInfo::lambda(params));
        Ok(Value::Func(Rc::new(Function {
            name: "<lambda>".into(),
            qualname: self.qualname("<lambda>"),
            params: p,
            body: FuncBody::Lambda(b),
            code,
            defaults,
            closure: self.frame.env.clone(),
            source: self.frame.source.clone(),
            span,
            attrs: RefCell::new(HashMap::new()),
            owner: RefCell::new(None),
        })))
    }

    fn eval_items(&mut self, items: &[Expr]) -> Res<Vec<Value>> {
        let mut out = Vec::with_capacity(items.len());
        for i in items {
            match &i.kind {
                ExprKind::Starred(inner) => {
                    let v = self.eval(inner)?;
                    out.extend(self.items_of(&v).map_err(|e| e.at(i.span))?);
                }
                _ => out.push(self.eval(i)?),
            }
        }
        Ok(out)
    }

    /// The index of a subscript: slices become slice objects.
    pub(crate) fn eval_index(&mut self, index: &Expr) -> Res<Value> {
        match &index.kind {
            ExprKind::Slice { lower, upper, step } => {
                let part = |p: &Option<Box<Expr>>, it: &mut Self| -> Res<Value> {
                    match p {
                        Some(x) => it.eval(x),
                        None => Ok(Value::None),
                    }
                };
                let start = part(lower, self)?;
                let stop = part(upper, self)?;
                let step = part(step, self)?;
                Ok(Value::Slice(Rc::new(SliceObj { start, stop, step })))
            }
            ExprKind::Tuple(items)
                if items
                    .iter()
                    .any(|i| matches!(i.kind, ExprKind::Slice { .. })) =>
            {
                let mut out = Vec::with_capacity(items.len());
                for i in items {
                    out.push(self.eval_index(i)?);
                }
                Ok(Value::tuple(out))
            }
            _ => self.eval(index),
        }
    }

    #[inline(never)]
    fn comprehension(
        &mut self,
        span: Span,
        gens: &[ast::Comprehension],
        emit: &mut dyn FnMut(&mut Self) -> Res<()>,
    ) -> Res<()> {
        let code = self.cached_code(span, || {
            let mut info = CodeInfo::default();
            for g in gens {
                collect_target(&g.target, &mut info.locals);
            }
            info
        });
        let Some(first) = gens.first() else {
            return Ok(());
        };
        // The first iterable is evaluated in the enclosing scope.
        let first_iter = self.eval(&first.iter)?;
        let env = Rc::new(Env {
            values: RefCell::new(vec![None; code.locals.len()]),
            code,
            parent: self.frame.env.clone(),
            comprehension: true,
        });
        let saved_env = self.frame.env.replace(env);
        let saved_ns = self.frame.class_ns.take();
        let r = self.comp_level(gens, 0, Some(first_iter), emit);
        self.frame.env = saved_env;
        self.frame.class_ns = saved_ns;
        r
    }

    fn comp_level(
        &mut self,
        gens: &[ast::Comprehension],
        level: usize,
        iter: Option<Value>,
        emit: &mut dyn FnMut(&mut Self) -> Res<()>,
    ) -> Res<()> {
        let Some(g) = gens.get(level) else {
            return emit(self);
        };
        let it = match iter {
            Some(v) => v,
            None => self.eval(&g.iter)?,
        };
        let mut state = self.make_iter(&it).map_err(|e| e.at(g.iter.span))?;
        'outer: while let Some(item) = self.iter_next(&mut state)? {
            self.tick()?;
            self.assign(&g.target, item)?;
            for cond in &g.ifs {
                let c = self.eval(cond)?;
                if !self.truthy(&c)? {
                    continue 'outer;
                }
            }
            self.comp_level(gens, level + 1, None, emit)?;
        }
        Ok(())
    }

    // ------------------------------------------------------------------
    // Calls

    fn eval_args(&mut self, args: &[ast::Arg]) -> Res<Args> {
        let mut out = Args::default();
        for a in args {
            match a {
                ast::Arg::Positional(e) => match &e.kind {
                    ExprKind::Starred(inner) => {
                        let v = self.eval(inner)?;
                        out.pos
                            .extend(self.items_of(&v).map_err(|err| err.at(e.span))?);
                    }
                    _ => out.pos.push(self.eval(e)?),
                },
                ast::Arg::Starred(e) => {
                    let inner = match &e.kind {
                        ExprKind::Starred(inner) => inner,
                        _ => e,
                    };
                    let v = self.eval(inner)?;
                    out.pos
                        .extend(self.items_of(&v).map_err(|err| err.at(e.span))?);
                }
                ast::Arg::Keyword(k) => {
                    let v = self.eval(&k.value)?;
                    out.kw.push((k.name.as_str().into(), v));
                }
                ast::Arg::DoubleStarred(e) => {
                    let v = self.eval(e)?;
                    for (k, v) in self.dict_items(&v).map_err(|err| err.at(e.span))? {
                        match k {
                            Value::Str(s) => out.kw.push((s, v)),
                            _ => {
                                return Err(PyErr::type_error("keywords must be strings").at(e.span))
                            }
                        }
                    }
                }
            }
        }
        Ok(out)
    }

    fn eval_call(&mut self, func: &Expr, args: &[ast::Arg]) -> Res<Value> {
        self.check_stack()?;
        if let ExprKind::Attribute { value, attr, .. } = &func.kind {
            let recv = self.eval(value)?;
            if let Value::Module(_) = &recv {
                // As in CPython: the attribute is looked up before the
                // arguments are evaluated, and a missing one is reported at
                // `mod.name`, not at the whole call.
                let f = self.get_attr(&recv, attr).map_err(|e| e.at(func.span))?;
                let a = self.eval_args(args)?;
                return self.call(&f, a);
            }
            let a = self.eval_args(args)?;
            return self.call_method(&recv, attr, a);
        }
        let f = self.eval(func)?;
        let a = self.eval_args(args)?;
        self.call(&f, a)
    }

    /// `recv.name(args)`.
    pub(crate) fn call_method(&mut self, recv: &Value, name: &str, args: Args) -> Res<Value> {
        match recv {
            Value::Instance(_) | Value::Class(_) | Value::Module(_) | Value::Func(_) => {
                let f = self.get_attr(recv, name)?;
                self.call(&f, args)
            }
            Value::Host(_)
                if matches!(
                    super::host_object::core_obj(recv),
                    Some(CoreObj::Super { .. })
                ) =>
            {
                let f = self.get_attr(recv, name)?;
                self.call(&f, args)
            }
            _ => super::methods::call_builtin_method(self, recv, name, args),
        }
    }

    /// Calls any callable value.
    pub(crate) fn call(&mut self, f: &Value, mut args: Args) -> Res<Value> {
        match f {
            Value::Func(func) => self.call_function(func, args),
            Value::Method(m) => {
                args.pos.insert(0, m.0.clone());
                self.call(&m.1, args)
            }
            Value::Builtin(b) => {
                args.data = b.data.clone();
                (b.f)(self, args)
            }
            Value::BoundMethod(m) => {
                let (recv, name) = (m.0.clone(), m.1.clone());
                super::methods::call_builtin_method(self, &recv, &name, args)
            }
            Value::Class(c) => self.instantiate(c, args),
            Value::Instance(_) => {
                let call = self.get_attr(f, "__call__").map_err(|_| {
                    PyErr::type_error(format!("'{}' object is not callable", f.type_name()))
                })?;
                self.call(&call, args)
            }
            Value::Host(o) => o.clone().call(self, args),
            _ => Err(PyErr::type_error(format!(
                "'{}' object is not callable",
                f.type_name()
            ))),
        }
    }

    pub(crate) fn call_function(&mut self, func: &Rc<Function>, args: Args) -> Res<Value> {
        self.tick()?;
        if self.depth >= self.limits.max_depth {
            return Err(PyErr::new(
                ExcKind::RecursionError,
                "maximum recursion depth exceeded",
            ));
        }
        self.check_stack()?;
        let values = self.bind_args(func, args)?;
        let env = Rc::new(Env {
            code: func.code.clone(),
            values: RefCell::new(values),
            parent: func.closure.clone(),
            comprehension: false,
        });
        let saved = std::mem::replace(
            &mut self.frame,
            Frame {
                env: Some(env),
                class_ns: None,
                source: func.source.clone(),
                func: Some(func.clone()),
            },
        );
        self.depth += 1;
        if func.code.generator {
            self.yields.push(Vec::new());
        }
        let r = match &func.body {
            FuncBody::Def(d) => match self.exec_block(&d.body) {
                Ok(()) => Ok(Value::None),
                Err(Ctrl::Return(v)) => Ok(v),
                Err(Ctrl::Err(e)) => Err(e),
                Err(Ctrl::Break) | Err(Ctrl::Continue) => Err(PyErr::new(
                    ExcKind::SyntaxError,
                    "'break' or 'continue' outside loop",
                )),
            },
            FuncBody::Lambda(body) => self.eval(body),
        };
        let r = if func.code.generator {
            let items = self.yields.pop().unwrap_or_default();
            r.map(|_| {
                Value::Iter(Rc::new(RefCell::new(IterState::Seq {
                    items: items.into(),
                    index: 0,
                })))
            })
        } else {
            r
        };
        self.depth -= 1;
        self.frame = saved;
        r.map_err(|mut e| {
            let span = e.pending.take().unwrap_or(func.span);
            e.tb.push(TbEntry {
                source: func.source.clone(),
                span,
                func: func.name.clone(),
            });
            e
        })
    }

    #[inline(never)]
    fn bind_args(&mut self, func: &Function, args: Args) -> Res<Vec<Option<Value>>> {
        let p = &func.params;
        let name = &func.qualname;
        let n_slots = func.code.locals.len();
        let mut values: Vec<Option<Value>> = vec![None; n_slots];
        let n_pos = p.posonly.len() + p.args.len();
        let mut extra = Vec::new();
        let given = args.pos.len();
        if given > n_pos && p.vararg.is_none() {
            let n_req = p
                .posonly
                .iter()
                .chain(&p.args)
                .filter(|x| x.default.is_none())
                .count();
            let takes = if n_req < n_pos {
                format!("from {n_req} to {n_pos} positional arguments")
            } else {
                format!(
                    "{n_pos} positional argument{}",
                    if n_pos == 1 { "" } else { "s" }
                )
            };
            return Err(PyErr::type_error(format!(
                "{name}() takes {takes} but {given} {} given",
                if given == 1 { "was" } else { "were" }
            )));
        }
        for (i, v) in args.pos.into_iter().enumerate() {
            if i < n_pos {
                if let Some(slot) = values.get_mut(i) {
                    *slot = Some(v);
                }
            } else {
                extra.push(v);
            }
        }
        let vararg_slot = n_pos;
        let kwonly_start = n_pos + p.vararg.is_some() as usize;
        let kwarg_slot = kwonly_start + p.kwonly.len();
        if p.vararg.is_some() {
            if let Some(slot) = values.get_mut(vararg_slot) {
                *slot = Some(Value::tuple(extra));
            }
        }
        let mut kwdict = Dict::new();
        for (k, v) in args.kw {
            let pos_index = p
                .args
                .iter()
                .position(|x| *x.name == *k)
                .map(|i| i + p.posonly.len());
            let kw_index = p
                .kwonly
                .iter()
                .position(|x| *x.name == *k)
                .map(|i| i + kwonly_start);
            match pos_index.or(kw_index) {
                Some(i) => {
                    let slot = values.get_mut(i);
                    match slot {
                        Some(s) if s.is_some() => {
                            return Err(PyErr::type_error(format!(
                                "{name}() got multiple values for argument '{k}'"
                            )))
                        }
                        Some(s) => *s = Some(v),
                        None => {}
                    }
                }
                None if p.kwarg.is_some() => {
                    kwdict.insert(Value::Str(k), v)?;
                }
                None => {
                    return Err(PyErr::type_error(format!(
                        "{name}() got an unexpected keyword argument '{k}'"
                    )))
                }
            }
        }
        if p.kwarg.is_some() {
            if let Some(slot) = values.get_mut(kwarg_slot) {
                *slot = Some(self.new_dict(kwdict));
            }
        }
        // Defaults and missing arguments.
        let mut missing = Vec::new();
        for i in 0..n_pos {
            if values.get(i).is_some_and(|v| v.is_none()) {
                match func.defaults.get(i).cloned().flatten() {
                    Some(d) => values[i] = Some(d),
                    None => missing.push(
                        p.posonly
                            .iter()
                            .chain(&p.args)
                            .nth(i)
                            .map(|x| x.name.clone())
                            .unwrap_or_default(),
                    ),
                }
            }
        }
        if !missing.is_empty() {
            return Err(PyErr::type_error(format!(
                "{name}() missing {} required positional argument{}: {}",
                missing.len(),
                if missing.len() == 1 { "" } else { "s" },
                quote_list(&missing)
            )));
        }
        for (j, kp) in p.kwonly.iter().enumerate() {
            let i = kwonly_start + j;
            if values.get(i).is_some_and(|v| v.is_none()) {
                match func.defaults.get(n_pos + j).cloned().flatten() {
                    Some(d) => values[i] = Some(d),
                    None => missing.push(kp.name.clone()),
                }
            }
        }
        if !missing.is_empty() {
            return Err(PyErr::type_error(format!(
                "{name}() missing {} required keyword-only argument{}: {}",
                missing.len(),
                if missing.len() == 1 { "" } else { "s" },
                quote_list(&missing)
            )));
        }
        Ok(values)
    }

    /// `cls(args)`.
    #[inline(never)]
    fn instantiate(&mut self, cls: &Rc<Class>, args: Args) -> Res<Value> {
        if cls.builtin.is_some() && cls.module != "__main__" {
            return super::builtins::construct(self, cls, args);
        }
        let dict = HashMap::new();
        let inst = Rc::new(Instance {
            class: cls.clone(),
            dict: RefCell::new(dict),
        });
        if cls.exc_kind().is_some() {
            inst.dict
                .borrow_mut()
                .insert("args".into(), Value::tuple(args.pos.clone()));
        }
        let v = Value::Instance(inst);
        match cls.lookup("__init__") {
            Some(init) => {
                let mut args = args;
                args.pos.insert(0, v.clone());
                let r = self.call(&init, args)?;
                if !matches!(r, Value::None) {
                    return Err(PyErr::type_error(format!(
                        "__init__() should return None, not '{}'",
                        r.type_name()
                    )));
                }
            }
            None => {
                if cls.exc_kind().is_none() && (!args.pos.is_empty() || !args.kw.is_empty()) {
                    return Err(PyErr::type_error(format!(
                        "{}() takes no arguments",
                        cls.name
                    )));
                }
            }
        }
        Ok(v)
    }

    // ------------------------------------------------------------------
    // Iteration

    pub(crate) fn make_iter(&mut self, v: &Value) -> Res<IterState> {
        Ok(match v {
            Value::Range(r) => IterState::Range {
                next: r.start,
                stop: r.stop,
                step: r.step,
            },
            Value::List(l) => IterState::List {
                list: l.clone(),
                index: 0,
            },
            Value::Tuple(t) => IterState::Seq {
                items: t.clone(),
                index: 0,
            },
            Value::Str(s) => IterState::Chars {
                s: s.clone(),
                pos: 0,
            },
            Value::Dict(d) | Value::Set(d) => IterState::Seq {
                items: d.borrow().keys().into(),
                index: 0,
            },
            Value::Iter(i) => IterState::Shared(i.clone()),
            Value::Array(a) => {
                if a.borrow().ndim() == 0 {
                    return Err(PyErr::type_error("iteration over a 0-d array"));
                }
                IterState::Rows {
                    array: a.clone(),
                    index: 0,
                }
            }
            Value::Instance(inst) => {
                if inst.class.lookup("__iter__").is_none() {
                    if let Some(getitem) = inst.class.lookup("__getitem__") {
                        // The old sequence protocol: items 0, 1, 2… until IndexError.
                        let mut items = Vec::new();
                        loop {
                            self.tick()?;
                            let r = self.call(
                                &getitem,
                                Args::new(vec![v.clone(), Value::Int(items.len() as i64)]),
                            );
                            match r {
                                Ok(x) => items.push(x),
                                Err(e) if e.lazy_kind() == Some(ExcKind::IndexError) => break,
                                Err(e) => {
                                    let ev = self.exception_value(&e);
                                    if self.class_of(&ev).exc_kind() == Some(ExcKind::IndexError) {
                                        break;
                                    }
                                    return Err(e);
                                }
                            }
                        }
                        return Ok(IterState::Seq {
                            items: items.into(),
                            index: 0,
                        });
                    }
                    return Err(PyErr::type_error(format!(
                        "'{}' object is not iterable",
                        v.type_name()
                    )));
                }
                let it = self.call_method(v, "__iter__", Args::default())?;
                if let Value::Instance(_) = it {
                    return Err(PyErr::type_error(
                        "user-defined iterators (__next__) are not supported",
                    ));
                }
                return self.make_iter(&it);
            }
            Value::Host(o) => match o.clone().iter(self)? {
                Some(items) => IterState::Seq {
                    items: items.into(),
                    index: 0,
                },
                None => {
                    return Err(PyErr::type_error(format!(
                        "'{}' object is not iterable",
                        v.type_name()
                    )))
                }
            },
            _ => {
                return Err(PyErr::type_error(format!(
                    "'{}' object is not iterable",
                    v.type_name()
                )))
            }
        })
    }

    pub(crate) fn iter_next(&mut self, it: &mut IterState) -> Res<Option<Value>> {
        Ok(match it {
            IterState::Range { next, stop, step } => {
                if (*step > 0 && *next < *stop) || (*step < 0 && *next > *stop) {
                    let v = *next;
                    *next = next.saturating_add(*step);
                    if *next == v {
                        *stop = v;
                    }
                    Some(Value::Int(v))
                } else {
                    None
                }
            }
            IterState::List { list, index } => {
                let v = list.borrow().get(*index).cloned();
                *index += 1;
                v
            }
            IterState::Seq { items, index } => {
                let v = items.get(*index).cloned();
                *index += 1;
                v
            }
            IterState::Chars { s, pos } => {
                let c = s.get(*pos..).and_then(|r| r.chars().next());
                match c {
                    Some(c) => {
                        *pos += c.len_utf8();
                        Some(Value::str(c.to_string()))
                    }
                    None => None,
                }
            }
            IterState::Enumerate { inner, count } => match self.iter_next(inner)? {
                Some(v) => {
                    let i = *count;
                    *count = count.wrapping_add(1);
                    Some(Value::tuple(vec![Value::Int(i), v]))
                }
                None => None,
            },
            IterState::Zip(inners) => {
                let mut items = Vec::with_capacity(inners.len());
                for i in inners.iter_mut() {
                    match self.iter_next(i)? {
                        Some(v) => items.push(v),
                        None => return Ok(None),
                    }
                }
                if items.is_empty() {
                    None
                } else {
                    Some(Value::tuple(items))
                }
            }
            IterState::Map { func, inner } => {
                let mut items = Vec::with_capacity(inner.len());
                for i in inner.iter_mut() {
                    match self.iter_next(i)? {
                        Some(v) => items.push(v),
                        None => return Ok(None),
                    }
                }
                let f = func.clone();
                Some(self.call(&f, Args::new(items))?)
            }
            IterState::Filter { func, inner } => loop {
                self.tick()?;
                match self.iter_next(inner)? {
                    Some(v) => {
                        let keep = match &*func {
                            Value::None => self.truthy(&v)?,
                            f => {
                                let f = f.clone();
                                let r = self.call(&f, Args::new(vec![v.clone()]))?;
                                self.truthy(&r)?
                            }
                        };
                        if keep {
                            break Some(v);
                        }
                    }
                    None => break None,
                }
            },
            IterState::Rows { array, index } => {
                let n = array.borrow().shape().first().copied().unwrap_or(0);
                if *index >= n {
                    None
                } else {
                    let i = *index;
                    *index += 1;
                    let a = array.clone();
                    Some(super::numpy::index_row(self, &a, i)?)
                }
            }
            IterState::Shared(shared) => {
                let shared = shared.clone();
                let mut state = std::mem::replace(&mut *shared.borrow_mut(), IterState::Done);
                let r = self.iter_next(&mut state);
                *shared.borrow_mut() = state;
                r?
            }
            IterState::Done => None,
        })
    }

    /// All items of an iterable.
    pub(crate) fn items_of(&mut self, v: &Value) -> Res<Vec<Value>> {
        match v {
            Value::List(l) => return Ok(l.borrow().clone()),
            Value::Tuple(t) => return Ok(t.to_vec()),
            _ => {}
        }
        let mut it = self.make_iter(v)?;
        let mut out = Vec::new();
        while let Some(x) = self.iter_next(&mut it)? {
            out.push(x);
            if out.len() % 4096 == 0 {
                self.charge_steps(4096)?;
                self.check_alloc(out.len() as u64 * SLOT_BYTES)?;
            }
        }
        Ok(out)
    }

    /// `(key, value)` pairs of a mapping (for `**kwargs` and `dict(m)`).
    pub(crate) fn dict_items(&mut self, v: &Value) -> Res<Vec<(Value, Value)>> {
        match v {
            Value::Dict(d) => Ok(d.borrow().items()),
            _ => Err(PyErr::type_error(format!(
                "'{}' object is not a mapping",
                v.type_name()
            ))),
        }
    }

    // ------------------------------------------------------------------
    // Display (IPython's last-expression output)

    pub(crate) fn display_value(&mut self, v: &Value) -> Res<()> {
        if let Value::None = v {
            return Ok(());
        }
        let text = match v {
            Value::Class(c) if c.module == "builtins" || c.module.is_empty() => c.name.clone(),
            Value::Class(c) => format!("{}.{}", c.module, c.name),
            Value::Host(o) => match o.display_text() {
                Some(t) => t,
                None => self.repr(v)?,
            },
            _ => self.repr(v)?,
        };
        let mime = match super::host_object::core_obj(v) {
            Some(CoreObj::Display { mime, .. }) => mime.clone(),
            _ => Mime::Plain,
        };
        self.check_output(text.len() + 1)?;
        self.write_as(Stream::Display, format!("{text}\n"), mime);
        Ok(())
    }
}

fn quote_list(names: &[String]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    match q.len() {
        0 => String::new(),
        1 => q[0].clone(),
        2 => format!("{} and {}", q[0], q[1]),
        _ => format!("{}, and {}", q[..q.len() - 1].join(", "), q[q.len() - 1]),
    }
}

pub(crate) fn array_bytes(a: &compiler_core::eval::NDArray) -> u64 {
    (a.len() as u64).saturating_mul(a.dtype().bytes().max(1) as u64)
}

//! Structural equality of IR, with TVM's semantics (`tvm.ir.structural_equal`).
//!
//! Two programs are structurally equal when they have the same shape and
//! their *definitions* correspond one-to-one: parameters, symbolic shape
//! variables, loop variables, block iterators, let variables, allocated and
//! matched buffers (with their data pointers) are mapped in definition order,
//! and every later use must follow that mapping. Names do not matter.
//!
//! Semantics confirmed against Apache TVM 0.27 (`tvm.ir.assert_structural_equal`):
//! - variable **and buffer names are ignored**, and so are **block names**
//!   (`T.sblock("C")` equals `T.sblock("X")`); [`EqualOptions::compare_block_names`]
//!   turns the latter on for callers that want it;
//! - function attributes are compared, `global_symbol` included (the option
//!   [`EqualOptions::ignore_global_symbol`] drops it); module functions are
//!   matched by name, in any order;
//! - dtypes (of every node, loop variables included), constants, loop kinds,
//!   thread tags, loop and block annotations, block iterator kinds and domains,
//!   read/write regions (in order), predicates, `T.init()` bodies, buffer
//!   dtype/shape/strides/`elem_offset`/scope/`align`/`offset_factor` are compared;
//! - floats compare with `==` except that NaN equals NaN (so `-0.0` equals `0.0`);
//! - symbolic variables are defined where first seen in a definition (e.g. the
//!   parameter buffers' shapes): `(n, m), (n, m)` equals `(m, n), (m, n)` but not
//!   `(n, m), (m, n)`;
//! - a variable that is never defined (free) equals only itself, unless
//!   [`EqualOptions::map_free_vars`] is set, in which case free variables are
//!   mapped one-to-one on first use (`x + y` equals `y + x`, `x + x` does not equal `x + y`).
//!
//! The first mismatch is reported in TVM's field order with a readable path:
//! `at mod["main"].body.block("root").body[0].body.block("C").body.value.b: lhs `A[vi, vk]` vs rhs `A[vk, vi]`: …`.
//!
//! When two functions are compared, the mismatch also says where it is in
//! each side's printed TVMScript ([`Mismatch::at`]): the innermost statement
//! part (loop header, block iterator, `T.reads`…) or function part
//! (parameter, attributes) around it, which
//! [`print_module_located`](crate::ir::printer::print_module_located)
//! turns into line ranges.
//!
//! The comparison runs on an explicit work stack, so arbitrarily deep IR does
//! not overflow the call stack.

pub mod graph;
pub mod render;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::rc::Rc;

use crate::ir::printer::{Anchor, StmtPart};
use crate::ir::{
    AttrValue, BaseFunc, Block, Buffer, BufferId, BufferRegion, Expr, ExprKind, IRModule, PrimFunc,
    Range, Stmt, StmtKind, Var, VarId,
};

mod defs;
mod exprs;
mod funcs;
mod lists;
mod paths;
mod stmts;

use paths::{Paths, Seg, P};

/// The first difference found between two IR fragments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Where, e.g. `mod["main"].body.block("root").body[1].body.block("C").body.value.b`.
    pub path: String,
    /// The left-hand node at `path`, rendered.
    pub lhs: String,
    /// The right-hand node at `path`, rendered.
    pub rhs: String,
    /// What differs.
    pub message: String,
    /// Where the mismatch is in each side's function (`lhs`, `rhs`): the
    /// innermost statement part or function part containing it. `None`
    /// outside function comparisons (a module's attributes, graph IR).
    /// Boxed: errors stay small on the comparer's hot path.
    pub at: Option<Box<(Anchor, Anchor)>>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "at {}: lhs `{}` vs rhs `{}`: {}",
            self.path, self.lhs, self.rhs, self.message
        )
    }
}

impl std::error::Error for Mismatch {}

/// Knobs for [`assert_structural_equal`]. The default is TVM's default
/// (`map_free_vars=False`, everything compared).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EqualOptions {
    /// Map variables and buffers that are used without a definition one-to-one
    /// on first use (TVM's `map_free_vars=True`). Otherwise a free variable
    /// equals only itself.
    pub map_free_vars: bool,
    /// Leave the `global_symbol` function attribute out of the comparison
    /// (handy when comparing a function against a renamed copy).
    pub ignore_global_symbol: bool,
    /// Also compare block names (TVM does not).
    pub compare_block_names: bool,
}

/// Something that can be compared: a module, a function, a statement or an expression.
#[derive(Clone, Copy, Debug)]
pub enum Node<'a> {
    Module(&'a IRModule),
    Func(&'a PrimFunc),
    /// A graph-level function ([`graph`] compares these).
    GraphFunc(&'a crate::ir::graph::Function),
    Stmt(&'a Stmt),
    Expr(&'a Expr),
}

impl<'a> From<&'a crate::ir::graph::Function> for Node<'a> {
    fn from(f: &'a crate::ir::graph::Function) -> Self {
        Node::GraphFunc(f)
    }
}

impl<'a> From<&'a IRModule> for Node<'a> {
    fn from(m: &'a IRModule) -> Self {
        Node::Module(m)
    }
}
impl<'a> From<&'a PrimFunc> for Node<'a> {
    fn from(f: &'a PrimFunc) -> Self {
        Node::Func(f)
    }
}
impl<'a> From<&'a Stmt> for Node<'a> {
    fn from(s: &'a Stmt) -> Self {
        Node::Stmt(s)
    }
}
impl<'a> From<&'a Expr> for Node<'a> {
    fn from(e: &'a Expr) -> Self {
        Node::Expr(e)
    }
}

/// Compares two modules: same function names, each pair structurally equal.
pub fn structural_equal(a: &IRModule, b: &IRModule) -> Result<(), Mismatch> {
    assert_structural_equal(a, b, EqualOptions::default())
}

/// Compares two functions (parameters are definitions, so names never matter).
pub fn prim_func_equal(a: &PrimFunc, b: &PrimFunc) -> Result<(), Mismatch> {
    assert_structural_equal(a, b, EqualOptions::default())
}

/// Compares two statements; variables defined outside them must be identical
/// (or use [`assert_structural_equal`] with `map_free_vars`).
pub fn stmt_equal(a: &Stmt, b: &Stmt) -> Result<(), Mismatch> {
    assert_structural_equal(a, b, EqualOptions::default())
}

/// Compares two expressions; free variables must be identical
/// (or use [`assert_structural_equal`] with `map_free_vars`).
pub fn expr_equal(a: &Expr, b: &Expr) -> Result<(), Mismatch> {
    assert_structural_equal(a, b, EqualOptions::default())
}

/// `true` when [`assert_structural_equal`] finds no mismatch.
pub fn is_structurally_equal<'a>(
    a: impl Into<Node<'a>>,
    b: impl Into<Node<'a>>,
    options: EqualOptions,
) -> bool {
    assert_structural_equal(a, b, options).is_ok()
}

/// The general form: compares any two [`Node`]s under `options` and reports
/// the first mismatch (in TVM's field order).
pub fn assert_structural_equal<'a>(
    a: impl Into<Node<'a>>,
    b: impl Into<Node<'a>>,
    options: EqualOptions,
) -> Result<(), Mismatch> {
    let mut c = Comparer::new(options);
    let (a, b) = (a.into(), b.into());
    match (a, b) {
        (Node::Module(x), Node::Module(y)) => c.module(x, y),
        (Node::Func(x), Node::Func(y)) => {
            let root = c.paths.root(Seg::Root("func"));
            c.func(x, y, root)
        }
        (Node::GraphFunc(x), Node::GraphFunc(y)) => {
            return graph::function_equal(x, y, "func", options);
        }
        (Node::Stmt(x), Node::Stmt(y)) => {
            let root = c.paths.root(Seg::Root("stmt"));
            c.stack.push(Task::Stmt(x.clone(), y.clone(), root));
        }
        (Node::Expr(x), Node::Expr(y)) => {
            let root = c.paths.root(Seg::Root("expr"));
            c.stack.push(Task::Expr {
                a: x.clone(),
                b: y.clone(),
                path: root,
                def: false,
                parent: None,
            });
        }
        _ => {
            return Err(Mismatch {
                path: "<root>".into(),
                lhs: node_kind(&a).into(),
                rhs: node_kind(&b).into(),
                message: "different kinds of IR".into(),
                at: None,
            })
        }
    }
    c.run()
}

fn node_kind(n: &Node) -> &'static str {
    match n {
        Node::Module(_) => "module",
        Node::Func(_) => "function",
        Node::GraphFunc(_) => "graph function",
        Node::Stmt(_) => "statement",
        Node::Expr(_) => "expression",
    }
}

// ---------------------------------------------------------------------------
// The comparer

/// A pair of nodes whose rendering explains a mismatch in one of its leaves.
#[derive(Clone)]
enum Pair {
    E(Expr, Expr),
    S(Stmt, Stmt),
}

impl Pair {
    fn render(&self) -> (String, String) {
        match self {
            Pair::E(a, b) => (render::expr(a), render::expr(b)),
            Pair::S(a, b) => (render::stmt(a), render::stmt(b)),
        }
    }
}

type Parent = Option<(Pair, P)>;

enum Task {
    Expr {
        a: Expr,
        b: Expr,
        path: P,
        /// Inside a definition (a buffer's shape): unmapped variables are defined here.
        def: bool,
        parent: Parent,
    },
    Stmt(Stmt, Stmt, P),
    DefVar(Var, Var, P),
    DefBuffer(Buffer, Buffer, P),
    UseBuffer(Buffer, Buffer, P),
    Attr(AttrValue, AttrValue, P),
    Func(Rc<PrimFunc>, Rc<PrimFunc>, P),
    GraphFunc(
        Rc<crate::ir::graph::Function>,
        Rc<crate::ir::graph::Function>,
        P,
    ),
    Fail(P, String, String, String),
}

struct Comparer {
    options: EqualOptions,
    paths: Paths,
    stack: Vec<Task>,
    vars: HashMap<VarId, Var>,
    vars_rev: HashMap<VarId, Var>,
    bufs: HashMap<BufferId, Buffer>,
    bufs_rev: HashMap<BufferId, Buffer>,
}

fn fail(path: P, lhs: impl Into<String>, rhs: impl Into<String>, msg: impl Into<String>) -> Task {
    Task::Fail(path, lhs.into(), rhs.into(), msg.into())
}

/// Why two leaves differ. A correspondence message already names both
/// sides (`lhs \`i\` corresponds to rhs \`j\`, …`), so the report does not
/// repeat them.
enum LeafWhy {
    Correspondence(String),
    Other(String),
}

fn floats_equal(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

impl Comparer {
    fn new(options: EqualOptions) -> Comparer {
        Comparer {
            options,
            paths: Paths::default(),
            stack: Vec::new(),
            vars: HashMap::new(),
            vars_rev: HashMap::new(),
            bufs: HashMap::new(),
            bufs_rev: HashMap::new(),
        }
    }

    /// Schedules `tasks` to run in the given order, before anything already queued.
    fn schedule(&mut self, tasks: Vec<Task>) {
        self.stack.extend(tasks.into_iter().rev());
    }

    fn run(&mut self) -> Result<(), Mismatch> {
        while let Some(task) = self.stack.pop() {
            match task {
                Task::Expr {
                    a,
                    b,
                    path,
                    def,
                    parent,
                } => self.expr(&a, &b, path, def, parent)?,
                Task::Stmt(a, b, path) => self.stmt(&a, &b, path)?,
                Task::DefVar(a, b, path) => self.def_var(&a, &b, path, None)?,
                Task::DefBuffer(a, b, path) => self.def_buffer(&a, &b, path)?,
                Task::UseBuffer(a, b, path) => self.use_buffer(&a, &b, path, None)?,
                Task::Attr(a, b, path) => self.attr(&a, &b, path),
                Task::Func(a, b, path) => self.func(&a, &b, path),
                Task::GraphFunc(a, b, path) => {
                    let root = self.paths.render(path);
                    graph::function_equal(&a, &b, &root, self.options)?
                }
                Task::Fail(path, lhs, rhs, message) => {
                    return Err(Mismatch {
                        path: self.paths.render(path),
                        lhs,
                        rhs,
                        message,
                        at: self.paths.anchors_of(path),
                    })
                }
            }
        }
        Ok(())
    }

    /// A mismatch in a leaf, reported at the leaf's parent when there is one
    /// (so the report shows `A[vi, vk]` vs `A[vk, vi]` rather than `vi` vs `vk`).
    fn leaf_mismatch(
        &self,
        path: P,
        parent: &Parent,
        lhs: String,
        rhs: String,
        why: LeafWhy,
    ) -> Mismatch {
        let full = self.paths.render(path);
        match parent {
            Some((pair, ppath)) => {
                let at = self.paths.render(*ppath);
                let rel = full
                    .strip_prefix(at.as_str())
                    .map(|r| r.trim_start_matches('.'))
                    .unwrap_or(full.as_str());
                let (pl, pr) = pair.render();
                let message = match why {
                    LeafWhy::Correspondence(message) => format!("{rel}: {message}"),
                    LeafWhy::Other(message) => format!("{rel}: `{lhs}` vs `{rhs}`: {message}"),
                };
                Mismatch {
                    path: at.clone(),
                    lhs: pl,
                    rhs: pr,
                    message,
                    at: self.paths.anchors_of(path),
                }
            }
            None => Mismatch {
                path: full,
                lhs,
                rhs,
                message: match why {
                    LeafWhy::Correspondence(message) | LeafWhy::Other(message) => message,
                },
                at: self.paths.anchors_of(path),
            },
        }
    }
}

/// The statement whose line a statement starts with: a sequence prints no
/// line of its own, so its first item's.
fn first_printed(s: &Stmt) -> Stmt {
    let mut cur = s.clone();
    loop {
        let next = match cur.kind() {
            StmtKind::Seq(items) => match items.first() {
                Some(first) => first.clone(),
                None => return cur,
            },
            _ => return cur,
        };
        cur = next;
    }
}

fn is_leaf(e: &Expr) -> bool {
    matches!(
        e.kind(),
        ExprKind::Var(_) | ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_)
    )
}

/// A function's parameter buffers in the order of their parameters (TVM's
/// buffer map is keyed by parameter); buffers of other variables first, in
/// declaration order.
fn buffers_by_param(f: &PrimFunc) -> Vec<&(Var, Buffer)> {
    let mut m: Vec<&(Var, Buffer)> = f.buffer_map.iter().collect();
    tessel_ir::sort::by_key(&mut m, |(v, _)| f.params.iter().position(|x| x == v));
    m
}

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
// Paths

type P = usize;
const NO_PARENT: usize = usize::MAX;
/// Paths longer than this many segments are rendered with the middle elided.
const MAX_PATH_SEGMENTS: usize = 80;

#[derive(Clone, Debug)]
enum Seg {
    Root(&'static str),
    Func(String),
    Field(&'static str),
    Index(usize),
    Key(String),
    Block(String),
}

/// All paths of one comparison, as parent links in an arena (no recursion,
/// no deep `Rc` chains to drop).
#[derive(Default)]
struct Paths {
    nodes: Vec<(usize, Seg)>,
    /// The printed places of the path nodes that have one.
    anchors: HashMap<P, (Anchor, Anchor)>,
}

impl Paths {
    /// Records that the nodes at `p` print at `lhs` and `rhs`.
    fn anchor(&mut self, p: P, lhs: Anchor, rhs: Anchor) {
        self.anchors.insert(p, (lhs, rhs));
    }
    /// A child path anchored at part `part` of statements `a` and `b`.
    fn part(&mut self, p: P, a: &Stmt, b: &Stmt, part: StmtPart) {
        self.anchor(
            p,
            Anchor::Stmt(a.clone(), part),
            Anchor::Stmt(b.clone(), part),
        );
    }
    /// The anchors of `p` or of its nearest anchored ancestor.
    fn anchors_of(&self, p: P) -> Option<Box<(Anchor, Anchor)>> {
        let mut cur = p;
        while cur != NO_PARENT {
            if let Some(a) = self.anchors.get(&cur) {
                return Some(Box::new(a.clone()));
            }
            cur = self.nodes.get(cur)?.0;
        }
        None
    }

    fn root(&mut self, seg: Seg) -> P {
        self.nodes.push((NO_PARENT, seg));
        self.nodes.len() - 1
    }
    fn child(&mut self, parent: P, seg: Seg) -> P {
        self.nodes.push((parent, seg));
        self.nodes.len() - 1
    }
    fn field(&mut self, parent: P, name: &'static str) -> P {
        self.child(parent, Seg::Field(name))
    }
    fn index(&mut self, parent: P, i: usize) -> P {
        self.child(parent, Seg::Index(i))
    }
    fn render(&self, p: P) -> String {
        let mut segs = Vec::new();
        let mut cur = p;
        while cur != NO_PARENT {
            let Some((parent, seg)) = self.nodes.get(cur) else {
                break;
            };
            segs.push(seg);
            cur = *parent;
        }
        segs.reverse();
        let mut out = String::new();
        let n = segs.len();
        let (head, tail) = if n > MAX_PATH_SEGMENTS {
            (MAX_PATH_SEGMENTS / 2, MAX_PATH_SEGMENTS / 2)
        } else {
            (n, 0)
        };
        for (i, seg) in segs.iter().enumerate() {
            if i == head && tail > 0 && i < n - tail {
                out.push_str(&format!("…({} more)…", n - head - tail));
            }
            if i >= head && i < n - tail {
                continue;
            }
            match seg {
                Seg::Root(r) => out.push_str(r),
                Seg::Func(name) => out.push_str(&format!("mod[{name:?}]")),
                Seg::Field(f) => {
                    out.push('.');
                    out.push_str(f);
                }
                Seg::Index(i) => out.push_str(&format!("[{i}]")),
                Seg::Key(k) => out.push_str(&format!("[{k:?}]")),
                Seg::Block(b) => out.push_str(&format!(".block({b:?})")),
            }
        }
        out
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

    // -- variables and buffers ------------------------------------------------

    fn def_var(
        &mut self,
        a: &Var,
        b: &Var,
        path: P,
        parent: Option<&Parent>,
    ) -> Result<(), Mismatch> {
        let err = |s: &Self, why: LeafWhy| {
            Err(s.leaf_mismatch(
                path,
                parent.unwrap_or(&None),
                a.name().to_string(),
                b.name().to_string(),
                why,
            ))
        };
        if a.dtype() != b.dtype() {
            return err(
                self,
                LeafWhy::Other(format!("dtype differs: {} vs {}", a.dtype(), b.dtype())),
            );
        }
        if let Some(x) = self.vars.get(&a.id()) {
            if x != b {
                let msg = format!(
                    "lhs `{}` already corresponds to rhs `{}`, not `{}`",
                    a.name(),
                    x.name(),
                    b.name()
                );
                return err(self, LeafWhy::Correspondence(msg));
            }
            return Ok(());
        }
        if let Some(y) = self.vars_rev.get(&b.id()) {
            let msg = format!(
                "rhs `{}` already corresponds to lhs `{}`, not `{}`",
                b.name(),
                y.name(),
                a.name()
            );
            return err(self, LeafWhy::Correspondence(msg));
        }
        self.vars.insert(a.id(), b.clone());
        self.vars_rev.insert(b.id(), a.clone());
        Ok(())
    }

    fn use_var(
        &mut self,
        a: &Var,
        b: &Var,
        path: P,
        def: bool,
        parent: &Parent,
    ) -> Result<(), Mismatch> {
        let err = |s: &Self, why: LeafWhy| {
            Err(s.leaf_mismatch(
                path,
                parent,
                a.name().to_string(),
                b.name().to_string(),
                why,
            ))
        };
        if let Some(x) = self.vars.get(&a.id()) {
            if x == b {
                return Ok(());
            }
            let msg = format!(
                "lhs `{}` corresponds to rhs `{}`, not `{}`",
                a.name(),
                x.name(),
                b.name()
            );
            return err(self, LeafWhy::Correspondence(msg));
        }
        if let Some(y) = self.vars_rev.get(&b.id()) {
            let msg = format!(
                "rhs `{}` corresponds to lhs `{}`, not `{}`",
                b.name(),
                y.name(),
                a.name()
            );
            return err(self, LeafWhy::Correspondence(msg));
        }
        if a == b {
            // A free variable equals itself; remember that, so a later use of
            // it against another variable is caught (`x + x` vs `x + y`).
            self.vars.insert(a.id(), b.clone());
            self.vars_rev.insert(b.id(), a.clone());
            return Ok(());
        }
        if def || self.options.map_free_vars {
            return self.def_var(a, b, path, Some(parent));
        }
        err(
            self,
            LeafWhy::Other(
                "free variables differ (they are not defined here; use map_free_vars to map them)"
                    .to_string(),
            ),
        )
    }

    fn def_buffer(&mut self, a: &Buffer, b: &Buffer, path: P) -> Result<(), Mismatch> {
        if let Some(x) = self.bufs.get(&a.id()) {
            if x == b {
                return Ok(());
            }
            return Err(Mismatch {
                path: self.paths.render(path),
                lhs: render::buffer(a),
                rhs: render::buffer(b),
                message: format!(
                    "lhs buffer `{}` already corresponds to rhs `{}`, not `{}`",
                    a.name, x.name, b.name
                ),
                at: self.paths.anchors_of(path),
            });
        }
        if let Some(y) = self.bufs_rev.get(&b.id()) {
            return Err(Mismatch {
                path: self.paths.render(path),
                lhs: render::buffer(a),
                rhs: render::buffer(b),
                message: format!(
                    "rhs buffer `{}` already corresponds to lhs `{}`, not `{}`",
                    b.name, y.name, a.name
                ),
                at: self.paths.anchors_of(path),
            });
        }
        self.bufs.insert(a.id(), b.clone());
        self.bufs_rev.insert(b.id(), a.clone());
        let mut t = Vec::new();
        let p = self.paths.field(path, "data");
        t.push(Task::DefVar(a.data.clone(), b.data.clone(), p));
        if a.dtype != b.dtype {
            let p = self.paths.field(path, "dtype");
            t.push(fail(
                p,
                render::buffer(a),
                render::buffer(b),
                format!("buffer dtype differs: {} vs {}", a.dtype, b.dtype),
            ));
        }
        let shape = self.paths.field(path, "shape");
        self.expr_list(&mut t, &a.shape, &b.shape, shape, true, "dimensions");
        let strides = self.paths.field(path, "strides");
        self.expr_list(&mut t, &a.strides, &b.strides, strides, true, "strides");
        let p = self.paths.field(path, "elem_offset");
        t.push(Task::Expr {
            a: a.elem_offset.clone(),
            b: b.elem_offset.clone(),
            path: p,
            def: true,
            parent: None,
        });
        if a.scope != b.scope {
            let p = self.paths.field(path, "scope");
            t.push(fail(
                p,
                a.scope.clone(),
                b.scope.clone(),
                "buffer scope differs",
            ));
        }
        if a.align != b.align {
            let p = self.paths.field(path, "align");
            t.push(fail(
                p,
                a.align.to_string(),
                b.align.to_string(),
                "buffer alignment differs",
            ));
        }
        if a.offset_factor != b.offset_factor {
            let p = self.paths.field(path, "offset_factor");
            t.push(fail(
                p,
                a.offset_factor.to_string(),
                b.offset_factor.to_string(),
                "buffer offset_factor differs",
            ));
        }
        self.schedule(t);
        Ok(())
    }

    fn use_buffer(
        &mut self,
        a: &Buffer,
        b: &Buffer,
        path: P,
        parent: Option<&Parent>,
    ) -> Result<(), Mismatch> {
        let parent = parent.unwrap_or(&None);
        if let Some(x) = self.bufs.get(&a.id()) {
            if x == b {
                return Ok(());
            }
            let msg = format!(
                "lhs buffer `{}` corresponds to rhs `{}`, not `{}`",
                a.name, x.name, b.name
            );
            return Err(self.leaf_mismatch(
                path,
                parent,
                a.name.clone(),
                b.name.clone(),
                LeafWhy::Correspondence(msg),
            ));
        }
        if let Some(y) = self.bufs_rev.get(&b.id()) {
            let msg = format!(
                "rhs buffer `{}` corresponds to lhs `{}`, not `{}`",
                b.name, y.name, a.name
            );
            return Err(self.leaf_mismatch(
                path,
                parent,
                a.name.clone(),
                b.name.clone(),
                LeafWhy::Correspondence(msg),
            ));
        }
        if a == b {
            self.bufs.insert(a.id(), b.clone());
            self.bufs_rev.insert(b.id(), a.clone());
            return Ok(());
        }
        if self.options.map_free_vars {
            return self.def_buffer(a, b, path);
        }
        Err(self.leaf_mismatch(
            path,
            parent,
            a.name.clone(),
            b.name.clone(),
            LeafWhy::Other(
                "free buffers differ (they are not defined here; use map_free_vars to map them)"
                    .into(),
            ),
        ))
    }

    // -- lists ----------------------------------------------------------------

    /// Element-wise expression tasks, then a length check.
    fn expr_list(
        &mut self,
        t: &mut Vec<Task>,
        a: &[Expr],
        b: &[Expr],
        path: P,
        def: bool,
        what: &str,
    ) {
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            let p = self.paths.index(path, i);
            t.push(Task::Expr {
                a: x.clone(),
                b: y.clone(),
                path: p,
                def,
                parent: None,
            });
        }
        self.len_check(t, a.len(), b.len(), path, what, |i| {
            (a.get(i).map(render::expr), b.get(i).map(render::expr))
        });
    }

    /// Expression children of `parent` (call arguments, indices), reported
    /// in terms of the parent on a leaf mismatch.
    fn expr_children(
        &mut self,
        t: &mut Vec<Task>,
        a: &[Expr],
        b: &[Expr],
        path: P,
        parent: &Parent,
        what: &str,
    ) {
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            let p = self.paths.index(path, i);
            t.push(Task::Expr {
                a: x.clone(),
                b: y.clone(),
                path: p,
                def: false,
                parent: parent.clone(),
            });
        }
        if a.len() != b.len() {
            let p = self.paths.index(path, a.len().min(b.len()));
            let (l, r) = match parent {
                Some((pair, _)) => pair.render(),
                None => (String::new(), String::new()),
            };
            t.push(fail(
                p,
                l,
                r,
                format!("different number of {what}: {} vs {}", a.len(), b.len()),
            ));
        }
    }

    fn len_check(
        &mut self,
        t: &mut Vec<Task>,
        la: usize,
        lb: usize,
        path: P,
        what: &str,
        render_at: impl Fn(usize) -> (Option<String>, Option<String>),
    ) {
        if la == lb {
            return;
        }
        let i = la.min(lb);
        let p = self.paths.index(path, i);
        let missing = || "<missing>".to_string();
        let (l, r) = render_at(i);
        t.push(fail(
            p,
            l.unwrap_or_else(missing),
            r.unwrap_or_else(missing),
            format!("different number of {what}: {la} vs {lb}"),
        ));
    }

    fn range(&mut self, t: &mut Vec<Task>, a: &Range, b: &Range, path: P) {
        let p = self.paths.field(path, "min");
        t.push(Task::Expr {
            a: a.min.clone(),
            b: b.min.clone(),
            path: p,
            def: false,
            parent: None,
        });
        let p = self.paths.field(path, "extent");
        t.push(Task::Expr {
            a: a.extent.clone(),
            b: b.extent.clone(),
            path: p,
            def: false,
            parent: None,
        });
    }

    fn region(&mut self, t: &mut Vec<Task>, a: &BufferRegion, b: &BufferRegion, path: P) {
        let p = self.paths.field(path, "buffer");
        t.push(Task::UseBuffer(a.buffer.clone(), b.buffer.clone(), p));
        let rp = self.paths.field(path, "region");
        for (i, (x, y)) in a.region.iter().zip(&b.region).enumerate() {
            let p = self.paths.index(rp, i);
            self.range(t, x, y, p);
        }
        self.len_check(
            t,
            a.region.len(),
            b.region.len(),
            rp,
            "region dimensions",
            |_| (Some(render::region(a)), Some(render::region(b))),
        );
    }

    fn regions(
        &mut self,
        t: &mut Vec<Task>,
        a: &[BufferRegion],
        b: &[BufferRegion],
        path: P,
        what: &str,
    ) {
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            let p = self.paths.index(path, i);
            self.region(t, x, y, p);
        }
        self.len_check(t, a.len(), b.len(), path, what, |i| {
            (a.get(i).map(render::region), b.get(i).map(render::region))
        });
    }

    fn attr_map(
        &mut self,
        t: &mut Vec<Task>,
        a: &BTreeMap<String, AttrValue>,
        b: &BTreeMap<String, AttrValue>,
        path: P,
        skip: Option<&str>,
    ) {
        let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
        for k in keys {
            if Some(k.as_str()) == skip {
                continue;
            }
            let p = self.paths.child(path, Seg::Key(k.clone()));
            match (a.get(k), b.get(k)) {
                (Some(x), Some(y)) => t.push(Task::Attr(x.clone(), y.clone(), p)),
                (Some(x), None) => t.push(fail(
                    p,
                    render::attr(x),
                    "<missing>",
                    format!("key {k:?} is only in lhs"),
                )),
                (None, Some(y)) => t.push(fail(
                    p,
                    "<missing>",
                    render::attr(y),
                    format!("key {k:?} is only in rhs"),
                )),
                (None, None) => {}
            }
        }
    }

    fn attr(&mut self, a: &AttrValue, b: &AttrValue, path: P) {
        let mismatch = |msg: &str| fail(path, render::attr(a), render::attr(b), msg);
        let task = match (a, b) {
            (AttrValue::Bool(x), AttrValue::Bool(y)) if x == y => return,
            (AttrValue::Int(x), AttrValue::Int(y)) if x == y => return,
            (AttrValue::Float(x), AttrValue::Float(y)) if floats_equal(*x, *y) => return,
            (AttrValue::Str(x), AttrValue::Str(y)) if x == y => return,
            (AttrValue::Expr(x), AttrValue::Expr(y)) => Task::Expr {
                a: x.clone(),
                b: y.clone(),
                path,
                def: false,
                parent: None,
            },
            (AttrValue::Array(x), AttrValue::Array(y)) => {
                let mut t = Vec::new();
                for (i, (u, v)) in x.iter().zip(y).enumerate() {
                    let p = self.paths.index(path, i);
                    t.push(Task::Attr(u.clone(), v.clone(), p));
                }
                self.len_check(&mut t, x.len(), y.len(), path, "array elements", |i| {
                    (x.get(i).map(render::attr), y.get(i).map(render::attr))
                });
                self.schedule(t);
                return;
            }
            (AttrValue::Map(x), AttrValue::Map(y)) => {
                let mut t = Vec::new();
                self.attr_map(&mut t, x, y, path, None);
                self.schedule(t);
                return;
            }
            _ if std::mem::discriminant(a) == std::mem::discriminant(b) => {
                mismatch("values differ")
            }
            _ => mismatch(&format!(
                "kinds differ: {} vs {}",
                render::attr_kind(a),
                render::attr_kind(b)
            )),
        };
        self.stack.push(task);
    }

    // -- expressions ----------------------------------------------------------

    fn expr(
        &mut self,
        a: &Expr,
        b: &Expr,
        path: P,
        def: bool,
        parent: Parent,
    ) -> Result<(), Mismatch> {
        let leaf = |s: &Self, msg: String| {
            Err(s.leaf_mismatch(
                path,
                &parent,
                render::expr(a),
                render::expr(b),
                LeafWhy::Other(msg),
            ))
        };
        let whole = |s: &Self, msg: String| {
            Err(Mismatch {
                path: s.paths.render(path),
                lhs: render::expr(a),
                rhs: render::expr(b),
                message: msg,
                at: s.paths.anchors_of(path),
            })
        };
        if std::mem::discriminant(a.kind()) != std::mem::discriminant(b.kind()) {
            let msg = format!(
                "expression kinds differ: {} vs {}",
                render::expr_kind(a),
                render::expr_kind(b)
            );
            return if is_leaf(a) && is_leaf(b) {
                leaf(self, msg)
            } else {
                whole(self, msg)
            };
        }
        if a.dtype() != b.dtype() {
            let msg = format!("dtype differs: {} vs {}", a.dtype(), b.dtype());
            return if is_leaf(a) {
                leaf(self, msg)
            } else {
                whole(self, msg)
            };
        }
        let me = Some((Pair::E(a.clone(), b.clone()), path));
        let mut t = Vec::new();
        let sub = |s: &mut Self, t: &mut Vec<Task>, x: &Expr, y: &Expr, field: &'static str| {
            let p = s.paths.field(path, field);
            t.push(Task::Expr {
                a: x.clone(),
                b: y.clone(),
                path: p,
                def,
                parent: me.clone(),
            });
        };
        match (a.kind(), b.kind()) {
            (ExprKind::Var(x), ExprKind::Var(y)) => return self.use_var(x, y, path, def, &parent),
            (ExprKind::Int(x), ExprKind::Int(y)) => {
                if x != y {
                    return leaf(self, "values differ".into());
                }
            }
            (ExprKind::Float(x), ExprKind::Float(y)) => {
                if !floats_equal(*x, *y) {
                    return leaf(self, "values differ".into());
                }
            }
            (ExprKind::Str(x), ExprKind::Str(y)) => {
                if x != y {
                    return leaf(self, "strings differ".into());
                }
            }
            (ExprKind::Binary(o1, a1, b1), ExprKind::Binary(o2, a2, b2)) => {
                if o1 != o2 {
                    return whole(
                        self,
                        format!(
                            "operators differ: {} vs {}",
                            render::binop_name(*o1),
                            render::binop_name(*o2)
                        ),
                    );
                }
                sub(self, &mut t, a1, a2, "a");
                sub(self, &mut t, b1, b2, "b");
            }
            (ExprKind::Cmp(o1, a1, b1), ExprKind::Cmp(o2, a2, b2)) => {
                if o1 != o2 {
                    return whole(
                        self,
                        format!("comparisons differ: {} vs {}", o1.symbol(), o2.symbol()),
                    );
                }
                sub(self, &mut t, a1, a2, "a");
                sub(self, &mut t, b1, b2, "b");
            }
            (ExprKind::And(a1, b1), ExprKind::And(a2, b2))
            | (ExprKind::Or(a1, b1), ExprKind::Or(a2, b2)) => {
                sub(self, &mut t, a1, a2, "a");
                sub(self, &mut t, b1, b2, "b");
            }
            (ExprKind::Not(x), ExprKind::Not(y)) => sub(self, &mut t, x, y, "a"),
            (ExprKind::Cast(x), ExprKind::Cast(y))
            | (ExprKind::Broadcast(x), ExprKind::Broadcast(y)) => sub(self, &mut t, x, y, "value"),
            (
                ExprKind::Select {
                    cond: c1,
                    then: t1,
                    otherwise: o1,
                },
                ExprKind::Select {
                    cond: c2,
                    then: t2,
                    otherwise: o2,
                },
            ) => {
                sub(self, &mut t, c1, c2, "condition");
                sub(self, &mut t, t1, t2, "true_value");
                sub(self, &mut t, o1, o2, "false_value");
            }
            (ExprKind::Call { op: op1, args: x }, ExprKind::Call { op: op2, args: y }) => {
                if op1 != op2 {
                    return whole(
                        self,
                        format!("callees differ: T.{} vs T.{}", op1.name(), op2.name()),
                    );
                }
                let p = self.paths.field(path, "args");
                self.expr_children(&mut t, x, y, p, &me, "arguments");
            }
            (
                ExprKind::Load {
                    buffer: b1,
                    indices: i1,
                },
                ExprKind::Load {
                    buffer: b2,
                    indices: i2,
                },
            ) => {
                let p = self.paths.field(path, "buffer");
                self.use_buffer(b1, b2, p, Some(&me))?;
                let p = self.paths.field(path, "indices");
                self.expr_children(&mut t, i1, i2, p, &me, "indices");
            }
            (
                ExprKind::Let {
                    var: v1,
                    value: x1,
                    body: y1,
                },
                ExprKind::Let {
                    var: v2,
                    value: x2,
                    body: y2,
                },
            ) => {
                let p = self.paths.field(path, "var");
                t.push(Task::DefVar(v1.clone(), v2.clone(), p));
                sub(self, &mut t, x1, x2, "value");
                sub(self, &mut t, y1, y2, "body");
            }
            (
                ExprKind::Ramp {
                    base: b1,
                    stride: s1,
                },
                ExprKind::Ramp {
                    base: b2,
                    stride: s2,
                },
            ) => {
                sub(self, &mut t, b1, b2, "base");
                sub(self, &mut t, s1, s2, "stride");
            }
            _ => return whole(self, "expression kinds differ".into()),
        }
        self.schedule(t);
        Ok(())
    }

    // -- statements -----------------------------------------------------------

    fn stmt(&mut self, a: &Stmt, b: &Stmt, path: P) -> Result<(), Mismatch> {
        let whole = |s: &Self, msg: String| {
            Err(Mismatch {
                path: s.paths.render(path),
                lhs: render::stmt(a),
                rhs: render::stmt(b),
                message: msg,
                at: s.paths.anchors_of(path),
            })
        };
        self.paths
            .part(path, &first_printed(a), &first_printed(b), StmtPart::Header);
        if std::mem::discriminant(a.kind()) != std::mem::discriminant(b.kind()) {
            let msg = format!(
                "statement kinds differ: {} vs {}",
                render::stmt_kind(a),
                render::stmt_kind(b)
            );
            return whole(self, msg);
        }
        let me: Parent = Some((Pair::S(a.clone(), b.clone()), path));
        let mut t = Vec::new();
        let sub_expr =
            |s: &mut Self, t: &mut Vec<Task>, x: &Expr, y: &Expr, field: &'static str| {
                let p = s.paths.field(path, field);
                t.push(Task::Expr {
                    a: x.clone(),
                    b: y.clone(),
                    path: p,
                    def: false,
                    parent: me.clone(),
                });
            };
        match (a.kind(), b.kind()) {
            (StmtKind::For(x), StmtKind::For(y)) => {
                let p = self.paths.field(path, "loop_var");
                t.push(Task::DefVar(x.loop_var.clone(), y.loop_var.clone(), p));
                sub_expr(self, &mut t, &x.min, &y.min, "min");
                sub_expr(self, &mut t, &x.extent, &y.extent, "extent");
                if x.kind != y.kind {
                    let p = self.paths.field(path, "kind");
                    t.push(fail(
                        p,
                        render::stmt(a),
                        render::stmt(b),
                        format!(
                            "loop kinds differ: {} vs {}",
                            x.kind.script_name(),
                            y.kind.script_name()
                        ),
                    ));
                }
                if x.thread_tag != y.thread_tag {
                    let p = self.paths.field(path, "thread_tag");
                    t.push(fail(
                        p,
                        render::stmt(a),
                        render::stmt(b),
                        "thread tags differ",
                    ));
                }
                let p = self.paths.field(path, "annotations");
                self.attr_map(&mut t, &x.annotations, &y.annotations, p, None);
                let p = self.paths.field(path, "body");
                t.push(Task::Stmt(x.body.clone(), y.body.clone(), p));
            }
            (StmtKind::BlockRealize(x), StmtKind::BlockRealize(y)) => {
                let vp = self.paths.field(path, "iter_values");
                for (i, (u, v)) in x.iter_values.iter().zip(&y.iter_values).enumerate() {
                    let p = self.paths.index(vp, i);
                    self.paths.part(p, a, b, StmtPart::IterVar(i));
                    t.push(Task::Expr {
                        a: u.clone(),
                        b: v.clone(),
                        path: p,
                        def: false,
                        parent: None,
                    });
                }
                self.len_check(
                    &mut t,
                    x.iter_values.len(),
                    y.iter_values.len(),
                    vp,
                    "iterator bindings",
                    |i| {
                        (
                            x.iter_values.get(i).map(render::expr),
                            y.iter_values.get(i).map(render::expr),
                        )
                    },
                );
                let p = self.paths.field(path, "predicate");
                self.paths.part(p, a, b, StmtPart::Predicate);
                t.push(Task::Expr {
                    a: x.predicate.clone(),
                    b: y.predicate.clone(),
                    path: p,
                    def: false,
                    parent: me.clone(),
                });
                let p = self.paths.child(path, Seg::Block(x.block.name.clone()));
                self.block(&mut t, (a, &x.block), (b, &y.block), p);
            }
            (
                StmtKind::Store {
                    buffer: b1,
                    value: v1,
                    indices: i1,
                },
                StmtKind::Store {
                    buffer: b2,
                    value: v2,
                    indices: i2,
                },
            ) => {
                let p = self.paths.field(path, "buffer");
                self.use_buffer(b1, b2, p, Some(&me))?;
                sub_expr(self, &mut t, v1, v2, "value");
                let p = self.paths.field(path, "indices");
                self.expr_children(&mut t, i1, i2, p, &me, "indices");
            }
            (
                StmtKind::Let {
                    var: v1,
                    value: x1,
                    body: y1,
                },
                StmtKind::Let {
                    var: v2,
                    value: x2,
                    body: y2,
                },
            ) => {
                let p = self.paths.field(path, "var");
                t.push(Task::DefVar(v1.clone(), v2.clone(), p));
                sub_expr(self, &mut t, x1, x2, "value");
                let p = self.paths.field(path, "body");
                t.push(Task::Stmt(y1.clone(), y2.clone(), p));
            }
            (
                StmtKind::If {
                    cond: c1,
                    then: t1,
                    otherwise: o1,
                },
                StmtKind::If {
                    cond: c2,
                    then: t2,
                    otherwise: o2,
                },
            ) => {
                sub_expr(self, &mut t, c1, c2, "condition");
                let p = self.paths.field(path, "then_case");
                t.push(Task::Stmt(t1.clone(), t2.clone(), p));
                let p = self.paths.field(path, "else_case");
                match (o1, o2) {
                    (Some(x), Some(y)) => t.push(Task::Stmt(x.clone(), y.clone(), p)),
                    (None, None) => {}
                    (x, y) => t.push(fail(
                        p,
                        x.as_ref().map_or("<none>".into(), render::stmt),
                        y.as_ref().map_or("<none>".into(), render::stmt),
                        "only one side has an else branch",
                    )),
                }
            }
            (StmtKind::Evaluate(x), StmtKind::Evaluate(y)) => sub_expr(self, &mut t, x, y, "value"),
            (StmtKind::Seq(x), StmtKind::Seq(y)) => {
                for (i, (u, v)) in x.iter().zip(y).enumerate() {
                    let p = self.paths.index(path, i);
                    t.push(Task::Stmt(u.clone(), v.clone(), p));
                }
                if x.len() != y.len() {
                    // Points at the first extra statement, or at the last
                    // one of the shorter side.
                    let i = x.len().min(y.len());
                    let p = self.paths.index(path, i);
                    let pick = |v: &[Stmt]| v.get(i).or(v.last()).cloned();
                    if let (Some(u), Some(v)) = (pick(x), pick(y)) {
                        self.paths.part(p, &u, &v, StmtPart::Header);
                    }
                    let missing = || "<missing>".to_string();
                    t.push(fail(
                        p,
                        x.get(i).map_or_else(missing, render::stmt),
                        y.get(i).map_or_else(missing, render::stmt),
                        format!("different number of statements: {} vs {}", x.len(), y.len()),
                    ));
                }
            }
            (
                StmtKind::Allocate {
                    buffer: b1,
                    body: y1,
                },
                StmtKind::Allocate {
                    buffer: b2,
                    body: y2,
                },
            ) => {
                let p = self.paths.field(path, "buffer");
                t.push(Task::DefBuffer(b1.clone(), b2.clone(), p));
                let p = self.paths.field(path, "body");
                t.push(Task::Stmt(y1.clone(), y2.clone(), p));
            }
            _ => return whole(self, "statement kinds differ".into()),
        }
        self.schedule(t);
        Ok(())
    }

    /// Compares two blocks, `sa` and `sb` the statements that realize them
    /// (where their parts print).
    fn block(
        &mut self,
        t: &mut Vec<Task>,
        (sa, a): (&Stmt, &Block),
        (sb, b): (&Stmt, &Block),
        path: P,
    ) {
        let part = |s: &mut Self, p: P, part: StmtPart| s.paths.part(p, sa, sb, part);
        let head = |blk: &Block| format!("with T.sblock({:?})", blk.name);
        if self.options.compare_block_names && a.name != b.name {
            let p = self.paths.field(path, "name_hint");
            t.push(fail(
                p,
                a.name.clone(),
                b.name.clone(),
                "block names differ",
            ));
        }
        let ivs = self.paths.field(path, "iter_vars");
        for (i, (x, y)) in a.iter_vars.iter().zip(&b.iter_vars).enumerate() {
            let p = self.paths.index(ivs, i);
            part(self, p, StmtPart::IterVar(i));
            let vp = self.paths.field(p, "var");
            t.push(Task::DefVar(x.var.clone(), y.var.clone(), vp));
            let dp = self.paths.field(p, "dom");
            self.range(t, &x.dom, &y.dom, dp);
            if x.kind != y.kind {
                let kp = self.paths.field(p, "iter_type");
                t.push(fail(
                    kp,
                    format!("{} = T.axis.{}", x.var.name(), x.kind.axis_name()),
                    format!("{} = T.axis.{}", y.var.name(), y.kind.axis_name()),
                    "block iterator kinds differ",
                ));
            }
        }
        self.len_check(
            t,
            a.iter_vars.len(),
            b.iter_vars.len(),
            ivs,
            "block iterators",
            |i| {
                (
                    a.iter_vars.get(i).map(|iv| iv.var.name().to_string()),
                    b.iter_vars.get(i).map(|iv| iv.var.name().to_string()),
                )
            },
        );
        let p = self.paths.field(path, "reads");
        part(self, p, StmtPart::Reads);
        self.regions(t, &a.reads, &b.reads, p, "read regions");
        let p = self.paths.field(path, "writes");
        part(self, p, StmtPart::Writes);
        self.regions(t, &a.writes, &b.writes, p, "write regions");
        let ap = self.paths.field(path, "alloc_buffers");
        for (i, (x, y)) in a.alloc_buffers.iter().zip(&b.alloc_buffers).enumerate() {
            let p = self.paths.index(ap, i);
            part(self, p, StmtPart::AllocBuffer(i));
            t.push(Task::DefBuffer(x.clone(), y.clone(), p));
        }
        self.len_check(
            t,
            a.alloc_buffers.len(),
            b.alloc_buffers.len(),
            ap,
            "allocated buffers",
            |i| {
                (
                    a.alloc_buffers.get(i).map(render::buffer),
                    b.alloc_buffers.get(i).map(render::buffer),
                )
            },
        );
        let mp = self.paths.field(path, "match_buffers");
        for (i, (x, y)) in a.match_buffers.iter().zip(&b.match_buffers).enumerate() {
            let p = self.paths.index(mp, i);
            part(self, p, StmtPart::MatchBuffer(i));
            let bp = self.paths.field(p, "buffer");
            t.push(Task::DefBuffer(x.buffer.clone(), y.buffer.clone(), bp));
            let sp = self.paths.field(p, "source");
            self.region(t, &x.source, &y.source, sp);
        }
        self.len_check(
            t,
            a.match_buffers.len(),
            b.match_buffers.len(),
            mp,
            "match buffers",
            |i| {
                (
                    a.match_buffers.get(i).map(|m| render::buffer(&m.buffer)),
                    b.match_buffers.get(i).map(|m| render::buffer(&m.buffer)),
                )
            },
        );
        let p = self.paths.field(path, "annotations");
        part(self, p, StmtPart::Annotations);
        self.attr_map(t, &a.annotations, &b.annotations, p, None);
        let p = self.paths.field(path, "init");
        part(self, p, StmtPart::Init);
        match (&a.init, &b.init) {
            (Some(x), Some(y)) => t.push(Task::Stmt(x.clone(), y.clone(), p)),
            (None, None) => {}
            (x, y) => t.push(fail(
                p,
                x.as_ref()
                    .map_or(format!("{}: no T.init()", head(a)), render::stmt),
                y.as_ref()
                    .map_or(format!("{}: no T.init()", head(b)), render::stmt),
                "only one block has a T.init()",
            )),
        }
        let p = self.paths.field(path, "body");
        t.push(Task::Stmt(a.body.clone(), b.body.clone(), p));
    }

    // -- functions and modules ------------------------------------------------

    fn func(&mut self, a: &PrimFunc, b: &PrimFunc, path: P) {
        let mut t = Vec::new();
        self.paths
            .anchor(path, Anchor::Signature, Anchor::Signature);
        let pp = self.paths.field(path, "params");
        for (i, (x, y)) in a.params.iter().zip(&b.params).enumerate() {
            let p = self.paths.index(pp, i);
            self.paths.anchor(p, Anchor::Param(i), Anchor::Param(i));
            t.push(Task::DefVar(x.clone(), y.clone(), p));
        }
        self.len_check(
            &mut t,
            a.params.len(),
            b.params.len(),
            pp,
            "parameters",
            |i| {
                (
                    {
                        a.params
                            .get(i)
                            .map(|v| format!("{}: {}", v.name(), v.dtype()))
                    },
                    {
                        b.params
                            .get(i)
                            .map(|v| format!("{}: {}", v.name(), v.dtype()))
                    },
                )
            },
        );
        let bp = self.paths.field(path, "buffer_map");
        // TVM's buffer map is keyed by parameter: match buffers by the
        // position of their parameter, not by the order of `T.match_buffer`.
        let (map_a, map_b) = (buffers_by_param(a), buffers_by_param(b));
        for (i, ((v1, b1), (v2, b2))) in map_a.into_iter().zip(map_b).enumerate() {
            let p = self.paths.index(bp, i);
            let param = |f: &PrimFunc, v: &Var| match f.params.iter().position(|x| x == v) {
                Some(j) => Anchor::Param(j),
                None => Anchor::Signature,
            };
            self.paths.anchor(p, param(a, v1), param(b, v2));
            let kp = self.paths.field(p, "param");
            t.push(Task::Expr {
                a: v1.to_expr(),
                b: v2.to_expr(),
                path: kp,
                def: false,
                parent: None,
            });
            let vp = self.paths.field(p, "buffer");
            t.push(Task::DefBuffer(b1.clone(), b2.clone(), vp));
        }
        self.len_check(
            &mut t,
            a.buffer_map.len(),
            b.buffer_map.len(),
            bp,
            "parameter buffers",
            |i| {
                (
                    a.buffer_map.get(i).map(|(_, b)| render::buffer(b)),
                    b.buffer_map.get(i).map(|(_, b)| render::buffer(b)),
                )
            },
        );
        let ap = self.paths.field(path, "attrs");
        self.paths.anchor(ap, Anchor::FuncAttrs, Anchor::FuncAttrs);
        let skip = self.options.ignore_global_symbol.then_some("global_symbol");
        self.attr_map(&mut t, &a.attrs, &b.attrs, ap, skip);
        let p = self.paths.field(path, "body");
        t.push(Task::Stmt(a.body.clone(), b.body.clone(), p));
        self.schedule(t);
    }

    fn module(&mut self, a: &IRModule, b: &IRModule) {
        let names_a: BTreeSet<&str> = a.names().collect();
        let names_b: BTreeSet<&str> = b.names().collect();
        let list = |s: &BTreeSet<&str>| {
            let v: Vec<String> = s.iter().map(|n| format!("{n:?}")).collect();
            format!("[{}]", v.join(", "))
        };
        if names_a != names_b {
            let root = self.paths.root(Seg::Root("mod"));
            let only_a = names_a.difference(&names_b).next();
            let only_b = names_b.difference(&names_a).next();
            let msg = match (only_a, only_b) {
                (Some(n), _) => format!("function {n:?} is only in lhs"),
                (None, Some(n)) => format!("function {n:?} is only in rhs"),
                (None, None) => "function names differ".to_string(),
            };
            self.stack
                .push(fail(root, list(&names_a), list(&names_b), msg));
            return;
        }
        let mut t = Vec::new();
        for name in &names_a {
            let (Some(fa), Some(fb)) = (a.get(name), b.get(name)) else {
                continue;
            };
            let p = self.paths.root(Seg::Func(name.to_string()));
            match (fa, fb) {
                (BaseFunc::Prim(fa), BaseFunc::Prim(fb)) => {
                    t.push(Task::Func(fa.clone(), fb.clone(), p))
                }
                (BaseFunc::Graph(fa), BaseFunc::Graph(fb)) => {
                    t.push(Task::GraphFunc(fa.clone(), fb.clone(), p))
                }
                (fa, fb) => {
                    let kind = |f: &BaseFunc| match f {
                        BaseFunc::Prim(_) => "a PrimFunc",
                        BaseFunc::Graph(_) => "a graph function",
                    };
                    t.push(fail(p, kind(fa), kind(fb), "different kinds of functions"))
                }
            }
        }
        let root = self.paths.root(Seg::Root("mod"));
        let p = self.paths.field(root, "attrs");
        self.attr_map(&mut t, &a.attrs, &b.attrs, p, None);
        self.schedule(t);
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

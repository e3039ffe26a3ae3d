//! Statements, blocks and loops.

use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;

use super::buffer::{Buffer, BufferRegion, MatchBufferRegion};
use super::expr::{Expr, Range, Var};
use super::func::AttrValue;
use tessel_syntax::diag::Span;

/// Key-sorted annotations (`T.block_attr`, loop `annotations=`), so printing
/// and comparison are deterministic.
pub type Annotations = BTreeMap<String, AttrValue>;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ForKind {
    Serial,
    Parallel,
    Vectorized,
    Unrolled,
    /// Bound to a thread axis; the tag is in [`For::thread_tag`].
    ThreadBinding,
}

impl ForKind {
    /// The TVMScript spelling: `T.serial`, `T.parallel`, …
    pub fn script_name(self) -> &'static str {
        match self {
            ForKind::Serial => "serial",
            ForKind::Parallel => "parallel",
            ForKind::Vectorized => "vectorized",
            ForKind::Unrolled => "unroll",
            ForKind::ThreadBinding => "thread_binding",
        }
    }
}

#[derive(Clone, Debug)]
pub struct For {
    pub loop_var: Var,
    pub min: Expr,
    pub extent: Expr,
    pub kind: ForKind,
    /// `blockIdx.x`, `threadIdx.y`, `vthread.x`… when `kind` is `ThreadBinding`.
    pub thread_tag: Option<String>,
    pub annotations: Annotations,
    pub body: Stmt,
}

/// The kind of a block iterator (`T.axis.spatial` / `reduce` / …).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IterKind {
    /// Data-parallel (`S`).
    Spatial,
    /// Commutative reduction (`R`).
    Reduce,
    Scan,
    Opaque,
}

impl IterKind {
    /// The `T.axis.remap` letter.
    pub fn letter(self) -> char {
        match self {
            IterKind::Spatial => 'S',
            IterKind::Reduce => 'R',
            IterKind::Scan => 'C',
            IterKind::Opaque => 'O',
        }
    }
    /// The `T.axis.*` function name.
    pub fn axis_name(self) -> &'static str {
        match self {
            IterKind::Spatial => "spatial",
            IterKind::Reduce => "reduce",
            IterKind::Scan => "scan",
            IterKind::Opaque => "opaque",
        }
    }
}

/// A block iterator: a variable with its domain and kind.
#[derive(Clone, Debug)]
pub struct IterVar {
    pub var: Var,
    pub dom: Range,
    pub kind: IterKind,
}

/// A block: the unit of computation schedules work on.
#[derive(Clone, Debug)]
pub struct Block {
    pub name: String,
    pub iter_vars: Vec<IterVar>,
    pub reads: Vec<BufferRegion>,
    pub writes: Vec<BufferRegion>,
    pub alloc_buffers: Vec<Buffer>,
    pub match_buffers: Vec<MatchBufferRegion>,
    pub annotations: Annotations,
    /// `with T.init():` — runs before the first iteration of the reduction.
    pub init: Option<Stmt>,
    pub body: Stmt,
    pub span: Span,
}

/// A block together with the values its iterators take (`T.axis.*` bindings)
/// and the predicate (`T.where`).
#[derive(Clone, Debug)]
pub struct BlockRealize {
    pub iter_values: Vec<Expr>,
    pub predicate: Expr,
    pub block: Block,
}

#[derive(Clone)]
pub struct Stmt(Rc<StmtNode>);

#[derive(Debug)]
pub struct StmtNode {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum StmtKind {
    For(For),
    BlockRealize(BlockRealize),
    Store {
        buffer: Buffer,
        value: Expr,
        indices: Vec<Expr>,
    },
    Let {
        var: Var,
        value: Expr,
        body: Stmt,
    },
    If {
        cond: Expr,
        then: Stmt,
        otherwise: Option<Stmt>,
    },
    Evaluate(Expr),
    Seq(Vec<Stmt>),
    /// A buffer allocated for the duration of `body` (lowered form, and
    /// function-level `T.alloc_buffer` in functions without blocks).
    Allocate {
        buffer: Buffer,
        body: Stmt,
    },
}

impl Stmt {
    pub fn new(kind: StmtKind, span: Span) -> Stmt {
        Stmt(Rc::new(StmtNode { kind, span }))
    }
    pub fn from_kind(kind: StmtKind) -> Stmt {
        Stmt::new(kind, Span::default())
    }
    pub fn kind(&self) -> &StmtKind {
        &self.0.kind
    }
    pub fn span(&self) -> Span {
        self.0.span
    }
    pub fn same_node(&self, other: &Stmt) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
    /// A number naming this node while it is alive (equal for the same
    /// node, as [`Stmt::same_node`] says): for hashing by identity.
    pub fn node_id(&self) -> usize {
        Rc::as_ptr(&self.0) as usize
    }
    /// A sequence, flattening nested sequences; a single statement stays as is.
    pub fn seq(stmts: Vec<Stmt>) -> Stmt {
        let mut flat = Vec::with_capacity(stmts.len());
        for s in stmts {
            match s.kind() {
                StmtKind::Seq(inner) => flat.extend(inner.iter().cloned()),
                _ => flat.push(s),
            }
        }
        match <[Stmt; 1]>::try_from(flat) {
            Ok([only]) => only,
            Err(flat) => Stmt::from_kind(StmtKind::Seq(flat)),
        }
    }
    pub fn evaluate_zero() -> Stmt {
        Stmt::from_kind(StmtKind::Evaluate(Expr::i32(0)))
    }
    /// The statements of a sequence, or this statement alone.
    pub fn as_slice(&self) -> &[Stmt] {
        match self.kind() {
            StmtKind::Seq(v) => v,
            _ => std::slice::from_ref(self),
        }
    }
    pub fn as_for(&self) -> Option<&For> {
        match self.kind() {
            StmtKind::For(f) => Some(f),
            _ => None,
        }
    }
    pub fn as_block_realize(&self) -> Option<&BlockRealize> {
        match self.kind() {
            StmtKind::BlockRealize(r) => Some(r),
            _ => None,
        }
    }

    /// Visits the direct child statements (a block's init, then its body).
    pub fn for_each_child(&self, mut f: impl FnMut(&Stmt)) {
        match self.kind() {
            StmtKind::For(l) => f(&l.body),
            StmtKind::BlockRealize(r) => {
                if let Some(init) = &r.block.init {
                    f(init);
                }
                f(&r.block.body);
            }
            StmtKind::Let { body, .. } | StmtKind::Allocate { body, .. } => f(body),
            StmtKind::If {
                then, otherwise, ..
            } => {
                f(then);
                if let Some(o) = otherwise {
                    f(o);
                }
            }
            StmtKind::Seq(v) => v.iter().for_each(f),
            StmtKind::Store { .. } | StmtKind::Evaluate(_) => {}
        }
    }

    /// Calls `f` on this statement and every nested one, parents first.
    pub fn walk(&self, f: &mut impl FnMut(&Stmt)) {
        f(self);
        self.for_each_child(|c| c.walk(f));
    }

    /// Visits the expressions held directly by this statement (not those of
    /// nested statements): loop bounds, bindings, predicates, stored values,
    /// indices, conditions, and block read/write regions.
    pub fn for_each_expr(&self, mut f: impl FnMut(&Expr)) {
        match self.kind() {
            StmtKind::For(l) => {
                f(&l.min);
                f(&l.extent);
            }
            StmtKind::BlockRealize(r) => {
                r.iter_values.iter().for_each(&mut f);
                f(&r.predicate);
                for iv in &r.block.iter_vars {
                    f(&iv.dom.min);
                    f(&iv.dom.extent);
                }
                for region in r.block.reads.iter().chain(&r.block.writes) {
                    for range in &region.region {
                        f(&range.min);
                        f(&range.extent);
                    }
                }
            }
            StmtKind::Store { value, indices, .. } => {
                f(value);
                indices.iter().for_each(f);
            }
            StmtKind::Let { value, .. } => f(value),
            StmtKind::If { cond, .. } => f(cond),
            StmtKind::Evaluate(e) => f(e),
            StmtKind::Seq(_) | StmtKind::Allocate { .. } => {}
        }
    }
}

impl fmt::Debug for Stmt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0.kind)
    }
}

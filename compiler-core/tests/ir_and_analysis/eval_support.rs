//! Hand-built IR for the interpreter tests (until TVMScript parsing lands).
#![allow(dead_code)]

use compiler_core::diag::Span;
use compiler_core::ir::*;

pub fn i32t() -> DataType {
    DataType::i32()
}
pub fn f32t() -> DataType {
    DataType::f32()
}
pub fn var(name: &str) -> Var {
    Var::new(name, DataType::i32())
}
pub fn var_t(name: &str, dt: DataType) -> Var {
    Var::new(name, dt)
}
pub fn v(x: &Var) -> Expr {
    x.to_expr()
}
pub fn c(x: i64) -> Expr {
    Expr::i32(x)
}
pub fn ci(x: i64, dt: DataType) -> Expr {
    Expr::int(x, dt)
}
pub fn cf(x: f64) -> Expr {
    Expr::f32(x)
}
pub fn cft(x: f64, dt: DataType) -> Expr {
    Expr::float(x, dt)
}
pub fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::binary(op, a, b)
}
pub fn add(a: Expr, b: Expr) -> Expr {
    bin(BinOp::Add, a, b)
}
pub fn sub(a: Expr, b: Expr) -> Expr {
    bin(BinOp::Sub, a, b)
}
pub fn mul(a: Expr, b: Expr) -> Expr {
    bin(BinOp::Mul, a, b)
}
pub fn max(a: Expr, b: Expr) -> Expr {
    bin(BinOp::Max, a, b)
}
pub fn lt(a: Expr, b: Expr) -> Expr {
    Expr::cmp(CmpOp::Lt, a, b)
}
pub fn call(op: Intrinsic, args: Vec<Expr>, dt: DataType) -> Expr {
    Expr::call(op, args, dt)
}
pub fn buf(name: &str, dt: DataType, shape: &[i64]) -> Buffer {
    Buffer::new(name, dt, shape.iter().map(|&d| Expr::i32(d)).collect())
}
pub fn buf_sym(name: &str, dt: DataType, shape: Vec<Expr>) -> Buffer {
    Buffer::new(name, dt, shape)
}
pub fn load(b: &Buffer, idx: Vec<Expr>) -> Expr {
    Expr::load(b, idx)
}
pub fn store(b: &Buffer, idx: Vec<Expr>, value: Expr) -> Stmt {
    Stmt::from_kind(StmtKind::Store {
        buffer: b.clone(),
        value,
        indices: idx,
    })
}
pub fn for_(x: &Var, extent: i64, body: Stmt) -> Stmt {
    for_e(x, c(extent), body)
}
pub fn for_e(x: &Var, extent: Expr, body: Stmt) -> Stmt {
    let min = Expr::int(0, extent.dtype());
    Stmt::from_kind(StmtKind::For(For {
        loop_var: x.clone(),
        min,
        extent,
        kind: ForKind::Serial,
        thread_tag: None,
        annotations: Default::default(),
        body,
    }))
}
pub fn seq(v: Vec<Stmt>) -> Stmt {
    Stmt::seq(v)
}
pub fn point(b: &Buffer, idx: Vec<Expr>) -> BufferRegion {
    BufferRegion {
        buffer: b.clone(),
        region: idx.into_iter().map(Range::point).collect(),
    }
}

/// A block iterator: (variable, domain extent, kind, bound value).
pub struct Iter(pub Var, pub i64, pub IterKind, pub Expr);

pub struct BlockSpec {
    pub name: &'static str,
    pub iters: Vec<Iter>,
    pub predicate: Option<Expr>,
    pub reads: Vec<BufferRegion>,
    pub writes: Vec<BufferRegion>,
    pub allocs: Vec<Buffer>,
    pub init: Option<Stmt>,
    pub body: Stmt,
}

impl BlockSpec {
    pub fn new(name: &'static str, body: Stmt) -> BlockSpec {
        BlockSpec {
            name,
            iters: Vec::new(),
            predicate: None,
            reads: Vec::new(),
            writes: Vec::new(),
            allocs: Vec::new(),
            init: None,
            body,
        }
    }
    pub fn build(self) -> Stmt {
        let (iter_vars, iter_values) = self
            .iters
            .into_iter()
            .map(|Iter(var, ext, kind, value)| {
                (
                    IterVar {
                        var,
                        dom: Range::from_extent(c(ext)),
                        kind,
                    },
                    value,
                )
            })
            .unzip();
        Stmt::from_kind(StmtKind::BlockRealize(BlockRealize {
            iter_values,
            predicate: self.predicate.unwrap_or_else(|| Expr::bool(true)),
            block: Block {
                name: self.name.to_string(),
                iter_vars,
                reads: self.reads,
                writes: self.writes,
                alloc_buffers: self.allocs,
                match_buffers: Vec::new(),
                annotations: Default::default(),
                init: self.init,
                body: self.body,
                span: Span::default(),
            },
        }))
    }
}

/// The root block around `body`, allocating `allocs`.
pub fn root(allocs: Vec<Buffer>, body: Stmt) -> Stmt {
    let mut b = BlockSpec::new("root", body);
    b.allocs = allocs;
    b.build()
}

/// A function whose parameters are `buffers` (handles matched to them) and
/// then `scalars`.
pub fn func(buffers: &[&Buffer], scalars: &[&Var], body: Stmt) -> PrimFunc {
    let mut params = Vec::new();
    let mut buffer_map = Vec::new();
    for b in buffers {
        let h = Var::new(b.name.to_lowercase(), DataType::handle());
        params.push(h.clone());
        buffer_map.push((h, (*b).clone()));
    }
    params.extend(scalars.iter().map(|v| (*v).clone()));
    PrimFunc {
        params,
        buffer_map,
        body,
        attrs: Default::default(),
        span: Span::default(),
    }
}

pub fn sp(start: u32, end: u32) -> Span {
    Span { start, end }
}

//! Small constructors for building TensorIR by hand in printer tests.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::rc::Rc;

use compiler_core::ir::*;

pub fn i32c(v: i64) -> Expr {
    Expr::i32(v)
}
pub fn i64c(v: i64) -> Expr {
    Expr::i64(v)
}
pub fn f32c(v: f64) -> Expr {
    Expr::f32(v)
}
pub fn boolc(v: bool) -> Expr {
    Expr::bool(v)
}

pub fn var(name: &str, dt: DataType) -> Var {
    Var::new(name, dt)
}
pub fn ivar(name: &str) -> Var {
    Var::new(name, DataType::i32())
}
pub fn lvar(name: &str) -> Var {
    Var::new(name, DataType::i64())
}
pub fn e(v: &Var) -> Expr {
    v.to_expr()
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
pub fn div(a: Expr, b: Expr) -> Expr {
    bin(BinOp::Div, a, b)
}
pub fn floordiv(a: Expr, b: Expr) -> Expr {
    bin(BinOp::FloorDiv, a, b)
}
pub fn floormod(a: Expr, b: Expr) -> Expr {
    bin(BinOp::FloorMod, a, b)
}
pub fn max(a: Expr, b: Expr) -> Expr {
    bin(BinOp::Max, a, b)
}
pub fn min(a: Expr, b: Expr) -> Expr {
    bin(BinOp::Min, a, b)
}
pub fn cmp(op: CmpOp, a: Expr, b: Expr) -> Expr {
    Expr::cmp(op, a, b)
}
pub fn lt(a: Expr, b: Expr) -> Expr {
    cmp(CmpOp::Lt, a, b)
}
pub fn gt(a: Expr, b: Expr) -> Expr {
    cmp(CmpOp::Gt, a, b)
}
pub fn call(op: Intrinsic, args: Vec<Expr>, dt: DataType) -> Expr {
    Expr::call(op, args, dt)
}
pub fn extern_call(dt: DataType, name: &str, mut args: Vec<Expr>) -> Expr {
    args.insert(0, str_expr(name));
    Expr::call(Intrinsic::Other("call_extern".into()), args, dt)
}
pub fn str_expr(s: &str) -> Expr {
    Expr::new(
        ExprKind::Str(s.into()),
        DataType::handle(),
        Default::default(),
    )
}
pub fn ramp(base: Expr, stride: Expr, lanes: u16) -> Expr {
    let dt = base.dtype().with_lanes(lanes);
    Expr::new(ExprKind::Ramp { base, stride }, dt, Default::default())
}
pub fn broadcast(v: Expr, lanes: u16) -> Expr {
    let dt = v.dtype().with_lanes(lanes);
    Expr::new(ExprKind::Broadcast(v), dt, Default::default())
}

/// A global buffer with an int32 constant shape.
pub fn buf(name: &str, dt: &str, shape: &[i64]) -> Buffer {
    buf_e(name, dt, shape.iter().map(|d| i32c(*d)).collect())
}
/// A global buffer with an int64 constant shape.
pub fn buf64(name: &str, dt: &str, shape: &[i64]) -> Buffer {
    buf_e(name, dt, shape.iter().map(|d| i64c(*d)).collect())
}
pub fn buf_e(name: &str, dt: &str, shape: Vec<Expr>) -> Buffer {
    Buffer::new(name, DataType::parse(dt).expect("dtype"), shape)
}
pub fn scoped(b: Buffer, scope: &str) -> Buffer {
    b.derive(|n| n.scope = scope.into())
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
pub fn seq(v: Vec<Stmt>) -> Stmt {
    Stmt::seq(v)
}
pub fn evaluate(x: Expr) -> Stmt {
    Stmt::from_kind(StmtKind::Evaluate(x))
}
pub fn let_(v: &Var, value: Expr, body: Stmt) -> Stmt {
    Stmt::from_kind(StmtKind::Let {
        var: v.clone(),
        value,
        body,
    })
}
pub fn if_(cond: Expr, then: Stmt, otherwise: Option<Stmt>) -> Stmt {
    Stmt::from_kind(StmtKind::If {
        cond,
        then,
        otherwise,
    })
}
pub fn allocate(b: &Buffer, body: Stmt) -> Stmt {
    Stmt::from_kind(StmtKind::Allocate {
        buffer: b.clone(),
        body,
    })
}

pub fn loop_full(
    v: &Var,
    min: Expr,
    extent: Expr,
    kind: ForKind,
    thread: Option<&str>,
    annotations: Annotations,
    body: Stmt,
) -> Stmt {
    Stmt::from_kind(StmtKind::For(For {
        loop_var: v.clone(),
        min,
        extent,
        kind,
        thread_tag: thread.map(str::to_string),
        annotations,
        body,
    }))
}
/// `for v in range(extent)` with a zero of the extent's dtype as minimum.
pub fn for_(v: &Var, extent: Expr, body: Stmt) -> Stmt {
    let zero = Expr::int(0, extent.dtype());
    loop_full(
        v,
        zero,
        extent,
        ForKind::Serial,
        None,
        Annotations::new(),
        body,
    )
}
pub fn for_kind(v: &Var, extent: Expr, kind: ForKind, body: Stmt) -> Stmt {
    let zero = Expr::int(0, extent.dtype());
    loop_full(v, zero, extent, kind, None, Annotations::new(), body)
}
pub fn for_range(v: &Var, min: Expr, extent: Expr, kind: ForKind, body: Stmt) -> Stmt {
    loop_full(v, min, extent, kind, None, Annotations::new(), body)
}
pub fn thread(v: &Var, extent: Expr, tag: &str, body: Stmt) -> Stmt {
    let zero = Expr::int(0, extent.dtype());
    loop_full(
        v,
        zero,
        extent,
        ForKind::ThreadBinding,
        Some(tag),
        Annotations::new(),
        body,
    )
}

pub fn point(x: Expr) -> Range {
    Range::point(x)
}
pub fn rng(min: Expr, extent: Expr) -> Range {
    Range::new(min, extent)
}
pub fn region(b: &Buffer, ranges: Vec<Range>) -> BufferRegion {
    BufferRegion {
        buffer: b.clone(),
        region: ranges,
    }
}
/// The region of single elements at `idx`.
pub fn at(b: &Buffer, idx: Vec<Expr>) -> BufferRegion {
    region(b, idx.into_iter().map(point).collect())
}

pub fn attrs(items: Vec<(&str, AttrValue)>) -> BTreeMap<String, AttrValue> {
    items.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// A block under construction.
pub struct BlockB {
    pub block: Block,
    pub iter_values: Vec<Expr>,
    pub predicate: Expr,
}

pub fn block(name: &str) -> BlockB {
    BlockB {
        block: Block {
            name: name.into(),
            iter_vars: vec![],
            reads: vec![],
            writes: vec![],
            alloc_buffers: vec![],
            match_buffers: vec![],
            annotations: Annotations::new(),
            init: None,
            body: Stmt::evaluate_zero(),
            span: Default::default(),
        },
        iter_values: vec![],
        predicate: boolc(true),
    }
}

impl BlockB {
    /// An iterator over `[0, extent)` bound to `value`.
    pub fn iter(mut self, v: &Var, kind: IterKind, extent: Expr, value: Expr) -> Self {
        self.block.iter_vars.push(IterVar {
            var: v.clone(),
            dom: Range::from_extent(extent),
            kind,
        });
        self.iter_values.push(value);
        self
    }
    pub fn iter_dom(mut self, v: &Var, kind: IterKind, dom: Range, value: Expr) -> Self {
        self.block.iter_vars.push(IterVar {
            var: v.clone(),
            dom,
            kind,
        });
        self.iter_values.push(value);
        self
    }
    pub fn spatial(self, v: &Var, extent: i64, value: Expr) -> Self {
        self.iter(v, IterKind::Spatial, i32c(extent), value)
    }
    pub fn reduce(self, v: &Var, extent: i64, value: Expr) -> Self {
        self.iter(v, IterKind::Reduce, i32c(extent), value)
    }
    pub fn reads(mut self, r: Vec<BufferRegion>) -> Self {
        self.block.reads = r;
        self
    }
    pub fn writes(mut self, r: Vec<BufferRegion>) -> Self {
        self.block.writes = r;
        self
    }
    pub fn alloc(mut self, b: &Buffer) -> Self {
        self.block.alloc_buffers.push(b.clone());
        self
    }
    pub fn match_buffer(mut self, b: &Buffer, source: BufferRegion) -> Self {
        self.block.match_buffers.push(MatchBufferRegion {
            buffer: b.clone(),
            source,
        });
        self
    }
    pub fn attr(mut self, k: &str, v: AttrValue) -> Self {
        self.block.annotations.insert(k.into(), v);
        self
    }
    pub fn init(mut self, s: Stmt) -> Self {
        self.block.init = Some(s);
        self
    }
    pub fn predicate(mut self, p: Expr) -> Self {
        self.predicate = p;
        self
    }
    pub fn body(mut self, s: Stmt) -> Stmt {
        self.block.body = s;
        Stmt::from_kind(StmtKind::BlockRealize(BlockRealize {
            iter_values: self.iter_values,
            predicate: self.predicate,
            block: self.block,
        }))
    }
}

/// The implicit root block around a function body.
pub fn root(allocs: Vec<Buffer>, body: Stmt) -> Stmt {
    let mut b = block("root");
    b.block.alloc_buffers = allocs;
    b.body(body)
}

/// A function parameter.
pub enum Param {
    /// `A: T.Buffer(...)` (a handle named like the buffer, as the builder does).
    Buf(Buffer),
    /// `a: T.handle` matched to a buffer.
    Handle(Var, Buffer),
    Scalar(Var),
}

pub fn func(params: Vec<Param>, body: Stmt, attrs: BTreeMap<String, AttrValue>) -> PrimFunc {
    let mut ps = Vec::new();
    let mut buffer_map = Vec::new();
    for p in params {
        match p {
            Param::Buf(b) => {
                let h = Var::new(b.name.clone(), DataType::handle());
                ps.push(h.clone());
                buffer_map.push((h, b));
            }
            Param::Handle(h, b) => {
                ps.push(h.clone());
                buffer_map.push((h, b));
            }
            Param::Scalar(v) => ps.push(v),
        }
    }
    PrimFunc {
        params: ps,
        buffer_map,
        body,
        attrs,
        span: Default::default(),
    }
}

/// The function with `global_symbol` set to `name`, as TVM's parser (and
/// Tessel's builder) gives every function that is not private.
pub fn public(mut f: PrimFunc, name: &str) -> PrimFunc {
    f.attrs
        .entry("global_symbol".into())
        .or_insert_with(|| AttrValue::Str(name.into()));
    f
}

/// A module of public functions.
pub fn module(funcs: Vec<(&str, PrimFunc)>) -> IRModule {
    let mut m = IRModule::new();
    for (n, f) in funcs {
        m.insert(n, BaseFunc::Prim(Rc::new(public(f, n))));
    }
    m
}

pub fn noalias(name: Option<&str>) -> BTreeMap<String, AttrValue> {
    let mut a = attrs(vec![("tir.noalias", AttrValue::Bool(true))]);
    if let Some(n) = name {
        a.insert("global_symbol".into(), AttrValue::Str(n.into()));
    }
    a
}

/// TVM 0.27's printing turned into the course dialect: `T.sblock` →
/// `T.block`, `tirx` → `tir`, no `s_tir=True`, no `Axis` import line.
pub fn tirx_to_block_dialect(s: &str) -> String {
    tirx_to_sblock_dialect(s)
        .replace("T.sblock(", "T.block(")
        .replace("T.sblock_attr(", "T.block_attr(")
        .replace("# with T.sblock(\"root\")", "# with T.block(\"root\")")
}

/// TVM 0.27's printing turned into the newer notebooks' dialect.
pub fn tirx_to_sblock_dialect(s: &str) -> String {
    s.replace(
        "# from tvm.script import tirx as T",
        "# from tvm.script import tir as T",
    )
    .replace("# from tvm.tirx.layout import Axis\n", "")
    .replace("\"tirx.noalias\"", "\"tir.noalias\"")
    .replace("@T.prim_func(s_tir=True)", "@T.prim_func")
    .replace("T.sblock_alloc_buffer(", "T.alloc_buffer(")
}

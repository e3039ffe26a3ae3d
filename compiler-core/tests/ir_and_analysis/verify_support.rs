//! Hand-built IR for the structural-equality and verifier tests.
//!
//! [`Ir`] hands out a distinct source span to every node it makes, so a test
//! can assert which node a diagnostic points at.
#![allow(dead_code)]

use std::collections::BTreeMap;

use compiler_core::diag::{Diagnostic, Span};
use compiler_core::ir::*;

/// A builder that gives every node a fresh span `[10k, 10k + 5)`.
#[derive(Default)]
pub struct Ir {
    next: u32,
    /// When set (the default), [`Ir::realize`] fills an empty `writes` with the
    /// whole of every buffer stored to in the block, as TVMScript's inference would.
    pub infer_writes: bool,
}

impl Ir {
    pub fn new() -> Ir {
        Ir {
            next: 1,
            infer_writes: true,
        }
    }
    pub fn span(&mut self) -> Span {
        let k = self.next;
        self.next += 1;
        Span::new(k * 10, k * 10 + 5)
    }

    // -- expressions
    pub fn e(&mut self, kind: ExprKind, dtype: DataType) -> Expr {
        let s = self.span();
        Expr::new(kind, dtype, s)
    }
    pub fn v(&mut self, var: &Var) -> Expr {
        self.e(ExprKind::Var(var.clone()), var.dtype())
    }
    pub fn i(&mut self, value: i64) -> Expr {
        self.e(ExprKind::Int(value), DataType::i32())
    }
    pub fn i64(&mut self, value: i64) -> Expr {
        self.e(ExprKind::Int(value), DataType::i64())
    }
    pub fn f32(&mut self, value: f64) -> Expr {
        self.e(ExprKind::Float(value), DataType::f32())
    }
    pub fn bin(&mut self, op: BinOp, a: Expr, b: Expr) -> Expr {
        let dt = a.dtype();
        self.e(ExprKind::Binary(op, a, b), dt)
    }
    pub fn add(&mut self, a: Expr, b: Expr) -> Expr {
        self.bin(BinOp::Add, a, b)
    }
    pub fn mul(&mut self, a: Expr, b: Expr) -> Expr {
        self.bin(BinOp::Mul, a, b)
    }
    pub fn max(&mut self, a: Expr, b: Expr) -> Expr {
        self.bin(BinOp::Max, a, b)
    }
    pub fn cmp(&mut self, op: CmpOp, a: Expr, b: Expr) -> Expr {
        self.e(ExprKind::Cmp(op, a, b), DataType::bool())
    }
    pub fn load(&mut self, buf: &Buffer, indices: Vec<Expr>) -> Expr {
        self.e(
            ExprKind::Load {
                buffer: buf.clone(),
                indices,
            },
            buf.dtype,
        )
    }

    // -- statements
    pub fn s(&mut self, kind: StmtKind) -> Stmt {
        let s = self.span();
        Stmt::new(kind, s)
    }
    pub fn store(&mut self, buf: &Buffer, indices: Vec<Expr>, value: Expr) -> Stmt {
        self.s(StmtKind::Store {
            buffer: buf.clone(),
            value,
            indices,
        })
    }
    pub fn seq(&mut self, stmts: Vec<Stmt>) -> Stmt {
        self.s(StmtKind::Seq(stmts))
    }
    pub fn for_kind(&mut self, var: &Var, extent: i64, kind: ForKind, body: Stmt) -> Stmt {
        let min = self.e(ExprKind::Int(0), var.dtype());
        let extent = self.e(ExprKind::Int(extent), var.dtype());
        self.s(StmtKind::For(For {
            loop_var: var.clone(),
            min,
            extent,
            kind,
            thread_tag: None,
            annotations: BTreeMap::new(),
            body,
        }))
    }
    pub fn for_(&mut self, var: &Var, extent: i64, body: Stmt) -> Stmt {
        self.for_kind(var, extent, ForKind::Serial, body)
    }
    /// Nested serial loops, outermost first.
    pub fn grid(&mut self, loops: &[(&Var, i64)], body: Stmt) -> Stmt {
        let mut s = body;
        for (v, n) in loops.iter().rev() {
            s = self.for_(v, *n, s);
        }
        s
    }

    pub fn iter(&mut self, var: &Var, extent: i64, kind: IterKind) -> IterVar {
        let min = self.e(ExprKind::Int(0), var.dtype());
        let extent = self.e(ExprKind::Int(extent), var.dtype());
        IterVar {
            var: var.clone(),
            dom: Range::new(min, extent),
            kind,
        }
    }

    /// A block realize with default predicate and no regions.
    pub fn block(&mut self, name: &str, iters: Vec<(IterVar, Expr)>, body: Stmt) -> BlockData {
        let (iter_vars, iter_values) = iters.into_iter().unzip();
        let predicate = self.e(ExprKind::Int(1), DataType::bool());
        let span = self.span();
        BlockData {
            realize: BlockRealize {
                iter_values,
                predicate,
                block: Block {
                    name: name.to_string(),
                    iter_vars,
                    reads: vec![],
                    writes: vec![],
                    alloc_buffers: vec![],
                    match_buffers: vec![],
                    annotations: BTreeMap::new(),
                    init: None,
                    body,
                    span,
                },
            },
        }
    }

    pub fn realize(&mut self, mut b: BlockData) -> Stmt {
        let root = b.realize.block.name == "root";
        if self.infer_writes && !root && b.realize.block.writes.is_empty() {
            b.realize.block.writes = stored_buffers(&b.realize.block)
                .iter()
                .map(|buf| region(buf, buf.full_region()))
                .collect();
        }
        let span = b.realize.block.span;
        Stmt::new(StmtKind::BlockRealize(b.realize), span)
    }

    /// A function whose body is the root block holding `allocs` and `body`.
    pub fn func(&mut self, params: &[&Buffer], allocs: &[&Buffer], body: Stmt) -> PrimFunc {
        let mut root = self.block("root", vec![], body);
        root.realize.block.alloc_buffers = allocs.iter().map(|b| (*b).clone()).collect();
        let body = self.realize(root);
        self.func_with_body(params, body)
    }

    pub fn func_with_body(&mut self, params: &[&Buffer], body: Stmt) -> PrimFunc {
        let mut ps = Vec::new();
        let mut bm = Vec::new();
        for b in params {
            let h = Var::new(b.name.to_lowercase(), DataType::handle());
            ps.push(h.clone());
            bm.push((h, (*b).clone()));
        }
        let span = self.span();
        PrimFunc {
            params: ps,
            buffer_map: bm,
            body,
            attrs: BTreeMap::new(),
            span,
        }
    }

    /// A buffer with constant shape and a fresh span.
    pub fn buffer(&mut self, name: &str, shape: &[i64], dtype: DataType) -> Buffer {
        let shape = shape.iter().map(|&d| self.i(d)).collect();
        let span = self.span();
        Buffer::new(name, dtype, shape).derive(|n| n.span = span)
    }
    pub fn buffer_sym(&mut self, name: &str, shape: Vec<Expr>, dtype: DataType) -> Buffer {
        let span = self.span();
        Buffer::new(name, dtype, shape).derive(|n| n.span = span)
    }
}

/// Buffers stored to anywhere in `block`, except those allocated or matched
/// inside it, in order.
pub fn stored_buffers(block: &Block) -> Vec<Buffer> {
    let mut stored: Vec<Buffer> = Vec::new();
    let mut local: Vec<Buffer> = block.alloc_buffers.clone();
    local.extend(block.match_buffers.iter().map(|m| m.buffer.clone()));
    let mut stack: Vec<Stmt> = vec![block.body.clone()];
    stack.extend(block.init.clone());
    while let Some(s) = stack.pop() {
        match s.kind() {
            StmtKind::Store { buffer, .. } if !stored.contains(buffer) => {
                stored.push(buffer.clone())
            }
            StmtKind::BlockRealize(r) => {
                local.extend(r.block.alloc_buffers.iter().cloned());
                local.extend(r.block.match_buffers.iter().map(|m| m.buffer.clone()));
            }
            StmtKind::Allocate { buffer, .. } => local.push(buffer.clone()),
            _ => {}
        }
        s.for_each_child(|c| stack.push(c.clone()));
    }
    stored.retain(|b| !local.contains(b));
    stored
}

/// A block under construction: tweak `realize` fields, then [`Ir::realize`].
pub struct BlockData {
    pub realize: BlockRealize,
}

impl BlockData {
    pub fn block(&mut self) -> &mut Block {
        &mut self.realize.block
    }
}

pub fn i32v(name: &str) -> Var {
    Var::new(name, DataType::i32())
}

pub fn region(buf: &Buffer, ranges: Vec<Range>) -> BufferRegion {
    BufferRegion {
        buffer: buf.clone(),
        region: ranges,
    }
}

/// `[ivar]` point ranges for a region.
pub fn points(indices: Vec<Expr>) -> Vec<Range> {
    indices.into_iter().map(Range::point).collect()
}

/// Diagnostics as stable text: `error 120..125: message` plus labels and notes.
pub fn show(diags: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diags {
        out.push_str(&format!(
            "{} {}..{}: {}\n",
            d.severity, d.span.start, d.span.end, d.message
        ));
        for (s, l) in &d.labels {
            out.push_str(&format!("  label {}..{}: {}\n", s.start, s.end, l));
        }
        for n in &d.notes {
            out.push_str(&format!("  note: {n}\n"));
        }
    }
    out
}

/// The matmul + relu of the MLC book (`mm_relu`), built by hand.
/// `swap_a` writes `A[vk, vi]` instead of `A[vi, vk]`.
pub fn mm_relu(ir: &mut Ir, block_name: &str, swap_a: bool) -> PrimFunc {
    let f32 = DataType::f32();
    let a = ir.buffer("A", &[128, 128], f32);
    let b = ir.buffer("B", &[128, 128], f32);
    let c = ir.buffer("C", &[128, 128], f32);
    let y = ir.buffer("Y", &[128, 128], f32);
    let (i, j, k) = (i32v("i"), i32v("j"), i32v("k"));
    let (vi, vj, vk) = (i32v("vi"), i32v("vj"), i32v("vk"));
    let iv = ir.iter(&vi, 128, IterKind::Spatial);
    let jv = ir.iter(&vj, 128, IterKind::Spatial);
    let kv = ir.iter(&vk, 128, IterKind::Reduce);
    let (ei, ej, ek) = (ir.v(&i), ir.v(&j), ir.v(&k));
    let yl = {
        let x = ir.v(&vi);
        let y2 = ir.v(&vj);
        ir.load(&y, vec![x, y2])
    };
    let al = {
        let x = ir.v(&vi);
        let z = ir.v(&vk);
        if swap_a {
            ir.load(&a, vec![z, x])
        } else {
            ir.load(&a, vec![x, z])
        }
    };
    let bl = {
        let z = ir.v(&vk);
        let y2 = ir.v(&vj);
        ir.load(&b, vec![z, y2])
    };
    let prod = ir.mul(al, bl);
    let sum = ir.add(yl, prod);
    let idx = vec![ir.v(&vi), ir.v(&vj)];
    let update = ir.store(&y, idx, sum);
    let idx0 = vec![ir.v(&vi), ir.v(&vj)];
    let zero = ir.f32(0.0);
    let init = ir.store(&y, idx0, zero);
    let mut blk = ir.block(block_name, vec![(iv, ei), (jv, ej), (kv, ek)], update);
    blk.block().init = Some(init);
    let r1 = {
        let x = vec![ir.v(&vi), ir.v(&vj)];
        let rd = vec![
            region(&y, points(x.clone())),
            region(&a, {
                let m = ir.v(&vi);
                let n = ir.v(&vk);
                points(if swap_a { vec![n, m] } else { vec![m, n] })
            }),
            region(&b, {
                let m = ir.v(&vk);
                let n = ir.v(&vj);
                points(vec![m, n])
            }),
        ];
        blk.block().reads = rd;
        blk.block().writes = vec![region(&y, points(x))];
        ir.realize(blk)
    };
    let nest1 = ir.grid(&[(&i, 128), (&j, 128), (&k, 128)], r1);

    let (i2, j2) = (i32v("i"), i32v("j"));
    let (vi2, vj2) = (i32v("vi"), i32v("vj"));
    let iv2 = ir.iter(&vi2, 128, IterKind::Spatial);
    let jv2 = ir.iter(&vj2, 128, IterKind::Spatial);
    let (ei2, ej2) = (ir.v(&i2), ir.v(&j2));
    let yl2 = {
        let x = vec![ir.v(&vi2), ir.v(&vj2)];
        ir.load(&y, x)
    };
    let z = ir.f32(0.0);
    let relu = ir.max(yl2, z);
    let idx = vec![ir.v(&vi2), ir.v(&vj2)];
    let st = ir.store(&c, idx, relu);
    let mut blk2 = ir.block("C", vec![(iv2, ei2), (jv2, ej2)], st);
    let pts = vec![ir.v(&vi2), ir.v(&vj2)];
    blk2.block().reads = vec![region(&y, points(pts.clone()))];
    blk2.block().writes = vec![region(&c, points(pts))];
    let r2 = ir.realize(blk2);
    let nest2 = ir.grid(&[(&i2, 128), (&j2, 128)], r2);
    let body = ir.seq(vec![nest1, nest2]);
    let mut f = ir.func(&[&a, &b, &c], &[&y], body);
    f.attrs
        .insert("global_symbol".into(), AttrValue::Str("mm_relu".into()));
    f.attrs.insert("tir.noalias".into(), AttrValue::Bool(true));
    f
}

//! AnnotateTIROpPattern (`relax.transform.AnnotateTIROpPattern()`): each
//! PrimFunc gets an `op_pattern` attribute, the operator pattern that
//! [`super::fuse_ops`] reads (TVM's `OpPatternKind`).
//!
//! Rules, block by block (the function's pattern is the largest):
//! - a spatial block whose store indices are its iterators: element-wise
//!   when every load uses the same indices, broadcast when each load uses a
//!   subsequence of them, injective otherwise;
//! - a reduction block: out-element-wise-fusable when its update is
//!   `C = C + A * B` (matmul, convolution), a commutative reduction
//!   otherwise;
//! - a spatial block with one element-wise load is element-wise even when
//!   other loads broadcast (`C[i, j] = A[i, j] + B[j]`);
//! - a reduction followed by a spatial (at most injective) block becomes
//!   out-element-wise-fusable (`sum` then divide: `mean`; softmax);
//! - anything else (a store that is not at the iterators, no blocks,
//!   several stores in a block) is opaque.
//!
//! A function that already has `op_pattern` keeps it.

use std::rc::Rc;

use tessel_tir::ir::{
    AttrValue, BaseFunc, BinOp, Block, ExprKind, IRModule, IterKind, PrimFunc, Stmt, StmtKind,
};

/// TVM's operator pattern kinds (the numbers are TVM's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OpPattern {
    ElemWise = 0,
    Broadcast = 1,
    Injective = 2,
    CommReduce = 3,
    OutEWiseFusable = 4,
    Tuple = 7,
    Opaque = 8,
}

impl OpPattern {
    pub fn from_i64(v: i64) -> OpPattern {
        match v {
            0 => OpPattern::ElemWise,
            1 => OpPattern::Broadcast,
            2 => OpPattern::Injective,
            3 => OpPattern::CommReduce,
            4 => OpPattern::OutEWiseFusable,
            7 => OpPattern::Tuple,
            _ => OpPattern::Opaque,
        }
    }
}

/// The `op_pattern` attribute of a PrimFunc, opaque when absent.
pub fn pattern_of(f: &PrimFunc) -> OpPattern {
    match f.attrs.get("op_pattern") {
        Some(AttrValue::Int(v)) => OpPattern::from_i64(*v),
        _ => OpPattern::Opaque,
    }
}

/// Annotates every PrimFunc of the module that has no `op_pattern` yet.
pub fn annotate_tir_op_pattern(module: &IRModule) -> IRModule {
    let mut out = module.clone();
    for (_, f) in &mut out.functions {
        if let BaseFunc::Prim(p) = f {
            if !p.attrs.contains_key("op_pattern") {
                let mut np = (**p).clone();
                np.attrs
                    .insert("op_pattern".to_string(), AttrValue::Int(analyze(p) as i64));
                *f = BaseFunc::Prim(Rc::new(np));
            }
        }
    }
    out
}

/// The operator pattern of a PrimFunc.
pub fn analyze(f: &PrimFunc) -> OpPattern {
    let mut blocks = Vec::new();
    collect_blocks(&f.body, &mut blocks, true);
    if blocks.is_empty() {
        return OpPattern::Opaque;
    }
    let mut kind = OpPattern::ElemWise;
    for b in blocks {
        let k = block_pattern(&b);
        if kind == OpPattern::CommReduce && k <= OpPattern::Injective {
            kind = OpPattern::OutEWiseFusable;
        } else {
            kind = kind.max(k);
        }
    }
    kind
}

/// The non-root blocks in order (the root block's body is looked into).
fn collect_blocks(s: &Stmt, out: &mut Vec<Block>, root: bool) {
    match s.kind() {
        StmtKind::BlockRealize(r) => {
            if root && r.block.name == "root" {
                collect_blocks(&r.block.body, out, false);
            } else {
                out.push(r.block.clone());
            }
        }
        StmtKind::For(l) => collect_blocks(&l.body, out, root),
        StmtKind::Seq(v) => v.iter().for_each(|x| collect_blocks(x, out, root)),
        StmtKind::Let { body, .. } | StmtKind::Allocate { body, .. } => {
            collect_blocks(body, out, root)
        }
        StmtKind::If {
            then, otherwise, ..
        } => {
            collect_blocks(then, out, root);
            if let Some(o) = otherwise {
                collect_blocks(o, out, root);
            }
        }
        _ => {}
    }
}

fn block_pattern(b: &Block) -> OpPattern {
    let StmtKind::Store {
        buffer,
        value,
        indices,
    } = b.body.kind()
    else {
        return OpPattern::Opaque;
    };
    let store_vars: Option<Vec<_>> = indices.iter().map(|i| i.as_var().map(|v| v.id())).collect();
    let Some(store_vars) = store_vars else {
        return OpPattern::Opaque;
    };
    let reduction = b.iter_vars.iter().any(|iv| iv.kind == IterKind::Reduce) || b.init.is_some();
    if reduction {
        // `C[...] = C[...] + A * B` (either operand order of the addition).
        let fma = match value.kind() {
            ExprKind::Binary(BinOp::Add, x, y) => {
                let is_self = |e: &tessel_tir::ir::Expr| matches!(e.kind(), ExprKind::Load { buffer: lb, .. } if lb.id() == buffer.id());
                let is_mul = |e: &tessel_tir::ir::Expr| {
                    let e = match e.kind() {
                        ExprKind::Cast(inner) => inner,
                        _ => e,
                    };
                    matches!(e.kind(), ExprKind::Binary(BinOp::Mul, _, _))
                };
                (is_self(x) && is_mul(y)) || (is_self(y) && is_mul(x))
            }
            _ => false,
        };
        return if fma {
            OpPattern::OutEWiseFusable
        } else {
            OpPattern::CommReduce
        };
    }
    let mut kind = OpPattern::ElemWise;
    let mut has_elemwise = false;
    value.walk(&mut |e| {
        if let ExprKind::Load {
            buffer: lb,
            indices: li,
        } = e.kind()
        {
            let k = load_pattern(&store_vars, li, &lb.shape);
            has_elemwise |= k == OpPattern::ElemWise;
            kind = kind.max(k);
        }
    });
    // `C[i, j] = A[i, j] + B[j]`: one element-wise load makes the block
    // element-wise (TVM's rule).
    if kind == OpPattern::Broadcast && has_elemwise {
        kind = OpPattern::ElemWise;
    }
    kind
}

fn load_pattern(
    store: &[tessel_tir::ir::VarId],
    load: &[tessel_tir::ir::Expr],
    shape: &[tessel_tir::ir::Expr],
) -> OpPattern {
    if load.len() == store.len()
        && load
            .iter()
            .zip(store)
            .all(|(i, s)| i.as_var().is_some_and(|v| v.id() == *s))
    {
        return OpPattern::ElemWise;
    }
    // Unit dimensions read at 0 do not count.
    let vars: Option<Vec<_>> = load
        .iter()
        .zip(shape)
        .filter(|(i, d)| !(i.is_const_int(0) && d.is_const_int(1)))
        .map(|(i, _)| i.as_var().map(|v| v.id()))
        .collect();
    let Some(vars) = vars else {
        return OpPattern::Injective;
    };
    if vars == store {
        return OpPattern::ElemWise;
    }
    // A subsequence of the store indices, in order.
    let mut pos = 0;
    for v in &vars {
        match store[pos..].iter().position(|s| s == v) {
            Some(p) => pos += p + 1,
            None => return OpPattern::Injective,
        }
    }
    OpPattern::Broadcast
}

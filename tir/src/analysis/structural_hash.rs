//! A structural hash (`tvm_ffi.structural_hash`): programs that are
//! structurally equal (see [`super::structural_equal`]) hash alike.
//!
//! The hash reads only what structural equality compares whatever the
//! names: the functions' names (modules match functions by name), node
//! kinds, dtypes, constants, loop kinds and block iterator kinds. Variable,
//! buffer and block names and attributes are left out, so the hash is
//! coarser than equality (unequal programs may collide), never finer.

use std::hash::{DefaultHasher, Hash, Hasher};

use crate::ir::{BaseFunc, Expr, ExprKind, IRModule, PrimFunc, StmtKind};

/// The structural hash of a module.
pub fn structural_hash(module: &IRModule) -> u64 {
    let mut h = DefaultHasher::new();
    let mut functions: Vec<&(String, BaseFunc)> = module.functions.iter().collect();
    tessel_ir::sort::by(&mut functions, |a, b| a.0.cmp(&b.0));
    for (name, func) in functions {
        name.hash(&mut h);
        match func {
            BaseFunc::Prim(f) => hash_prim_func(f, &mut h),
            BaseFunc::Graph(_) => "graph function".hash(&mut h),
        }
    }
    h.finish()
}

/// The structural hash of one function.
pub fn prim_func_hash(func: &PrimFunc) -> u64 {
    let mut h = DefaultHasher::new();
    hash_prim_func(func, &mut h);
    h.finish()
}

fn hash_prim_func(f: &PrimFunc, h: &mut DefaultHasher) {
    f.params.len().hash(h);
    for p in &f.params {
        p.dtype().hash(h);
    }
    f.buffer_map.len().hash(h);
    f.body.walk(&mut |s| {
        std::mem::discriminant(s.kind()).hash(h);
        match s.kind() {
            StmtKind::For(l) => l.kind.hash(h),
            StmtKind::BlockRealize(r) => {
                for iv in &r.block.iter_vars {
                    iv.kind.hash(h);
                }
                r.block.reads.len().hash(h);
                r.block.writes.len().hash(h);
                r.block.init.is_some().hash(h);
            }
            _ => {}
        }
        s.for_each_expr(|e| hash_expr(e, h));
    });
}

fn hash_expr(e: &Expr, h: &mut DefaultHasher) {
    e.walk(&mut |x| {
        std::mem::discriminant(x.kind()).hash(h);
        x.dtype().hash(h);
        match x.kind() {
            ExprKind::Int(v) => v.hash(h),
            // Equality takes -0.0 as 0.0 and NaN as NaN.
            ExprKind::Float(v) if v.is_nan() => "nan".hash(h),
            ExprKind::Float(v) => (v + 0.0).to_bits().hash(h),
            ExprKind::Str(s) => s.hash(h),
            _ => {}
        }
    });
}

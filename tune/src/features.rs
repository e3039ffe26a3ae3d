//! Features of a candidate for the cost model, read from its lowered
//! program (`compiler_core::lower`, the form the backends compile). A
//! documented subset of TVM's per-store features, summed over the stores:
//!
//! | # | feature |
//! |---|---------|
//! | 0 | log2 of dynamic stores (each store × the iterations around it) |
//! | 1 | log2 of dynamic arithmetic operations |
//! | 2 | log2 of dynamic loads |
//! | 3 | share of dynamic loads invariant in their innermost loop (reuse) |
//! | 4 | mean vector lanes of the stores, weighted by executions |
//! | 5 | log2 of the static statement count (code size: unrolling) |
//! | 6 | deepest loop nest |
//! | 7 | log2 of the mean innermost-loop extent over the stores |
//! | 8 | log2 of the bytes of local allocations (caches) |
//! | 9 | log2 of the outermost parallel or `blockIdx` extent |
//! | 10 | log2 of the `threadIdx` extent |
//! | 11 | number of loops |
//! | 12 | log2 of the iterations of `T.unroll` loops around the stores (mean) |
//!
//! Every feature is finite; a program that does not lower gets `None`.

use compiler_core::ir::{Expr, ExprKind, ForKind, PrimFunc, Stmt, StmtKind, VarId};
use compiler_core::lower::{lower_func, LowerOptions};

/// How many features [`extract`] returns.
pub const NUM_FEATURES: usize = 13;

#[derive(Default)]
struct Acc {
    stores: f64,
    ops: f64,
    loads: f64,
    invariant_loads: f64,
    lanes_weighted: f64,
    stmts: f64,
    depth: usize,
    innermost_weighted: f64,
    alloc_bytes: f64,
    outer_parallel: f64,
    threads: f64,
    loops: f64,
    unrolled_weighted: f64,
}

fn log2p(x: f64) -> f64 {
    (x.max(0.0) + 1.0).log2()
}

/// The features of `func` (lowered with `gpu`'s options) or `None` when it
/// does not lower.
pub fn extract(func: &PrimFunc, gpu: bool) -> Option<[f64; NUM_FEATURES]> {
    let opts = LowerOptions {
        // Unrolled copies would make extraction as slow as the unrolling is
        // deep; unrolled loops stay loops here, counted by feature 12.
        max_unroll: 0,
        serialize_thread_bindings: !gpu,
        parallel_tasks: false,
        ..LowerOptions::default()
    };
    let lowered = lower_func("main", func, &opts).ok()?;
    let mut acc = Acc::default();
    let mut loops: Vec<(VarId, f64, bool)> = Vec::new();
    visit(&lowered.func.body, &mut loops, &mut acc);
    let f = [
        log2p(acc.stores),
        log2p(acc.ops),
        log2p(acc.loads),
        if acc.loads > 0.0 {
            acc.invariant_loads / acc.loads
        } else {
            0.0
        },
        if acc.stores > 0.0 {
            acc.lanes_weighted / acc.stores
        } else {
            1.0
        },
        log2p(acc.stmts),
        acc.depth as f64,
        log2p(if acc.stores > 0.0 {
            acc.innermost_weighted / acc.stores
        } else {
            0.0
        }),
        log2p(acc.alloc_bytes),
        log2p(acc.outer_parallel),
        log2p(acc.threads),
        acc.loops,
        log2p(if acc.stores > 0.0 {
            acc.unrolled_weighted / acc.stores
        } else {
            0.0
        }),
    ];
    f.iter().all(|x| x.is_finite()).then_some(f)
}

fn visit(s: &Stmt, loops: &mut Vec<(VarId, f64, bool)>, acc: &mut Acc) {
    acc.stmts += 1.0;
    match s.kind() {
        StmtKind::For(l) => {
            let ext = l.extent.as_int().unwrap_or(1).max(1) as f64;
            acc.loops += 1.0;
            let bound_to = l.thread_tag.as_deref().unwrap_or("");
            if bound_to.starts_with("threadIdx") {
                acc.threads = acc.threads.max(1.0) * ext;
            } else if (bound_to.starts_with("blockIdx") || l.kind == ForKind::Parallel)
                && acc.outer_parallel == 0.0
            {
                acc.outer_parallel = ext;
            }
            loops.push((l.loop_var.id(), ext, l.kind == ForKind::Unrolled));
            acc.depth = acc.depth.max(loops.len());
            visit(&l.body, loops, acc);
            loops.pop();
        }
        StmtKind::Store {
            buffer: _,
            value,
            indices,
        } => {
            let iters: f64 = loops.iter().map(|(_, e, _)| e).product();
            let unrolled: f64 = loops.iter().filter(|l| l.2).map(|(_, e, _)| e).product();
            acc.unrolled_weighted += iters * unrolled;
            let lanes = f64::from(value.dtype().lanes.max(1));
            acc.stores += iters;
            acc.lanes_weighted += iters * lanes;
            acc.innermost_weighted += iters * loops.last().map_or(1.0, |(_, e, _)| *e);
            let innermost = loops.last().map(|(v, _, _)| *v);
            let mut count = |e: &Expr| {
                e.walk(&mut |x| match x.kind() {
                    ExprKind::Binary(..) => acc.ops += iters * lanes,
                    ExprKind::Load { indices, .. } => {
                        acc.loads += iters;
                        let uses =
                            innermost.is_some_and(|v| indices.iter().any(|i| uses_var_id(i, v)));
                        if !uses {
                            acc.invariant_loads += iters;
                        }
                    }
                    _ => {}
                })
            };
            count(value);
            for i in indices {
                count(i);
            }
        }
        StmtKind::Allocate { buffer, body } => {
            let n: i64 = buffer
                .shape
                .iter()
                .map(|d| d.as_int().unwrap_or(1))
                .product();
            acc.alloc_bytes += (n as f64) * buffer.dtype.bytes() as f64;
            visit(body, loops, acc);
        }
        _ => s.for_each_child(|c| visit(c, loops, acc)),
    }
}

fn uses_var_id(e: &Expr, v: VarId) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if let ExprKind::Var(var) = x.kind() {
            found |= var.id() == v;
        }
    });
    found
}

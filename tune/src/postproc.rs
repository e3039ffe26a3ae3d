//! Postprocessors: run on every candidate after its trace is replayed,
//! before it is measured (TVM's `postproc`s). They rewrite what rules left
//! as annotations into the program and reject what the target cannot run;
//! a candidate that fails one is counted against it and never measured.
//! - [`Postproc::RewriteCooperativeFetch`] (GPU): a shared-memory cache block
//!   marked by tiling is copied by all threads of the block: its loops fused,
//!   split by the `threadIdx.x` extent and bound, with an inner vectorized
//!   loop of the sampled width when the tile divides evenly.
//! - [`Postproc::RewriteReductionBlock`]: reduction blocks get their init
//!   split off (`decompose_reduction` at the outermost reduction loop),
//!   except cross-thread reductions (a reduction loop bound to a thread).
//! - [`Postproc::RewriteParallelVectorizeUnroll`]: the root block's
//!   annotations become loop kinds: outer spatial loops fused and
//!   `parallel` up to the job limit, the innermost spatial loops fused while
//!   their extents multiply to at most the limit and `vectorize`d when the
//!   primitive accepts it (its legality check), and the innermost loops `unroll`ed while their
//!   iterations multiply to at most the sampled depth (Tessel's lowering has
//!   no `pragma_auto_unroll_max_step`; explicit unrolling is its equivalent).
//! - [`Postproc::VerifyGpuCode`] (GPU): the program lowered into kernels
//!   (buffers compacted), each within the target's limits on threads per
//!   workgroup, shared memory per workgroup and local memory per thread.

use std::collections::HashMap;

use compiler_core::arith::Analyzer;
use compiler_core::ir::mutate::substitute_expr;
use compiler_core::ir::{AttrValue, BinOp, BlockRealize, Expr, StmtKind, Var, VarId};
use compiler_core::schedule::{BlockRV, Factor, LoopRV, Schedule};

use crate::rules::{
    block_names, classify_loops, current_func, find_block, LoopUse, ANN_COOPERATIVE_FETCH,
    ANN_PARALLEL, ANN_UNROLL, ANN_VECTORIZE,
};
use crate::target::TuneTarget;

/// One postprocessor (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Postproc {
    RewriteCooperativeFetch,
    RewriteReductionBlock,
    RewriteParallelVectorizeUnroll,
    VerifyGpuCode,
}

/// TVM's default postprocessors for the target, in order.
pub fn default_postprocs(target: &TuneTarget) -> Vec<Postproc> {
    if target.is_gpu() {
        vec![
            Postproc::RewriteCooperativeFetch,
            Postproc::RewriteParallelVectorizeUnroll,
            Postproc::RewriteReductionBlock,
            Postproc::VerifyGpuCode,
        ]
    } else {
        // Loop kinds first: Tessel vectorizes a reduction block's spatial
        // loop only before its init is split off (TVM's order too).
        vec![
            Postproc::RewriteParallelVectorizeUnroll,
            Postproc::RewriteReductionBlock,
        ]
    }
}

type Fallible = Result<(), String>;

fn msg(e: compiler_core::schedule::ScheduleError) -> String {
    e.to_string()
}

impl Postproc {
    /// TVM's class name.
    pub fn name(self) -> &'static str {
        match self {
            Postproc::RewriteCooperativeFetch => "RewriteCooperativeFetch",
            Postproc::RewriteReductionBlock => "RewriteReductionBlock",
            Postproc::RewriteParallelVectorizeUnroll => "RewriteParallelVectorizeUnroll",
            Postproc::VerifyGpuCode => "VerifyGPUCode",
        }
    }

    /// Rewrites `sch` in place; `Err` rejects the candidate.
    pub fn apply(self, sch: &mut Schedule, target: &TuneTarget) -> Fallible {
        match self {
            Postproc::RewriteCooperativeFetch => cooperative_fetch(sch),
            Postproc::RewriteReductionBlock => decompose_reductions(sch),
            Postproc::RewriteParallelVectorizeUnroll => parallel_vectorize_unroll(sch),
            Postproc::VerifyGpuCode => verify_gpu(sch, target),
        }
    }
}

/// The root block's annotation `key`, as an integer.
fn root_annotation(sch: &Schedule, key: &str) -> Option<i64> {
    let func = current_func(sch)?;
    let root = find_block(&func.body, "root")?;
    match root.block.annotations.get(key)? {
        AttrValue::Int(v) => Some(*v),
        _ => None,
    }
}

fn cooperative_fetch(sch: &mut Schedule) -> Fallible {
    let Some(func) = current_func(sch) else {
        return Ok(());
    };
    let mut threads = None;
    func.body.walk(&mut |s| {
        if let StmtKind::For(l) = s.kind() {
            if l.thread_tag.as_deref() == Some("threadIdx.x") {
                threads = l.extent.as_int();
            }
        }
    });
    for name in block_names(&func) {
        let Some(br) = find_block(&func.body, &name) else {
            continue;
        };
        // The annotation's value is the vector width of each thread's loads
        // (sampled by the tiling rule; 1: scalar loads).
        let lanes = match br.block.annotations.get(ANN_COOPERATIVE_FETCH) {
            None => continue,
            Some(AttrValue::Int(v)) => (*v).max(1),
            Some(_) => 1,
        };
        let b = sch.get_block(&name, None).map_err(msg)?;
        sch.unannotate(b.into(), ANN_COOPERATIVE_FETCH)
            .map_err(msg)?;
        let Some(threads) = threads else { continue };
        let own = own_loops(sch, b)?;
        let fused = match own.as_slice() {
            [] => continue,
            [one] => *one,
            many => sch.fuse(many, true).map_err(msg)?,
        };
        // Vector loads only where every thread's vector lies whole in the
        // tile (the fused extent a multiple of threads × lanes); otherwise
        // scalar loads.
        let extent = sch
            .resolve_loop("get_loops", fused)
            .ok()
            .and_then(|(_, f)| f.extent.as_int());
        let vectorized = lanes > 1 && extent.is_some_and(|e| e % (threads * lanes) == 0);
        if vectorized {
            let parts = sch
                .split(
                    fused,
                    &[Factor::Infer, Factor::Const(threads), Factor::Const(lanes)],
                    true,
                )
                .map_err(msg)?;
            sch.bind(parts[1], "threadIdx.x").map_err(msg)?;
            sch.vectorize(parts[2]).map_err(msg)?;
        } else {
            let parts = sch
                .split(fused, &[Factor::Infer, Factor::Const(threads)], true)
                .map_err(msg)?;
            sch.bind(parts[1], "threadIdx.x").map_err(msg)?;
        }
    }
    Ok(())
}

/// The loops above `block` that hold no other block (the block's own nest
/// under its compute-at point).
fn own_loops(sch: &mut Schedule, block: BlockRV) -> Result<Vec<LoopRV>, String> {
    let mut own = Vec::new();
    for l in sch.get_loops(block).map_err(msg)? {
        let (_, f) = sch.resolve_loop("get_loops", l).map_err(msg)?;
        let mut blocks = 0;
        f.body.walk(&mut |s| {
            if matches!(s.kind(), StmtKind::BlockRealize(_)) {
                blocks += 1;
            }
        });
        if blocks == 1 {
            own.push(l);
        }
    }
    Ok(own)
}

fn decompose_reductions(sch: &mut Schedule) -> Fallible {
    let Some(func) = current_func(sch) else {
        return Ok(());
    };
    for name in block_names(&func) {
        let Some(br) = current_func(sch).and_then(|f| find_block(&f.body, &name)) else {
            continue;
        };
        if br.block.init.is_none() {
            continue;
        }
        let b = sch.get_block(&name, None).map_err(msg)?;
        let Some(loops) = classify_loops(sch, b) else {
            continue;
        };
        let Some((first_reduce, _)) = loops.iter().find(|(_, u)| *u == LoopUse::Reduce) else {
            continue;
        };
        // A cross-thread reduction keeps its init: the lowering combines
        // the threads' partial results into it (TVM's rule too).
        let thread_bound = |l: &LoopRV| {
            sch.resolve_loop("get_loops", *l)
                .is_ok_and(|(_, f)| f.thread_tag.is_some())
        };
        if loops
            .iter()
            .any(|(l, u)| *u == LoopUse::Reduce && thread_bound(l))
        {
            continue;
        }
        sch.decompose_reduction(b, *first_reduce).map_err(msg)?;
    }
    Ok(())
}

fn parallel_vectorize_unroll(sch: &mut Schedule) -> Fallible {
    let parallel = root_annotation(sch, ANN_PARALLEL);
    let vectorize = root_annotation(sch, ANN_VECTORIZE);
    let unroll = root_annotation(sch, ANN_UNROLL);
    if parallel.is_none() && vectorize.is_none() && unroll.is_none() {
        return Ok(());
    }
    let root = sch.get_block("root", None).map_err(msg)?;
    for (key, present) in [
        (ANN_PARALLEL, parallel),
        (ANN_VECTORIZE, vectorize),
        (ANN_UNROLL, unroll),
    ] {
        if present.is_some() {
            sch.unannotate(root.into(), key).map_err(msg)?;
        }
    }
    let Some(func) = current_func(sch) else {
        return Ok(());
    };
    let mut parallelized = false;
    for name in block_names(&func) {
        let Some(realize) = current_func(sch).and_then(|f| find_block(&f.body, &name)) else {
            continue;
        };
        let b = sch.get_block(&name, None).map_err(msg)?;
        let Some(loops) = classify_loops(sch, b) else {
            continue;
        };
        // Each loop's variable and extent, read before the parallel step
        // fuses the outer ones. A thread-bound loop counts as extent 0: it
        // is never parallelized, vectorized or unrolled (that would unbind
        // it).
        let loop_vars: Vec<Option<(Var, i64)>> = loops
            .iter()
            .map(|(l, _)| {
                let (_, f) = sch.resolve_loop("get_loops", *l).ok()?;
                let extent = match f.thread_tag {
                    None => f.extent.as_int().unwrap_or(0),
                    Some(_) => 0,
                };
                Some((f.loop_var.clone(), extent))
            })
            .collect();
        let extents: Vec<i64> = loop_vars
            .iter()
            .map(|v| v.as_ref().map_or(0, |(_, e)| *e))
            .collect();
        // Vectorize only loops whose fusion keeps every access contiguous
        // (a 4 × 16 register tile vectorizes its 16 columns, not all 64
        // elements).
        let max_fusible = contiguous_inner_loops(&realize, &loop_vars);
        // Parallel: the outermost spatial loops (once per function: the
        // first block's nest holds the shared outer loops).
        if let (Some(max_jobs), false) = (parallel, parallelized) {
            let mut prefix = Vec::new();
            let mut jobs = 1;
            for ((l, u), e) in loops.iter().zip(&extents) {
                if *u != LoopUse::Spatial || *e <= 0 || jobs * e > max_jobs.max(1) * 64 {
                    break;
                }
                prefix.push(*l);
                jobs *= e;
                if jobs >= max_jobs {
                    break;
                }
            }
            if !prefix.is_empty() {
                let l = if prefix.len() == 1 {
                    prefix[0]
                } else {
                    sch.fuse(&prefix, true).map_err(msg)?
                };
                // Refused (a loop shared with a reduction, say): stays serial.
                let _ = sch.parallel(l);
                parallelized = true;
            }
        }
        // Vectorize: the innermost spatial loops, fused while their
        // extents multiply to at most the limit (unit loops included, so a
        // tile whose innermost factor is 1 still vectorizes the one above).
        let mut vectorized = None;
        let mut fused_away = Vec::new();
        if let Some(max_len) = vectorize {
            let mut trailing = Vec::new();
            let mut lanes = 1;
            for ((l, u), e) in loops.iter().zip(&extents).rev() {
                if *u != LoopUse::Spatial
                    || *e <= 0
                    || lanes * e > max_len
                    || trailing.len() >= max_fusible
                {
                    break;
                }
                trailing.insert(0, *l);
                lanes *= e;
            }
            if lanes > 1 {
                // Loops that cannot be fused (a block between them, say):
                // the innermost alone.
                let inner = match trailing.as_slice() {
                    [l] => Some(*l),
                    many => sch.fuse(many, true).ok().or_else(|| {
                        let innermost = *many.last()?;
                        let extent = sch
                            .resolve_loop("get_loops", innermost)
                            .ok()?
                            .1
                            .extent
                            .as_int()?;
                        (extent > 1).then_some(innermost)
                    }),
                };
                if let Some(l) = inner {
                    fused_away = trailing;
                    if sch.vectorize(l).is_ok() {
                        vectorized = Some(l);
                    }
                }
            }
        }
        if let Some(max_steps) = unroll.filter(|s| *s > 0) {
            let mut steps = 1;
            for ((l, _), e) in loops.iter().zip(&extents).rev() {
                // A vectorized loop is one vector statement per iteration
                // of the loops around it: it does not count.
                if fused_away.contains(l) || Some(*l) == vectorized {
                    continue;
                }
                if *e <= 0 || steps * e > max_steps {
                    break;
                }
                steps *= e;
                if *e > 1 {
                    // Loops shared with an earlier block are unrolled already.
                    let _ = sch.unroll(*l);
                }
            }
        }
    }
    Ok(())
}

/// How many of the innermost loops of `realize` (its loops' variables and
/// extents, outermost first) can be fused into one vectorized loop with
/// every access of the block still contiguous (TVM's rule): counted from
/// the innermost loop, a loop an access does not use joins freely, the
/// first loop it uses must have stride 1 in it, and each further used loop
/// must step exactly over the loops inside it. The smallest count over the
/// block's reads and writes; 0 when a buffer's shape is symbolic. A loop an
/// index uses non-linearly (under `//` or `%`) has no constant stride: it
/// may be vectorized alone, as the innermost loop, and the lowering's own
/// checks decide.
fn contiguous_inner_loops(realize: &BlockRealize, loops: &[Option<(Var, i64)>]) -> usize {
    let bindings: HashMap<VarId, Expr> = realize
        .block
        .iter_vars
        .iter()
        .zip(&realize.iter_values)
        .map(|(iv, v)| (iv.var.id(), v.clone()))
        .collect();
    let analyzer = Analyzer::new();
    let mut max_fusible = usize::MAX;
    for access in realize.block.reads.iter().chain(&realize.block.writes) {
        let indices: Vec<Expr> = access
            .region
            .iter()
            .map(|r| substitute_expr(&r.min, &bindings))
            .collect();
        // The element stride of each loop in this access (0: not used;
        // `None`: used, stride not constant).
        let mut strides = Vec::with_capacity(loops.len());
        for lv in loops {
            let Some((var, _)) = lv else {
                strides.push(None);
                continue;
            };
            let mut stride = Some(0i64);
            let mut row = 1i64;
            for (d, idx) in indices.iter().enumerate().rev() {
                let step = index_step(&analyzer, idx, var);
                if step != Some(0) {
                    stride = step.map(|c| c.saturating_mul(row));
                    break;
                }
                let Some(extent) = access.buffer.shape[d].as_int() else {
                    return 0;
                };
                row = row.saturating_mul(extent);
            }
            strides.push(stride);
        }
        let mut fusible = 0;
        let mut inner_used: Option<usize> = None;
        for (i, stride) in strides.iter().enumerate().rev() {
            if *stride == Some(0) {
                fusible += 1;
                continue;
            }
            let contiguous = match (inner_used, stride) {
                (None, _) => *stride == Some(1) || fusible == 0,
                (Some(j), Some(stride)) => match (strides[j], &loops[j]) {
                    (Some(inner), Some((_, extent))) => *stride == inner.saturating_mul(*extent),
                    _ => false,
                },
                (Some(_), None) => false,
            };
            if !contiguous {
                break;
            }
            fusible += 1;
            inner_used = Some(i);
        }
        max_fusible = max_fusible.min(fusible);
    }
    max_fusible
}

/// How much `idx` changes when `var` grows by one, when that is a constant
/// (0 when `idx` does not use `var`): the difference, simplified, as the
/// lowering's vectorizer proves a unit stride.
fn index_step(analyzer: &Analyzer, idx: &Expr, var: &Var) -> Option<i64> {
    if !idx.uses_var(var) {
        return Some(0);
    }
    let one = Expr::int(1, var.dtype());
    let next = HashMap::from([(var.id(), Expr::binary(BinOp::Add, var.to_expr(), one))]);
    let difference = Expr::binary(BinOp::Sub, substitute_expr(idx, &next), idx.clone());
    analyzer.simplify(&difference).as_int()
}

/// Checks the program as the GPU code generator will see it: lowered into
/// kernels, with `shared` and `local` buffers compacted to the region each
/// workgroup or invocation uses (TVM verifies after the same lowering).
fn verify_gpu(sch: &Schedule, target: &TuneTarget) -> Fallible {
    use compiler_core::lower::gpu::lower_func_gpu;
    use compiler_core::lower::LowerOptions;
    let Some(func) = current_func(sch) else {
        return Ok(());
    };
    // The WGSL code generator's lowering, less the unrolling (it changes no
    // allocation and would only slow the check down).
    let options = LowerOptions {
        vector_bytes: 16,
        max_unroll: 0,
        auto_vectorize: false,
        unswitch: false,
        promote: false,
        hoist: false,
        parallel_tasks: false,
        serialize_thread_bindings: false,
    };
    let lowered = lower_func_gpu("main", &func, &options).map_err(|e| e.message)?;
    for kernel in &lowered.kernels {
        let threads: i64 = kernel
            .launch
            .iter()
            .filter(|a| !a.is_block())
            .map(|a| a.extent)
            .product();
        if threads > target.max_threads_per_block {
            return Err(format!(
                "{threads} threads per workgroup in {} (the limit is {})",
                kernel.name, target.max_threads_per_block
            ));
        }
        let (mut shared, mut local) = (0i64, 0i64);
        let mut failure = None;
        kernel.body.walk(&mut |s| {
            if let StmtKind::Allocate { buffer, .. } = s.kind() {
                let elements: Option<i64> = buffer.shape.iter().map(|d| d.as_int()).product();
                let Some(n) = elements else {
                    failure = Some(format!("buffer `{}` has a symbolic size", buffer.name));
                    return;
                };
                let bytes = n * buffer.dtype.bytes() as i64;
                if buffer.scope.starts_with("shared") {
                    shared += bytes;
                } else if buffer.scope.starts_with("local") {
                    local += bytes;
                }
            }
        });
        if let Some(f) = failure {
            return Err(f);
        }
        if shared > target.max_shared_memory_bytes {
            return Err(format!(
                "{shared} bytes of shared memory in {} (the limit is {})",
                kernel.name, target.max_shared_memory_bytes
            ));
        }
        if local > target.max_local_memory_bytes {
            return Err(format!(
                "{local} bytes of local memory per thread in {} (the limit is {})",
                kernel.name, target.max_local_memory_bytes
            ));
        }
    }
    Ok(())
}

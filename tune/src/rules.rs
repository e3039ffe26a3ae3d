//! Schedule rules: per block, the ways MetaSchedule's post-order-apply space
//! rewrites it, each leaving sampling instructions in the trace (TVM's
//! `schedule_rule`s, re-created):
//! - [`ScheduleRule::AutoInline`]: elementwise blocks that are not outputs
//!   are inlined into their consumers (`compute_inline`), on CPUs unless
//!   they compute `if_then_else` (padding) or `exp`; on GPUs, output
//!   blocks into their producers (`reverse_compute_inline`).
//! - [`ScheduleRule::MultiLevelTiling`]: reduction blocks whose inputs are
//!   reused across spatial iterations (some input is not indexed by some
//!   spatial iterator, as in a matmul; TVM's `NeedsMultiLevelTiling`) are
//!   tiled. CPU: TVM's "SSRSRS" (`sample_perfect_tile` per loop,
//!   innermost factor ≤ 64), without and with a global write cache placed
//!   at tile level 1 or 2 (three design spaces). GPU: "SSRRSRS" — TVM's
//!   "SSSRRSRS" less the `vthread` level (Tessel's GPU lowering has no
//!   virtual threads): the outer spatial tiles fused and bound to
//!   `blockIdx.x`, the next to `threadIdx.x`, the result in a local write
//!   cache; two spaces, reading global memory directly or every read cached
//!   in shared memory at the outer reduction tile (fetched cooperatively:
//!   see the postprocessors).
//! - [`ScheduleRule::ParallelVectorizeUnroll`]: annotates the root block with
//!   the parallel and vectorize limits and a sampled explicit-unroll depth;
//!   the postprocessors turn them into loop kinds.
//! - [`ScheduleRule::RandomComputeLocation`]: spatial blocks that are not
//!   outputs move to a sampled loop (`sample_compute_location` + `compute_at`).
//! - [`ScheduleRule::AddRFactor`] (CPU): a reduction with too little
//!   spatial work for the cores gets `rfactor`ed along a split of its
//!   reduction loops (two more spaces).
//! - [`ScheduleRule::CrossThreadReduction`] (GPU): a reduction with little
//!   spatial work against its reduction, or with no input reuse to tile for
//!   (a row sum, softmax's max and sum), also gets a space where its fused
//!   reduction loop is split by a sampled thread count and the inner part
//!   bound to `threadIdx.x`: the workgroup's threads reduce together.
//!   TVM's rule first tries to compute the reduction at its consumer's
//!   thread loop (one kernel for both); Tessel's leaves that out, so the
//!   reduction is a kernel of its own.
//! - [`ScheduleRule::AutoBind`] (GPU): a block no other rule bound to
//!   threads gets its spatial loops fused, split by a sampled thread count
//!   and bound; a block already bound to `threadIdx` (a cross-thread
//!   reduction) gets its outer spatial loops fused and bound to
//!   `blockIdx.x`.

use compiler_core::ir::{BlockRealize, ExprKind, Intrinsic, IterKind, PrimFunc, Stmt, StmtKind};
use compiler_core::schedule::replay::SchedValue;
use compiler_core::schedule::{BlockRV, Factor, LoopRV, Schedule};

use crate::target::TuneTarget;

/// Annotation keys on the root block, read by the postprocessors.
pub const ANN_PARALLEL: &str = "meta_schedule.parallel";
pub const ANN_VECTORIZE: &str = "meta_schedule.vectorize";
pub const ANN_UNROLL: &str = "meta_schedule.unroll_explicit";
/// On a shared-memory cache block: fetch it with the block's threads, in
/// vectors of the annotated width.
pub const ANN_COOPERATIVE_FETCH: &str = "meta_schedule.cooperative_fetch";

/// One schedule rule (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub enum ScheduleRule {
    AutoInline,
    MultiLevelTiling,
    ParallelVectorizeUnroll {
        /// Parallel jobs per core (TVM: 16).
        max_jobs_per_core: i64,
        /// Longest loop to vectorize (TVM: 64).
        max_vectorize_extent: i64,
        /// Explicit-unroll depths sampled uniformly (TVM: 0, 16, 64, 512).
        unroll_max_steps: Vec<i64>,
    },
    RandomComputeLocation,
    /// CPU: a reduction whose spatial loops are too short to keep the cores
    /// busy (and shorter than its reduction) is split along its fused
    /// reduction loop and `rfactor`ed, so the partial sums are spatial and
    /// can be parallelized and vectorized (TVM's `AddRFactor`). Two extra
    /// spaces: the outer or the inner part of the split becomes the factor
    /// axis; the original stays a space of its own.
    AddRFactor {
        /// Parallel jobs per core (TVM: 16).
        max_jobs_per_core: i64,
        /// Largest inner factor of the split (TVM: 64).
        max_innermost_factor: i64,
    },
    /// GPU: a reduction block that needs it (see the module docs) gets a
    /// second space with its reduction split across a workgroup's threads
    /// (TVM's `CrossThreadReduction`).
    CrossThreadReduction {
        /// Threads sampled uniformly (TVM: 4 … 512, within the target's
        /// limit).
        thread_extents: Vec<i64>,
    },
    /// GPU: a block left outside every thread binding (an elementwise block
    /// no rule tiled) has its outer spatial loops fused, split by a sampled
    /// thread count and bound to `blockIdx.x`/`threadIdx.x`.
    AutoBind {
        /// Threads per block sampled uniformly (TVM: 32 … 1024, within the
        /// target's limit).
        thread_extents: Vec<i64>,
    },
}

/// TVM's default rules for the target, in the order they apply.
pub fn default_rules(target: &TuneTarget) -> Vec<ScheduleRule> {
    let mut rules = vec![ScheduleRule::AutoInline, ScheduleRule::MultiLevelTiling];
    if target.is_gpu() {
        rules.push(ScheduleRule::CrossThreadReduction {
            thread_extents: [4, 8, 16, 32, 64, 128, 256, 512]
                .into_iter()
                .filter(|t| *t <= target.max_threads_per_block)
                .collect(),
        });
        rules.push(ScheduleRule::ParallelVectorizeUnroll {
            max_jobs_per_core: -1,
            max_vectorize_extent: -1,
            unroll_max_steps: vec![0, 16, 64, 512, 1024],
        });
        rules.push(ScheduleRule::AutoBind {
            thread_extents: [32, 64, 128, 256, 512, 1024]
                .into_iter()
                .filter(|t| *t <= target.max_threads_per_block)
                .collect(),
        });
    } else {
        rules.insert(
            1,
            ScheduleRule::AddRFactor {
                max_jobs_per_core: 16,
                max_innermost_factor: 64,
            },
        );
        rules.push(ScheduleRule::ParallelVectorizeUnroll {
            max_jobs_per_core: 16,
            max_vectorize_extent: 64,
            unroll_max_steps: vec![0, 16, 64, 512],
        });
        rules.push(ScheduleRule::RandomComputeLocation);
    }
    rules
}

/// The current function of a schedule.
pub(crate) fn current_func(sch: &Schedule) -> Option<PrimFunc> {
    sch.module()
        .get_prim(sch.func_name())
        .map(|f| (**f).clone())
}

/// The block named `name` in `body`.
pub(crate) fn find_block(body: &Stmt, name: &str) -> Option<BlockRealize> {
    let mut found = None;
    body.walk(&mut |s| {
        if let StmtKind::BlockRealize(br) = s.kind() {
            if found.is_none() && br.block.name == name {
                found = Some(br.clone());
            }
        }
    });
    found
}

/// Every block's name in program order (the root block excluded).
pub(crate) fn block_names(func: &PrimFunc) -> Vec<String> {
    let mut names = Vec::new();
    func.body.walk(&mut |s| {
        if let StmtKind::BlockRealize(br) = s.kind() {
            if br.block.name != "root" {
                names.push(br.block.name.clone());
            }
        }
    });
    names
}

/// Whether the block writes one of the function's parameters.
pub(crate) fn is_output(func: &PrimFunc, br: &BlockRealize) -> bool {
    br.block
        .writes
        .iter()
        .any(|w| func.buffer_map.iter().any(|(_, b)| b.id() == w.buffer.id()))
}

/// Whether the block's body calls one of `ops`.
fn calls_any(br: &BlockRealize, ops: &[Intrinsic]) -> bool {
    let mut found = false;
    br.block.body.walk(&mut |stmt| {
        stmt.for_each_expr(|e| {
            e.walk(&mut |x| {
                if let ExprKind::Call { op, .. } = x.kind() {
                    found |= ops.contains(op);
                }
            })
        })
    });
    found
}

/// What a CPU never inlines into its consumers (TVM's CPU AutoInline:
/// `disallow_if_then_else`, `disallow_op=["tir.exp"]`): a padding block's
/// condition would be evaluated in the consumer's innermost loop, and an
/// `exp` once per consumer.
const CPU_NO_INLINE: [Intrinsic; 2] = [Intrinsic::IfThenElse, Intrinsic::Exp];

fn is_spatial(br: &BlockRealize) -> bool {
    br.block
        .iter_vars
        .iter()
        .all(|iv| iv.kind == IterKind::Spatial)
}

/// How one loop above a block is used by the block's iterators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LoopUse {
    Spatial,
    Reduce,
    /// Bound to no iterator (a unit loop).
    Unused,
}

/// The loops above `block` with their use, or `None` when some loop feeds
/// both a spatial and a reduction iterator or an iterator is not simple.
pub(crate) fn classify_loops(sch: &mut Schedule, block: BlockRV) -> Option<Vec<(LoopRV, LoopUse)>> {
    let name = sch.block_name(block).ok()?;
    let func = current_func(sch)?;
    let br = find_block(&func.body, &name)?;
    let loops = sch.get_loops(block).ok()?;
    let mut out = Vec::new();
    for l in loops {
        let (_, f) = sch.resolve_loop("get_loops", l).ok()?;
        let mut spatial = false;
        let mut reduce = false;
        for (iv, value) in br.block.iter_vars.iter().zip(&br.iter_values) {
            if value.uses_var(&f.loop_var) {
                match iv.kind {
                    IterKind::Spatial => spatial = true,
                    IterKind::Reduce => reduce = true,
                    _ => return None,
                }
            }
        }
        out.push((
            l,
            match (spatial, reduce) {
                (true, false) => LoopUse::Spatial,
                (false, true) => LoopUse::Reduce,
                (false, false) => LoopUse::Unused,
                (true, true) => return None,
            },
        ));
    }
    Some(out)
}

impl ScheduleRule {
    /// TVM's class name of the rule.
    pub fn name(&self) -> &'static str {
        match self {
            ScheduleRule::AutoInline => "AutoInline",
            ScheduleRule::MultiLevelTiling => "MultiLevelTiling",
            ScheduleRule::ParallelVectorizeUnroll { .. } => "ParallelizeVectorizeUnroll",
            ScheduleRule::RandomComputeLocation => "RandomComputeLocation",
            ScheduleRule::AutoBind { .. } => "AutoBind",
            ScheduleRule::AddRFactor { .. } => "AddRFactor",
            ScheduleRule::CrossThreadReduction { .. } => "CrossThreadReduction",
        }
    }

    /// Whether the rule applies once to the root block rather than per block.
    pub fn is_root_rule(&self) -> bool {
        matches!(self, ScheduleRule::ParallelVectorizeUnroll { .. })
    }

    /// Applies the rule to block `block` of `sch`: the resulting schedules
    /// (`sch` itself, unchanged, when the rule does not apply). `Err` names
    /// a primitive that refused where the rule expected it to work.
    pub fn apply(
        &self,
        sch: &Schedule,
        block: &str,
        target: &TuneTarget,
    ) -> Result<Vec<Schedule>, String> {
        if let ScheduleRule::ParallelVectorizeUnroll {
            max_jobs_per_core,
            max_vectorize_extent,
            unroll_max_steps,
        } = self
        {
            let mut out = sch.clone();
            annotate_root(
                &mut out,
                target,
                *max_jobs_per_core,
                *max_vectorize_extent,
                unroll_max_steps,
            )?;
            return Ok(vec![out]);
        }
        let Some(func) = current_func(sch) else {
            return Ok(vec![sch.clone()]);
        };
        let Some(br) = find_block(&func.body, block) else {
            // Removed by an earlier rule (inlined).
            return Ok(vec![sch.clone()]);
        };
        let mut out = sch.clone();
        match self {
            ScheduleRule::AutoInline => {
                if !is_spatial(&br)
                    || br.block.init.is_some()
                    || br.block.writes.len() != 1
                    || (!target.is_gpu() && calls_any(&br, &CPU_NO_INLINE))
                {
                    return Ok(vec![sch.clone()]);
                }
                let output = is_output(&func, &br);
                let b = out.get_block(block, None).map_err(|e| e.to_string())?;
                let done = if !output {
                    out.compute_inline(b).is_ok()
                } else if target.is_gpu() {
                    out.reverse_compute_inline(b).is_ok()
                } else {
                    false
                };
                Ok(vec![if done { out } else { sch.clone() }])
            }
            ScheduleRule::MultiLevelTiling => {
                if !needs_multi_level_tiling(&br) {
                    return Ok(vec![sch.clone()]);
                }
                let b = out.get_block(block, None).map_err(|e| e.to_string())?;
                let Some(loops) = classify_loops(&mut out, b) else {
                    return Ok(vec![sch.clone()]);
                };
                if target.is_gpu() {
                    tile_gpu(out, b, &loops, block)
                } else {
                    tile_cpu(out, b, &loops)
                }
            }
            ScheduleRule::ParallelVectorizeUnroll { .. } => Ok(vec![sch.clone()]),
            ScheduleRule::RandomComputeLocation => {
                if !is_spatial(&br) || is_output(&func, &br) || br.block.init.is_some() {
                    return Ok(vec![sch.clone()]);
                }
                let b = out.get_block(block, None).map_err(|e| e.to_string())?;
                // A block already under loops of another block stays put.
                let loc = match out.sample_compute_location(b, None) {
                    Ok(l) => l,
                    Err(_) => return Ok(vec![sch.clone()]),
                };
                match out.compute_at(b, loc, true, -1) {
                    Ok(()) => Ok(vec![out]),
                    Err(_) => Ok(vec![sch.clone()]),
                }
            }
            ScheduleRule::AddRFactor {
                max_jobs_per_core,
                max_innermost_factor,
            } => {
                let b = out.get_block(block, None).map_err(|e| e.to_string())?;
                let Some(loops) = classify_loops(&mut out, b) else {
                    return Ok(vec![sch.clone()]);
                };
                let extent = |out: &Schedule, l: LoopRV| {
                    out.resolve_loop("get_loops", l)
                        .ok()
                        .and_then(|(_, f)| f.extent.as_int())
                };
                let (mut spatial, mut reduce) = (1i64, 1i64);
                for (l, u) in &loops {
                    let Some(e) = extent(&out, *l) else {
                        return Ok(vec![sch.clone()]);
                    };
                    match u {
                        LoopUse::Spatial => spatial *= e,
                        LoopUse::Reduce => reduce *= e,
                        LoopUse::Unused => {}
                    }
                }
                let max_parallel = max_jobs_per_core * target.num_cores;
                if reduce <= 1 || spatial >= max_parallel || spatial >= reduce {
                    return Ok(vec![sch.clone()]);
                }
                match add_rfactor(out, &loops, *max_innermost_factor) {
                    Ok(mut spaces) => {
                        spaces.insert(0, sch.clone());
                        Ok(spaces)
                    }
                    Err(_) => Ok(vec![sch.clone()]),
                }
            }
            ScheduleRule::CrossThreadReduction { thread_extents } => {
                if thread_extents.is_empty()
                    || is_thread_bound(&func, block)
                    || !needs_cross_thread_reduction(&mut out, block, &br, target)
                {
                    return Ok(vec![sch.clone()]);
                }
                match cross_thread_reduction(&mut out, block, thread_extents) {
                    Ok(()) => Ok(vec![out, sch.clone()]),
                    Err(_) => Ok(vec![sch.clone()]),
                }
            }
            ScheduleRule::AutoBind { thread_extents } => {
                if thread_extents.is_empty() {
                    return Ok(vec![sch.clone()]);
                }
                if is_thread_bound(&func, block) {
                    // A cross-thread reduction: its spatial loops outside
                    // the thread loop become the workgroups.
                    return match bind_outer_to_workgroups(&mut out, block) {
                        Ok(true) => Ok(vec![out]),
                        _ => Ok(vec![sch.clone()]),
                    };
                }
                let b = out.get_block(block, None).map_err(|e| e.to_string())?;
                let probs = vec![1.0 / thread_extents.len() as f64; thread_extents.len()];
                let threads = out
                    .sample_categorical(thread_extents, &probs, None)
                    .map_err(|e| e.to_string())?;
                match bind_spatial(&mut out, b, Factor::Sampled(threads)) {
                    Ok(true) => Ok(vec![out]),
                    _ => Ok(vec![sch.clone()]),
                }
            }
        }
    }
}

/// The block's reduction loops (of `loops`, its loops with their use)
/// moved innermost and fused into one, the first step of both
/// [`ScheduleRule::AddRFactor`] and [`ScheduleRule::CrossThreadReduction`].
fn fuse_reduction_loops_innermost(
    sch: &mut Schedule,
    loops: &[(LoopRV, LoopUse)],
) -> Result<LoopRV, compiler_core::schedule::ScheduleError> {
    let (reduce, spatial): (Vec<_>, Vec<_>) =
        loops.iter().partition(|(_, u)| *u == LoopUse::Reduce);
    let order: Vec<LoopRV> = spatial.iter().chain(&reduce).map(|(l, _)| *l).collect();
    if order.iter().zip(loops).any(|(a, (b, _))| a != b) {
        sch.reorder(&order)?;
    }
    let reduce: Vec<LoopRV> = reduce.iter().map(|(l, _)| *l).collect();
    match reduce.as_slice() {
        [one] => Ok(*one),
        many => sch.fuse(many, true),
    }
}

/// [`ScheduleRule::AddRFactor`]'s rewrite: the reduction loops moved
/// innermost and fused, split in two by a sampled tile, and each part in
/// turn made the factor axis of an `rfactor` (two schedules).
fn add_rfactor(
    mut sch: Schedule,
    loops: &[(LoopRV, LoopUse)],
    max_innermost_factor: i64,
) -> Result<Vec<Schedule>, compiler_core::schedule::ScheduleError> {
    let fused = fuse_reduction_loops_innermost(&mut sch, loops)?;
    let factors = sch.sample_perfect_tile(fused, 2, max_innermost_factor, None)?;
    let factors: Vec<Factor> = factors.into_iter().map(Factor::Sampled).collect();
    let parts = sch.split(fused, &factors, true)?;
    let mut out = Vec::new();
    for part in parts {
        let mut with = sch.clone();
        if with.rfactor(part, 0).is_ok() {
            out.push(with);
        }
    }
    Ok(out)
}

/// TVM's `NeedsMultiLevelTiling`: a reduction block (spatial and reduction
/// iterators only) writing one buffer, with some spatial iterator (of more
/// than one value) that indexes none of some input's region: that input is
/// reused across the iterator, so tiling keeps it close.
fn needs_multi_level_tiling(br: &BlockRealize) -> bool {
    let block = &br.block;
    if block.writes.len() != 1
        || block.reads.is_empty()
        || !block.iter_vars.iter().any(|iv| iv.kind == IterKind::Reduce)
        || block
            .iter_vars
            .iter()
            .any(|iv| !matches!(iv.kind, IterKind::Spatial | IterKind::Reduce))
    {
        return false;
    }
    let spatial: Vec<_> = block
        .iter_vars
        .iter()
        .filter(|iv| iv.kind == IterKind::Spatial && iv.dom.extent.as_int() != Some(1))
        .map(|iv| &iv.var)
        .collect();
    let written = block.writes[0].buffer.id();
    let mut unused = 0;
    for (i, read) in block.reads.iter().enumerate() {
        // The same input read twice: TVM does not tile it.
        if block.reads[..i]
            .iter()
            .any(|r| r.buffer.id() == read.buffer.id())
        {
            return false;
        }
        if read.buffer.id() == written {
            continue;
        }
        unused += spatial
            .iter()
            .filter(|v| !read.region.iter().any(|r| r.min.uses_var(v)))
            .count();
    }
    unused >= 1
}

/// TVM's `NeedsRFactorOrCrossThreadReduction` on a GPU: a reduction block
/// directly under a perfect nest of spatial and reduction loops of
/// constant extent, with trivial bindings, where either tiling does not
/// apply (then any reduction of more than one step), or the spatial work is
/// less than the reduction and fits one workgroup.
fn needs_cross_thread_reduction(
    sch: &mut Schedule,
    block: &str,
    br: &BlockRealize,
    target: &TuneTarget,
) -> bool {
    if br.block.writes.is_empty()
        || br.block.init.is_none()
        || br
            .iter_values
            .iter()
            .any(|v| !matches!(v.kind(), ExprKind::Var(_)))
    {
        return false;
    }
    let Ok(b) = sch.get_block(block, None) else {
        return false;
    };
    let Some(loops) = classify_loops(sch, b) else {
        return false;
    };
    let (mut spatial, mut reduce) = (1i64, 1i64);
    let mut has_reduce = false;
    for (i, (l, u)) in loops.iter().enumerate() {
        let Ok((_, f)) = sch.resolve_loop("get_loops", *l) else {
            return false;
        };
        let Some(extent) = f.extent.as_int() else {
            return false;
        };
        // A perfect nest: each loop's body is the next loop, the last one's
        // the block.
        let perfect = match f.body.kind() {
            StmtKind::For(_) => i + 1 < loops.len(),
            StmtKind::BlockRealize(inner) => {
                i + 1 == loops.len() && inner.block.name == br.block.name
            }
            _ => false,
        };
        if !perfect {
            return false;
        }
        if *u == LoopUse::Reduce {
            has_reduce = true;
            reduce *= extent;
        } else {
            spatial *= extent;
        }
    }
    if !has_reduce {
        return false;
    }
    if needs_multi_level_tiling(br) {
        spatial < reduce && spatial <= target.max_threads_per_block
    } else {
        reduce > 1
    }
}

/// [`ScheduleRule::CrossThreadReduction`]'s rewrite: the reduction loops
/// moved innermost and fused, split by a sampled thread count, and the
/// inner part bound to `threadIdx.x`.
fn cross_thread_reduction(
    sch: &mut Schedule,
    block: &str,
    thread_extents: &[i64],
) -> Result<(), String> {
    let err = |e: compiler_core::schedule::ScheduleError| e.to_string();
    let b = sch.get_block(block, None).map_err(err)?;
    let loops = classify_loops(sch, b).ok_or("the block's loops are not simple")?;
    let probs = vec![1.0 / thread_extents.len() as f64; thread_extents.len()];
    let threads = sch
        .sample_categorical(thread_extents, &probs, None)
        .map_err(err)?;
    let fused = fuse_reduction_loops_innermost(sch, &loops).map_err(err)?;
    let parts = sch
        .split(fused, &[Factor::Infer, Factor::Sampled(threads)], true)
        .map_err(err)?;
    sch.bind(parts[1], "threadIdx.x").map_err(err)?;
    Ok(())
}

/// AutoBind for a block already bound to `threadIdx`: the spatial loops
/// above the first thread-bound loop (a unit loop when there are none)
/// fused and bound to `blockIdx.x`. `Ok(false)` when a `blockIdx` is
/// already bound.
fn bind_outer_to_workgroups(
    sch: &mut Schedule,
    block: &str,
) -> Result<bool, compiler_core::schedule::ScheduleError> {
    let b = sch.get_block(block, None)?;
    let Some(loops) = classify_loops(sch, b) else {
        return Ok(false);
    };
    let mut outer = Vec::new();
    for (l, u) in &loops {
        let (_, f) = sch.resolve_loop("get_loops", *l)?;
        match f.thread_tag.as_deref() {
            Some(t) if t.starts_with("blockIdx") => return Ok(false),
            Some(_) => break,
            None if *u != LoopUse::Reduce && matches!(f.body.kind(), StmtKind::For(_)) => {
                outer.push(*l)
            }
            None => break,
        }
    }
    let fused = match outer.as_slice() {
        [] => match loops.first() {
            Some((first, _)) => sch.add_unit_loop((*first).into())?,
            None => return Ok(false),
        },
        [one] => *one,
        many => sch.fuse(many, true)?,
    };
    sch.bind(fused, "blockIdx.x")?;
    Ok(true)
}

/// Whether block `name` sits under a thread-bound loop.
fn is_thread_bound(func: &PrimFunc, name: &str) -> bool {
    fn walk(s: &Stmt, name: &str, bound: bool) -> Option<bool> {
        match s.kind() {
            StmtKind::For(l) => walk(&l.body, name, bound || l.thread_tag.is_some()),
            StmtKind::BlockRealize(br) if br.block.name == name => Some(bound),
            _ => {
                let mut found = None;
                s.for_each_child(|c| {
                    if found.is_none() {
                        found = walk(c, name, bound);
                    }
                });
                found
            }
        }
    }
    walk(&func.body, name, false).unwrap_or(false)
}

/// Binds `block` to GPU threads (TVM's AutoBind): its leading spatial loops
/// fused, split by `threads` and bound to `blockIdx.x` and `threadIdx.x`.
/// `Ok(false)` when the block has no leading spatial loop.
pub fn bind_spatial(
    sch: &mut Schedule,
    block: BlockRV,
    threads: Factor,
) -> Result<bool, compiler_core::schedule::ScheduleError> {
    let Some(loops) = classify_loops(sch, block) else {
        return Ok(false);
    };
    let spatial: Vec<LoopRV> = loops
        .iter()
        .take_while(|(_, u)| *u == LoopUse::Spatial)
        .map(|(l, _)| *l)
        .collect();
    if spatial.is_empty() {
        return Ok(false);
    }
    let fused = if spatial.len() == 1 {
        spatial[0]
    } else {
        sch.fuse(&spatial, true)?
    };
    let parts = sch.split(fused, &[Factor::Infer, threads], true)?;
    sch.bind(parts[0], "blockIdx.x")?;
    sch.bind(parts[1], "threadIdx.x")?;
    Ok(true)
}

/// `module` with every block outside a thread binding bound by
/// [`bind_spatial`] to `threads` threads: the unscheduled program in a form
/// the GPU backend builds (the runner's reference for large workloads).
pub fn bind_for_gpu(
    module: &compiler_core::ir::IRModule,
    threads: i64,
) -> Result<compiler_core::ir::IRModule, String> {
    let mut sch = Schedule::new(module.clone()).map_err(|e| e.to_string())?;
    let func = current_func(&sch).ok_or("the module has no function")?;
    for name in block_names(&func) {
        // Binding one block can bind another nested in it.
        let bound = current_func(&sch).is_some_and(|f| is_thread_bound(&f, &name));
        if name == "root" || bound {
            continue;
        }
        let b = sch.get_block(&name, None).map_err(|e| e.to_string())?;
        bind_spatial(&mut sch, b, Factor::Const(threads)).map_err(|e| e.to_string())?;
    }
    Ok(sch.module().clone())
}

/// Splits every loop of `loops` into `levels` tiles (sampled) and returns the
/// tiles grouped by level: `tiles[level]` lists that level's loops.
fn split_all(
    sch: &mut Schedule,
    loops: &[(LoopRV, LoopUse)],
    use_: LoopUse,
    levels: usize,
    max_innermost: i64,
) -> Result<Vec<Vec<LoopRV>>, String> {
    let mut tiles: Vec<Vec<LoopRV>> = vec![Vec::new(); levels];
    for (l, u) in loops {
        if *u != use_ {
            continue;
        }
        let factors = sch
            .sample_perfect_tile(*l, levels, max_innermost, None)
            .map_err(|e| e.to_string())?;
        let factors: Vec<Factor> = factors.into_iter().map(Factor::Sampled).collect();
        let parts = sch.split(*l, &factors, true).map_err(|e| e.to_string())?;
        for (level, p) in parts.into_iter().enumerate() {
            tiles[level].push(p);
        }
    }
    Ok(tiles)
}

/// CPU "SSRSRS": spatial loops in 4 tiles, reduction loops in 2, ordered
/// S0 S1 R0 S2 R1 S3; then the three write-cache variants.
fn tile_cpu(
    mut sch: Schedule,
    block: BlockRV,
    loops: &[(LoopRV, LoopUse)],
) -> Result<Vec<Schedule>, String> {
    let s = split_all(&mut sch, loops, LoopUse::Spatial, 4, 64)?;
    let r = split_all(&mut sch, loops, LoopUse::Reduce, 2, 64)?;
    let order: Vec<LoopRV> = [&s[0], &s[1], &r[0], &s[2], &r[1], &s[3]]
        .into_iter()
        .flatten()
        .copied()
        .collect();
    sch.reorder(&order).map_err(|e| e.to_string())?;
    let mut out = vec![sch.clone()];
    // The write cache at tile level 1 (after S0) and level 2 (after S1). A
    // single elementwise consumer (a ReLU after the matmul) serves as the
    // cache: it moves under the tiles instead (TVM's consumer fusion).
    let consumer = elementwise_consumer(&mut sch.clone(), block);
    for level in [&s[0], &s[1]] {
        let Some(at) = level.last() else { continue };
        let mut with_cache = sch.clone();
        let ok = match &consumer {
            Some(name) => with_cache
                .get_block(name, None)
                .and_then(|c| with_cache.reverse_compute_at(c, *at, true, -1)),
            None => with_cache
                .cache_write(block, 0, "global", &[])
                .and_then(|cw| with_cache.reverse_compute_at(cw, *at, true, -1)),
        };
        if ok.is_ok() {
            out.push(with_cache);
        }
    }
    Ok(out)
}

/// The name of the block's only consumer when that consumer is elementwise
/// (spatial iterators only, no init).
fn elementwise_consumer(sch: &mut Schedule, block: BlockRV) -> Option<String> {
    let consumers = sch.get_consumers(block).ok()?;
    let [only] = consumers[..] else { return None };
    let name = sch.block_name(only).ok()?;
    let func = current_func(sch)?;
    let br = find_block(&func.body, &name)?;
    (is_spatial(&br) && br.block.init.is_none()).then_some(name)
}

/// GPU "SSRRSRS" (see the module docs).
fn tile_gpu(
    mut sch: Schedule,
    block: BlockRV,
    loops: &[(LoopRV, LoopUse)],
    _name: &str,
) -> Result<Vec<Schedule>, String> {
    let err = |e: compiler_core::schedule::ScheduleError| e.to_string();
    let s = split_all(&mut sch, loops, LoopUse::Spatial, 4, 64)?;
    let r = split_all(&mut sch, loops, LoopUse::Reduce, 3, 64)?;
    let order: Vec<LoopRV> = [&s[0], &s[1], &r[0], &r[1], &s[2], &r[2], &s[3]]
        .into_iter()
        .flatten()
        .copied()
        .collect();
    sch.reorder(&order).map_err(err)?;
    let bx = sch.fuse(&s[0], true).map_err(err)?;
    sch.bind(bx, "blockIdx.x").map_err(err)?;
    let tx = sch.fuse(&s[1], true).map_err(err)?;
    sch.bind(tx, "threadIdx.x").map_err(err)?;
    // The result accumulates in registers, written back under the thread loop.
    let cw = sch.cache_write(block, 0, "local", &[]).map_err(err)?;
    sch.reverse_compute_at(cw, tx, true, -1).map_err(err)?;
    // Two spaces: inputs read from global memory, and every input staged
    // in shared memory at the outer reduction tile (the cache is allocated
    // whole; lowering compacts it to one workgroup's tile, and
    // VerifyGPUCode checks that tile against the shared-memory limit).
    let without_shared = sch.clone();
    let Some(r0) = r[0].last().copied() else {
        return Ok(vec![sch]);
    };
    let name = sch.block_name(block).map_err(err)?;
    let func = current_func(&sch).ok_or("the function is gone")?;
    let reads = find_block(&func.body, &name)
        .map(|b| b.block.reads.len())
        .unwrap_or(0);
    for i in 0..reads {
        let cr = sch
            .cache_read(block, i as i64, "shared", &[])
            .map_err(err)?;
        sch.compute_at(cr, r0, true, -1).map_err(err)?;
        // Each thread's loads are vectors of a sampled width (TVM samples
        // 1–4; WGSL has vec2 and vec4 loads, so 1, 2 or 4).
        let lanes = sch
            .sample_categorical(&[1, 2, 4], &[1.0 / 3.0; 3], None)
            .map_err(err)?;
        sch.call(
            "annotate",
            vec![
                SchedValue::Rv(cr.into()),
                ANN_COOPERATIVE_FETCH.into(),
                SchedValue::Rv(lanes.into()),
            ],
            vec![],
        )
        .map_err(err)?;
    }
    Ok(vec![without_shared, sch])
}

/// The root block's annotations for [`ScheduleRule::ParallelVectorizeUnroll`].
fn annotate_root(
    out: &mut Schedule,
    target: &TuneTarget,
    max_jobs_per_core: i64,
    max_vectorize_extent: i64,
    unroll_max_steps: &[i64],
) -> Result<(), String> {
    use compiler_core::ir::AttrValue;
    let err = |e: compiler_core::schedule::ScheduleError| e.to_string();
    let Ok(root) = out.get_block("root", None) else {
        return Ok(());
    };
    if max_jobs_per_core > 0 && target.num_cores > 1 {
        out.annotate(
            root.into(),
            ANN_PARALLEL,
            AttrValue::Int(max_jobs_per_core * target.num_cores),
        )
        .map_err(err)?;
    }
    if max_vectorize_extent > 0 {
        out.annotate(
            root.into(),
            ANN_VECTORIZE,
            AttrValue::Int(max_vectorize_extent),
        )
        .map_err(err)?;
    }
    if !unroll_max_steps.is_empty() {
        let probs = vec![1.0 / unroll_max_steps.len() as f64; unroll_max_steps.len()];
        let v = out
            .sample_categorical(unroll_max_steps, &probs, None)
            .map_err(err)?;
        out.call(
            "annotate",
            vec![
                SchedValue::Rv(root.into()),
                ANN_UNROLL.into(),
                SchedValue::Rv(v.into()),
            ],
            vec![],
        )
        .map_err(err)?;
    }
    Ok(())
}

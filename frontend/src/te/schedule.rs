//! TE schedules as older TVM wrote them (`s = te.create_schedule(C.op)`,
//! `s[C].split(i, factor=32)`, `tvm.lower(s, [A, B, C])`), translated into
//! TensorIR: the schedule works on `create_prim_func` of the computation,
//! and every legacy call becomes the TensorIR primitive that does the same
//! transformation, recorded in an ordinary [`Schedule`] and its trace. There
//! is no second schedule engine: a stage is the block of its operation, and
//! a stage's iteration variables are handles to that block's loops.
//!
//! - A stage's axes start as the operation's `axis` then `reduce_axis`,
//!   paired with the block's loops in the order `create_prim_func` nests
//!   them. `split`, `fuse` and `tile` replace axes by new ones named after
//!   the loops TensorIR creates (`i_0`, `i_1`, `i_j_fused`).
//! - `compute_at` and `cache_read`/`cache_write` make new loops; the stage's
//!   axes are re-paired with them in order.
//! - [`TeSchedule::lower`] builds `create_prim_func` of the arguments given
//!   then (they may differ from the ones the schedule started with) and
//!   replays the trace on it.
//!
//! A legacy primitive without a TensorIR counterpart is an error naming the
//! TensorIR way. Misuse — an axis of another stage, an axis already split,
//! a `compute_at` to a loop the target stage does not have — is a
//! [`TeError`] before anything changes.

use std::collections::HashSet;

use tessel_schedule::{BlockRV, Factor, LoopRV, Schedule, ScheduleError};
use tessel_tir::ir::{
    AttrValue, BaseFunc, Block, IRModule, IterKind, IterVar, Range, StmtKind, VarId,
};

use super::create::post_dfs_order;
use super::tensor::{compute_with_names, BodyItem, ComputeBody, Operation, Tensor};
use super::{create_prim_func, TeError, TeResult};

/// One operation's part of a schedule.
#[derive(Clone, Debug)]
struct Stage {
    op: Operation,
    block: BlockRV,
    /// The stage's axes that are loops now, each with its loop.
    axes: Vec<(IterVar, LoopRV)>,
    /// Axes that were replaced, and what became of them (for errors).
    gone: Vec<(VarId, String)>,
    /// Moved under another stage's loop by `compute_at`.
    attached: bool,
}

/// A legacy TE schedule over TensorIR (see the module documentation).
#[derive(Clone, Debug)]
pub struct TeSchedule {
    sch: Schedule,
    /// The unscheduled module (what the trace replays on).
    original: IRModule,
    /// The arguments the schedule's function was made with.
    args: Vec<Tensor>,
    stages: Vec<Stage>,
}

fn sched_err(e: ScheduleError) -> TeError {
    TeError::new(e.to_string().trim_end().to_string())
}

/// The name of the first block inside a statement.
fn first_block(s: &tessel_tir::ir::Stmt) -> Option<String> {
    match s.kind() {
        StmtKind::BlockRealize(r) => Some(r.block.name.clone()),
        StmtKind::For(f) => first_block(&f.body),
        StmtKind::Seq(v) => v.iter().find_map(first_block),
        _ => None,
    }
}

fn root_block(func: &tessel_tir::ir::PrimFunc) -> Option<&Block> {
    match func.body.kind() {
        StmtKind::BlockRealize(r) => Some(&r.block),
        _ => None,
    }
}

impl TeSchedule {
    /// `te.create_schedule(ops)`: one stage per compute operation reachable
    /// from `ops`; the function takes the placeholders and `ops`' outputs.
    pub fn new(ops: &[Operation]) -> TeResult<TeSchedule> {
        if ops.is_empty() {
            return Err(TeError::new(
                "create_schedule needs at least one operation (e.g. te.create_schedule(C.op))",
            ));
        }
        let outputs: Vec<Tensor> = ops
            .iter()
            .flat_map(|op| (0..op.num_outputs()).filter_map(|i| op.output(i)))
            .collect();
        let order = post_dfs_order(&outputs);
        let mut args: Vec<Tensor> = order
            .iter()
            .filter(|op| op.is_placeholder())
            .flat_map(|op| (0..op.num_outputs()).filter_map(|i| op.output(i)))
            .collect();
        args.extend(outputs.iter().filter(|t| !t.op().is_placeholder()).cloned());
        let func = create_prim_func(&args)?;
        // `create_prim_func` makes one loop nest per compute, in this order.
        let nests: Vec<String> = match root_block(&func).map(|b| b.body.kind()) {
            Some(StmtKind::Seq(v)) => v.iter().filter_map(first_block).collect(),
            Some(_) => root_block(&func)
                .and_then(|b| first_block(&b.body))
                .into_iter()
                .collect(),
            None => Vec::new(),
        };
        let computes: Vec<Operation> = order
            .into_iter()
            .filter(|op| !op.is_placeholder())
            .collect();
        if nests.len() != computes.len() {
            return Err(TeError::argument_type(format!(
                "create_schedule: expected {} loop nests, found {}",
                computes.len(),
                nests.len()
            )));
        }
        let original = IRModule::from_prim_func("main", func);
        let mut sch = Schedule::new(original.clone()).map_err(sched_err)?;
        let mut stages = Vec::new();
        for (op, name) in computes.into_iter().zip(nests) {
            let block = sch.get_block(&name, None).map_err(sched_err)?;
            let loops = sch.get_loops(block).map_err(sched_err)?;
            let ivs: Vec<IterVar> = op.axis().iter().chain(op.reduce_axis()).cloned().collect();
            if ivs.len() != loops.len() {
                return Err(TeError::new(format!(
                    "create_schedule: stage {} has {} axes but {} loops",
                    op.name(),
                    ivs.len(),
                    loops.len()
                )));
            }
            stages.push(Stage {
                op,
                block,
                axes: ivs.into_iter().zip(loops).collect(),
                gone: Vec::new(),
                attached: false,
            });
        }
        Ok(TeSchedule {
            sch,
            original,
            args,
            stages,
        })
    }

    /// The TensorIR schedule the legacy calls were translated into.
    pub fn schedule(&self) -> &Schedule {
        &self.sch
    }

    /// The module before any legacy call (`create_prim_func` of
    /// [`TeSchedule::default_args`]).
    pub fn original(&self) -> &IRModule {
        &self.original
    }

    /// The arguments `create_schedule` chose: placeholders, then outputs.
    pub fn default_args(&self) -> &[Tensor] {
        &self.args
    }

    /// `s[op]`: the stage of a compute operation.
    pub fn stage(&self, op: &Operation) -> TeResult<usize> {
        if let Some(i) = self.stages.iter().position(|s| s.op.same_as(op)) {
            return Ok(i);
        }
        if op.is_placeholder() {
            return Err(TeError::new(format!(
                "{} is a placeholder (an input): it has no loops to schedule",
                op.name()
            )));
        }
        Err(TeError::new(format!(
            "operation {} is not part of this schedule (create_schedule sees only what its \
             operations compute from)",
            op.name()
        )))
    }

    /// The operation of stage `stage`.
    pub fn stage_op(&self, stage: usize) -> Option<&Operation> {
        self.stages.get(stage).map(|s| &s.op)
    }

    /// The stage's current axes (loops), outermost first.
    pub fn leaf_axes(&self, stage: usize) -> Vec<IterVar> {
        let Some(st) = self.stages.get(stage) else {
            return Vec::new();
        };
        // A scratch copy: asking for the loops adds handles (and a trace
        // entry) that the schedule itself should not keep.
        let mut scratch = self.sch.clone();
        let Ok(order) = scratch.get_loops(st.block) else {
            return st.axes.iter().map(|(iv, _)| iv.clone()).collect();
        };
        let ids: Vec<Option<VarId>> = order
            .iter()
            .map(|l| {
                scratch
                    .resolve_loop("get", *l)
                    .ok()
                    .map(|(_, f)| f.loop_var.id())
            })
            .collect();
        let mut out: Vec<(usize, IterVar)> = st
            .axes
            .iter()
            .filter_map(|(iv, l)| {
                let id = self.loop_var(*l)?;
                let at = ids.iter().position(|x| *x == Some(id))?;
                Some((at, iv.clone()))
            })
            .collect();
        tessel_ir::sort::by_key(&mut out, |(at, _)| *at);
        out.into_iter().map(|(_, iv)| iv).collect()
    }

    fn loop_var(&self, l: LoopRV) -> Option<VarId> {
        self.sch
            .resolve_loop("get", l)
            .ok()
            .map(|(_, f)| f.loop_var.id())
    }

    fn name(&self, stage: usize) -> String {
        self.stages[stage].op.name().to_string()
    }

    fn check_stage(&self, stage: usize) -> TeResult<()> {
        if stage < self.stages.len() {
            Ok(())
        } else {
            Err(TeError::new(format!("no stage {stage} in this schedule")))
        }
    }

    /// The loop of `iv` in `stage`, or why there is none.
    fn axis(&self, what: &str, stage: usize, iv: &IterVar) -> TeResult<LoopRV> {
        self.check_stage(stage)?;
        let st = &self.stages[stage];
        let id = iv.var.id();
        if let Some((_, l)) = st.axes.iter().find(|(x, _)| x.var.id() == id) {
            return Ok(*l);
        }
        let name = iv.var.name();
        if let Some((_, why)) = st.gone.iter().find(|(x, _)| *x == id) {
            return Err(TeError::new(format!(
                "{what}: axis {name} of stage {} {why}",
                self.name(stage)
            )));
        }
        if let Some(other) = self
            .stages
            .iter()
            .position(|s| s.axes.iter().any(|(x, _)| x.var.id() == id))
        {
            return Err(TeError::new(format!(
                "{what}: axis {name} belongs to stage {}, not to stage {}; use s[{}]",
                self.name(other),
                self.name(stage),
                self.name(other)
            )));
        }
        let names: Vec<String> = self
            .leaf_axes(stage)
            .iter()
            .map(|x| x.var.name().to_string())
            .collect();
        Err(TeError::new(format!(
            "{what}: {name} is not an axis of stage {} (its axes are {})",
            self.name(stage),
            names.join(", ")
        )))
    }

    /// A new axis for a loop the schedule made.
    fn axis_of_loop(&self, l: LoopRV, kind: IterKind) -> TeResult<IterVar> {
        let (_, f) = self.sch.resolve_loop("get", l).map_err(sched_err)?;
        Ok(IterVar {
            var: f.loop_var.clone(),
            dom: Range {
                min: f.min.clone(),
                extent: f.extent.clone(),
            },
            kind,
        })
    }

    /// Replaces the axis `old` of `stage` by `new` (at its place).
    fn replace(&mut self, stage: usize, old: &[VarId], new: Vec<(IterVar, LoopRV)>, why: &str) {
        let st = &mut self.stages[stage];
        let at = st
            .axes
            .iter()
            .position(|(x, _)| old.contains(&x.var.id()))
            .unwrap_or(st.axes.len());
        st.axes.retain(|(x, _)| !old.contains(&x.var.id()));
        let at = at.min(st.axes.len());
        for (k, x) in new.into_iter().enumerate() {
            st.axes.insert(at + k, x);
        }
        st.gone.extend(old.iter().map(|id| (*id, why.to_string())));
    }

    /// `s[C].split(parent, factor=f)` / `nparts=n`: (outer, inner).
    pub fn split(
        &mut self,
        stage: usize,
        parent: &IterVar,
        factor: Option<i64>,
        nparts: Option<i64>,
    ) -> TeResult<(IterVar, IterVar)> {
        let l = self.axis("split", stage, parent)?;
        let factors = match (factor, nparts) {
            (Some(f), None) => [Factor::Infer, Factor::Const(f)],
            (None, Some(n)) => [Factor::Const(n), Factor::Infer],
            _ => {
                return Err(TeError::new(
                    "split takes exactly one of factor= and nparts=",
                ))
            }
        };
        if let Some(v) = factor.or(nparts).filter(|v| *v <= 0) {
            return Err(TeError::argument_type(format!(
                "split: the factor must be positive, found {v}"
            )));
        }
        let parts = self.sch.split(l, &factors, true).map_err(sched_err)?;
        let (outer, inner) = match parts.as_slice() {
            [o, i] => (
                self.axis_of_loop(*o, parent.kind)?,
                self.axis_of_loop(*i, parent.kind)?,
            ),
            _ => return Err(TeError::argument_type("split: expected two loops")),
        };
        let why = format!(
            "was split into {} and {}; use those",
            outer.var.name(),
            inner.var.name()
        );
        self.replace(
            stage,
            &[parent.var.id()],
            vec![(outer.clone(), parts[0]), (inner.clone(), parts[1])],
            &why,
        );
        Ok((outer, inner))
    }

    /// `s[C].fuse(a, b, …)`: one axis.
    pub fn fuse(&mut self, stage: usize, axes: &[IterVar]) -> TeResult<IterVar> {
        if axes.is_empty() {
            return Err(TeError::new("fuse needs at least one axis"));
        }
        let loops = axes
            .iter()
            .map(|a| self.axis("fuse", stage, a))
            .collect::<TeResult<Vec<_>>>()?;
        let kind = if axes.iter().any(|a| a.kind == IterKind::Reduce) {
            IterKind::Reduce
        } else {
            IterKind::Spatial
        };
        let fused = self.sch.fuse(&loops, true).map_err(sched_err)?;
        let iv = self.axis_of_loop(fused, kind)?;
        let ids: Vec<VarId> = axes.iter().map(|a| a.var.id()).collect();
        let why = format!("was fused into {}; use that", iv.var.name());
        self.replace(stage, &ids, vec![(iv.clone(), fused)], &why);
        Ok(iv)
    }

    /// `s[C].reorder(a, b, …)`.
    pub fn reorder(&mut self, stage: usize, axes: &[IterVar]) -> TeResult<()> {
        let loops = axes
            .iter()
            .map(|a| self.axis("reorder", stage, a))
            .collect::<TeResult<Vec<_>>>()?;
        let mut seen = HashSet::new();
        if let Some(dup) = axes.iter().find(|a| !seen.insert(a.var.id())) {
            return Err(TeError::new(format!(
                "reorder: axis {} is listed twice",
                dup.var.name()
            )));
        }
        self.sch.reorder(&loops).map_err(sched_err)
    }

    /// `s[C].tile(x, y, x_factor, y_factor)`: (x_outer, y_outer, x_inner,
    /// y_inner), nested in that order.
    pub fn tile(
        &mut self,
        stage: usize,
        x: &IterVar,
        y: &IterVar,
        x_factor: i64,
        y_factor: i64,
    ) -> TeResult<[IterVar; 4]> {
        self.axis("tile", stage, x)?;
        self.axis("tile", stage, y)?;
        if x.var.id() == y.var.id() {
            return Err(TeError::argument_type(
                "tile: x and y must be different axes",
            ));
        }
        if let Some(f) = [x_factor, y_factor].into_iter().find(|f| *f <= 0) {
            return Err(TeError::argument_type(format!(
                "tile: the factors must be positive, found {f}"
            )));
        }
        let (xo, xi) = self.split(stage, x, Some(x_factor), None)?;
        let (yo, yi) = self.split(stage, y, Some(y_factor), None)?;
        self.reorder(stage, &[xo.clone(), yo.clone(), xi.clone(), yi.clone()])?;
        Ok([xo, yo, xi, yi])
    }

    /// `s[C].vectorize(v)`, `parallel`, `unroll`.
    pub fn loop_kind(&mut self, what: &str, stage: usize, iv: &IterVar) -> TeResult<()> {
        let l = self.axis(what, stage, iv)?;
        match what {
            "vectorize" => self.sch.vectorize(l),
            "parallel" => self.sch.parallel(l),
            "unroll" => self.sch.unroll(l),
            other => {
                return Err(TeError::new(format!("unknown loop kind {other}")));
            }
        }
        .map_err(sched_err)
    }

    /// `s[C].bind(iv, te.thread_axis("threadIdx.x"))`.
    pub fn bind(&mut self, stage: usize, iv: &IterVar, thread: &str) -> TeResult<()> {
        let l = self.axis("bind", stage, iv)?;
        self.sch.bind(l, thread).map_err(sched_err)
    }

    /// Re-pairs a stage's axes with the loops a primitive made anew below
    /// `under` (a loop of another stage): the stale axes in order when
    /// their number matches, else new axes named after the loops (then the
    /// old ones are gone, and `leaf_iter_vars` lists the new ones).
    fn repair_axes(&mut self, stage: usize, under: LoopRV, why: &str) -> TeResult<()> {
        let block = self.stages[stage].block;
        let loops = self.sch.get_loops(block).map_err(sched_err)?;
        let target = self.loop_var(under);
        let below = loops
            .iter()
            .position(|l| self.loop_var(*l) == target)
            .map_or(0, |p| p + 1);
        let live: HashSet<VarId> = self.stages[stage]
            .axes
            .iter()
            .filter_map(|(_, l)| self.loop_var(*l))
            .collect();
        let fresh: Vec<LoopRV> = loops[below..]
            .iter()
            .copied()
            .filter(|l| self.loop_var(*l).is_some_and(|v| !live.contains(&v)))
            .collect();
        let old = std::mem::take(&mut self.stages[stage].axes);
        let (mut axes, stale): (Vec<_>, Vec<_>) = old
            .into_iter()
            .partition(|(_, l)| self.loop_var(*l).is_some());
        let mut gone = Vec::new();
        if stale.len() == fresh.len() {
            for ((iv, _), l) in stale.into_iter().zip(&fresh) {
                let made = self.axis_of_loop(*l, iv.kind)?;
                axes.push((
                    IterVar {
                        var: iv.var,
                        ..made
                    },
                    *l,
                ));
            }
        } else {
            for l in &fresh {
                axes.push((self.axis_of_loop(*l, IterKind::Spatial)?, *l));
            }
            let why = format!("{why}; its loops now are s[...].leaf_iter_vars");
            gone.extend(stale.into_iter().map(|(iv, _)| (iv.var.id(), why.clone())));
        }
        let st = &mut self.stages[stage];
        st.axes = axes;
        st.gone.extend(gone);
        Ok(())
    }

    /// `s[B].compute_at(s[C], axis)`: B is computed inside C's loop `axis`.
    pub fn compute_at(&mut self, stage: usize, parent: usize, axis: &IterVar) -> TeResult<()> {
        self.check_stage(stage)?;
        if stage == parent {
            return Err(TeError::new(format!(
                "compute_at: stage {} cannot be computed at itself",
                self.name(stage)
            )));
        }
        let l = self.axis("compute_at", parent, axis)?;
        let block = self.stages[stage].block;
        self.sch.compute_at(block, l, true, -1).map_err(sched_err)?;
        self.stages[stage].attached = true;
        self.repair_axes(stage, l, "was replaced by compute_at's loops")
    }

    /// `s[B].compute_inline()`.
    pub fn compute_inline(&mut self, stage: usize) -> TeResult<()> {
        self.check_stage(stage)?;
        let block = self.stages[stage].block;
        self.sch.compute_inline(block).map_err(sched_err)?;
        let st = &mut self.stages[stage];
        let ids: Vec<VarId> = st.axes.drain(..).map(|(iv, _)| iv.var.id()).collect();
        st.gone
            .extend(ids.into_iter().map(|id| (id, "was inlined".to_string())));
        Ok(())
    }

    /// `s[B].compute_root()`: a no-op for a stage that is at the root; a
    /// stage moved by `compute_at` has no way back in TensorIR.
    pub fn compute_root(&mut self, stage: usize) -> TeResult<()> {
        self.check_stage(stage)?;
        if self.stages[stage].attached {
            return Err(TeError::new(
                "compute_root has no TensorIR counterpart once a stage was moved by compute_at: \
                 create the schedule again without that compute_at (in TensorIR, \
                 sch.compute_at / sch.reverse_compute_at choose where a block is computed)",
            ));
        }
        Ok(())
    }

    /// A tensor for a stage TensorIR made (a cache block): a copy of
    /// `of`, named after the block.
    fn cache_tensor(&mut self, of: &Tensor, block: BlockRV) -> TeResult<Tensor> {
        let name = self.sch.block_name(block).map_err(sched_err)?;
        let names: Vec<String> = (0..of.ndim()).map(|d| format!("ax{d}")).collect();
        let src = of.clone();
        let t = compute_with_names(of.shape(), &names, &name, |ix| {
            Ok(ComputeBody(vec![BodyItem::Expr(src.index(ix)?)]))
        })?;
        let loops = self.sch.get_loops(block).map_err(sched_err)?;
        let inner = &loops[loops.len().saturating_sub(t.op().axis().len())..];
        let axes = t
            .op()
            .axis()
            .iter()
            .cloned()
            .zip(inner.iter().copied())
            .collect();
        self.stages.push(Stage {
            op: t.op().clone(),
            block,
            axes,
            gone: Vec::new(),
            attached: false,
        });
        Ok(t)
    }

    /// The index of `t`'s buffer among a block's reads (or writes).
    fn buffer_index(&self, block: BlockRV, t: &Tensor, writes: bool) -> TeResult<Option<usize>> {
        let (_, r) = self.sch.resolve_block("cache", block).map_err(sched_err)?;
        let regions = if writes {
            &r.block.writes
        } else {
            &r.block.reads
        };
        Ok(regions.iter().position(|x| x.buffer.name == t.name()))
    }

    /// `s.cache_read(A, scope, readers)`: a stage copying `A` into `scope`,
    /// which `readers` read instead.
    pub fn cache_read(
        &mut self,
        tensor: &Tensor,
        scope: &str,
        readers: &[Operation],
    ) -> TeResult<Tensor> {
        let stages = readers
            .iter()
            .map(|op| self.stage(op))
            .collect::<TeResult<Vec<_>>>()?;
        let Some(&first) = stages.first() else {
            return Err(TeError::new(
                "cache_read needs the operations that read the tensor (e.g. [C.op])",
            ));
        };
        let block = self.stages[first].block;
        let Some(index) = self.buffer_index(block, tensor, false)? else {
            return Err(TeError::new(format!(
                "cache_read: stage {} does not read {}",
                self.name(first),
                tensor.name()
            )));
        };
        let consumers: Vec<BlockRV> = stages.iter().map(|s| self.stages[*s].block).collect();
        let copy = self
            .sch
            .cache_read(block, index as i64, scope, &consumers)
            .map_err(sched_err)?;
        self.cache_tensor(tensor, copy)
    }

    /// `s.cache_write(C, scope)`: C's stage writes `scope` and a new stage
    /// copies it back. As in TVM, the returned tensor's stage is the one
    /// that computes (with C's axes), and C's stage becomes the copy.
    pub fn cache_write(&mut self, tensor: &Tensor, scope: &str) -> TeResult<Tensor> {
        let stage = self.stage(tensor.op())?;
        let block = self.stages[stage].block;
        let Some(index) = self.buffer_index(block, tensor, true)? else {
            return Err(TeError::new(format!(
                "cache_write: stage {} does not write {}",
                self.name(stage),
                tensor.name()
            )));
        };
        let copy = self
            .sch
            .cache_write(block, index as i64, scope, &[])
            .map_err(sched_err)?;
        let cached = self.cache_tensor(tensor, copy)?;
        // Swap: the new tensor names the computing block (keeping C's axes,
        // and answering to its own `op.axis` too), C names the copy.
        let new = self.stages.len() - 1;
        let computing = self.stages[stage].clone();
        let copy_stage = self.stages[new].clone();
        let mut compute_axes = computing.axes.clone();
        for (k, iv) in cached.op().axis().iter().enumerate() {
            if let Some((_, l)) = computing.axes.get(k) {
                compute_axes.push((iv.clone(), *l));
            }
        }
        let old_axes: Vec<IterVar> = stage_axes(&computing.op);
        self.stages[new] = Stage {
            op: cached.op().clone(),
            block: computing.block,
            axes: compute_axes,
            gone: computing.gone.clone(),
            attached: computing.attached,
        };
        self.stages[stage] = Stage {
            op: computing.op.clone(),
            block: copy_stage.block,
            axes: old_axes
                .into_iter()
                .filter(|iv| iv.kind != IterKind::Reduce)
                .zip(copy_stage.axes.iter().map(|(_, l)| *l))
                .collect(),
            gone: vec![],
            attached: false,
        };
        Ok(cached)
    }

    /// `tvm.lower(s, args, name=…)` / what `tvm.build(s, args, …)` builds:
    /// `create_prim_func(args)` with the schedule's trace replayed on it,
    /// as a module holding one function called `name`.
    pub fn lower(&self, args: &[Tensor], name: &str) -> TeResult<IRModule> {
        let func = if args == self.args.as_slice() {
            None
        } else {
            Some(create_prim_func(args)?)
        };
        let module = match func {
            None => self.sch.module().clone(),
            Some(f) => {
                let mut fresh =
                    Schedule::new(IRModule::from_prim_func("main", f)).map_err(sched_err)?;
                fresh.replay(self.sch.trace(), false).map_err(|e| {
                    TeError::new(format!(
                        "the schedule does not apply to a function of these arguments: {}",
                        sched_err(e)
                    ))
                })?;
                fresh.module().clone()
            }
        };
        let mut func: tessel_tir::ir::PrimFunc = module
            .get_prim("main")
            .map(|f| (**f).clone())
            .ok_or_else(|| TeError::new("the scheduled module has no function"))?;
        func.attrs
            .insert("global_symbol".into(), AttrValue::Str(name.to_string()));
        let mut out = IRModule::new();
        out.insert(name, BaseFunc::Prim(std::rc::Rc::new(func)));
        Ok(out)
    }
}

fn stage_axes(op: &Operation) -> Vec<IterVar> {
    op.axis().iter().chain(op.reduce_axis()).cloned().collect()
}

/// `te.thread_axis("threadIdx.x")`'s checked tag.
pub fn thread_tag(tag: &str) -> TeResult<String> {
    const TAGS: [&str; 8] = [
        "blockIdx.x",
        "blockIdx.y",
        "blockIdx.z",
        "threadIdx.x",
        "threadIdx.y",
        "threadIdx.z",
        "vthread",
        "vthread.x",
    ];
    if TAGS.contains(&tag) {
        Ok(tag.to_string())
    } else {
        Err(TeError::argument_type(format!(
            "unknown thread tag {tag:?}: expected blockIdx.x/y/z, threadIdx.x/y/z or vthread"
        )))
    }
}

//! Loop kinds: `parallel`, `vectorize`, `unroll`, `bind`.

use super::tree::StmtPath;
use super::*;

/// The thread axes `bind` accepts.
const THREAD_TAGS: &[&str] = &[
    "blockIdx.x",
    "blockIdx.y",
    "blockIdx.z",
    "threadIdx.x",
    "threadIdx.y",
    "threadIdx.z",
    "vthread.x",
    "vthread.y",
    "vthread.z",
    "vthread",
];

impl Schedule {
    /// `sch.parallel(loop)`: iterations may run on several threads.
    pub fn parallel(&mut self, loop_rv: LoopRV) -> Result<()> {
        self.set_loop_kind("parallel", loop_rv, ForKind::Parallel, None)
    }

    /// `sch.vectorize(loop)`: iterations become SIMD lanes.
    pub fn vectorize(&mut self, loop_rv: LoopRV) -> Result<()> {
        self.set_loop_kind("vectorize", loop_rv, ForKind::Vectorized, None)
    }

    /// `sch.unroll(loop)`: the loop is unrolled by the code generator.
    pub fn unroll(&mut self, loop_rv: LoopRV) -> Result<()> {
        self.set_loop_kind("unroll", loop_rv, ForKind::Unrolled, None)
    }

    /// `sch.bind(loop, "threadIdx.x")`: iterations map to a GPU thread axis.
    pub fn bind(&mut self, loop_rv: LoopRV, thread: &str) -> Result<()> {
        if !THREAD_TAGS.contains(&thread) {
            return Err(ScheduleError::new(
                "bind",
                format!("unknown thread axis `{thread}`; use blockIdx.x/y/z, threadIdx.x/y/z or vthread.x/y/z"),
            ));
        }
        self.set_loop_kind("bind", loop_rv, ForKind::ThreadBinding, Some(thread))
    }

    fn set_loop_kind(
        &mut self,
        primitive: &str,
        loop_rv: LoopRV,
        kind: ForKind,
        thread: Option<&str>,
    ) -> Result<()> {
        let (path, node) = self.resolve_loop(primitive, loop_rv)?;
        if kind != ForKind::Unrolled {
            self.check_data_parallel_loop(primitive, &path, &node, kind)?;
        }
        let new = For {
            kind,
            thread_tag: thread.map(str::to_string),
            ..node
        };
        self.replace_at(primitive, &path, Stmt::from_kind(StmtKind::For(new)))?;
        let mut inst = Instruction::new(primitive).arg("loop", TraceArg::Rv(loop_rv.into()));
        if let Some(t) = thread {
            inst = inst.arg("thread_axis", TraceArg::Str(t.to_string()));
        }
        self.record(inst);
        Ok(())
    }

    /// TVM's rule for `parallel`/`vectorize`/`bind`: every block under the
    /// loop is a complete block (all iterators spatial) or a reduction block
    /// (has `T.init`, iterators spatial or reduce), and the loop variable
    /// feeds only spatial iterators.
    fn check_data_parallel_loop(
        &self,
        primitive: &str,
        path: &StmtPath,
        node: &For,
        kind: ForKind,
    ) -> Result<()> {
        let mut err: Option<String> = None;
        node.body.walk(&mut |s| {
            let StmtKind::BlockRealize(r) = s.kind() else { return };
            if err.is_some() {
                return;
            }
            let block = &r.block;
            let all_spatial = block.iter_vars.iter().all(|iv| iv.kind == IterKind::Spatial);
            let reduction = block.init.is_some()
                && block.iter_vars.iter().all(|iv| matches!(iv.kind, IterKind::Spatial | IterKind::Reduce));
            if !all_spatial && !reduction {
                err = Some(format!(
                    "block `{}` under loop `{}` is neither a complete block (all iterators spatial) nor a reduction \
                     block (with `T.init()`); apply `{primitive}` before `decompose_reduction`",
                    block.name,
                    node.loop_var.name()
                ));
                return;
            }
            for (iv, value) in block.iter_vars.iter().zip(&r.iter_values) {
                let cross_thread_ok = kind == ForKind::ThreadBinding;
                if iv.kind != IterKind::Spatial && value.uses_var(&node.loop_var) && !cross_thread_ok {
                    err = Some(format!(
                        "loop `{}` feeds the {} iterator `{}` of block `{}`; only loops over spatial (data-parallel) \
                         iterators can be {}",
                        node.loop_var.name(),
                        iv.kind.axis_name(),
                        iv.var.name(),
                        block.name,
                        match kind {
                            ForKind::Parallel => "parallelized",
                            ForKind::Vectorized => "vectorized",
                            _ => "bound to threads",
                        }
                    ));
                }
            }
        });
        match err {
            Some(m) => Err(ScheduleError::new(primitive, m).at(path.clone())),
            None => Ok(()),
        }
    }
}

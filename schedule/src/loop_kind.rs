//! Loop kinds: `parallel`, `vectorize`, `unroll`, `bind`.

use super::menu::{loop_only_call, MenuArg, MenuEntry, MenuTarget, MenuWhen};
use super::primitives::{param, Args, ParamType as T, Primitive, Returns};
use super::query::enclosing_loops;
use super::replay::SchedValue;
use super::scope::{Scope, COMPLETE_BLOCK_DEFINITION, REDUCTION_BLOCK_DEFINITION};
use super::tree::{self, StmtPath};
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

/// The thread axes the playground's menu offers for `bind`.
const MENU_THREAD_AXES: &[&str] = &[
    "blockIdx.x",
    "blockIdx.y",
    "threadIdx.x",
    "threadIdx.y",
    "threadIdx.z",
    "vthread.x",
];

pub(super) const PARALLEL: Primitive = Primitive {
    method: "parallel",
    aliases: &[],
    kind: "Parallel",
    params: &[param("loop", T::Loop)],
    returns: Returns::Nothing,
    traced: true,
    apply: |sch, args| {
        sch.set_loop_kind("parallel", args.loop_rv("loop")?, ForKind::Parallel, None)?;
        Ok(SchedValue::None)
    },
    menu: Some(MenuEntry {
        target: MenuTarget::Loop,
        help: "run iterations in parallel",
        arg: MenuArg::None,
        when: MenuWhen::Always,
        call: |site, _| loop_only_call("parallel", site),
    }),
};

pub(super) const VECTORIZE: Primitive = Primitive {
    method: "vectorize",
    aliases: &[],
    kind: "Vectorize",
    params: &[param("loop", T::Loop)],
    returns: Returns::Nothing,
    traced: true,
    apply: |sch, args| {
        sch.set_loop_kind(
            "vectorize",
            args.loop_rv("loop")?,
            ForKind::Vectorized,
            None,
        )?;
        Ok(SchedValue::None)
    },
    menu: Some(MenuEntry {
        target: MenuTarget::Loop,
        help: "vectorize this loop",
        arg: MenuArg::None,
        when: MenuWhen::Always,
        call: |site, _| loop_only_call("vectorize", site),
    }),
};

pub(super) const UNROLL: Primitive = Primitive {
    method: "unroll",
    aliases: &[],
    kind: "Unroll",
    params: &[param("loop", T::Loop)],
    returns: Returns::Nothing,
    traced: true,
    apply: |sch, args| {
        sch.set_loop_kind("unroll", args.loop_rv("loop")?, ForKind::Unrolled, None)?;
        Ok(SchedValue::None)
    },
    menu: Some(MenuEntry {
        target: MenuTarget::Loop,
        help: "unroll this loop",
        arg: MenuArg::None,
        when: MenuWhen::Always,
        call: |site, _| loop_only_call("unroll", site),
    }),
};

pub(super) const BIND: Primitive = Primitive {
    method: "bind",
    aliases: &[],
    kind: "Bind",
    params: &[param("loop", T::Loop), param("thread_axis", T::Str).attr()],
    returns: Returns::Nothing,
    traced: true,
    apply: |sch, args| {
        sch.bind_concrete(args.loop_rv("loop")?, &args.string("thread_axis")?)?;
        Ok(SchedValue::None)
    },
    menu: Some(MenuEntry {
        target: MenuTarget::Loop,
        help: "bind to a GPU thread axis",
        arg: MenuArg::Choice(MENU_THREAD_AXES),
        when: MenuWhen::Always,
        call: |site, arg| {
            Some(format!(
                "sch.bind({}, \"{}\")",
                site.loop_name()?,
                arg.trim()
            ))
        },
    }),
};

impl Schedule {
    /// `sch.parallel(loop)`: iterations may run on several threads.
    pub fn parallel(&mut self, loop_rv: LoopRV) -> Result<()> {
        self.apply_traced(&PARALLEL, Args::typed(&PARALLEL, vec![loop_rv.into()]))?;
        Ok(())
    }

    /// `sch.vectorize(loop)`: iterations become SIMD lanes.
    pub fn vectorize(&mut self, loop_rv: LoopRV) -> Result<()> {
        self.apply_traced(&VECTORIZE, Args::typed(&VECTORIZE, vec![loop_rv.into()]))?;
        Ok(())
    }

    /// `sch.unroll(loop)`: the loop is unrolled by the code generator.
    pub fn unroll(&mut self, loop_rv: LoopRV) -> Result<()> {
        self.apply_traced(&UNROLL, Args::typed(&UNROLL, vec![loop_rv.into()]))?;
        Ok(())
    }

    /// `sch.bind(loop, "threadIdx.x")`: iterations map to a GPU thread axis.
    pub fn bind(&mut self, loop_rv: LoopRV, thread: &str) -> Result<()> {
        self.apply_traced(
            &BIND,
            Args::typed(&BIND, vec![loop_rv.into(), thread.into()]),
        )?;
        Ok(())
    }

    fn bind_concrete(&mut self, loop_rv: LoopRV, thread: &str) -> Result<()> {
        if !THREAD_TAGS.contains(&thread) {
            return Err(ScheduleError::invalid_argument(
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
            self.check_data_parallel_loop(primitive, &path, &node, kind, thread)?;
        }
        let new = For {
            kind,
            thread_tag: thread.map(str::to_string),
            ..node
        };
        self.replace_at(primitive, &path, Stmt::from_kind(StmtKind::For(new)))
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
        thread: Option<&str>,
    ) -> Result<()> {
        // A reduction may be split across the threads of one block (a
        // cross-thread reduction: `threadIdx.*`, `vthread.*`), never across
        // blocks: blocks cannot combine their partial sums, so on a GPU that
        // would race and give wrong sums (TVM's rule, by thread rank).
        let cross_thread_ok = kind == ForKind::ThreadBinding
            && thread.is_some_and(|t| t.starts_with("threadIdx.") || t.starts_with("vthread"));
        // Every block under the loop has an affine binding in its loops (up
        // to its scope block): TVM requires it of a reduction block, and of
        // any block under a loop made parallel, vectorized or bound.
        let body = self.body(primitive)?;
        let blocks = tree::find_all(&body, &mut |s| {
            matches!(s.kind(), StmtKind::BlockRealize(_))
        });
        for block_path in blocks.iter().filter(|p| path.is_prefix_of(p)) {
            let Some(realize) =
                tree::get(&body, block_path).and_then(|s| s.as_block_realize().cloned())
            else {
                continue;
            };
            let loops: Vec<(Var, Range)> = enclosing_loops(&body, block_path)
                .into_iter()
                .map(|(_, l)| (l.loop_var, Range::new(l.min, l.extent)))
                .collect();
            if !super::loops::is_affine_in(&realize, &loops) {
                return Err(ScheduleError::non_affine_binding(
                    primitive,
                    format!(
                        "block `{}` under loop `{}` is neither a complete block nor a reduction block: \
                         it is required to have an affine binding",
                        realize.block.name,
                        node.loop_var.name()
                    ),
                )
                .at(block_path.clone()));
            }
        }
        // Compact dataflow: each block directly under the loop (blocks nested
        // in those are their business) is a local complete or local reduction
        // block, by TVM's definitions with dominance judged inside the block
        // (a reduction iterator indexing the output, which TVM 0.27's scripts
        // may write, makes a block neither).
        if let Some(scope_path) = super::query::enclosing_block_path(&body, path) {
            if let Some(scope) = Scope::at(&body, &scope_path) {
                for i in 0..scope.blocks.len() {
                    if !path.is_prefix_of(&scope.blocks[i].0) {
                        continue;
                    }
                    if scope.local_complete_code(&body, i) == 0
                        || scope.local_reduction_code(&body, i) == 0
                    {
                        continue;
                    }
                    return Err(ScheduleError::not_reduction(
                        primitive,
                        format!(
                            "block `{}` under loop `{}` is neither a complete block (all iterators spatial, \
                             the only writer of its outputs) nor a reduction block (with `T.init()`, reduction \
                             iterators not indexing its outputs); apply `{primitive}` before `decompose_reduction`\n\
                             {COMPLETE_BLOCK_DEFINITION}\n{REDUCTION_BLOCK_DEFINITION}",
                            scope.name(i),
                            node.loop_var.name()
                        ),
                    )
                    .at(scope.blocks[i].0.clone()));
                }
            }
        }
        let mut err: Option<String> = None;
        node.body.walk(&mut |s| {
            let StmtKind::BlockRealize(r) = s.kind() else { return };
            if err.is_some() {
                return;
            }
            let block = &r.block;
            for (iv, value) in block.iter_vars.iter().zip(&r.iter_values) {
                if iv.kind != IterKind::Spatial && value.uses_var(&node.loop_var) && !cross_thread_ok {
                    err = Some(format!(
                        "loop `{}` feeds the {} iterator `{}` of block `{}`; only loops over spatial (data-parallel) \
                         iterators can be {}",
                        node.loop_var.name(),
                        iv.kind.axis_name(),
                        iv.var.name(),
                        block.name,
                        match (kind, thread) {
                            (ForKind::Parallel, _) => "parallelized".to_string(),
                            (ForKind::Vectorized, _) => "vectorized".to_string(),
                            (_, Some(t)) if t.starts_with("blockIdx.") && iv.kind == IterKind::Reduce => format!(
                                "bound to `{t}` (a reduction loop may be bound to `threadIdx.*` only, as a \
                                 cross-thread reduction)"
                            ),
                            _ => "bound to threads".to_string(),
                        }
                    ));
                }
            }
        });
        match err {
            Some(m) => Err(ScheduleError::loop_structure(primitive, m).at(path.clone())),
            None => Ok(()),
        }
    }
}

//! Reductions: `decompose_reduction` and `rfactor`.

use std::collections::{HashMap, HashSet};

use super::menu::{MenuArg, MenuEntry, MenuTarget, MenuWhen};
use super::primitives::{param, Args, ParamType as T, Primitive, Returns};
use super::query::enclosing_loops;
use super::tree;
use super::*;
use tessel_tir::ir::mutate::{substitute_expr, substitute_stmt};

pub(super) const DECOMPOSE_REDUCTION: Primitive = Primitive {
    method: "decompose_reduction",
    aliases: &[],
    kind: "DecomposeReduction",
    params: &[param("block", T::Block), param("loop", T::Loop)],
    returns: Returns::One,
    traced: true,
    apply: |sch, args| {
        let init = sch.decompose_reduction_concrete(args.block("block")?, args.loop_rv("loop")?)?;
        Ok(init.into())
    },
    menu: Some(MenuEntry {
        target: MenuTarget::Loop,
        help: "separate the init above this loop",
        arg: MenuArg::None,
        when: MenuWhen::Reduction,
        call: |site, _| {
            Some(format!(
                "{}_init = sch.decompose_reduction({}, {})",
                site.block,
                site.block_ref(&site.block),
                site.loop_name()?
            ))
        },
    }),
};

pub(super) const RFACTOR: Primitive = Primitive {
    method: "rfactor",
    aliases: &[],
    kind: "RFactor",
    params: &[param("loop", T::Loop), param("factor_axis", T::Int).attr()],
    returns: Returns::One,
    traced: true,
    apply: |sch, args| {
        let rf = sch.rfactor_concrete(args.loop_rv("loop")?, args.int("factor_axis")?)?;
        Ok(rf.into())
    },
    menu: Some(MenuEntry {
        target: MenuTarget::Loop,
        help: "factor the reduction over this loop",
        arg: MenuArg::Text {
            label: "factor axis",
            default: |_| "0".to_string(),
        },
        when: MenuWhen::Reduction,
        call: |site, arg| {
            Some(format!(
                "{}_rf = sch.rfactor({}, factor_axis={})",
                site.block,
                site.loop_name()?,
                arg.trim()
            ))
        },
    }),
};

impl Schedule {
    /// `sch.decompose_reduction(block, loop)`: splits a reduction block into
    /// an init block `<name>_init`, placed right before `loop`, and the update
    /// block (renamed `<name>_update`; handles to the block follow it; its
    /// written regions join the front of its reads, as in TVM). The
    /// init block gets copies (`<loop>_init`) of the loops under `loop` that
    /// feed only spatial iterators. `loop` must enclose every loop that feeds
    /// a reduce iterator.
    pub fn decompose_reduction(&mut self, block_rv: BlockRV, loop_rv: LoopRV) -> Result<BlockRV> {
        let args = Args::typed(&DECOMPOSE_REDUCTION, vec![block_rv.into(), loop_rv.into()]);
        self.apply_traced(&DECOMPOSE_REDUCTION, args)?.into_block()
    }

    fn decompose_reduction_concrete(
        &mut self,
        block_rv: BlockRV,
        loop_rv: LoopRV,
    ) -> Result<BlockRV> {
        let (block_path, realize) = self.resolve_block(DECOMPOSE_NAME, block_rv)?;
        let (loop_path, loop_node) = self.resolve_loop(DECOMPOSE_NAME, loop_rv)?;
        let block = &realize.block;
        let init = check_decompose_target(&block_path, &realize, &loop_path, &loop_node)?;
        let body = self.body(DECOMPOSE_NAME)?;
        let loops = enclosing_loops(&body, &block_path);
        let Some(pos) = loops
            .iter()
            .position(|(_, l)| l.loop_var == loop_node.loop_var)
        else {
            return Err(ScheduleError::loop_structure(
                DECOMPOSE_NAME,
                format!(
                    "loop `{}` lies outside the scope of block `{}` (another block is in between)",
                    loop_node.loop_var.name(),
                    block.name
                ),
            ));
        };
        let (reduce_vars, spatial_vars) = fed_loop_vars(&realize);
        for (_, l) in &loops[..pos] {
            if reduce_vars.contains(&l.loop_var.id()) {
                return Err(ScheduleError::loop_structure(
                    DECOMPOSE_NAME,
                    format!(
                        "loop `{}` feeds a reduce iterator but lies above `{}`; decompose at a loop that encloses every reduction loop",
                        l.loop_var.name(),
                        loop_node.loop_var.name()
                    ),
                )
                .at(loop_path));
            }
        }
        let init_stmt = build_init_nest(&realize, init, &loops[pos..], &reduce_vars, &spatial_vars);
        // The update block: no init, new name.
        let update_name = format!("{}_update", block.name);
        let mut update = realize.clone();
        update.block.init = None;
        update.block.name = update_name.clone();
        // Without its init the update reads what it writes: TVM puts the
        // written regions first among the reads (unless already read).
        let mut reads: Vec<BufferRegion> = block
            .writes
            .iter()
            .filter(|w| !block.reads.iter().any(|r| r.buffer == w.buffer))
            .cloned()
            .collect();
        reads.extend(block.reads.iter().cloned());
        update.block.reads = reads;
        let body = tree::replace(
            &body,
            &block_path,
            Stmt::from_kind(StmtKind::BlockRealize(update)),
        );
        // Insert the init nest right before `loop`.
        let loop_stmt = tree::get(&body, &loop_path)
            .ok_or_else(|| ScheduleError::internal(DECOMPOSE_NAME, "internal: stale loop path"))?;
        let body = tree::replace(&body, &loop_path, Stmt::seq(vec![init_stmt, loop_stmt]));
        self.set_body(DECOMPOSE_NAME, body)?;
        let old_name = block.name.clone();
        let init_name = format!("{old_name}_init");
        self.rename_block_rvs(&old_name, Some(&update_name));
        Ok(self.new_block_rv(&init_name))
    }
}

const DECOMPOSE_NAME: &str = "decompose_reduction";

/// The argument checks of `decompose_reduction`: the block has an init
/// (which it returns) and only spatial and reduce iterators, and the loop
/// is one of its ancestors.
fn check_decompose_target<'a>(
    block_path: &StmtPath,
    realize: &'a BlockRealize,
    loop_path: &StmtPath,
    loop_node: &For,
) -> Result<&'a Stmt> {
    let block = &realize.block;
    let Some(init) = &block.init else {
        return Err(ScheduleError::not_reduction(
            DECOMPOSE_NAME,
            format!(
                "block `{}` has no `T.init()`, so it is not a reduction block",
                block.name
            ),
        )
        .at(block_path.clone()));
    };
    if !block
        .iter_vars
        .iter()
        .all(|iv| matches!(iv.kind, IterKind::Spatial | IterKind::Reduce))
    {
        return Err(ScheduleError::block_structure(
            DECOMPOSE_NAME,
            format!(
                "block `{}` has iterators that are neither spatial nor reduce",
                block.name
            ),
        )
        .at(block_path.clone()));
    }
    if !loop_path.is_prefix_of(block_path) {
        return Err(ScheduleError::loop_structure(
            DECOMPOSE_NAME,
            format!(
                "loop `{}` is not an ancestor of block `{}`",
                loop_node.loop_var.name(),
                block.name
            ),
        )
        .at(loop_path.clone()));
    }
    Ok(init)
}

/// The loop variables feeding reduce iterators and those feeding spatial
/// ones.
fn fed_loop_vars(realize: &BlockRealize) -> (HashSet<VarId>, HashSet<VarId>) {
    let mut reduce_vars: HashSet<VarId> = HashSet::new();
    let mut spatial_vars: HashSet<VarId> = HashSet::new();
    for (iv, value) in realize.block.iter_vars.iter().zip(&realize.iter_values) {
        value.walk(&mut |e| {
            if let ExprKind::Var(v) = e.kind() {
                if iv.kind == IterKind::Reduce {
                    reduce_vars.insert(v.id());
                } else {
                    spatial_vars.insert(v.id());
                }
            }
        });
    }
    (reduce_vars, spatial_vars)
}

/// The init block `<name>_init` over the block's spatial iterators, in
/// copies of the loops from `loop` down (`inner_loops`) that feed only
/// spatial iterators.
fn build_init_nest(
    realize: &BlockRealize,
    init: &Stmt,
    inner_loops: &[(StmtPath, For)],
    reduce_vars: &HashSet<VarId>,
    spatial_vars: &HashSet<VarId>,
) -> Stmt {
    let block = &realize.block;
    // The init block's loops: copies of the loops from `loop` down that feed only spatial iterators.
    let mut copies: Vec<(For, Var)> = Vec::new();
    let mut subst: HashMap<VarId, Expr> = HashMap::new();
    for (_, l) in inner_loops {
        let v = l.loop_var.id();
        if reduce_vars.contains(&v) {
            continue;
        }
        if spatial_vars.contains(&v) {
            let copy = Var::new(format!("{}_init", l.loop_var.name()), l.loop_var.dtype());
            subst.insert(v, copy.to_expr());
            copies.push((l.clone(), copy));
        }
    }
    // Iterators of the init block: the spatial ones, bound as before.
    let mut iter_vars = Vec::new();
    let mut iter_values = Vec::new();
    let mut iter_subst: HashMap<VarId, Expr> = HashMap::new();
    for (iv, value) in block.iter_vars.iter().zip(&realize.iter_values) {
        if iv.kind == IterKind::Spatial {
            let nv = iv.var.fresh_copy();
            iter_subst.insert(iv.var.id(), nv.to_expr());
            iter_vars.push(IterVar {
                var: nv,
                dom: iv.dom.clone(),
                kind: IterKind::Spatial,
            });
            iter_values.push(substitute_expr(value, &subst));
        }
    }
    let inner_loop_vars: HashSet<VarId> =
        inner_loops.iter().map(|(_, l)| l.loop_var.id()).collect();
    let predicate = conjuncts(&realize.predicate)
        .into_iter()
        .filter(|c| {
            let mut ok = true;
            c.walk(&mut |e| {
                if let ExprKind::Var(v) = e.kind() {
                    if inner_loop_vars.contains(&v.id()) && !subst.contains_key(&v.id()) {
                        ok = false;
                    }
                }
            });
            ok
        })
        .map(|c| substitute_expr(&c, &subst))
        .reduce(Expr::and)
        .unwrap_or_else(|| Expr::bool(true));
    let writes = block
        .writes
        .iter()
        .map(|w| BufferRegion {
            buffer: w.buffer.clone(),
            region: w
                .region
                .iter()
                .map(|r| {
                    Range::new(
                        substitute_expr(&r.min, &iter_subst),
                        substitute_expr(&r.extent, &iter_subst),
                    )
                })
                .collect(),
        })
        .collect();
    let init_block = Block {
        name: format!("{}_init", block.name),
        iter_vars,
        reads: vec![],
        writes,
        alloc_buffers: vec![],
        match_buffers: vec![],
        annotations: block.annotations.clone(),
        init: None,
        body: substitute_stmt(init, &iter_subst),
        span: block.span,
    };
    let mut init_stmt = Stmt::from_kind(StmtKind::BlockRealize(BlockRealize {
        iter_values,
        predicate,
        block: init_block,
    }));
    for (l, copy) in copies.into_iter().rev() {
        init_stmt = Stmt::from_kind(StmtKind::For(For {
            loop_var: copy,
            min: substitute_expr(&l.min, &subst),
            extent: substitute_expr(&l.extent, &subst),
            kind: l.kind,
            thread_tag: l.thread_tag.clone(),
            annotations: l.annotations.clone(),
            body: init_stmt,
        }));
    }
    init_stmt
}

pub(crate) use tessel_tir::arith::conjuncts;

// ----- rfactor -------------------------------------------------------------------

pub use tessel_tir::analysis::reducer::{match_reducer, Reducer};

/// TVM's `CheckReductionBlock`, less the dataflow ("dominant writer") part:
/// an init, only spatial and reduce iterators, quasi-affine bindings, and no
/// reduce iterator indexing the stores.
pub(crate) fn check_reduction_block(
    primitive: &str,
    realize: &BlockRealize,
    path: &tree::StmtPath,
) -> Result<()> {
    let block = &realize.block;
    let fail = |why: String| {
        Err(ScheduleError::not_reduction(
            primitive,
            format!("block `{}` is not a reduction block: {why}", block.name),
        )
        .at(path.clone()))
    };
    if block.init.is_none() {
        return fail("it has no `T.init()`".into());
    }
    if let Some(iv) = block
        .iter_vars
        .iter()
        .find(|iv| !matches!(iv.kind, IterKind::Spatial | IterKind::Reduce))
    {
        return fail(format!(
            "its iterator `{}` is {}, not spatial or reduce",
            iv.var.name(),
            iv.kind.axis_name()
        ));
    }
    if let Some((iv, _)) = block
        .iter_vars
        .iter()
        .zip(&realize.iter_values)
        .find(|(_, v)| !super::loops::is_quasi_affine(v))
    {
        return fail(format!(
            "the binding of `{}` is not a quasi-affine expression of the loops",
            iv.var.name()
        ));
    }
    let reduce: HashSet<VarId> = block
        .iter_vars
        .iter()
        .filter(|iv| iv.kind == IterKind::Reduce)
        .map(|iv| iv.var.id())
        .collect();
    let mut bad: Option<String> = None;
    block.body.walk(&mut |s| {
        if let StmtKind::Store {
            buffer, indices, ..
        } = s.kind()
        {
            if bad.is_none()
                && indices
                    .iter()
                    .any(|i| super::util::var_ids(i).iter().any(|v| reduce.contains(v)))
            {
                bad = Some(format!(
                    "a reduce iterator indexes the output buffer `{}`",
                    buffer.name
                ));
            }
        }
    });
    match bad {
        Some(why) => fail(why),
        None => Ok(()),
    }
}

impl Schedule {
    /// `sch.rfactor(loop, factor_axis)`: factorizes a reduction along one of
    /// its reduce loops (TVM's semantics).
    ///
    /// The block `B` under `loop` must be a reduction with a recognised
    /// [`Reducer`]. A new block `B_rf`, under copies of all of `B`'s loops,
    /// computes partial results into a new buffer `B.rf` (printed `B_rf`)
    /// whose shape is `B`'s with the extent of `loop` inserted at
    /// `factor_axis` (negative counts from the end, `-1` appends); `loop`'s
    /// iterator becomes a spatial iterator of `B_rf`, and reduce iterators
    /// bound to `loop` are split into one reduce iterator per loop they use.
    /// `B` itself becomes the write-back block: it keeps the loops not
    /// touched by reduce iterators plus `loop`, and reduces `B.rf` over
    /// `loop` into `B`. `B.rf` is allocated in the enclosing block. Returns
    /// the `B_rf` block; handles to `B` follow the write-back block.
    ///
    /// When `loop` is `B`'s only reduction loop, `B_rf` has no reduce
    /// iterator left and simply stores the reduced value (no init), as in
    /// TVM 0.27.
    pub fn rfactor(&mut self, loop_rv: LoopRV, factor_axis: i64) -> Result<BlockRV> {
        let args = Args::typed(&RFACTOR, vec![loop_rv.into(), factor_axis.into()]);
        self.apply_traced(&RFACTOR, args)?.into_block()
    }

    fn rfactor_concrete(&mut self, loop_rv: LoopRV, factor_axis: i64) -> Result<BlockRV> {
        const P: &str = "rfactor";
        let site = self.rfactor_site(P, loop_rv)?;
        let loops = rfactor_loops(P, &site)?;
        let reduction = rfactor_reduction(P, &site, factor_axis)?;
        let rf_buffers = rfactor_buffers(&reduction, &site.rf_loop);
        let rf = rfactor_block(&site, &loops, &reduction, &rf_buffers);
        let wb_stmt = write_back_block(&site, &reduction, &rf);
        let rf_stmt = rfactor_nest(P, &site, &loops, rf, self.verify_cached_flags)?;
        let wb_nest = write_back_nest(P, &site, &loops, wb_stmt)?;
        let block_name = site.realize.block.name.clone();
        let body = tree::replace(
            &site.body,
            &loops.loops[0].0,
            Stmt::seq(vec![rf_stmt, wb_nest]),
        );
        // Allocate the rfactor buffer in the enclosing block.
        let Some(mut scope) =
            tree::get(&body, &site.scope_path).and_then(|s| s.as_block_realize().cloned())
        else {
            return Err(ScheduleError::internal(P, "internal: stale scope path"));
        };
        scope.block.alloc_buffers.extend(rf_buffers);
        let body = tree::replace(
            &body,
            &site.scope_path,
            Stmt::from_kind(StmtKind::BlockRealize(scope)),
        );
        self.set_body(P, body)?;
        Ok(self.new_block_rv(&format!("{block_name}_rf")))
    }

    /// Finds the one block under the rfactor loop and checks what TVM checks
    /// of it first: an enclosing block, a stage-pipeline scope, a reduction
    /// block, a serial loop.
    fn rfactor_site(&self, p: &str, loop_rv: LoopRV) -> Result<RfactorSite> {
        let (loop_path, rf_loop) = self.resolve_loop(p, loop_rv)?;
        let body = self.body(p)?;
        let children = super::util::child_block_paths(&body, &loop_path);
        let block_path = match children.as_slice() {
            [only] => only.clone(),
            [] => {
                return Err(ScheduleError::loop_structure(
                    p,
                    format!("loop `{}` contains no block", rf_loop.loop_var.name()),
                )
                .at(loop_path))
            }
            _ => {
                return Err(ScheduleError::loop_structure(
                    p,
                    format!(
                        "loop `{}` contains {} blocks; rfactor needs a loop with exactly one block under it",
                        rf_loop.loop_var.name(),
                        children.len()
                    ),
                )
                .at(loop_path))
            }
        };
        let realize = tree::get(&body, &block_path)
            .and_then(|s| s.as_block_realize().cloned())
            .ok_or_else(|| ScheduleError::internal(p, "internal: stale block path"))?;
        let Some(scope_path) = super::query::enclosing_block_path(&body, &block_path) else {
            return Err(ScheduleError::block_structure(
                p,
                format!(
                    "block `{}` has no enclosing block to allocate the rfactor buffer in",
                    realize.block.name
                ),
            ));
        };
        // TVM requires the block's scope to be a stage pipeline.
        super::scope::Scope::of_block(p, &body, &block_path)?.check_stage_pipeline(p, &body)?;
        check_reduction_block(p, &realize, &block_path)?;
        if rf_loop.kind != ForKind::Serial {
            return Err(ScheduleError::loop_structure(
                p,
                format!(
                    "loop `{}` is {}; rfactor needs a serial loop",
                    rf_loop.loop_var.name(),
                    super::loops::kind_phrase(&rf_loop)
                ),
            )
            .at(loop_path));
        }
        Ok(RfactorSite {
            body,
            rf_loop,
            block_path,
            realize,
            scope_path,
        })
    }
}

/// The block `rfactor` works on, and where it sits.
struct RfactorSite {
    /// The function body before the primitive.
    body: Stmt,
    /// The loop to factorize along.
    rf_loop: For,
    block_path: StmtPath,
    realize: BlockRealize,
    /// The enclosing block, where the rfactor buffer is allocated.
    scope_path: StmtPath,
}

/// The loops above the block, and which of them feed reduce iterators.
struct RfactorLoops {
    loops: Vec<(StmtPath, For)>,
    loop_ids: HashSet<VarId>,
    reduce: HashSet<VarId>,
}

/// TVM's loop properties: each loop above the block feeds spatial or reduce
/// iterators (not both), the rfactor loop a reduce one, the outermost
/// reduction loop holds only the block, and no loop feeding nothing lies
/// under a reduction loop.
fn rfactor_loops(p: &str, site: &RfactorSite) -> Result<RfactorLoops> {
    let (body, block_path, rf_loop) = (&site.body, &site.block_path, &site.rf_loop);
    let block = &site.realize.block;
    // Loop variables touched by spatial / reduce iterators.
    let mut data_par: HashSet<VarId> = HashSet::new();
    let mut reduce: HashSet<VarId> = HashSet::new();
    for (iv, value) in block.iter_vars.iter().zip(&site.realize.iter_values) {
        let ids = super::util::var_ids(value);
        if iv.kind == IterKind::Reduce {
            reduce.extend(ids);
        } else {
            data_par.extend(ids);
        }
    }
    let loops = enclosing_loops(body, block_path);
    if loops.is_empty() {
        return Err(ScheduleError::internal(
            p,
            "internal: the block has no loops",
        ));
    }
    let loop_ids: HashSet<VarId> = loops.iter().map(|(_, l)| l.loop_var.id()).collect();
    let first_child = super::util::child_block_paths(body, &loops[0].0);
    if first_child.first() != Some(block_path) {
        return Err(ScheduleError::loop_structure(
            p,
            format!(
                "block `{}` must be the first block under its outermost loop `{}`",
                block.name,
                loops[0].1.loop_var.name()
            ),
        )
        .at(loops[0].0.clone()));
    }
    let mut met_reduction_loop = false;
    for (path, l) in &loops {
        let v = l.loop_var.id();
        let (dp, rd) = (data_par.contains(&v), reduce.contains(&v));
        if dp && rd {
            return Err(ScheduleError::loop_structure(
                p,
                format!(
                    "loop `{}` feeds both spatial and reduce iterators of block `{}`",
                    l.loop_var.name(),
                    block.name
                ),
            )
            .at(path.clone()));
        } else if dp {
            if v == rf_loop.loop_var.id() {
                return Err(ScheduleError::loop_structure(
                    p,
                    format!(
                        "loop `{}` feeds a spatial iterator of block `{}`; rfactor needs a reduction loop",
                        l.loop_var.name(),
                        block.name
                    ),
                )
                .at(path.clone()));
            }
        } else if rd {
            if !met_reduction_loop {
                let n = super::util::child_block_paths(body, path).len();
                if n != 1 {
                    return Err(ScheduleError::loop_structure(
                        p,
                        format!(
                            "the outermost reduction loop `{}` must contain only block `{}` (it contains {n} blocks)",
                            l.loop_var.name(),
                            block.name
                        ),
                    )
                    .at(path.clone()));
                }
                met_reduction_loop = true;
            }
        } else if met_reduction_loop && !l.extent.is_const_int(1) {
            return Err(ScheduleError::loop_structure(
                p,
                format!(
                    "loop `{}` feeds no iterator of block `{}` but lies under a reduction loop",
                    l.loop_var.name(),
                    block.name
                ),
            )
            .at(path.clone()));
        }
    }
    Ok(RfactorLoops {
        loops,
        loop_ids,
        reduce,
    })
}

/// The reduction `rfactor` factorizes.
struct RfactorReduction {
    /// The stores of the update: buffer, indices, value.
    updates: Vec<Update>,
    reducer: Reducer,
    combiner_lhs: Vec<Expr>,
    combiner_rhs: Vec<Expr>,
    /// The reducer's identities (the init values when it has none).
    identities: Vec<Expr>,
    /// Where the rfactor loop's dimension goes in the rfactor buffers.
    axis: usize,
}

impl RfactorReduction {
    /// The buffer written by the update.
    fn buffer(&self) -> &Buffer {
        &self.updates[0].0
    }

    /// The indices the update writes at.
    fn indices(&self) -> &[Expr] {
        &self.updates[0].1
    }

    /// Which update (and rfactor buffer) writes `b`.
    fn update_of(&self, b: &Buffer) -> Option<usize> {
        self.updates.iter().position(|u| &u.0 == b)
    }

    fn buffers(&self) -> Vec<Buffer> {
        self.updates.iter().map(|u| u.0.clone()).collect()
    }
}

/// Reads the block's init and update, matches a commutative reducer, and
/// checks the writes and `factor_axis`.
fn rfactor_reduction(p: &str, site: &RfactorSite, factor_axis: i64) -> Result<RfactorReduction> {
    let (block, block_path) = (&site.realize.block, &site.block_path);
    let not_applicable = |why: &str| {
        Err(ScheduleError::loop_structure(
            p,
            format!("rfactor cannot be applied to block `{}`: {why}", block.name),
        )
        .at(block_path.clone()))
    };
    let (init_values, updates) = match reduction_updates(block) {
        Ok(x) => x,
        Err(why) => return not_applicable(&why),
    };
    let loads: Vec<Expr> = updates
        .iter()
        .map(|(b, i, _)| Expr::load(b, i.clone()))
        .collect();
    let values: Vec<Expr> = updates.iter().map(|u| u.2.clone()).collect();
    let Some((reducer, combiner_lhs, combiner_rhs)) = match_reducer(&init_values, &loads, &values)
    else {
        let show = |es: &[Expr]| {
            es.iter()
                .map(tessel_tir::ir::printer::print_expr)
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err(ScheduleError::not_reduction(
            p,
            format!(
                "no commutative reducer matches block `{}`: its init stores {} and its update {}; rfactor recognises {}",
                block.name,
                show(&init_values),
                show(&values),
                Reducer::ALL
                    .iter()
                    .filter(|r| r.arity() == updates.len())
                    .map(|r| r.pattern())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
        .at(block_path.clone()));
    };
    let identities = reducer
        .identities(&init_values.iter().map(|e| e.dtype()).collect::<Vec<_>>())
        .unwrap_or_else(|| init_values.clone());
    let mut reduction = RfactorReduction {
        updates,
        reducer,
        combiner_lhs,
        combiner_rhs,
        identities,
        axis: 0,
    };
    if let Some(w) = block
        .writes
        .iter()
        .find(|w| w.region.len() != w.buffer.ndim())
    {
        return not_applicable(&format!(
            "its write region of `{}` does not cover every dimension",
            w.buffer.name
        ));
    }
    if let Some(w) = block
        .writes
        .iter()
        .find(|w| reduction.update_of(&w.buffer).is_none())
    {
        return not_applicable(&format!(
            "it writes `{}` besides the reduction buffer `{}`",
            w.buffer.name,
            reduction.buffer().name
        ));
    }
    let ndim = reduction.buffer().ndim() as i64;
    if factor_axis < -(ndim + 1) || factor_axis > ndim {
        return Err(ScheduleError::invalid_argument(
            p,
            format!(
                "the write buffer `{}` has {ndim} dimension(s), so factor_axis must be in [{}, {ndim}]; got {factor_axis}",
                reduction.buffer().name,
                -(ndim + 1)
            ),
        ));
    }
    reduction.axis = if factor_axis < 0 {
        factor_axis + ndim + 1
    } else {
        factor_axis
    } as usize;
    Ok(reduction)
}

/// The rfactor buffers `B.rf`: each update's buffer with the rfactor loop's
/// extent inserted at the factor axis.
fn rfactor_buffers(reduction: &RfactorReduction, rf_loop: &For) -> Vec<Buffer> {
    reduction
        .updates
        .iter()
        .map(|(b, ..)| {
            b.derive(|n| {
                n.name = format!("{}.rf", n.name);
                n.data = Var::new(n.name.clone(), DataType::handle());
                n.shape.insert(reduction.axis, rf_loop.extent.clone());
            })
        })
        .collect()
}

/// A block iterator over a loop's domain, named after it (`vk` for `k`).
fn iter_from_loop(l: &For, kind: IterKind) -> IterVar {
    IterVar {
        var: Var::new(format!("v{}", l.loop_var.name()), l.loop_var.dtype()),
        dom: Range::new(l.min.clone(), l.extent.clone()),
        kind,
    }
}

/// The rfactor block `B_rf` (not yet under its loops), with its bindings.
struct RfactorBlock {
    block: Block,
    /// Its iterators' bindings, in the original loops' variables.
    values: Vec<Expr>,
    /// The spatial iterator bound to the rfactor loop.
    additional: IterVar,
    /// `B.rf` at the rfactor block's indices (the write-back block reads them).
    loads: Vec<Expr>,
}

/// Builds `B_rf`: the rfactor loop's iterator becomes spatial, reduce
/// iterators bound to it split into one reduce iterator per loop they use,
/// and the update accumulates into `B.rf`.
fn rfactor_block(
    site: &RfactorSite,
    loops: &RfactorLoops,
    reduction: &RfactorReduction,
    rf_buffers: &[Buffer],
) -> RfactorBlock {
    let (realize, rf_loop, axis) = (&site.realize, &site.rf_loop, reduction.axis);
    let block = &realize.block;
    let loop_by_var: HashMap<VarId, &For> = loops
        .loops
        .iter()
        .map(|(_, l)| (l.loop_var.id(), l))
        .collect();
    let additional = iter_from_loop(rf_loop, IterKind::Spatial);
    let mut loop_to_iter: HashMap<VarId, Expr> = HashMap::new();
    loop_to_iter.insert(rf_loop.loop_var.id(), additional.var.to_expr());
    let mut rf_iters = vec![additional.clone()];
    let mut rf_values = vec![rf_loop.loop_var.to_expr()];
    let mut var_map: HashMap<VarId, Expr> = HashMap::new();
    for (iv, value) in block.iter_vars.iter().zip(&realize.iter_values) {
        if iv.kind == IterKind::Spatial || !value.uses_var(&rf_loop.loop_var) {
            rf_iters.push(iv.clone());
            rf_values.push(value.clone());
            continue;
        }
        for v in super::util::vars_in_order(value) {
            let Some(l) = loop_by_var.get(&v.id()) else {
                continue;
            };
            if loop_to_iter.contains_key(&v.id()) {
                continue;
            }
            let it = iter_from_loop(l, IterKind::Reduce);
            loop_to_iter.insert(v.id(), it.var.to_expr());
            rf_iters.push(it);
            rf_values.push(v.to_expr());
        }
        var_map.insert(iv.var.id(), substitute_expr(value, &loop_to_iter));
    }
    let mut rf_indices = reduction.indices().to_vec();
    rf_indices.insert(axis, additional.var.to_expr());
    let has_reduce_iter = rf_iters.iter().any(|iv| iv.kind == IterKind::Reduce);
    let rf_loads: Vec<Expr> = rf_buffers
        .iter()
        .map(|b| Expr::load(b, rf_indices.clone()))
        .collect();
    let (rf_body, rf_init) = if has_reduce_iter {
        (
            stores(
                rf_buffers,
                &rf_indices,
                reduction
                    .reducer
                    .combine(&rf_loads, &reduction.combiner_rhs),
            ),
            Some(plain_stores(
                rf_buffers,
                &rf_indices,
                reduction.identities.clone(),
            )),
        )
    } else {
        (
            stores(rf_buffers, &rf_indices, reduction.combiner_rhs.clone()),
            None,
        )
    };
    let rf_writes = block
        .writes
        .iter()
        .map(|w| {
            let mut region = w.region.clone();
            region.insert(axis, Range::point(additional.var.to_expr()));
            super::util::substitute_region(
                &BufferRegion {
                    buffer: reduction
                        .update_of(&w.buffer)
                        .map_or_else(|| w.buffer.clone(), |k| rf_buffers[k].clone()),
                    region,
                },
                &var_map,
            )
        })
        .collect();
    let rf_block = Block {
        name: format!("{}_rf", block.name),
        iter_vars: rf_iters,
        reads: block
            .reads
            .iter()
            .map(|r| super::util::substitute_region(r, &var_map))
            .collect(),
        writes: rf_writes,
        alloc_buffers: vec![],
        match_buffers: vec![],
        annotations: block.annotations.clone(),
        init: rf_init.map(|s| substitute_stmt(&s, &var_map)),
        body: substitute_stmt(&rf_body, &var_map),
        span: block.span,
    };
    RfactorBlock {
        block: rf_block,
        values: rf_values,
        additional,
        loads: rf_loads,
    }
}

/// The write-back block (keeping `B`'s name): reduces `B.rf` over the
/// rfactor loop into `B`, with `B`'s spatial iterators.
fn write_back_block(site: &RfactorSite, reduction: &RfactorReduction, rf: &RfactorBlock) -> Stmt {
    let (realize, rf_loop) = (&site.realize, &site.rf_loop);
    let block = &realize.block;
    let wb_rf_iter = iter_from_loop(rf_loop, IterKind::Reduce);
    let mut wb_map: HashMap<VarId, Expr> = HashMap::new();
    wb_map.insert(rf.additional.var.id(), wb_rf_iter.var.to_expr());
    let mut wb_iters = vec![wb_rf_iter];
    let mut wb_values = vec![rf_loop.loop_var.to_expr()];
    for (iv, value) in block.iter_vars.iter().zip(&realize.iter_values) {
        if iv.kind == IterKind::Spatial {
            let nv = iv.var.fresh_copy();
            wb_map.insert(iv.var.id(), nv.to_expr());
            wb_iters.push(IterVar {
                var: nv,
                dom: iv.dom.clone(),
                kind: IterKind::Spatial,
            });
            wb_values.push(value.clone());
        }
    }
    let wb_lhs: Vec<Expr> = reduction
        .combiner_lhs
        .iter()
        .map(|e| substitute_expr(e, &wb_map))
        .collect();
    let wb_rhs: Vec<Expr> = rf
        .loads
        .iter()
        .map(|e| substitute_expr(e, &wb_map))
        .collect();
    let regions = |es: &[Expr]| {
        es.iter()
            .filter_map(|e| match e.kind() {
                ExprKind::Load { buffer, indices } => {
                    Some(super::util::point_region(buffer, indices))
                }
                _ => None,
            })
            .collect()
    };
    let upd_buffers = reduction.buffers();
    let upd_indices = reduction.indices();
    let wb_block = Block {
        name: block.name.clone(),
        iter_vars: wb_iters,
        reads: regions(&wb_rhs),
        writes: regions(&wb_lhs),
        alloc_buffers: vec![],
        match_buffers: vec![],
        annotations: block.annotations.clone(),
        init: Some(substitute_stmt(
            &plain_stores(&upd_buffers, upd_indices, reduction.identities.clone()),
            &wb_map,
        )),
        body: substitute_stmt(
            &stores(
                &upd_buffers,
                upd_indices,
                reduction.reducer.combine(&wb_lhs, &wb_rhs),
            ),
            &wb_map,
        ),
        span: block.span,
    };
    super::util::realize(wb_values, Expr::bool(true), wb_block)
}

/// `B_rf` under fresh copies of all of `B`'s loops; with `verify`, refuses
/// a `T.where` that bounds no single binding (TVM's verification).
fn rfactor_nest(
    p: &str,
    site: &RfactorSite,
    loops: &RfactorLoops,
    rf: RfactorBlock,
    verify: bool,
) -> Result<Stmt> {
    let mut loop_copy: HashMap<VarId, Expr> = HashMap::new();
    let new_vars: Vec<Var> = loops
        .loops
        .iter()
        .map(|(_, l)| {
            let nv = l.loop_var.fresh_copy();
            loop_copy.insert(l.loop_var.id(), nv.to_expr());
            nv
        })
        .collect();
    let mut rf_stmt = super::util::realize(
        rf.values
            .iter()
            .map(|v| substitute_expr(v, &loop_copy))
            .collect(),
        substitute_expr(&site.realize.predicate, &loop_copy),
        rf.block,
    );
    if verify {
        // TVM splits the reduce iterators into one per loop; a `T.where`
        // over their sum then bounds no single binding.
        let ranges: Vec<(Var, Range)> = loops
            .loops
            .iter()
            .zip(&new_vars)
            .map(|((_, l), nv)| (nv.clone(), Range::new(l.min.clone(), l.extent.clone())))
            .collect();
        if let StmtKind::BlockRealize(r) = rf_stmt.kind() {
            if tessel_tir::arith::detect_iter_map(&r.iter_values, &ranges, &r.predicate).is_err() {
                return Err(ScheduleError::non_affine_binding(
                    p,
                    format!(
                        "Schedule verification failed: Wrong affine_binding of block `{}_rf` (its `T.where` bounds no single binding)",
                        site.realize.block.name
                    ),
                ));
            }
        }
    }
    for ((_, l), nv) in loops.loops.iter().zip(new_vars).rev() {
        rf_stmt = Stmt::from_kind(StmtKind::For(For {
            loop_var: nv,
            min: substitute_expr(&l.min, &loop_copy),
            extent: substitute_expr(&l.extent, &loop_copy),
            kind: l.kind,
            thread_tag: l.thread_tag.clone(),
            annotations: l.annotations.clone(),
            body: rf_stmt,
        }));
    }
    Ok(rf_stmt)
}

/// The write-back block under `B`'s loops minus those of reduce iterators
/// (the rfactor loop stays).
fn write_back_nest(
    p: &str,
    site: &RfactorSite,
    loops: &RfactorLoops,
    wb_stmt: Stmt,
) -> Result<Stmt> {
    let (body, block_path, rf_loop) = (&site.body, &site.block_path, &site.rf_loop);
    let chain = tree::chain(body, block_path);
    let outer_depth = loops.loops[0].0 .0.len();
    if chain.len() != block_path.0.len() + 1 || outer_depth >= block_path.0.len() {
        return Err(ScheduleError::internal(p, "internal: stale block path"));
    }
    let mut cur = wb_stmt;
    for depth in (outer_depth..block_path.0.len()).rev() {
        let s = &chain[depth];
        let idx = block_path.0[depth];
        if let StmtKind::For(l) = s.kind() {
            if loops.loop_ids.contains(&l.loop_var.id())
                && l.loop_var != rf_loop.loop_var
                && loops.reduce.contains(&l.loop_var.id())
            {
                // Removing a loop must not remove repetitions of anything but the block.
                if chain[depth + 1..block_path.0.len()]
                    .iter()
                    .any(|x| x.as_for().is_none())
                {
                    return Err(ScheduleError::loop_structure(
                        p,
                        format!(
                            "reduction loop `{}` contains statements besides the loops of block `{}`; rfactor removes it from the write-back nest",
                            l.loop_var.name(),
                            site.realize.block.name
                        ),
                    )
                    .at(block_path.clone()));
                }
                continue;
            }
        }
        cur = tree::with_child(s, idx, cur);
    }
    Ok(cur)
}

/// A body of `let` bindings around one store, the bindings substituted into
/// the store (TVM matches the reducer on the inlined store); any other body
/// as it is.
fn inline_lets(body: &Stmt) -> Stmt {
    let mut values: HashMap<VarId, Expr> = HashMap::new();
    let mut s = body;
    while let StmtKind::Let { var, value, body } = s.kind() {
        let v = tessel_tir::ir::mutate::substitute_expr(value, &values);
        values.insert(var.id(), v);
        s = body;
    }
    match s.kind() {
        StmtKind::Store { .. } if !values.is_empty() => {
            tessel_tir::ir::mutate::substitute_stmt(s, &values)
        }
        _ => body.clone(),
    }
}

/// Stores of `values` into `buffers` at `indices`, in order.
fn plain_stores(buffers: &[Buffer], indices: &[Expr], values: Vec<Expr>) -> Stmt {
    let mut items: Vec<Stmt> = buffers
        .iter()
        .zip(values)
        .map(|(b, value)| {
            Stmt::from_kind(StmtKind::Store {
                buffer: b.clone(),
                value,
                indices: indices.to_vec(),
            })
        })
        .collect();
    if items.len() == 1 {
        return items.remove(0);
    }
    Stmt::seq(items)
}

/// An update storing `values` into `buffers` at `indices`: one store, or for
/// several buffers TVM's form that computes every value before storing any,
/// `v_<buffer>` bound to each (`argmax` reads both old values).
fn stores(buffers: &[Buffer], indices: &[Expr], values: Vec<Expr>) -> Stmt {
    if buffers.len() == 1 {
        return plain_stores(buffers, indices, values);
    }
    let vars: Vec<Var> = buffers
        .iter()
        .zip(&values)
        .map(|(b, v)| Var::new(format!("v_{}", b.name.replace('.', "_")), v.dtype()))
        .collect();
    let loads: Vec<Expr> = vars.iter().map(|v| v.to_expr()).collect();
    let mut body = plain_stores(buffers, indices, loads);
    for (var, value) in vars.into_iter().zip(values).rev() {
        body = Stmt::from_kind(StmtKind::Let { var, value, body });
    }
    body
}

/// An update of a reduction: the buffer, its indices and the stored value.
type Update = (Buffer, Vec<Expr>, Expr);

/// TVM's `GetInitValuesAndUpdatesFromReductionBlock`: the init values (in
/// the updates' order) and the updates of a reduction block. The init is one
/// store or a sequence of stores into distinct buffers; the body one store
/// (possibly through `let`s), or for several buffers as many `let`s as the
/// init has stores followed by stores of exactly those variables. Every
/// store indexes the same element. `Err` says which rule fails.
fn reduction_updates(block: &Block) -> std::result::Result<(Vec<Expr>, Vec<Update>), String> {
    let stores_of = |s: &Stmt| -> Option<Vec<Update>> {
        let items: Vec<&Stmt> = match s.kind() {
            StmtKind::Seq(v) => v.iter().collect(),
            _ => vec![s],
        };
        items
            .into_iter()
            .map(|x| match x.kind() {
                StmtKind::Store {
                    buffer,
                    value,
                    indices,
                } => Some((buffer.clone(), indices.clone(), value.clone())),
                _ => None,
            })
            .collect()
    };
    let inits = block
        .init
        .as_ref()
        .and_then(stores_of)
        .ok_or("its init must be a store or a sequence of stores")?;
    let n = inits.len();
    let distinct = |us: &[Update]| (0..us.len()).all(|i| us[..i].iter().all(|u| u.0 != us[i].0));
    if !distinct(&inits) {
        return Err("its init stores into one buffer twice".into());
    }
    let updates: Vec<Update> = if n == 1 {
        match inline_lets(&block.body).kind() {
            StmtKind::Store {
                buffer,
                value,
                indices,
            } => {
                vec![(buffer.clone(), indices.clone(), value.clone())]
            }
            _ => {
                return Err("its body must be a single store `C[…] = combine(C[…], value)`".into())
            }
        }
    } else {
        let mut lets: Vec<(&Var, &Expr)> = Vec::new();
        let mut s = &block.body;
        while let StmtKind::Let { var, value, body } = s.kind() {
            lets.push((var, value));
            s = body;
        }
        let shape_rule = || {
            format!("its body must bind {n} values with `let`, one per buffer of its init, then store each into its buffer")
        };
        let stored = stores_of(s)
            .filter(|st| lets.len() == n && st.len() == n)
            .ok_or_else(shape_rule)?;
        let mut slots: Vec<Option<Update>> = vec![None; n];
        for (buffer, indices, value) in stored {
            let k = value
                .as_var()
                .and_then(|v| lets.iter().position(|(l, _)| *l == v))
                .filter(|k| slots[*k].is_none())
                .ok_or_else(shape_rule)?;
            slots[k] = Some((buffer, indices, lets[k].1.clone()));
        }
        slots
            .into_iter()
            .collect::<Option<Vec<_>>>()
            .ok_or_else(shape_rule)?
    };
    if !distinct(&updates) {
        return Err("its body stores into one buffer twice".into());
    }
    let ana = tessel_tir::arith::Analyzer::new();
    let (shape, indices) = (&updates[0].0.shape, &updates[0].1);
    let same = |a: &[Expr], b: &[Expr]| {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| ana.can_prove_equal(x, y))
    };
    let mut init_values: Vec<Option<Expr>> = vec![None; n];
    for (buffer, init_indices, value) in inits {
        let Some(k) = updates.iter().position(|u| u.0 == buffer) else {
            return Err(format!(
                "its init stores into `{}`, which its body does not update",
                buffer.name
            ));
        };
        if !same(&updates[k].0.shape, shape) {
            return Err("its reduction buffers differ in shape".into());
        }
        if indices.len() != shape.len()
            || !same(&init_indices, indices)
            || !same(&updates[k].1, indices)
        {
            return Err("its stores must all index the same element, in every dimension".into());
        }
        init_values[k] = Some(value);
    }
    Ok((
        init_values
            .into_iter()
            .collect::<Option<Vec<_>>>()
            .unwrap_or_default(),
        updates,
    ))
}

//! Cross-thread reductions for GPU kernels (TVM: `LowerCrossThreadReduction`
//! followed by `LowerThreadAllreduce`, with a shared-memory tree instead of
//! warp shuffles, which WGSL lacks).
//!
//! A reduction block whose reduce iterators are bound (through their loops)
//! to `threadIdx.*` is one reduction shared by the invocations of a
//! workgroup: lowered as written, every invocation would update the same
//! element at once. This pass, run on the scheduled function before blocks
//! are lowered, rewrites the loop nest from the block's outermost reduction
//! loop down to the block into:
//!
//! 1. each invocation's partial: a one-element `local` accumulator starts at
//!    the reducer's identity and combines the block's update under the
//!    serial reduce loops (the thread-bound ones move outside them; the
//!    reducer is commutative), the block's `T.where` guarding each step;
//! 2. the partials stored in a `shared` buffer, one slot per invocation;
//! 3. a tree over the invocations of one reduction group (those that differ
//!    only in the reduction's thread indices): `if r < s: buf[r] =
//!    combine(buf[r], buf[r + s])` for halving `s`, with a first step folding
//!    the part above the largest power of two when the group size is not
//!    one; the GPU pipeline's barrier insertion puts a
//!    `T.tvm_storage_sync("shared")` between the steps;
//! 4. the write-back: invocation `r == 0` of each group stores the result
//!    (combined with the element's old value when the block has no init);
//!    when the kernel reads the element elsewhere, every invocation stores
//!    the same value so each later reads its own write.
//!
//! Whatever cannot be made race-free this way is a [`LowerError`] naming
//! the block: a reduce loop bound to `blockIdx.*`, a nest that is not
//! perfect, a condition around the reduction (its barriers must be reached
//! by every invocation), an update that is not a recognised
//! [`Reducer`], and output elements other code of the kernel reads where
//! their single writer cannot be proved.

use std::collections::{HashMap, HashSet};

use super::util::cast;
use super::{LowerError, LoweringReport, Result};
use tessel_tir::analysis::reducer::{match_single, match_update, Reducer};
use tessel_tir::arith::conjuncts;
use tessel_tir::diag::Span;
use tessel_tir::ir::mutate::substitute_expr;
use tessel_tir::ir::visit::expr_vars;
use tessel_tir::ir::{
    BinOp, Block, BlockRealize, Buffer, CmpOp, DataType, Expr, ExprKind, For, ForKind, IterKind,
    PrimFunc, Stmt, StmtKind, VarId,
};

/// Rewrites every cross-thread reduction of `func` (see the module docs);
/// returns the new body.
pub(super) fn lower_cross_thread_reductions(
    func: &PrimFunc,
    report: &mut LoweringReport,
) -> Result<Stmt> {
    let mut p = Pass {
        report,
        loops: Vec::new(),
        conds: 0,
        kernel: None,
        iter_map: HashMap::new(),
        replace: HashMap::new(),
    };
    p.stmt(&func.body)
}

/// An enclosing loop and how many conditions enclosed it.
struct LoopCtx {
    stmt: Stmt,
    l: For,
    conds: usize,
}

/// The kernel (outermost launch loop nest) being walked.
struct Kernel {
    root: Stmt,
    /// Kernel-wide extent of each `threadIdx.*` tag (the largest loop's).
    thread_extents: HashMap<String, i64>,
    /// Variables of every loop bound to `threadIdx.*` in the kernel.
    thread_vars: HashSet<VarId>,
    conds: usize,
}

struct Pass<'r> {
    report: &'r mut LoweringReport,
    loops: Vec<LoopCtx>,
    conds: usize,
    kernel: Option<Kernel>,
    /// Enclosing blocks' iterators → their values in loop variables.
    iter_map: HashMap<VarId, Expr>,
    /// Loop variable of a nest's outermost reduction loop → its rewrite.
    replace: HashMap<VarId, Stmt>,
}

fn tag_of(l: &For) -> Option<&str> {
    match (&l.kind, &l.thread_tag) {
        (ForKind::ThreadBinding, Some(t)) if crate::LAUNCH_TAGS.contains(&t.as_str()) => Some(t),
        _ => None,
    }
}

fn thread_tag_of(l: &For) -> Option<&str> {
    tag_of(l).filter(|t| t.starts_with("threadIdx"))
}

fn var_ids(e: &Expr) -> HashSet<VarId> {
    expr_vars(e).iter().map(|v| v.id()).collect()
}

impl Pass<'_> {
    fn stmt(&mut self, s: &Stmt) -> Result<Stmt> {
        let span = s.span();
        Ok(match s.kind() {
            StmtKind::For(l) => {
                let entered = self.kernel.is_none() && tag_of(l).is_some();
                if entered {
                    self.kernel = Some(kernel_info(s, self.conds));
                }
                self.loops.push(LoopCtx {
                    stmt: s.clone(),
                    l: l.clone(),
                    conds: self.conds,
                });
                let body = self.stmt(&l.body);
                self.loops.pop();
                if entered {
                    self.kernel = None;
                }
                let body = body?;
                if let Some(r) = self.replace.remove(&l.loop_var.id()) {
                    return Ok(r);
                }
                let mut nl = l.clone();
                nl.body = body;
                Stmt::new(StmtKind::For(nl), span)
            }
            StmtKind::BlockRealize(r) => {
                if self.needs_cross_thread(r, span)? {
                    self.plan(r, span)?;
                    return Ok(s.clone());
                }
                let values: Vec<Expr> = r
                    .iter_values
                    .iter()
                    .map(|v| substitute_expr(v, &self.iter_map))
                    .collect();
                for (iv, v) in r.block.iter_vars.iter().zip(&values) {
                    self.iter_map.insert(iv.var.id(), v.clone());
                }
                let guarded = !r.predicate.is_const_int(1);
                self.conds += usize::from(guarded);
                let body = self.stmt(&r.block.body);
                let init = r.block.init.as_ref().map(|i| self.stmt(i)).transpose();
                self.conds -= usize::from(guarded);
                let mut nr = r.clone();
                nr.block.body = body?;
                nr.block.init = init?;
                Stmt::new(StmtKind::BlockRealize(nr), span)
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.conds += 1;
                let then = self.stmt(then);
                let otherwise = otherwise.as_ref().map(|o| self.stmt(o)).transpose();
                self.conds -= 1;
                Stmt::new(
                    StmtKind::If {
                        cond: cond.clone(),
                        then: then?,
                        otherwise: otherwise?,
                    },
                    span,
                )
            }
            StmtKind::Seq(v) => {
                let mut out = Vec::with_capacity(v.len());
                for x in v {
                    out.push(self.stmt(x)?);
                }
                Stmt::new(StmtKind::Seq(out), span)
            }
            StmtKind::Allocate { buffer, body } => Stmt::new(
                StmtKind::Allocate {
                    buffer: buffer.clone(),
                    body: self.stmt(body)?,
                },
                span,
            ),
            StmtKind::Let { var, value, body } => Stmt::new(
                StmtKind::Let {
                    var: var.clone(),
                    value: value.clone(),
                    body: self.stmt(body)?,
                },
                span,
            ),
            StmtKind::Store { .. } | StmtKind::Evaluate(_) => s.clone(),
        })
    }

    /// The variables the block's reduce iterators depend on, in loop terms.
    fn reduce_and_spatial_vars(&self, r: &BlockRealize) -> (HashSet<VarId>, HashSet<VarId>) {
        let mut reduce = HashSet::new();
        let mut spatial = HashSet::new();
        for (iv, v) in r.block.iter_vars.iter().zip(&r.iter_values) {
            let ids = var_ids(&substitute_expr(v, &self.iter_map));
            if iv.kind == IterKind::Reduce {
                reduce.extend(ids);
            } else {
                spatial.extend(ids);
            }
        }
        (reduce, spatial)
    }

    /// Whether a reduce iterator of the block depends on a thread-bound
    /// loop; a reduce loop bound to `blockIdx` is an error.
    fn needs_cross_thread(&self, r: &BlockRealize, span: Span) -> Result<bool> {
        let (reduce, _) = self.reduce_and_spatial_vars(r);
        let mut found = false;
        for lc in &self.loops {
            if !reduce.contains(&lc.l.loop_var.id()) {
                continue;
            }
            match tag_of(&lc.l) {
                Some(t) if t.starts_with("blockIdx") => {
                    return Err(LowerError::new(
                        format!(
                            "block {}: its reduction loop {} is bound to {t}, but workgroups \
                             cannot combine partial results inside one kernel; bind it to \
                             threadIdx.* (a cross-thread reduction) or rfactor it first",
                            r.block.name,
                            lc.l.loop_var.name()
                        ),
                        span,
                    ))
                }
                Some(_) => found = true,
                None => {}
            }
        }
        Ok(found)
    }

    /// Checks one cross-thread reduction and records its rewrite under its
    /// outermost reduction loop: the nest and the update are checked, the
    /// block's iterators and `T.where` are resolved, then each invocation's
    /// partial, the tree and the write-back are built (see the module docs).
    fn plan(&mut self, r: &BlockRealize, span: Span) -> Result<()> {
        let block = &r.block;
        let name = &block.name;
        let refuse = |why: String| {
            LowerError::new(
                format!(
                    "block {name} is a reduction bound to threadIdx (a cross-thread reduction), \
                     but {why}"
                ),
                span,
            )
        };
        let Some(kernel) = &self.kernel else {
            return Err(refuse("it is not inside a kernel".into()));
        };
        let (reduce, spatial) = self.reduce_and_spatial_vars(r);
        let (first, thread_loops) = self
            .check_nest(kernel, name, &reduce, &spatial)
            .map_err(refuse)?;
        let CrossThreadUpdate {
            out,
            value,
            indices,
            init_value,
            reducer,
            rhs,
            identity,
        } = match_cross_thread_update(block).map_err(refuse)?;

        // Substitute the block's iterators by their values.
        let mut map = self.iter_map.clone();
        for (iv, v) in block.iter_vars.iter().zip(&r.iter_values) {
            let v = substitute_expr(v, &self.iter_map);
            map.insert(iv.var.id(), cast(&v, iv.var.dtype()));
        }
        let idx: Vec<Expr> = indices.iter().map(|e| substitute_expr(e, &map)).collect();
        let rhs = substitute_expr(&rhs, &map);
        let (pred, write_guard) = self.split_predicate(r, &reduce).map_err(refuse)?;
        let all_write = writes_back_everywhere(kernel, out, name, &idx, init_value.is_some())
            .map_err(refuse)?;

        // Reduction group: the reduce thread loops (flattened, outer first)
        // and the other thread loops (one group per index).
        let i32t = DataType::i32();
        let mut r_idx = Expr::i32(0);
        let mut group_size = 1i64;
        let mut g_idx = Expr::i32(0);
        let mut groups = 1i64;
        let mut reduce_tags = Vec::new();
        for lc in &thread_loops {
            let n = lc.l.extent.as_int().unwrap_or(1);
            let v = cast(&lc.l.loop_var.to_expr(), i32t);
            if reduce.contains(&lc.l.loop_var.id()) {
                r_idx = add(&mul(&r_idx, n), &v);
                group_size *= n;
                reduce_tags.push(thread_tag_of(&lc.l).unwrap_or_default().to_string());
            } else {
                g_idx = add(&mul(&g_idx, n), &v);
                groups *= n;
            }
        }
        let dt = value.dtype();
        let shared = Buffer::new(
            format!("{}_red_buf", out.name),
            dt,
            vec![Expr::i32(groups * group_size)],
        )
        .derive(|n| n.scope = "shared".to_string());
        let base = mul(&g_idx, group_size);
        let slot = |off: &Expr| vec![add(&base, off)];

        // 1. The invocation's partial.
        let nest = &self.loops[first..];
        let serial: Vec<&LoopCtx> = nest.iter().filter(|lc| tag_of(&lc.l).is_none()).collect();
        let mut body = Vec::new();
        let mut allocs = Vec::new();
        if serial.is_empty() && pred.is_none() {
            body.push(store(&shared, rhs.clone(), slot(&r_idx)));
        } else {
            let local = Buffer::new(format!("{}_red_local", out.name), dt, vec![Expr::i32(1)])
                .derive(|n| n.scope = "local".to_string());
            let acc = Expr::load(&local, vec![Expr::i32(0)]);
            body.push(store(&local, identity.clone(), vec![Expr::i32(0)]));
            let mut step = store(
                &local,
                reducer.combine_one(acc.clone(), rhs),
                vec![Expr::i32(0)],
            );
            if let Some(cond) = pred {
                step = Stmt::new(
                    StmtKind::If {
                        cond,
                        then: step,
                        otherwise: None,
                    },
                    span,
                );
            }
            for lc in serial.iter().rev() {
                let mut l = lc.l.clone();
                l.body = step;
                step = Stmt::new(StmtKind::For(l), lc.stmt.span());
            }
            body.push(step);
            body.push(store(&shared, acc, slot(&r_idx)));
            allocs.push(local);
        }
        // 3. The tree.
        let steps = tree_steps(group_size);
        for (offset, active) in steps {
            let mine = Expr::load(&shared, slot(&r_idx));
            let theirs = Expr::load(&shared, slot(&add(&r_idx, &Expr::i32(offset))));
            body.push(Stmt::new(
                StmtKind::If {
                    cond: Expr::cmp(CmpOp::Lt, r_idx.clone(), Expr::i32(active)),
                    then: store(&shared, reducer.combine_one(mine, theirs), slot(&r_idx)),
                    otherwise: None,
                },
                span,
            ));
        }
        // 4. The write-back.
        let result = Expr::load(&shared, slot(&Expr::i32(0)));
        let result = match init_value {
            Some(_) => result,
            None => reducer.combine_one(Expr::load(out, idx.clone()), result),
        };
        let write = store(out, result, idx);
        let leader = Expr::cmp(CmpOp::Eq, r_idx.clone(), Expr::i32(0));
        let guard = match (all_write, write_guard) {
            (true, g) => g,
            (false, Some(g)) => Some(Expr::and(leader, g)),
            (false, None) => Some(leader),
        };
        body.push(match guard {
            None => write,
            Some(cond) => Stmt::new(
                StmtKind::If {
                    cond,
                    then: write,
                    otherwise: None,
                },
                span,
            ),
        });
        let mut stmt = Stmt::seq(body);
        for b in allocs.into_iter().chain(std::iter::once(shared.clone())) {
            stmt = Stmt::new(
                StmtKind::Allocate {
                    buffer: b,
                    body: stmt,
                },
                span,
            );
        }
        for lc in nest.iter().rev().filter(|lc| tag_of(&lc.l).is_some()) {
            let mut l = lc.l.clone();
            l.body = stmt;
            stmt = Stmt::new(StmtKind::For(l), lc.stmt.span());
        }
        self.report.note(format!(
            "block {name}: cross-thread reduction ({}) over {} ({group_size} invocations per \
             group) through shared buffer {}{}; written back by {}",
            reducer.pattern(),
            reduce_tags.join(", "),
            shared.name,
            if serial.is_empty() {
                String::new()
            } else {
                format!(
                    ", each invocation first accumulating loop{} {} in a register",
                    if serial.len() > 1 { "s" } else { "" },
                    serial
                        .iter()
                        .map(|lc| lc.l.loop_var.name().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            },
            if all_write {
                "every invocation (the kernel reads it again)"
            } else {
                "invocation 0 of each group"
            }
        ));
        self.replace.insert(self.loops[first].l.loop_var.id(), stmt);
        Ok(())
    }

    /// Checks the loops around a cross-thread reduction: from the outermost
    /// reduction loop down they nest perfectly and are reduce or thread
    /// loops, no condition lies inside the kernel around them, and every
    /// `threadIdx` axis of the kernel encloses the block at its kernel-wide
    /// extent. Returns the outermost reduction loop's position and the
    /// thread loops around the block; the error says why not.
    fn check_nest(
        &self,
        kernel: &Kernel,
        name: &str,
        reduce: &HashSet<VarId>,
        spatial: &HashSet<VarId>,
    ) -> std::result::Result<(usize, Vec<&LoopCtx>), String> {
        if let Some(lc) = self.loops.iter().find(|lc| {
            reduce.contains(&lc.l.loop_var.id()) && spatial.contains(&lc.l.loop_var.id())
        }) {
            return Err(format!(
                "loop {} feeds both its spatial and its reduce iterators",
                lc.l.loop_var.name()
            ));
        }
        let Some(first) = self
            .loops
            .iter()
            .position(|lc| reduce.contains(&lc.l.loop_var.id()))
        else {
            return Err("none of its loops is a reduction loop".into());
        };
        // The nest from the outermost reduction loop down must be perfect and
        // hold only reduce loops and thread-bound loops.
        for (j, lc) in self.loops.iter().enumerate().skip(first) {
            let direct = match (self.loops.get(j + 1), lc.l.body.kind()) {
                (Some(next), StmtKind::For(b)) => b.loop_var == next.l.loop_var,
                (None, StmtKind::BlockRealize(b)) => b.block.name == *name,
                _ => false,
            };
            if !direct {
                return Err(format!(
                    "loop {} holds other statements besides the reduction; the loops from the \
                     outermost reduction loop down to the block must nest only each other \
                     (move other work out, e.g. with decompose_reduction or reverse_compute_at)",
                    lc.l.loop_var.name()
                ));
            }
            let is_reduce = reduce.contains(&lc.l.loop_var.id());
            if !is_reduce && thread_tag_of(&lc.l).is_none() {
                return Err(format!(
                    "loop {} lies between its reduction loops without being one; reorder it \
                     outside the reduction loops",
                    lc.l.loop_var.name()
                ));
            }
            if !matches!(
                lc.l.kind,
                ForKind::Serial | ForKind::Unrolled | ForKind::ThreadBinding
            ) {
                return Err(format!(
                    "its reduction loop {} is {:?}; only serial, unrolled and thread-bound \
                     reduction loops are supported",
                    lc.l.loop_var.name(),
                    lc.l.kind
                ));
            }
        }
        if self.loops[first].conds > kernel.conds {
            return Err(
                "it runs under a condition (an `if` or a block's T.where around its loops), \
                 and every invocation of the workgroup must reach its barriers; move the \
                 condition into the reduction block"
                    .into(),
            );
        }
        // Thread loops around the block: every threadIdx axis of the kernel,
        // each at the kernel-wide extent (no invocation may skip the tree).
        let mut thread_loops: Vec<&LoopCtx> = Vec::new();
        for lc in &self.loops {
            if let Some(t) = thread_tag_of(&lc.l) {
                if thread_loops.iter().any(|o| thread_tag_of(&o.l) == Some(t)) {
                    return Err(format!("two loops around it are bound to {t}"));
                }
                let extent = lc.l.extent.as_int();
                let wide = kernel.thread_extents.get(t).copied();
                if extent.is_none() || extent != wide || !lc.l.min.is_const_int(0) {
                    return Err(format!(
                        "its loop {} bound to {t} has extent {} while the kernel launches {} \
                         invocations along {t}; the extra invocations would skip its barriers \
                         (give every loop bound to {t} in this kernel the same extent)",
                        lc.l.loop_var.name(),
                        tessel_tir::ir::printer::print_expr(&lc.l.extent),
                        wide.unwrap_or(0)
                    ));
                }
                thread_loops.push(lc);
            }
        }
        for t in kernel.thread_extents.keys() {
            if !thread_loops.iter().any(|o| thread_tag_of(&o.l) == Some(t)) {
                return Err(format!(
                    "the kernel also launches {t} invocations that do not enclose it; they \
                     would run the same reduction at once (bind a loop around it to {t} or \
                     move it to its own kernel)"
                ));
            }
        }
        Ok((first, thread_loops))
    }

    /// Splits the block's `T.where` (in loop terms): all of it masks the
    /// partials (no out-of-range reads); its conjuncts over other loops also
    /// mask the write-back (the block does not run at all there). Returns
    /// (partials' mask, write-back guard).
    fn split_predicate(
        &self,
        r: &BlockRealize,
        reduce: &HashSet<VarId>,
    ) -> std::result::Result<(Option<Expr>, Option<Expr>), String> {
        let mut pred: Option<Expr> = None;
        let mut write_guard: Option<Expr> = None;
        for c in conjuncts(&substitute_expr(&r.predicate, &self.iter_map)) {
            let vars = var_ids(&c);
            let on_reduce = vars.iter().any(|v| reduce.contains(v));
            let on_other = vars.iter().any(|v| {
                !reduce.contains(v) && self.loops.iter().any(|lc| lc.l.loop_var.id() == *v)
            });
            if on_reduce && on_other {
                let c = tessel_tir::ir::printer::print_expr(&c);
                return Err(format!(
                    "its T.where condition {c} mixes reduction and other loops; split the \
                     loops so that each condition depends on one kind"
                ));
            }
            let and_into = |slot: &mut Option<Expr>, c: Expr| {
                *slot = Some(match slot.take() {
                    Some(p) => Expr::and(p, c),
                    None => c,
                });
            };
            if !on_reduce {
                and_into(&mut write_guard, c.clone());
            }
            and_into(&mut pred, c);
        }
        Ok((pred, write_guard))
    }
}

/// A cross-thread reduction's update: one store, matched to a reducer.
struct CrossThreadUpdate<'b> {
    out: &'b Buffer,
    value: &'b Expr,
    indices: &'b [Expr],
    /// The init's value, when the block has a `T.init()`.
    init_value: Option<Expr>,
    reducer: Reducer,
    /// What the update combines into the element.
    rhs: Expr,
    identity: Expr,
}

/// Matches a cross-thread reduction block's body (and init) to a
/// commutative reducer; the error says why not.
fn match_cross_thread_update(block: &Block) -> std::result::Result<CrossThreadUpdate<'_>, String> {
    if !block.alloc_buffers.is_empty() || !block.match_buffers.is_empty() {
        return Err("it allocates or matches buffers".into());
    }
    let StmtKind::Store {
        buffer: out,
        value,
        indices,
    } = block.body.kind()
    else {
        return Err("its body is not a single buffer store".into());
    };
    let init_value = match &block.init {
        None => None,
        Some(i) => match i.kind() {
            StmtKind::Store {
                buffer: ib,
                value: iv,
                indices: ii,
            } if ib.data == out.data
                && ii.len() == indices.len()
                && ii
                    .iter()
                    .zip(indices)
                    .all(|(a, b)| tessel_tir::arith::expr_deep_equal(a, b)) =>
            {
                Some(iv.clone())
            }
            _ => return Err("its init is not a single store to the element it updates".into()),
        },
    };
    let patterns = || {
        Reducer::ALL
            .iter()
            .filter(|r| r.arity() == 1)
            .map(|r| r.pattern())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (reducer, rhs) = match &init_value {
        Some(init) => match match_single(init, out, indices, value) {
            Some((red, _, rhs)) => (red, rhs),
            None => {
                return Err(format!(
                    "its init and update match no commutative reducer (supported: {})",
                    patterns()
                ))
            }
        },
        None => match match_update(out, indices, value) {
            Some(x) => x,
            None => {
                return Err(format!(
                    "its update matches no commutative reducer (supported: {})",
                    patterns()
                ))
            }
        },
    };
    if reads_buffer(&rhs, out) {
        return Err(format!(
            "its update reads {} besides the accumulated element",
            out.name
        ));
    }
    let Some(identity) = reducer.identity(value.dtype()) else {
        return Err(format!(
            "{} has no identity for {}",
            reducer.pattern(),
            value.dtype()
        ));
    };
    Ok(CrossThreadUpdate {
        out,
        value,
        indices,
        init_value,
        reducer,
        rhs,
        identity,
    })
}

/// Whether every invocation writes the result back (the kernel reads the
/// element again, or it is `local`) rather than invocation 0 of each group;
/// the error says why neither is race-free.
fn writes_back_everywhere(
    kernel: &Kernel,
    out: &Buffer,
    name: &str,
    idx: &[Expr],
    has_init: bool,
) -> std::result::Result<bool, String> {
    let others = accesses_of(&kernel.root, out, name);
    let elsewhere = !others.is_empty();
    let all_write = if out.scope == "local" {
        true
    } else if elsewhere {
        if !has_init {
            return Err(format!(
                "it has no T.init() and the kernel accesses {} elsewhere (an init block \
                     that decompose_reduction made counts too); the old value cannot be read \
                     and written back without a race with those accesses (keep the init in the \
                     block, i.e. bind before decompose_reduction, or move the other accesses to \
                     another kernel)",
                out.name
            ));
        }
        let thread_dependent = |e: &Expr| var_ids(e).iter().any(|v| kernel.thread_vars.contains(v));
        if idx.iter().any(thread_dependent)
            || others.iter().any(|ix| ix.iter().any(thread_dependent))
        {
            return Err(format!(
                "the kernel accesses {} elsewhere at thread-dependent indices, so an \
                     invocation may read an element another one wrote; move that access to \
                     another kernel or cache the result in a local buffer",
                out.name
            ));
        }
        true
    } else {
        false
    };
    Ok(all_write)
}

/// The tree's steps over a group of `group_size` invocations, as (offset,
/// active invocations): a first step folding the part above the largest
/// power of two, then halving.
fn tree_steps(group_size: i64) -> Vec<(i64, i64)> {
    let mut pow = 1i64;
    while pow * 2 <= group_size {
        pow *= 2;
    }
    let mut steps: Vec<(i64, i64)> = Vec::new();
    if pow < group_size {
        steps.push((pow, group_size - pow));
    }
    let mut s = pow / 2;
    while s >= 1 {
        steps.push((s, s));
        s /= 2;
    }
    steps
}

fn kernel_info(root: &Stmt, conds: usize) -> Kernel {
    let mut thread_extents: HashMap<String, i64> = HashMap::new();
    let mut thread_vars = HashSet::new();
    root.walk(&mut |s| {
        if let StmtKind::For(l) = s.kind() {
            if let Some(t) = thread_tag_of(l) {
                thread_vars.insert(l.loop_var.id());
                let n = l.extent.as_int().unwrap_or(0);
                let e = thread_extents.entry(t.to_string()).or_insert(n);
                *e = (*e).max(n);
            }
        }
    });
    Kernel {
        root: root.clone(),
        thread_extents,
        thread_vars,
        conds,
    }
}

fn add(a: &Expr, b: &Expr) -> Expr {
    if a.is_const_int(0) {
        return b.clone();
    }
    if b.is_const_int(0) {
        return a.clone();
    }
    Expr::binary(BinOp::Add, a.clone(), b.clone())
}

fn mul(a: &Expr, n: i64) -> Expr {
    if a.is_const_int(0) || n == 1 {
        return a.clone();
    }
    Expr::binary(BinOp::Mul, a.clone(), Expr::i32(n))
}

fn store(buffer: &Buffer, value: Expr, indices: Vec<Expr>) -> Stmt {
    Stmt::from_kind(StmtKind::Store {
        buffer: buffer.clone(),
        value,
        indices,
    })
}

fn reads_buffer(e: &Expr, b: &Buffer) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if let ExprKind::Load { buffer, .. } = x.kind() {
            found |= buffer.data == b.data;
        }
    });
    found
}

/// The indices (in loop variables) of every access of `b` in `root`
/// outside the block `skip`.
fn accesses_of(root: &Stmt, b: &Buffer, skip: &str) -> Vec<Vec<Expr>> {
    fn rec(
        s: &Stmt,
        b: &Buffer,
        skip: &str,
        map: &mut HashMap<VarId, Expr>,
        out: &mut Vec<Vec<Expr>>,
    ) {
        let mut push = |indices: &[Expr], map: &HashMap<VarId, Expr>| {
            out.push(indices.iter().map(|e| substitute_expr(e, map)).collect())
        };
        match s.kind() {
            StmtKind::BlockRealize(r) => {
                if r.block.name == skip {
                    return;
                }
                for (iv, v) in r.block.iter_vars.iter().zip(&r.iter_values) {
                    let v = substitute_expr(v, map);
                    map.insert(iv.var.id(), v);
                }
                r.predicate.walk(&mut |x| {
                    if let ExprKind::Load { buffer, indices } = x.kind() {
                        if buffer.data == b.data {
                            push(indices, map);
                        }
                    }
                });
            }
            _ => {
                if let StmtKind::Store {
                    buffer, indices, ..
                } = s.kind()
                {
                    if buffer.data == b.data {
                        push(indices, map);
                    }
                }
                s.for_each_expr(|e| {
                    e.walk(&mut |x| {
                        if let ExprKind::Load { buffer, indices } = x.kind() {
                            if buffer.data == b.data {
                                push(indices, map);
                            }
                        }
                    })
                });
            }
        }
        s.for_each_child(|c| rec(c, b, skip, map, out));
    }
    let mut out = Vec::new();
    rec(root, b, skip, &mut HashMap::new(), &mut out);
    out
}

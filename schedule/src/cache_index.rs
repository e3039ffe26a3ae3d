//! `cache_index`: the index computations of a block, precomputed into
//! buffers by stages before it and loaded back where they were computed.
//!
//! Behaviour checked against TVM 0.27 (`CacheIndex`):
//!
//! - **What is cached.** In every store of the block (init included), the
//!   largest *eligible* subexpressions — pure (no buffer loads, no unknown
//!   calls), more than one node, not a ramp or broadcast — are counted, the
//!   store's value and indices together; expressions that simplify to the
//!   same form count as one. One seen fewer than `cse_thresh` times is given
//!   up for its own largest eligible subexpressions, which inherit its count.
//!   Each remaining expression that occurs in a store's value is cached,
//!   largest (most nodes) first, ties in order of appearance.
//! - **Result.** For the `k`-th expression: a buffer `index_var_k` in the
//!   scope block, with one dimension per block iterator the expression uses
//!   (in order of appearance) of that iterator's loop's extent and the
//!   expression's type, in `storage_scope`; a block `index_k` under loops
//!   `ax0, ax1, …` storing the expression over iterators `v0, v1, …`, placed
//!   right before the scope's statement that holds the block; and, in the
//!   block, every subexpression equivalent to it (same simplified form)
//!   replaced by `index_var_k[vi, …]`. The call returns the new blocks.
//! - **Where Tessel differs.** TVM 0.27 leaves the block's `T.reads`
//!   unchanged, so the block loads `index_var_k` without declaring it and
//!   dependence analysis misses the new stages; Tessel adds the reads. TVM
//!   gives the new buffers `strides=(1,)` whatever their rank; Tessel's are
//!   compact row-major (the same layout for one dimension, the only one the
//!   stride describes). TVM fails when exactly one expression is cached (it
//!   builds a one-statement sequence); Tessel caches it. Tessel refuses
//!   what TVM turns into wrong IR: an expression using a variable that is
//!   not an iterator of the block, an iterator not bound to a loop variable
//!   as it is (TVM sizes the stage by pairing iterators with loops one to
//!   one), two iterators bound to the same loop, a loop not starting at 0
//!   (TVM takes only its extent), and block or buffer names `index_k` /
//!   `index_var_k` already taken (a second `cache_index` in TVM reuses them).
//!   Where TVM's hash table decides the order in which under-threshold
//!   expressions are broken up, Tessel takes the order of appearance.

use std::collections::HashMap;

use super::primitives::{param, ParamType as T, Primitive, Returns};
use super::query::{enclosing_block_path, enclosing_loops};
use super::replay::SchedValue;
use super::tree;
use super::*;
use tessel_tir::arith::Analyzer;
use tessel_tir::diag::Span;
use tessel_tir::ir::deep_equal::expr_deep_equal;
use tessel_tir::ir::mutate::{walk_expr, Mutator};

pub(super) const CACHE_INDEX: Primitive = Primitive {
    method: "cache_index",
    aliases: &[],
    kind: "CacheIndex",
    params: &[
        param("block", T::Block),
        param("storage_scope", T::Str).attr(),
        param("cse_thresh", T::Int).or_int(0).attr(),
    ],
    returns: Returns::List,
    traced: true,
    apply: super::primitives::unless_lean(|sch, args| {
        let blocks = sch.cache_index_concrete(
            args.block("block")?,
            &args.string("storage_scope")?,
            args.int("cse_thresh")?,
        )?;
        Ok(SchedValue::rv_list(&blocks))
    }),
    menu: None,
};

const P: &str = "cache_index";

/// TVM's expression size: the number of nodes.
fn complexity(e: &Expr) -> usize {
    let mut n = 0;
    e.walk(&mut |_| n += 1);
    n
}

fn is_leaf(e: &Expr) -> bool {
    matches!(
        e.kind(),
        ExprKind::Var(_) | ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_)
    )
}

/// Pure, more than one node, and not a ramp or broadcast.
fn eligible(e: &Expr) -> bool {
    let mut pure = true;
    e.walk(&mut |x| match x.kind() {
        ExprKind::Load { .. } => pure = false,
        ExprKind::Call {
            op: Intrinsic::Other(_),
            ..
        } => pure = false,
        _ => {}
    });
    pure && complexity(e) > 1 && !matches!(e.kind(), ExprKind::Ramp { .. } | ExprKind::Broadcast(_))
}

/// The largest eligible subexpressions of `e` (itself if eligible).
fn largest_eligible(e: &Expr, out: &mut Vec<Expr>) {
    if is_leaf(e) {
        return;
    }
    if eligible(e) {
        out.push(e.clone());
        return;
    }
    e.for_each_child(|c| largest_eligible(c, out));
}

/// The largest eligible subexpressions below `e` (never `e` itself).
fn direct_subexpressions(e: &Expr) -> Vec<Expr> {
    let mut out = Vec::new();
    e.for_each_child(|c| largest_eligible(c, &mut out));
    out
}

/// An expression with how often it (or an equivalent one) was seen, and its
/// simplified form.
struct Computation {
    expr: Expr,
    normal: Expr,
    count: usize,
}

/// Each store of a statement, in order (a block's init and body included).
fn stores(s: &Stmt, out: &mut Vec<(Expr, Vec<Expr>)>) {
    s.walk(&mut |x| {
        if let StmtKind::Store { value, indices, .. } = x.kind() {
            out.push((value.clone(), indices.clone()));
        }
    });
}

/// The expressions one store contributes, per TVM's rule (module docs).
fn store_computations(
    value: &Expr,
    indices: &[Expr],
    thresh: usize,
    ana: &Analyzer,
) -> Vec<Computation> {
    let mut syntactic: Vec<(Expr, usize)> = Vec::new();
    let mut found = Vec::new();
    largest_eligible(value, &mut found);
    indices.iter().for_each(|i| largest_eligible(i, &mut found));
    for e in found {
        match syntactic.iter_mut().find(|(x, _)| expr_deep_equal(x, &e)) {
            Some((_, n)) => *n += 1,
            None => syntactic.push((e, 1)),
        }
    }
    let mut table: Vec<Computation> = Vec::new();
    for (expr, count) in syntactic {
        let normal = ana.simplify(&expr);
        match table
            .iter_mut()
            .find(|c| expr_deep_equal(&c.normal, &normal))
        {
            Some(c) => c.count += count,
            None => table.push(Computation {
                expr,
                normal,
                count,
            }),
        }
    }
    let mut i = 0;
    while i < table.len() {
        if table[i].count < thresh {
            let inherited = table[i].count;
            for sub in direct_subexpressions(&table[i].expr) {
                let normal = ana.simplify(&sub);
                match table
                    .iter_mut()
                    .find(|c| expr_deep_equal(&c.normal, &normal))
                {
                    Some(c) => c.count += inherited,
                    None => {
                        // Kept sorted by decreasing size after the entries
                        // at least as large.
                        let size = complexity(&sub);
                        let at = table
                            .iter()
                            .position(|c| complexity(&c.expr) < size)
                            .unwrap_or(table.len());
                        table.insert(
                            at,
                            Computation {
                                expr: sub,
                                normal,
                                count: inherited,
                            },
                        );
                    }
                }
            }
        }
        i += 1;
    }
    table.retain(|c| c.count >= thresh);
    table
}

/// Replaces every subexpression equivalent to `target` (top-down) by `with`.
struct ReplaceEquivalent<'a> {
    normal: &'a Expr,
    with: &'a Expr,
    ana: &'a Analyzer,
    replaced: bool,
}

impl Mutator for ReplaceEquivalent<'_> {
    fn expr(&mut self, e: &Expr) -> Expr {
        if !is_leaf(e) && expr_deep_equal(&self.ana.simplify(e), self.normal) {
            self.replaced = true;
            return self.with.clone();
        }
        walk_expr(self, e)
    }
}

impl Schedule {
    /// `sch.cache_index(block, storage_scope, cse_thresh)`: see the module
    /// documentation.
    pub fn cache_index(
        &mut self,
        block: BlockRV,
        storage_scope: &str,
        cse_thresh: i64,
    ) -> Result<Vec<BlockRV>> {
        let args = vec![
            block.into(),
            SchedValue::Str(storage_scope.to_string()),
            SchedValue::Int(cse_thresh),
        ];
        self.apply_traced(
            &CACHE_INDEX,
            super::primitives::Args::typed(&CACHE_INDEX, args),
        )?
        .into_blocks()
    }

    fn cache_index_concrete(
        &mut self,
        block_rv: BlockRV,
        storage_scope: &str,
        cse_thresh: i64,
    ) -> Result<Vec<BlockRV>> {
        let Ok(thresh) = usize::try_from(cse_thresh) else {
            return Err(ScheduleError::invalid_argument(
                P,
                format!("cse_thresh should not be a negative number, got {cse_thresh}"),
            ));
        };
        let (path, realize) = self.resolve_block(P, block_rv)?;
        let body = self.body(P)?;
        let Some(scope_path) = enclosing_block_path(&body, &path) else {
            return Err(
                ScheduleError::block_structure(P, "the block has no scope block above it").at(path),
            );
        };
        let block = &realize.block;
        let ana = Analyzer::new();

        // The expressions to cache, largest first.
        let chosen = chosen_computations(block, thresh, &ana);
        if chosen.is_empty() {
            return Err(ScheduleError::block_structure(
                P,
                format!(
                    "Block `{}` computes no index expression to cache (no pure expression of more \
                     than one node in its stores).",
                    block.name
                ),
            )
            .at(path));
        }
        check_index_names_free(&body, chosen.len())?;

        // The loops the block's iterators are bound to.
        let loops: HashMap<VarId, For> = enclosing_loops(&body, &path)
            .into_iter()
            .map(|(_, l)| (l.loop_var.id(), l))
            .collect();
        let binding: HashMap<VarId, (&IterVar, &Expr)> = block
            .iter_vars
            .iter()
            .zip(&realize.iter_values)
            .map(|(iv, v)| (iv.var.id(), (iv, v)))
            .collect();

        let mut stages = Vec::new();
        let mut buffers = Vec::new();
        let mut new_body = block.body.clone();
        let mut new_init = block.init.clone();
        let mut new_reads = block.reads.clone();
        for (k, c) in chosen.iter().enumerate() {
            let vars = util::vars_in_order(&c.expr);
            let extents = index_stage_extents(c, &vars, &binding, &loops, block, &path)?;
            let (stage, buffer) = build_index_stage(k, c, &vars, extents, storage_scope);
            stages.push(stage);

            let load_indices: Vec<Expr> = vars.iter().map(Var::to_expr).collect();
            let load = Expr::load(&buffer, load_indices.clone());
            let mut rep = ReplaceEquivalent {
                normal: &c.normal,
                with: &load,
                ana: &ana,
                replaced: false,
            };
            new_body = rep.stmt(&new_body);
            new_init = new_init.map(|s| rep.stmt(&s));
            if rep.replaced {
                new_reads.push(util::point_region(&buffer, &load_indices));
            }
            buffers.push(buffer);
        }

        // The block with the loads, then the stages and buffers in the scope.
        let mut new_block = block.clone();
        new_block.body = new_body;
        new_block.init = new_init;
        new_block.reads = new_reads;
        let new_realize = Stmt::from_kind(StmtKind::BlockRealize(BlockRealize {
            block: new_block,
            ..realize.clone()
        }));
        let body = tree::replace(&body, &path, new_realize);
        let body = insert_index_stages(&body, &path, &scope_path, stages, buffers)?;
        self.set_body(P, body)?;
        Ok((0..chosen.len())
            .map(|k| self.new_block_rv(&format!("index_{k}")))
            .collect())
    }
}

/// The computations of the block's stores worth caching, largest first.
fn chosen_computations(block: &Block, thresh: usize, ana: &Analyzer) -> Vec<Computation> {
    let mut all_stores = Vec::new();
    if let Some(init) = &block.init {
        stores(init, &mut all_stores);
    }
    stores(&block.body, &mut all_stores);
    let mut chosen: Vec<Computation> = Vec::new();
    for (value, indices) in &all_stores {
        let table = store_computations(value, indices, thresh, ana);
        // TVM adds them in post-order of the value; a stable sort by size
        // follows, so only the relative order of equal sizes matters.
        let mut order: Vec<usize> = Vec::new();
        post_order(value, &mut |node| {
            if is_leaf(node) {
                return;
            }
            let normal = ana.simplify(node);
            for (k, c) in table.iter().enumerate() {
                if !order.contains(&k) && expr_deep_equal(&normal, &c.normal) {
                    order.push(k);
                }
            }
        });
        for k in order {
            let c = &table[k];
            chosen.push(Computation {
                expr: c.expr.clone(),
                normal: c.normal.clone(),
                count: c.count,
            });
        }
    }
    tessel_ir::sort::by_key(&mut chosen, |c| std::cmp::Reverse(complexity(&c.expr)));
    chosen
}

/// Refuses a function that already has a block or buffer named like one of
/// the `count` stages (`index_k`) or buffers (`index_var_k`).
fn check_index_names_free(body: &Stmt, count: usize) -> Result<()> {
    let taken_names: Vec<String> = {
        let mut names = Vec::new();
        body.walk(&mut |s| {
            if let StmtKind::BlockRealize(r) = s.kind() {
                names.push(r.block.name.clone());
                names.extend(r.block.alloc_buffers.iter().map(|b| b.name.clone()));
            }
        });
        names
    };
    for k in 0..count {
        for name in [format!("index_{k}"), format!("index_var_{k}")] {
            if taken_names.contains(&name) {
                return Err(ScheduleError::unsupported(
                    P,
                    format!(
                        "The function already has a block or buffer named `{name}`; \
                         cache_index names its stages `index_k` and buffers `index_var_k` \
                         (TVM 0.27 would reuse the name)."
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The extents of the index stage for `c`: those of the loops from 0 its
/// iterators `vars` are bound to, one loop per iterator.
fn index_stage_extents(
    c: &Computation,
    vars: &[Var],
    binding: &HashMap<VarId, (&IterVar, &Expr)>,
    loops: &HashMap<VarId, For>,
    block: &Block,
    path: &StmtPath,
) -> Result<Vec<Expr>> {
    let mut extents = Vec::new();
    let mut used_loops: Vec<VarId> = Vec::new();
    for v in vars {
        let Some((_, value)) = binding.get(&v.id()) else {
            return Err(ScheduleError::block_structure(
                P,
                format!(
                    "The expression `{}` uses `{}`, which is not an iterator of block `{}`.",
                    tessel_tir::ir::printer::print_expr(&c.expr),
                    v.name(),
                    block.name
                ),
            )
            .at(path.clone()));
        };
        let l = match value.kind() {
            ExprKind::Var(lv) => loops.get(&lv.id()),
            _ => None,
        };
        let Some(l) = l.filter(|l| l.min.is_const_int(0)) else {
            return Err(ScheduleError::unsupported(
                P,
                format!(
                    "The iterator `{}` of block `{}` is not bound to a loop from 0 as it \
                     is; Tessel sizes the index stage by such loops only (TVM 0.27 pairs \
                     iterators with loops one to one and builds wrong stages otherwise).",
                    v.name(),
                    block.name
                ),
            )
            .at(path.clone()));
        };
        if used_loops.contains(&l.loop_var.id()) {
            return Err(ScheduleError::loop_structure(
                P,
                format!(
                    "Two iterators of block `{}` that `{}` uses are bound to the same loop.",
                    block.name,
                    tessel_tir::ir::printer::print_expr(&c.expr)
                ),
            )
            .at(path.clone()));
        }
        used_loops.push(l.loop_var.id());
        extents.push(l.extent.clone());
    }
    Ok(extents)
}

/// The stage `index_k` computing `c` over `vars` into its buffer
/// `index_var_k`, in loops `ax0, ax1, …` of the given extents.
fn build_index_stage(
    k: usize,
    c: &Computation,
    vars: &[Var],
    extents: Vec<Expr>,
    storage_scope: &str,
) -> (Stmt, Buffer) {
    let mut buffer = Buffer::new(format!("index_var_{k}"), c.expr.dtype(), extents.clone());
    buffer = buffer.derive(|n| n.scope = storage_scope.to_string());
    let loop_vars: Vec<Var> = (0..vars.len())
        .map(|j| Var::new(format!("ax{j}"), DataType::int(32)))
        .collect();
    let block_vars: Vec<Var> = vars
        .iter()
        .enumerate()
        .map(|(j, v)| Var::new(format!("v{j}"), v.dtype()))
        .collect();
    let to_block: HashMap<VarId, Expr> = vars
        .iter()
        .zip(&block_vars)
        .map(|(v, b)| (v.id(), b.to_expr()))
        .collect();
    let stored = tessel_tir::ir::mutate::substitute_expr(&c.expr, &to_block);
    let indices: Vec<Expr> = block_vars.iter().map(Var::to_expr).collect();
    let stage_block = Block {
        name: format!("index_{k}"),
        iter_vars: block_vars
            .iter()
            .zip(&extents)
            .map(|(v, e)| IterVar {
                var: v.clone(),
                dom: Range::new(Expr::int(0, v.dtype()), e.clone()),
                kind: IterKind::Spatial,
            })
            .collect(),
        reads: vec![],
        writes: vec![util::point_region(&buffer, &indices)],
        alloc_buffers: vec![],
        match_buffers: vec![],
        annotations: Annotations::new(),
        init: None,
        body: Stmt::from_kind(StmtKind::Store {
            buffer: buffer.clone(),
            value: stored,
            indices,
        }),
        span: Span::default(),
    };
    let mut stage = util::realize(
        loop_vars.iter().map(Var::to_expr).collect(),
        Expr::bool(true),
        stage_block,
    );
    for (v, e) in loop_vars.iter().zip(&extents).rev() {
        stage = Stmt::from_kind(StmtKind::For(For {
            loop_var: v.clone(),
            min: Expr::int(0, v.dtype()),
            extent: e.clone(),
            kind: ForKind::Serial,
            thread_tag: None,
            annotations: Annotations::new(),
            body: stage,
        }));
    }
    (stage, buffer)
}

/// Puts the stages in the scope block before the statement holding the
/// block at `path`, and the buffers in the scope's allocations.
fn insert_index_stages(
    body: &Stmt,
    path: &StmtPath,
    scope_path: &StmtPath,
    stages: Vec<Stmt>,
    buffers: Vec<Buffer>,
) -> Result<Stmt> {
    let Some(StmtKind::BlockRealize(mut scope)) =
        tree::get(body, scope_path).map(|s| s.kind().clone())
    else {
        return Err(ScheduleError::internal(
            P,
            "internal: the scope block moved",
        ));
    };
    // The scope's statement holding the block: the next step of its path.
    let items = scope.block.body.as_slice().to_vec();
    let step = path.0.get(scope_path.0.len() + 1).copied().unwrap_or(0);
    let at = if matches!(scope.block.body.kind(), StmtKind::Seq(_)) {
        step.min(items.len())
    } else {
        0
    };
    let mut seq = items[..at].to_vec();
    seq.extend(stages);
    seq.extend_from_slice(&items[at..]);
    scope.block.body = Stmt::seq(seq);
    scope.block.alloc_buffers.extend(buffers);
    Ok(tree::replace(
        body,
        scope_path,
        Stmt::from_kind(StmtKind::BlockRealize(scope)),
    ))
}

/// Visits `e`'s nodes children first, left to right.
fn post_order(e: &Expr, f: &mut impl FnMut(&Expr)) {
    e.for_each_child(|c| post_order(c, f));
    f(e);
}

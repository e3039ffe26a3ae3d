//! `blockize`: the subtree under a loop becomes one outer block.
//!
//! TVM's algorithm (`BlockizeImpl`): the bindings of the single block under
//! the loop are divided into the part the loops above the target loop
//! provide (the *outer* space) and the part the loops from it down provide
//! (the *inner* space): `vi = i_0 * 16 + i_1` with `i_1` inside gives the
//! outer iterator `vi_o = i_0` (extent 64) and the inner `vi_i = i_1`
//! (extent 16), and `vi` becomes `vi_o * 16 + vi_i` in the block. The outer
//! block `<name>_o` reads and writes the inner block's regions relaxed over
//! the inner iterators; a reduction's init moves to the outer block as a
//! block `<name>_init` over the inner spatial iterators it uses.

use std::collections::{HashMap, HashSet};

use super::menu::{loop_only_call, MenuArg, MenuEntry, MenuTarget, MenuWhen};
use super::primitives::{param, Args, ParamType as T, Primitive, Returns};
use super::query::enclosing_loops;
use super::replay::SchedValue;
use super::tree::{self, StmtPath};
use super::util::{self, SubstSimplify};
use super::*;
use tessel_tir::arith::{
    detect_iter_map, int_set::eval_interval, Analyzer, IterMap, IterSplit, IterSum, MarkSource,
};
use tessel_tir::ir::mutate::{substitute_expr, substitute_stmt, walk_block};

/// How one binding divides: `binding = outer * inner_extent + inner`.
struct Division {
    outer: Expr,
    outer_extent: i64,
    /// `None` when the inner extent is 1.
    inner: Option<Expr>,
    inner_extent: i64,
}

/// Which loops a sum's splits come from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Outer,
    Inner,
}

pub(super) const BLOCKIZE: Primitive = Primitive {
    method: "blockize",
    aliases: &[],
    kind: "Blockize",
    params: &[
        param("target", T::Any),
        param("preserve_unit_iters", T::Bool).or_bool(true).attr(),
    ],
    returns: Returns::One,
    traced: true,
    apply: |sch, args| match args.value("target")? {
        SchedValue::Rv(Rv::Loop(l)) => {
            let preserve = args.bool("preserve_unit_iters")?;
            Ok(sch.blockize_concrete(LoopRV(l), preserve)?.into())
        }
        SchedValue::List(_) => Err(args.err(
            ScheduleErrorKind::Unsupported,
            "blockize of a list of blocks is not supported yet; blockize the loop above them",
        )),
        other => Err(args.err(
            ScheduleErrorKind::ArgumentType,
            format!(
                "expected a loop (or a list of blocks), got {}",
                super::primitives::describe(&other)
            ),
        )),
    },
    menu: Some(MenuEntry {
        target: MenuTarget::Loop,
        help: "make the loops below a block",
        arg: MenuArg::None,
        when: MenuWhen::Always,
        call: |site, _| loop_only_call("blockize", site),
    }),
};

impl Schedule {
    /// `sch.blockize(target=loop, preserve_unit_iters=True)`: the loops from
    /// `loop` down and the single block under them become the body of a new
    /// block `<name>_o`, whose iterators are the parts of the block's
    /// bindings that the loops above `loop` provide. Returns the new block.
    /// The inner block keeps its name and handles; the loops keep theirs.
    pub fn blockize(&mut self, loop_rv: LoopRV, preserve_unit_iters: bool) -> Result<BlockRV> {
        let args = Args::typed(&BLOCKIZE, vec![loop_rv.into(), preserve_unit_iters.into()]);
        self.apply_traced(&BLOCKIZE, args)?.into_block()
    }

    fn blockize_concrete(&mut self, loop_rv: LoopRV, preserve_unit_iters: bool) -> Result<BlockRV> {
        const P: &str = "blockize";
        let (loop_path, _) = self.resolve_loop(P, loop_rv)?;
        let body = self.body(P)?;
        let outer = blockize_loop(P, &body, &loop_path, preserve_unit_iters)?;
        let name = outer.block.name.clone();
        self.replace_at(
            P,
            &loop_path,
            Stmt::from_kind(StmtKind::BlockRealize(outer)),
        )?;
        Ok(self.new_block_rv(&name))
    }
}

/// The outer block realize that replaces the loop at `loop_path`.
pub(crate) fn blockize_loop(
    primitive: &str,
    body: &Stmt,
    loop_path: &StmtPath,
    preserve_unit_iters: bool,
) -> Result<BlockRealize> {
    let BlockizeTarget {
        target,
        block_path,
        inner_loops,
        realize,
    } = blockize_target(primitive, body, loop_path)?;
    let block = &realize.block;
    let depth = loop_path.0.len();
    let outer_loops: Vec<For> = enclosing_loops(body, &block_path)
        .into_iter()
        .filter(|(p, _)| p.0.len() < depth)
        .map(|(_, l)| l)
        .collect();
    let not_divisible = |why: String| {
        ScheduleError::non_affine_binding(
            primitive,
            format!(
                "the bindings of block `{}` cannot be divided by the loops from `{}` down: {why}",
                block.name,
                target.loop_var.name()
            ),
        )
        .at(block_path.clone())
    };

    // ---- subspace division
    let (divisions, outer_pred, inner_pred) = subspace_division(
        primitive,
        &realize,
        &outer_loops,
        &inner_loops,
        preserve_unit_iters,
        &not_divisible,
    )?;

    // ---- outer and inner iterators (TVM's DeriveBlockBinding)
    let DerivedBindings {
        outer_iters,
        outer_values,
        inner_iters,
        inner_values,
        subst,
    } = derive_block_bindings(block, divisions, preserve_unit_iters);

    // ---- the block with its iterators replaced
    let mut ana = Analyzer::new();
    let mut inner_dom: HashMap<VarId, Range> = HashMap::new();
    for it in &inner_iters {
        ana.bind(&it.var, &it.dom);
        inner_dom.insert(it.var.id(), it.dom.clone());
    }
    let block_subst = walk_block(
        &mut SubstSimplify {
            map: &subst,
            ana: &ana,
        },
        block,
    );

    // ---- the inner block
    let has_outer_reduction =
        block_subst.init.is_some() && outer_iters.iter().any(|iv| iv.kind == IterKind::Reduce);
    let mut inner_block = block_subst.clone();
    inner_block.iter_vars = inner_iters;
    inner_block.init = None;
    if has_outer_reduction {
        let mut reads = block_subst.writes.clone();
        reads.extend(block_subst.reads.iter().cloned());
        inner_block.reads = reads;
    }
    let inner_realize = BlockRealize {
        iter_values: inner_values,
        predicate: inner_pred,
        block: inner_block,
    };

    // ---- the outer block
    let init = block_subst.init.as_ref().map(|init| {
        outer_init(
            init,
            &inner_realize,
            &inner_loops,
            &format!("{}_init", block.name),
        )
    });
    let mut nest = Stmt::from_kind(StmtKind::BlockRealize(inner_realize));
    for l in inner_loops.iter().rev() {
        nest = util::rebuild_loop(l, l.loop_var.clone(), nest);
    }
    let outer_block = Block {
        name: format!("{}_o", block.name),
        iter_vars: outer_iters,
        reads: relax_regions(&block_subst.reads, &inner_dom),
        writes: relax_regions(&block_subst.writes, &inner_dom),
        alloc_buffers: vec![],
        match_buffers: vec![],
        annotations: Annotations::new(),
        init,
        body: nest,
        span: block.span,
    };
    Ok(BlockRealize {
        iter_values: outer_values,
        predicate: outer_pred,
        block: outer_block,
    })
}

/// The loop to blockize, the single block under it and the loops between.
struct BlockizeTarget {
    target: For,
    block_path: StmtPath,
    /// The loops from the target down to the block.
    inner_loops: Vec<For>,
    realize: BlockRealize,
}

/// The structure checks: the loop holds exactly one block, with only loops
/// between them.
fn blockize_target(primitive: &str, body: &Stmt, loop_path: &StmtPath) -> Result<BlockizeTarget> {
    let Some(StmtKind::For(target)) = tree::get(body, loop_path).map(|s| s.kind().clone()) else {
        return Err(ScheduleError::internal(
            primitive,
            "internal: stale loop path",
        ));
    };
    let children = util::child_block_paths(body, loop_path);
    let block_path = match children.as_slice() {
        [only] => only.clone(),
        _ => {
            return Err(ScheduleError::loop_structure(
                primitive,
                format!(
                    "loop `{}` must contain exactly one block, it contains {}",
                    target.loop_var.name(),
                    children.len()
                ),
            )
            .at(loop_path.clone()))
        }
    };
    let chain = tree::chain(body, &block_path);
    let depth = loop_path.0.len();
    if chain.len() != block_path.0.len() + 1 || depth >= block_path.0.len() {
        return Err(ScheduleError::internal(
            primitive,
            "internal: stale block path",
        ));
    }
    let mut inner_loops: Vec<For> = Vec::new();
    for s in &chain[depth..block_path.0.len()] {
        match s.as_for() {
            Some(l) => inner_loops.push(l.clone()),
            None => {
                return Err(ScheduleError::loop_structure(
                    primitive,
                    format!(
                        "only loops may lie between loop `{}` and the block under it",
                        target.loop_var.name()
                    ),
                )
                .at(loop_path.clone()))
            }
        }
    }
    let Some(realize) = chain.last().and_then(|s| s.as_block_realize().cloned()) else {
        return Err(ScheduleError::internal(
            primitive,
            "internal: stale block path",
        ));
    };
    Ok(BlockizeTarget {
        target,
        block_path,
        inner_loops,
        realize,
    })
}

/// Divides each binding of the block into its outer and inner parts, and
/// the predicate into its outer and inner conjuncts.
fn subspace_division(
    primitive: &str,
    realize: &BlockRealize,
    outer_loops: &[For],
    inner_loops: &[For],
    preserve_unit_iters: bool,
    not_divisible: &dyn Fn(String) -> ScheduleError,
) -> Result<(Vec<Division>, Expr, Expr)> {
    let block = &realize.block;
    let inner_ids: HashSet<VarId> = inner_loops.iter().map(|l| l.loop_var.id()).collect();
    let outer_ids: HashSet<VarId> = outer_loops.iter().map(|l| l.loop_var.id()).collect();
    let unit_loops: HashMap<VarId, Expr> = outer_loops
        .iter()
        .chain(inner_loops)
        .filter(|l| l.extent.is_const_int(1))
        .map(|l| (l.loop_var.id(), l.min.clone()))
        .collect();
    let ranges: Vec<(Var, Range)> = outer_loops
        .iter()
        .chain(inner_loops)
        .map(|l| {
            (
                l.loop_var.clone(),
                Range::new(l.min.clone(), l.extent.clone()),
            )
        })
        .collect();
    match detect_iter_map(&realize.iter_values, &ranges, &realize.predicate) {
        Ok(map) => {
            let mut out = Vec::new();
            for (i, (iv, b)) in block.iter_vars.iter().zip(&realize.iter_values).enumerate() {
                let Some(sum) = map.indices.get(i) else {
                    return Err(ScheduleError::internal(primitive, "internal: iter map"));
                };
                out.push(
                    divide(
                        &map,
                        sum,
                        b,
                        iv,
                        &inner_ids,
                        &unit_loops,
                        preserve_unit_iters,
                    )
                    .map_err(|w| not_divisible(format!("`{}`: {w}", iv.var.name())))?,
                );
            }
            let (o, i) = split_predicate(&realize.predicate, &inner_ids, &outer_ids)
                .map_err(not_divisible)?;
            Ok((out, o, i))
        }
        Err(why) => {
            // TVM's trivial division: each binding uses only outer or
            // only inner loops (any expression), without a predicate.
            if !util::is_true(&realize.predicate) {
                return Err(not_divisible(why.message));
            }
            let mut out = Vec::new();
            for (iv, b) in block.iter_vars.iter().zip(&realize.iter_values) {
                let ids = util::var_ids(b);
                let uses_inner = ids.iter().any(|v| inner_ids.contains(v));
                let uses_outer = ids.iter().any(|v| outer_ids.contains(v));
                let Some(extent) = iv.dom.extent.as_int() else {
                    return Err(not_divisible(format!(
                        "`{}` has a symbolic domain",
                        iv.var.name()
                    )));
                };
                let dt = iv.var.dtype();
                out.push(match (uses_outer, uses_inner) {
                    (true, true) => {
                        return Err(not_divisible(format!(
                            "`{}` uses loops on both sides ({why})",
                            iv.var.name()
                        )))
                    }
                    (false, true) => Division {
                        outer: Expr::int(0, dt),
                        outer_extent: 1,
                        inner: Some(b.clone()),
                        inner_extent: extent,
                    },
                    _ => Division {
                        outer: b.clone(),
                        outer_extent: if uses_outer { extent } else { 1 },
                        inner: None,
                        inner_extent: 1,
                    },
                });
            }
            Ok((out, Expr::bool(true), Expr::bool(true)))
        }
    }
}

/// The outer and inner blocks' iterators and bindings, and what each
/// iterator of the original block becomes in them.
struct DerivedBindings {
    outer_iters: Vec<IterVar>,
    outer_values: Vec<Expr>,
    inner_iters: Vec<IterVar>,
    inner_values: Vec<Expr>,
    subst: HashMap<VarId, Expr>,
}

/// TVM's `DeriveBlockBinding`: an outer iterator `<v>_o` per iterator, an
/// inner `<v>_i` per iterator with an inner part.
fn derive_block_bindings(
    block: &Block,
    divisions: Vec<Division>,
    preserve_unit_iters: bool,
) -> DerivedBindings {
    let mut outer_iters = Vec::new();
    let mut outer_values = Vec::new();
    let mut inner_iters = Vec::new();
    let mut inner_values = Vec::new();
    let mut subst: HashMap<VarId, Expr> = HashMap::new();
    for (iv, d) in block.iter_vars.iter().zip(divisions) {
        let dt = iv.var.dtype();
        let ov = Var::new(format!("{}_o", iv.var.name()), dt);
        outer_iters.push(IterVar {
            var: ov.clone(),
            dom: Range::from_extent(Expr::int(d.outer_extent, dt)),
            kind: iv.kind,
        });
        outer_values.push(d.outer);
        let sub = match d.inner {
            None => {
                if d.outer_extent == 1 && !preserve_unit_iters {
                    Expr::int(0, dt)
                } else {
                    ov.to_expr()
                }
            }
            Some(inner) => {
                let inv = Var::new(format!("{}_i", iv.var.name()), dt);
                inner_iters.push(IterVar {
                    var: inv.clone(),
                    dom: Range::from_extent(Expr::int(d.inner_extent, dt)),
                    kind: iv.kind,
                });
                inner_values.push(inner);
                if d.outer_extent == 1 {
                    inv.to_expr()
                } else {
                    Expr::binary(
                        BinOp::Add,
                        Expr::binary(BinOp::Mul, ov.to_expr(), Expr::int(d.inner_extent, dt)),
                        inv.to_expr(),
                    )
                }
            }
        };
        subst.insert(iv.var.id(), sub);
    }
    DerivedBindings {
        outer_iters,
        outer_values,
        inner_iters,
        inner_values,
        subst,
    }
}

/// Divides one binding given its iter-map structure.
fn divide(
    map: &IterMap,
    sum: &IterSum,
    binding: &Expr,
    iv: &IterVar,
    inner_ids: &HashSet<VarId>,
    unit_loops: &HashMap<VarId, Expr>,
    preserve_unit_iters: bool,
) -> std::result::Result<Division, String> {
    let dt = iv.var.dtype();
    // Unit loops are constants to the iter map; keep them in the binding
    // when preserving unit iterators, as TVM does.
    let as_is = |e: &Expr| {
        if preserve_unit_iters {
            e.clone()
        } else {
            Analyzer::new().simplify(&substitute_expr(e, unit_loops))
        }
    };
    if sum.args.is_empty() {
        let uses_inner = util::var_ids(binding).iter().any(|v| inner_ids.contains(v));
        return Ok(Division {
            outer: if uses_inner {
                Expr::int(sum.base, dt)
            } else {
                as_is(binding)
            },
            outer_extent: 1,
            inner: None,
            inner_extent: 1,
        });
    }
    let mut sides = Vec::new();
    for a in &sum.args {
        let mut vars = Vec::new();
        mark_vars(map, a.mark, &mut vars, 0);
        let inner = vars.iter().filter(|v| inner_ids.contains(&v.id())).count();
        sides.push(if inner == vars.len() {
            Side::Inner
        } else if inner == 0 {
            Side::Outer
        } else {
            return Err("it fuses loops from both sides of the target loop".into());
        });
    }
    // Outer terms must be the high part, inner terms the low part.
    let first_inner = sides
        .iter()
        .position(|s| *s == Side::Inner)
        .unwrap_or(sides.len());
    if sides[first_inner..].contains(&Side::Outer) {
        return Err("an outer loop varies faster than an inner one".into());
    }
    let product = |args: &[IterSplit]| {
        args.iter()
            .try_fold(1i64, |acc, a| acc.checked_mul(a.extent))
    };
    let (outer_args, inner_args) = sum.args.split_at(first_inner);
    if inner_args.is_empty() {
        return Ok(Division {
            outer: as_is(binding),
            outer_extent: sum.extent,
            inner: None,
            inner_extent: 1,
        });
    }
    if outer_args.is_empty() {
        // Only unit loops outside: with their iterators preserved, the
        // outer binding is what they contribute (`i0 * 16 + i1` over inner
        // `i1` of extent 16 gives `i0`), as TVM keeps it.
        // The inner binding then leaves those unit loops out (`i1`).
        let (outer, inner) = if preserve_unit_iters {
            let outer_units: HashMap<VarId, Expr> = unit_loops
                .iter()
                .filter(|(v, _)| !inner_ids.contains(v))
                .map(|(v, e)| (*v, e.clone()))
                .collect();
            (
                outer_unit_part(binding, inner_ids, unit_loops, sum.extent, dt),
                Analyzer::new().simplify(&substitute_expr(binding, &outer_units)),
            )
        } else {
            (Expr::int(0, dt), as_is(binding))
        };
        return Ok(Division {
            outer,
            outer_extent: 1,
            inner: Some(inner),
            inner_extent: sum.extent,
        });
    }
    if sum.base != 0 {
        return Err("it has a constant offset".into());
    }
    let inner_extent = product(inner_args).ok_or("overflow")?;
    let outer_extent = product(outer_args).ok_or("overflow")?;
    if inner_extent.checked_mul(outer_extent) != Some(sum.extent) {
        return Err("a predicate bounds it across both sides".into());
    }
    let mut outer_terms = Vec::new();
    for a in outer_args {
        if a.scale % inner_extent != 0 {
            return Err("its outer part is not a multiple of the inner extent".into());
        }
        outer_terms.push(IterSplit {
            scale: a.scale / inner_extent,
            ..a.clone()
        });
    }
    Ok(Division {
        outer: terms_expr(map, &outer_terms, 0, dt, 0),
        outer_extent,
        inner: Some(terms_expr(map, inner_args, 0, dt, 0)),
        inner_extent,
    })
}

/// The terms of `binding` made of outer unit loops only, divided by the
/// inner extent: the outer binding when unit iterators are preserved
/// (`0` when there are none).
fn outer_unit_part(
    binding: &Expr,
    inner_ids: &HashSet<VarId>,
    unit_loops: &HashMap<VarId, Expr>,
    inner_extent: i64,
    dt: DataType,
) -> Expr {
    fn terms(e: &Expr, out: &mut Vec<Expr>) {
        match e.kind() {
            ExprKind::Binary(BinOp::Add, a, b) => {
                terms(a, out);
                terms(b, out);
            }
            _ => out.push(e.clone()),
        }
    }
    let mut all = Vec::new();
    terms(binding, &mut all);
    let outer: Vec<Expr> = all
        .into_iter()
        .filter(|t| {
            let ids = util::var_ids(t);
            !ids.is_empty()
                && ids
                    .iter()
                    .all(|v| unit_loops.contains_key(v) && !inner_ids.contains(v))
        })
        .collect();
    let Some(sum) = outer
        .into_iter()
        .reduce(|a, b| Expr::binary(BinOp::Add, a, b))
    else {
        return Expr::int(0, dt);
    };
    let divided = if inner_extent == 1 {
        sum
    } else {
        Expr::binary(BinOp::FloorDiv, sum, Expr::int(inner_extent, dt))
    };
    Analyzer::new().simplify(&divided)
}

fn mark_vars(map: &IterMap, mark: usize, out: &mut Vec<Var>, depth: u32) {
    if depth > 64 {
        return;
    }
    match map.marks.get(mark).map(|m| &m.source) {
        Some(MarkSource::Var(v)) => out.push(v.clone()),
        Some(MarkSource::Fused(s)) => {
            for a in &s.args {
                mark_vars(map, a.mark, out, depth + 1);
            }
        }
        None => {}
    }
}

/// `sum(terms) + base` as an expression (TVM's `NormalizeIterMapToExpr`).
fn terms_expr(map: &IterMap, terms: &[IterSplit], base: i64, dt: DataType, depth: u32) -> Expr {
    let mut acc: Option<Expr> = None;
    for t in terms {
        let e = split_expr(map, t, dt, depth);
        acc = Some(match acc {
            None => e,
            Some(a) => Expr::binary(BinOp::Add, a, e),
        });
    }
    match (acc, base) {
        (None, b) => Expr::int(b, dt),
        (Some(a), 0) => a,
        (Some(a), b) => Expr::binary(BinOp::Add, a, Expr::int(b, dt)),
    }
}

fn split_expr(map: &IterMap, t: &IterSplit, dt: DataType, depth: u32) -> Expr {
    let Some(mark) = map.marks.get(t.mark) else {
        return Expr::int(0, dt);
    };
    let mut e = match &mark.source {
        MarkSource::Var(v) => v.to_expr(),
        MarkSource::Fused(s) if depth < 64 => terms_expr(map, &s.args, s.base, dt, depth + 1),
        MarkSource::Fused(_) => Expr::int(0, dt),
    };
    if t.lower_factor != 1 {
        e = Expr::binary(BinOp::FloorDiv, e, Expr::int(t.lower_factor, dt));
    }
    if t.lower_factor.checked_mul(t.extent) != Some(mark.extent) {
        e = Expr::binary(BinOp::FloorMod, e, Expr::int(t.extent, dt));
    }
    if t.scale != 1 {
        e = Expr::binary(BinOp::Mul, e, Expr::int(t.scale, dt));
    }
    e
}

/// Splits a predicate's conjuncts into those over outer loops and those
/// over inner loops.
fn split_predicate(
    pred: &Expr,
    inner_ids: &HashSet<VarId>,
    outer_ids: &HashSet<VarId>,
) -> std::result::Result<(Expr, Expr), String> {
    let mut outer: Vec<Expr> = Vec::new();
    let mut inner: Vec<Expr> = Vec::new();
    for c in super::reduction::conjuncts(pred) {
        let ids = util::var_ids(&c);
        let i = ids.iter().any(|v| inner_ids.contains(v));
        let o = ids.iter().any(|v| outer_ids.contains(v));
        match (o, i) {
            (true, true) => {
                return Err(format!(
                    "the predicate `{}` mixes loops from both sides",
                    tessel_tir::ir::printer::print_expr(&c)
                ))
            }
            (false, true) => inner.push(c),
            _ => outer.push(c),
        }
    }
    let join = |v: Vec<Expr>| {
        v.into_iter()
            .reduce(Expr::and)
            .unwrap_or_else(|| Expr::bool(true))
    };
    Ok((join(outer), join(inner)))
}

/// TVM's `EvalSetRegions`: each region relaxed over `dom`; a dimension that
/// cannot be bounded covers the whole buffer.
pub(crate) fn relax_regions(
    regions: &[BufferRegion],
    dom: &HashMap<VarId, Range>,
) -> Vec<BufferRegion> {
    let ana = Analyzer::new();
    regions
        .iter()
        .map(|r| BufferRegion {
            buffer: r.buffer.clone(),
            region: r
                .region
                .iter()
                .enumerate()
                .map(|(d, range)| {
                    let dt = range.min.dtype();
                    let last = Expr::binary(
                        BinOp::Sub,
                        Expr::binary(BinOp::Add, range.min.clone(), range.extent.clone()),
                        Expr::int(1, dt),
                    );
                    let bounds =
                        eval_interval(&ana, &range.min, dom).zip(eval_interval(&ana, &last, dom));
                    match bounds {
                        Some(((lo, _), (_, hi))) => {
                            let extent = ana.simplify(&Expr::binary(
                                BinOp::Add,
                                Expr::binary(BinOp::Sub, hi, lo.clone()),
                                Expr::int(1, dt),
                            ));
                            Range::new(lo, extent)
                        }
                        None => r
                            .buffer
                            .shape
                            .get(d)
                            .map(|s| Range::from_extent(s.clone()))
                            .unwrap_or_else(|| range.clone()),
                    }
                })
                .collect(),
        })
        .collect()
}

/// TVM's `GenerateOuterInit`: the init of the outer block, a block over the
/// inner spatial iterators the init uses, under copies of the inner loops
/// its bindings use (with the part of the inner predicate over those loops).
fn outer_init(init: &Stmt, inner: &BlockRealize, loops: &[For], name: &str) -> Stmt {
    let mut subst: HashMap<VarId, Expr> = HashMap::new();
    let mut iter_vars = Vec::new();
    let mut iter_values = Vec::new();
    let uses = |v: &Var| {
        let mut found = false;
        init.walk(&mut |s| s.for_each_expr(|e| found |= e.uses_var(v)));
        found
    };
    for (iv, value) in inner.block.iter_vars.iter().zip(&inner.iter_values) {
        if iv.kind == IterKind::Spatial && uses(&iv.var) {
            let nv = Var::new(format!("{}_init", iv.var.name()), iv.var.dtype());
            subst.insert(iv.var.id(), nv.to_expr());
            iter_vars.push(IterVar {
                var: nv,
                dom: iv.dom.clone(),
                kind: iv.kind,
            });
            iter_values.push(value.clone());
        }
    }
    let block = Block {
        name: name.to_string(),
        iter_vars,
        reads: vec![],
        writes: inner.block.writes.clone(),
        alloc_buffers: vec![],
        match_buffers: vec![],
        annotations: Annotations::new(),
        init: None,
        body: init.clone(),
        span: inner.block.span,
    };
    let copied: Vec<&For> = loops
        .iter()
        .filter(|l| iter_values.iter().any(|v| v.uses_var(&l.loop_var)))
        .collect();
    // Unlike TVM, which keeps the inner predicate whole and leaves the
    // variables of loops it does not copy undefined, keep only the
    // conjuncts over copied loops (as decompose_reduction does).
    let dropped: HashSet<VarId> = loops
        .iter()
        .filter(|l| !copied.iter().any(|c| c.loop_var == l.loop_var))
        .map(|l| l.loop_var.id())
        .collect();
    let predicate = super::reduction::conjuncts(&inner.predicate)
        .into_iter()
        .filter(|c| util::var_ids(c).is_disjoint(&dropped))
        .reduce(Expr::and)
        .unwrap_or_else(|| Expr::bool(true));
    let mut stmt = util::realize(iter_values, predicate, block);
    for l in copied.into_iter().rev() {
        let nv = l.loop_var.fresh_copy();
        subst.insert(l.loop_var.id(), nv.to_expr());
        stmt = util::rebuild_loop(l, nv, stmt);
    }
    substitute_stmt(&stmt, &subst)
}

//! Cache stages: `cache_read`, `cache_write` and `cache_inplace`.
//!
//! Both primitives add a copy block between a buffer and the blocks that use
//! it, through a new buffer in another storage scope, exactly as TVM 0.27
//! does (every rule below was checked against it):
//!
//! - **Names.** The cache buffer and the copy block are both named
//!   `<buffer>_<scope>` with the scope string verbatim (`A_shared`,
//!   `A_global.A_reg`; the printer turns the dots of the buffer's name into
//!   underscores). TVM does not make these names unique; neither does Tessel.
//! - **Scope strings.** Valid when empty or starting with `global`,
//!   `shared`, `warp`, `local`, `wmma.matrix_a`, `wmma.matrix_b`,
//!   `wmma.accumulator`, `metal.simdgroup` or `texture` (TVM's
//!   `StorageScope::Create`, a prefix test: `globalx` is accepted).
//! - **Region.** The cache covers one rectangular region and has its extents
//!   as shape. `cache_read` of a buffer that no block in the scope writes:
//!   the scope block's read region of it (the whole buffer at the root);
//!   otherwise the producer's write region, relaxed over the loops between
//!   the producer and the insertion point. `cache_write`: the block's write
//!   region relaxed the same way. Accesses that are rewritten get the
//!   region's minimum subtracted and are simplified (`B[vi + 10]` with a
//!   cache starting at 8 becomes `B_shared[vi + 2]`); the copy block reads
//!   `B[8 + v0]` (minimum first, not simplified).
//! - **Placement.** `cache_read` of an input of the scope goes first in the
//!   scope; otherwise (and for `cache_write`) right after the producer,
//!   before the first related consumer, in the innermost loop or block body
//!   holding both (TVM's `CacheLocDetector`); with no consumer, at the end
//!   of the scope. The cache buffer is appended to the scope block's
//!   allocations.
//! - **Rewriting.** `cache_read` rewrites every block of the scope that reads
//!   the buffer (or only `consumer_blocks`), except blocks that write it;
//!   `cache_write` rewrites the block (and blocks nested in it) plus the
//!   listed `consumer_blocks`, which then read the cache.
//! - **Legality.** The scope string must be valid (checked first), the index
//!   in range, the buffer written by at most one block of the scope, and for
//!   `cache_read` the scope must be a *stage pipeline*: every consumer's read
//!   region covered by what its producers write (checked with TVM's
//!   estimates: a strided write such as `B[2 * vi]` covers nothing).

use std::collections::{HashMap, HashSet};

use super::layout::buffer_index_arg;
use super::menu::{MenuArg, MenuEntry, MenuSite, MenuTarget, MenuWhen};
use super::primitives::{param, Args, Param, ParamType as T, Primitive, Returns};
use super::query::enclosing_loops;
use super::replay::SchedValue;
use super::tree::{self, StmtPath};
use super::*;
use crate::arith::int_set::eval_interval;
use crate::arith::{expr_deep_equal, Analyzer};
use crate::ir::mutate::{substitute_expr, walk_block, walk_expr, walk_stmt, Mutator};

/// The prefixes TVM's `StorageScope::Create` accepts.
const SCOPE_PREFIXES: [&str; 9] = [
    "global",
    "shared",
    "warp",
    "local",
    "wmma.matrix_a",
    "wmma.matrix_b",
    "wmma.accumulator",
    "metal.simdgroup",
    "texture",
];

/// Whether TVM accepts `scope` as a storage scope.
pub fn is_valid_storage_scope(scope: &str) -> bool {
    scope.is_empty() || SCOPE_PREFIXES.iter().any(|p| scope.starts_with(p))
}

pub(crate) fn check_storage_scope(primitive: &str, scope: &str) -> Result<()> {
    if is_valid_storage_scope(scope) {
        return Ok(());
    }
    Err(ScheduleError::new(
        primitive,
        format!(
            "The input storage scope \"{scope}\" is invalid. A storage scope is `global`, `shared`, \
             `shared.dyn`, `local`, `warp` or one of these with a tag (`global.A_reg`)."
        ),
    ))
}

/// Read or write regions, as `buffer_index_type` names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferIndexType {
    Read,
    Write,
}

impl BufferIndexType {
    pub fn name(self) -> &'static str {
        match self {
            BufferIndexType::Read => "read",
            BufferIndexType::Write => "write",
        }
    }
    pub fn parse(s: &str) -> Option<BufferIndexType> {
        match s {
            "read" => Some(BufferIndexType::Read),
            "write" => Some(BufferIndexType::Write),
            _ => None,
        }
    }
}

/// The buffer of a block's `index`-th read or write region (TVM's
/// `GetNthAccessBuffer`, with its message).
pub(crate) fn nth_access_buffer(
    primitive: &str,
    block: &Block,
    index: i64,
    kind: BufferIndexType,
    path: &StmtPath,
) -> Result<Buffer> {
    let regions = match kind {
        BufferIndexType::Read => &block.reads,
        BufferIndexType::Write => &block.writes,
    };
    let n = regions.len();
    if index < 0 || index as usize >= n {
        return Err(ScheduleError::new(
            primitive,
            format!(
                "The block `{}` has {n} {} regions, so `buffer_index` is required to be in [0, {n}). \
                 However, the input `buffer_index` is {index}, which is out of the expected range.",
                block.name,
                kind.name()
            ),
        )
        .at(path.clone()));
    }
    Ok(regions[index as usize].buffer.clone())
}

/// A block directly under a scope, with its path.
#[derive(Clone)]
pub(crate) struct ChildBlock {
    pub path: StmtPath,
    pub realize: BlockRealize,
}

/// The blocks directly under the block at `scope` (not inside those), in
/// program order, with their paths.
pub(crate) fn child_blocks(body: &Stmt, scope: &StmtPath) -> Vec<ChildBlock> {
    fn go(s: &Stmt, path: &mut Vec<usize>, out: &mut Vec<ChildBlock>) {
        if let StmtKind::BlockRealize(r) = s.kind() {
            out.push(ChildBlock {
                path: StmtPath(path.clone()),
                realize: r.clone(),
            });
            return;
        }
        for (i, c) in tree::children(s).iter().enumerate() {
            path.push(i);
            go(c, path, out);
            path.pop();
        }
    }
    let mut out = Vec::new();
    let Some(StmtKind::BlockRealize(r)) = tree::get(body, scope).map(|s| s.kind().clone()) else {
        return out;
    };
    let mut path = scope.0.clone();
    // The scope's body is child 0; its init (child 1) holds no scheduled blocks.
    path.push(0);
    go(&r.block.body, &mut path, &mut out);
    out
}

/// `e` with the block's iterators replaced by their bindings.
fn unbind(e: &Expr, realize: &BlockRealize) -> Expr {
    let map: HashMap<VarId, Expr> = realize
        .block
        .iter_vars
        .iter()
        .zip(&realize.iter_values)
        .map(|(iv, v)| (iv.var.id(), v.clone()))
        .collect();
    substitute_expr(e, &map)
}

/// The loops above `path` (below its block) that lie strictly inside the
/// statement at `limit` (every one when `limit` is the scope block).
pub(super) fn loops_below(body: &Stmt, path: &StmtPath, limit: &StmtPath) -> Vec<(StmtPath, For)> {
    enclosing_loops(body, path)
        .into_iter()
        .filter(|(p, _)| limit.is_prefix_of(p) && p.0.len() > limit.0.len())
        .collect()
}

/// The loops above `path` (below its block) that enclose `limit` or are it.
pub(super) fn loops_outside(
    body: &Stmt,
    path: &StmtPath,
    limit: &StmtPath,
) -> Vec<(StmtPath, For)> {
    enclosing_loops(body, path)
        .into_iter()
        .filter(|(p, _)| p.is_prefix_of(limit))
        .collect()
}

pub(super) fn analyzer_for(loops: &[(StmtPath, For)]) -> Analyzer {
    let mut ana = Analyzer::new();
    for (_, l) in loops {
        ana.bind(&l.loop_var, &Range::new(l.min.clone(), l.extent.clone()));
    }
    ana
}

fn conjuncts(e: &Expr) -> Vec<Expr> {
    super::reduction::conjuncts(e)
}

/// Tightens the inclusive upper bound `hi` of `index` with predicate
/// conjuncts `x < c` / `x <= c` where `index - x` is a constant.
fn narrow_by_predicate(ana: &Analyzer, index: &Expr, hi: Expr, predicate: &Expr) -> Expr {
    let mut hi = hi;
    for c in conjuncts(predicate) {
        let (x, bound) = match c.kind() {
            ExprKind::Cmp(CmpOp::Lt, a, b) => match b.as_int() {
                Some(v) => (a, v.saturating_sub(1)),
                None => continue,
            },
            ExprKind::Cmp(CmpOp::Le, a, b) => match b.as_int() {
                Some(v) => (a, v),
                None => continue,
            },
            _ => continue,
        };
        if x.dtype() != index.dtype() {
            continue;
        }
        let diff = ana.simplify(&Expr::binary(BinOp::Sub, index.clone(), x.clone()));
        let (Some(k), Some(h)) = (diff.as_int(), hi.as_int()) else {
            continue;
        };
        let limit = bound.saturating_add(k);
        if limit < h {
            hi = Expr::int(limit, index.dtype());
        }
    }
    hi
}

/// The symbolic inclusive bounds `[lo, hi]` of region dimension `r` when the
/// loops in `relax` range over their domains (TVM's upper-bound estimate).
fn upper_bound_dim(
    ana: &Analyzer,
    r: &Range,
    relax: &HashMap<VarId, Range>,
    predicate: &Expr,
) -> Option<(Expr, Expr)> {
    let last = ana.simplify(&Expr::binary(
        BinOp::Sub,
        Expr::binary(BinOp::Add, r.min.clone(), r.extent.clone()),
        Expr::int(1, r.min.dtype()),
    ));
    let (lo, _) = eval_interval(ana, &r.min, relax)?;
    let (_, hi) = eval_interval(ana, &last, relax)?;
    let hi = if r.extent.is_const_int(1) {
        narrow_by_predicate(ana, &r.min, hi, predicate)
    } else {
        hi
    };
    Some((lo, hi))
}

/// Like [`upper_bound_dim`], but only when every value between the bounds
/// is certainly accessed (TVM's lower-bound estimate): the index must be a
/// dense mixed-radix combination of the relaxed loops (`i * 16 + j`,
/// `i // 2`, `i % 32`), not a strided one (`2 * i`).
fn lower_bound_dim(
    ana: &Analyzer,
    r: &Range,
    relax: &HashMap<VarId, Range>,
    predicate: &Expr,
) -> Option<(Expr, Expr)> {
    let dt = r.min.dtype();
    let mut dom = relax.clone();
    let index = match r.extent.as_int() {
        Some(1) => r.min.clone(),
        Some(k) if k > 1 => {
            let t = Var::new("t", dt);
            dom.insert(t.id(), Range::from_extent(Expr::int(k, dt)));
            Expr::binary(BinOp::Add, r.min.clone(), t.to_expr())
        }
        _ => return None,
    };
    let index = ana.simplify(&index);
    if !is_dense(ana, &index, &dom) {
        return None;
    }
    let (lo, hi) = eval_interval(ana, &index, &dom)?;
    Some((lo, narrow_by_predicate(ana, &index, hi, predicate)))
}

/// Whether `e` takes every integer value between its bounds as the
/// variables of `dom` range over their domains (a sufficient test).
fn is_dense(ana: &Analyzer, e: &Expr, dom: &HashMap<VarId, Range>) -> bool {
    let mut terms: Vec<(Expr, i64)> = Vec::new();
    if !linear_terms(e, 1, dom, &mut terms) {
        return false;
    }
    // Merge equal atoms.
    let mut merged: Vec<(Expr, i64)> = Vec::new();
    for (atom, c) in terms {
        match merged.iter_mut().find(|(a, _)| expr_deep_equal(a, &atom)) {
            Some(slot) => slot.1 = slot.1.saturating_add(c),
            None => merged.push((atom, c)),
        }
    }
    // (|coefficient|, number of values - 1; `None` when symbolic)
    let mut spans: Vec<(i64, Option<i64>)> = Vec::new();
    for (atom, c) in merged {
        if c == 0 {
            continue;
        }
        let Some((lo, hi)) = eval_interval(ana, &atom, dom) else {
            return false;
        };
        let span = match (lo.as_int(), hi.as_int()) {
            (Some(lo), Some(hi)) => Some(hi.saturating_sub(lo)),
            _ => None,
        };
        if span.is_some_and(|s| s < 0) {
            return false;
        }
        if span != Some(0) {
            spans.push((c.saturating_abs(), span));
        }
    }
    tessel_ir::sort::ascending(&mut spans);
    // The values covered so far span [0, reach]; a symbolic span may only
    // come last (nothing is known about the gaps after it).
    let mut reach: Option<i64> = Some(0);
    for (c, span) in spans {
        let Some(r) = reach else {
            return false;
        };
        if c > r.saturating_add(1) {
            return false;
        }
        reach = span.map(|s| r.saturating_add(c.saturating_mul(s)));
    }
    true
}

/// Splits `e * scale` into `(atom, coefficient)` terms over the variables of
/// `dom`; parts not using them are dropped (they only shift the interval).
fn linear_terms(
    e: &Expr,
    scale: i64,
    dom: &HashMap<VarId, Range>,
    out: &mut Vec<(Expr, i64)>,
) -> bool {
    let uses = {
        let mut found = false;
        e.walk(&mut |x| {
            if let ExprKind::Var(v) = x.kind() {
                found |= dom.contains_key(&v.id());
            }
        });
        found
    };
    if !uses {
        return true;
    }
    match e.kind() {
        ExprKind::Binary(BinOp::Add, a, b) => {
            linear_terms(a, scale, dom, out) && linear_terms(b, scale, dom, out)
        }
        ExprKind::Binary(BinOp::Sub, a, b) => {
            linear_terms(a, scale, dom, out) && linear_terms(b, scale.saturating_neg(), dom, out)
        }
        ExprKind::Binary(BinOp::Mul, a, b) => match (a.as_int(), b.as_int()) {
            (_, Some(c)) => linear_terms(a, scale.saturating_mul(c), dom, out),
            (Some(c), _) => linear_terms(b, scale.saturating_mul(c), dom, out),
            _ => false,
        },
        ExprKind::Cast(a) => linear_terms(a, scale, dom, out),
        ExprKind::Var(_) | ExprKind::Binary(BinOp::FloorDiv | BinOp::FloorMod, _, _) => {
            out.push((e.clone(), scale));
            true
        }
        _ => false,
    }
}

/// The predicates under which blocks nested in `block` access `buffer`
/// (reads or writes by their regions), each in `block`'s iterators (one
/// level of bindings substituted), joined by `or`: sibling blocks each cover
/// their part. `None` when no nested block accesses it (TVM's
/// `CollectNestedBlockPredicates`).
fn nested_access_predicate(block: &Block, buffer: &Buffer, reads: bool) -> Option<Expr> {
    let mut found: Option<Expr> = None;
    block.body.walk(&mut |s| {
        if let StmtKind::BlockRealize(r) = s.kind() {
            let regions = if reads {
                &r.block.reads
            } else {
                &r.block.writes
            };
            if regions.iter().any(|x| x.buffer == *buffer) {
                let pred = unbind(&r.predicate, r);
                found = Some(match found.take() {
                    Some(p) => Expr::or(p, pred),
                    None => pred,
                });
            }
        }
    });
    found
}

/// `region` (in the block's iterators) relaxed over `relax_loops`, TVM's
/// `RelaxBufferRegion`: each dimension's upper-bound estimate under the
/// block's predicate and `extra` (a nested block's), the whole dimension
/// when it cannot be bounded.
fn relax_region(
    realize: &BlockRealize,
    region: &BufferRegion,
    relax_loops: &[(StmtPath, For)],
    outer: &Analyzer,
    extra: Option<&Expr>,
) -> Vec<Range> {
    let relax: HashMap<VarId, Range> = relax_loops
        .iter()
        .map(|(_, l)| (l.loop_var.id(), Range::new(l.min.clone(), l.extent.clone())))
        .collect();
    let predicate = match extra {
        Some(e) => unbind(&Expr::and(realize.predicate.clone(), e.clone()), realize),
        None => unbind(&realize.predicate, realize),
    };
    region
        .region
        .iter()
        .zip(&region.buffer.shape)
        .map(|(r, extent)| {
            let r = Range::new(unbind(&r.min, realize), unbind(&r.extent, realize));
            match upper_bound_dim(outer, &r, &relax, &predicate) {
                Some((lo, hi)) if lo.dtype() == hi.dtype() => {
                    let ext = outer.simplify(&Expr::binary(
                        BinOp::Add,
                        Expr::binary(BinOp::Sub, hi, lo.clone()),
                        Expr::int(1, lo.dtype()),
                    ));
                    Range::new(lo, ext)
                }
                _ => Range::from_extent(extent.clone()),
            }
        })
        .collect()
}

/// RAW dependencies of a scope's children (TVM's `BlockScope`): `raw[i]`
/// lists the earlier children writing a buffer child `i` reads.
struct Deps {
    raw: Vec<Vec<usize>>,
}

fn dependencies(children: &[ChildBlock]) -> Deps {
    let mut writers: HashMap<BufferId, Vec<usize>> = HashMap::new();
    let mut raw = vec![Vec::new(); children.len()];
    for (i, c) in children.iter().enumerate() {
        let b = &c.realize.block;
        for w in &b.writes {
            writers.entry(w.buffer.id()).or_default().push(i);
        }
        for r in &b.reads {
            for &w in writers.get(&r.buffer.id()).into_iter().flatten() {
                if w != i && !raw[i].contains(&w) {
                    raw[i].push(w);
                }
            }
        }
    }
    Deps { raw }
}

/// The deepest loop (or the scope) enclosing both paths.
fn lca_path(body: &Stmt, scope: &StmtPath, a: &StmtPath, b: &StmtPath) -> StmtPath {
    let common: Vec<usize> =
        a.0.iter()
            .zip(&b.0)
            .take_while(|(x, y)| x == y)
            .map(|(x, _)| *x)
            .collect();
    let mut best = scope.clone();
    for (p, _) in enclosing_loops(body, a) {
        if p.0.len() <= common.len() && p.0[..] == common[..p.0.len()] && p.0.len() > best.0.len() {
            best = p;
        }
    }
    best
}

/// TVM's stage-pipeline property of the scope at `scope_path`: every
/// consumer's read region covered by what its producers write (blocks that
/// overwrite what an earlier one read do not matter: TVM 0.27 accepts them).
/// `Err` names the offending pair.
pub(super) fn check_stage_pipeline(
    primitive: &str,
    body: &Stmt,
    scope_path: &StmtPath,
    scope_name: &str,
) -> Result<()> {
    let children = child_blocks(body, scope_path);
    let deps = dependencies(&children);
    let not_pipeline = |detail: String| {
        ScheduleError::new(
            primitive,
            format!(
                "The scope `{scope_name}` is not a stage pipeline: its region cover is not complete \
                 (the region cover property must hold for every one of its child blocks). {detail}"
            ),
        )
        .at(scope_path.clone())
    };
    for (ci, consumer) in children.iter().enumerate() {
        if deps.raw[ci].is_empty() {
            continue;
        }
        // Producers grouped by their lowest common ancestor with the consumer.
        let mut groups: Vec<(StmtPath, Vec<usize>)> = Vec::new();
        for &pi in &deps.raw[ci] {
            let lca = lca_path(body, scope_path, &consumer.path, &children[pi].path);
            match groups.iter_mut().find(|(p, _)| *p == lca) {
                Some(g) => g.1.push(pi),
                None => groups.push((lca, vec![pi])),
            }
        }
        for (lca, producers) in groups {
            let ana = analyzer_for(&loops_outside(body, &consumer.path, &lca));
            for read in &consumer.realize.block.reads {
                // What the producers at this level write of the buffer.
                let mut produced: Vec<Vec<Option<(Expr, Expr)>>> = Vec::new();
                for &pi in &producers {
                    let p = &children[pi];
                    let relax: HashMap<VarId, Range> = loops_below(body, &p.path, &lca)
                        .iter()
                        .map(|(_, l)| {
                            (l.loop_var.id(), Range::new(l.min.clone(), l.extent.clone()))
                        })
                        .collect();
                    let pred = unbind(&p.realize.predicate, &p.realize);
                    for w in p
                        .realize
                        .block
                        .writes
                        .iter()
                        .filter(|w| w.buffer == read.buffer)
                    {
                        produced.push(
                            w.region
                                .iter()
                                .map(|r| {
                                    let r = Range::new(
                                        unbind(&r.min, &p.realize),
                                        unbind(&r.extent, &p.realize),
                                    );
                                    lower_bound_dim(&ana, &r, &relax, &pred)
                                })
                                .collect(),
                        );
                    }
                }
                if produced.is_empty() {
                    continue;
                }
                let relax: HashMap<VarId, Range> = loops_below(body, &consumer.path, &lca)
                    .iter()
                    .map(|(_, l)| (l.loop_var.id(), Range::new(l.min.clone(), l.extent.clone())))
                    .collect();
                let pred = unbind(&consumer.realize.predicate, &consumer.realize);
                for (d, r) in read.region.iter().enumerate() {
                    let r = Range::new(
                        unbind(&r.min, &consumer.realize),
                        unbind(&r.extent, &consumer.realize),
                    );
                    let consumed = upper_bound_dim(&ana, &r, &relax, &pred);
                    let made = union_lower_bound(
                        &ana,
                        produced.iter().map(|p| p.get(d).cloned().flatten()),
                    );
                    let shape = read.buffer.shape.get(d).cloned();
                    if !covers(&ana, made, consumed, shape) {
                        return Err(not_pipeline(format!(
                            "Block `{}` reads a part of buffer `{}` (dimension {d}) that its producer{} `{}` may not write.",
                            consumer.realize.block.name,
                            read.buffer.name,
                            if producers.len() > 1 { "s" } else { "" },
                            producers
                                .iter()
                                .map(|&i| children[i].realize.block.name.clone())
                                .collect::<Vec<_>>()
                                .join("`, `")
                        )));
                    }
                }
            }
        }
    }
    Ok(())
}

/// The union of dense intervals, when it is itself an interval.
fn union_lower_bound(
    ana: &Analyzer,
    parts: impl Iterator<Item = Option<(Expr, Expr)>>,
) -> Option<(Expr, Expr)> {
    let parts: Vec<(Expr, Expr)> = parts.collect::<Option<Vec<_>>>()?;
    match parts.len() {
        0 => None,
        1 => parts.into_iter().next(),
        _ => {
            if parts
                .iter()
                .all(|(lo, hi)| lo.as_int().is_some() && hi.as_int().is_some())
            {
                let mut v: Vec<(i64, i64)> = parts
                    .iter()
                    .map(|(lo, hi)| (lo.as_int().unwrap_or(0), hi.as_int().unwrap_or(0)))
                    .collect();
                tessel_ir::sort::ascending(&mut v);
                let (mut lo, mut hi) = v[0];
                for &(a, b) in &v[1..] {
                    if a > hi.saturating_add(1) {
                        return None;
                    }
                    hi = hi.max(b);
                }
                lo = lo.min(v[0].0);
                let dt = parts[0].0.dtype();
                return Some((Expr::int(lo, dt), Expr::int(hi, dt)));
            }
            let (lo0, hi0) = &parts[0];
            if parts
                .iter()
                .all(|(lo, hi)| ana.can_prove_equal(lo, lo0) && ana.can_prove_equal(hi, hi0))
            {
                return Some((lo0.clone(), hi0.clone()));
            }
            None
        }
    }
}

/// TVM's `ProducerCoversConsumer` for one dimension.
fn covers(
    ana: &Analyzer,
    produced: Option<(Expr, Expr)>,
    consumed: Option<(Expr, Expr)>,
    shape: Option<Expr>,
) -> bool {
    let Some((plo, phi)) = produced else {
        return false;
    };
    let Some((clo, chi)) = consumed else {
        return false;
    };
    if plo.dtype() != clo.dtype() || phi.dtype() != chi.dtype() {
        return false;
    }
    let dt = plo.dtype();
    let clamp = |lo: Expr, hi: Expr| -> (Expr, Expr) {
        let lo = ana.simplify(&Expr::binary(BinOp::Max, lo, Expr::int(0, dt)));
        let hi = match &shape {
            Some(s) if s.dtype() == dt => ana.simplify(&Expr::binary(
                BinOp::Min,
                hi,
                Expr::binary(BinOp::Sub, s.clone(), Expr::int(1, dt)),
            )),
            _ => hi,
        };
        (lo, hi)
    };
    let (plo, phi) = clamp(plo, phi);
    let (clo, chi) = clamp(clo, chi);
    let le = |a: &Expr, b: &Expr| {
        let d = ana.simplify(&Expr::binary(BinOp::Sub, a.clone(), b.clone()));
        ana.can_prove(&Expr::cmp(CmpOp::Le, d, Expr::int(0, dt)))
    };
    le(&plo, &clo) && le(&chi, &phi)
}

/// Where a cache stage goes: the statement (scope block or loop) whose body
/// receives it, and the position in that body's sequence.
pub(super) struct CacheLoc {
    pub path: StmtPath,
    pub pos: usize,
}

/// TVM's `CacheLocDetector`: right after `target`, before the first of the
/// `related` blocks, in the innermost loop or block body holding both.
pub(super) fn detect_cache_loc(
    body: &Stmt,
    scope_path: &StmtPath,
    target: &str,
    related: &HashSet<String>,
) -> CacheLoc {
    let scope_stmt = tree::get(body, scope_path);
    let scope_body = match scope_stmt.as_ref().map(|s| s.kind()) {
        Some(StmtKind::BlockRealize(r)) => r.block.body.clone(),
        _ => Stmt::evaluate_zero(),
    };
    let end = CacheLoc {
        path: scope_path.clone(),
        pos: match scope_body.kind() {
            StmtKind::Seq(v) => v.len(),
            _ => 1,
        },
    };
    if related.is_empty() {
        return end;
    }
    struct Det<'a> {
        target: &'a str,
        related: &'a HashSet<String>,
        visited_block: bool,
        visited_related: bool,
        loc_pos: Option<usize>,
        loc_path: Option<StmtPath>,
    }
    impl Det<'_> {
        fn visit(&mut self, s: &Stmt, path: &mut Vec<usize>) {
            match s.kind() {
                StmtKind::Seq(items) => {
                    let previous = self.visited_block;
                    self.visited_block = false;
                    for (i, item) in items.iter().enumerate() {
                        if self.loc_pos.is_some() {
                            break;
                        }
                        path.push(i);
                        self.visit(item, path);
                        path.pop();
                        if self.visited_block && self.visited_related && self.loc_pos.is_none() {
                            self.loc_pos = Some(i);
                            break;
                        } else if self.visited_related {
                            break;
                        }
                    }
                    // However the sequence ends, a target block seen before
                    // it still counts (a nested sequence without the target
                    // must not forget it).
                    self.visited_block = self.visited_block || previous;
                }
                StmtKind::BlockRealize(r) => {
                    if r.block.name == self.target {
                        self.visited_block = true;
                    } else if self.related.contains(&r.block.name) {
                        self.visited_related = true;
                    }
                }
                StmtKind::For(l) => {
                    path.push(0);
                    self.visit(&l.body, path);
                    path.pop();
                    if self.visited_block
                        && self.visited_related
                        && self.loc_path.is_none()
                        && self.loc_pos.is_some()
                    {
                        self.loc_path = Some(StmtPath(path.clone()));
                    }
                }
                _ => {
                    for (i, c) in tree::children(s).iter().enumerate() {
                        path.push(i);
                        self.visit(c, path);
                        path.pop();
                    }
                }
            }
        }
    }
    let mut d = Det {
        target,
        related,
        visited_block: false,
        visited_related: false,
        loc_pos: None,
        loc_path: None,
    };
    let mut path = scope_path.0.clone();
    path.push(0);
    d.visit(&scope_body, &mut path);
    // Back at the scope block.
    if d.visited_related && d.loc_path.is_none() {
        d.loc_path = Some(scope_path.clone());
        if !d.visited_block && d.loc_pos.is_none() {
            d.loc_pos = Some(0);
        }
    }
    match (d.loc_path, d.loc_pos) {
        (Some(path), Some(pos)) => CacheLoc { path, pos },
        _ => end,
    }
}

/// TVM's `InsertCacheStage`: `stage` at `pos` of the body of the loop or
/// block at `loc`.
pub(super) fn insert_stage(body: &Stmt, loc: &CacheLoc, stage: Stmt) -> Stmt {
    let Some(target) = tree::get(body, &loc.path) else {
        return body.clone();
    };
    let insert = |b: &Stmt| -> Stmt {
        match b.kind() {
            StmtKind::Seq(items) => {
                let mut v = items.clone();
                let pos = loc.pos.min(v.len());
                v.insert(pos, stage.clone());
                Stmt::new(StmtKind::Seq(v), b.span())
            }
            _ if loc.pos == 0 => Stmt::seq(vec![stage.clone(), b.clone()]),
            _ => Stmt::seq(vec![b.clone(), stage.clone()]),
        }
    };
    let new = match target.kind() {
        StmtKind::For(l) => Stmt::new(
            StmtKind::For(For {
                body: insert(&l.body),
                ..l.clone()
            }),
            target.span(),
        ),
        StmtKind::BlockRealize(r) => {
            let mut r = r.clone();
            r.block.body = insert(&r.block.body);
            Stmt::new(StmtKind::BlockRealize(r), target.span())
        }
        _ => return body.clone(),
    };
    tree::replace(body, &loc.path, new)
}

/// Appends `buffer` to the allocations of the block at `scope`.
pub(super) fn add_alloc(body: &Stmt, scope: &StmtPath, buffer: Buffer) -> Stmt {
    match tree::get(body, scope).map(|s| (s.kind().clone(), s.span())) {
        Some((StmtKind::BlockRealize(mut r), span)) => {
            r.block.alloc_buffers.push(buffer);
            tree::replace(body, scope, Stmt::new(StmtKind::BlockRealize(r), span))
        }
        _ => body.clone(),
    }
}

/// The copy block `dst[dst_index] = src[src_index]` over `region`, in loops
/// `ax0, ax1, …`; `offset_src` says which side carries the region's minimum.
///
/// Two forms, as in TVM: a *compact* cache (the stage sits directly in a
/// block body) has the region's shape, iterators over the region's extents
/// bound to the loops, and the minimum added on the original buffer's side;
/// a *full* cache (the stage sits under a loop) has the original buffer's
/// shape, iterators over the whole buffer bound to `min + ax`, and the same
/// indices on both sides.
fn make_cache_stage(
    name: &str,
    region: &[Range],
    src: &Buffer,
    dst: &Buffer,
    offset_src: bool,
    full: bool,
) -> Stmt {
    let original = if offset_src { src } else { dst };
    let mut loop_vars = Vec::new();
    let mut iter_vars = Vec::new();
    let mut bindings = Vec::new();
    let mut plain = Vec::new();
    let mut shifted = Vec::new();
    let plus = |min: &Expr, v: &Var| {
        if min.is_const_int(0) {
            v.to_expr()
        } else {
            Expr::binary(BinOp::Add, min.clone(), v.to_expr())
        }
    };
    for (i, r) in region.iter().enumerate() {
        let dt = r.extent.dtype();
        let lv = Var::new(format!("ax{i}"), dt);
        let bv = Var::new(format!("v{i}"), dt);
        plain.push(bv.to_expr());
        if full {
            shifted.push(bv.to_expr());
            bindings.push(plus(&r.min, &lv));
            let extent = original
                .shape
                .get(i)
                .cloned()
                .unwrap_or_else(|| r.extent.clone());
            iter_vars.push(IterVar {
                var: bv,
                dom: Range::from_extent(extent),
                kind: IterKind::Spatial,
            });
        } else {
            shifted.push(plus(&r.min, &bv));
            bindings.push(lv.to_expr());
            iter_vars.push(IterVar {
                var: bv,
                dom: Range::from_extent(r.extent.clone()),
                kind: IterKind::Spatial,
            });
        }
        loop_vars.push((lv, r.extent.clone()));
    }
    let (src_idx, dst_idx) = if offset_src {
        (shifted, plain)
    } else {
        (plain, shifted)
    };
    let points = |idx: &[Expr]| {
        idx.iter()
            .map(|e| Range::point(e.clone()))
            .collect::<Vec<_>>()
    };
    let block = Block {
        name: name.to_string(),
        iter_vars,
        reads: vec![BufferRegion {
            buffer: src.clone(),
            region: points(&src_idx),
        }],
        writes: vec![BufferRegion {
            buffer: dst.clone(),
            region: points(&dst_idx),
        }],
        alloc_buffers: vec![],
        match_buffers: vec![],
        annotations: Annotations::new(),
        init: None,
        body: Stmt::from_kind(StmtKind::Store {
            buffer: dst.clone(),
            value: Expr::load(src, src_idx),
            indices: dst_idx,
        }),
        span: Default::default(),
    };
    let mut stmt = Stmt::from_kind(StmtKind::BlockRealize(BlockRealize {
        iter_values: bindings,
        predicate: Expr::bool(true),
        block,
    }));
    for (v, extent) in loop_vars.into_iter().rev() {
        stmt = Stmt::from_kind(StmtKind::For(For {
            loop_var: v,
            min: Expr::int(0, extent.dtype()),
            extent,
            kind: ForKind::Serial,
            thread_tag: None,
            annotations: Annotations::new(),
            body: stmt,
        }));
    }
    stmt
}

/// Accesses of `from` moved to `to`: the region's minimum subtracted from
/// every index, simplified.
struct Retarget {
    from: Buffer,
    to: Buffer,
    mins: Vec<Expr>,
}

impl Retarget {
    fn indices(&self, indices: &[Expr]) -> Vec<Expr> {
        let ana = Analyzer::new();
        indices
            .iter()
            .enumerate()
            .map(|(i, e)| match self.mins.get(i) {
                Some(m) if !m.is_const_int(0) && m.dtype() == e.dtype() => {
                    ana.simplify(&Expr::binary(BinOp::Sub, e.clone(), m.clone()))
                }
                _ => ana.simplify(e),
            })
            .collect()
    }
    fn regions(&self, regions: &[BufferRegion]) -> Vec<BufferRegion> {
        regions
            .iter()
            .map(|r| {
                if r.buffer != self.from {
                    return r.clone();
                }
                let mins: Vec<Expr> = r.region.iter().map(|x| x.min.clone()).collect();
                let mins = self.indices(&mins);
                BufferRegion {
                    buffer: self.to.clone(),
                    region: r
                        .region
                        .iter()
                        .zip(mins)
                        .map(|(x, m)| Range::new(m, x.extent.clone()))
                        .collect(),
                }
            })
            .collect()
    }
    fn match_buffers(&self, mbs: &[MatchBufferRegion]) -> Vec<MatchBufferRegion> {
        mbs.iter()
            .map(|mb| MatchBufferRegion {
                buffer: mb.buffer.clone(),
                source: self
                    .regions(std::slice::from_ref(&mb.source))
                    .pop()
                    .unwrap_or_else(|| mb.source.clone()),
            })
            .collect()
    }
    /// A load of `from`, or `from`'s data pointer in an opaque call
    /// (`T.tvm_access_ptr(..., A.data, ...)`), moved to `to` (TVM's
    /// rewriters replace the data variable too).
    fn load(&self, e: &Expr) -> Option<Expr> {
        if let ExprKind::Var(v) = e.kind() {
            if *v == self.from.data {
                return Some(Expr::new(
                    ExprKind::Var(self.to.data.clone()),
                    e.dtype(),
                    e.span(),
                ));
            }
        }
        if let ExprKind::Load { buffer, indices } = e.kind() {
            if *buffer == self.from {
                return Some(Expr::new(
                    ExprKind::Load {
                        buffer: self.to.clone(),
                        indices: self.indices(indices),
                    },
                    e.dtype(),
                    e.span(),
                ));
            }
        }
        None
    }
}

/// TVM's `CacheReadRewriter`.
struct ReadRewriter<'a> {
    t: Retarget,
    scope_name: &'a str,
    /// `None`: every block is a consumer.
    consumers: Option<&'a HashSet<String>>,
    current_consumes: bool,
    seen_scope: bool,
}

impl Mutator for ReadRewriter<'_> {
    fn expr(&mut self, e: &Expr) -> Expr {
        if self.current_consumes {
            if let Some(n) = self.t.load(e) {
                return n;
            }
        }
        walk_expr(self, e)
    }
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        let StmtKind::BlockRealize(r) = s.kind() else {
            return walk_stmt(self, s);
        };
        let b = &r.block;
        let is_scope = !self.seen_scope && b.name == self.scope_name;
        self.seen_scope = true;
        let iter_values: Vec<Expr> = r.iter_values.iter().map(|e| self.expr(e)).collect();
        let predicate = self.expr(&r.predicate);
        let is_consumer = match self.consumers {
            None => true,
            Some(set) => set.contains(&b.name),
        };
        self.current_consumes = is_consumer;
        // The block producing the buffer is left alone.
        if !is_scope && b.writes.iter().any(|w| w.buffer == self.t.from) {
            return s.clone();
        }
        let mut nb = walk_block(self, b);
        if !is_scope && is_consumer {
            nb.reads = self.t.regions(&nb.reads);
            nb.match_buffers = self.t.match_buffers(&nb.match_buffers);
        }
        Stmt::new(
            StmtKind::BlockRealize(BlockRealize {
                iter_values,
                predicate,
                block: nb,
            }),
            s.span(),
        )
    }
}

/// TVM's `CacheWriteRewriter`.
struct WriteRewriter<'a> {
    t: Retarget,
    scope_name: &'a str,
    writer: &'a str,
    consumers: &'a HashSet<String>,
    under_writer: bool,
    seen_scope: bool,
}

impl WriteRewriter<'_> {
    fn realize(&mut self, s: &Stmt, r: &BlockRealize, block: Block) -> Stmt {
        let iter_values: Vec<Expr> = r.iter_values.iter().map(|e| self.expr(e)).collect();
        let predicate = self.expr(&r.predicate);
        Stmt::new(
            StmtKind::BlockRealize(BlockRealize {
                iter_values,
                predicate,
                block,
            }),
            s.span(),
        )
    }
}

impl Mutator for WriteRewriter<'_> {
    fn expr(&mut self, e: &Expr) -> Expr {
        if let Some(n) = self.t.load(e) {
            return n;
        }
        walk_expr(self, e)
    }
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        match s.kind() {
            StmtKind::Store {
                buffer,
                value,
                indices,
            } if *buffer == self.t.from => {
                let value = self.expr(value);
                let indices: Vec<Expr> = indices.iter().map(|e| self.expr(e)).collect();
                Stmt::new(
                    StmtKind::Store {
                        buffer: self.t.to.clone(),
                        value,
                        indices: self.t.indices(&indices),
                    },
                    s.span(),
                )
            }
            StmtKind::BlockRealize(r) => {
                let b = &r.block;
                let is_scope = !self.seen_scope && b.name == self.scope_name;
                self.seen_scope = true;
                if !is_scope && self.consumers.contains(&b.name) {
                    let reads = self.t.regions(&b.reads);
                    let writes = self.t.regions(&b.writes);
                    let changed = reads.iter().chain(&writes).any(|x| x.buffer == self.t.to)
                        || b.match_buffers
                            .iter()
                            .any(|m| m.source.buffer == self.t.from);
                    if !changed {
                        return s.clone();
                    }
                    let mut nb = b.clone();
                    nb.reads = reads;
                    nb.writes = writes;
                    nb.match_buffers = self.t.match_buffers(&b.match_buffers);
                    nb.body = self.stmt(&b.body);
                    return Stmt::new(
                        StmtKind::BlockRealize(BlockRealize {
                            iter_values: r.iter_values.clone(),
                            predicate: r.predicate.clone(),
                            block: nb,
                        }),
                        s.span(),
                    );
                }
                if !is_scope && b.name != self.writer && !self.under_writer {
                    return s.clone();
                }
                let saved = self.under_writer;
                self.under_writer = self.under_writer || b.name == self.writer;
                let mut nb = walk_block(self, b);
                self.under_writer = saved;
                if !is_scope {
                    nb.reads = self.t.regions(&nb.reads);
                    nb.writes = self.t.regions(&nb.writes);
                    nb.match_buffers = self.t.match_buffers(&nb.match_buffers);
                }
                self.realize(s, r, nb)
            }
            _ => walk_stmt(self, s),
        }
    }
}

/// Everything both primitives need about the block and its scope.
struct Target {
    path: StmtPath,
    realize: BlockRealize,
    scope_path: StmtPath,
    scope_name: String,
}

/// `cache_read` and `cache_write` differ in the index's name.
macro_rules! cache_params {
    ($index:literal) => {
        &[
            param("block", T::Block),
            // An index, or a buffer's name (recorded as its index).
            param($index, T::Any).attr(),
            param("storage_scope", T::Str).attr(),
            param("consumer_blocks", T::OptBlocks)
                .optional()
                .list_input(),
        ]
    };
}

/// The arguments of a typed `cache_read`/`cache_write` call.
fn cache_args(
    prim: &'static Primitive,
    block_rv: BlockRV,
    buffer_index: i64,
    storage_scope: &str,
    consumer_blocks: &[BlockRV],
) -> Args {
    let mut values = vec![block_rv.into(), buffer_index.into(), storage_scope.into()];
    // Like the by-name call: no consumers means the parameter was not given.
    if !consumer_blocks.is_empty() {
        values.push(SchedValue::rv_list(consumer_blocks));
    }
    Args::typed(prim, values)
}

/// `B_shared = sch.cache_read(b, 0, "shared")` from the menu's "index, scope".
fn menu_call(method: &str, site: &MenuSite, arg: &str) -> String {
    let (index, scope) = arg.split_once(',').unwrap_or(("0", "local"));
    format!(
        "{}_{} = sch.{method}({}, {}, \"{}\")",
        site.block,
        scope.trim().replace('.', "_"),
        site.block_ref(&site.block),
        index.trim(),
        scope.trim()
    )
}

const CACHE_READ_PARAMS: &[Param] = cache_params!("read_buffer_index");
const CACHE_WRITE_PARAMS: &[Param] = cache_params!("write_buffer_index");

pub(super) const CACHE_READ: Primitive = Primitive {
    method: "cache_read",
    aliases: &[],
    kind: "CacheRead",
    params: CACHE_READ_PARAMS,
    returns: Returns::One,
    traced: true,
    apply: |sch, args| {
        let block = args.block("block")?;
        let index = buffer_index_arg(sch, args, "read_buffer_index", block, BufferIndexType::Read)?;
        let copy = sch.cache_read_concrete(
            block,
            index,
            &args.string("storage_scope")?,
            &args.blocks("consumer_blocks")?,
        )?;
        Ok(copy.into())
    },
    menu: Some(MenuEntry {
        target: MenuTarget::Block,
        help: "read buffer index, scope",
        arg: MenuArg::Text {
            label: "read buffer index and scope",
            default: |_| "0, shared".to_string(),
        },
        when: MenuWhen::Always,
        call: |site, arg| Some(menu_call("cache_read", site, arg)),
    }),
};

pub(super) const CACHE_WRITE: Primitive = Primitive {
    method: "cache_write",
    aliases: &[],
    kind: "CacheWrite",
    params: CACHE_WRITE_PARAMS,
    returns: Returns::One,
    traced: true,
    apply: |sch, args| {
        let block = args.block("block")?;
        let index = buffer_index_arg(
            sch,
            args,
            "write_buffer_index",
            block,
            BufferIndexType::Write,
        )?;
        let copy = sch.cache_write_concrete(
            block,
            index,
            &args.string("storage_scope")?,
            &args.blocks("consumer_blocks")?,
        )?;
        Ok(copy.into())
    },
    menu: Some(MenuEntry {
        target: MenuTarget::Block,
        help: "write buffer index, scope",
        arg: MenuArg::Text {
            label: "write buffer index and scope",
            default: |_| "0, local".to_string(),
        },
        when: MenuWhen::Always,
        call: |site, arg| Some(menu_call("cache_write", site, arg)),
    }),
};

pub(super) const CACHE_INPLACE: Primitive = Primitive {
    method: "cache_inplace",
    aliases: &[],
    kind: "CacheInplace",
    params: &[
        param("block", T::Block),
        param("read_buffer_index", T::Any).attr(),
        param("storage_scope", T::Str).attr(),
    ],
    returns: Returns::List,
    traced: true,
    apply: super::primitives::unless_lean(|sch, args| {
        let block = args.block("block")?;
        let index = buffer_index_arg(sch, args, "read_buffer_index", block, BufferIndexType::Read)?;
        let copies = sch.cache_inplace_concrete(block, index, &args.string("storage_scope")?)?;
        Ok(SchedValue::rv_list(&copies))
    }),
    menu: None,
};

/// Every mention of one buffer (accesses, regions) becomes another.
struct SwapBuffer<'a> {
    from: &'a Buffer,
    to: &'a Buffer,
}

impl Mutator for SwapBuffer<'_> {
    fn buffer(&mut self, b: &Buffer) -> Buffer {
        if b == self.from {
            self.to.clone()
        } else {
            b.clone()
        }
    }
}

impl Schedule {
    /// `sch.cache_inplace(block, read_buffer_index, storage_scope)`: for a
    /// buffer the block both reads and writes, a copy into a new buffer
    /// `<buffer>_<scope>` right before the block and a copy back right after
    /// it; the block works on the new buffer. Returns both copy blocks (they
    /// share one name, as in TVM, so their handles cannot be resolved later).
    /// Checks in TVM's order: the scope string, the index, the scope's region
    /// cover (Tessel checks the whole scope is a stage pipeline), that the
    /// block writes the buffer too. Tessel also refuses a region of the buffer
    /// that uses the block's iterators: the copies sit outside the block,
    /// where those are not defined (TVM 0.27 builds ill-formed IR there).
    pub fn cache_inplace(
        &mut self,
        block_rv: BlockRV,
        read_buffer_index: i64,
        storage_scope: &str,
    ) -> Result<Vec<BlockRV>> {
        let args = Args::typed(
            &CACHE_INPLACE,
            vec![
                block_rv.into(),
                read_buffer_index.into(),
                storage_scope.into(),
            ],
        );
        self.apply_traced(&CACHE_INPLACE, args)?.into_blocks()
    }

    fn cache_inplace_concrete(
        &mut self,
        block_rv: BlockRV,
        read_buffer_index: i64,
        storage_scope: &str,
    ) -> Result<Vec<BlockRV>> {
        const P: &str = "cache_inplace";
        check_storage_scope(P, storage_scope)?;
        let (t, buffer) =
            self.cache_target(P, block_rv, read_buffer_index, BufferIndexType::Read)?;
        let body = self.body(P)?;
        check_stage_pipeline(P, &body, &t.scope_path, &t.scope_name)?;
        let block = &t.realize.block;
        let read = block.reads.iter().find(|r| r.buffer == buffer).cloned();
        let write = block.writes.iter().find(|r| r.buffer == buffer).cloned();
        let (Some(read), Some(write)) = (read, write) else {
            return Err(ScheduleError::new(
                P,
                format!(
                    "The target block `{}` does not both read & write target buffer {}.",
                    block.name, buffer.name
                ),
            )
            .at(t.path));
        };
        let iters: HashSet<VarId> = block.iter_vars.iter().map(|iv| iv.var.id()).collect();
        for r in read.region.iter().chain(&write.region) {
            let mut uses = false;
            for e in [&r.min, &r.extent] {
                e.walk(&mut |x| {
                    if let ExprKind::Var(v) = x.kind() {
                        uses |= iters.contains(&v.id());
                    }
                });
            }
            if uses {
                return Err(ScheduleError::new(
                    P,
                    format!(
                        "block `{}` accesses {} at a region that depends on its iterators; the \
                         copies before and after the block cannot name them",
                        block.name, buffer.name
                    ),
                )
                .at(t.path));
            }
        }
        // The copies go right before and right after the block, in its parent.
        let parent = t
            .path
            .parent()
            .ok_or_else(|| ScheduleError::new(P, "internal: a block without a parent"))?;
        let (loc_path, pos) = match tree::get(&body, &parent).map(|s| s.kind().clone()) {
            Some(StmtKind::Seq(_)) => (
                parent.parent().ok_or_else(|| {
                    ScheduleError::new(P, "internal: a sequence without a parent")
                })?,
                *t.path.0.last().unwrap_or(&0),
            ),
            _ => (parent, 0),
        };
        if !matches!(
            tree::get(&body, &loc_path).map(|s| s.kind().clone()),
            Some(StmtKind::For(_) | StmtKind::BlockRealize(_))
        ) {
            return Err(ScheduleError::new(
                P,
                format!(
                    "block `{}` is not directly in a loop or block body, where the copies would go",
                    block.name
                ),
            )
            .at(t.path));
        }
        let name = format!("{}_{}", buffer.name, storage_scope);
        let cache = cache_buffer(&buffer, &name, storage_scope, &read.region, true);
        let copy_in = make_cache_stage(&name, &read.region, &buffer, &cache, true, true);
        let copy_out = make_cache_stage(&name, &write.region, &cache, &buffer, false, true);
        let block_stmt = tree::get(&body, &t.path)
            .ok_or_else(|| ScheduleError::new(P, "internal: stale block path"))?;
        let new_block = SwapBuffer {
            from: &buffer,
            to: &cache,
        }
        .stmt(&block_stmt);
        let body = tree::replace(&body, &t.path, new_block);
        let body = insert_stage(
            &body,
            &CacheLoc {
                path: loc_path.clone(),
                pos,
            },
            copy_in,
        );
        let body = insert_stage(
            &body,
            &CacheLoc {
                path: loc_path,
                pos: pos + 2,
            },
            copy_out,
        );
        let body = add_alloc(&body, &t.scope_path, cache);
        self.set_body(P, body)?;
        Ok(vec![self.new_block_rv(&name), self.new_block_rv(&name)])
    }

    fn cache_target(
        &self,
        primitive: &str,
        block_rv: BlockRV,
        index: i64,
        kind: BufferIndexType,
    ) -> Result<(Target, Buffer)> {
        let (path, realize) = self.resolve_block(primitive, block_rv)?;
        let buffer = nth_access_buffer(primitive, &realize.block, index, kind, &path)?;
        let body = self.body(primitive)?;
        let Some(scope_path) = super::query::enclosing_block_path(&body, &path) else {
            return Err(ScheduleError::new(
                primitive,
                format!(
                    "block `{}` is the root block; it has no enclosing scope to put a cache stage in",
                    realize.block.name
                ),
            )
            .at(path));
        };
        let scope_name = match tree::get(&body, &scope_path).map(|s| s.kind().clone()) {
            Some(StmtKind::BlockRealize(r)) => r.block.name,
            _ => String::new(),
        };
        Ok((
            Target {
                path,
                realize,
                scope_path,
                scope_name,
            },
            buffer,
        ))
    }

    fn block_names(&self, primitive: &str, rvs: &[BlockRV]) -> Result<HashSet<String>> {
        let mut out = HashSet::new();
        for rv in rvs {
            let (_, r) = self.resolve_block(primitive, *rv)?;
            out.insert(r.block.name);
        }
        Ok(out)
    }

    /// `sch.cache_read(block, read_buffer_index, storage_scope,
    /// consumer_blocks=None)`: a block `<buffer>_<scope>` copying the
    /// block's `read_buffer_index`-th read buffer into a new buffer of that
    /// scope; the consumers (all readers in the scope, or `consumer_blocks`)
    /// read the copy. Returns the copy block.
    pub fn cache_read(
        &mut self,
        block_rv: BlockRV,
        read_buffer_index: i64,
        storage_scope: &str,
        consumer_blocks: &[BlockRV],
    ) -> Result<BlockRV> {
        let args = cache_args(
            &CACHE_READ,
            block_rv,
            read_buffer_index,
            storage_scope,
            consumer_blocks,
        );
        self.apply_traced(&CACHE_READ, args)?.into_block()
    }

    fn cache_read_concrete(
        &mut self,
        block_rv: BlockRV,
        read_buffer_index: i64,
        storage_scope: &str,
        consumer_blocks: &[BlockRV],
    ) -> Result<BlockRV> {
        const P: &str = "cache_read";
        check_storage_scope(P, storage_scope)?;
        let (t, buffer) =
            self.cache_target(P, block_rv, read_buffer_index, BufferIndexType::Read)?;
        let body = self.body(P)?;
        check_stage_pipeline(P, &body, &t.scope_path, &t.scope_name)?;
        let consumers = self.block_names(P, consumer_blocks)?;
        let children = child_blocks(&body, &t.scope_path);
        let writers: Vec<usize> = children
            .iter()
            .enumerate()
            .filter(|(_, c)| c.realize.block.writes.iter().any(|w| w.buffer == buffer))
            .map(|(i, _)| i)
            .collect();
        if writers.len() > 1 {
            return Err(single_writer_error(P, &buffer, &children, &writers));
        }
        let (loc, region) = match writers.first() {
            Some(&pi) => {
                // The buffer is produced in the scope: cache what the producer writes.
                let producer = &children[pi];
                let related: HashSet<String> = if !consumers.is_empty() {
                    consumers.clone()
                } else {
                    raw_consumers(&children, pi)
                };
                let loc =
                    detect_cache_loc(&body, &t.scope_path, &producer.realize.block.name, &related);
                let region = producer
                    .realize
                    .block
                    .writes
                    .iter()
                    .find(|w| w.buffer == buffer)
                    .cloned()
                    .unwrap_or_else(|| BufferRegion {
                        buffer: buffer.clone(),
                        region: buffer.full_region(),
                    });
                let relax = loops_below(&body, &producer.path, &loc.path);
                let outer = analyzer_for(&loops_outside(&body, &producer.path, &loc.path));
                let region = relax_region(&producer.realize, &region, &relax, &outer, None);
                (loc, region)
            }
            None => {
                // An input of the scope: the block's read region relaxed over
                // the scope when a nested block reads it under a predicate,
                // else the scope's read region of it, or all of it.
                let scope_reads = match tree::get(&body, &t.scope_path).map(|s| s.kind().clone()) {
                    Some(StmtKind::BlockRealize(r)) => r.block.reads,
                    _ => vec![],
                };
                let own_read = t.realize.block.reads.iter().find(|r| r.buffer == buffer);
                let nested = own_read
                    .and_then(|_| nested_access_predicate(&t.realize.block, &buffer, true))
                    .filter(|p| !p.is_const_int(1));
                let region = match (own_read, nested) {
                    (Some(read), Some(pred)) => {
                        let relax = loops_below(&body, &t.path, &t.scope_path);
                        let outer = analyzer_for(&loops_outside(&body, &t.path, &t.scope_path));
                        relax_region(&t.realize, read, &relax, &outer, Some(&pred))
                    }
                    _ => scope_reads
                        .iter()
                        .find(|r| r.buffer == buffer)
                        .map(|r| r.region.clone())
                        .unwrap_or_else(|| buffer.full_region()),
                };
                (
                    CacheLoc {
                        path: t.scope_path.clone(),
                        pos: 0,
                    },
                    region,
                )
            }
        };
        let name = format!("{}_{}", buffer.name, storage_scope);
        let full = loc_is_loop(&body, &loc);
        let cache = cache_buffer(&buffer, &name, storage_scope, &region, full);
        let stage = make_cache_stage(&name, &region, &buffer, &cache, true, full);
        let scope_stmt = tree::get(&body, &t.scope_path)
            .ok_or_else(|| ScheduleError::new(P, "internal: stale scope path"))?;
        let mut rw = ReadRewriter {
            t: Retarget {
                from: buffer.clone(),
                to: cache.clone(),
                mins: if full {
                    Vec::new()
                } else {
                    region.iter().map(|r| r.min.clone()).collect()
                },
            },
            scope_name: &t.scope_name,
            consumers: if consumers.is_empty() {
                None
            } else {
                Some(&consumers)
            },
            current_consumes: false,
            seen_scope: false,
        };
        let new_scope = rw.stmt(&scope_stmt);
        self.install_cache_stage(P, body, (&t.scope_path, new_scope), (&loc, stage), cache)
    }

    /// `sch.cache_write(block, write_buffer_index, storage_scope,
    /// consumer_blocks=None)`: the block writes a new buffer `<buffer>_<scope>`
    /// instead, and a block of that name copies it back afterwards;
    /// `consumer_blocks` read the new buffer directly. Returns the copy block.
    pub fn cache_write(
        &mut self,
        block_rv: BlockRV,
        write_buffer_index: i64,
        storage_scope: &str,
        consumer_blocks: &[BlockRV],
    ) -> Result<BlockRV> {
        let args = cache_args(
            &CACHE_WRITE,
            block_rv,
            write_buffer_index,
            storage_scope,
            consumer_blocks,
        );
        self.apply_traced(&CACHE_WRITE, args)?.into_block()
    }

    fn cache_write_concrete(
        &mut self,
        block_rv: BlockRV,
        write_buffer_index: i64,
        storage_scope: &str,
        consumer_blocks: &[BlockRV],
    ) -> Result<BlockRV> {
        const P: &str = "cache_write";
        check_storage_scope(P, storage_scope)?;
        let (t, buffer) =
            self.cache_target(P, block_rv, write_buffer_index, BufferIndexType::Write)?;
        let body = self.body(P)?;
        let consumers = self.block_names(P, consumer_blocks)?;
        let children = child_blocks(&body, &t.scope_path);
        let writers: Vec<usize> = children
            .iter()
            .enumerate()
            .filter(|(_, c)| c.realize.block.writes.iter().any(|w| w.buffer == buffer))
            .map(|(i, _)| i)
            .collect();
        if writers.len() > 1 {
            return Err(single_writer_error(P, &buffer, &children, &writers));
        }
        let me = children
            .iter()
            .position(|c| c.realize.block.name == t.realize.block.name);
        let related: HashSet<String> = match me {
            Some(i) => raw_consumers(&children, i)
                .into_iter()
                .filter(|n| !consumers.contains(n))
                .collect(),
            None => HashSet::new(),
        };
        let loc = detect_cache_loc(&body, &t.scope_path, &t.realize.block.name, &related);
        let region = t
            .realize
            .block
            .writes
            .iter()
            .find(|w| w.buffer == buffer)
            .cloned()
            .unwrap_or_else(|| BufferRegion {
                buffer: buffer.clone(),
                region: buffer.full_region(),
            });
        let relax = loops_below(&body, &t.path, &loc.path);
        let outer = analyzer_for(&loops_outside(&body, &t.path, &loc.path));
        let nested = nested_access_predicate(&t.realize.block, &buffer, false);
        let region = relax_region(&t.realize, &region, &relax, &outer, nested.as_ref());
        let name = format!("{}_{}", buffer.name, storage_scope);
        let full = loc_is_loop(&body, &loc);
        let cache = cache_buffer(&buffer, &name, storage_scope, &region, full);
        let stage = make_cache_stage(&name, &region, &cache, &buffer, false, full);
        let scope_stmt = tree::get(&body, &t.scope_path)
            .ok_or_else(|| ScheduleError::new(P, "internal: stale scope path"))?;
        let mut rw = WriteRewriter {
            t: Retarget {
                from: buffer.clone(),
                to: cache.clone(),
                mins: if full {
                    Vec::new()
                } else {
                    region.iter().map(|r| r.min.clone()).collect()
                },
            },
            scope_name: &t.scope_name,
            writer: &t.realize.block.name,
            consumers: &consumers,
            under_writer: false,
            seen_scope: false,
        };
        let new_scope = rw.stmt(&scope_stmt);
        self.install_cache_stage(P, body, (&t.scope_path, new_scope), (&loc, stage), cache)
    }

    /// The tail shared by `cache_read` and `cache_write`: put the rewritten
    /// scope back, insert the copy stage at `loc`, allocate the cache buffer
    /// in the scope, returning the copy block's handle.
    fn install_cache_stage(
        &mut self,
        primitive: &'static str,
        body: Stmt,
        (scope_path, new_scope): (&StmtPath, Stmt),
        (loc, stage): (&CacheLoc, Stmt),
        cache: Buffer,
    ) -> Result<BlockRV> {
        let name = cache.name.clone();
        let body = tree::replace(&body, scope_path, new_scope);
        let body = insert_stage(&body, loc, stage);
        let body = add_alloc(&body, scope_path, cache);
        self.set_body(primitive, body)?;
        Ok(self.new_block_rv(&name))
    }
}

/// The children of the scope that read a buffer child `src` writes, after it.
pub(super) fn raw_consumers(children: &[ChildBlock], src: usize) -> HashSet<String> {
    let deps = dependencies(children);
    deps.raw
        .iter()
        .enumerate()
        .filter(|(_, producers)| producers.contains(&src))
        .map(|(i, _)| children[i].realize.block.name.clone())
        .collect()
}

pub(super) fn single_writer_error(
    primitive: &str,
    buffer: &Buffer,
    children: &[ChildBlock],
    writers: &[usize],
) -> ScheduleError {
    let names: Vec<String> = writers
        .iter()
        .map(|&i| format!("`{}`", children[i].realize.block.name))
        .collect();
    ScheduleError::new(
        primitive,
        format!(
            "The buffer {} is expected to be written by single block, but got {} blocks who write it ({}).",
            buffer.name,
            writers.len(),
            names.join(", ")
        ),
    )
    .at(children[writers[0]].path.clone())
}

/// The cache buffer: a copy of `of` (TVM's `WithScope`) named `name`, in
/// `scope`, shaped like `region` (or like `of` for a full cache).
fn cache_buffer(of: &Buffer, name: &str, scope: &str, region: &[Range], full: bool) -> Buffer {
    of.derive(|n| {
        n.name = name.to_string();
        n.scope = if scope.is_empty() {
            "global".to_string()
        } else {
            scope.to_string()
        };
        if !full {
            n.shape = region.iter().map(|r| r.extent.clone()).collect();
        }
    })
}

/// Whether the stage goes under a loop (then the cache is a full copy).
fn loc_is_loop(body: &Stmt, loc: &CacheLoc) -> bool {
    matches!(
        tree::get(body, &loc.path).map(|s| s.kind().clone()),
        Some(StmtKind::For(_))
    )
}

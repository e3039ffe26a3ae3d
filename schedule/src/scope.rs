//! Block scopes: the child blocks of a scope block, the dataflow between
//! them, and the block properties TVM's primitives check before moving or
//! inlining a block (stage pipeline, complete / reduction blocks, output
//! blocks, leaf removal).
//!
//! A *scope* is a block; its *child blocks* are the blocks nested in it
//! without another block in between, in program order. Dependencies follow
//! TVM's `BlockScope`: for a later block `d` and an earlier block `s`,
//! `s → d` is read-after-write when `d` reads a buffer `s` writes,
//! write-after-write when both write it, write-after-read when `s` reads a
//! buffer `d` writes. Producers of a block are the sources of its RAW/WAW
//! edges, consumers the destinations of its outgoing RAW/WAW edges.

use std::collections::HashMap;

use super::query::enclosing_loops;
use super::tree::{self, StmtPath};
use super::*;
use tessel_tir::arith::{detect_iter_map, Analyzer};
use tessel_tir::ir::mutate::substitute_expr;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DepKind {
    Raw,
    Waw,
    War,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Dep {
    pub src: usize,
    pub dst: usize,
    pub kind: DepKind,
}

/// A scope block and its child blocks.
#[derive(Clone, Debug)]
pub(crate) struct Scope {
    /// Path of the scope block's realize.
    pub path: StmtPath,
    pub root: BlockRealize,
    /// Child blocks in program order, with their paths.
    pub blocks: Vec<(StmtPath, BlockRealize)>,
    pub deps: Vec<Dep>,
}

impl Scope {
    /// The scope rooted at the block realize at `path`.
    pub fn at(body: &Stmt, path: &StmtPath) -> Option<Scope> {
        let root = tree::get(body, path)?.as_block_realize()?.clone();
        let mut blocks = Vec::new();
        fn go(s: &Stmt, path: &mut Vec<usize>, out: &mut Vec<(StmtPath, BlockRealize)>) {
            if let StmtKind::BlockRealize(r) = s.kind() {
                out.push((StmtPath(path.clone()), r.clone()));
                return;
            }
            for (i, c) in tree::children(s).iter().enumerate() {
                path.push(i);
                go(c, path, out);
                path.pop();
            }
        }
        // The scope block's body is child 0 of its realize (the init, child 1,
        // holds no blocks).
        let mut p = path.0.clone();
        p.push(0);
        go(&root.block.body, &mut p, &mut blocks);
        let deps = dependencies(&blocks);
        Some(Scope {
            path: path.clone(),
            root,
            blocks,
            deps,
        })
    }

    /// The scope enclosing the block at `block_path`.
    pub fn of_block(primitive: &str, body: &Stmt, block_path: &StmtPath) -> Result<Scope> {
        let scope_path = super::query::enclosing_block_path(body, block_path).ok_or_else(|| {
            ScheduleError::block_structure(
                primitive,
                "The primitive does not operate on the root block",
            )
        })?;
        Scope::at(body, &scope_path)
            .ok_or_else(|| ScheduleError::internal(primitive, "internal: stale scope path"))
    }

    pub fn name(&self, i: usize) -> &str {
        &self.blocks[i].1.block.name
    }

    /// Blocks this one depends on through RAW or WAW edges, without duplicates.
    pub fn producers(&self, i: usize) -> Vec<usize> {
        let mut out = Vec::new();
        for d in &self.deps {
            if d.dst == i && d.kind != DepKind::War && !out.contains(&d.src) {
                out.push(d.src);
            }
        }
        out
    }

    /// Blocks depending on this one through RAW or WAW edges, without duplicates.
    pub fn consumers(&self, i: usize) -> Vec<usize> {
        let mut out = Vec::new();
        for d in &self.deps {
            if d.src == i && d.kind != DepKind::War && !out.contains(&d.dst) {
                out.push(d.dst);
            }
        }
        out
    }

    /// The child blocks writing `buffer`.
    pub fn writers(&self, buffer: &Buffer) -> Vec<usize> {
        (0..self.blocks.len())
            .filter(|&i| {
                self.blocks[i]
                    .1
                    .block
                    .writes
                    .iter()
                    .any(|w| w.buffer == *buffer)
            })
            .collect()
    }

    /// TVM's stage-pipeline property of the scope: no write-after-read
    /// dependency, and every consumer's read region is covered by what its
    /// producers write (checked conservatively, as TVM does).
    pub fn check_stage_pipeline(&self, primitive: &str, body: &Stmt) -> Result<()> {
        let war = self.deps.iter().any(|d| d.kind == DepKind::War);
        if war || !self.region_cover(body) {
            return Err(ScheduleError::region_coverage(
                primitive,
                format!(
                    "The scope `{}` is not a stage pipeline.\n\
                     Definition of a scope that is a stage pipeline:\n\
                     - The region cover property holds for every of its child blocks\n\
                     - No write-after-read dependency or opaque dependency,\n\
                     - only read-after-write and write-after-write are allowed\n\
                     - All the statements in the scope are schedulable statements, i.e. SBlock and For",
                    self.root.block.name
                ),
            )
            .at(self.path.clone()));
        }
        Ok(())
    }

    /// Region cover: for each consumer and each lowest common ancestor it
    /// shares with producers, the regions the producers surely write under
    /// that ancestor (a lower bound) cover the region the consumer may read
    /// (an upper bound).
    fn region_cover(&self, body: &Stmt) -> bool {
        let mut ana = Analyzer::new();
        // Every loop of the scope is known (TVM's collector binds them all).
        for (path, _) in &self.blocks {
            for (_, l) in enclosing_loops(body, path) {
                ana.bind(&l.loop_var, &Range::new(l.min.clone(), l.extent.clone()));
            }
        }
        for (ci, (cpath, creal)) in self.blocks.iter().enumerate() {
            // Producers through RAW edges, grouped by their LCA with the consumer.
            let mut by_lca: Vec<(StmtPath, Vec<usize>)> = Vec::new();
            for d in &self.deps {
                if d.dst != ci || d.kind != DepKind::Raw || d.src == ci {
                    continue;
                }
                let lca = lca_sref(body, &self.blocks[d.src].0, cpath, &self.path);
                match by_lca.iter_mut().find(|(p, _)| *p == lca) {
                    Some((_, v)) => v.push(d.src),
                    None => by_lca.push((lca, vec![d.src])),
                }
            }
            // Lowest LCA first, as TVM walks upwards from the consumer.
            tessel_ir::sort::by_key(&mut by_lca, |(p, _)| std::cmp::Reverse(p.0.len()));
            for (lca, producers) in &by_lca {
                for read in &creal.block.reads {
                    let mut produced: Vec<Vec<Option<(Expr, Expr)>>> = Vec::new();
                    for &pi in producers {
                        let (ppath, preal) = &self.blocks[pi];
                        for w in &preal.block.writes {
                            if w.buffer == read.buffer {
                                produced.push(region_lower_bound(body, ppath, preal, w, lca));
                            }
                        }
                    }
                    if produced.is_empty() {
                        continue;
                    }
                    let consumed = region_upper_bound(body, cpath, creal, read, lca);
                    if !covers(&ana, &read.buffer, &produced, &consumed) {
                        return false;
                    }
                }
            }
        }
        true
    }
}

/// The deepest loop (or the scope block) that is an ancestor of both paths,
/// as a path; loops only count (TVM's sref tree has loops and blocks).
fn lca_sref(body: &Stmt, a: &StmtPath, b: &StmtPath, scope: &StmtPath) -> StmtPath {
    let n = a.0.iter().zip(&b.0).take_while(|(x, y)| x == y).count();
    let common = StmtPath(a.0[..n].to_vec());
    let chain = tree::chain(body, &common);
    for d in (scope.0.len()..chain.len()).rev() {
        if matches!(chain[d].kind(), StmtKind::For(_)) {
            return StmtPath(common.0[..d].to_vec());
        }
    }
    scope.clone()
}

/// Loops strictly between the block at `block_path` and the ancestor at
/// `top` (exclusive), innermost last.
pub(crate) fn loops_below(body: &Stmt, block_path: &StmtPath, top: &StmtPath) -> Vec<For> {
    enclosing_loops(body, block_path)
        .into_iter()
        .filter(|(p, _)| p.0.len() > top.0.len() && top.is_prefix_of(p))
        .map(|(_, l)| l)
        .collect()
}

fn bindings(realize: &BlockRealize) -> HashMap<VarId, Expr> {
    realize
        .block
        .iter_vars
        .iter()
        .zip(&realize.iter_values)
        .map(|(iv, v)| (iv.var.id(), v.clone()))
        .collect()
}

/// Additive terms of an integer expression, with their signs.
fn additive_terms(e: &Expr, sign: i64, out: &mut Vec<(Expr, i64)>) {
    match e.kind() {
        ExprKind::Binary(BinOp::Add, a, b) => {
            additive_terms(a, sign, out);
            additive_terms(b, sign, out);
        }
        ExprKind::Binary(BinOp::Sub, a, b) => {
            additive_terms(a, sign, out);
            additive_terms(b, -sign, out);
        }
        _ => out.push((e.clone(), sign)),
    }
}

fn rebuild_sum(terms: &[(Expr, i64)], dt: DataType) -> Expr {
    let mut acc: Option<Expr> = None;
    for (t, s) in terms {
        acc = Some(match (acc, *s >= 0) {
            (None, true) => t.clone(),
            (None, false) => Expr::binary(BinOp::Sub, Expr::int(0, dt), t.clone()),
            (Some(a), true) => Expr::binary(BinOp::Add, a, t.clone()),
            (Some(a), false) => Expr::binary(BinOp::Sub, a, t.clone()),
        });
    }
    acc.unwrap_or_else(|| Expr::int(0, dt))
}

/// What a producer surely writes of `region` under the ancestor `top`: per
/// dimension an inclusive interval, `None` when it cannot be established
/// (TVM's `EstimateRegionLowerBound`: the indices must be an affine map of
/// the loops below `top`).
fn region_lower_bound(
    body: &Stmt,
    path: &StmtPath,
    realize: &BlockRealize,
    region: &BufferRegion,
    top: &StmtPath,
) -> Vec<Option<(Expr, Expr)>> {
    let ndim = region.region.len();
    let none = vec![None; ndim];
    let binding = bindings(realize);
    let loops = loops_below(body, path, top);
    let ranges: Vec<(Var, Range)> = loops
        .iter()
        .map(|l| {
            (
                l.loop_var.clone(),
                Range::new(l.min.clone(), l.extent.clone()),
            )
        })
        .collect();
    let is_relaxed = |e: &Expr| ranges.iter().any(|(v, _)| e.uses_var(v));
    let mut mins = Vec::new();
    let mut bases = Vec::new();
    let mut extents = Vec::new();
    for r in &region.region {
        let Some(ext) = r.extent.as_int() else {
            return none;
        };
        let min = substitute_expr(&r.min, &binding);
        let dt = min.dtype();
        let mut terms = Vec::new();
        additive_terms(&min, 1, &mut terms);
        let (relaxed, fixed): (Vec<_>, Vec<_>) =
            terms.into_iter().partition(|(t, _)| is_relaxed(t));
        mins.push(rebuild_sum(&relaxed, dt));
        bases.push(rebuild_sum(&fixed, dt));
        extents.push(ext);
    }
    // Predicate conjuncts over the relaxed loops only.
    let pred = tessel_tir::arith::conjuncts(&realize.predicate)
        .into_iter()
        .filter(|c| is_relaxed(c) && !uses_other_loops(c, &ranges, body, path))
        .reduce(Expr::and)
        .unwrap_or_else(|| Expr::bool(true));
    let ana = Analyzer::new();
    let Ok(map) = detect_iter_map(&mins, &ranges, &pred) else {
        // Strided tiles (`i * 16` with a 16-wide region) are affine too.
        if !pred.is_const_int(1) {
            return none;
        }
        return strided_lower_bound(&mins, &bases, &extents, &ranges, &ana).unwrap_or(none);
    };
    let mut out = Vec::with_capacity(ndim);
    for ((sum, base), ext) in map.indices.iter().zip(&bases).zip(&extents) {
        let dt = base.dtype();
        let lo = ana.simplify(&Expr::binary(
            BinOp::Add,
            base.clone(),
            Expr::int(sum.base, dt),
        ));
        let span = if sum.args.is_empty() {
            *ext
        } else {
            sum.extent.saturating_add(ext.saturating_sub(1))
        };
        let hi = ana.simplify(&Expr::binary(
            BinOp::Add,
            lo.clone(),
            Expr::int(span.saturating_sub(1), dt),
        ));
        out.push(Some((lo, hi)));
    }
    out
}

/// The lower bound of indices that are sums `c_k * v_k` of distinct relaxed
/// loops forming a dense grid of stride `s` (coefficients `s`, `s * e_0`,
/// …): the region covers `[base, base + s * total + (extent - s))` when each
/// access is at least `s` wide.
fn strided_lower_bound(
    mins: &[Expr],
    bases: &[Expr],
    extents: &[i64],
    ranges: &[(Var, Range)],
    ana: &Analyzer,
) -> Option<Vec<Option<(Expr, Expr)>>> {
    let mut used: Vec<VarId> = Vec::new();
    let mut out = Vec::new();
    for ((min, base), ext) in mins.iter().zip(bases).zip(extents) {
        let dt = base.dtype();
        let mut terms = Vec::new();
        additive_terms(min, 1, &mut terms);
        let mut parsed: Vec<(i64, Range)> = Vec::new(); // (coefficient, loop range)
        let mut offset = 0i64;
        for (t, sign) in terms {
            if let Some(c) = t.as_int() {
                offset = offset.checked_add(c.checked_mul(sign)?)?;
                continue;
            }
            let (v, c) = match t.kind() {
                ExprKind::Var(v) => (v.clone(), 1),
                ExprKind::Binary(BinOp::Mul, a, b) => {
                    match (a.as_var(), b.as_int(), a.as_int(), b.as_var()) {
                        (Some(v), Some(c), _, _) | (_, _, Some(c), Some(v)) => (v.clone(), c),
                        _ => return None,
                    }
                }
                _ => return None,
            };
            let c = c.checked_mul(sign)?;
            if c == 0 || used.contains(&v.id()) {
                return None;
            }
            let (_, r) = ranges.iter().find(|(x, _)| *x == v)?;
            used.push(v.id());
            parsed.push((c, r.clone()));
        }
        let lo = ana.simplify(&Expr::binary(
            BinOp::Add,
            base.clone(),
            Expr::int(offset, dt),
        ));
        if let [(c, r)] = parsed.as_slice() {
            out.push(Some(single_term_bound(&lo, *c, r, *ext, ana)?));
            continue;
        }
        let mut lin: Vec<(i64, i64)> = Vec::new(); // (coefficient, extent)
        for (c, r) in &parsed {
            if *c <= 0 || !r.min.is_const_int(0) {
                return None;
            }
            lin.push((*c, r.extent.as_int()?));
        }
        if lin.is_empty() {
            let hi = ana.simplify(&Expr::binary(
                BinOp::Add,
                lo.clone(),
                Expr::int(ext.saturating_sub(1), dt),
            ));
            out.push(Some((lo, hi)));
            continue;
        }
        tessel_ir::sort::ascending(&mut lin);
        let stride = lin[0].0;
        let mut expect = stride;
        let mut total = 1i64;
        for (c, e) in &lin {
            if *c != expect {
                return None;
            }
            expect = expect.checked_mul(*e)?;
            total = total.checked_mul(*e)?;
        }
        if *ext < stride {
            return None;
        }
        let span = stride
            .checked_mul(total)?
            .checked_add(ext.checked_sub(stride)?)?;
        let hi = ana.simplify(&Expr::binary(
            BinOp::Add,
            lo.clone(),
            Expr::int(span.saturating_sub(1), dt),
        ));
        out.push(Some((lo, hi)));
    }
    Some(out)
}

/// What `base + c * v` surely writes with `v` over `range` (any extent,
/// symbolic ones included) and accesses `ext` wide: the values are `|c|`
/// apart, so they tile `[lowest, highest + ext)` when `ext >= |c|`. A
/// negative `c` (a reversed index, `9 - i`) walks the same span downwards.
fn single_term_bound(
    base: &Expr,
    c: i64,
    range: &Range,
    ext: i64,
    ana: &Analyzer,
) -> Option<(Expr, Expr)> {
    if ext < c.checked_abs()? {
        return None;
    }
    let dt = base.dtype();
    if range.min.dtype() != dt || range.extent.dtype() != dt {
        return None;
    }
    let first = Expr::binary(
        BinOp::Add,
        base.clone(),
        Expr::binary(BinOp::Mul, Expr::int(c, dt), range.min.clone()),
    );
    // c * (extent - 1): how far the last value is from the first.
    let reach = Expr::binary(
        BinOp::Mul,
        Expr::int(c, dt),
        Expr::binary(BinOp::Sub, range.extent.clone(), Expr::int(1, dt)),
    );
    let last = Expr::binary(BinOp::Add, first.clone(), reach);
    let (lowest, highest) = if c > 0 { (first, last) } else { (last, first) };
    let hi = Expr::binary(BinOp::Add, highest, Expr::int(ext - 1, dt));
    Some((ana.simplify(&lowest), ana.simplify(&hi)))
}

/// Whether `e` uses a loop variable of the block's enclosing loops that is
/// not among the relaxed ones.
fn uses_other_loops(e: &Expr, relaxed: &[(Var, Range)], body: &Stmt, path: &StmtPath) -> bool {
    enclosing_loops(body, path)
        .iter()
        .any(|(_, l)| !relaxed.iter().any(|(v, _)| *v == l.loop_var) && e.uses_var(&l.loop_var))
}

/// What a consumer may read of `region` under the ancestor `top`: per
/// dimension an inclusive interval (the whole dimension when unknown).
fn region_upper_bound(
    body: &Stmt,
    path: &StmtPath,
    realize: &BlockRealize,
    region: &BufferRegion,
    top: &StmtPath,
) -> Vec<(Expr, Expr)> {
    let binding = bindings(realize);
    let dom: HashMap<VarId, Range> = loops_below(body, path, top)
        .iter()
        .map(|l| (l.loop_var.id(), Range::new(l.min.clone(), l.extent.clone())))
        .collect();
    relax_region(region, &binding, &dom)
}

/// A region with block iterators replaced by their bindings and the loops of
/// `dom` relaxed: per dimension, inclusive bounds (the whole dimension when
/// they cannot be computed).
pub(crate) fn relax_region(
    region: &BufferRegion,
    binding: &HashMap<VarId, Expr>,
    dom: &HashMap<VarId, Range>,
) -> Vec<(Expr, Expr)> {
    let ana = Analyzer::new();
    region
        .region
        .iter()
        .enumerate()
        .map(|(d, r)| {
            let min = substitute_expr(&r.min, binding);
            let ext = substitute_expr(&r.extent, binding);
            let dt = min.dtype();
            let last = if ext.dtype() == dt {
                ana.simplify(&Expr::binary(
                    BinOp::Sub,
                    Expr::binary(BinOp::Add, min.clone(), ext),
                    Expr::int(1, dt),
                ))
            } else {
                min.clone()
            };
            let lo = tessel_tir::arith::int_set::eval_interval(&ana, &min, dom);
            let hi = tessel_tir::arith::int_set::eval_interval(&ana, &last, dom);
            match (lo, hi) {
                (Some((lo, _)), Some((_, hi))) => (lo, hi),
                _ => full_dim(&region.buffer, d, dt),
            }
        })
        .collect()
}

fn full_dim(buffer: &Buffer, d: usize, dt: DataType) -> (Expr, Expr) {
    match buffer.shape.get(d) {
        Some(e) => (
            Expr::int(0, e.dtype()),
            Analyzer::new().simplify(&Expr::binary(
                BinOp::Sub,
                e.clone(),
                Expr::int(1, e.dtype()),
            )),
        ),
        None => (Expr::int(0, dt), Expr::int(0, dt)),
    }
}

/// Whether the union of the produced lower bounds covers the consumed upper
/// bound in every dimension (both clamped to the buffer's shape). Integers
/// of different widths compare in the wider one, as TVM's operators promote.
fn covers(
    ana: &Analyzer,
    buffer: &Buffer,
    produced: &[Vec<Option<(Expr, Expr)>>],
    consumed: &[(Expr, Expr)],
) -> bool {
    for (d, (clo, chi)) in consumed.iter().enumerate() {
        let Some(extent) = buffer.shape.get(d) else {
            return false;
        };
        // Union of the producers' lower bounds (TVM: any unknown dimension
        // makes the union unknown).
        let mut ends: Vec<&Expr> = vec![clo, chi, extent];
        for p in produced {
            let Some(Some((plo, phi))) = p.get(d) else {
                return false;
            };
            ends.extend([plo, phi]);
        }
        if ends
            .iter()
            .any(|e| !e.dtype().is_int() || !e.dtype().is_scalar())
        {
            return false;
        }
        let dt = ends
            .iter()
            .map(|e| e.dtype())
            .max_by_key(|t| t.bits)
            .unwrap_or(clo.dtype());
        let wide = |e: &Expr| Expr::cast(dt, e.clone());
        let mut lo: Option<Expr> = None;
        let mut hi: Option<Expr> = None;
        for p in produced {
            let Some(Some((plo, phi))) = p.get(d) else {
                return false;
            };
            lo = Some(match lo {
                None => wide(plo),
                Some(x) => Expr::binary(BinOp::Min, x, wide(plo)),
            });
            hi = Some(match hi {
                None => wide(phi),
                Some(x) => Expr::binary(BinOp::Max, x, wide(phi)),
            });
        }
        let (Some(plo), Some(phi)) = (lo, hi) else {
            return false;
        };
        let zero = Expr::int(0, dt);
        let last = Expr::binary(BinOp::Sub, wide(extent), Expr::int(1, dt));
        let clamp = |lo: &Expr, hi: &Expr| {
            (
                ana.simplify(&Expr::binary(BinOp::Max, lo.clone(), zero.clone())),
                ana.simplify(&Expr::binary(BinOp::Min, hi.clone(), last.clone())),
            )
        };
        let (plo, phi) = clamp(&plo, &phi);
        let (clo, chi) = clamp(&wide(clo), &wide(chi));
        let ok_lo = ana.can_prove(&Expr::cmp(
            CmpOp::Le,
            Expr::binary(BinOp::Sub, plo, clo),
            Expr::int(0, dt),
        ));
        let ok_hi = ana.can_prove(&Expr::cmp(
            CmpOp::Le,
            Expr::binary(BinOp::Sub, chi, phi),
            Expr::int(0, dt),
        ));
        if !(ok_lo && ok_hi) {
            return false;
        }
    }
    true
}

fn dependencies(blocks: &[(StmtPath, BlockRealize)]) -> Vec<Dep> {
    let mut deps: Vec<Dep> = Vec::new();
    let push = |deps: &mut Vec<Dep>, src: usize, dst: usize, kind: DepKind| {
        if src != dst
            && !deps
                .iter()
                .any(|d| d.src == src && d.dst == dst && d.kind == kind)
        {
            deps.push(Dep { src, dst, kind });
        }
    };
    for (dst, (_, r)) in blocks.iter().enumerate() {
        let b = &r.block;
        for (src, (_, pr)) in blocks.iter().enumerate().take(dst) {
            let p = &pr.block;
            let p_writes = |buf: &Buffer| p.writes.iter().any(|w| w.buffer == *buf);
            if b.reads.iter().any(|rd| p_writes(&rd.buffer)) {
                push(&mut deps, src, dst, DepKind::Raw);
            }
            if b.writes.iter().any(|w| p_writes(&w.buffer)) {
                push(&mut deps, src, dst, DepKind::Waw);
            }
            if b.writes
                .iter()
                .any(|w| p.reads.iter().any(|rd| rd.buffer == w.buffer))
            {
                push(&mut deps, src, dst, DepKind::War);
            }
        }
    }
    deps
}

pub(crate) const COMPLETE_BLOCK_DEFINITION: &str = "Definition of a complete block:\n\
1) All block vars are data parallel\n\
2) Dominant: the block is the only writer of its output, dominating the reader of its output buffers\n\
3) No overlap between the buffers the block reads and writes";

pub(crate) const REDUCTION_BLOCK_DEFINITION: &str = "Definition of a reduction block:\n\
1) The block has the `init` statement\n\
2) All the block bindings are quasi-affine expressions\n\
3) All block vars are either data parallel block vars or reduction block vars\n\
4) Dominant: the block is the only writer of its output, dominating the reader of its output buffers\n\
5) The reduction block vars are not used to index the output buffers";

impl Scope {
    /// Whether every buffer the block writes has it as its only writer.
    fn is_dominant(&self, i: usize) -> bool {
        self.blocks[i]
            .1
            .block
            .writes
            .iter()
            .all(|w| self.writers(&w.buffer).len() <= 1)
    }

    /// Dominance judged, as TVM does for a loop's subtree, by the writers
    /// inside the block itself: none of its outputs has two writers among the
    /// blocks nested in it (siblings under the same loop do not count).
    fn is_locally_dominant(&self, body: &Stmt, i: usize) -> bool {
        let (path, r) = &self.blocks[i];
        let Some(inner) = Scope::at(body, path) else {
            return true;
        };
        r.block
            .writes
            .iter()
            .all(|w| inner.writers(&w.buffer).len() <= 1)
    }

    /// 0 for a complete block, else the first condition it violates.
    pub fn complete_code(&self, i: usize) -> u8 {
        self.complete_code_with(i, self.is_dominant(i))
    }

    /// 0 for a *local* complete block (TVM's check of the blocks under a
    /// loop: dominance within the block, see [`Self::is_locally_dominant`]).
    pub fn local_complete_code(&self, body: &Stmt, i: usize) -> u8 {
        self.complete_code_with(i, self.is_locally_dominant(body, i))
    }

    fn complete_code_with(&self, i: usize, dominant: bool) -> u8 {
        let b = &self.blocks[i].1.block;
        if b.iter_vars.iter().any(|iv| iv.kind != IterKind::Spatial) {
            return 1;
        }
        if !dominant {
            return 2;
        }
        if b.reads
            .iter()
            .any(|r| b.writes.iter().any(|w| w.buffer == r.buffer))
        {
            return 3;
        }
        0
    }

    /// 0 for a reduction block, else the first condition it violates.
    pub fn reduction_code(&self, body: &Stmt, i: usize) -> u8 {
        self.reduction_code_with(body, i, self.is_dominant(i))
    }

    /// 0 for a *local* reduction block (dominance within the block).
    pub fn local_reduction_code(&self, body: &Stmt, i: usize) -> u8 {
        self.reduction_code_with(body, i, self.is_locally_dominant(body, i))
    }

    fn reduction_code_with(&self, body: &Stmt, i: usize, dominant: bool) -> u8 {
        let (path, r) = &self.blocks[i];
        let b = &r.block;
        if b.init.is_none() {
            return 1;
        }
        if !is_affine_binding(body, path, r) {
            return 2;
        }
        if b.iter_vars
            .iter()
            .any(|iv| !matches!(iv.kind, IterKind::Spatial | IterKind::Reduce))
        {
            return 3;
        }
        if !dominant {
            return 4;
        }
        let reduce: Vec<&Var> = b
            .iter_vars
            .iter()
            .filter(|iv| iv.kind == IterKind::Reduce)
            .map(|iv| &iv.var)
            .collect();
        let mut bad = false;
        b.body.walk(&mut |s| {
            if let StmtKind::Store { indices, .. } = s.kind() {
                if indices.iter().any(|e| reduce.iter().any(|v| e.uses_var(v))) {
                    bad = true;
                }
            }
        });
        if bad {
            5
        } else {
            0
        }
    }

    pub fn check_complete(&self, primitive: &str, i: usize) -> Result<()> {
        let code = self.complete_code(i);
        if code != 0 {
            return Err(ScheduleError::block_structure(
                primitive,
                format!(
                    "The block `{}` is not a complete block - it violates condition #{code}.\n{COMPLETE_BLOCK_DEFINITION}",
                    self.name(i)
                ),
            )
            .at(self.blocks[i].0.clone()));
        }
        Ok(())
    }

    pub fn check_complete_or_reduction(
        &self,
        primitive: &str,
        body: &Stmt,
        i: usize,
    ) -> Result<()> {
        let c = self.complete_code(i);
        if c == 0 {
            return Ok(());
        }
        let r = self.reduction_code(body, i);
        if r == 0 {
            return Ok(());
        }
        Err(ScheduleError::not_reduction(
            primitive,
            format!(
                "The block `{}` is not a complete block - it violates condition #{c}.\n{COMPLETE_BLOCK_DEFINITION}\n\
                 The block is not a reduction block either - it violates condition #{r}.\n{REDUCTION_BLOCK_DEFINITION}",
                self.name(i)
            ),
        )
        .at(self.blocks[i].0.clone()))
    }

    /// An output block writes a buffer the scope block does not allocate.
    pub fn check_not_output(&self, primitive: &str, i: usize) -> Result<()> {
        let b = &self.blocks[i].1.block;
        let allocated = &self.root.block.alloc_buffers;
        if b.writes.iter().any(|w| !allocated.contains(&w.buffer)) {
            return Err(ScheduleError::block_structure(
                primitive,
                format!("The block `{}` is an output block", b.name),
            )
            .at(self.blocks[i].0.clone()));
        }
        Ok(())
    }
}

/// TVM's affine-binding property: the bindings are a quasi-affine map of the
/// loops between the block and its scope, each binding a single iterator.
pub(crate) fn is_affine_binding(body: &Stmt, path: &StmtPath, realize: &BlockRealize) -> bool {
    let loops = enclosing_loops(body, path);
    if loops.is_empty() {
        return true;
    }
    let ranges: Vec<(Var, Range)> = loops
        .iter()
        .map(|(_, l)| {
            (
                l.loop_var.clone(),
                Range::new(l.min.clone(), l.extent.clone()),
            )
        })
        .collect();
    detect_iter_map(&realize.iter_values, &ranges, &realize.predicate).is_ok()
}

/// TVM's `LeafBlockRemovalPlan`: the statement to delete so the block at
/// `block_path` disappears — the block, or its highest ancestor loop whose
/// parent has other children — as the path of an item of a `Seq`.
pub(crate) fn leaf_removal_path(
    primitive: &str,
    body: &Stmt,
    block_path: &StmtPath,
    scope: &Scope,
) -> Result<StmtPath> {
    let chain = tree::chain(body, block_path);
    let mut last = block_path.0.len();
    let mut d = last;
    while d > 0 {
        d -= 1;
        match chain[d].kind() {
            StmtKind::For(f) => {
                if matches!(f.body.kind(), StmtKind::Seq(items) if items.len() > 1) {
                    break;
                }
                last = d;
            }
            StmtKind::BlockRealize(_) => break,
            _ => {}
        }
    }
    // chain[d] is the loop or block whose direct body is the Seq holding chain[last].
    let only_leaf = || {
        ScheduleError::block_structure(
            primitive,
            format!(
                "Block `{}` is the only leaf in the scope `{}`, which cannot be removed; Otherwise the scope will be empty.",
                chain.last().and_then(|s| s.as_block_realize()).map(|r| r.block.name.clone()).unwrap_or_default(),
                scope.root.block.name
            ),
        )
    };
    let body_of = match chain[d].kind() {
        StmtKind::For(f) => &f.body,
        StmtKind::BlockRealize(r) => &r.block.body,
        _ => return Err(only_leaf()),
    };
    if !matches!(body_of.kind(), StmtKind::Seq(items) if items.len() > 1) {
        return Err(only_leaf());
    }
    // The removed statement must be an item of that Seq.
    if last != d + 2 || block_path.0.get(d) != Some(&0) {
        return Err(ScheduleError::unsupported(
            primitive,
            "Tessel cannot remove this block: a statement other than a loop separates it from its parent sequence",
        ));
    }
    Ok(StmtPath(block_path.0[..last].to_vec()))
}

/// `body` with the statement at `path` (an item of a `Seq`) removed.
pub(crate) fn remove_seq_item(body: &Stmt, path: &StmtPath) -> Stmt {
    tree::replace(body, path, Stmt::seq(Vec::new()))
}

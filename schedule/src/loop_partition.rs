//! `loop_partition`: a loop's range cut into consecutive pieces, each run
//! by its own copy of the loop and its body.
//!
//! Behaviour checked against TVM 0.27 (`LoopPartition`):
//!
//! - **Factors.** Each factor is the length of one piece, in order; at most
//!   one may be `None` (the rest of the range). The constant factors must be
//!   positive and add up to less than the loop's extent, also when one is
//!   `None`. Without a `None`, the rest of the range becomes one more piece,
//!   so the call returns one loop more than it was given factors. The loop
//!   needs a constant start and extent, and no annotation or thread binding.
//! - **Result.** An opaque block `<block>_<loop>_common` (after the first
//!   block below the loop) replaces the loop. It holds one opaque block
//!   `<block>_<loop><k>_partition` per piece, around a copy of the loop,
//!   named `<loop><k>`, over that piece's range. Every block of a copy is
//!   renamed `<block>_<loop><k>`. In a block whose iterator is bound to the
//!   loop variable itself, that iterator's domain becomes the piece's range,
//!   and the read and write regions of every buffer the block accesses with
//!   plain iterators (`A[vi, vj]`) become the iterators' domains
//!   (`A[7:11, 0:8]`); other regions stay. The call returns the copied loops.
//!   `preserve_unit_iters` is accepted and, as in TVM, has no effect.
//! - **Tessel's further checks.** TVM ignores the loop's start when it adds
//!   up the pieces (a loop from 2 would lose its last iterations), reads the
//!   first block's name by descending through loops only (a sequence there
//!   crashes it), tracks the iterator bound to the loop with one slot shared
//!   by nested blocks (an inner block gets the outer one's domain), copies
//!   buffers a block allocates into every piece, and takes a buffer's new
//!   region from its first plain access even when other accesses of the
//!   buffer reach outside it. Tessel refuses all of these: the loop must
//!   start at 0, lead through loops to one block, be used by block
//!   bindings only as it is (`vi = i`, not `vi = i_0 * 4 + i_1`: TVM keeps
//!   such an iterator's whole domain, which one piece no longer covers), not be bound to the
//!   reduction iterator of a block with an init (each piece's narrowed
//!   domain would run the init again, so TVM's result keeps only the last
//!   piece's sum), hold no block inside a
//!   block and no block that allocates or matches buffers, and a buffer
//!   whose region is rewritten must be accessed with the same plain
//!   iterators everywhere in the block.

use std::collections::HashMap;

use super::primitives::{param, ParamType as T, Primitive, Returns};
use super::replay::SchedValue;
use super::tree;
use super::*;
use tessel_tir::diag::Span;
use tessel_tir::ir::mutate::{walk_block, walk_expr, walk_stmt, Mutator};

pub(super) const LOOP_PARTITION: Primitive = Primitive {
    method: "loop_partition",
    aliases: &[],
    kind: "LoopPartition",
    params: &[
        param("loop", T::Loop),
        param("factors", T::Factors).spread_input(),
        param("preserve_unit_iters", T::Bool)
            .or_bool(true)
            .attr_bool_as_int(),
    ],
    returns: Returns::List,
    traced: true,
    apply: super::primitives::unless_lean(|sch, args| {
        let loops =
            sch.loop_partition_concrete(args.loop_rv("loop")?, &args.factors("factors")?)?;
        Ok(SchedValue::rv_list(&loops))
    }),
    menu: None,
};

const P: &str = "loop_partition";

/// The indices of every load and store of each buffer in a statement, in
/// the order TVM visits them (a store before the loads of its value).
fn accesses(s: &Stmt, out: &mut Vec<(BufferId, Vec<Expr>)>) {
    fn expr(e: &Expr, out: &mut Vec<(BufferId, Vec<Expr>)>) {
        e.walk(&mut |x| {
            if let ExprKind::Load { buffer, indices } = x.kind() {
                out.push((buffer.id, indices.clone()));
            }
        });
    }
    match s.kind() {
        StmtKind::Store {
            buffer,
            value,
            indices,
        } => {
            out.push((buffer.id, indices.clone()));
            expr(value, out);
            indices.iter().for_each(|i| expr(i, out));
        }
        StmtKind::For(l) => {
            expr(&l.min, out);
            expr(&l.extent, out);
            accesses(&l.body, out);
        }
        StmtKind::Let { value, body, .. } => {
            expr(value, out);
            accesses(body, out);
        }
        StmtKind::If {
            cond,
            then,
            otherwise,
        } => {
            expr(cond, out);
            accesses(then, out);
            if let Some(o) = otherwise {
                accesses(o, out);
            }
        }
        StmtKind::Evaluate(e) => expr(e, out),
        StmtKind::Seq(v) => v.iter().for_each(|x| accesses(x, out)),
        StmtKind::Allocate { body, .. } => accesses(body, out),
        StmtKind::BlockRealize(r) => {
            r.iter_values.iter().for_each(|x| expr(x, out));
            expr(&r.predicate, out);
            if let Some(i) = &r.block.init {
                accesses(i, out);
            }
            accesses(&r.block.body, out);
        }
    }
}

/// The iterators an access uses when every index is a plain variable.
fn plain_iters(indices: &[Expr]) -> Option<Vec<VarId>> {
    indices
        .iter()
        .map(|i| match i.kind() {
            ExprKind::Var(v) => Some(v.id()),
            _ => None,
        })
        .collect()
}

/// A block's regions with TVM's rewrite: a buffer accessed with plain
/// iterators gets the iterators' domains. Checks the accesses agree.
fn rewrite_regions(block: &Block) -> std::result::Result<Block, ScheduleError> {
    let mut all = Vec::new();
    accesses(&block.body, &mut all);
    let mut init_accesses = Vec::new();
    if let Some(i) = &block.init {
        accesses(i, &mut init_accesses);
    }
    let dom: HashMap<VarId, &Range> = block
        .iter_vars
        .iter()
        .map(|iv| (iv.var.id(), &iv.dom))
        .collect();
    let mut new_ranges: HashMap<BufferId, Vec<Range>> = HashMap::new();
    for (buf, indices) in &all {
        if new_ranges.contains_key(buf) {
            continue;
        }
        let Some(iters) = plain_iters(indices) else {
            continue;
        };
        let mut ranges = Vec::new();
        for v in &iters {
            let Some(d) = dom.get(v) else {
                return Err(ScheduleError::region_coverage(
                    P,
                    format!(
                        "Block `{}` indexes a buffer with a variable that is not one of its \
                         iterators; its new region cannot be read from the iterators' domains.",
                        block.name
                    ),
                ));
            };
            ranges.push((*d).clone());
        }
        // Every access of the buffer must stay inside the new region.
        let same =
            |(b, idx): &(BufferId, Vec<Expr>)| b != buf || plain_iters(idx) == Some(iters.clone());
        if !all.iter().all(same) || !init_accesses.iter().all(same) {
            return Err(ScheduleError::region_coverage(
                P,
                format!(
                    "Block `{}` accesses a buffer with different indices; the region TVM would \
                     give it (the domains of its first access's iterators) would not cover the \
                     others.",
                    block.name
                ),
            ));
        }
        new_ranges.insert(*buf, ranges);
    }
    let rewrite = |regions: &[BufferRegion]| -> Vec<BufferRegion> {
        regions
            .iter()
            .map(|r| match new_ranges.get(&r.buffer.id) {
                Some(ranges) => BufferRegion {
                    buffer: r.buffer.clone(),
                    region: ranges.clone(),
                },
                None => r.clone(),
            })
            .collect()
    };
    Ok(Block {
        reads: rewrite(&block.reads),
        writes: rewrite(&block.writes),
        ..block.clone()
    })
}

/// Copies a partitioned loop's body for one piece: fresh loop and iterator
/// variables, blocks renamed with the piece's loop name, and the iterator
/// bound to the loop narrowed to the piece.
struct PieceCopy {
    vars: HashMap<VarId, Expr>,
    /// The original loop variable.
    loop_var: VarId,
    /// The piece's range, `[start, end)`.
    start: i64,
    end: i64,
    suffix: String,
    error: Option<ScheduleError>,
}

impl Mutator for PieceCopy {
    fn expr(&mut self, e: &Expr) -> Expr {
        if let ExprKind::Var(v) = e.kind() {
            return self.vars.get(&v.id()).cloned().unwrap_or_else(|| e.clone());
        }
        walk_expr(self, e)
    }

    fn stmt(&mut self, s: &Stmt) -> Stmt {
        match s.kind() {
            StmtKind::For(l) => {
                let var = l.loop_var.fresh_copy();
                self.vars.insert(l.loop_var.id(), var.to_expr());
                let body = self.stmt(&l.body);
                Stmt::new(
                    StmtKind::For(For {
                        loop_var: var,
                        min: self.expr(&l.min),
                        extent: self.expr(&l.extent),
                        kind: l.kind,
                        thread_tag: l.thread_tag.clone(),
                        annotations: l.annotations.clone(),
                        body,
                    }),
                    s.span(),
                )
            }
            StmtKind::BlockRealize(r) => {
                let direct = r
                    .iter_values
                    .iter()
                    .position(|v| matches!(v.kind(), ExprKind::Var(x) if x.id() == self.loop_var));
                let mut block = r.block.clone();
                if let Some(iv) = direct.and_then(|k| block.iter_vars.get_mut(k)) {
                    let dt = iv.dom.min.dtype();
                    iv.dom = Range::new(
                        Expr::int(self.start, dt),
                        Expr::int(self.end - self.start, dt),
                    );
                    match rewrite_regions(&block) {
                        Ok(b) => block = b,
                        Err(e) => {
                            self.error.get_or_insert(e);
                        }
                    }
                }
                for iv in &mut block.iter_vars {
                    let var = iv.var.fresh_copy();
                    self.vars.insert(iv.var.id(), var.to_expr());
                    iv.var = var;
                }
                let iter_values = r.iter_values.iter().map(|e| self.expr(e)).collect();
                let predicate = self.expr(&r.predicate);
                let mut block = walk_block(self, &block);
                block.name = format!("{}_{}", block.name, self.suffix);
                Stmt::new(
                    StmtKind::BlockRealize(BlockRealize {
                        iter_values,
                        predicate,
                        block,
                    }),
                    s.span(),
                )
            }
            _ => walk_stmt(self, s),
        }
    }
}

/// An opaque block without iterators or regions around `body`.
fn opaque_block(name: String, body: Stmt) -> Stmt {
    util::realize(
        vec![],
        Expr::bool(true),
        Block {
            name,
            iter_vars: vec![],
            reads: vec![],
            writes: vec![],
            alloc_buffers: vec![],
            match_buffers: vec![],
            annotations: Annotations::new(),
            init: None,
            body,
            span: Span::default(),
        },
    )
}

impl Schedule {
    /// `sch.loop_partition(loop, factors)`: see the module documentation.
    pub fn loop_partition(&mut self, loop_rv: LoopRV, factors: &[Factor]) -> Result<Vec<LoopRV>> {
        let factors = factors
            .iter()
            .map(|f| match f {
                Factor::Infer => SchedValue::None,
                Factor::Const(c) => SchedValue::Int(*c),
                Factor::Sampled(rv) => (*rv).into(),
            })
            .collect();
        let args = vec![loop_rv.into(), SchedValue::List(factors)];
        self.apply_traced(
            &LOOP_PARTITION,
            super::primitives::Args::typed(&LOOP_PARTITION, args),
        )?
        .into_loops()
    }

    fn loop_partition_concrete(
        &mut self,
        loop_rv: LoopRV,
        factors: &[Factor],
    ) -> Result<Vec<LoopRV>> {
        let (path, node) = self.resolve_loop(P, loop_rv)?;
        let name = node.loop_var.name().to_string();
        let lengths = self.partition_lengths(&path, &node, factors)?;
        let PartitionedBlocks {
            block_name,
            blocks,
            loops_inside,
        } = partitioned_blocks(&path, &node)?;

        // One copy of the loop per piece.
        let mut pieces = Vec::with_capacity(lengths.len());
        let mut new_loops = Vec::with_capacity(lengths.len());
        let mut start = 0i64;
        let dt = node.loop_var.dtype();
        for (k, len) in lengths.iter().enumerate() {
            let end = start + len;
            let var = Var::new(format!("{name}{k}"), dt);
            let mut copy = PieceCopy {
                vars: HashMap::from([(node.loop_var.id(), var.to_expr())]),
                loop_var: node.loop_var.id(),
                start,
                end,
                suffix: var.name().to_string(),
                error: None,
            };
            let body = copy.stmt(&node.body);
            if let Some(e) = copy.error {
                return Err(e.at(path));
            }
            let piece = Stmt::from_kind(StmtKind::For(For {
                loop_var: var.clone(),
                min: Expr::int(start, dt),
                extent: Expr::int(*len, dt),
                kind: ForKind::Serial,
                thread_tag: None,
                annotations: Annotations::new(),
                body,
            }));
            pieces.push(opaque_block(
                format!("{block_name}_{name}{k}_partition"),
                piece,
            ));
            new_loops.push(var);
            start = end;
        }
        let common = opaque_block(format!("{block_name}_{name}_common"), Stmt::seq(pieces));
        self.replace_at(P, &path, common)?;
        for v in loops_inside {
            self.remove_loop_rvs(v);
        }
        for b in &blocks {
            self.rename_block_rvs(b, None);
        }
        Ok(new_loops.iter().map(|v| self.new_loop_rv(v)).collect())
    }

    /// The argument checks: a plain loop from 0 over a known extent, and
    /// positive factors (at most one inferred) summing to less than it.
    /// Returns the pieces' lengths.
    fn partition_lengths(
        &self,
        path: &StmtPath,
        node: &For,
        factors: &[Factor],
    ) -> Result<Vec<i64>> {
        let name = node.loop_var.name();
        if !node.annotations.is_empty() || node.thread_tag.is_some() {
            return Err(ScheduleError::loop_structure(
                P,
                format!("The loop `{name}` has annotations or a thread binding; loop_partition needs a plain loop."),
            )
            .at(path.clone()));
        }
        let (Some(min), Some(extent)) = (node.min.as_int(), node.extent.as_int()) else {
            return Err(ScheduleError::loop_structure(
                P,
                format!(
                    "The loop `{name}` has a symbolic start or extent; loop_partition needs both known."
                ),
            )
            .at(path.clone()));
        };
        if min != 0 {
            return Err(ScheduleError::unsupported(
                P,
                format!(
                    "The loop `{name}` starts at {min}; Tessel partitions loops that start at 0 \
                     (TVM 0.27 ignores the start and drops the last iterations)."
                ),
            )
            .at(path.clone()));
        }
        if factors.is_empty() {
            return Err(ScheduleError::invalid_argument(
                P,
                "loop_partition needs at least one factor",
            ));
        }
        let mut values: Vec<Option<i64>> = Vec::with_capacity(factors.len());
        for (i, f) in factors.iter().enumerate() {
            let v = match f {
                Factor::Infer => None,
                Factor::Const(c) => Some(*c),
                Factor::Sampled(rv) => Some(self.get_value(*rv).map_err(|e| e.for_primitive(P))?),
            };
            if let Some(v) = v.filter(|v| *v <= 0) {
                return Err(ScheduleError::invalid_argument(
                    P,
                    format!("All the constant factors are required to be positive; the factor at position {i} is {v}."),
                ));
            }
            values.push(v);
        }
        if values.iter().filter(|v| v.is_none()).count() > 1 {
            return Err(ScheduleError::invalid_argument(
                P,
                "Only one factor can be None (inferred).",
            ));
        }
        let total = values
            .iter()
            .flatten()
            .try_fold(0i64, |acc, v| acc.checked_add(*v))
            .unwrap_or(i64::MAX);
        if total >= extent {
            return Err(ScheduleError::loop_structure(
                P,
                format!(
                    "The sum of the factors ({total}) is larger than or equal to the extent of loop `{name}` ({extent})."
                ),
            )
            .at(path.clone()));
        }
        let mut lengths: Vec<i64> = values.iter().map(|v| v.unwrap_or(extent - total)).collect();
        if values.iter().all(Option::is_some) {
            lengths.push(extent - total);
        }
        Ok(lengths)
    }
}

/// What lies under the partitioned loop.
struct PartitionedBlocks {
    /// The first block below the loop, which names the new blocks.
    block_name: String,
    /// Every block under the loop.
    blocks: Vec<String>,
    /// The loop and the loops under it.
    loops_inside: Vec<VarId>,
}

/// The structure checks: the loop leads through loops to a first block, and
/// the blocks under it are unnested, allocate nothing and take the loop's
/// variable as it is, not as a reduction iterator with an init.
fn partitioned_blocks(path: &StmtPath, node: &For) -> Result<PartitionedBlocks> {
    let name = node.loop_var.name();
    // The first block below the loop, through loops only; no nested
    // blocks, no allocations.
    let mut first = &node.body;
    while let StmtKind::For(l) = first.kind() {
        first = &l.body;
    }
    let StmtKind::BlockRealize(first) = first.kind() else {
        return Err(ScheduleError::unsupported(
            P,
            format!(
                "The loop `{name}` does not lead through loops to one block; Tessel partitions \
                 such loops only (TVM 0.27 takes the name of that block and fails otherwise)."
            ),
        )
        .at(path.clone()));
    };
    let block_name = first.block.name.clone();
    let loop_stmt = Stmt::from_kind(StmtKind::For(node.clone()));
    let block_paths = tree::find_all(&loop_stmt, &mut |s| {
        matches!(s.kind(), StmtKind::BlockRealize(_))
    });
    let mut blocks = Vec::new();
    let mut loops_inside = vec![node.loop_var.id()];
    for p in &block_paths {
        let Some(StmtKind::BlockRealize(r)) = tree::get(&loop_stmt, p).map(|s| s.kind().clone())
        else {
            continue;
        };
        if block_paths.iter().any(|q| q != p && q.is_prefix_of(p)) {
            return Err(ScheduleError::unsupported(
                P,
                format!(
                    "Block `{}` lies inside another block under the loop `{name}`; Tessel \
                     partitions loops over unnested blocks only.",
                    r.block.name
                ),
            )
            .at(StmtPath([path.0.clone(), p.0.clone()].concat())));
        }
        if !r.block.alloc_buffers.is_empty() || !r.block.match_buffers.is_empty() {
            return Err(ScheduleError::block_structure(
                P,
                format!(
                    "Block `{}` allocates or matches buffers; each piece would share them.",
                    r.block.name
                ),
            ));
        }
        let is_loop_var =
            |v: &Expr| matches!(v.kind(), ExprKind::Var(x) if x.id() == node.loop_var.id());
        if r.iter_values
            .iter()
            .any(|v| !is_loop_var(v) && util::var_ids(v).contains(&node.loop_var.id()))
        {
            return Err(ScheduleError::unsupported(
                P,
                format!(
                    "Block `{}` binds an iterator to an expression of the loop `{name}`; \
                     Tessel partitions a loop only where blocks take its variable as it is \
                     (TVM 0.27 keeps the iterator's whole domain, which the piece's binding \
                     no longer covers).",
                    r.block.name
                ),
            )
            .at(path.clone()));
        }
        let narrows_reduction = r.block.init.is_some()
            && r.iter_values
                .iter()
                .zip(&r.block.iter_vars)
                .any(|(v, iv)| iv.kind == IterKind::Reduce && is_loop_var(v));
        if narrows_reduction {
            return Err(ScheduleError::unsupported(
                P,
                format!(
                    "The loop `{name}` is bound to a reduction iterator of block `{}`, which \
                     has an init: narrowing that iterator's domain would re-run the init at \
                     the start of every piece and drop the earlier pieces' sums (TVM 0.27 \
                     does so).",
                    r.block.name
                ),
            )
            .at(path.clone()));
        }
        blocks.push(r.block.name.clone());
    }
    loop_stmt.walk(&mut |s| {
        if let StmtKind::For(l) = s.kind() {
            loops_inside.push(l.loop_var.id());
        }
    });
    Ok(PartitionedBlocks {
        block_name,
        blocks,
        loops_inside,
    })
}

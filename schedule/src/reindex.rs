//! `reindex`, `reindex_cache_read`, `reindex_cache_write`: a block reads (or
//! writes) a buffer through a new buffer indexed by the block's own iterators.
//!
//! Behaviour checked against TVM 0.27 (`ReIndex`):
//!
//! - **Buffer.** `buffer` is `("read", i)`, `("write", i)` or a buffer name,
//!   as for `transform_layout`. The trace prints it as `buffer=("read", 0)`;
//!   TVM's JSON keeps it as two attributes, the index and the kind (`0` read,
//!   `1` write).
//! - **Legality.** The block must be a leaf (no block inside it); its body
//!   (not its init) must access the buffer only through loads and stores, all
//!   with the same indices (an opaque use of the buffer's data refuses); the
//!   scope must be a stage pipeline; and the block must sit under a chain of
//!   loops directly in its scope (no other statement between the loops).
//! - **Result.** The indices, simplified with the iterator domains (an index
//!   that folds to a constant stays as written, so a unit-extent iterator
//!   keeps its dimension), name the iterators they use ("covered"). A buffer `<name>_reindex` of shape
//!   `dom.min + dom.extent` for each covered iterator, in iterator order, is
//!   allocated in the scope; every access of the buffer in the block (init
//!   included) becomes `<name>_reindex[v…]` of the covered iterators, and the
//!   block's region of it the point at those iterators. A copy block — named
//!   after the buffer it writes plus `_reindex`, so `A_reindex_reindex` for a
//!   read — with iterators `v0, v1, …` over loops `ax0, ax1, …` spanning the
//!   covered domains goes right before the block's outermost loop (a read) or
//!   right after it (a write).
//!
//! `reindex_cache_read(block, read_buffer_index, storage_scope, index_map)`
//! and `reindex_cache_write(block, write_buffer_index, storage_scope,
//! index_map)` (TVM's `ReindexCacheRead`/`ReindexCacheWrite`):
//!
//! - **Legality**, in TVM's order: a valid storage scope, the index in range,
//!   a stage-pipeline scope, at most one block of the scope writing the
//!   buffer; the block's region of the buffer must be a single point; each
//!   block iterator must appear in the old indices exactly when it appears in
//!   the new ones (`index_map` of the block's iterators, which must take one
//!   index per iterator). Tessel also refuses a map whose image does not
//!   start at 0 (TVM would give the buffer the image's extent and index it
//!   out of bounds).
//! - **Result.** A buffer `<name>_<scope>` shaped like the map's image over
//!   the iterator domains. The copy block, named the same, has the iterators
//!   the map uses (same names and domains) bound as in the block, under copies
//!   of the loops between the block and the insertion point that those
//!   bindings use; it is placed as `cache_read`/`cache_write` place theirs
//!   (the block counts as the only consumer of a read). The block — for a
//!   write also the blocks inside it — accesses the cache at the mapped
//!   indices, its regions of it the point there. The trace keeps the map as
//!   TVM prints it (`lambda i, j, k: (k, i,)`) after `storage_scope`; TVM's
//!   JSON keeps it as the second input.

use std::collections::HashSet;

use super::cache::{
    check_stage_pipeline, check_storage_scope, child_blocks, detect_cache_loc, insert_stage,
    loops_below, nth_access_buffer, raw_consumers, single_writer_error, BufferIndexType, CacheLoc,
};
use super::layout::{select_buffer, BufferSel, IndexMap};
use super::primitives::{param, Enc, ParamType as T, Primitive, Returns};
use super::query::enclosing_block_path;
use super::replay::SchedValue;
use super::tree;
use super::util::var_ids;
use super::*;
use tessel_tir::arith::{expr_deep_equal, Analyzer};
use tessel_tir::ir::mutate::{walk_expr, walk_stmt, Mutator};

pub(super) const REINDEX: Primitive = Primitive {
    method: "reindex",
    aliases: &[],
    kind: "ReIndex",
    params: &[
        param("block", T::Block),
        param("buffer", T::Any).attr_as(Enc::IndexAndKind),
    ],
    returns: Returns::One,
    traced: true,
    apply: super::primitives::unless_lean(|sch, args| {
        let sel = BufferSel::from_value(args.value("buffer")?, None)
            .map_err(|m| args.err(ScheduleErrorKind::InvalidArgument, m))?;
        let (copy, kind, index) = sch.reindex_concrete(args.block("block")?, &sel)?;
        args.record_as("buffer", SchedValue::Source(index_and_kind(kind, index)))?;
        Ok(copy.into())
    }),
    menu: None,
};

/// `("read", 0)`, as TVM's trace prints a buffer chosen by kind and index.
pub(crate) fn index_and_kind(kind: BufferIndexType, index: i64) -> String {
    format!("(\"{}\", {index})", kind.name())
}

/// The indices of every load and store of one buffer in a block body, with
/// TVM's refusals: a nested block, different indices, an opaque use.
struct AccessCollector<'a> {
    buffer: &'a Buffer,
    indices: Option<Vec<Expr>>,
    problem: Option<&'static str>,
}

impl AccessCollector<'_> {
    fn record(&mut self, indices: &[Expr]) {
        match &self.indices {
            None => self.indices = Some(indices.to_vec()),
            Some(seen) => {
                let same = seen.len() == indices.len()
                    && seen.iter().zip(indices).all(|(a, b)| expr_deep_equal(a, b));
                if !same && self.problem.is_none() {
                    self.problem = Some("Multiple buffer accesses have non-unique indices.");
                }
            }
        }
    }
}

impl Mutator for AccessCollector<'_> {
    fn expr(&mut self, e: &Expr) -> Expr {
        match e.kind() {
            ExprKind::Load { buffer, indices } if buffer == self.buffer => {
                self.record(indices);
                for i in indices {
                    self.expr(i);
                }
                e.clone()
            }
            ExprKind::Var(v) if v.id() == self.buffer.data.id() => {
                self.problem.get_or_insert("Opaque buffer accesses found.");
                e.clone()
            }
            _ => walk_expr(self, e),
        }
    }
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        if let StmtKind::Store {
            buffer, indices, ..
        } = s.kind()
        {
            if buffer == self.buffer {
                let indices = indices.clone();
                walk_stmt(self, s);
                self.record(&indices);
                return s.clone();
            }
        }
        walk_stmt(self, s)
    }
}

/// Every access of `from` becomes `to[indices]`; the block's regions of it
/// the point at `indices`.
struct ReindexRewriter<'a> {
    from: &'a Buffer,
    to: &'a Buffer,
    indices: &'a [Expr],
}

impl Mutator for ReindexRewriter<'_> {
    fn expr(&mut self, e: &Expr) -> Expr {
        let e = walk_expr(self, e);
        match e.kind() {
            ExprKind::Load { buffer, .. } if buffer == self.from => {
                Expr::load(self.to, self.indices.to_vec())
            }
            _ => e,
        }
    }
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        let s = walk_stmt(self, s);
        match s.kind() {
            StmtKind::Store { buffer, value, .. } if buffer == self.from => Stmt::new(
                StmtKind::Store {
                    buffer: self.to.clone(),
                    value: value.clone(),
                    indices: self.indices.to_vec(),
                },
                s.span(),
            ),
            _ => s,
        }
    }
}

impl Schedule {
    /// `sch.reindex(block, buffer)`: see the module documentation. Returns
    /// the copy block.
    pub fn reindex(&mut self, block_rv: BlockRV, buffer: BufferSel) -> Result<BlockRV> {
        let buffer = match buffer {
            BufferSel::Index(kind, i) => SchedValue::List(vec![kind.name().into(), i.into()]),
            BufferSel::Name(name) => SchedValue::Str(name),
        };
        let args = super::primitives::Args::typed(&REINDEX, vec![block_rv.into(), buffer]);
        self.apply_traced(&REINDEX, args)?.into_block()
    }

    fn reindex_concrete(
        &mut self,
        block_rv: BlockRV,
        sel: &BufferSel,
    ) -> Result<(BlockRV, BufferIndexType, i64)> {
        const P: &str = "reindex";
        let (path, realize) = self.resolve_block(P, block_rv)?;
        let block = &realize.block;
        let (kind, index) = select_buffer(P, block, sel, &path)?;
        let buffer = nth_access_buffer(P, block, index, kind, &path)?;
        let body = self.body(P)?;
        let Some(scope_path) = enclosing_block_path(&body, &path) else {
            return Err(ScheduleError::block_structure(
                P,
                format!("block `{}` is the root block; it has no scope", block.name),
            )
            .at(path));
        };
        let scope_name = match tree::get(&body, &scope_path).map(|s| s.kind().clone()) {
            Some(StmtKind::BlockRealize(r)) => r.block.name,
            _ => String::new(),
        };
        let indices = leaf_access_indices(P, block, &buffer, &path)?;
        check_stage_pipeline(P, &body, &scope_path, &scope_name)?;
        let pos = reindex_stage_position(P, &body, &path, &scope_path, &scope_name, block, kind)?;

        // The indices, simplified, and the iterators they cover.
        let mut ana = Analyzer::new();
        for iv in &block.iter_vars {
            ana.bind(&iv.var, &iv.dom);
        }
        // An index that folds to a constant stays as written (TVM's
        // `SimplifyNonTrivialExpr`): a unit-extent iterator keeps its
        // dimension in the new buffer.
        let indices: Vec<Expr> = indices
            .iter()
            .map(|e| {
                let simple = ana.simplify(e);
                if simple.as_int().is_some() {
                    e.clone()
                } else {
                    simple
                }
            })
            .collect();
        let mut covered: HashSet<VarId> = HashSet::new();
        for e in &indices {
            covered.extend(var_ids(e));
        }
        let covered_iters: Vec<&IterVar> = block
            .iter_vars
            .iter()
            .filter(|iv| covered.contains(&iv.var.id()))
            .collect();

        let reindex_buffer = buffer.derive(|n| {
            n.name = format!("{}_reindex", buffer.name);
            n.shape = covered_iters
                .iter()
                .map(|iv| {
                    if iv.dom.min.is_const_int(0) {
                        iv.dom.extent.clone()
                    } else {
                        ana.simplify(&Expr::binary(
                            BinOp::Add,
                            iv.dom.min.clone(),
                            iv.dom.extent.clone(),
                        ))
                    }
                })
                .collect();
            n.strides = Vec::new();
        });
        let (stage, stage_name) =
            build_reindex_stage(kind, &buffer, &reindex_buffer, &covered_iters, &indices);

        // The block reads or writes the reindex buffer at its covered iterators.
        let new_indices: Vec<Expr> = covered_iters.iter().map(|iv| iv.var.to_expr()).collect();
        let mut rw = ReindexRewriter {
            from: &buffer,
            to: &reindex_buffer,
            indices: &new_indices,
        };
        let mut new_block = block.clone();
        new_block.body = rw.stmt(&block.body);
        new_block.init = block.init.as_ref().map(|s| rw.stmt(s));
        let retarget = |regions: &[BufferRegion]| -> Vec<BufferRegion> {
            regions
                .iter()
                .map(|r| {
                    if r.buffer == buffer {
                        point_region(&reindex_buffer, &new_indices)
                    } else {
                        r.clone()
                    }
                })
                .collect()
        };
        new_block.reads = retarget(&block.reads);
        new_block.writes = retarget(&block.writes);
        let mut new_realize = realize.clone();
        new_realize.block = new_block;
        let span = tree::get(&body, &path)
            .map(|s| s.span())
            .unwrap_or_default();
        let body = tree::replace(
            &body,
            &path,
            Stmt::new(StmtKind::BlockRealize(new_realize), span),
        );
        let body = insert_stage(
            &body,
            &CacheLoc {
                path: scope_path.clone(),
                pos,
            },
            stage,
        );
        let body = super::cache::add_alloc(&body, &scope_path, reindex_buffer);
        self.set_body(P, body)?;
        Ok((self.new_block_rv(&stage_name), kind, index))
    }
}

/// The region of `b` that is the point at `idx`.
fn point_region(b: &Buffer, idx: &[Expr]) -> BufferRegion {
    BufferRegion {
        buffer: b.clone(),
        region: idx.iter().map(|e| Range::point(e.clone())).collect(),
    }
}

/// The indices at which a leaf block's body accesses `buffer`; refuses a
/// block with blocks inside, and a buffer accessed at different indices or
/// not at all.
fn leaf_access_indices(
    p: &str,
    block: &Block,
    buffer: &Buffer,
    path: &StmtPath,
) -> Result<Vec<Expr>> {
    // A leaf block whose body accesses the buffer one way only.
    let mut nested = false;
    for part in std::iter::once(&block.body).chain(block.init.as_ref()) {
        nested |= !tree::find_all(part, &mut |s| matches!(s.kind(), StmtKind::BlockRealize(_)))
            .is_empty();
    }
    if nested {
        return Err(ScheduleError::block_structure(
            p,
            format!("The target block `{}` is not a leaf block.", block.name),
        )
        .at(path.clone()));
    }
    let mut collector = AccessCollector {
        buffer,
        indices: None,
        problem: None,
    };
    collector.stmt(&block.body);
    let access_error = |detail: &str| {
        ScheduleError::block_structure(
            p,
            format!(
                "The target buffer {} should be accessed in the leaf block `{}` via BufferLoad \
                 or BufferStore. The indices should be the same if there are multiple accesses \
                 to the target buffer. {detail}",
                buffer.name, block.name
            ),
        )
        .at(path.clone())
    };
    if let Some(problem) = collector.problem {
        return Err(access_error(problem));
    }
    let Some(indices) = collector.indices else {
        return Err(access_error("No buffer accesses found."));
    };
    Ok(indices)
}

/// Where in its scope the copy stage goes: before the statement holding the
/// block (a read) or after it (a write). The block must hang from a chain of
/// loops directly in the scope.
fn reindex_stage_position(
    p: &str,
    body: &Stmt,
    path: &StmtPath,
    scope_path: &StmtPath,
    scope_name: &str,
    block: &Block,
    kind: BufferIndexType,
) -> Result<usize> {
    let chain = tree::chain(body, path);
    let depth = scope_path.0.len();
    let mut pos = 0;
    let mut first = depth + 1;
    if let Some(StmtKind::Seq(_)) = chain.get(first).map(|s| s.kind()) {
        pos = path.0[first];
        first += 1;
    }
    for link in chain.iter().take(chain.len() - 1).skip(first) {
        if !matches!(link.kind(), StmtKind::For(_)) {
            return Err(ScheduleError::loop_structure(
                p,
                format!(
                    "block `{}` is not under a chain of loops directly in its scope `{scope_name}`: \
                     only loops may stand between them",
                    block.name
                ),
            )
            .at(path.clone()));
        }
    }
    if kind == BufferIndexType::Write {
        pos += 1;
    }
    Ok(pos)
}

/// The copy stage between `buffer` and `reindex_buffer`: iterators v0, v1, …
/// over loops ax0, ax1, …, one per covered iterator. Returns it with its
/// block's name.
fn build_reindex_stage(
    kind: BufferIndexType,
    buffer: &Buffer,
    reindex_buffer: &Buffer,
    covered_iters: &[&IterVar],
    indices: &[Expr],
) -> (Stmt, String) {
    let mut map = std::collections::HashMap::new();
    let mut new_iters = Vec::new();
    let mut loops = Vec::new();
    for iv in covered_iters {
        let i = new_iters.len();
        let v = Var::new(format!("v{i}"), iv.var.dtype());
        let ax = Var::new(format!("ax{i}"), iv.var.dtype());
        map.insert(iv.var.id(), v.to_expr());
        new_iters.push(IterVar {
            var: v,
            dom: iv.dom.clone(),
            kind: IterKind::Spatial,
        });
        loops.push((ax, iv.dom.clone()));
    }
    // Iterators that are not covered do not occur in the indices.
    let target_indices: Vec<Expr> = indices
        .iter()
        .map(|e| tessel_tir::ir::mutate::substitute_expr(e, &map))
        .collect();
    let reindex_indices: Vec<Expr> = new_iters.iter().map(|iv| iv.var.to_expr()).collect();
    let (src, src_idx, dst, dst_idx) = match kind {
        BufferIndexType::Read => (buffer, target_indices, reindex_buffer, reindex_indices),
        BufferIndexType::Write => (reindex_buffer, reindex_indices, buffer, target_indices),
    };
    let stage_name = format!("{}_reindex", dst.name);
    let stage_block = Block {
        name: stage_name.clone(),
        iter_vars: new_iters,
        reads: vec![point_region(src, &src_idx)],
        writes: vec![point_region(dst, &dst_idx)],
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
    let mut stage = super::util::realize(
        loops.iter().map(|(ax, _)| ax.to_expr()).collect(),
        Expr::bool(true),
        stage_block,
    );
    for (ax, dom) in loops.into_iter().rev() {
        stage = Stmt::from_kind(StmtKind::For(For {
            loop_var: ax,
            min: dom.min,
            extent: dom.extent,
            kind: ForKind::Serial,
            thread_tag: None,
            annotations: Annotations::new(),
            body: stage,
        }));
    }
    (stage, stage_name)
}

/// `reindex_cache_read` and `reindex_cache_write` differ in the index's name.
macro_rules! reindex_cache_params {
    ($index:literal) => {
        &[
            param("block", T::Block),
            param($index, T::Int).attr(),
            param("storage_scope", T::Str).attr(),
            param("index_map", T::Any),
        ]
    };
}

pub(super) const REINDEX_CACHE_READ: Primitive = Primitive {
    method: "reindex_cache_read",
    aliases: &[],
    kind: "ReindexCacheRead",
    params: reindex_cache_params!("read_buffer_index"),
    returns: Returns::One,
    traced: true,
    apply: super::primitives::unless_lean(|sch, args| {
        apply_reindex_cache(sch, args, BufferIndexType::Read)
    }),
    menu: None,
};

pub(super) const REINDEX_CACHE_WRITE: Primitive = Primitive {
    method: "reindex_cache_write",
    aliases: &[],
    kind: "ReindexCacheWrite",
    params: reindex_cache_params!("write_buffer_index"),
    returns: Returns::One,
    traced: true,
    apply: super::primitives::unless_lean(|sch, args| {
        apply_reindex_cache(sch, args, BufferIndexType::Write)
    }),
    menu: None,
};

fn apply_reindex_cache(
    sch: &mut Schedule,
    args: &mut super::primitives::Args,
    kind: BufferIndexType,
) -> Result<SchedValue> {
    let index_name = match kind {
        BufferIndexType::Read => "read_buffer_index",
        BufferIndexType::Write => "write_buffer_index",
    };
    let map_src = match args.value("index_map")? {
        SchedValue::Source(s) | SchedValue::Str(s) => s,
        other => {
            return Err(args.err(ScheduleErrorKind::InvalidArgument, format!(
                "index_map must be a lambda over the block's iterators, such as `lambda i, j, k: (k, i)`; got {}",
                super::primitives::describe(&other)
            )))
        }
    };
    let (copy, map) = sch.reindex_cache_concrete(
        args.block("block")?,
        kind,
        args.int(index_name)?,
        &args.string("storage_scope")?,
        &map_src,
    )?;
    args.record_as("index_map", SchedValue::Source(map.python()))?;
    Ok(copy.into())
}

/// Every access of `from` in the chosen blocks becomes `to[indices]`, and
/// their regions of it the point there. Reads only: loads in the consumer;
/// writes: loads and stores in the writer and the blocks inside it.
struct ReindexCacheRewriter<'a> {
    from: &'a Buffer,
    to: &'a Buffer,
    indices: &'a [Expr],
    block: &'a str,
    write: bool,
    inside: bool,
}

impl Mutator for ReindexCacheRewriter<'_> {
    fn expr(&mut self, e: &Expr) -> Expr {
        let e = walk_expr(self, e);
        match e.kind() {
            ExprKind::Load { buffer, .. } if self.inside && buffer == self.from => {
                Expr::load(self.to, self.indices.to_vec())
            }
            _ => e,
        }
    }
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        if let StmtKind::BlockRealize(r) = s.kind() {
            let was = self.inside;
            let here = r.block.name == self.block;
            if here {
                self.inside = true;
            } else if !self.write {
                // A read rewrites its one consumer only.
                self.inside = false;
            }
            let out = walk_stmt(self, s);
            let out = if self.inside {
                let StmtKind::BlockRealize(mut nr) = out.kind().clone() else {
                    unreachable!("a block realize rewrites to a block realize")
                };
                let region = |regions: &[BufferRegion]| -> Vec<BufferRegion> {
                    regions
                        .iter()
                        .map(|x| {
                            if x.buffer == *self.from {
                                BufferRegion {
                                    buffer: self.to.clone(),
                                    region: self
                                        .indices
                                        .iter()
                                        .map(|e| Range::point(e.clone()))
                                        .collect(),
                                }
                            } else {
                                x.clone()
                            }
                        })
                        .collect()
                };
                nr.block.reads = region(&nr.block.reads);
                if self.write {
                    nr.block.writes = region(&nr.block.writes);
                }
                Stmt::new(StmtKind::BlockRealize(nr), out.span())
            } else {
                out
            };
            self.inside = was;
            return out;
        }
        let s = walk_stmt(self, s);
        match s.kind() {
            StmtKind::Store { buffer, value, .. }
                if self.write && self.inside && buffer == self.from =>
            {
                Stmt::new(
                    StmtKind::Store {
                        buffer: self.to.clone(),
                        value: value.clone(),
                        indices: self.indices.to_vec(),
                    },
                    s.span(),
                )
            }
            _ => s,
        }
    }
}

impl Schedule {
    /// `sch.reindex_cache_read(block, read_buffer_index, storage_scope,
    /// index_map)`: see the module documentation. Returns the copy block.
    pub fn reindex_cache_read(
        &mut self,
        block_rv: BlockRV,
        read_buffer_index: i64,
        storage_scope: &str,
        index_map: &str,
    ) -> Result<BlockRV> {
        let args = super::primitives::Args::typed(
            &REINDEX_CACHE_READ,
            vec![
                block_rv.into(),
                read_buffer_index.into(),
                storage_scope.into(),
                SchedValue::Source(index_map.to_string()),
            ],
        );
        self.apply_traced(&REINDEX_CACHE_READ, args)?.into_block()
    }

    /// `sch.reindex_cache_write(block, write_buffer_index, storage_scope,
    /// index_map)`: see the module documentation. Returns the copy block.
    pub fn reindex_cache_write(
        &mut self,
        block_rv: BlockRV,
        write_buffer_index: i64,
        storage_scope: &str,
        index_map: &str,
    ) -> Result<BlockRV> {
        let args = super::primitives::Args::typed(
            &REINDEX_CACHE_WRITE,
            vec![
                block_rv.into(),
                write_buffer_index.into(),
                storage_scope.into(),
                SchedValue::Source(index_map.to_string()),
            ],
        );
        self.apply_traced(&REINDEX_CACHE_WRITE, args)?.into_block()
    }

    fn reindex_cache_concrete(
        &mut self,
        block_rv: BlockRV,
        kind: BufferIndexType,
        index: i64,
        storage_scope: &str,
        map_src: &str,
    ) -> Result<(BlockRV, IndexMap)> {
        let p: &'static str = match kind {
            BufferIndexType::Read => "reindex_cache_read",
            BufferIndexType::Write => "reindex_cache_write",
        };
        check_storage_scope(p, storage_scope)?;
        let (path, realize) = self.resolve_block(p, block_rv)?;
        let block = &realize.block;
        let buffer = nth_access_buffer(p, block, index, kind, &path)?;
        let body = self.body(p)?;
        let Some(scope_path) = enclosing_block_path(&body, &path) else {
            return Err(ScheduleError::block_structure(
                p,
                format!("block `{}` is the root block; it has no scope", block.name),
            )
            .at(path));
        };
        let scope_name = match tree::get(&body, &scope_path).map(|s| s.kind().clone()) {
            Some(StmtKind::BlockRealize(r)) => r.block.name,
            _ => String::new(),
        };
        check_stage_pipeline(p, &body, &scope_path, &scope_name)?;
        let children = child_blocks(&body, &scope_path);
        let writers: Vec<usize> = children
            .iter()
            .enumerate()
            .filter(|(_, c)| c.realize.block.writes.iter().any(|w| w.buffer == buffer))
            .map(|(i, _)| i)
            .collect();
        if writers.len() > 1 {
            return Err(single_writer_error(p, &buffer, &children, &writers));
        }
        let regions = match kind {
            BufferIndexType::Read => &block.reads,
            BufferIndexType::Write => &block.writes,
        };
        let region = regions
            .iter()
            .find(|r| r.buffer == buffer)
            .cloned()
            .ok_or_else(|| ScheduleError::internal(p, "internal: the region is gone"))?;
        let loc = match (kind, writers.first()) {
            (BufferIndexType::Read, Some(&w)) => {
                let related: HashSet<String> = [block.name.clone()].into_iter().collect();
                detect_cache_loc(
                    &body,
                    &scope_path,
                    &children[w].realize.block.name,
                    &related,
                )
            }
            (BufferIndexType::Read, None) => CacheLoc {
                path: scope_path.clone(),
                pos: 0,
            },
            (BufferIndexType::Write, _) => {
                let me = children
                    .iter()
                    .position(|c| c.realize.block.name == block.name);
                let related = me.map(|i| raw_consumers(&children, i)).unwrap_or_default();
                detect_cache_loc(&body, &scope_path, &block.name, &related)
            }
        };
        check_point_region(p, &buffer, block, &region, &path)?;

        // The index map over the block's iterators gives the cache's indices.
        let (map, new_indices, shape) = cache_indices(p, block, map_src, &path)?;

        // Iterators must appear in the old indices exactly when they appear
        // in the new ones.
        let old_indices: Vec<Expr> = region.region.iter().map(|r| r.min.clone()).collect();
        let covered = covered_cache_iters(p, &realize, &old_indices, &new_indices, &path)?;
        let binding_vars: HashSet<VarId> = covered.iter().flat_map(|(_, b)| var_ids(b)).collect();
        let loops: Vec<For> = loops_below(&body, &path, &loc.path)
            .into_iter()
            .map(|(_, l)| l)
            .filter(|l| binding_vars.contains(&l.loop_var.id()))
            .collect();

        let cache_name = format!("{}_{}", buffer.name, storage_scope);
        let cache = buffer.derive(|n| {
            n.name = cache_name.clone();
            n.scope = if storage_scope.is_empty() {
                "global".to_string()
            } else {
                storage_scope.to_string()
            };
            n.shape = shape;
            n.strides = Vec::new();
        });
        let stage = build_reindex_cache_stage(
            kind,
            &buffer,
            &cache,
            &loops,
            &covered,
            &old_indices,
            &new_indices,
        );

        let scope_stmt = tree::get(&body, &scope_path)
            .ok_or_else(|| ScheduleError::internal(p, "internal: stale scope path"))?;
        let mut rw = ReindexCacheRewriter {
            from: &buffer,
            to: &cache,
            indices: &new_indices,
            block: &block.name,
            write: kind == BufferIndexType::Write,
            inside: false,
        };
        let new_scope = rw.stmt(&scope_stmt);
        let body = tree::replace(&body, &scope_path, new_scope);
        let body = insert_stage(&body, &loc, stage);
        let body = super::cache::add_alloc(&body, &scope_path, cache);
        self.set_body(p, body)?;
        Ok((self.new_block_rv(&cache_name), map))
    }
}

/// Refuses a region of the cached buffer that is not a single point.
fn check_point_region(
    p: &str,
    buffer: &Buffer,
    block: &Block,
    region: &BufferRegion,
    path: &StmtPath,
) -> Result<()> {
    if region.region.iter().all(|r| r.extent.is_const_int(1)) {
        return Ok(());
    }
    let dims: Vec<String> = region
        .region
        .iter()
        .map(|r| {
            let min = tessel_tir::ir::printer::print_expr(&r.min);
            if r.extent.is_const_int(1) {
                return min;
            }
            let end = Analyzer::new().simplify(&Expr::binary(
                BinOp::Add,
                r.min.clone(),
                r.extent.clone(),
            ));
            format!("{min}:{}", tessel_tir::ir::printer::print_expr(&end))
        })
        .collect();
    Err(ScheduleError::region_coverage(
        p,
        format!(
            "The buffer region {}[{}] accessed inside block `{}` is not a single point, \
             which violates the prerequisite of {p} primitive.",
            buffer.name,
            dims.join(", "),
            block.name
        ),
    )
    .at(path.clone()))
}

/// Parses the index map over the block's iterators and returns it with the
/// cache's indices (simplified) and the cache's shape; refuses a map of the
/// wrong arity and results that do not range over `[0, n)`.
fn cache_indices(
    p: &str,
    block: &Block,
    map_src: &str,
    path: &StmtPath,
) -> Result<(IndexMap, Vec<Expr>, Vec<Expr>)> {
    let dtype = block
        .iter_vars
        .first()
        .map(|iv| iv.var.dtype())
        .unwrap_or(DataType::i32());
    let map = IndexMap::parse(map_src, dtype).map_err(|m| ScheduleError::invalid_argument(p, m))?;
    if map.params.len() != block.iter_vars.len() {
        return Err(ScheduleError::invalid_argument(
            p,
            format!(
                "the index map takes {} indices but block `{}` has {} iterators",
                map.params.len(),
                block.name,
                block.iter_vars.len()
            ),
        )
        .at(path.clone()));
    }
    let mut ana = Analyzer::new();
    for iv in &block.iter_vars {
        ana.bind(&iv.var, &iv.dom);
    }
    let iter_exprs: Vec<Expr> = block.iter_vars.iter().map(|iv| iv.var.to_expr()).collect();
    let new_indices: Vec<Expr> = map
        .apply(&iter_exprs)
        .iter()
        .map(|e| ana.simplify(e))
        .collect();
    let dom: std::collections::HashMap<VarId, Range> = block
        .iter_vars
        .iter()
        .map(|iv| (iv.var.id(), iv.dom.clone()))
        .collect();
    let mut shape = Vec::new();
    for e in &new_indices {
        let bounds = tessel_tir::arith::int_set::eval_interval(&ana, e, &dom);
        match bounds.and_then(|(lo, hi)| Some((lo.as_int()?, hi.as_int()?))) {
            Some((0, hi)) => shape.push(Expr::int(hi + 1, e.dtype())),
            _ => {
                return Err(ScheduleError::unsupported(
                    p,
                    format!(
                        "the index map's result `{}` does not range over [0, n) for constant n; \
                         Tessel caches into buffers indexed from 0",
                        tessel_tir::ir::printer::print_expr(e)
                    ),
                )
                .at(path.clone()))
            }
        }
    }
    Ok((map, new_indices, shape))
}

/// The block's iterators that the cache's indices use, with their bindings;
/// refuses an iterator that appears in only one of the old and new indices.
fn covered_cache_iters(
    p: &str,
    realize: &BlockRealize,
    old_indices: &[Expr],
    new_indices: &[Expr],
    path: &StmtPath,
) -> Result<Vec<(IterVar, Expr)>> {
    let block = &realize.block;
    let used = |es: &[Expr]| -> HashSet<VarId> { es.iter().flat_map(var_ids).collect() };
    let (in_old, in_new) = (used(old_indices), used(new_indices));
    let list = |es: &[Expr]| -> String {
        let items: Vec<String> = es.iter().map(tessel_tir::ir::printer::print_expr).collect();
        format!("[{}]", items.join(", "))
    };
    let mut covered = Vec::new();
    for (iv, binding) in block.iter_vars.iter().zip(&realize.iter_values) {
        let (o, n) = (in_old.contains(&iv.var.id()), in_new.contains(&iv.var.id()));
        if o != n {
            let (has, lacks) = if o {
                (old_indices, new_indices)
            } else {
                (new_indices, old_indices)
            };
            return Err(ScheduleError::block_structure(
                p,
                format!(
                    "the block iterators in the old and new indices of the cache stage do not \
                     match: in block `{}`, the iterator {} appears in {}, but not in {}.",
                    block.name,
                    iv.var.name(),
                    list(has),
                    list(lacks)
                ),
            )
            .at(path.clone()));
        }
        if n {
            covered.push((iv.clone(), binding.clone()));
        }
    }
    Ok(covered)
}

/// The copy stage between `buffer` and its `cache`, in fresh loop and
/// iterator variables of the same names as `loops` and `covered`.
fn build_reindex_cache_stage(
    kind: BufferIndexType,
    buffer: &Buffer,
    cache: &Buffer,
    loops: &[For],
    covered: &[(IterVar, Expr)],
    old_indices: &[Expr],
    new_indices: &[Expr],
) -> Stmt {
    let mut map_vars = std::collections::HashMap::new();
    let new_loops: Vec<(Var, &For)> = loops
        .iter()
        .map(|l| {
            let v = Var::new(l.loop_var.name(), l.loop_var.dtype());
            map_vars.insert(l.loop_var.id(), v.to_expr());
            (v, l)
        })
        .collect();
    let mut stage_iters = Vec::new();
    let mut stage_bindings = Vec::new();
    for (iv, binding) in covered {
        let v = Var::new(iv.var.name(), iv.var.dtype());
        stage_bindings.push(tessel_tir::ir::mutate::substitute_expr(binding, &map_vars));
        map_vars.insert(iv.var.id(), v.to_expr());
        stage_iters.push(IterVar {
            var: v,
            dom: iv.dom.clone(),
            kind: IterKind::Spatial,
        });
    }
    let subst = |es: &[Expr]| -> Vec<Expr> {
        es.iter()
            .map(|e| tessel_tir::ir::mutate::substitute_expr(e, &map_vars))
            .collect()
    };
    let (old_s, new_s) = (subst(old_indices), subst(new_indices));
    let (src, src_idx, dst, dst_idx) = match kind {
        BufferIndexType::Read => (buffer, old_s, cache, new_s),
        BufferIndexType::Write => (cache, new_s, buffer, old_s),
    };
    let point = |b: &Buffer, idx: &[Expr]| BufferRegion {
        buffer: b.clone(),
        region: idx.iter().map(|e| Range::point(e.clone())).collect(),
    };
    let stage_block = Block {
        name: cache.name.clone(),
        iter_vars: stage_iters,
        reads: vec![point(src, &src_idx)],
        writes: vec![point(dst, &dst_idx)],
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
    let mut stage = super::util::realize(stage_bindings, Expr::bool(true), stage_block);
    for (v, l) in new_loops.into_iter().rev() {
        stage = Stmt::from_kind(StmtKind::For(For {
            loop_var: v,
            min: l.min.clone(),
            extent: l.extent.clone(),
            kind: ForKind::Serial,
            thread_tag: None,
            annotations: Annotations::new(),
            body: stage,
        }));
    }
    stage
}

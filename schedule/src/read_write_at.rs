//! `read_at` and `write_at`: a copy of a buffer in another storage scope,
//! filled (or written back) by a copy block at the top of a loop's body.
//!
//! Behaviour checked against TVM 0.27 (`ReadAt` / `WriteAt`):
//!
//! - **Checks.** The block holding the loop is a stage pipeline.
//! - **Which buffer.** The block's `read_buffer_index`-th read
//!   (`write_buffer_index`-th write) buffer `X`; the copy `X_<scope>` has
//!   `X`'s shape and lives in the block that holds the loop.
//! - **Where.** The statements of the loop's body are looked at one by one,
//!   with the blocks in each (not looking inside blocks). `read_at` puts a
//!   copy block `X_<scope>` (`X_<scope>[…] = X[…]`) before the first
//!   statement with a block reading `X`, and has that statement and all after
//!   it use the copy; `write_at` puts the write-back block after the last
//!   statement with a block writing `X`, and has it and all before it use the
//!   copy. No statement may write `X` after the first read (`read_at`) or
//!   read it after the last write (`write_at`).
//! - **What is copied.** The union of the regions those blocks read (write)
//!   of `X`, relaxed over the loops between each block and the loop (and,
//!   for `shared` copies, over `threadIdx` loops around the loop). The copy
//!   block has one iterator per loop of the region's bounds (the loop and the
//!   loops above it), bound to that loop, inner loops `ax0, ax1, …` over the
//!   region's extents, and the annotation `auto_copy`. It returns the block.
//! - **Tessel's further checks.** TVM stops with an internal error when no
//!   statement reads (writes) the buffer or the order rule above fails, and
//!   when the region's bounds use a variable that is not a loop around the
//!   block; Tessel refuses each with an explanation. It also refuses storage
//!   scopes other than `global`, `shared`, `shared.dyn` and `local` (the
//!   relaxation over thread loops of the others is not modelled) and a copy
//!   name that is already a block's.

use std::collections::HashMap;

use super::primitives::{param, ParamType as T, Primitive, Returns};
use super::query::{enclosing_block_path, enclosing_loops};
use super::replay::SchedValue;
use super::scope::Scope;
use super::tree;
use super::*;
use tessel_tir::arith::Analyzer;
use tessel_tir::diag::Span;
use tessel_tir::ir::mutate::{walk_expr, walk_stmt, Mutator};

pub(super) const READ_AT: Primitive = Primitive {
    method: "read_at",
    aliases: &[],
    kind: "ReadAt",
    params: &[
        param("loop", T::Loop),
        param("block", T::Block),
        param("read_buffer_index", T::Int).attr(),
        param("storage_scope", T::Str).attr(),
    ],
    returns: Returns::One,
    traced: true,
    apply: super::primitives::unless_lean(|sch, args| {
        Ok(sch
            .read_write_at_concrete(
                true,
                args.loop_rv("loop")?,
                args.block("block")?,
                args.int("read_buffer_index")?,
                &args.string("storage_scope")?,
            )?
            .into())
    }),
    menu: None,
};

pub(super) const WRITE_AT: Primitive = Primitive {
    method: "write_at",
    aliases: &[],
    kind: "WriteAt",
    params: &[
        param("loop", T::Loop),
        param("block", T::Block),
        param("write_buffer_index", T::Int).attr(),
        param("storage_scope", T::Str).attr(),
    ],
    returns: Returns::One,
    traced: true,
    apply: super::primitives::unless_lean(|sch, args| {
        Ok(sch
            .read_write_at_concrete(
                false,
                args.loop_rv("loop")?,
                args.block("block")?,
                args.int("write_buffer_index")?,
                &args.string("storage_scope")?,
            )?
            .into())
    }),
    menu: None,
};

/// Uses of buffer `from` become uses of `to`: loads, stores and the regions
/// blocks declare.
struct SwapBuffer<'a> {
    from: BufferId,
    to: &'a Buffer,
}

impl SwapBuffer<'_> {
    fn regions(&self, rs: &[BufferRegion]) -> Vec<BufferRegion> {
        rs.iter()
            .map(|r| {
                if r.buffer.id == self.from {
                    BufferRegion {
                        buffer: self.to.clone(),
                        region: r.region.clone(),
                    }
                } else {
                    r.clone()
                }
            })
            .collect()
    }
}

impl Mutator for SwapBuffer<'_> {
    fn expr(&mut self, e: &Expr) -> Expr {
        if let ExprKind::Load { buffer, indices } = e.kind() {
            if buffer.id == self.from {
                let indices = indices.iter().map(|i| self.expr(i)).collect();
                return Expr::load(self.to, indices);
            }
        }
        walk_expr(self, e)
    }

    fn stmt(&mut self, s: &Stmt) -> Stmt {
        let s = walk_stmt(self, s);
        match s.kind() {
            StmtKind::Store {
                buffer,
                value,
                indices,
            } if buffer.id == self.from => Stmt::new(
                StmtKind::Store {
                    buffer: self.to.clone(),
                    value: value.clone(),
                    indices: indices.clone(),
                },
                s.span(),
            ),
            StmtKind::BlockRealize(r) => {
                let mut r = r.clone();
                r.block.reads = self.regions(&r.block.reads);
                r.block.writes = self.regions(&r.block.writes);
                Stmt::new(StmtKind::BlockRealize(r), s.span())
            }
            _ => s,
        }
    }
}

/// Whether a copy in `scope` is relaxed over a loop bound to `tag`.
fn relaxed_under_thread(scope: &str, tag: &str) -> bool {
    scope.starts_with("shared") && tag.starts_with("threadIdx")
}

impl Schedule {
    /// `sch.read_at(loop, block, read_buffer_index, storage_scope)`: see the
    /// module documentation.
    pub fn read_at(
        &mut self,
        loop_rv: LoopRV,
        block: BlockRV,
        read_buffer_index: i64,
        storage_scope: &str,
    ) -> Result<BlockRV> {
        let args = vec![
            loop_rv.into(),
            block.into(),
            SchedValue::Int(read_buffer_index),
            SchedValue::Str(storage_scope.to_string()),
        ];
        self.apply_traced(&READ_AT, super::primitives::Args::typed(&READ_AT, args))?
            .into_block()
    }

    /// `sch.write_at(loop, block, write_buffer_index, storage_scope)`: see
    /// the module documentation.
    pub fn write_at(
        &mut self,
        loop_rv: LoopRV,
        block: BlockRV,
        write_buffer_index: i64,
        storage_scope: &str,
    ) -> Result<BlockRV> {
        let args = vec![
            loop_rv.into(),
            block.into(),
            SchedValue::Int(write_buffer_index),
            SchedValue::Str(storage_scope.to_string()),
        ];
        self.apply_traced(&WRITE_AT, super::primitives::Args::typed(&WRITE_AT, args))?
            .into_block()
    }

    fn read_write_at_concrete(
        &mut self,
        is_read: bool,
        loop_rv: LoopRV,
        block_rv: BlockRV,
        index: i64,
        storage_scope: &str,
    ) -> Result<BlockRV> {
        let p: &str = if is_read { "read_at" } else { "write_at" };
        let target = self.copy_target(p, is_read, loop_rv, block_rv, index, storage_scope)?;
        let CopyTarget {
            body,
            loop_path,
            node,
            src,
            copy_name,
            scope_path,
        } = &target;

        // The statements of the loop's body, and which read or write `src`.
        let items: Vec<Stmt> = node.body.as_slice().to_vec();
        let ana = Analyzer::new();
        let accesses = scan_accesses(&target, is_read, storage_scope, &ana);
        let (insert_at, swap) = copy_placement(p, is_read, &target, &accesses, items.len())?;

        // TVM checks the scope after the statements' order.
        if let Some(scope) = Scope::at(body, scope_path) {
            scope.check_stage_pipeline(p, body)?;
        }

        let domain = copy_domain(p, &target, &accesses.bounds, &ana)?;
        let dst = src.derive(|n| {
            n.name = copy_name.clone();
            n.scope = storage_scope.to_string();
        });
        let (from, to) = if is_read { (src, &dst) } else { (&dst, src) };
        let copy_block = build_copy_block(copy_name, from, to, domain);

        // The loop's new body, the copy in the scope block.
        let mut swapper = SwapBuffer {
            from: src.id,
            to: &dst,
        };
        let mut new_items: Vec<Stmt> = items
            .iter()
            .enumerate()
            .map(|(i, s)| {
                if swap.contains(&i) {
                    swapper.stmt(s)
                } else {
                    s.clone()
                }
            })
            .collect();
        new_items.insert(insert_at, copy_block);
        let mut new_loop = node.clone();
        new_loop.body = Stmt::seq(new_items);
        let body = tree::replace(body, loop_path, Stmt::from_kind(StmtKind::For(new_loop)));
        let body = super::cache::add_alloc(&body, scope_path, dst);
        self.set_body(p, body)?;
        Ok(self.new_block_rv(copy_name))
    }

    /// The argument checks: the loop, the buffer to copy, the storage scope,
    /// a free name for the copy and the block that will hold it.
    fn copy_target(
        &self,
        p: &str,
        is_read: bool,
        loop_rv: LoopRV,
        block_rv: BlockRV,
        index: i64,
        storage_scope: &str,
    ) -> Result<CopyTarget> {
        let (loop_path, node) = self.resolve_loop(p, loop_rv)?;
        let (_, realize) = self.resolve_block(p, block_rv)?;
        let accesses = if is_read {
            &realize.block.reads
        } else {
            &realize.block.writes
        };
        let kind = if is_read { "read" } else { "write" };
        let Some(src) = usize::try_from(index)
            .ok()
            .and_then(|i| accesses.get(i))
            .map(|r| r.buffer.clone())
        else {
            return Err(ScheduleError::invalid_argument(
                p,
                format!(
                    "Index {index} is out of range: block `{}` has {} {kind} region(s).",
                    realize.block.name,
                    accesses.len()
                ),
            ));
        };
        if !matches!(storage_scope, "global" | "shared" | "shared.dyn" | "local") {
            return Err(ScheduleError::unsupported(
                p,
                format!(
                    "Storage scope `{storage_scope}`: Tessel copies into `global`, `shared`, \
                     `shared.dyn` or `local` buffers."
                ),
            ));
        }
        let body = self.body(p)?;
        let copy_name = format!("{}_{storage_scope}", src.name);
        if !tree::find_blocks(&body, &copy_name).is_empty() {
            return Err(ScheduleError::block_structure(
                p,
                format!("A block named `{copy_name}` exists already; the copy block would take its name."),
            ));
        }
        let Some(scope_path) = enclosing_block_path(&body, &loop_path) else {
            return Err(
                ScheduleError::loop_structure(p, "the loop has no block above it").at(loop_path),
            );
        };
        Ok(CopyTarget {
            body,
            loop_path,
            node,
            src,
            copy_name,
            scope_path,
        })
    }
}

/// The checked arguments of `read_at` / `write_at`.
struct CopyTarget {
    /// The function's body.
    body: Stmt,
    loop_path: StmtPath,
    /// The loop whose body gets the copy block.
    node: For,
    /// The buffer copied.
    src: Buffer,
    copy_name: String,
    /// The block above the loop, which allocates the copy.
    scope_path: StmtPath,
}

/// Which statements of the loop's body read and write the copied buffer, and
/// the bounds (inclusive) of the region the copy covers.
struct CopyAccesses {
    reading: Vec<usize>,
    writing: Vec<usize>,
    bounds: Vec<(Expr, Expr)>,
}

/// Looks at the loop body's statements one by one, with the blocks in each,
/// and unions the regions of the copied buffer they read (write), relaxed
/// over the loops between each block and the loop and the thread loops a
/// shared copy is relaxed over.
fn scan_accesses(
    target: &CopyTarget,
    is_read: bool,
    storage_scope: &str,
    ana: &Analyzer,
) -> CopyAccesses {
    let CopyTarget {
        body,
        loop_path,
        node,
        src,
        ..
    } = target;
    let items = node.body.as_slice();
    let in_seq = matches!(node.body.kind(), StmtKind::Seq(_));
    // Thread loops around the loop a shared copy is relaxed over.
    let chain = tree::chain(body, loop_path);
    let thread_loops: Vec<For> = chain
        .iter()
        .filter_map(|s| s.as_for().cloned())
        .filter(|l| {
            l.thread_tag
                .as_deref()
                .is_some_and(|t| relaxed_under_thread(storage_scope, t))
        })
        .collect();
    let (mut reading, mut writing) = (Vec::new(), Vec::new());
    let mut bounds: Vec<(Expr, Expr)> = Vec::new();
    let mut first = true;
    for (i, _) in items.iter().enumerate() {
        let item_path = if in_seq {
            loop_path.child(0).child(i)
        } else {
            loop_path.child(0)
        };
        let mut paths = util::child_block_paths(body, &item_path);
        if matches!(
            tree::get(body, &item_path).map(|s| s.kind().clone()),
            Some(StmtKind::BlockRealize(_))
        ) {
            paths = vec![item_path.clone()];
        }
        let (mut r, mut w) = (false, false);
        for bp in paths {
            let Some(StmtKind::BlockRealize(br)) = tree::get(body, &bp).map(|s| s.kind().clone())
            else {
                continue;
            };
            let has_r = br.block.reads.iter().any(|x| x.buffer.id == src.id);
            let has_w = br.block.writes.iter().any(|x| x.buffer.id == src.id);
            r |= has_r;
            w |= has_w;
            if !(if is_read { has_r } else { has_w }) {
                continue;
            }
            let mut dom: HashMap<VarId, Range> = enclosing_loops(body, &bp)
                .into_iter()
                .filter(|(lp, _)| lp.0.len() > loop_path.0.len())
                .map(|(_, l)| (l.loop_var.id(), Range::new(l.min.clone(), l.extent.clone())))
                .collect();
            for l in &thread_loops {
                dom.insert(l.loop_var.id(), Range::new(l.min.clone(), l.extent.clone()));
            }
            let binding: HashMap<VarId, Expr> = br
                .block
                .iter_vars
                .iter()
                .zip(&br.iter_values)
                .map(|(iv, v)| (iv.var.id(), v.clone()))
                .collect();
            let regions = if is_read {
                &br.block.reads
            } else {
                &br.block.writes
            };
            for region in regions.iter().filter(|x| x.buffer.id == src.id) {
                let relaxed = scope::relax_region(region, &binding, &dom);
                if first {
                    bounds = relaxed;
                    first = false;
                } else {
                    for (b, (lo, hi)) in bounds.iter_mut().zip(relaxed) {
                        b.0 = ana.simplify(&Expr::binary(BinOp::Min, b.0.clone(), lo));
                        b.1 = ana.simplify(&Expr::binary(BinOp::Max, b.1.clone(), hi));
                    }
                }
            }
        }
        if r {
            reading.push(i);
        }
        if w {
            writing.push(i);
        }
    }
    CopyAccesses {
        reading,
        writing,
        bounds,
    }
}

/// The order checks: where among the loop body's `n_items` statements the
/// copy block goes, and which statements use the copy.
fn copy_placement(
    p: &str,
    is_read: bool,
    target: &CopyTarget,
    accesses: &CopyAccesses,
    n_items: usize,
) -> Result<(usize, std::ops::Range<usize>)> {
    let CopyTarget {
        loop_path,
        node,
        src,
        ..
    } = target;
    let CopyAccesses {
        reading, writing, ..
    } = accesses;
    if is_read {
        let Some(&first_read) = reading.first() else {
            return Err(ScheduleError::dependency(
                p,
                format!(
                    "No block under the loop `{}` reads `{}`.",
                    node.loop_var.name(),
                    src.name
                ),
            )
            .at(loop_path.clone()));
        };
        if writing.last().is_some_and(|&w| w >= first_read) {
            return Err(ScheduleError::dependency(
                p,
                format!(
                    "`{}` is written under the loop `{}` at or after its first read; the copy \
                     made before that read would miss the write.",
                    src.name,
                    node.loop_var.name()
                ),
            )
            .at(loop_path.clone()));
        }
        Ok((first_read, first_read..n_items))
    } else {
        let Some(&last_write) = writing.last() else {
            return Err(ScheduleError::dependency(
                p,
                format!(
                    "No block under the loop `{}` writes `{}`.",
                    node.loop_var.name(),
                    src.name
                ),
            )
            .at(loop_path.clone()));
        };
        if reading.last().is_some_and(|&r| r > last_write) {
            return Err(ScheduleError::dependency(
                p,
                format!(
                    "`{}` is read under the loop `{}` after its last write; the read would \
                     come after the write-back.",
                    src.name,
                    node.loop_var.name()
                ),
            )
            .at(loop_path.clone()));
        }
        Ok((last_write + 1, 0..last_write + 1))
    }
}

/// The copy block's iterators (one per loop of the region's bounds, bound to
/// that loop), their bindings, and the copied region in those iterators.
struct CopyDomain {
    iter_vars: Vec<IterVar>,
    iter_values: Vec<Expr>,
    region: Vec<Range>,
}

/// The copy's domain, in the iterators of the loops around it; refuses
/// bounds that use a variable that is not such a loop.
fn copy_domain(
    p: &str,
    target: &CopyTarget,
    bounds: &[(Expr, Expr)],
    ana: &Analyzer,
) -> Result<CopyDomain> {
    let CopyTarget {
        body,
        loop_path,
        node,
        src,
        ..
    } = target;
    let mut outer: Vec<For> = enclosing_loops(body, loop_path)
        .into_iter()
        .map(|(_, l)| l)
        .collect();
    outer.push(node.clone());
    let loop_dom: HashMap<VarId, &For> = outer.iter().map(|l| (l.loop_var.id(), l)).collect();
    let mut iter_vars: Vec<IterVar> = Vec::new();
    let mut iter_values: Vec<Expr> = Vec::new();
    let mut to_iter: HashMap<VarId, Expr> = HashMap::new();
    let mut domain: Vec<Range> = Vec::new();
    for (lo, hi) in bounds {
        let min = ana.simplify(lo);
        let one = Expr::int(1, hi.dtype());
        let extent = ana.simplify(&Expr::binary(
            BinOp::Sub,
            Expr::binary(BinOp::Add, hi.clone(), one),
            min.clone(),
        ));
        for e in [&min, &extent] {
            for v in util::vars_in_order(e) {
                if to_iter.contains_key(&v.id()) {
                    continue;
                }
                let Some(l) = loop_dom.get(&v.id()) else {
                    return Err(ScheduleError::region_coverage(
                        p,
                        format!(
                            "The region of `{}` to copy depends on `{}`, which is not a loop \
                             around the copy.",
                            src.name,
                            v.name()
                        ),
                    )
                    .at(loop_path.clone()));
                };
                let iv = Var::new(format!("v{}", iter_vars.len()), v.dtype());
                to_iter.insert(v.id(), iv.to_expr());
                iter_values.push(v.to_expr());
                iter_vars.push(IterVar {
                    var: iv,
                    dom: Range::new(l.min.clone(), l.extent.clone()),
                    kind: IterKind::Spatial,
                });
            }
        }
        domain.push(Range::new(
            tessel_tir::ir::mutate::substitute_expr(&min, &to_iter),
            tessel_tir::ir::mutate::substitute_expr(&extent, &to_iter),
        ));
    }
    Ok(CopyDomain {
        iter_vars,
        iter_values,
        region: domain,
    })
}

/// The copy block `copy_name`: `to[…] = from[…]` over the domain's region,
/// in loops `ax0, ax1, …`, annotated `auto_copy`.
fn build_copy_block(copy_name: &str, from: &Buffer, to: &Buffer, domain: CopyDomain) -> Stmt {
    let CopyDomain {
        iter_vars,
        iter_values,
        region: domain,
    } = domain;
    let loop_vars: Vec<Var> = (0..domain.len())
        .map(|i| Var::new(format!("ax{i}"), DataType::int(32)))
        .collect();
    let indices: Vec<Expr> = domain
        .iter()
        .zip(&loop_vars)
        .map(|(r, v)| {
            // `0 + ax` folds to `ax`, as TVM's expression builder does.
            if r.min.is_const_int(0) {
                v.to_expr()
            } else {
                Expr::binary(BinOp::Add, r.min.clone(), v.to_expr())
            }
        })
        .collect();
    let mut copy = Stmt::from_kind(StmtKind::Store {
        buffer: to.clone(),
        value: Expr::load(from, indices.clone()),
        indices,
    });
    for (v, r) in loop_vars.iter().zip(&domain).rev() {
        copy = Stmt::from_kind(StmtKind::For(For {
            loop_var: v.clone(),
            min: Expr::int(0, v.dtype()),
            extent: r.extent.clone(),
            kind: ForKind::Serial,
            thread_tag: None,
            annotations: Annotations::new(),
            body: copy,
        }));
    }
    let mut annotations = Annotations::new();
    annotations.insert("auto_copy".to_string(), AttrValue::Bool(true));
    util::realize(
        iter_values,
        Expr::bool(true),
        Block {
            name: copy_name.to_string(),
            iter_vars,
            reads: vec![BufferRegion {
                buffer: from.clone(),
                region: domain.clone(),
            }],
            writes: vec![BufferRegion {
                buffer: to.clone(),
                region: domain,
            }],
            alloc_buffers: vec![],
            match_buffers: vec![],
            annotations,
            init: None,
            body: copy,
            span: Span::default(),
        },
    )
}

//! Placing a cache stage: where it goes (TVM's `CacheLocDetector`), inserting
//! it, allocating the cache buffer, and building the copy block.

use super::*;

/// Where a cache stage goes: the statement (scope block or loop) whose body
/// receives it, and the position in that body's sequence.
pub(crate) struct CacheLoc {
    pub path: StmtPath,
    pub pos: usize,
}

/// TVM's `CacheLocDetector`: right after `target`, before the first of the
/// `related` blocks, in the innermost loop or block body holding both.
pub(crate) fn detect_cache_loc(
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
pub(crate) fn insert_stage(body: &Stmt, loc: &CacheLoc, stage: Stmt) -> Stmt {
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
pub(crate) fn add_alloc(body: &Stmt, scope: &StmtPath, buffer: Buffer) -> Stmt {
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
pub(super) fn make_cache_stage(
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

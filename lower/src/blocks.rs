//! Blocks → plain statements (TVM: `LowerInitBlock`, `LowerMatchBuffer`,
//! `ConvertBlocksToOpaque`, `LowerOpaqueBlock`, allocation placement).

use std::collections::HashMap;

use super::util::{self, cast, stmt_touches};
use super::{LowerError, LoweringReport, Result};
use tessel_tir::ir::mutate::{self, substitute_stmt, Mutator};
use tessel_tir::ir::visit::{stmt_uses_var, BufferAccesses};
use tessel_tir::ir::{
    BinOp, Buffer, BufferId, CmpOp, DataType, Expr, ExprKind, ForKind, IterKind, PrimFunc, Stmt,
    StmtKind, VarId,
};

/// A `T.match_buffer` view: `view[i..]` is `source[mins[d] + i_d ..]` on the
/// source dimensions `dims` (the others at their `mins`).
#[derive(Clone)]
struct View {
    source: Buffer,
    mins: Vec<Expr>,
    dims: Vec<usize>,
}

struct Lowerer<'r> {
    serialize_threads: bool,
    report: &'r mut LoweringReport,
    views: HashMap<BufferId, View>,
    /// The first error found inside an expression (reported at the end).
    error: Option<LowerError>,
}

pub(super) fn lower_blocks(
    func: &PrimFunc,
    serialize_threads: bool,
    report: &mut LoweringReport,
) -> Result<Stmt> {
    let mut l = Lowerer {
        serialize_threads,
        report,
        views: HashMap::new(),
        error: None,
    };
    let body = l.stmt(&func.body)?;
    match l.error {
        Some(e) => Err(e),
        None => Ok(body),
    }
}

impl Lowerer<'_> {
    fn stmt(&mut self, s: &Stmt) -> Result<Stmt> {
        let span = s.span();
        Ok(match s.kind() {
            StmtKind::BlockRealize(r) => self.block(r, span)?,
            StmtKind::For(l) => {
                let mut l = l.clone();
                if l.kind == ForKind::ThreadBinding && self.serialize_threads {
                    let tag = l.thread_tag.clone().unwrap_or_default();
                    self.report.note(format!(
                        "loop {} bound to {tag} runs as a serial loop on the CPU",
                        l.loop_var.name()
                    ));
                    l.kind = ForKind::Serial;
                    l.thread_tag = None;
                }
                l.body = self.stmt(&l.body)?;
                l.min = self.expr(&l.min);
                l.extent = self.expr(&l.extent);
                Stmt::new(StmtKind::For(l), span)
            }
            StmtKind::Store {
                buffer,
                value,
                indices,
            } => {
                let value = self.expr(value);
                let indices: Vec<Expr> = indices.iter().map(|e| self.expr(e)).collect();
                let (buffer, indices) = self.resolve(buffer, indices, span)?;
                Stmt::new(
                    StmtKind::Store {
                        buffer,
                        value,
                        indices,
                    },
                    span,
                )
            }
            StmtKind::Let { var, value, body } => Stmt::new(
                StmtKind::Let {
                    var: var.clone(),
                    value: self.expr(value),
                    body: self.stmt(body)?,
                },
                span,
            ),
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => Stmt::new(
                StmtKind::If {
                    cond: self.expr(cond),
                    then: self.stmt(then)?,
                    otherwise: match otherwise {
                        Some(o) => Some(self.stmt(o)?),
                        None => None,
                    },
                },
                span,
            ),
            StmtKind::Evaluate(e) => Stmt::new(StmtKind::Evaluate(self.expr(e)), span),
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
        })
    }

    /// Rewrites loads of match-buffer views inside an expression.
    fn expr(&mut self, e: &Expr) -> Expr {
        if self.views.is_empty() {
            return e.clone();
        }
        let mut r = ViewRewriter {
            views: &self.views,
            error: None,
        };
        let out = r.expr(e);
        if let Some(m) = r.error {
            self.error.get_or_insert(LowerError::new(m, e.span()));
        }
        out
    }

    /// An access of `buffer` at `indices`, seen through any views.
    fn resolve(
        &self,
        buffer: &Buffer,
        indices: Vec<Expr>,
        span: tessel_tir::diag::Span,
    ) -> Result<(Buffer, Vec<Expr>)> {
        resolve_view(&self.views, buffer, indices).map_err(|m| LowerError::new(m, span))
    }

    fn block(
        &mut self,
        r: &tessel_tir::ir::BlockRealize,
        span: tessel_tir::diag::Span,
    ) -> Result<Stmt> {
        let b = &r.block;
        let span = if b.span == tessel_tir::diag::Span::default() {
            span
        } else {
            b.span
        };
        if r.iter_values.len() != b.iter_vars.len() {
            return Err(LowerError::new(
                format!(
                    "block {} binds {} values to {} iterators",
                    b.name,
                    r.iter_values.len(),
                    b.iter_vars.len()
                ),
                span,
            ));
        }
        // Bindings are in terms of enclosing loops; views may appear in them.
        let values: Vec<Expr> = r.iter_values.iter().map(|e| self.expr(e)).collect();
        let map: HashMap<VarId, Expr> = b
            .iter_vars
            .iter()
            .zip(&values)
            .map(|(iv, v)| (iv.var.id(), cast(v, iv.var.dtype())))
            .collect();

        // Match buffers: views of the (substituted) source regions.
        let mut lets: Vec<(tessel_tir::ir::Var, Expr)> = Vec::new();
        for mb in &b.match_buffers {
            let region: Vec<tessel_tir::ir::Range> = mb
                .source
                .region
                .iter()
                .map(|rg| tessel_tir::ir::Range {
                    min: self.expr(&mutate::substitute_expr(&rg.min, &map)),
                    extent: mutate::substitute_expr(&rg.extent, &map),
                })
                .collect();
            // A view of a view: compose with the outer view.
            let outer = self.views.get(&mb.source.buffer.id()).cloned();
            let mins: Vec<Expr> = region.iter().map(|r| r.min.clone()).collect();
            let (source, mins) = self.resolve(&mb.source.buffer, mins, span)?;
            let view_rank = mb.buffer.ndim();
            let dims: Vec<usize> = if view_rank == region.len() {
                (0..view_rank).collect()
            } else {
                let non_unit: Vec<usize> = region
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| !r.extent.is_const_int(1))
                    .map(|(d, _)| d)
                    .collect();
                if non_unit.len() != view_rank {
                    return Err(LowerError::new(
                        format!(
                            "match_buffer {} has rank {view_rank} but its source region has \
                             {} dimensions ({} of extent other than 1)",
                            mb.buffer.name,
                            region.len(),
                            non_unit.len()
                        ),
                        span,
                    ));
                }
                non_unit
            };
            // `dims` index the source region; when the source is itself a
            // view, `resolve` mapped `mins` to the underlying buffer, so map
            // the dims through the outer view too.
            let dims = match &outer {
                Some(o) => {
                    let mut mapped = Vec::with_capacity(dims.len());
                    for d in dims {
                        match o.dims.get(d) {
                            Some(&x) => mapped.push(x),
                            None => {
                                return Err(LowerError::new(
                                    format!("match_buffer {} maps past its source", mb.buffer.name),
                                    span,
                                ))
                            }
                        }
                    }
                    mapped
                }
                None => dims,
            };
            // Stride and offset variables of the view, if the body uses them.
            let idx_t = DataType::i32();
            let src_strides = util::strides_of(&source, idx_t);
            for (d, st) in mb.buffer.strides.iter().enumerate() {
                if let (Some(v), Some(&sd)) = (st.as_var(), dims.get(d)) {
                    if let Some(s) = src_strides.get(sd) {
                        lets.push((v.clone(), cast(s, v.dtype())));
                    }
                }
            }
            if let Some(v) = mb.buffer.elem_offset.as_var() {
                let mut off = cast(&source.elem_offset, idx_t);
                for (m, s) in mins.iter().zip(&src_strides) {
                    off = util::add(&off, &util::mul(&cast(m, idx_t), s));
                }
                lets.push((v.clone(), cast(&off, v.dtype())));
            }
            self.views
                .insert(mb.buffer.id(), View { source, mins, dims });
        }

        let body = self.stmt(&substitute_stmt(&b.body, &map))?;
        let mut parts = Vec::new();
        if let Some(init) = &b.init {
            let init = self.stmt(&substitute_stmt(init, &map))?;
            let mut cond: Option<Expr> = None;
            for (iv, v) in b.iter_vars.iter().zip(&values) {
                if iv.kind != IterKind::Reduce {
                    continue;
                }
                let v = cast(v, iv.var.dtype());
                let c = Expr::cmp(CmpOp::Eq, v, cast(&iv.dom.min, iv.var.dtype()));
                cond = Some(match cond {
                    None => c,
                    Some(p) => Expr::and(p, c),
                });
            }
            match cond {
                Some(c) => {
                    self.report.note(format!(
                        "block {}: the init runs under `if` (every reduction iterator at its \
                         minimum) in the inner loop; decompose_reduction moves it out",
                        b.name
                    ));
                    parts.push(Stmt::new(
                        StmtKind::If {
                            cond: c,
                            then: init,
                            otherwise: None,
                        },
                        span,
                    ))
                }
                None => parts.push(init),
            }
        }
        parts.push(body);
        let mut out = Stmt::seq(parts);
        for (v, value) in lets.into_iter().rev() {
            if stmt_uses_var(&out, &v) {
                out = Stmt::new(
                    StmtKind::Let {
                        var: v,
                        value,
                        body: out,
                    },
                    span,
                );
            }
        }
        for mb in &b.match_buffers {
            self.views.remove(&mb.buffer.id());
        }
        // Allocations around the statements that use them.
        for buf in b.alloc_buffers.iter().rev() {
            out = place_allocation(buf, out, span);
        }
        // The predicate (`T.where`).
        let pred = self.expr(&r.predicate);
        if !pred.is_const_int(1) {
            out = Stmt::new(
                StmtKind::If {
                    cond: pred,
                    then: out,
                    otherwise: None,
                },
                span,
            );
        }
        Ok(out)
    }
}

/// Wraps the part of `body` that uses `buf` in its allocation: within a
/// sequence only the run of statements from the first to the last use
/// (so the storage is free before and after — its lifetime); never inside
/// a loop. An unused buffer is not allocated at all.
fn place_allocation(buf: &Buffer, body: Stmt, span: tessel_tir::diag::Span) -> Stmt {
    let items = body.as_slice();
    let uses: Vec<usize> = items
        .iter()
        .enumerate()
        .filter(|(_, s)| stmt_touches(s, &buf.data) || stmt_mentions_buffer(s, buf))
        .map(|(i, _)| i)
        .collect();
    let (Some(&first), Some(&last)) = (uses.first(), uses.last()) else {
        return body;
    };
    let alloc = |inner: Stmt| {
        Stmt::new(
            StmtKind::Allocate {
                buffer: buf.clone(),
                body: inner,
            },
            span,
        )
    };
    if items.len() == 1 {
        return alloc(body);
    }
    let mut out: Vec<Stmt> = items[..first].to_vec();
    out.push(alloc(Stmt::seq(items[first..=last].to_vec())));
    out.extend_from_slice(&items[last + 1..]);
    Stmt::seq(out)
}

/// Whether `s` loads from or stores to `buf` itself.
fn stmt_mentions_buffer(s: &Stmt, buf: &Buffer) -> bool {
    let accesses = BufferAccesses::of_stmt(s);
    accesses.loads(buf) || accesses.stores(buf)
}

fn resolve_view(
    views: &HashMap<BufferId, View>,
    buffer: &Buffer,
    indices: Vec<Expr>,
) -> std::result::Result<(Buffer, Vec<Expr>), String> {
    let Some(view) = views.get(&buffer.id()) else {
        return Ok((buffer.clone(), indices));
    };
    if indices.len() != view.dims.len() {
        return Err(format!(
            "buffer {} is accessed with {} indices but has {} dimensions",
            buffer.name,
            indices.len(),
            view.dims.len()
        ));
    }
    let mut out = view.mins.clone();
    for (i, &d) in indices.into_iter().zip(&view.dims) {
        let Some(slot) = out.get_mut(d) else {
            return Err(format!(
                "internal: view {} maps past its source",
                buffer.name
            ));
        };
        if i.dtype().lanes > 1 {
            // A vector index: the minimum joins as a broadcast.
            let m = cast(slot, i.dtype().element());
            let b = Expr::new(
                ExprKind::Broadcast(m),
                i.dtype(),
                tessel_tir::diag::Span::default(),
            );
            *slot = Expr::binary(BinOp::Add, b, i);
        } else {
            *slot = util::add(slot, &i);
        }
    }
    Ok((view.source.clone(), out))
}

struct ViewRewriter<'a> {
    views: &'a HashMap<BufferId, View>,
    error: Option<String>,
}

impl Mutator for ViewRewriter<'_> {
    fn expr(&mut self, e: &Expr) -> Expr {
        let e = mutate::walk_expr(self, e);
        if let ExprKind::Load { buffer, indices } = e.kind() {
            if self.views.contains_key(&buffer.id()) {
                match resolve_view(self.views, buffer, indices.clone()) {
                    Ok((b, idx)) => {
                        return Expr::new(
                            ExprKind::Load {
                                buffer: b,
                                indices: idx,
                            },
                            e.dtype(),
                            e.span(),
                        )
                    }
                    Err(m) => self.error = Some(m),
                }
            }
        }
        e
    }
}

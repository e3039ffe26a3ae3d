//! Access-region inference: the `T.reads` / `T.writes` TVM's TVMScript
//! parser fills in when a block omits them.
//!
//! - Loads in the init and the body are reads, stores are writes, in order
//!   of first access; several accesses to one buffer are unioned into one
//!   covering region per dimension.
//! - Block iterators stay symbolic (points); variables of loops nested in the
//!   block span their ranges (narrowed under `if v < c`-style conditions).
//! - A buffer written by `T.init()` is not a read of the block (TVM excludes
//!   it: `C[vi, vj] = C[vi, vj] + …` in a block with init reads only the
//!   other operands). Without an init, a buffer read and written is both.
//! - Nested blocks contribute their own regions, with their iterators
//!   replaced by their bindings and the enclosing loops relaxed.
//! - Buffers allocated by the block (or inside it) are not accesses.
//! - `tvm_access_ptr` of a buffer in the block's declared regions reads
//!   and/or writes (by its mask) the whole buffer.
//! - An access to a buffer the block matches (`T.match_buffer(B[vi, vj], …)`)
//!   is an access to the source buffer at the matched position (TVM's
//!   `BlockReadWriteDetector` maps it so), unless the block allocates the
//!   source itself.

use std::collections::{HashMap, HashSet};

use crate::arith::int_set::eval_interval;
use crate::arith::Analyzer;
use crate::ir::mutate::substitute_expr;
use crate::ir::{
    BinOp, Block, Buffer, BufferId, BufferRegion, CmpOp, Expr, ExprKind, Intrinsic, Range, Stmt,
    StmtKind, VarId,
};

/// Infers `(reads, writes)` of a block from its init and body.
pub fn infer_access_regions(block: &Block) -> (Vec<BufferRegion>, Vec<BufferRegion>) {
    let mut d = Detector::default();
    for b in &block.alloc_buffers {
        d.excluded.insert(b.id());
    }
    for mb in &block.match_buffers {
        if d.excluded.contains(&mb.source.buffer.id()) {
            d.excluded.insert(mb.buffer.id());
        } else {
            d.matched.insert(mb.buffer.id(), mb.source.clone());
        }
    }
    for r in block.reads.iter().chain(&block.writes) {
        d.data.insert(r.buffer.data.id(), r.buffer.clone());
    }
    let mut init_written = HashSet::new();
    if let Some(init) = &block.init {
        d.stmt(init);
        init_written = d.writes.iter().map(|a| a.buffer.id()).collect();
    }
    d.stmt(&block.body);
    let reads = d
        .reads
        .iter()
        .filter(|a| !init_written.contains(&a.buffer.id()))
        .map(|a| a.to_region(&d.ana))
        .collect();
    let writes = d.writes.iter().map(|a| a.to_region(&d.ana)).collect();
    (reads, writes)
}

/// The union of accesses to one buffer: per dimension, inclusive bounds.
struct Access {
    buffer: Buffer,
    dims: Vec<(Expr, Expr)>,
}

impl Access {
    fn to_region(&self, ana: &Analyzer) -> BufferRegion {
        let region = self
            .dims
            .iter()
            .map(|(lo, hi)| {
                let dt = lo.dtype();
                let extent = if dt == hi.dtype() {
                    ana.simplify(&Expr::binary(
                        BinOp::Add,
                        Expr::binary(BinOp::Sub, hi.clone(), lo.clone()),
                        Expr::int(1, dt),
                    ))
                } else {
                    Expr::int(1, dt)
                };
                Range::new(lo.clone(), extent)
            })
            .collect();
        BufferRegion {
            buffer: self.buffer.clone(),
            region,
        }
    }
}

#[derive(Default)]
struct Detector {
    ana: Analyzer,
    /// Relaxed variables (loops inside the block) and their ranges.
    dom: HashMap<VarId, Range>,
    /// Let-bound variables, replaced by their values in indices.
    lets: HashMap<VarId, Expr>,
    excluded: HashSet<BufferId>,
    /// The block's match buffers and the source regions they stand for.
    matched: HashMap<BufferId, BufferRegion>,
    reads: Vec<Access>,
    writes: Vec<Access>,
    /// The buffers of the block's declared regions, by data pointer: a
    /// `tvm_access_ptr` of one accesses the whole buffer.
    data: HashMap<VarId, Buffer>,
}

fn union_into(list: &mut Vec<Access>, ana: &Analyzer, buffer: &Buffer, dims: Vec<(Expr, Expr)>) {
    if let Some(acc) = list.iter_mut().find(|a| a.buffer == *buffer) {
        if acc.dims.len() != dims.len() {
            return;
        }
        for ((lo, hi), (nlo, nhi)) in acc.dims.iter_mut().zip(dims) {
            if lo.dtype() != nlo.dtype() || hi.dtype() != nhi.dtype() {
                continue;
            }
            *lo = ana.simplify(&Expr::binary(BinOp::Min, lo.clone(), nlo));
            *hi = ana.simplify(&Expr::binary(BinOp::Max, hi.clone(), nhi));
        }
    } else {
        list.push(Access {
            buffer: buffer.clone(),
            dims,
        });
    }
}

impl Detector {
    /// Inclusive bounds of an index, or the whole dimension when unknown.
    fn relax_index(&self, buffer: &Buffer, dim: usize, index: &Expr) -> (Expr, Expr) {
        let index = substitute_expr(index, &self.lets);
        // A point keeps its written form (TVM's `EvalSet` leaves it as is).
        let mut relaxed = false;
        index.walk(&mut |x| {
            relaxed |= matches!(x.kind(), ExprKind::Var(v) if self.dom.contains_key(&v.id()));
        });
        if !relaxed {
            return (index.clone(), index);
        }
        if let Some(r) = eval_interval(&self.ana, &index, &self.dom) {
            return r;
        }
        self.full_dim(buffer, dim, index.dtype())
    }

    fn full_dim(&self, buffer: &Buffer, dim: usize, dt: crate::ir::DataType) -> (Expr, Expr) {
        match buffer.shape.get(dim) {
            Some(extent) => {
                let edt = extent.dtype();
                let hi =
                    self.ana
                        .simplify(&Expr::binary(BinOp::Sub, extent.clone(), Expr::int(1, edt)));
                (Expr::int(0, edt), hi)
            }
            None => (Expr::int(0, dt), Expr::int(0, dt)),
        }
    }

    fn relax_range(&self, buffer: &Buffer, dim: usize, r: &Range) -> (Expr, Expr) {
        let min = substitute_expr(&r.min, &self.lets);
        let dt = min.dtype();
        let last = if r.extent.dtype() == dt {
            Expr::binary(
                BinOp::Sub,
                Expr::binary(
                    BinOp::Add,
                    min.clone(),
                    substitute_expr(&r.extent, &self.lets),
                ),
                Expr::int(1, dt),
            )
        } else {
            return self.full_dim(buffer, dim, dt);
        };
        match (
            eval_interval(&self.ana, &min, &self.dom),
            eval_interval(&self.ana, &last, &self.dom),
        ) {
            (Some((lo, _)), Some((_, hi))) => (lo, hi),
            _ => self.full_dim(buffer, dim, dt),
        }
    }

    fn read(&mut self, buffer: &Buffer, dims: Vec<(Expr, Expr)>) {
        if self.excluded.contains(&buffer.id()) {
            return;
        }
        let (buffer, dims) = self.through_match(buffer, dims);
        union_into(&mut self.reads, &self.ana, &buffer, dims);
    }

    fn write(&mut self, buffer: &Buffer, dims: Vec<(Expr, Expr)>) {
        if self.excluded.contains(&buffer.id()) {
            return;
        }
        let (buffer, dims) = self.through_match(buffer, dims);
        union_into(&mut self.writes, &self.ana, &buffer, dims);
    }

    /// An access to a match buffer as the access to its source region
    /// (TVM's `ConvertMatchedRegion`): the view's trailing dimensions are
    /// offset by the source region's starts, leading source dimensions the
    /// view drops are taken whole; other accesses stay as they are.
    fn through_match(
        &self,
        buffer: &Buffer,
        dims: Vec<(Expr, Expr)>,
    ) -> (Buffer, Vec<(Expr, Expr)>) {
        let Some(source) = self.matched.get(&buffer.id()) else {
            return (buffer.clone(), dims);
        };
        let skipped = source.region.len().saturating_sub(dims.len());
        let mapped = source
            .region
            .iter()
            .enumerate()
            .map(|(d, r)| {
                let Some((lo, hi)) = d.checked_sub(skipped).and_then(|k| dims.get(k)) else {
                    return self.relax_range(&source.buffer, d, r);
                };
                let min = substitute_expr(&r.min, &self.lets);
                let shift = |x: &Expr| {
                    if x.dtype() == min.dtype() {
                        self.ana
                            .simplify(&Expr::binary(BinOp::Add, min.clone(), x.clone()))
                    } else {
                        x.clone()
                    }
                };
                let (lo, hi) = (shift(lo), shift(hi));
                match (
                    eval_interval(&self.ana, &lo, &self.dom),
                    eval_interval(&self.ana, &hi, &self.dom),
                ) {
                    (Some((lo, _)), Some((_, hi))) => (lo, hi),
                    _ => self.full_dim(&source.buffer, d, min.dtype()),
                }
            })
            .collect();
        (source.buffer.clone(), mapped)
    }

    fn expr(&mut self, e: &Expr) {
        match e.kind() {
            ExprKind::Load { buffer, indices } => {
                for i in indices {
                    self.expr(i);
                }
                let dims = indices
                    .iter()
                    .enumerate()
                    .map(|(d, i)| self.relax_index(buffer, d, i))
                    .collect();
                self.read(buffer, dims);
            }
            ExprKind::Call {
                op: Intrinsic::Other(name),
                args,
            } if name == "tvm_access_ptr" => {
                let buffer = args
                    .get(1)
                    .and_then(|a| a.as_var())
                    .and_then(|v| self.data.get(&v.id()));
                let (Some(buffer), Some(mask)) =
                    (buffer.cloned(), args.get(4).and_then(|m| m.as_int()))
                else {
                    return e.for_each_child(|c| self.expr(c));
                };
                let dims: Vec<_> = (0..buffer.shape.len())
                    .map(|d| self.full_dim(&buffer, d, buffer.shape[d].dtype()))
                    .collect();
                if mask & 1 != 0 {
                    self.read(&buffer, dims.clone());
                }
                if mask & 2 != 0 {
                    self.write(&buffer, dims);
                }
            }
            ExprKind::Let { var, value, body } => {
                self.expr(value);
                let v = substitute_expr(value, &self.lets);
                self.lets.insert(var.id(), v);
                self.expr(body);
                self.lets.remove(&var.id());
            }
            _ => e.for_each_child(|c| self.expr(c)),
        }
    }

    /// Narrows the relaxed ranges under `cond` (conjunctions of comparisons
    /// of a relaxed variable with a constant). Returns the previous ranges.
    fn narrow(&mut self, cond: &Expr) -> Vec<(VarId, Range)> {
        let mut saved = Vec::new();
        let mut conds = Vec::new();
        flatten_and(cond, &mut conds);
        for c in conds {
            let ExprKind::Cmp(op, a, b) = c.kind() else {
                continue;
            };
            // Normalize to `v op k`.
            let (v, k, op) = match (a.as_var(), b.as_int(), b.as_var(), a.as_int()) {
                (Some(v), Some(k), _, _) => (v, k, *op),
                (_, _, Some(v), Some(k)) => (
                    v,
                    k,
                    match op {
                        CmpOp::Lt => CmpOp::Gt,
                        CmpOp::Le => CmpOp::Ge,
                        CmpOp::Gt => CmpOp::Lt,
                        CmpOp::Ge => CmpOp::Le,
                        o => *o,
                    },
                ),
                _ => continue,
            };
            let Some(r) = self.dom.get(&v.id()) else {
                continue;
            };
            let (Some(min), Some(ext)) = (r.min.as_int(), r.extent.as_int()) else {
                continue;
            };
            let max = min.saturating_add(ext).saturating_sub(1);
            let (nmin, nmax) = match op {
                CmpOp::Lt => (min, max.min(k.saturating_sub(1))),
                CmpOp::Le => (min, max.min(k)),
                CmpOp::Gt => (min.max(k.saturating_add(1)), max),
                CmpOp::Ge => (min.max(k), max),
                CmpOp::Eq => (min.max(k), max.min(k)),
                CmpOp::Ne => continue,
            };
            if nmax < nmin {
                continue;
            }
            let dt = r.min.dtype();
            saved.push((v.id(), r.clone()));
            let nr = Range::new(
                Expr::int(nmin, dt),
                Expr::int(nmax.saturating_sub(nmin).saturating_add(1), dt),
            );
            self.dom.insert(v.id(), nr);
        }
        saved
    }

    fn restore(&mut self, saved: Vec<(VarId, Range)>) {
        for (id, r) in saved.into_iter().rev() {
            self.dom.insert(id, r);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s.kind() {
            StmtKind::Store {
                buffer,
                value,
                indices,
            } => {
                self.expr(value);
                for i in indices {
                    self.expr(i);
                }
                let dims = indices
                    .iter()
                    .enumerate()
                    .map(|(d, i)| self.relax_index(buffer, d, i))
                    .collect();
                self.write(buffer, dims);
            }
            StmtKind::For(f) => {
                self.expr(&f.min);
                self.expr(&f.extent);
                let range = Range::new(
                    substitute_expr(&f.min, &self.lets),
                    substitute_expr(&f.extent, &self.lets),
                );
                let prev = self.dom.insert(f.loop_var.id(), range);
                self.stmt(&f.body);
                match prev {
                    Some(p) => self.dom.insert(f.loop_var.id(), p),
                    None => self.dom.remove(&f.loop_var.id()),
                };
            }
            StmtKind::Let { var, value, body } => {
                self.expr(value);
                let v = substitute_expr(value, &self.lets);
                self.lets.insert(var.id(), v);
                self.stmt(body);
                self.lets.remove(&var.id());
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.expr(cond);
                let saved = self.narrow(cond);
                self.stmt(then);
                self.restore(saved);
                if let Some(o) = otherwise {
                    self.stmt(o);
                }
            }
            StmtKind::Evaluate(e) => self.expr(e),
            StmtKind::Seq(v) => v.iter().for_each(|x| self.stmt(x)),
            StmtKind::Allocate { buffer, body } => {
                self.excluded.insert(buffer.id());
                self.stmt(body);
            }
            StmtKind::BlockRealize(r) => {
                for v in &r.iter_values {
                    self.expr(v);
                }
                self.expr(&r.predicate);
                let child = &r.block;
                let (reads, writes) = if child.reads.is_empty() && child.writes.is_empty() {
                    infer_access_regions(child)
                } else {
                    (child.reads.clone(), child.writes.clone())
                };
                let mut map: HashMap<VarId, Expr> = HashMap::new();
                for (iv, value) in child.iter_vars.iter().zip(&r.iter_values) {
                    map.insert(iv.var.id(), substitute_expr(value, &self.lets));
                }
                let child_local: HashSet<BufferId> =
                    child.alloc_buffers.iter().map(|b| b.id()).collect();
                for (regions, is_write) in [(reads, false), (writes, true)] {
                    for br in regions {
                        if child_local.contains(&br.buffer.id()) {
                            continue;
                        }
                        let dims = br
                            .region
                            .iter()
                            .enumerate()
                            .map(|(d, rg)| {
                                let rg = Range::new(
                                    substitute_expr(&rg.min, &map),
                                    substitute_expr(&rg.extent, &map),
                                );
                                self.relax_range(&br.buffer, d, &rg)
                            })
                            .collect();
                        if is_write {
                            self.write(&br.buffer, dims);
                        } else {
                            self.read(&br.buffer, dims);
                        }
                    }
                }
            }
        }
    }
}

fn flatten_and(e: &Expr, out: &mut Vec<Expr>) {
    if let ExprKind::And(a, b) = e.kind() {
        flatten_and(a, out);
        flatten_and(b, out);
    } else {
        out.push(e.clone());
    }
}

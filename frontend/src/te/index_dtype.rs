//! `create_prim_func(..., index_dtype_override)`: every index in one integer
//! type, as TVM's `IndexDataTypeNormalizer` rewrites it.
//!
//! "Index" positions are buffer shapes, loop variables and bounds, block
//! iterators, their domains and bindings, buffer indices and access regions.
//! There, integer constants take the target type and integer variables are
//! replaced by variables of the target type (same name; the replacement is
//! used everywhere afterwards, values included); an integer cast of an
//! integer is unwrapped. Elsewhere (stored values, conditions) operands are
//! re-matched with TVM's type rules, and a stored value is cast back to its
//! buffer's type.

use std::collections::HashMap;

use tessel_tir::ir::{
    Block, BlockRealize, Buffer, BufferId, BufferRegion, DataType, Expr, ExprKind, For, IterVar,
    PrimFunc, Range, Stmt, StmtKind, Var, VarId,
};

use super::op;

/// Rewrites `func`'s indices to `target`.
pub fn normalize(func: &PrimFunc, target: DataType) -> PrimFunc {
    let mut n = Normalizer {
        target,
        vars: HashMap::new(),
        buffers: HashMap::new(),
    };
    let params: Vec<Var> = func
        .params
        .iter()
        .map(|p| {
            if func.param_buffer(p).is_some() || !p.dtype().is_int() {
                p.clone()
            } else {
                n.var(p, true)
            }
        })
        .collect();
    let buffer_map: Vec<(Var, Buffer)> = func
        .buffer_map
        .iter()
        .map(|(p, b)| (p.clone(), n.buffer(b)))
        .collect();
    let body = n.stmt(&func.body);
    PrimFunc {
        params,
        buffer_map,
        body,
        attrs: func.attrs.clone(),
        span: func.span,
    }
}

struct Normalizer {
    target: DataType,
    vars: HashMap<VarId, Var>,
    buffers: HashMap<BufferId, Buffer>,
}

impl Normalizer {
    fn var(&mut self, v: &Var, index: bool) -> Var {
        if let Some(r) = self.vars.get(&v.id()) {
            return r.clone();
        }
        if index && v.dtype().is_int() && v.dtype() != self.target {
            let nv = Var::new(v.name(), self.target);
            self.vars.insert(v.id(), nv.clone());
            return nv;
        }
        v.clone()
    }

    fn buffer(&mut self, b: &Buffer) -> Buffer {
        if let Some(r) = self.buffers.get(&b.id()) {
            return r.clone();
        }
        let shape: Vec<Expr> = b.shape.iter().map(|e| self.expr(e, true)).collect();
        let strides: Vec<Expr> = b.strides.iter().map(|e| self.expr(e, true)).collect();
        let changed = shape
            .iter()
            .zip(&b.shape)
            .any(|(x, y)| !x.same_node(y) || x.dtype() != y.dtype());
        let nb = if changed {
            let offset_dt = tessel_tir::ir::buffer::default_index_dtype(&shape);
            b.derive(|n| {
                n.shape = shape;
                n.strides = strides;
                if let Some(v) = n.elem_offset.as_int() {
                    n.elem_offset = Expr::int(v, offset_dt);
                }
            })
        } else {
            b.clone()
        };
        self.buffers.insert(b.id(), nb.clone());
        nb
    }

    fn range(&mut self, r: &Range) -> Range {
        Range::new(self.expr(&r.min, true), self.expr(&r.extent, true))
    }

    fn region(&mut self, r: &BufferRegion) -> BufferRegion {
        BufferRegion {
            buffer: self.buffer(&r.buffer),
            region: r.region.iter().map(|x| self.range(x)).collect(),
        }
    }

    fn expr(&mut self, e: &Expr, index: bool) -> Expr {
        let rebuilt = match e.kind() {
            ExprKind::Int(v) => {
                if index && e.dtype().is_int() && e.dtype() != self.target {
                    return Expr::int(*v, self.target);
                }
                return e.clone();
            }
            ExprKind::Float(_) | ExprKind::Str(_) => return e.clone(),
            ExprKind::Var(v) => return self.var(v, index).to_expr(),
            ExprKind::Cast(value) => {
                if index && e.dtype().is_int() && value.dtype().is_int() {
                    let v = self.expr(value, index);
                    if v.dtype() == self.target {
                        return v;
                    }
                    return Expr::cast(self.target, v);
                }
                let v = self.expr(value, index);
                op::cast(e.dtype(), &v)
            }
            ExprKind::Binary(bop, a, b) => {
                let (na, nb) = (self.expr(a, index), self.expr(b, index));
                if na.same_node(a) && nb.same_node(b) {
                    return e.clone();
                }
                use tessel_tir::ir::BinOp::*;
                match bop {
                    Add => op::add(&na, &nb),
                    Sub => op::sub(&na, &nb),
                    Mul => op::mul(&na, &nb),
                    Div => op::div(&na, &nb),
                    Mod => op::truncmod(&na, &nb),
                    FloorDiv => op::floordiv(&na, &nb),
                    FloorMod => op::floormod(&na, &nb),
                    Min => op::min(&na, &nb),
                    Max => op::max(&na, &nb),
                }
            }
            ExprKind::Cmp(cop, a, b) => {
                let (na, nb) = (self.expr(a, index), self.expr(b, index));
                if na.same_node(a) && nb.same_node(b) {
                    return e.clone();
                }
                use tessel_tir::ir::CmpOp::*;
                match cop {
                    Eq => op::eq(&na, &nb),
                    Ne => op::ne(&na, &nb),
                    Lt => op::lt(&na, &nb),
                    Le => op::le(&na, &nb),
                    Gt => op::gt(&na, &nb),
                    Ge => op::ge(&na, &nb),
                }
            }
            ExprKind::And(a, b) => {
                let (na, nb) = (self.expr(a, index), self.expr(b, index));
                Ok(Expr::and(na, nb))
            }
            ExprKind::Or(a, b) => {
                let (na, nb) = (self.expr(a, index), self.expr(b, index));
                Ok(Expr::or(na, nb))
            }
            ExprKind::Not(a) => Ok(Expr::logical_not(self.expr(a, index))),
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                let c = self.expr(cond, index);
                let (t, f) = (self.expr(then, index), self.expr(otherwise, index));
                op::match_types(&t, &f).map(|(t, f)| Expr::select(c, t, f))
            }
            ExprKind::Call { op: iop, args } => {
                let new: Vec<Expr> = args.iter().map(|a| self.expr(a, index)).collect();
                if matches!(iop, tessel_tir::ir::Intrinsic::IfThenElse) && new.len() == 3 {
                    op::match_types(&new[1], &new[2]).map(|(t, f)| {
                        let dt = t.dtype();
                        Expr::call(iop.clone(), vec![new[0].clone(), t, f], dt)
                    })
                } else {
                    let dt = new
                        .first()
                        .filter(|_| e.dtype().is_int() && args[0].dtype() == e.dtype())
                        .map(|a| a.dtype())
                        .unwrap_or(e.dtype());
                    Ok(Expr::call(iop.clone(), new, dt))
                }
            }
            ExprKind::Load { buffer, indices } => {
                let nb = self.buffer(buffer);
                let ix: Vec<Expr> = indices.iter().map(|i| self.expr(i, true)).collect();
                Ok(Expr::load(&nb, ix))
            }
            ExprKind::Let { var, value, body } => {
                let nv = self.expr(value, index);
                let var = self.var(var, false);
                let nbody = self.expr(body, index);
                let dt = nbody.dtype();
                Ok(Expr::new(
                    ExprKind::Let {
                        var,
                        value: nv,
                        body: nbody,
                    },
                    dt,
                    e.span(),
                ))
            }
            ExprKind::Ramp { .. } | ExprKind::Broadcast(_) => return e.clone(),
        };
        // The operators only fail on type errors the input cannot have
        // (it was built by the same operators); keep the node then.
        rebuilt.unwrap_or_else(|_| e.clone())
    }

    fn stmt(&mut self, s: &Stmt) -> Stmt {
        let kind = match s.kind() {
            StmtKind::For(f) => {
                let loop_var = self.var(&f.loop_var, true);
                let min = self.expr(&f.min, true);
                let extent = self.expr(&f.extent, true);
                let body = self.stmt(&f.body);
                StmtKind::For(For {
                    loop_var,
                    min,
                    extent,
                    kind: f.kind,
                    thread_tag: f.thread_tag.clone(),
                    annotations: f.annotations.clone(),
                    body,
                })
            }
            StmtKind::BlockRealize(r) => {
                let iter_values: Vec<Expr> =
                    r.iter_values.iter().map(|e| self.expr(e, true)).collect();
                let predicate = self.expr(&r.predicate, false);
                let b = &r.block;
                let iter_vars: Vec<IterVar> = b
                    .iter_vars
                    .iter()
                    .map(|iv| IterVar {
                        var: self.var(&iv.var, true),
                        dom: self.range(&iv.dom),
                        kind: iv.kind,
                    })
                    .collect();
                let alloc_buffers: Vec<Buffer> =
                    b.alloc_buffers.iter().map(|x| self.buffer(x)).collect();
                let reads = b.reads.iter().map(|x| self.region(x)).collect();
                let writes = b.writes.iter().map(|x| self.region(x)).collect();
                let init = b.init.as_ref().map(|i| self.stmt(i));
                let body = self.stmt(&b.body);
                StmtKind::BlockRealize(BlockRealize {
                    iter_values,
                    predicate,
                    block: Block {
                        name: b.name.clone(),
                        iter_vars,
                        reads,
                        writes,
                        alloc_buffers,
                        match_buffers: b.match_buffers.clone(),
                        annotations: b.annotations.clone(),
                        init,
                        body,
                        span: b.span,
                    },
                })
            }
            StmtKind::Store {
                buffer,
                value,
                indices,
            } => {
                let nb = self.buffer(buffer);
                let mut v = self.expr(value, false);
                if v.dtype() != nb.dtype && v.dtype().lanes == 1 {
                    v = op::cast(nb.dtype, &v).unwrap_or(v);
                }
                let ix = indices.iter().map(|i| self.expr(i, true)).collect();
                StmtKind::Store {
                    buffer: nb,
                    value: v,
                    indices: ix,
                }
            }
            StmtKind::Let { var, value, body } => {
                let value = self.expr(value, false);
                let var = if var.dtype() != value.dtype() {
                    let nv = Var::new(var.name(), value.dtype());
                    self.vars.insert(var.id(), nv.clone());
                    nv
                } else {
                    var.clone()
                };
                StmtKind::Let {
                    var,
                    value,
                    body: self.stmt(body),
                }
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => StmtKind::If {
                cond: self.expr(cond, false),
                then: self.stmt(then),
                otherwise: otherwise.as_ref().map(|o| self.stmt(o)),
            },
            StmtKind::Evaluate(e) => StmtKind::Evaluate(self.expr(e, false)),
            StmtKind::Seq(v) => StmtKind::Seq(v.iter().map(|x| self.stmt(x)).collect()),
            StmtKind::Allocate { buffer, body } => StmtKind::Allocate {
                buffer: self.buffer(buffer),
                body: self.stmt(body),
            },
        };
        Stmt::new(kind, s.span())
    }
}

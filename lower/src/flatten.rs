//! Buffer flattening (TVM: `FlattenBuffer`): every access goes through a
//! 1-D buffer over the same data pointer, at the row-major (or declared
//! stride) offset.

use std::collections::HashMap;

use super::util::{self, cast};
use super::{LowerError, Result};
use tessel_tir::diag::Span;
use tessel_tir::ir::mutate::{self, Mutator};
use tessel_tir::ir::{Buffer, BufferId, DataType, Expr, ExprKind, PrimFunc, Stmt, StmtKind};

pub(super) fn flatten(_func: &PrimFunc, body: &Stmt) -> Result<Stmt> {
    let mut f = Flattener {
        flat: HashMap::new(),
        error: None,
    };
    let out = f.stmt(body);
    match f.error {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

struct Flattener {
    flat: HashMap<BufferId, Buffer>,
    error: Option<LowerError>,
}

/// The index dtype of a buffer's flat offset: int64 when any extent or
/// index is, or when the element count may not fit in int32.
fn index_dtype(b: &Buffer, indices: &[Expr]) -> DataType {
    let wide = b
        .shape
        .iter()
        .chain(&b.strides)
        .chain(indices)
        .any(|e| e.dtype().bits > 32);
    let big = b
        .const_shape()
        .map(|s| {
            s.iter()
                .try_fold(1i64, |a, &d| a.checked_mul(d.max(1)))
                .is_none_or(|n| n > i32::MAX as i64)
        })
        .unwrap_or(false);
    if wide || big {
        DataType::i64()
    } else {
        DataType::i32()
    }
}

impl Flattener {
    fn flat_buffer(&mut self, b: &Buffer) -> Buffer {
        if let Some(f) = self.flat.get(&b.id()) {
            return f.clone();
        }
        let already_flat = b.ndim() == 1
            && (b.strides.is_empty() || b.strides.first().is_some_and(|s| s.is_const_int(1)));
        let f = if already_flat {
            b.clone()
        } else {
            let dt = index_dtype(b, &[]);
            let extent = if b.strides.len() == b.shape.len() && !b.strides.is_empty() {
                // 1 + sum((shape_d - 1) * stride_d) elements are reachable.
                let mut acc = Expr::int(1, dt);
                for (d, s) in b.shape.iter().zip(&b.strides) {
                    let d1 = util::sub(&cast(d, dt), &Expr::int(1, dt));
                    acc = util::add(&acc, &util::mul(&d1, &cast(s, dt)));
                }
                acc
            } else {
                util::product(&b.shape.iter().map(|e| cast(e, dt)).collect::<Vec<_>>(), dt)
            };
            let extent = tessel_tir::arith::Analyzer::new().simplify(&extent);
            let mut node = (**b).clone();
            node.shape = vec![extent];
            node.strides = Vec::new();
            Buffer::from_node(node)
        };
        self.flat.insert(b.id(), f.clone());
        f
    }

    /// The flat index of `indices` into `b`.
    fn flat_index(&mut self, b: &Buffer, indices: &[Expr], span: Span) -> Expr {
        if b.ndim() == 0 {
            return Expr::i32(0);
        }
        if indices.len() != b.ndim() {
            self.error.get_or_insert(LowerError::new(
                format!(
                    "buffer {} has {} dimensions but is accessed with {} indices",
                    b.name,
                    b.ndim(),
                    indices.len()
                ),
                span,
            ));
            return Expr::i32(0);
        }
        let dt = index_dtype(b, indices);
        let strides = util::strides_of(b, dt);
        let mut scalar = Expr::int(0, dt);
        let mut ramp: Option<(Expr, Expr, u16)> = None;
        for (i, s) in indices.iter().zip(&strides) {
            match i.kind() {
                ExprKind::Ramp { base, stride } if ramp.is_none() => {
                    let lanes = i.dtype().lanes;
                    ramp = Some((
                        util::mul(&cast(base, dt), s),
                        util::mul(&cast(stride, dt), s),
                        lanes,
                    ));
                }
                ExprKind::Broadcast(x) => {
                    scalar = util::add(&scalar, &util::mul(&cast(x, dt), s));
                }
                _ if i.dtype().lanes == 1 => {
                    scalar = util::add(&scalar, &util::mul(&cast(i, dt), s));
                }
                _ => {
                    self.error.get_or_insert(LowerError::new(
                        format!(
                            "buffer {}: only one dimension may be indexed by a vector \
                             (T.Ramp/T.Broadcast)",
                            b.name
                        ),
                        span,
                    ));
                }
            }
        }
        let scalar = cast(&util::add(&scalar, &Expr::int(0, dt)), dt);
        match ramp {
            Some((base, stride, lanes)) => Expr::new(
                ExprKind::Ramp {
                    base: util::add(&scalar, &base),
                    stride,
                },
                dt.with_lanes(lanes),
                Span::default(),
            ),
            None => {
                let lanes = indices.iter().map(|e| e.dtype().lanes).max().unwrap_or(1);
                if lanes > 1 {
                    Expr::new(
                        ExprKind::Broadcast(scalar),
                        dt.with_lanes(lanes),
                        Span::default(),
                    )
                } else {
                    scalar
                }
            }
        }
    }
}

impl Mutator for Flattener {
    fn expr(&mut self, e: &Expr) -> Expr {
        let e = mutate::walk_expr(self, e);
        if let ExprKind::Load { buffer, indices } = e.kind() {
            let idx = self.flat_index(buffer, indices, e.span());
            let fb = self.flat_buffer(buffer);
            return Expr::new(
                ExprKind::Load {
                    buffer: fb,
                    indices: vec![idx],
                },
                e.dtype(),
                e.span(),
            );
        }
        e
    }

    fn stmt(&mut self, s: &Stmt) -> Stmt {
        match s.kind() {
            StmtKind::Store {
                buffer,
                value,
                indices,
            } => {
                let value = self.expr(value);
                let indices: Vec<Expr> = indices.iter().map(|e| self.expr(e)).collect();
                let idx = self.flat_index(buffer, &indices, s.span());
                let fb = self.flat_buffer(buffer);
                Stmt::new(
                    StmtKind::Store {
                        buffer: fb,
                        value,
                        indices: vec![idx],
                    },
                    s.span(),
                )
            }
            StmtKind::Allocate { buffer, body } => {
                let fb = self.flat_buffer(buffer);
                Stmt::new(
                    StmtKind::Allocate {
                        buffer: fb,
                        body: self.stmt(body),
                    },
                    s.span(),
                )
            }
            _ => mutate::walk_stmt(self, s),
        }
    }
}

//! Regions: `T.reads`/`T.writes` arguments, buffer references, indices and
//! slices.

use super::*;

impl<'a> FuncBuilder<'a> {
    // ----- regions ------------------------------------------------------------

    pub(super) fn regions(&mut self, args: &[ast::Arg]) -> Result<Vec<BufferRegion>> {
        let mut out = Vec::new();
        for a in args {
            let e = positional(a)?;
            match &e.kind {
                ast::ExprKind::List(items) | ast::ExprKind::Tuple(items) => {
                    for item in items {
                        out.push(self.region(item)?);
                    }
                }
                _ => out.push(self.region(e)?),
            }
        }
        Ok(out)
    }

    /// `A[vi, 0:128]` or a bare buffer `A` (the whole buffer).
    pub(super) fn region(&mut self, e: &ast::Expr) -> Result<BufferRegion> {
        match &e.kind {
            ast::ExprKind::Subscript { value, index } => {
                let buffer = self.buffer_ref(value)?;
                let items: Vec<&ast::Expr> = match &index.kind {
                    ast::ExprKind::Tuple(items) => items.iter().collect(),
                    _ => vec![index],
                };
                if items.len() != buffer.ndim() {
                    return Err(Diagnostic::error(
                        format!(
                            "buffer `{}` has {} dimensions but the region gives {}",
                            buffer.name,
                            buffer.ndim(),
                            items.len()
                        ),
                        index.span,
                    ));
                }
                let mut region = Vec::new();
                for (dim, item) in items.into_iter().enumerate() {
                    match &item.kind {
                        ast::ExprKind::Slice { lower, upper, step } => {
                            if step.is_some() {
                                return Err(Diagnostic::error(
                                    "a region slice has no step",
                                    item.span,
                                ));
                            }
                            let dtype = buffer
                                .shape
                                .get(dim)
                                .map(|s| s.dtype())
                                .unwrap_or(DataType::i32());
                            let lo = match lower {
                                Some(l) => self.eval(l)?,
                                None => Value::PyInt(0, item.span),
                            };
                            let hi = match upper {
                                Some(u) => self.eval(u)?,
                                None => Value::Expr(buffer.shape[dim].clone()),
                            };
                            let (lo, hi) = self.unify_pair_default(lo, hi, dtype)?;
                            let extent =
                                Analyzer::new().simplify(&Expr::binary(BinOp::Sub, hi, lo.clone()));
                            region.push(Range::new(lo, extent));
                        }
                        _ => {
                            let v = self.eval(item)?;
                            region.push(Range::point(self.index_expr(v)?));
                        }
                    }
                }
                Ok(BufferRegion { buffer, region })
            }
            _ => {
                let buffer = self.buffer_ref(e)?;
                let region = buffer.full_region();
                Ok(BufferRegion { buffer, region })
            }
        }
    }

    pub(super) fn buffer_ref(&mut self, e: &ast::Expr) -> Result<Buffer> {
        let Some(name) = e.as_name() else {
            return Err(Diagnostic::error("expected a buffer name", e.span));
        };
        match self.lookup(name) {
            Some(Binding::Buffer(b)) => Ok(b.clone()),
            Some(Binding::Var(_)) => Err(Diagnostic::error(
                format!("`{name}` is a variable, not a buffer"),
                e.span,
            )),
            None => Err(Diagnostic::error(
                format!("undefined buffer `{name}`"),
                e.span,
            )),
        }
    }

    pub(super) fn indices(&mut self, buffer: &Buffer, index: &ast::Expr) -> Result<Vec<Expr>> {
        let items: Vec<&ast::Expr> = match &index.kind {
            ast::ExprKind::Tuple(items) => items.iter().collect(),
            _ => vec![index],
        };
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            if let ast::ExprKind::Slice { lower, upper, step } = &item.kind {
                // `A[i:i + 4]` as an index: a vector access (a `T.Ramp`).
                out.push(self.slice_ramp(
                    lower.as_deref(),
                    upper.as_deref(),
                    step.as_deref(),
                    item.span,
                )?);
                continue;
            }
            let v = self.eval(item)?;
            out.push(self.index_expr(v)?);
        }
        // Rank is checked by the verifier, which reports it with both spans.
        let _ = buffer;
        Ok(out)
    }

    /// A constant-length slice used as an element index, as a ramp.
    pub(super) fn slice_ramp(
        &mut self,
        lower: Option<&ast::Expr>,
        upper: Option<&ast::Expr>,
        step: Option<&ast::Expr>,
        span: Span,
    ) -> Result<Expr> {
        let (Some(lower), Some(upper)) = (lower, upper) else {
            return Err(Diagnostic::error(
                "a vector index needs both bounds, like `A[i:i + 4]`",
                span,
            ));
        };
        let lo = self.eval(lower)?;
        let hi = self.eval(upper)?;
        let (lo, hi) = self.unify_pair(lo, hi)?;
        let stride = match step {
            Some(st) => {
                let v = self.eval(st)?;
                self.expr_as(v, lo.dtype())?
            }
            None => Expr::int(1, lo.dtype()),
        };
        let len = Analyzer::new().simplify(&Expr::binary(BinOp::Sub, hi, lo.clone()));
        let (Some(len), Some(st)) = (len.as_int(), stride.as_int()) else {
            return Err(Diagnostic::error(
                "a vector index needs a constant length and step",
                span,
            ));
        };
        if st <= 0 || len <= 0 {
            return Err(Diagnostic::error(
                "a vector index needs a positive length and step",
                span,
            ));
        }
        let lanes = (len + st - 1) / st;
        let lanes = u16::try_from(lanes).map_err(|_| Diagnostic::error("too many lanes", span))?;
        let dt = lo.dtype().with_lanes(lanes);
        Ok(Expr::new(ExprKind::Ramp { base: lo, stride }, dt, span))
    }
}

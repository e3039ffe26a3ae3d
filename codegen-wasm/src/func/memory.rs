//! Buffer addresses, loads and stores (scalar and SIMD).

use super::*;

impl<'a> FuncGen<'a> {
    /// Pushes the address for element `idx` (scalar, or a ramp's base) of a
    /// flat buffer and returns the constant byte offset for the memarg.
    fn address(&mut self, buffer: &Buffer, idx: &Expr) -> R<u64> {
        let base = *self.bufs.get(&buffer.data.id()).ok_or_else(|| {
            CodegenError::new(format!("buffer {} is not defined here", buffer.name))
        })?;
        let bytes = buffer.dtype.bytes() as i64;
        let idx = match idx.kind() {
            ExprKind::Ramp { base, stride } => {
                if !stride.is_const_int(1) {
                    return Err(CodegenError::unsupported(format!(
                        "a strided vector access of {} (only contiguous ones)",
                        buffer.name
                    )));
                }
                base.clone()
            }
            ExprKind::Broadcast(_) => {
                return Err(CodegenError::unsupported(format!(
                    "a gather from {} (every lane at one element)",
                    buffer.name
                )))
            }
            _ => idx.clone(),
        };
        // Split off the constant part (and a constant element offset).
        let mut terms = Vec::new();
        let mut konst = 0i64;
        split_const(&idx, false, &mut terms, &mut konst);
        let mut dyn_part: Option<Expr> = rebuild(&terms, idx.dtype());
        match buffer.elem_offset.as_int() {
            Some(c) => konst = konst.wrapping_add(c),
            None => {
                let eo = tessel_tir::ir::Expr::cast(idx.dtype(), buffer.elem_offset.clone());
                dyn_part = Some(match dyn_part {
                    Some(d) => Expr::binary(BinOp::Add, d, eo),
                    None => eo,
                });
            }
        }
        let dyn_nonneg = dyn_part
            .as_ref()
            .is_none_or(|d| self.ana.can_prove_ge(d, 0));
        let byte_off = konst.checked_mul(bytes);
        let use_offset = dyn_nonneg && byte_off.is_some_and(|b| (0..=u32::MAX as i64).contains(&b));
        self.i(I::LocalGet(base));
        let scaled = |g: &mut Self, e: &Expr| -> R<()> {
            g.expr(e)?;
            if val_type(e.dtype())? == ValType::I64 {
                g.i(I::I32WrapI64);
            }
            if bytes > 1 {
                g.i(I::I32Const(bytes.trailing_zeros() as i32));
                g.i(I::I32Shl);
            }
            g.i(I::I32Add);
            Ok(())
        };
        if use_offset {
            if let Some(d) = &dyn_part {
                scaled(self, d)?;
            }
            Ok(byte_off.unwrap_or(0) as u64)
        } else {
            let full = match dyn_part {
                Some(d) => Expr::binary(BinOp::Add, d, Expr::int(konst, idx.dtype())),
                None => Expr::int(konst, idx.dtype()),
            };
            scaled(self, &full)?;
            Ok(0)
        }
    }

    pub(super) fn store(&mut self, buffer: &Buffer, value: &Expr, indices: &[Expr]) -> R<()> {
        let [idx] = indices else {
            return Err(CodegenError::new(format!(
                "internal: store to {} is not flat",
                buffer.name
            )));
        };
        let dt = buffer
            .dtype
            .with_lanes(value.dtype().lanes.max(idx.dtype().lanes));
        if self.regs.contains_key(&buffer.data.id()) {
            let slot = self.reg_slot(buffer, idx).ok_or_else(|| {
                CodegenError::new(format!("internal: register buffer {} index", buffer.name))
            })?;
            self.expr_as(value, dt)?;
            self.i(I::LocalSet(slot));
            return Ok(());
        }
        let off = self.address(buffer, idx)?;
        self.expr_as(value, dt)?;
        self.i(store(dt, off)?);
        Ok(())
    }

    pub(super) fn load(&mut self, e: &Expr, buffer: &Buffer, indices: &[Expr]) -> R<()> {
        let [idx] = indices else {
            return Err(CodegenError::new(format!(
                "internal: load from {} is not flat",
                buffer.name
            )));
        };
        if self.regs.contains_key(&buffer.data.id()) {
            let slot = self.reg_slot(buffer, idx).ok_or_else(|| {
                CodegenError::new(format!("internal: register buffer {} index", buffer.name))
            })?;
            self.i(I::LocalGet(slot));
            return Ok(());
        }
        if let ExprKind::Broadcast(x) = idx.kind() {
            // One element in every lane: load it once and splat.
            let s = Expr::load(buffer, vec![x.clone()]);
            self.expr(&s)?;
            self.i(shape(e.dtype())?.splat());
            return Ok(());
        }
        let off = self.address(buffer, idx)?;
        self.i(load(e.dtype(), off)?);
        Ok(())
    }
}

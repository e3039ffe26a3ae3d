//! Comparisons, casts (scalar and vector) and intrinsic calls, math
//! functions included.

use super::*;

impl<'a> FuncGen<'a> {
    pub(super) fn compare(&mut self, op: CmpOp, a: &Expr, b: &Expr) -> R<()> {
        // Operands in the wider of the two types (they normally agree).
        let at = if a.dtype().lanes >= b.dtype().lanes {
            a.dtype()
        } else {
            b.dtype()
        };
        let at = if a.as_int().is_some() && b.as_int().is_none() {
            b.dtype().with_lanes(at.lanes)
        } else {
            at
        };
        self.expr_as(a, at)?;
        self.expr_as(b, at)?;
        if at.lanes > 1 {
            let sh = shape(at)?;
            let u = is_unsigned(at);
            let ins = match (sh, op) {
                (Shape::F32x4, CmpOp::Eq) => I::F32x4Eq,
                (Shape::F32x4, CmpOp::Ne) => I::F32x4Ne,
                (Shape::F32x4, CmpOp::Lt) => I::F32x4Lt,
                (Shape::F32x4, CmpOp::Le) => I::F32x4Le,
                (Shape::F32x4, CmpOp::Gt) => I::F32x4Gt,
                (Shape::F32x4, CmpOp::Ge) => I::F32x4Ge,
                (Shape::F64x2, CmpOp::Eq) => I::F64x2Eq,
                (Shape::F64x2, CmpOp::Ne) => I::F64x2Ne,
                (Shape::F64x2, CmpOp::Lt) => I::F64x2Lt,
                (Shape::F64x2, CmpOp::Le) => I::F64x2Le,
                (Shape::F64x2, CmpOp::Gt) => I::F64x2Gt,
                (Shape::F64x2, CmpOp::Ge) => I::F64x2Ge,
                (Shape::I32x4, CmpOp::Eq) => I::I32x4Eq,
                (Shape::I32x4, CmpOp::Ne) => I::I32x4Ne,
                (Shape::I32x4, CmpOp::Lt) if u => I::I32x4LtU,
                (Shape::I32x4, CmpOp::Le) if u => I::I32x4LeU,
                (Shape::I32x4, CmpOp::Gt) if u => I::I32x4GtU,
                (Shape::I32x4, CmpOp::Ge) if u => I::I32x4GeU,
                (Shape::I32x4, CmpOp::Lt) => I::I32x4LtS,
                (Shape::I32x4, CmpOp::Le) => I::I32x4LeS,
                (Shape::I32x4, CmpOp::Gt) => I::I32x4GtS,
                (Shape::I32x4, CmpOp::Ge) => I::I32x4GeS,
                (Shape::I64x2, CmpOp::Eq) => I::I64x2Eq,
                (Shape::I64x2, CmpOp::Ne) => I::I64x2Ne,
                (Shape::I64x2, _) if u => {
                    return Err(CodegenError::unsupported(
                        "unsigned 64-bit vector comparison",
                    ))
                }
                (Shape::I64x2, CmpOp::Lt) => I::I64x2LtS,
                (Shape::I64x2, CmpOp::Le) => I::I64x2LeS,
                (Shape::I64x2, CmpOp::Gt) => I::I64x2GtS,
                (Shape::I64x2, CmpOp::Ge) => I::I64x2GeS,
            };
            self.i(ins);
            return Ok(());
        }
        let ty = val_type(at)?;
        let u = is_unsigned(at);
        let ins = match (ty, op) {
            (ValType::F32, CmpOp::Eq) => I::F32Eq,
            (ValType::F32, CmpOp::Ne) => I::F32Ne,
            (ValType::F32, CmpOp::Lt) => I::F32Lt,
            (ValType::F32, CmpOp::Le) => I::F32Le,
            (ValType::F32, CmpOp::Gt) => I::F32Gt,
            (ValType::F32, CmpOp::Ge) => I::F32Ge,
            (ValType::F64, CmpOp::Eq) => I::F64Eq,
            (ValType::F64, CmpOp::Ne) => I::F64Ne,
            (ValType::F64, CmpOp::Lt) => I::F64Lt,
            (ValType::F64, CmpOp::Le) => I::F64Le,
            (ValType::F64, CmpOp::Gt) => I::F64Gt,
            (ValType::F64, CmpOp::Ge) => I::F64Ge,
            (ValType::I64, CmpOp::Eq) => I::I64Eq,
            (ValType::I64, CmpOp::Ne) => I::I64Ne,
            (ValType::I64, CmpOp::Lt) if u => I::I64LtU,
            (ValType::I64, CmpOp::Le) if u => I::I64LeU,
            (ValType::I64, CmpOp::Gt) if u => I::I64GtU,
            (ValType::I64, CmpOp::Ge) if u => I::I64GeU,
            (ValType::I64, CmpOp::Lt) => I::I64LtS,
            (ValType::I64, CmpOp::Le) => I::I64LeS,
            (ValType::I64, CmpOp::Gt) => I::I64GtS,
            (ValType::I64, CmpOp::Ge) => I::I64GeS,
            (_, CmpOp::Eq) => I::I32Eq,
            (_, CmpOp::Ne) => I::I32Ne,
            (_, CmpOp::Lt) if u => I::I32LtU,
            (_, CmpOp::Le) if u => I::I32LeU,
            (_, CmpOp::Gt) if u => I::I32GtU,
            (_, CmpOp::Ge) if u => I::I32GeU,
            (_, CmpOp::Lt) => I::I32LtS,
            (_, CmpOp::Le) => I::I32LeS,
            (_, CmpOp::Gt) => I::I32GtS,
            (_, CmpOp::Ge) => I::I32GeS,
        };
        self.i(ins);
        Ok(())
    }

    pub(super) fn cast(&mut self, a: &Expr, to: DataType) -> R<()> {
        let from = a.dtype();
        if from.lanes != to.lanes {
            if from.lanes == 1 {
                // cast then splat
                self.cast(a, to.element())?;
                self.i(shape(to)?.splat());
                return Ok(());
            }
            return Err(CodegenError::unsupported(format!(
                "a cast from {from} to {to}"
            )));
        }
        if to.lanes > 1 {
            return self.vector_cast(a, to);
        }
        self.expr(a)?;
        self.scalar_cast(from, to)
    }

    /// Converts the scalar of type `from` on the stack to `to`.
    fn scalar_cast(&mut self, from: DataType, to: DataType) -> R<()> {
        if from == to {
            return Ok(());
        }
        let ft = val_type(from)?;
        let tt = val_type(to)?;
        let fu = is_unsigned(from);
        let tu = is_unsigned(to);
        if to.is_bool() {
            match ft {
                ValType::I32 => {
                    self.i(I::I32Const(0));
                    self.i(I::I32Ne);
                }
                ValType::I64 => {
                    self.i(I::I64Const(0));
                    self.i(I::I64Ne);
                }
                ValType::F32 => {
                    self.i(I::F32Const(Ieee32::new(0)));
                    self.i(I::F32Ne);
                }
                ValType::F64 => {
                    self.i(I::F64Const(Ieee64::new(0)));
                    self.i(I::F64Ne);
                }
                _ => return Err(CodegenError::unsupported("a vector to bool cast")),
            }
            return Ok(());
        }
        if from.is_float() {
            if to.is_float() {
                match (ft, tt) {
                    (ValType::F32, ValType::F64) => self.i(I::F64PromoteF32),
                    (ValType::F64, ValType::F32) => self.i(I::F32DemoteF64),
                    _ => {}
                }
                return Ok(());
            }
            // float → int: Rust `as` (truncate, saturate at the target's range, NaN → 0).
            if to.bits < 32 {
                let (lo, hi) = int_range(to);
                let w = ft == ValType::F64;
                let c = |v: f64| {
                    if w {
                        I::F64Const(Ieee64::new(v.to_bits()))
                    } else {
                        I::F32Const(Ieee32::new((v as f32).to_bits()))
                    }
                };
                self.i(c(lo as f64));
                self.i(if w { I::F64Max } else { I::F32Max });
                self.i(c(hi as f64));
                self.i(if w { I::F64Min } else { I::F32Min });
            }
            self.i(match (ft, tt, tu) {
                (ValType::F32, ValType::I32, true) => I::I32TruncSatF32U,
                (ValType::F32, ValType::I32, false) => I::I32TruncSatF32S,
                (ValType::F64, ValType::I32, true) => I::I32TruncSatF64U,
                (ValType::F64, ValType::I32, false) => I::I32TruncSatF64S,
                (ValType::F32, ValType::I64, true) => I::I64TruncSatF32U,
                (ValType::F32, ValType::I64, false) => I::I64TruncSatF32S,
                (ValType::F64, ValType::I64, true) => I::I64TruncSatF64U,
                (ValType::F64, ValType::I64, false) => I::I64TruncSatF64S,
                _ => return Err(CodegenError::unsupported(format!("cast {from} → {to}"))),
            });
            return Ok(());
        }
        // From an integer (or bool).
        if to.is_float() {
            self.i(match (ft, tt, fu) {
                (ValType::I32, ValType::F32, true) => I::F32ConvertI32U,
                (ValType::I32, ValType::F32, false) => I::F32ConvertI32S,
                (ValType::I64, ValType::F32, true) => I::F32ConvertI64U,
                (ValType::I64, ValType::F32, false) => I::F32ConvertI64S,
                (ValType::I32, ValType::F64, true) => I::F64ConvertI32U,
                (ValType::I32, ValType::F64, false) => I::F64ConvertI32S,
                (ValType::I64, ValType::F64, true) => I::F64ConvertI64U,
                (ValType::I64, ValType::F64, false) => I::F64ConvertI64S,
                _ => return Err(CodegenError::unsupported(format!("cast {from} → {to}"))),
            });
            return Ok(());
        }
        match (ft, tt) {
            (ValType::I32, ValType::I64) => self.i(if fu {
                I::I64ExtendI32U
            } else {
                I::I64ExtendI32S
            }),
            (ValType::I64, ValType::I32) => self.i(I::I32WrapI64),
            _ => {}
        }
        if tt == ValType::I32 {
            for x in normalize_small_int(to) {
                self.i(x);
            }
        }
        Ok(())
    }

    fn vector_cast(&mut self, a: &Expr, to: DataType) -> R<()> {
        let from = a.dtype();
        let (fs, ts) = (shape(from)?, shape(to)?);
        let native = match (fs, ts) {
            (Shape::I32x4, Shape::F32x4) if from.is_int() && from.bits == 32 => {
                Some(I::F32x4ConvertI32x4S)
            }
            (Shape::I32x4, Shape::F32x4) if from.is_uint() && from.bits == 32 => {
                Some(I::F32x4ConvertI32x4U)
            }
            (Shape::F32x4, Shape::I32x4) if to.is_int() && to.bits == 32 => {
                Some(I::I32x4TruncSatF32x4S)
            }
            (Shape::F32x4, Shape::I32x4) if to.is_uint() && to.bits == 32 => {
                Some(I::I32x4TruncSatF32x4U)
            }
            _ if from.element() == to.element() => None,
            _ => None,
        };
        self.expr(a)?;
        if from.element() == to.element() {
            return Ok(());
        }
        if let Some(ins) = native {
            self.i(ins);
            return Ok(());
        }
        if fs.lanes() != ts.lanes() {
            return Err(CodegenError::unsupported(format!(
                "a cast from {from} to {to}"
            )));
        }
        // Lane by lane.
        let src = self.temp(ValType::V128);
        self.i(I::LocalSet(src));
        self.i(I::V128Const(0));
        for k in 0..fs.lanes() {
            self.i(I::LocalGet(src));
            self.i(fs.extract(k));
            self.scalar_cast(from.element(), to.element())?;
            self.i(ts.replace(k));
        }
        self.release(ValType::V128, src);
        Ok(())
    }

    pub(super) fn call_math(&mut self, f: MathFn) -> R<()> {
        let idx = *self
            .ctx
            .math
            .get(&f)
            .ok_or_else(|| CodegenError::new(format!("internal: {f:?} not imported")))?;
        self.i(I::Call(idx));
        Ok(())
    }

    pub(super) fn call(&mut self, op: &Intrinsic, args: &[Expr], dt: DataType) -> R<()> {
        if *op == Intrinsic::IfThenElse {
            let [c, t, o] = args else {
                return Err(CodegenError::new("if_then_else takes 3 arguments"));
            };
            if dt.lanes > 1 {
                return Err(CodegenError::unsupported("a vector if_then_else"));
            }
            let ty = val_type(dt)?;
            self.cond(c)?;
            self.i(I::If(BlockType::Result(ty)));
            self.expr_as(t, dt)?;
            self.i(I::Else);
            self.expr_as(o, dt)?;
            self.i(I::End);
            return Ok(());
        }
        let name = match op {
            Intrinsic::Other(n) => n.as_str(),
            _ => "",
        };
        if name == "likely" {
            let [x] = args else {
                return Err(CodegenError::new("likely takes 1 argument"));
            };
            return self.expr(x);
        }
        let Some(x) = args.first() else {
            return Err(CodegenError::new(format!(
                "T.{} without arguments",
                op.name()
            )));
        };
        let at = x.dtype();
        if dt.lanes > 1 {
            let sh = shape(dt)?;
            self.expr_as(x, dt)?;
            let w = sh == Shape::F64x2;
            let (f64x2, f32x4) = match op {
                Intrinsic::Fabs if dt.is_float() => (I::F64x2Abs, I::F32x4Abs),
                Intrinsic::Sqrt => (I::F64x2Sqrt, I::F32x4Sqrt),
                Intrinsic::Floor => (I::F64x2Floor, I::F32x4Floor),
                Intrinsic::Ceil => (I::F64x2Ceil, I::F32x4Ceil),
                Intrinsic::Trunc => (I::F64x2Trunc, I::F32x4Trunc),
                Intrinsic::Round => (I::F64x2Nearest, I::F32x4Nearest),
                _ => {
                    return Err(CodegenError::unsupported(format!(
                        "T.{} on {dt} vectors",
                        op.name()
                    )))
                }
            };
            self.i(if w { f64x2 } else { f32x4 });
            return Ok(());
        }
        if !at.is_float() {
            // Integer identity cases (as the interpreter), abs.
            return match op {
                Intrinsic::Floor | Intrinsic::Ceil | Intrinsic::Round | Intrinsic::Trunc => {
                    self.expr_as(x, dt)
                }
                Intrinsic::Fabs => {
                    // select(-x, x, x < 0)
                    let ty = val_type(dt)?;
                    let w = ty == ValType::I64;
                    let t = self.temp(ty);
                    self.expr_as(x, dt)?;
                    self.i(I::LocalSet(t));
                    self.i(if w { I::I64Const(0) } else { I::I32Const(0) });
                    self.i(I::LocalGet(t));
                    self.i(if w { I::I64Sub } else { I::I32Sub });
                    self.i(I::LocalGet(t));
                    self.i(I::LocalGet(t));
                    self.i(if w { I::I64Const(0) } else { I::I32Const(0) });
                    self.i(if w { I::I64LtS } else { I::I32LtS });
                    self.i(I::Select);
                    self.release(ty, t);
                    for x in normalize_small_int(dt) {
                        self.i(x);
                    }
                    Ok(())
                }
                _ => Err(CodegenError::unsupported(format!(
                    "T.{} of a {at} value",
                    op.name()
                ))),
            };
        }
        let w = at.bits == 64;
        let native = match op {
            Intrinsic::Fabs => Some(if w { I::F64Abs } else { I::F32Abs }),
            Intrinsic::Sqrt => Some(if w { I::F64Sqrt } else { I::F32Sqrt }),
            Intrinsic::Floor => Some(if w { I::F64Floor } else { I::F32Floor }),
            Intrinsic::Ceil => Some(if w { I::F64Ceil } else { I::F32Ceil }),
            Intrinsic::Trunc => Some(if w { I::F64Trunc } else { I::F32Trunc }),
            Intrinsic::Round => Some(if w { I::F64Nearest } else { I::F32Nearest }),
            Intrinsic::Other(n) if n == "abs" => Some(if w { I::F64Abs } else { I::F32Abs }),
            Intrinsic::Other(n) if n == "nearbyint" => {
                Some(if w { I::F64Nearest } else { I::F32Nearest })
            }
            _ => None,
        };
        if let Some(ins) = native {
            self.expr_as(x, at)?;
            self.i(ins);
            return Ok(());
        }
        // In f64, like the interpreter, then rounded to the type.
        let promote = |g: &mut Self| {
            if !w {
                g.i(I::F64PromoteF32);
            }
        };
        let one = I::F64Const(Ieee64::new(1.0f64.to_bits()));
        match op {
            Intrinsic::Rsqrt => {
                self.i(one);
                self.expr_as(x, at)?;
                promote(self);
                self.i(I::F64Sqrt);
                self.i(I::F64Div);
            }
            Intrinsic::Sigmoid => {
                self.i(one.clone());
                self.i(one);
                self.expr_as(x, at)?;
                promote(self);
                self.i(I::F64Neg);
                self.call_math(MathFn::Exp)?;
                self.i(I::F64Add);
                self.i(I::F64Div);
            }
            Intrinsic::Pow => {
                let [a, b] = args else {
                    return Err(CodegenError::new("pow takes 2 arguments"));
                };
                self.expr_as(a, at)?;
                promote(self);
                self.expr_as(b, at)?;
                promote(self);
                self.call_math(MathFn::Pow)?;
            }
            _ => {
                let f = MathFn::of(op).ok_or_else(|| {
                    CodegenError::unsupported(format!("the call T.{}", op.name()))
                })?;
                self.expr_as(x, at)?;
                promote(self);
                self.call_math(f)?;
            }
        }
        if !w {
            self.i(I::F32DemoteF64);
        }
        Ok(())
    }
}

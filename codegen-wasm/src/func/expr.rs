//! Expressions: variables, constants, conditions, and arithmetic (scalar,
//! floor division and modulo, min/max, vector).

use super::*;

impl<'a> FuncGen<'a> {
    pub(super) fn var(&mut self, v: &Var) -> R<()> {
        if let Some(&l) = self.vars.get(&v.id()) {
            self.i(I::LocalGet(l));
            return Ok(());
        }
        if let Some(&l) = self.bufs.get(&v.id()) {
            self.i(I::LocalGet(l));
            return Ok(());
        }
        Err(CodegenError::new(format!(
            "variable {} is not defined here",
            v.name()
        )))
    }

    /// Pushes `e` converted to `dt` (same lanes): constants re-typed,
    /// scalars splat to vectors.
    pub(super) fn expr_as(&mut self, e: &Expr, dt: DataType) -> R<()> {
        if e.dtype() == dt {
            return self.expr(e);
        }
        if e.dtype().lanes == 1 && dt.lanes > 1 && e.dtype() == dt.element() {
            self.expr(e)?;
            self.i(shape(dt)?.splat());
            return Ok(());
        }
        if let Some(v) = e.as_int() {
            if dt.is_scalar() {
                return self.expr(&Expr::int(v, dt));
            }
        }
        self.expr(&Expr::cast(dt, e.clone()))
    }

    /// A condition as an `i32` 0/1.
    pub(super) fn cond(&mut self, c: &Expr) -> R<()> {
        if c.dtype().lanes > 1 {
            return Err(CodegenError::unsupported("a vector condition in an `if`"));
        }
        self.expr(c)?;
        match val_type(c.dtype())? {
            ValType::I32 => {}
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
            _ => return Err(CodegenError::unsupported("a vector condition")),
        }
        Ok(())
    }

    pub(super) fn expr(&mut self, e: &Expr) -> R<()> {
        let span = e.span();
        self.expr_inner(e).map_err(|err| err.at(span))
    }

    fn expr_inner(&mut self, e: &Expr) -> R<()> {
        let dt = e.dtype();
        match e.kind() {
            ExprKind::Var(v) => self.var(v),
            ExprKind::Int(v) => self.int_const(*v, dt),
            ExprKind::Float(v) => self.float_const(*v, dt),
            ExprKind::Str(_) => Err(CodegenError::unsupported("a string value")),
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, dt),
            ExprKind::Cmp(op, a, b) => self.compare(*op, a, b),
            ExprKind::And(a, b) | ExprKind::Or(a, b) => {
                let is_and = matches!(e.kind(), ExprKind::And(..));
                self.expr_as(a, dt)?;
                self.expr_as(b, dt)?;
                self.i(match (dt.lanes > 1, is_and) {
                    (true, true) => I::V128And,
                    (true, false) => I::V128Or,
                    (false, true) => I::I32And,
                    (false, false) => I::I32Or,
                });
                Ok(())
            }
            ExprKind::Not(a) => {
                self.expr_as(a, dt)?;
                self.i(if dt.lanes > 1 { I::V128Not } else { I::I32Eqz });
                Ok(())
            }
            ExprKind::Select {
                cond,
                then,
                otherwise,
            } => {
                if dt.lanes > 1 && cond.dtype().lanes > 1 {
                    self.expr_as(then, dt)?;
                    self.expr_as(otherwise, dt)?;
                    self.expr(cond)?;
                    self.i(I::V128Bitselect);
                } else {
                    self.expr_as(then, dt)?;
                    self.expr_as(otherwise, dt)?;
                    self.cond(cond)?;
                    self.i(I::Select);
                }
                Ok(())
            }
            ExprKind::Cast(a) => self.cast(a, dt),
            ExprKind::Call { op, args } => self.call(op, args, dt),
            ExprKind::Load { buffer, indices } => self.load(e, buffer, indices),
            ExprKind::Let { var, value, body } => {
                let ty = val_type(var.dtype())?;
                self.expr(value)?;
                let local = self.local(ty, var.name());
                self.i(I::LocalSet(local));
                self.vars.insert(var.id(), local);
                self.expr(body)
            }
            ExprKind::Ramp { base, stride } => {
                let sh = shape(dt)?;
                let el = dt.element();
                if !el.is_integer() {
                    return Err(CodegenError::unsupported(format!("a {dt} ramp")));
                }
                // splat(base) + [0, s, 2s, ...] * splat(stride)
                self.expr_as(base, el)?;
                self.i(sh.splat());
                match stride.as_int() {
                    Some(s) => {
                        self.lane_const(sh, |k| s.wrapping_mul(k as i64));
                    }
                    None => {
                        self.lane_const(sh, |k| k as i64);
                        self.expr_as(stride, el)?;
                        self.i(sh.splat());
                        self.i(if sh == Shape::I64x2 {
                            I::I64x2Mul
                        } else {
                            I::I32x4Mul
                        });
                    }
                }
                self.i(if sh == Shape::I64x2 {
                    I::I64x2Add
                } else {
                    I::I32x4Add
                });
                Ok(())
            }
            ExprKind::Broadcast(a) => {
                self.expr_as(a, dt.element())?;
                self.i(shape(dt)?.splat());
                Ok(())
            }
        }
    }

    fn lane_const(&mut self, sh: Shape, f: impl Fn(u8) -> i64) {
        let mut bits: u128 = 0;
        match sh {
            Shape::I64x2 => {
                for k in 0..2u8 {
                    bits |= (f(k) as u64 as u128) << (64 * k as u32);
                }
            }
            _ => {
                for k in 0..4u8 {
                    bits |= (f(k) as u32 as u128) << (32 * k as u32);
                }
            }
        }
        self.i(I::V128Const(bits as i128));
    }

    fn int_const(&mut self, v: i64, dt: DataType) -> R<()> {
        if dt.lanes > 1 {
            self.int_const(v, dt.element())?;
            self.i(shape(dt)?.splat());
            return Ok(());
        }
        match val_type(dt)? {
            ValType::I32 => self.i(I::I32Const(v as i32)),
            ValType::I64 => self.i(I::I64Const(v)),
            ValType::F32 => self.i(I::F32Const(Ieee32::new((v as f32).to_bits()))),
            ValType::F64 => self.i(I::F64Const(Ieee64::new((v as f64).to_bits()))),
            _ => return Err(CodegenError::unsupported(format!("a {dt} constant"))),
        }
        Ok(())
    }

    fn float_const(&mut self, v: f64, dt: DataType) -> R<()> {
        if dt.lanes > 1 {
            self.float_const(v, dt.element())?;
            self.i(shape(dt)?.splat());
            return Ok(());
        }
        match val_type(dt)? {
            ValType::F32 => self.i(I::F32Const(Ieee32::new((v as f32).to_bits()))),
            ValType::F64 => self.i(I::F64Const(Ieee64::new(v.to_bits()))),
            ValType::I32 => self.i(I::I32Const(v as i32)),
            ValType::I64 => self.i(I::I64Const(v as i64)),
            _ => return Err(CodegenError::unsupported(format!("a {dt} constant"))),
        }
        Ok(())
    }

    pub(super) fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, dt: DataType) -> R<()> {
        if dt.lanes > 1 {
            return self.vector_binary(op, a, b, dt);
        }
        let ty = val_type(dt)?;
        if let Some(bits) = float_bits(dt) {
            let w = bits == 64;
            match op {
                BinOp::Min | BinOp::Max => return self.select_minmax(op, a, b, dt),
                BinOp::Mod => {
                    // C fmod, exact: computed by the host in f64.
                    self.expr_as(a, dt)?;
                    if !w {
                        self.i(I::F64PromoteF32);
                    }
                    self.expr_as(b, dt)?;
                    if !w {
                        self.i(I::F64PromoteF32);
                    }
                    self.call_math(MathFn::Fmod)?;
                    if !w {
                        self.i(I::F32DemoteF64);
                    }
                    return Ok(());
                }
                BinOp::FloorDiv | BinOp::FloorMod => {
                    // floor(a / b), and a - floor(a / b) * b, in the type.
                    let (ta, tb) = (self.temp(ty), self.temp(ty));
                    self.expr_as(a, dt)?;
                    self.i(I::LocalSet(ta));
                    self.expr_as(b, dt)?;
                    self.i(I::LocalSet(tb));
                    if op == BinOp::FloorMod {
                        self.i(I::LocalGet(ta));
                    }
                    self.i(I::LocalGet(ta));
                    self.i(I::LocalGet(tb));
                    self.i(if w { I::F64Div } else { I::F32Div });
                    self.i(if w { I::F64Floor } else { I::F32Floor });
                    if op == BinOp::FloorMod {
                        self.i(I::LocalGet(tb));
                        self.i(if w { I::F64Mul } else { I::F32Mul });
                        self.i(if w { I::F64Sub } else { I::F32Sub });
                    }
                    self.release(ty, ta);
                    self.release(ty, tb);
                    return Ok(());
                }
                _ => {}
            }
            self.expr_as(a, dt)?;
            self.expr_as(b, dt)?;
            self.i(match (op, w) {
                (BinOp::Add, false) => I::F32Add,
                (BinOp::Sub, false) => I::F32Sub,
                (BinOp::Mul, false) => I::F32Mul,
                (BinOp::Div, false) => I::F32Div,
                (BinOp::Add, true) => I::F64Add,
                (BinOp::Sub, true) => I::F64Sub,
                (BinOp::Mul, true) => I::F64Mul,
                (BinOp::Div, true) => I::F64Div,
                _ => return Err(CodegenError::new("internal: float op")),
            });
            return Ok(());
        }
        if !(dt.is_integer() || dt.is_bool()) {
            return Err(CodegenError::unsupported(format!("arithmetic on {dt}")));
        }
        let w = ty == ValType::I64;
        let unsigned = is_unsigned(dt);
        match op {
            BinOp::Min | BinOp::Max => return self.select_minmax(op, a, b, dt),
            BinOp::FloorDiv | BinOp::FloorMod if !unsigned => {
                return self.floor_divmod(op, a, b, dt);
            }
            _ => {}
        }
        self.expr_as(a, dt)?;
        self.expr_as(b, dt)?;
        let ins = match (op, w) {
            (BinOp::Add, false) => I::I32Add,
            (BinOp::Sub, false) => I::I32Sub,
            (BinOp::Mul, false) => I::I32Mul,
            (BinOp::Add, true) => I::I64Add,
            (BinOp::Sub, true) => I::I64Sub,
            (BinOp::Mul, true) => I::I64Mul,
            (BinOp::Div | BinOp::FloorDiv, false) if unsigned => I::I32DivU,
            (BinOp::Mod | BinOp::FloorMod, false) if unsigned => I::I32RemU,
            (BinOp::Div | BinOp::FloorDiv, true) if unsigned => I::I64DivU,
            (BinOp::Mod | BinOp::FloorMod, true) if unsigned => I::I64RemU,
            (BinOp::Div, false) => I::I32DivS,
            (BinOp::Mod, false) => I::I32RemS,
            (BinOp::Div, true) => I::I64DivS,
            (BinOp::Mod, true) => I::I64RemS,
            _ => return Err(CodegenError::new("internal: int op")),
        };
        self.i(ins);
        for x in normalize_small_int(dt) {
            self.i(x);
        }
        Ok(())
    }

    /// `a < b ? a : b` / `a > b ? a : b` (the interpreter's and TVM's LLVM
    /// semantics, NaNs included).
    fn select_minmax(&mut self, op: BinOp, a: &Expr, b: &Expr, dt: DataType) -> R<()> {
        let ty = val_type(dt)?;
        let (ta, tb) = (self.temp(ty), self.temp(ty));
        self.expr_as(a, dt)?;
        self.i(I::LocalTee(ta));
        self.expr_as(b, dt)?;
        self.i(I::LocalTee(tb));
        self.i(I::LocalGet(ta));
        self.i(I::LocalGet(tb));
        let lt = op == BinOp::Min;
        let f = float_bits(dt);
        let u = is_unsigned(dt);
        self.i(match (f, ty, lt) {
            (Some(32), _, true) => I::F32Lt,
            (Some(32), _, false) => I::F32Gt,
            (Some(_), _, true) => I::F64Lt,
            (Some(_), _, false) => I::F64Gt,
            (None, ValType::I64, true) if u => I::I64LtU,
            (None, ValType::I64, false) if u => I::I64GtU,
            (None, ValType::I64, true) => I::I64LtS,
            (None, ValType::I64, false) => I::I64GtS,
            (None, _, true) if u => I::I32LtU,
            (None, _, false) if u => I::I32GtU,
            (None, _, true) => I::I32LtS,
            (None, _, false) => I::I32GtS,
        });
        self.i(I::Select);
        self.release(ty, ta);
        self.release(ty, tb);
        Ok(())
    }

    /// Signed floor division / modulo. Constant positive divisors: a shift
    /// or mask for powers of two, plain division when `a >= 0` is provable;
    /// otherwise the general correction of truncating division.
    fn floor_divmod(&mut self, op: BinOp, a: &Expr, b: &Expr, dt: DataType) -> R<()> {
        let ty = val_type(dt)?;
        let w = ty == ValType::I64;
        let div = op == BinOp::FloorDiv;
        if let Some(c) = b.as_int() {
            if c > 0 && (c as u64).is_power_of_two() {
                self.expr_as(a, dt)?;
                if div {
                    let k = c.trailing_zeros() as i64;
                    self.int_const(k, dt)?;
                    self.i(if w { I::I64ShrS } else { I::I32ShrS });
                } else {
                    self.int_const(c - 1, dt)?;
                    self.i(if w { I::I64And } else { I::I32And });
                }
                return Ok(());
            }
            if c > 0 && self.ana.can_prove_ge(a, 0) {
                self.expr_as(a, dt)?;
                self.int_const(c, dt)?;
                self.i(match (div, w) {
                    (true, false) => I::I32DivU,
                    (false, false) => I::I32RemU,
                    (true, true) => I::I64DivU,
                    (false, true) => I::I64RemU,
                });
                return Ok(());
            }
        }
        // q = a / b; r = a % b; fix = (r != 0) & ((r ^ b) < 0)
        // floordiv = q - fix; floormod = r + (fix ? b : 0)
        let (ta, tb, tr) = (self.temp(ty), self.temp(ty), self.temp(ty));
        self.expr_as(a, dt)?;
        self.i(I::LocalSet(ta));
        self.expr_as(b, dt)?;
        self.i(I::LocalSet(tb));
        self.i(I::LocalGet(ta));
        self.i(I::LocalGet(tb));
        self.i(if w { I::I64RemS } else { I::I32RemS });
        self.i(I::LocalSet(tr));
        let push_fix = |g: &mut Self| {
            g.i(I::LocalGet(tr));
            g.i(if w { I::I64Const(0) } else { I::I32Const(0) });
            g.i(if w { I::I64Ne } else { I::I32Ne });
            g.i(I::LocalGet(tr));
            g.i(I::LocalGet(tb));
            g.i(if w { I::I64Xor } else { I::I32Xor });
            g.i(if w { I::I64Const(0) } else { I::I32Const(0) });
            g.i(if w { I::I64LtS } else { I::I32LtS });
            g.i(I::I32And);
        };
        if div {
            self.i(I::LocalGet(ta));
            self.i(I::LocalGet(tb));
            self.i(if w { I::I64DivS } else { I::I32DivS });
            push_fix(self);
            if w {
                self.i(I::I64ExtendI32U);
                self.i(I::I64Sub);
            } else {
                self.i(I::I32Sub);
            }
        } else {
            self.i(I::LocalGet(tr));
            self.i(I::LocalGet(tb));
            self.i(if w { I::I64Const(0) } else { I::I32Const(0) });
            push_fix(self);
            self.i(I::Select);
            self.i(if w { I::I64Add } else { I::I32Add });
        }
        self.release(ty, ta);
        self.release(ty, tb);
        self.release(ty, tr);
        for x in normalize_small_int(dt) {
            self.i(x);
        }
        Ok(())
    }

    fn vector_binary(&mut self, op: BinOp, a: &Expr, b: &Expr, dt: DataType) -> R<()> {
        let sh = shape(dt)?;
        let u = is_unsigned(dt);
        // pmin/pmax take (b, a) to give a < b ? a : b / a > b ? a : b.
        if matches!(op, BinOp::Min | BinOp::Max) && matches!(sh, Shape::F32x4 | Shape::F64x2) {
            self.expr_as(b, dt)?;
            self.expr_as(a, dt)?;
            self.i(match (sh, op) {
                (Shape::F32x4, BinOp::Min) => I::F32x4PMin,
                (Shape::F32x4, _) => I::F32x4PMax,
                (_, BinOp::Min) => I::F64x2PMin,
                _ => I::F64x2PMax,
            });
            return Ok(());
        }
        if matches!(op, BinOp::Min | BinOp::Max) && sh == Shape::I64x2 {
            // bitselect(a, b, a < b) / (a > b)
            let (ta, tb) = (self.temp(ValType::V128), self.temp(ValType::V128));
            self.expr_as(a, dt)?;
            self.i(I::LocalTee(ta));
            self.expr_as(b, dt)?;
            self.i(I::LocalTee(tb));
            self.i(I::LocalGet(ta));
            self.i(I::LocalGet(tb));
            if u {
                return Err(CodegenError::unsupported("uint64 vector min/max"));
            }
            self.i(if op == BinOp::Min {
                I::I64x2LtS
            } else {
                I::I64x2GtS
            });
            self.i(I::V128Bitselect);
            self.release(ValType::V128, ta);
            self.release(ValType::V128, tb);
            return Ok(());
        }
        if op == BinOp::Add && self.ctx.relaxed_fma && matches!(sh, Shape::F32x4 | Shape::F64x2) {
            let product = |e: &'_ Expr| match e.kind() {
                ExprKind::Binary(BinOp::Mul, x, y) if e.dtype() == dt => {
                    Some((x.clone(), y.clone()))
                }
                _ => None,
            };
            let fused = match (product(b), product(a)) {
                (Some((x, y)), _) => Some((x, y, a)),
                (None, Some((x, y))) => Some((x, y, b)),
                (None, None) => None,
            };
            if let Some((x, y, addend)) = fused {
                // relaxed_madd(x, y, c) = x * y + c, fused where the engine can.
                self.expr_as(&x, dt)?;
                self.expr_as(&y, dt)?;
                self.expr_as(addend, dt)?;
                self.i(if sh == Shape::F32x4 {
                    I::F32x4RelaxedMadd
                } else {
                    I::F64x2RelaxedMadd
                });
                return Ok(());
            }
        }
        self.expr_as(a, dt)?;
        self.expr_as(b, dt)?;
        let ins = match (sh, op) {
            (Shape::F32x4, BinOp::Add) => I::F32x4Add,
            (Shape::F32x4, BinOp::Sub) => I::F32x4Sub,
            (Shape::F32x4, BinOp::Mul) => I::F32x4Mul,
            (Shape::F32x4, BinOp::Div) => I::F32x4Div,
            (Shape::F64x2, BinOp::Add) => I::F64x2Add,
            (Shape::F64x2, BinOp::Sub) => I::F64x2Sub,
            (Shape::F64x2, BinOp::Mul) => I::F64x2Mul,
            (Shape::F64x2, BinOp::Div) => I::F64x2Div,
            (Shape::I32x4, BinOp::Add) => I::I32x4Add,
            (Shape::I32x4, BinOp::Sub) => I::I32x4Sub,
            (Shape::I32x4, BinOp::Mul) => I::I32x4Mul,
            (Shape::I32x4, BinOp::Min) if u => I::I32x4MinU,
            (Shape::I32x4, BinOp::Max) if u => I::I32x4MaxU,
            (Shape::I32x4, BinOp::Min) => I::I32x4MinS,
            (Shape::I32x4, BinOp::Max) => I::I32x4MaxS,
            (Shape::I64x2, BinOp::Add) => I::I64x2Add,
            (Shape::I64x2, BinOp::Sub) => I::I64x2Sub,
            (Shape::I64x2, BinOp::Mul) => I::I64x2Mul,
            _ => {
                return Err(CodegenError::unsupported(format!(
                    "{op:?} on {dt} vectors has no SIMD128 instruction"
                )))
            }
        };
        self.i(ins);
        Ok(())
    }
}

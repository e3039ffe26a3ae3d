//! Element-wise operations with broadcasting: binary operators,
//! comparisons, `maximum`/`minimum`, unary operators, one-argument ufuncs and
//! `round`.

use super::*;

fn int_pow(a: i64, b: i64) -> Res<i64> {
    if b < 0 {
        return Err(PyErr::value_error(
            "Integers to negative integer powers are not allowed.",
        ));
    }
    Ok(a.wrapping_pow(b.min(u32::MAX as i64) as u32))
}

fn int_binop(op: BinOp, x: i64, y: i64) -> Res<i64> {
    Ok(match op {
        BinOp::Add => x.wrapping_add(y),
        BinOp::Sub => x.wrapping_sub(y),
        BinOp::Mul => x.wrapping_mul(y),
        BinOp::FloorDiv => {
            if y == 0 {
                0
            } else {
                super::super::ops::int_divmod(x, y)
                    .map(|r| r.0)
                    .unwrap_or(0)
            }
        }
        BinOp::Mod => {
            if y == 0 {
                0
            } else {
                super::super::ops::int_divmod(x, y)
                    .map(|r| r.1)
                    .unwrap_or(0)
            }
        }
        BinOp::Pow => int_pow(x, y)?,
        BinOp::BitAnd => x & y,
        BinOp::BitOr => x | y,
        BinOp::BitXor => x ^ y,
        BinOp::LShift => x.wrapping_shl(y.clamp(0, 63) as u32),
        BinOp::RShift => x >> y.clamp(0, 63),
        BinOp::Div | BinOp::MatMul => 0,
    })
}

fn float_binop(op: BinOp, x: f64, y: f64) -> f64 {
    match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div => x / y,
        BinOp::FloorDiv => {
            if y == 0.0 {
                x / y
            } else {
                super::super::ops::float_divmod(x, y).0
            }
        }
        BinOp::Mod => {
            if y == 0.0 {
                f64::NAN
            } else {
                super::super::ops::float_divmod(x, y).1
            }
        }
        BinOp::Pow => x.powf(y),
        _ => f64::NAN,
    }
}

fn check_op_types(op: BinOp, out: DataType, a: &Opnd, b: &Opnd) -> Res<()> {
    let bitwise = matches!(
        op,
        BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::LShift | BinOp::RShift
    );
    if bitwise && is_float(out) {
        let name = match op {
            BinOp::BitAnd => "bitwise_and",
            BinOp::BitOr => "bitwise_or",
            BinOp::BitXor => "bitwise_xor",
            BinOp::LShift => "left_shift",
            _ => "right_shift",
        };
        return Err(PyErr::type_error(format!(
            "ufunc '{name}' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''"
        )));
    }
    if op == BinOp::Sub && a.dtype.is_bool() && b.dtype.is_bool() && out.is_bool() {
        return Err(PyErr::type_error(
            "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` operator, or the logical_xor function instead.",
        ));
    }
    Ok(())
}

/// Fast path for two scalars (the inner loop of `Y[i, j] + A[i, k] * B[k, j]`).
fn scalar_binary(op: BinOp, l: &Value, r: &Value) -> Option<Res<Value>> {
    let as_s = |v: &Value| -> Option<(DataType, Num, Weak)> {
        Some(match v {
            Value::NpScalar(s) => (s.dtype, s.num, Weak::No),
            Value::Int(i) => (DataType::i64(), Num::I(*i), Weak::Int),
            Value::Float(f) => (DataType::f64(), Num::F(*f), Weak::Float),
            Value::Bool(b) => (DataType::bool(), Num::I(*b as i64), Weak::Bool),
            _ => return None,
        })
    };
    let (da, na, wa) = as_s(l)?;
    let (db, nb, wb) = as_s(r)?;
    if !matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div) {
        return None;
    }
    if da.is_bool() || db.is_bool() {
        return None;
    }
    let out = match (wa, wb) {
        (Weak::No, Weak::No) => promote(da, db),
        (Weak::No, w) => weak_with(da, w),
        (w, _) => weak_with(db, w),
    };
    let out = if op == BinOp::Div && !is_float(out) {
        DataType::f64()
    } else {
        out
    };
    let n = if is_float(out) {
        let operand = operand_rounding(out);
        Num::F(float_binop(op, operand(na.as_f64()), operand(nb.as_f64())))
    } else {
        match int_binop(op, na.as_i64(), nb.as_i64()) {
            Ok(i) => Num::I(i),
            Err(e) => return Some(Err(e)),
        }
    };
    Some(Ok(make_scalar(out, n)))
}

/// How an operand enters arithmetic whose result has dtype `out`: NumPy
/// converts both to `out` first (a Python float times a float32 array is a
/// float32 multiply). Computing in f64 on the converted operands and rounding
/// once gives the float32 result exactly for `+ - * /`.
fn operand_rounding(out: DataType) -> fn(f64) -> f64 {
    if out == DataType::f32() {
        |x| x as f32 as f64
    } else {
        |x| x
    }
}

pub fn binary(it: &mut Interp, op: BinOp, l: &Value, r: &Value) -> Res<Value> {
    if op == BinOp::MatMul {
        return matmul(it, l, r);
    }
    if let Some(v) = scalar_binary(op, l, r) {
        return v;
    }
    let a = opnd(it, l)?;
    let b = opnd(it, r)?;
    let mut out = promote_opnds(&a, &b);
    if op == BinOp::Div && !is_float(out) {
        out = DataType::f64();
    }
    if matches!(op, BinOp::FloorDiv | BinOp::Mod | BinOp::Pow) && out.is_bool() {
        out = DataType::int(8);
    }
    check_op_types(op, out, &a, &b)?;
    let shape = broadcast_shapes(&a.shape, &b.shape)?;
    let n = numel(&shape);
    alloc_check(it, out, n)?;
    let (ma, mb) = (bmap(&a.shape, &shape), bmap(&b.shape, &shape));
    let arr = if is_float(out) {
        let mut v = Vec::with_capacity(n);
        let operand = operand_rounding(out);
        for i in 0..n {
            let (x, y) = (operand(a.f(at(&ma, i))), operand(b.f(at(&mb, i))));
            v.push(float_binop(op, x, y));
        }
        from_f(out, &shape, &v)?
    } else if out.is_bool() {
        let mut v = Vec::with_capacity(n);
        for i in 0..n {
            let (x, y) = (a.i(at(&ma, i)) != 0, b.i(at(&mb, i)) != 0);
            v.push(match op {
                BinOp::Add | BinOp::BitOr => x | y,
                BinOp::Mul | BinOp::BitAnd => x & y,
                BinOp::BitXor => x ^ y,
                _ => false,
            } as i64);
        }
        from_i(out, &shape, &v)?
    } else {
        let mut v = Vec::with_capacity(n);
        for i in 0..n {
            v.push(int_binop(op, a.i(at(&ma, i)), b.i(at(&mb, i)))?);
        }
        from_i(out, &shape, &v)?
    };
    finish(it, arr)
}

/// `np.maximum` / `np.minimum` (NaN propagates).
pub fn max_min(it: &mut Interp, l: &Value, r: &Value, want_max: bool) -> Res<Value> {
    let a = opnd(it, l)?;
    let b = opnd(it, r)?;
    let out = promote_opnds(&a, &b);
    let shape = broadcast_shapes(&a.shape, &b.shape)?;
    let n = numel(&shape);
    alloc_check(it, out, n)?;
    let (ma, mb) = (bmap(&a.shape, &shape), bmap(&b.shape, &shape));
    let arr = if is_float(out) {
        let mut v = Vec::with_capacity(n);
        for i in 0..n {
            let (x, y) = (a.f(at(&ma, i)), b.f(at(&mb, i)));
            v.push(if x.is_nan() || y.is_nan() {
                f64::NAN
            } else if want_max {
                x.max(y)
            } else {
                x.min(y)
            });
        }
        from_f(out, &shape, &v)?
    } else {
        let mut v = Vec::with_capacity(n);
        for i in 0..n {
            let (x, y) = (a.i(at(&ma, i)), b.i(at(&mb, i)));
            v.push(if want_max { x.max(y) } else { x.min(y) });
        }
        from_i(out, &shape, &v)?
    };
    finish(it, arr)
}

pub fn compare(it: &mut Interp, op: CmpOp, l: &Value, r: &Value) -> Res<Value> {
    let (a, b) = match (opnd(it, l), opnd(it, r)) {
        (Ok(a), Ok(b)) => (a, b),
        _ => {
            return match op {
                CmpOp::Eq => Ok(Value::Bool(false)),
                CmpOp::NotEq => Ok(Value::Bool(true)),
                _ => Err(PyErr::type_error(format!(
                    "'{}' not supported between instances of '{}' and '{}'",
                    op.as_str(),
                    l.type_name(),
                    r.type_name()
                ))),
            }
        }
    };
    let shape = broadcast_shapes(&a.shape, &b.shape)?;
    let n = numel(&shape);
    alloc_check(it, DataType::bool(), n)?;
    let (ma, mb) = (bmap(&a.shape, &shape), bmap(&b.shape, &shape));
    let float = is_float(a.dtype) || is_float(b.dtype);
    let mut v = Vec::with_capacity(n);
    for i in 0..n {
        let (ia, ib) = (at(&ma, i), at(&mb, i));
        let ord = if float {
            a.f(ia).partial_cmp(&b.f(ib))
        } else {
            Some(a.i(ia).cmp(&b.i(ib)))
        };
        use std::cmp::Ordering::*;
        let t = match (op, ord) {
            (CmpOp::Eq, o) => o == Some(Equal),
            (CmpOp::NotEq, o) => o != Some(Equal),
            (CmpOp::Lt, o) => o == Some(Less),
            (CmpOp::LtE, o) => matches!(o, Some(Less | Equal)),
            (CmpOp::Gt, o) => o == Some(Greater),
            (CmpOp::GtE, o) => matches!(o, Some(Greater | Equal)),
            _ => false,
        };
        v.push(t as i64);
    }
    let arr = from_i(DataType::bool(), &shape, &v)?;
    finish(it, arr)
}

pub fn unary(it: &mut Interp, op: UnaryOp, v: &Value) -> Res<Value> {
    let a = opnd(it, v)?;
    let n = numel(&a.shape);
    alloc_check(it, a.dtype, n)?;
    let arr = match op {
        UnaryOp::Not => return Ok(Value::Bool(!it.truthy(v)?)),
        UnaryOp::Neg if a.dtype.is_bool() => {
            return Err(PyErr::type_error(
                "The numpy boolean negative, the `-` operator, is not supported, use the `~` operator or the logical_not function instead.",
            ))
        }
        UnaryOp::Neg | UnaryOp::Pos => {
            let sign = if op == UnaryOp::Neg { -1 } else { 1 };
            if is_float(a.dtype) {
                let v: Vec<f64> = (0..n).map(|i| a.f(i) * sign as f64).collect();
                from_f(a.dtype, &a.shape, &v)?
            } else {
                let v: Vec<i64> = (0..n).map(|i| a.i(i).wrapping_mul(sign)).collect();
                from_i(a.dtype, &a.shape, &v)?
            }
        }
        UnaryOp::Invert => {
            if is_float(a.dtype) {
                return Err(PyErr::type_error("ufunc 'invert' not supported for the input types"));
            }
            let v: Vec<i64> = if a.dtype.is_bool() {
                (0..n).map(|i| (a.i(i) == 0) as i64).collect()
            } else {
                (0..n).map(|i| !a.i(i)).collect()
            };
            from_i(a.dtype, &a.shape, &v)?
        }
    };
    finish(it, arr)
}

/// Element-wise math (`np.exp`, `np.sqrt`, `abs`…).
pub fn ufunc1(it: &mut Interp, name: &str, v: &Value) -> Res<Value> {
    let a = opnd(it, v)?;
    let n = numel(&a.shape);
    let keeps_int = matches!(
        name,
        "absolute" | "abs" | "negative" | "square" | "sign" | "positive"
    );
    let out = if is_float(a.dtype) || keeps_int {
        a.dtype
    } else {
        match a.dtype.bits {
            8 if !a.dtype.is_bool() => DataType::float(16),
            16 => DataType::f32(),
            _ if a.dtype.is_bool() => DataType::float(16),
            _ => DataType::f64(),
        }
    };
    alloc_check(it, out, n)?;
    let f: fn(f64) -> f64 = match name {
        "exp" => f64::exp,
        "exp2" => f64::exp2,
        "log" => f64::ln,
        "log2" => f64::log2,
        "log10" => f64::log10,
        "sqrt" => f64::sqrt,
        "tanh" => f64::tanh,
        "sin" => f64::sin,
        "cos" => f64::cos,
        "tan" => f64::tan,
        "floor" => f64::floor,
        "ceil" => f64::ceil,
        "trunc" => f64::trunc,
        "rint" => f64::round_ties_even,
        "absolute" | "abs" => f64::abs,
        "negative" => |x: f64| -x,
        "positive" => |x: f64| x,
        "square" => |x: f64| x * x,
        "sign" => |x: f64| {
            if x > 0.0 {
                1.0
            } else if x < 0.0 {
                -1.0
            } else {
                x
            }
        },
        "reciprocal" => |x: f64| 1.0 / x,
        "sigmoid" => |x: f64| 1.0 / (1.0 + (-x).exp()),
        "erf" => compiler_core::eval::erf,
        _ => {
            return Err(PyErr::attribute_error(format!(
                "module 'numpy' has no attribute '{name}'"
            )))
        }
    };
    let arr = if is_float(out) {
        let v: Vec<f64> = (0..n).map(|i| f(a.f(i))).collect();
        from_f(out, &a.shape, &v)?
    } else {
        let v: Vec<i64> = (0..n)
            .map(|i| {
                let x = a.i(i);
                match name {
                    "absolute" | "abs" => x.wrapping_abs(),
                    "negative" => x.wrapping_neg(),
                    "square" => x.wrapping_mul(x),
                    "sign" => x.signum(),
                    _ => x,
                }
            })
            .collect();
        from_i(out, &a.shape, &v)?
    };
    finish(it, arr)
}

pub fn round_array(it: &mut Interp, v: &Value, decimals: i64) -> Res<Value> {
    let a = opnd(it, v)?;
    let n = numel(&a.shape);
    alloc_check(it, a.dtype, n)?;
    let arr = if is_float(a.dtype) {
        let p = 10f64.powi(decimals.clamp(-300, 300) as i32);
        let v: Vec<f64> = (0..n).map(|i| (a.f(i) * p).round_ties_even() / p).collect();
        from_f(a.dtype, &a.shape, &v)?
    } else {
        let v: Vec<i64> = (0..n).map(|i| a.i(i)).collect();
        from_i(a.dtype, &a.shape, &v)?
    };
    finish(it, arr)
}

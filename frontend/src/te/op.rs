//! TVM's expression-building operators, as Python's `PrimExpr` operators and
//! `tvm.tir.*` helpers build them.
//!
//! Every binary operator first matches the operand types the way TVM's
//! `BinaryOpMatchTypes` does (the narrower float widens, an integer meeting a
//! float becomes that float, the narrower integer widens, signed meets
//! unsigned of the same width as unsigned), then folds constants the way
//! TVM's `TryConstFold` does (`x + 0`, `x * 1`, `0 * x`, constant pairs…),
//! and only then builds a node. A Python literal enters as [`py_int`] /
//! [`py_float`] / [`py_bool`]: an `int32` (or `int64` when it does not fit),
//! a `float32`, a `bool` — exactly what TVM converts them to, so `A[i] * 2`
//! on a `float16` tensor widens to `float32` as in TVM.
//!
//! Python's reflected operators are the caller's business: `1 < x` is
//! `x.__gt__(1)`, i.e. [`gt`]`(x, 1)`, and `2 - x` is [`sub`]`(2, x)`.

use tessel_tir::arith::fold::{fold_float_binary, fold_int_binary, try_fold_cast, try_fold_cmp};
use tessel_tir::ir::{BinOp, CmpOp, DataType, Expr, ExprKind, Intrinsic, ScalarKind};

use super::{TeError, TeResult};

// ------------------------------------------------------------------ literals

/// A Python `int` as TVM converts it: `int32` when it fits, else `int64`.
pub fn py_int(v: i64) -> Expr {
    if i32::try_from(v).is_ok() {
        Expr::i32(v)
    } else {
        Expr::i64(v)
    }
}

/// A Python `float` as TVM converts it: a `float32` constant holding the
/// double value unchanged (TVM's `FloatImm` keeps the double).
pub fn py_float(v: f64) -> Expr {
    Expr::f32(v)
}

/// A Python `bool`: a `bool` constant.
pub fn py_bool(v: bool) -> Expr {
    Expr::bool(v)
}

/// `tvm.tir.const(value, dtype)` for an integer value.
pub fn const_int(value: i64, dtype: DataType) -> TeResult<Expr> {
    make_const_int(dtype, value)
}

/// `tvm.tir.const(value, dtype)` for a float value.
pub fn const_float(value: f64, dtype: DataType) -> TeResult<Expr> {
    make_const_float(dtype, value)
}

fn check_scalar(dtype: DataType, what: &str) -> TeResult<()> {
    if dtype.bits == 0 || dtype.bits > 64 {
        return Err(TeError::new(format!(
            "{what}: unsupported bit width {}",
            dtype.bits
        )));
    }
    if dtype.lanes != 1 {
        return Err(TeError::new(format!(
            "{what}: vector type {dtype} is not supported in tensor expressions"
        )));
    }
    if dtype.is_handle() {
        return Err(TeError::new(format!(
            "{what}: cannot use a handle as a value"
        )));
    }
    Ok(())
}

/// TVM's `make_const(t, int)`.
fn make_const_int(dtype: DataType, v: i64) -> TeResult<Expr> {
    check_scalar(dtype, "const")?;
    Ok(match dtype.kind {
        ScalarKind::Float => Expr::float(v as f64, dtype),
        ScalarKind::Bool => Expr::bool(v != 0),
        _ => Expr::int(tessel_tir::arith::fold::wrap_to_dtype(v, dtype), dtype),
    })
}

/// TVM's `make_const(t, double)`: integers truncate towards zero.
fn make_const_float(dtype: DataType, v: f64) -> TeResult<Expr> {
    check_scalar(dtype, "const")?;
    Ok(match dtype.kind {
        ScalarKind::Float => Expr::float(v, dtype),
        ScalarKind::Bool => Expr::bool(v != 0.0),
        _ => {
            if !v.is_finite() {
                return Err(TeError::new(format!(
                    "cannot make a {dtype} constant of {v}"
                )));
            }
            Expr::int(
                tessel_tir::arith::fold::wrap_to_dtype(v.trunc() as i64, dtype),
                dtype,
            )
        }
    })
}

/// The smallest value of a type (`tvm.te.min_value`): the identity of `max`.
pub fn min_value(dtype: DataType) -> TeResult<Expr> {
    check_scalar(dtype, "min_value")?;
    Ok(match dtype.kind {
        ScalarKind::Int if dtype.bits == 64 => Expr::int(i64::MIN, dtype),
        ScalarKind::Int => Expr::int(-(1i64 << (dtype.bits - 1)), dtype),
        ScalarKind::UInt => Expr::int(0, dtype),
        ScalarKind::Bool => Expr::bool(false),
        ScalarKind::Float => Expr::float(-float_max(dtype)?, dtype),
        ScalarKind::Handle => unreachable_handle()?,
    })
}

/// The largest value of a type (`tvm.te.max_value`): the identity of `min`.
pub fn max_value(dtype: DataType) -> TeResult<Expr> {
    check_scalar(dtype, "max_value")?;
    Ok(match dtype.kind {
        ScalarKind::Int if dtype.bits == 64 => Expr::int(i64::MAX, dtype),
        ScalarKind::Int => Expr::int((1i64 << (dtype.bits - 1)) - 1, dtype),
        ScalarKind::UInt if dtype.bits == 64 => Expr::int(-1, dtype),
        ScalarKind::UInt => Expr::int((1i64 << dtype.bits) - 1, dtype),
        ScalarKind::Bool => Expr::bool(true),
        ScalarKind::Float => Expr::float(float_max(dtype)?, dtype),
        ScalarKind::Handle => unreachable_handle()?,
    })
}

fn unreachable_handle<T>() -> TeResult<T> {
    Err(TeError::new("a handle has no value range"))
}

fn float_max(dtype: DataType) -> TeResult<f64> {
    match dtype.bits {
        16 => Ok(65504.0),
        32 => Ok(f32::MAX as f64),
        64 => Ok(f64::MAX),
        b => Err(TeError::new(format!("no value range known for float{b}"))),
    }
}

// ------------------------------------------------------------------- casting

/// `tvm.tir.Cast` the way `x.astype(dtype)` builds it: nothing when the type
/// already matches, a folded constant for a constant, a `Cast` node otherwise.
pub fn cast(dtype: DataType, value: &Expr) -> TeResult<Expr> {
    if value.dtype() == dtype {
        return Ok(value.clone());
    }
    check_scalar(dtype, "cast")?;
    check_scalar(value.dtype(), "cast")?;
    match value.kind() {
        ExprKind::Int(v) => {
            if value.dtype().is_uint() && value.dtype().bits == 64 && dtype.is_float() {
                return make_const_float(dtype, *v as u64 as f64);
            }
            make_const_int(dtype, *v)
        }
        ExprKind::Float(v) => make_const_float(dtype, *v),
        _ => Ok(try_fold_cast(dtype, value).unwrap_or_else(|| Expr::cast(dtype, value.clone()))),
    }
}

/// TVM's `BinaryOpMatchTypes`: both operands in one dtype.
pub fn match_types(a: &Expr, b: &Expr) -> TeResult<(Expr, Expr)> {
    let (ta, tb) = (a.dtype(), b.dtype());
    check_scalar(ta, "operand")?;
    check_scalar(tb, "operand")?;
    if ta == tb {
        return Ok((a.clone(), b.clone()));
    }
    let mismatch = || TeError::new(format!("Cannot match type {ta} vs {tb}"));
    let int_like = |t: DataType| t.is_int() || t.is_uint() || t.is_bool();
    if ta.is_float() && tb.is_float() {
        if ta.bits < tb.bits {
            Ok((cast(tb, a)?, b.clone()))
        } else {
            Ok((a.clone(), cast(ta, b)?))
        }
    } else if !ta.is_float() && tb.is_float() {
        Ok((cast(tb, a)?, b.clone()))
    } else if ta.is_float() && !tb.is_float() {
        Ok((a.clone(), cast(ta, b)?))
    } else if (ta.is_int() && tb.is_int()) || (ta.is_uint() && tb.is_uint()) {
        if ta.bits < tb.bits {
            Ok((cast(tb, a)?, b.clone()))
        } else {
            Ok((a.clone(), cast(ta, b)?))
        }
    } else if (ta.is_int() && tb.is_uint()) || (ta.is_uint() && tb.is_int()) {
        // The wider wins; at equal width the unsigned one does.
        if ta.bits < tb.bits || (ta.bits == tb.bits && tb.is_uint()) {
            Ok((cast(tb, a)?, b.clone()))
        } else {
            Ok((a.clone(), cast(ta, b)?))
        }
    } else if int_like(ta) && int_like(tb) {
        // bool meets an integer: TVM has no rule for it either.
        Err(mismatch())
    } else {
        Err(mismatch())
    }
}

// ----------------------------------------------------------------- arithmetic

enum Lit {
    Int(i64),
    Float(f64),
    None,
}

fn lit(e: &Expr) -> Lit {
    match e.kind() {
        ExprKind::Int(v) if !e.dtype().is_bool() => Lit::Int(*v),
        ExprKind::Float(v) => Lit::Float(*v),
        _ => Lit::None,
    }
}

fn is_lit(e: &Expr, v: f64) -> bool {
    match lit(e) {
        Lit::Int(x) => x as f64 == v,
        Lit::Float(x) => x == v,
        Lit::None => false,
    }
}

fn divide_by_zero() -> TeError {
    TeError::new("Divide by zero")
}

/// TVM's `TryConstFold` for one arithmetic node (operands already matched).
fn try_const_fold(op: BinOp, a: &Expr, b: &Expr) -> TeResult<Option<Expr>> {
    let dt = a.dtype();
    // Two constants.
    match (lit(a), lit(b)) {
        (Lit::Int(x), Lit::Int(y)) => {
            let div_like = matches!(
                op,
                BinOp::Div | BinOp::Mod | BinOp::FloorDiv | BinOp::FloorMod
            );
            if div_like && y == 0 {
                return Err(divide_by_zero());
            }
            return Ok(fold_int_binary(op, x, y, dt).map(|v| Expr::int(v, dt)));
        }
        (Lit::Float(x), Lit::Float(y)) => {
            if matches!(op, BinOp::Div) && y == 0.0 {
                return Err(divide_by_zero());
            }
            if matches!(dt.bits, 32 | 64) {
                return Ok(fold_float_binary(op, x, y, dt).map(|v| Expr::float(v, dt)));
            }
        }
        _ => {}
    }
    let zero_a = is_lit(a, 0.0);
    let zero_b = is_lit(b, 0.0);
    let one_a = is_lit(a, 1.0);
    let one_b = is_lit(b, 1.0);
    Ok(match op {
        BinOp::Add if zero_a => Some(b.clone()),
        BinOp::Add if zero_b => Some(a.clone()),
        BinOp::Sub if zero_b => Some(a.clone()),
        BinOp::Mul if one_a => Some(b.clone()),
        BinOp::Mul if zero_a => Some(a.clone()),
        BinOp::Mul if one_b => Some(a.clone()),
        BinOp::Mul if zero_b => Some(b.clone()),
        BinOp::Div | BinOp::FloorDiv => {
            if zero_b {
                return Err(divide_by_zero());
            }
            if zero_a || one_b {
                Some(a.clone())
            } else {
                None
            }
        }
        BinOp::Mod | BinOp::FloorMod => {
            if zero_b {
                return Err(divide_by_zero());
            }
            if zero_a {
                Some(a.clone())
            } else if one_b && dt.is_integer() {
                Some(Expr::int(0, dt))
            } else {
                None
            }
        }
        _ => None,
    })
}

fn binary(op: BinOp, a: &Expr, b: &Expr) -> TeResult<Expr> {
    let (a, b) = match_types(a, b)?;
    if let Some(r) = try_const_fold(op, &a, &b)? {
        return Ok(r);
    }
    Ok(Expr::binary(op, a, b))
}

fn require_integer(op: &str, a: &Expr, b: &Expr) -> TeResult<()> {
    for e in [a, b] {
        if !(e.dtype().is_int() || e.dtype().is_uint()) {
            return Err(TeError::new(format!(
                "{op} needs integer operands, found {}",
                e.dtype()
            )));
        }
    }
    Ok(())
}

/// `a + b`.
pub fn add(a: &Expr, b: &Expr) -> TeResult<Expr> {
    binary(BinOp::Add, a, b)
}
/// `a - b`.
pub fn sub(a: &Expr, b: &Expr) -> TeResult<Expr> {
    binary(BinOp::Sub, a, b)
}
/// `a * b`.
pub fn mul(a: &Expr, b: &Expr) -> TeResult<Expr> {
    binary(BinOp::Mul, a, b)
}
/// `tvm.tir.div`: float division, or truncated division on integers
/// (what `topi.divide` builds).
pub fn div(a: &Expr, b: &Expr) -> TeResult<Expr> {
    binary(BinOp::Div, a, b)
}
/// Python's `a / b` on expressions: refused for two integers, as TVM does.
pub fn truediv(a: &Expr, b: &Expr) -> TeResult<Expr> {
    let int = |e: &Expr| e.dtype().is_int() || e.dtype().is_uint();
    if int(a) && int(b) {
        return Err(TeError::new(
            "TVM supports multiple types of integer divisions, please call div, \
             indexdiv/indexmod, floordiv/floormod  or truncdiv/truncmod directly to avoid \
             ambiguity in the code.",
        ));
    }
    div(a, b)
}
/// `tvm.tir.truncdiv`.
pub fn truncdiv(a: &Expr, b: &Expr) -> TeResult<Expr> {
    require_integer("truncdiv", a, b)?;
    binary(BinOp::Div, a, b)
}
/// `tvm.tir.truncmod`.
pub fn truncmod(a: &Expr, b: &Expr) -> TeResult<Expr> {
    require_integer("truncmod", a, b)?;
    binary(BinOp::Mod, a, b)
}
/// Python's `a // b` (`tvm.tir.floordiv`): integers only, as in TVM.
pub fn floordiv(a: &Expr, b: &Expr) -> TeResult<Expr> {
    require_integer("floordiv", a, b)?;
    binary(BinOp::FloorDiv, a, b)
}
/// Python's `a % b` (`tvm.tir.floormod`): integers only, as in TVM.
pub fn floormod(a: &Expr, b: &Expr) -> TeResult<Expr> {
    require_integer("floormod", a, b)?;
    binary(BinOp::FloorMod, a, b)
}
/// `tvm.tir.min(a, b)` (and `te.min(a, b)` with two values).
pub fn min(a: &Expr, b: &Expr) -> TeResult<Expr> {
    binary(BinOp::Min, a, b)
}
/// `tvm.tir.max(a, b)` (and `te.max(a, b)` with two values).
pub fn max(a: &Expr, b: &Expr) -> TeResult<Expr> {
    binary(BinOp::Max, a, b)
}
/// Python's `-x`: `x * -1` in x's type.
pub fn neg(a: &Expr) -> TeResult<Expr> {
    let minus_one = make_const_int(a.dtype(), -1)?;
    mul(a, &minus_one)
}
/// `tvm.tir.power(a, b)` / `te.power`.
pub fn power(a: &Expr, b: &Expr) -> TeResult<Expr> {
    let (a, b) = match_types(a, b)?;
    let dt = a.dtype();
    Ok(Expr::call(Intrinsic::Pow, vec![a, b], dt))
}

// ---------------------------------------------------------------- comparisons

fn compare(op: CmpOp, a: &Expr, b: &Expr) -> TeResult<Expr> {
    let (a, b) = match_types(a, b)?;
    if let Some(r) = try_fold_cmp(op, &a, &b) {
        return Ok(r);
    }
    Ok(Expr::cmp(op, a, b))
}

/// `a < b`.
pub fn lt(a: &Expr, b: &Expr) -> TeResult<Expr> {
    compare(CmpOp::Lt, a, b)
}
/// `a <= b`.
pub fn le(a: &Expr, b: &Expr) -> TeResult<Expr> {
    compare(CmpOp::Le, a, b)
}
/// `a > b`.
pub fn gt(a: &Expr, b: &Expr) -> TeResult<Expr> {
    compare(CmpOp::Gt, a, b)
}
/// `a >= b`.
pub fn ge(a: &Expr, b: &Expr) -> TeResult<Expr> {
    compare(CmpOp::Ge, a, b)
}
/// `a == b` (as an expression).
pub fn eq(a: &Expr, b: &Expr) -> TeResult<Expr> {
    compare(CmpOp::Eq, a, b)
}
/// `a != b` (as an expression).
pub fn ne(a: &Expr, b: &Expr) -> TeResult<Expr> {
    compare(CmpOp::Ne, a, b)
}

fn require_bool(what: &str, e: &Expr) -> TeResult<()> {
    if e.dtype() != DataType::bool() {
        return Err(TeError::new(format!(
            "{what} needs boolean operands, found {}",
            e.dtype()
        )));
    }
    Ok(())
}

fn as_bool(e: &Expr) -> Option<bool> {
    match e.kind() {
        ExprKind::Int(v) if e.dtype().is_bool() => Some(*v != 0),
        _ => None,
    }
}

/// `tvm.tir.And` as `tvm.tir.all` builds it (folds constant operands).
pub fn logical_and(a: &Expr, b: &Expr) -> TeResult<Expr> {
    require_bool("logical and", a)?;
    require_bool("logical and", b)?;
    Ok(match (as_bool(a), as_bool(b)) {
        (Some(true), _) => b.clone(),
        (Some(false), _) => a.clone(),
        (_, Some(true)) => a.clone(),
        (_, Some(false)) => b.clone(),
        _ => Expr::and(a.clone(), b.clone()),
    })
}

/// `tvm.tir.Or` as `tvm.tir.any` builds it (folds constant operands).
pub fn logical_or(a: &Expr, b: &Expr) -> TeResult<Expr> {
    require_bool("logical or", a)?;
    require_bool("logical or", b)?;
    Ok(match (as_bool(a), as_bool(b)) {
        (Some(true), _) => a.clone(),
        (Some(false), _) => b.clone(),
        (_, Some(true)) => b.clone(),
        (_, Some(false)) => a.clone(),
        _ => Expr::or(a.clone(), b.clone()),
    })
}

/// `tvm.tir.Not`.
pub fn logical_not(a: &Expr) -> TeResult<Expr> {
    require_bool("logical not", a)?;
    Ok(match as_bool(a) {
        Some(v) => Expr::bool(!v),
        None => Expr::logical_not(a.clone()),
    })
}

/// `tvm.tir.all(*conds)`: left-nested `and`.
pub fn all(conds: &[Expr]) -> TeResult<Expr> {
    let (first, rest) = conds
        .split_first()
        .ok_or_else(|| TeError::new("Any must take at least 1 argument"))?;
    let mut acc = first.clone();
    for c in rest {
        acc = logical_and(&acc, c)?;
    }
    Ok(acc)
}

/// `tvm.tir.any(*conds)`: left-nested `or`.
pub fn any(conds: &[Expr]) -> TeResult<Expr> {
    let (first, rest) = conds
        .split_first()
        .ok_or_else(|| TeError::new("Any must take at least 1 argument"))?;
    let mut acc = first.clone();
    for c in rest {
        acc = logical_or(&acc, c)?;
    }
    Ok(acc)
}

/// `tvm.tir.if_then_else(cond, t, f)` / `te.if_then_else`: only the chosen
/// branch is evaluated; a constant condition picks its branch right away.
pub fn if_then_else(cond: &Expr, then: &Expr, otherwise: &Expr) -> TeResult<Expr> {
    if cond.dtype() != DataType::bool() {
        return Err(TeError::new(
            "if_then_else only accept the condition to be boolean type.",
        ));
    }
    let (t, f) = match_types(then, otherwise)?;
    if let Some(c) = as_bool(cond) {
        return Ok(if c { t } else { f });
    }
    let dt = t.dtype();
    Ok(Expr::call(
        Intrinsic::IfThenElse,
        vec![cond.clone(), t, f],
        dt,
    ))
}

/// `tvm.tir.Select(cond, t, f)`: the raw node (both sides evaluated); the
/// branches must already agree on type, as TVM's constructor requires.
pub fn select(cond: &Expr, then: &Expr, otherwise: &Expr) -> TeResult<Expr> {
    if !cond.dtype().is_bool() {
        return Err(TeError::argument_type(format!(
            "Select: the condition must be boolean, found {}",
            cond.dtype()
        )));
    }
    if then.dtype() != otherwise.dtype() {
        return Err(TeError::new(format!(
            "Select: TypeError: mismatched types. {} vs. {}",
            then.dtype(),
            otherwise.dtype()
        )));
    }
    Ok(Expr::select(cond.clone(), then.clone(), otherwise.clone()))
}

// ------------------------------------------------------------------ intrinsics

/// A unary math intrinsic (`te.exp`, `te.sqrt`, …) in its argument's type.
/// `floor`/`ceil`/`round`/`trunc` of an integer is the integer itself.
pub fn math(op: Intrinsic, x: &Expr) -> TeResult<Expr> {
    check_scalar(x.dtype(), op.name())?;
    if op.arity() != Some(1) {
        return Err(TeError::new(format!(
            "{} is not a unary intrinsic",
            op.name()
        )));
    }
    if matches!(
        op,
        Intrinsic::Floor | Intrinsic::Ceil | Intrinsic::Round | Intrinsic::Trunc
    ) && (x.dtype().is_int() || x.dtype().is_uint())
    {
        return Ok(x.clone());
    }
    Ok(Expr::call(op, vec![x.clone()], x.dtype()))
}

/// A unary math intrinsic by its name (`"exp"`, `"sigmoid"`…).
pub fn math_by_name(name: &str, x: &Expr) -> TeResult<Expr> {
    let op = Intrinsic::from_name(name)
        .filter(|op| op.arity() == Some(1))
        .ok_or_else(|| TeError::new(format!("unknown unary intrinsic {name:?}")))?;
    math(op, x)
}

/// `te.abs(x)`: `fabs` for floats, `Select(x >= 0, x, -x)` for signed
/// integers, `x` itself for unsigned ones.
pub fn abs(x: &Expr) -> TeResult<Expr> {
    let dt = x.dtype();
    check_scalar(dt, "abs")?;
    if dt.is_float() {
        if let ExprKind::Float(v) = x.kind() {
            return Ok(Expr::float(v.abs(), dt));
        }
        return Ok(Expr::call(Intrinsic::Fabs, vec![x.clone()], dt));
    }
    if dt.is_int() {
        if let Some(v) = x.as_int() {
            return Ok(Expr::int(v.wrapping_abs(), dt));
        }
        let zero = Expr::int(0, dt);
        let nonneg = ge(x, &zero)?;
        let negated = sub(&zero, x)?;
        return Ok(Expr::select(nonneg, x.clone(), negated));
    }
    Ok(x.clone())
}

//! Constant folding with the target dtype's wrapping semantics.
//!
//! Integer results are wrapped to the dtype's width (two's complement for
//! signed types, modulo 2^bits for unsigned ones), the way TVM's folder
//! stores them. Division by a constant zero is never folded.

use crate::ir::{BinOp, CmpOp, DataType, Expr, ExprKind, ScalarKind};

/// Wraps `v` to the width of `dtype` (sign- or zero-extending back to i64).
pub fn wrap_to_dtype(v: i64, dtype: DataType) -> i64 {
    match dtype.kind {
        ScalarKind::Bool => (v != 0) as i64,
        ScalarKind::Int if dtype.bits < 64 => {
            let shift = 64 - dtype.bits as u32;
            v.wrapping_shl(shift).wrapping_shr(shift)
        }
        ScalarKind::UInt if dtype.bits < 64 => v & ((1i64 << dtype.bits) - 1),
        _ => v,
    }
}

/// `floor(a / b)`; `None` for `b == 0` or overflow.
pub fn floordiv_i64(a: i64, b: i64) -> Option<i64> {
    let q = a.checked_div(b)?;
    let r = a.checked_rem(b)?;
    if r != 0 && ((r < 0) != (b < 0)) {
        q.checked_sub(1)
    } else {
        Some(q)
    }
}

/// `a - floor(a / b) * b` (sign of `b`); `None` for `b == 0`.
pub fn floormod_i64(a: i64, b: i64) -> Option<i64> {
    if b == 0 {
        return None;
    }
    if b == -1 {
        return Some(0);
    }
    let r = a % b;
    if r != 0 && ((r < 0) != (b < 0)) {
        Some(r + b)
    } else {
        Some(r)
    }
}

pub fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    i64::try_from(a).unwrap_or(i64::MAX)
}

/// Folds an integer binary operation on constants in `dtype` (unsigned
/// types compare and divide as unsigned). `None` when it cannot be folded.
pub fn fold_int_binary(op: BinOp, a: i64, b: i64, dtype: DataType) -> Option<i64> {
    let unsigned = dtype.is_uint();
    let v = if unsigned {
        let bits = dtype.bits as u32;
        let mask: u64 = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let (ua, ub) = (a as u64 & mask, b as u64 & mask);
        let r = match op {
            BinOp::Add => ua.wrapping_add(ub),
            BinOp::Sub => ua.wrapping_sub(ub),
            BinOp::Mul => ua.wrapping_mul(ub),
            BinOp::Div | BinOp::FloorDiv => ua.checked_div(ub)?,
            BinOp::Mod | BinOp::FloorMod => ua.checked_rem(ub)?,
            BinOp::Min => ua.min(ub),
            BinOp::Max => ua.max(ub),
        };
        r as i64
    } else {
        match op {
            BinOp::Add => a.wrapping_add(b),
            BinOp::Sub => a.wrapping_sub(b),
            BinOp::Mul => a.wrapping_mul(b),
            BinOp::Div => {
                if b == 0 {
                    return None;
                }
                a.wrapping_div(b)
            }
            BinOp::Mod => {
                if b == 0 {
                    return None;
                }
                a.wrapping_rem(b)
            }
            BinOp::FloorDiv => {
                if b == 0 {
                    return None;
                }
                floordiv_i64(a, b).unwrap_or(a.wrapping_div(b))
            }
            BinOp::FloorMod => floormod_i64(a, b)?,
            BinOp::Min => a.min(b),
            BinOp::Max => a.max(b),
        }
    };
    Some(wrap_to_dtype(v, dtype))
}

fn round_float(v: f64, dtype: DataType) -> f64 {
    match dtype.bits {
        32 => v as f32 as f64,
        _ => v,
    }
}

pub fn fold_float_binary(op: BinOp, a: f64, b: f64, dtype: DataType) -> Option<f64> {
    let v = match op {
        BinOp::Add => a + b,
        BinOp::Sub => a - b,
        BinOp::Mul => a * b,
        BinOp::Div => {
            if b == 0.0 {
                return None;
            }
            a / b
        }
        BinOp::FloorDiv => {
            if b == 0.0 {
                return None;
            }
            (a / b).floor()
        }
        BinOp::FloorMod | BinOp::Mod => return None,
        BinOp::Min => a.min(b),
        BinOp::Max => a.max(b),
    };
    Some(round_float(v, dtype))
}

pub fn cmp_holds<T: PartialOrd>(op: CmpOp, a: T, b: T) -> bool {
    match op {
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ge => a >= b,
    }
}

/// Folds `a op b` when both are constants; also the identities TVM's folder
/// applies with one constant operand (`x + 0`, `x * 1`, `x * 0`, `x // 1`…).
pub fn try_fold_binary(op: BinOp, a: &Expr, b: &Expr) -> Option<Expr> {
    let dtype = a.dtype();
    if !dtype.is_scalar() {
        return None;
    }
    match (a.kind(), b.kind()) {
        (ExprKind::Int(x), ExprKind::Int(y)) if dtype.is_integer() => {
            return fold_int_binary(op, *x, *y, dtype).map(|v| Expr::int(v, dtype));
        }
        (ExprKind::Float(x), ExprKind::Float(y)) if dtype.is_float() => {
            return fold_float_binary(op, *x, *y, dtype).map(|v| Expr::float(v, dtype));
        }
        _ => {}
    }
    let is_zero = |e: &Expr| match e.kind() {
        ExprKind::Int(0) => true,
        ExprKind::Float(f) => *f == 0.0,
        _ => false,
    };
    let is_one = |e: &Expr| match e.kind() {
        ExprKind::Int(1) => true,
        ExprKind::Float(f) => *f == 1.0,
        _ => false,
    };
    let int = dtype.is_integer();
    match op {
        BinOp::Add => {
            if is_zero(a) {
                return Some(b.clone());
            }
            if is_zero(b) {
                return Some(a.clone());
            }
        }
        BinOp::Sub => {
            if is_zero(b) {
                return Some(a.clone());
            }
        }
        BinOp::Mul => {
            if is_one(a) {
                return Some(b.clone());
            }
            if is_one(b) {
                return Some(a.clone());
            }
            if int && is_zero(a) {
                return Some(a.clone());
            }
            if int && is_zero(b) {
                return Some(b.clone());
            }
        }
        BinOp::Div | BinOp::FloorDiv => {
            if int && is_one(b) {
                return Some(a.clone());
            }
            if int && is_zero(a) && !is_zero(b) {
                return Some(a.clone());
            }
        }
        BinOp::Mod | BinOp::FloorMod => {
            if int && is_one(b) {
                return Some(Expr::int(0, dtype));
            }
            if int && is_zero(a) && !is_zero(b) {
                return Some(a.clone());
            }
        }
        BinOp::Min | BinOp::Max => {}
    }
    None
}

/// Folds a comparison of two constants.
pub fn try_fold_cmp(op: CmpOp, a: &Expr, b: &Expr) -> Option<Expr> {
    if !a.dtype().is_scalar() {
        return None;
    }
    let r = match (a.kind(), b.kind()) {
        (ExprKind::Int(x), ExprKind::Int(y)) => {
            if a.dtype().is_uint() {
                cmp_holds(op, *x as u64, *y as u64)
            } else {
                cmp_holds(op, *x, *y)
            }
        }
        (ExprKind::Float(x), ExprKind::Float(y)) => cmp_holds(op, *x, *y),
        _ => return None,
    };
    Some(Expr::bool(r))
}

/// Folds a cast of a constant.
pub fn try_fold_cast(dtype: DataType, v: &Expr) -> Option<Expr> {
    if !dtype.is_scalar() || !v.dtype().is_scalar() {
        return None;
    }
    match v.kind() {
        ExprKind::Int(x) => {
            let x = if v.dtype().is_uint() && v.dtype().bits == 64 {
                // Treat the stored bits as unsigned.
                *x
            } else {
                *x
            };
            if dtype.is_integer() || dtype.is_bool() {
                Some(Expr::int(wrap_to_dtype(x, dtype), dtype))
            } else if dtype.is_float() {
                let f = if v.dtype().is_uint() {
                    x as u64 as f64
                } else {
                    x as f64
                };
                Some(Expr::float(round_float(f, dtype), dtype))
            } else {
                None
            }
        }
        ExprKind::Float(f) => {
            if dtype.is_float() {
                Some(Expr::float(round_float(*f, dtype), dtype))
            } else if dtype.is_bool() {
                Some(Expr::bool(*f != 0.0))
            } else if dtype.is_integer() && f.is_finite() {
                let t = f.trunc();
                if (-9.2e18..=9.2e18).contains(&t) {
                    Some(Expr::int(wrap_to_dtype(t as i64, dtype), dtype))
                } else {
                    None
                }
            } else {
                None
            }
        }
        _ => None,
    }
}

//! Broadcasting element-wise arithmetic (TVM's C++ `topi/broadcast.h`).

use crate::te::op;
use crate::te::tensor::{compute_cpp, Tensor};
use crate::te::{TeError, TeResult};
use tessel_tir::arith::Analyzer;
use tessel_tir::ir::{DataType, Expr};

/// An operand of a broadcast operator: a tensor or a scalar expression
/// (a Python number enters as [`op::py_float`] / [`op::py_int`]).
#[derive(Clone, Debug)]
pub enum Operand {
    Tensor(Tensor),
    Scalar(Expr),
}

impl From<Tensor> for Operand {
    fn from(t: Tensor) -> Operand {
        Operand::Tensor(t)
    }
}
impl From<&Tensor> for Operand {
    fn from(t: &Tensor) -> Operand {
        Operand::Tensor(t.clone())
    }
}
impl From<Expr> for Operand {
    fn from(e: Expr) -> Operand {
        Operand::Scalar(e)
    }
}

impl Operand {
    /// The tensor, or an error naming what was found instead.
    pub fn into_tensor(self) -> TeResult<Tensor> {
        match self {
            Operand::Tensor(t) => Ok(t),
            Operand::Scalar(_) => Err(TeError::argument_type("expected a tensor, found a scalar")),
        }
    }
}

/// `topi.add(a, b)`: `T_add`.
pub fn add(a: impl Into<Operand>, b: impl Into<Operand>) -> TeResult<Operand> {
    apply(a.into(), b.into(), "T_add", op::add)
}
/// `topi.subtract(a, b)`: `T_subtract`.
pub fn subtract(a: impl Into<Operand>, b: impl Into<Operand>) -> TeResult<Operand> {
    apply(a.into(), b.into(), "T_subtract", op::sub)
}
/// `topi.multiply(a, b)`: `T_multiply`.
pub fn multiply(a: impl Into<Operand>, b: impl Into<Operand>) -> TeResult<Operand> {
    apply(a.into(), b.into(), "T_multiply", op::mul)
}
/// `topi.divide(a, b)`: `T_divide` (truncating division on integers).
pub fn divide(a: impl Into<Operand>, b: impl Into<Operand>) -> TeResult<Operand> {
    apply(a.into(), b.into(), "T_divide", op::div)
}

fn apply(
    a: Operand,
    b: Operand,
    name: &str,
    f: fn(&Expr, &Expr) -> TeResult<Expr>,
) -> TeResult<Operand> {
    match (a, b) {
        (Operand::Scalar(x), Operand::Scalar(y)) => Ok(Operand::Scalar(f(&x, &y)?)),
        (Operand::Tensor(t), Operand::Scalar(s)) => {
            let out = compute_cpp(t.shape(), name, "elemwise", |ix| {
                Ok(f(&t.index(ix)?, &s)?.into())
            })?;
            Ok(Operand::Tensor(out))
        }
        (Operand::Scalar(s), Operand::Tensor(t)) => {
            let out = compute_cpp(t.shape(), name, "elemwise", |ix| {
                Ok(f(&s, &t.index(ix)?)?.into())
            })?;
            Ok(Operand::Tensor(out))
        }
        (Operand::Tensor(x), Operand::Tensor(y)) => {
            Ok(Operand::Tensor(with_broadcast(&x, &y, name, f)?))
        }
    }
}

/// TVM's `EqualCheck`: structurally equal, or provably the same.
fn equal_dims(a: &Expr, b: &Expr) -> bool {
    if let (Some(x), Some(y)) = (a.as_int(), b.as_int()) {
        return x == y;
    }
    match op::sub(a, b) {
        Ok(d) => Analyzer::new().simplify(&d).is_const_int(0),
        Err(_) => false,
    }
}

fn common_type(a: DataType, b: DataType) -> DataType {
    if a.bits >= b.bits {
        a
    } else {
        b
    }
}

/// TVM's `BroadcastShape`: the output shape, and per output dimension
/// whether each input indexes it with the output's index (else with 0 or
/// not at all).
struct Broadcast {
    shape: Vec<Expr>,
    uses1: Vec<bool>,
    uses2: Vec<bool>,
}

fn broadcast_shape(s1: &[Expr], s2: &[Expr]) -> TeResult<Broadcast> {
    let (n1, n2) = (s1.len(), s2.len());
    let n = n1.max(n2);
    let mut shape = vec![Expr::i32(0); n];
    let mut uses1 = vec![false; n];
    let mut uses2 = vec![false; n];
    let cast_if = |t: DataType, e: &Expr| op::cast(t, e);
    for i in 1..=n1.min(n2) {
        let (d1, d2) = (&s1[n1 - i], &s2[n2 - i]);
        let pos = n - i;
        let ct = common_type(d1.dtype(), d2.dtype());
        let one = Expr::i32(1);
        if equal_dims(d1, d2) {
            shape[pos] = cast_if(ct, d1)?;
            uses1[pos] = true;
            uses2[pos] = true;
        } else if equal_dims(&one, d1) {
            shape[pos] = cast_if(ct, d2)?;
            uses2[pos] = true;
        } else if equal_dims(&one, d2) {
            shape[pos] = cast_if(ct, d1)?;
            uses1[pos] = true;
        } else if d1.as_int().is_none() && d2.as_int().is_none() {
            shape[pos] = cast_if(ct, &op::max(d1, d2)?)?;
            uses1[pos] = true;
            uses2[pos] = true;
        } else if d1.as_int().is_none() {
            shape[pos] = cast_if(ct, d2)?;
            uses1[pos] = true;
            uses2[pos] = true;
        } else if d2.as_int().is_none() {
            shape[pos] = cast_if(ct, d1)?;
            uses1[pos] = true;
            uses2[pos] = true;
        } else {
            let show = |s: &[Expr]| {
                s.iter()
                    .map(tessel_tir::ir::printer::print_expr)
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return Err(TeError::new(format!(
                "Incompatible broadcast dims: {} and {} in: [{}] and [{}]",
                tessel_tir::ir::printer::print_expr(d1),
                tessel_tir::ir::printer::print_expr(d2),
                show(s1),
                show(s2)
            )));
        }
    }
    let (longer, uses) = if n1 > n2 {
        (s1, &mut uses1)
    } else {
        (s2, &mut uses2)
    };
    for i in (n1.min(n2) + 1)..=n {
        shape[n - i] = longer[n - i].clone();
        uses[n - i] = true;
    }
    Ok(Broadcast {
        shape,
        uses1,
        uses2,
    })
}

/// TVM's `InputIndexFromBroadcast`.
fn input_index(out: &[Expr], t: &Tensor, uses: &[bool]) -> TeResult<Vec<Expr>> {
    let rank = t.ndim();
    let mut ix = Vec::with_capacity(rank);
    for (i, o) in out.iter().enumerate() {
        if uses[i] {
            ix.push(o.clone());
        } else if out.len() - i <= rank {
            ix.push(Expr::int(0, o.dtype()));
        }
    }
    if ix.len() != rank {
        return Err(TeError::invalid_value(
            "broadcast: index count does not match the input",
        ));
    }
    Ok(ix)
}

fn with_broadcast(
    a: &Tensor,
    b: &Tensor,
    name: &str,
    f: fn(&Expr, &Expr) -> TeResult<Expr>,
) -> TeResult<Tensor> {
    let bh = broadcast_shape(a.shape(), b.shape())?;
    compute_cpp(&bh.shape, name, "broadcast", |ix| {
        let xa = a.index(&input_index(ix, a, &bh.uses1)?)?;
        let xb = b.index(&input_index(ix, b, &bh.uses2)?)?;
        Ok(f(&xa, &xb)?.into())
    })
}

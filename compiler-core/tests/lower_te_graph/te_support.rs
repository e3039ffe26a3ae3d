//! Helpers for writing TE programs in tests: Python-like operators on a
//! wrapper, literals as Python converts them, golden-file sections.
#![allow(dead_code)]

use std::ops::{Add, Div, Mul, Neg, Sub};

use compiler_core::ir::{DataType, Expr, IterVar, Var};
use compiler_core::te::{self, op, ComputeBody, ComputeOptions, Reduce, Tensor};

/// An expression with Python's operators (TVM semantics; panics on type errors).
#[derive(Clone, Debug)]
pub struct X(pub Expr);

impl From<Expr> for X {
    fn from(e: Expr) -> X {
        X(e)
    }
}
impl From<&Expr> for X {
    fn from(e: &Expr) -> X {
        X(e.clone())
    }
}
impl From<i64> for X {
    fn from(v: i64) -> X {
        X(op::py_int(v))
    }
}
impl From<f64> for X {
    fn from(v: f64) -> X {
        X(op::py_float(v))
    }
}
impl From<&Var> for X {
    fn from(v: &Var) -> X {
        X(v.to_expr())
    }
}
impl From<&IterVar> for X {
    fn from(v: &IterVar) -> X {
        X(v.var.to_expr())
    }
}
impl From<X> for ComputeBody {
    fn from(x: X) -> ComputeBody {
        x.0.into()
    }
}

macro_rules! binop {
    ($tr:ident, $m:ident, $f:path) => {
        impl<T: Into<X>> $tr<T> for X {
            type Output = X;
            fn $m(self, rhs: T) -> X {
                X($f(&self.0, &rhs.into().0).expect(stringify!($m)))
            }
        }
    };
}
binop!(Add, add, op::add);
binop!(Sub, sub, op::sub);
binop!(Mul, mul, op::mul);
binop!(Div, div, op::truediv);

impl Neg for X {
    type Output = X;
    fn neg(self) -> X {
        X(op::neg(&self.0).expect("neg"))
    }
}

impl X {
    pub fn e(&self) -> Expr {
        self.0.clone()
    }
    pub fn floordiv(self, rhs: impl Into<X>) -> X {
        X(op::floordiv(&self.0, &rhs.into().0).expect("floordiv"))
    }
    pub fn rem(self, rhs: impl Into<X>) -> X {
        X(op::floormod(&self.0, &rhs.into().0).expect("floormod"))
    }
    pub fn lt(self, rhs: impl Into<X>) -> X {
        X(op::lt(&self.0, &rhs.into().0).expect("lt"))
    }
    pub fn le(self, rhs: impl Into<X>) -> X {
        X(op::le(&self.0, &rhs.into().0).expect("le"))
    }
    pub fn gt(self, rhs: impl Into<X>) -> X {
        X(op::gt(&self.0, &rhs.into().0).expect("gt"))
    }
    pub fn ge(self, rhs: impl Into<X>) -> X {
        X(op::ge(&self.0, &rhs.into().0).expect("ge"))
    }
    pub fn astype(self, dt: &str) -> X {
        X(op::cast(dt_(dt), &self.0).expect("cast"))
    }
}

pub fn x(e: impl Into<X>) -> X {
    e.into()
}
pub fn dt_(s: &str) -> DataType {
    DataType::parse(s).expect("dtype")
}
pub fn i64c(v: i64) -> Expr {
    Expr::i64(v)
}
pub fn shape(dims: &[i64]) -> Vec<Expr> {
    dims.iter().map(|d| op::py_int(*d)).collect()
}
pub fn shape64(dims: &[i64]) -> Vec<Expr> {
    dims.iter().map(|d| Expr::i64(*d)).collect()
}
pub fn ph(name: &str, dims: &[i64]) -> Tensor {
    te::placeholder_const(dims, DataType::f32(), name).expect("placeholder")
}
pub fn ph_t(name: &str, dims: &[i64], dt: &str) -> Tensor {
    te::placeholder_const(dims, dt_(dt), name).expect("placeholder")
}
pub fn ph_e(name: &str, dims: Vec<Expr>, dt: &str) -> Tensor {
    te::placeholder(&dims, dt_(dt), name).expect("placeholder")
}
/// `T[i, j]` with anything index-like.
pub fn at(t: &Tensor, ix: &[X]) -> X {
    let ix: Vec<Expr> = ix.iter().map(|x| x.0.clone()).collect();
    X(t.index(&ix).expect("index"))
}
pub fn rax(lo: i64, hi: i64, name: &str) -> IterVar {
    te::reduce_axis_const(lo, hi, name).expect("reduce_axis")
}
pub fn sum(e: X, axis: &[&IterVar]) -> Reduce {
    let axis: Vec<IterVar> = axis.iter().map(|a| (*a).clone()).collect();
    te::sum(&e.0, &axis, None, None).expect("sum")
}
pub fn rmax(e: X, axis: &[&IterVar]) -> Reduce {
    let axis: Vec<IterVar> = axis.iter().map(|a| (*a).clone()).collect();
    te::max(&e.0, &axis, None, None).expect("max")
}
pub fn rmin(e: X, axis: &[&IterVar]) -> Reduce {
    let axis: Vec<IterVar> = axis.iter().map(|a| (*a).clone()).collect();
    te::min(&e.0, &axis, None, None).expect("min")
}
pub fn emax(a: impl Into<X>, b: impl Into<X>) -> X {
    X(op::max(&a.into().0, &b.into().0).expect("max"))
}
/// `te.compute(shape, lambda <names>: body, name=name)`.
pub fn compute<B: Into<ComputeBody>>(
    shape: &[Expr],
    names: &[&str],
    name: &str,
    f: impl FnOnce(&[X]) -> B,
) -> Tensor {
    let opts = ComputeOptions::named(name).with_names(names);
    let mut v = te::compute_with(shape, opts, |ix| {
        let ix: Vec<X> = ix.iter().map(X::from).collect();
        Ok(f(&ix).into())
    })
    .expect("compute");
    assert_eq!(v.len(), 1);
    v.remove(0)
}
/// `te.compute(shape, lambda *i: body, name=name)`.
pub fn compute_star<B: Into<ComputeBody>>(
    shape: &[Expr],
    name: &str,
    f: impl FnOnce(&[X]) -> B,
) -> Tensor {
    let opts = ComputeOptions::named(name);
    let mut v = te::compute_with(shape, opts, |ix| {
        let ix: Vec<X> = ix.iter().map(X::from).collect();
        Ok(f(&ix).into())
    })
    .expect("compute");
    v.remove(0)
}

/// The sections of a golden file: `### name` → text.
pub fn sections(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("### ") {
            out.push((name.trim().to_string(), String::new()));
        } else if let Some((_, body)) = out.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    out
}

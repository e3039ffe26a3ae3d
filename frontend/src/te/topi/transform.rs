//! Layout operators: `transpose`, `reshape` (TVM's C++ `topi/transform.h`),
//! `topi.matmul` and `topi.cast`.

use crate::te::op;
use crate::te::tensor::{
    compute_cpp, compute_with, reduce_axis, sum as te_sum, ComputeOptions, Tensor,
};
use crate::te::{TeError, TeResult};
use tessel_tir::ir::{DataType, Expr};

use super::normalize_axis;

/// `topi.transpose(x, axes)`: `T_transpose`; no `axes` reverses them.
pub fn transpose(x: &Tensor, axes: Option<&[i64]>) -> TeResult<Tensor> {
    let ndim = x.ndim();
    let axes: Vec<i64> = match axes {
        Some(a) if !a.is_empty() => a.to_vec(),
        _ => (0..ndim as i64).rev().collect(),
    };
    if axes.len() != ndim {
        return Err(TeError::new(format!(
            "transpose: {} axes given for a {ndim}-dimensional tensor",
            axes.len()
        )));
    }
    let mut norm = Vec::with_capacity(ndim);
    for a in &axes {
        let n = normalize_axis(*a, ndim, "transpose")?;
        if norm.contains(&n) {
            return Err(TeError::new("repeated axis in transpose"));
        }
        norm.push(n);
    }
    let shape: Vec<Expr> = norm.iter().map(|a| x.shape()[*a].clone()).collect();
    compute_cpp(&shape, "T_transpose", "injective", |ix| {
        let mut idx = vec![Expr::i32(1); ndim];
        for (i, a) in norm.iter().enumerate() {
            idx[*a] = ix[i].clone();
        }
        Ok(x.index(&idx)?.into())
    })
}

/// `topi.reshape(x, newshape)`: `T_reshape`, reading the input at the
/// unravelled row-major position of each output element.
pub fn reshape(x: &Tensor, newshape: &[Expr]) -> TeResult<Tensor> {
    for d in newshape {
        if let Some(v) = d.as_int() {
            if v < 0 {
                return Err(TeError::argument_type(format!(
                    "reshape: the target shape must be explicit, found {v}"
                )));
            }
        }
    }
    let empty = |s: &[Expr]| s.iter().any(|d| d.is_const_int(0));
    if empty(newshape) || empty(x.shape()) {
        let zero = op::cast(x.dtype(), &Expr::i32(0))?;
        return compute_cpp(newshape, "T_reshape", "injective", |_| Ok(zero.into()));
    }
    compute_cpp(newshape, "T_reshape", "injective", |ix| {
        // RavelIndex over the output shape, then UnravelIndex over the input's.
        let mut flat: Option<Expr> = None;
        for (i, v) in ix.iter().enumerate() {
            flat = Some(match flat {
                None => v.clone(),
                Some(f) => op::add(&op::mul(&f, &newshape[i])?, v)?,
            });
        }
        let mut flat = flat.unwrap_or_else(|| Expr::i32(0));
        let in_shape = x.shape();
        let mut idx = Vec::with_capacity(in_shape.len());
        for d in in_shape.iter().rev() {
            idx.push(op::floormod(&flat, d)?);
            flat = op::floordiv(&flat, d)?;
        }
        idx.reverse();
        Ok(x.index(&idx)?.into())
    })
}

/// `topi.matmul(a, b, transp_a, transp_b)` (2-D): `T_matmul`.
pub fn matmul(a: &Tensor, b: &Tensor, transp_a: bool, transp_b: bool) -> TeResult<Tensor> {
    if a.ndim() != 2 || b.ndim() != 2 {
        return Err(TeError::new("topi.matmul takes two 2-dimensional tensors"));
    }
    let out = [
        a.shape()[if transp_a { 1 } else { 0 }].clone(),
        b.shape()[if transp_b { 0 } else { 1 }].clone(),
    ];
    let k = reduce_axis(&Expr::i32(0), &a.shape()[if transp_a { 0 } else { 1 }], "k")?;
    let kv = k.var.to_expr();
    compute_cpp(&out, "T_matmul", "matmul", |ix| {
        let (i, j) = (ix[0].clone(), ix[1].clone());
        let xa = if transp_a {
            a.index(&[kv.clone(), i])?
        } else {
            a.index(&[i, kv.clone()])?
        };
        let xb = if transp_b {
            b.index(&[j, kv.clone()])?
        } else {
            b.index(&[kv.clone(), j])?
        };
        Ok(te_sum(&op::mul(&xa, &xb)?, std::slice::from_ref(&k), None, None)?.into())
    })
}

/// `topi.cast(x, dtype)` / `Tensor.astype(dtype)`: a stage named `compute`
/// (even when the type does not change).
pub fn cast(x: &Tensor, dtype: DataType) -> TeResult<Tensor> {
    let outs = compute_with(
        x.shape(),
        ComputeOptions::named("compute").with_tag("elemwise"),
        |ix| Ok(op::cast(dtype, &x.index(ix)?)?.into()),
    )?;
    outs.into_iter()
        .next()
        .ok_or_else(|| TeError::new("cast: no output"))
}

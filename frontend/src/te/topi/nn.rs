//! `topi.nn`: activations, dense/matmul, softmax, padding and convolution,
//! following TVM's Python definitions.

use crate::te::op;
use crate::te::tensor::{
    compute_with, max as te_max, reduce_axis, sum as te_sum, ComputeOptions, OpAttr, Tensor,
};
use crate::te::{TeError, TeResult};
use tessel_tir::ir::{AttrValue, DataType, Expr, Intrinsic, IterVar};

use super::{add, cast, const_dim, normalize_axis};

fn one(outs: Vec<Tensor>) -> TeResult<Tensor> {
    outs.into_iter()
        .next()
        .ok_or_else(|| TeError::new("compute produced no output"))
}

/// `topi.nn.relu(x)`: a stage named `compute` with `max(x, 0)`.
pub fn relu(x: &Tensor) -> TeResult<Tensor> {
    let zero = op::const_int(0, x.dtype())?;
    one(compute_with(
        x.shape(),
        ComputeOptions::named("compute").with_tag("elemwise"),
        |ix| Ok(op::max(&x.index(ix)?, &zero)?.into()),
    )?)
}

/// `topi.nn.dense(data, weight, bias, out_dtype)`: `data @ weight.T`, i.e.
/// [`matmul`] with `transpose_b`.
pub fn dense(
    data: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    out_dtype: Option<DataType>,
) -> TeResult<Tensor> {
    matmul(data, weight, bias, out_dtype, false, true)
}

/// `topi.nn.matmul(a, b, bias, out_dtype, transpose_a, transpose_b)`:
/// `T_matmul_NN` / `_NT` / `_TN` / `_TT`, batch dimensions broadcast, `b`
/// marked layout-free; a bias is cast (a `compute` stage) and added
/// (`T_add`).
pub fn matmul(
    a: &Tensor,
    b: &Tensor,
    bias: Option<&Tensor>,
    out_dtype: Option<DataType>,
    transpose_a: bool,
    transpose_b: bool,
) -> TeResult<Tensor> {
    let (ra, rb) = (a.ndim(), b.ndim());
    if ra < 2 || rb < 2 {
        return Err(TeError::new("1-dim matmul is not supported yet."));
    }
    if let Some(bias) = bias {
        if bias.ndim() != 1 {
            return Err(TeError::argument_type(
                "matmul: the bias must be 1-dimensional",
            ));
        }
    }
    let out_dtype = out_dtype.unwrap_or_else(|| a.dtype());
    let sa = a.shape();
    let sb = b.shape();
    let (in_dim, reduce_a) = if transpose_a {
        (sa[ra - 1].clone(), sa[ra - 2].clone())
    } else {
        (sa[ra - 2].clone(), sa[ra - 1].clone())
    };
    let (out_dim, reduce_b) = if transpose_b {
        (sb[rb - 2].clone(), sb[rb - 1].clone())
    } else {
        (sb[rb - 1].clone(), sb[rb - 2].clone())
    };
    if let (Some(x), Some(y)) = (reduce_a.as_int(), reduce_b.as_int()) {
        if x != y {
            return Err(TeError::new(format!(
                "Reduction dimensions of dense do not match. {x} vs {y}."
            )));
        }
    }
    let nb = (ra - 2).max(rb - 2);
    let pad = |s: &[Expr], r: usize| -> Vec<Expr> {
        let mut v = vec![Expr::i32(1); nb - (r - 2)];
        v.extend(s[..r - 2].iter().cloned());
        v
    };
    let mut batch_a = pad(sa, ra);
    let batch_b = pad(sb, rb);
    for i in 0..nb {
        let (l, r) = (&batch_a[i], &batch_b[i]);
        if let (Some(x), Some(y)) = (l.as_int(), r.as_int()) {
            if x != 1 && y != 1 && x != y {
                return Err(TeError::new("Batch dimensions of dense do not match"));
            }
        }
        if l.is_const_int(1) {
            batch_a[i] = batch_b[i].clone();
        }
    }
    let k = reduce_axis(&Expr::i32(0), &reduce_a, "k")?;
    let kv = k.var.to_expr();
    let name = match (transpose_a, transpose_b) {
        (true, true) => "T_matmul_TT",
        (true, false) => "T_matmul_TN",
        (false, true) => "T_matmul_NT",
        (false, false) => "T_matmul_NN",
    };
    let tag = if !transpose_a && transpose_b {
        "dense"
    } else {
        "matmul"
    };
    let mut shape = batch_a.clone();
    shape.push(in_dim);
    shape.push(out_dim);
    let opts = ComputeOptions::named(name)
        .with_tag(tag)
        .with_attr("layout_free_placeholders", OpAttr::Tensors(vec![b.clone()]));
    let batch_index = |ix: &[Expr], t: &Tensor| -> Vec<Expr> {
        let r = t.ndim();
        let sel = &ix[ix.len() - r..ix.len() - 2];
        sel.iter()
            .zip(&t.shape()[..r - 2])
            .map(|(i, d)| {
                if d.is_const_int(1) {
                    Expr::i32(0)
                } else {
                    i.clone()
                }
            })
            .collect()
    };
    let mat = one(compute_with(&shape, opts, |ix| {
        let n = ix.len();
        let (i, j) = (ix[n - 2].clone(), ix[n - 1].clone());
        let mut ia = batch_index(ix, a);
        if transpose_a {
            ia.extend([kv.clone(), i]);
        } else {
            ia.extend([i, kv.clone()]);
        }
        let mut ib = batch_index(ix, b);
        if transpose_b {
            ib.extend([j, kv.clone()]);
        } else {
            ib.extend([kv.clone(), j]);
        }
        let va = op::cast(out_dtype, &a.index(&ia)?)?;
        let vb = op::cast(out_dtype, &b.index(&ib)?)?;
        Ok(te_sum(&op::mul(&va, &vb)?, std::slice::from_ref(&k), None, None)?.into())
    })?)?;
    match bias {
        Some(bias) => add(mat, cast(bias, out_dtype)?)?.into_tensor(),
        None => Ok(mat),
    }
}

/// `topi.nn.softmax(x, axis)`: `T_softmax_maxelem`, `T_softmax_exp`,
/// `T_softmax_expsum`, `T_softmax_norm` (annotated with the axis).
pub fn softmax(x: &Tensor, axis: i64) -> TeResult<Tensor> {
    let ndim = x.ndim();
    let axis = normalize_axis(axis, ndim, "softmax")?;
    let shape = x.shape().to_vec();
    let k1 = reduce_axis(&Expr::i32(0), &shape[axis], "k")?;
    let k2 = reduce_axis(&Expr::i32(0), &shape[axis], "k")?;
    let insert = |ix: &[Expr], k: &IterVar| -> Vec<Expr> {
        let mut v = ix[..axis].to_vec();
        v.push(k.var.to_expr());
        v.extend(ix[axis..].iter().cloned());
        v
    };
    let non_reduce = |ix: &[Expr]| -> Vec<Expr> {
        ix.iter()
            .enumerate()
            .filter(|(i, _)| *i != axis)
            .map(|(_, e)| e.clone())
            .collect()
    };
    let reduced: Vec<Expr> = shape
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != axis)
        .map(|(_, d)| d.clone())
        .collect();
    let max_elem = one(compute_with(
        &reduced,
        ComputeOptions::named("T_softmax_maxelem"),
        |ix| {
            Ok(te_max(
                &x.index(&insert(ix, &k1))?,
                std::slice::from_ref(&k1),
                None,
                None,
            )?
            .into())
        },
    )?)?;
    let exp = one(compute_with(
        &shape,
        ComputeOptions::named("T_softmax_exp"),
        |ix| {
            let d = op::sub(&x.index(ix)?, &max_elem.index(&non_reduce(ix))?)?;
            Ok(op::math(Intrinsic::Exp, &d)?.into())
        },
    )?)?;
    let expsum = one(compute_with(
        &reduced,
        ComputeOptions::named("T_softmax_expsum"),
        |ix| {
            Ok(te_sum(
                &exp.index(&insert(ix, &k2))?,
                std::slice::from_ref(&k2),
                None,
                None,
            )?
            .into())
        },
    )?)?;
    one(compute_with(
        &shape,
        ComputeOptions::named("T_softmax_norm").with_attr("axis", AttrValue::Int(axis as i64)),
        |ix| {
            let v = op::truediv(&exp.index(ix)?, &expsum.index(&non_reduce(ix))?)?;
            Ok(v.into())
        },
    )?)
}

/// `topi.nn.pad(data, pad_before, pad_after, pad_value, name)`: a zero
/// (or `pad_value`) border; dimensions padded by nothing are copied.
pub fn pad(
    data: &Tensor,
    pad_before: &[i64],
    pad_after: Option<&[i64]>,
    pad_value: Option<&Expr>,
    name: &str,
) -> TeResult<Tensor> {
    let n = data.ndim();
    let pad_after = pad_after.unwrap_or(pad_before);
    if pad_before.len() != n {
        return Err(TeError::new(format!(
            "Input dimension and pad_before dismatch : {n} vs {}",
            pad_before.len()
        )));
    }
    if pad_after.len() != n {
        return Err(TeError::new(format!(
            "Input dimension and pad_after dismatch : {n} vs {}",
            pad_after.len()
        )));
    }
    let ana = tessel_tir::arith::Analyzer::new();
    let mut out_shape = Vec::with_capacity(n);
    for i in 0..n {
        let s = op::add(
            &op::add(&data.shape()[i], &op::py_int(pad_before[i]))?,
            &op::py_int(pad_after[i]),
        )?;
        out_shape.push(ana.simplify(&s));
    }
    let value = match pad_value {
        Some(v) => v.clone(),
        None => op::const_float(0.0, data.dtype())?,
    };
    let names: Vec<String> = (0..n).map(|i| format!("i{i}")).collect();
    one(compute_with(
        &out_shape,
        ComputeOptions::named(name)
            .with_tag("injective,pad")
            .with_names(&names),
        |ix| {
            let mut not_zero = Vec::new();
            let mut index = Vec::with_capacity(n);
            for i in 0..n {
                if pad_before[i] == 0 && pad_after[i] == 0 {
                    index.push(ix[i].clone());
                } else {
                    let pb = op::py_int(pad_before[i]);
                    index.push(op::sub(&ix[i], &pb)?);
                    not_zero.push(op::ge(&ix[i], &pb)?);
                    not_zero.push(op::lt(&ix[i], &op::add(&data.shape()[i], &pb)?)?);
                }
            }
            let v = data.index(&index)?;
            if not_zero.is_empty() {
                return Ok(v.into());
            }
            let cond = op::all(&not_zero)?;
            Ok(op::if_then_else(&cond, &v, &value)?.into())
        },
    )?)
}

/// `topi.nn.conv2d_nchw(input, filter, stride, padding, dilation, out_dtype)`:
/// a `pad_temp` stage (always, as TVM builds it) and `conv2d_nchw` over
/// `nn, ff, yy, xx` reducing `rc, ry, rx`. `stride`/`dilation` take one or
/// two values, `padding` one, two or four (top, left, bottom, right).
pub fn conv2d_nchw(
    input: &Tensor,
    filter: &Tensor,
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    out_dtype: Option<DataType>,
) -> TeResult<Tensor> {
    if input.ndim() != 4 || filter.ndim() != 4 {
        return Err(TeError::new(
            "conv2d_nchw takes 4-dimensional input and filter",
        ));
    }
    let two = |v: &[i64], what: &str| -> TeResult<[i64; 2]> {
        match v {
            [a] => Ok([*a, *a]),
            [a, b] => Ok([*a, *b]),
            _ => Err(TeError::new(format!(
                "conv2d: {what} takes one or two values"
            ))),
        }
    };
    let strides = two(stride, "stride")?;
    let dils = two(dilation, "dilation")?;
    const LIMIT: i64 = 1 << 24;
    if strides
        .iter()
        .chain(&dils)
        .any(|v| !(1..=LIMIT).contains(v))
    {
        return Err(TeError::argument_type(
            "conv2d: strides and dilations must be positive",
        ));
    }
    if padding.iter().any(|v| !(0..=LIMIT).contains(v)) {
        return Err(TeError::argument_type(
            "conv2d: padding must be non-negative",
        ));
    }
    let out_dtype = out_dtype.unwrap_or_else(|| input.dtype());
    let ish: Vec<i64> = input
        .shape()
        .iter()
        .map(|d| const_dim(d, "conv2d input shape"))
        .collect::<TeResult<_>>()?;
    let fsh: Vec<i64> = filter
        .shape()
        .iter()
        .map(|d| const_dim(d, "conv2d filter shape"))
        .collect::<TeResult<_>>()?;
    let (batch, in_channel, dims) = (ish[0], ish[1], [ish[2], ish[3]]);
    let (num_filter, kdims) = (fsh[0], [fsh[2], fsh[3]]);
    if ish.iter().chain(&fsh).any(|d| *d > (1 << 31)) {
        return Err(TeError::new("conv2d: shape too large"));
    }
    let dilated = [(kdims[0] - 1) * dils[0] + 1, (kdims[1] - 1) * dils[1] + 1];
    let _ = dilated;
    let (pad_begin, pad_end) = match padding {
        [p] => ([(2 * p + 1) / 2; 2], [2 * p - (2 * p + 1) / 2; 2]),
        [ph, pw] => {
            let pd = [2 * ph, 2 * pw];
            let pb = [(pd[0] + 1) / 2, (pd[1] + 1) / 2];
            (pb, [pd[0] - pb[0], pd[1] - pb[1]])
        }
        [t, l, b, r] => ([*t, *l], [*b, *r]),
        _ => {
            return Err(TeError::new(
                "Size of padding can only be len(kernel) or len(kernel) * 2",
            ))
        }
    };
    let mut out_dims = [0i64; 2];
    for i in 0..2 {
        let num = dims[i] - (kdims[i] - 1) * dils[i] - 1 + pad_begin[i] + pad_end[i];
        out_dims[i] = num.div_euclid(strides[i]) + 1;
        if out_dims[i] <= 0 {
            return Err(TeError::invalid_value(format!(
                "Invalid conv parameters: lead to negative output shape {out_dims:?}. "
            )));
        }
    }
    let temp = pad(
        input,
        &[0, 0, pad_begin[0], pad_begin[1]],
        Some(&[0, 0, pad_end[0], pad_end[1]]),
        None,
        "pad_temp",
    )?;
    if in_channel != fsh[1] {
        return Err(TeError::new(format!(
            "conv2d: input has {in_channel} channels but the filter expects {}",
            fsh[1]
        )));
    }
    let rc = reduce_axis(&Expr::i32(0), &op::py_int(in_channel), "rc")?;
    let ry = reduce_axis(&Expr::i32(0), &op::py_int(kdims[0]), "ry")?;
    let rx = reduce_axis(&Expr::i32(0), &op::py_int(kdims[1]), "rx")?;
    let shape: Vec<Expr> = [batch, num_filter, out_dims[0], out_dims[1]]
        .iter()
        .map(|d| op::py_int(*d))
        .collect();
    let opts = ComputeOptions::named("conv2d_nchw")
        .with_tag("conv2d_nchw")
        .with_names(&["nn", "ff", "yy", "xx"]);
    one(compute_with(&shape, opts, |ix| {
        let (nn, ff, yy, xx) = (&ix[0], &ix[1], &ix[2], &ix[3]);
        let (rcv, ryv, rxv) = (rc.var.to_expr(), ry.var.to_expr(), rx.var.to_expr());
        let sp = |d: &Expr, s: i64, r: &Expr, dil: i64| -> TeResult<Expr> {
            op::add(&op::mul(d, &op::py_int(s))?, &op::mul(r, &op::py_int(dil))?)
        };
        let t = temp.index(&[
            nn.clone(),
            rcv.clone(),
            sp(yy, strides[0], &ryv, dils[0])?,
            sp(xx, strides[1], &rxv, dils[1])?,
        ])?;
        let f = filter.index(&[ff.clone(), rcv, ryv, rxv])?;
        let v = op::mul(&op::cast(out_dtype, &t)?, &op::cast(out_dtype, &f)?)?;
        Ok(te_sum(&v, &[rc.clone(), ry.clone(), rx.clone()], None, None)?.into())
    })?)
}

//! Reductions over axes (TVM's C++ `topi/reduction.h`): the result is named
//! `<input>_red`, its reduce axes `k<axis>`.

use crate::ir::{DataType, Expr, IterVar};
use crate::te::tensor::{compute_cpp, reduce_axis, Reduce, Tensor};
use crate::te::{TeError, TeResult};

use super::normalize_axis;

type FReduce = fn(&Expr, &[IterVar], Option<&Expr>, Option<&Expr>) -> TeResult<Reduce>;

/// `topi.sum(data, axis, keepdims)`; `axis=None` reduces every axis.
pub fn sum(data: &Tensor, axis: Option<&[i64]>, keepdims: bool) -> TeResult<Tensor> {
    comm_reduce(data, axis, keepdims, crate::te::tensor::sum)
}
/// `topi.max(data, axis, keepdims)`.
pub fn max(data: &Tensor, axis: Option<&[i64]>, keepdims: bool) -> TeResult<Tensor> {
    comm_reduce(data, axis, keepdims, crate::te::tensor::max)
}
/// `topi.min(data, axis, keepdims)`.
pub fn min(data: &Tensor, axis: Option<&[i64]>, keepdims: bool) -> TeResult<Tensor> {
    comm_reduce(data, axis, keepdims, crate::te::tensor::min)
}

fn comm_reduce(
    data: &Tensor,
    axis: Option<&[i64]>,
    keepdims: bool,
    f: FReduce,
) -> TeResult<Tensor> {
    let ndim = data.ndim();
    if ndim == 0 {
        return Err(TeError::new("Cannot reduce a 0 dim Tensor"));
    }
    let mut real: Vec<usize> = match axis {
        None => (0..ndim).collect(),
        Some(a) => a
            .iter()
            .map(|x| normalize_axis(*x, ndim, "reduce"))
            .collect::<TeResult<_>>()?,
    };
    tessel_ir::sort::ascending(&mut real);
    real.dedup();
    let r_axes: Vec<IterVar> = real
        .iter()
        .map(|i| reduce_axis(&Expr::i32(0), &data.shape()[*i], &format!("k{i}")))
        .collect::<TeResult<_>>()?;
    let mut target = Vec::new();
    for (i, d) in data.shape().iter().enumerate() {
        if real.contains(&i) {
            if keepdims {
                target.push(Expr::int(1, DataType::i32()));
            }
        } else {
            target.push(d.clone());
        }
    }
    let name = format!("{}_red", data.op().name());
    compute_cpp(&target, &name, "comm_reduce", |ix| {
        let mut eval = Vec::with_capacity(ndim);
        let (mut arg, mut red) = (0usize, 0usize);
        for i in 0..ndim {
            if real.contains(&i) {
                eval.push(r_axes[red].var.to_expr());
                red += 1;
                if keepdims {
                    arg += 1;
                }
                continue;
            }
            eval.push(
                ix.get(arg)
                    .cloned()
                    .ok_or_else(|| TeError::new("reduce: index out of range"))?,
            );
            arg += 1;
        }
        Ok(f(&data.index(&eval)?, &r_axes, None, None)?.into())
    })
}

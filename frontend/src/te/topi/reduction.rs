//! Reductions over axes (TVM's C++ `topi/reduction.h`): the result is named
//! `<input>_red`, its reduce axes `k<axis>`; argmax / argmin reduce
//! (index, value) pairs into `<input>_red_temp` first.

use crate::te::tensor::{
    comm_reduce as comm_reduce_with, compute_cpp, compute_cpp_multi, reduce_axis, Combiner,
    ComputeBody, Reduce, Tensor,
};
use crate::te::{TeError, TeResult};
use tessel_tir::ir::{BinOp, CmpOp, DataType, Expr, IterVar, Var};

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

/// `topi.argmax(data, axis, keepdims)`: TVM's `CommReduceIdx`, a reduction
/// `<input>_red_temp` of (flat index over the reduced axes, value) pairs
/// that keeps the first index on ties, whose index `<input>_red` takes.
pub fn argmax(data: &Tensor, axis: Option<&[i64]>, keepdims: bool) -> TeResult<Tensor> {
    arg_reduce(data, axis, keepdims, CmpOp::Gt, false)
}
/// `topi.argmin(data, axis, keepdims)`.
pub fn argmin(data: &Tensor, axis: Option<&[i64]>, keepdims: bool) -> TeResult<Tensor> {
    arg_reduce(data, axis, keepdims, CmpOp::Lt, true)
}

fn arg_reduce(
    data: &Tensor,
    axis: Option<&[i64]>,
    keepdims: bool,
    better: CmpOp,
    min: bool,
) -> TeResult<Tensor> {
    let temp = reduce_with(data, axis, keepdims, "_red_temp", |value, axes| {
        // The flat index over the reduced axes (TVM's RavelIndex).
        let mut idx = axes[0].var.to_expr();
        for a in &axes[1..] {
            let scaled = Expr::binary(BinOp::Mul, idx, a.dom.extent.clone());
            idx = Expr::binary(BinOp::Add, scaled, a.var.to_expr());
        }
        let (idx_t, val_t) = (idx.dtype(), value.dtype());
        let x = [Var::new("x_0", idx_t), Var::new("x_1", val_t)];
        let y = [Var::new("y_0", idx_t), Var::new("y_1", val_t)];
        let e = |v: &Var| v.to_expr();
        let wins = Expr::cmp(better, e(&x[1]), e(&y[1]));
        let first = Expr::or(
            wins.clone(),
            Expr::and(
                Expr::cmp(CmpOp::Eq, e(&x[1]), e(&y[1])),
                Expr::cmp(CmpOp::Lt, e(&x[0]), e(&y[0])),
            ),
        );
        let extreme = tessel_tir::ir::expr::extreme_value(val_t, min)
            .ok_or_else(|| TeError::new(format!("argmax/argmin: {val_t} has no extreme value")))?;
        let combiner = Combiner::new(
            x.to_vec(),
            y.to_vec(),
            vec![
                Expr::select(first, e(&x[0]), e(&y[0])),
                Expr::select(wins, e(&x[1]), e(&y[1])),
            ],
            vec![Expr::int(-1, idx_t), extreme],
        )?;
        Ok(comm_reduce_with(combiner, vec![idx, value], axes, None, vec![])?.into())
    })?;
    let idx = temp[0].clone();
    compute_cpp(
        idx.shape(),
        &format!("{}_red", data.op().name()),
        "comm_reduce_idx",
        |ix| Ok(idx.index(ix)?.into()),
    )
}

fn comm_reduce(
    data: &Tensor,
    axis: Option<&[i64]>,
    keepdims: bool,
    f: FReduce,
) -> TeResult<Tensor> {
    let mut outs = reduce_with(data, axis, keepdims, "_red", |value, axes| {
        Ok(f(&value, axes, None, None)?.into())
    })?;
    Ok(outs.remove(0))
}

/// TVM's reduction over `axis` (`None`: every axis): the reduce axes
/// `k<axis>`, the output shape, and `body(element, reduce axes)` as the
/// compute `<input><suffix>`.
fn reduce_with(
    data: &Tensor,
    axis: Option<&[i64]>,
    keepdims: bool,
    suffix: &str,
    body: impl FnOnce(Expr, &[IterVar]) -> TeResult<ComputeBody>,
) -> TeResult<Vec<Tensor>> {
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
    let name = format!("{}{suffix}", data.op().name());
    let tag = if suffix == "_red" {
        "comm_reduce"
    } else {
        "comm_reduce_idx"
    };
    compute_cpp_multi(&target, &name, tag, |ix| {
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
        body(data.index(&eval)?, &r_axes)
    })
}
